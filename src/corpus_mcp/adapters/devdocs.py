"""devdocs2zim archives: one DevDocs page per entry, split on its h2-h6 headings.

The rules come from zim-formats.md §2. Only ``main._content > div._page`` is content (it
skips the v0.2 ``devdocs-navbar`` element and the v0.1 inlined ``section._sidebar`` alike).
The leading ``h1`` names the page; ``h2``-``h6`` build the section tree. DevDocs keeps
heading ids inconsistently (on the heading, on a wrapping Sphinx ``section[id]``, or
nowhere), and API entries carry their own ids (``dt[id]``, ``span[id]``). Every id inside
a section's content is recorded as one of its anchors, so navbar fragments such as
``library/stdtypes#str.join`` and in-page links reach the right section.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import lxml.html
from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, Landing, symbol_key
from corpus_mcp.cleaning import drop, parse_html, to_markdown, visible_text, xpath_has_class
from corpus_mcp.document import Document, Section

_HEADING_TAGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block wrappers that are unwrapped when they hold a heading; a heading inside a table or
# a definition list stays part of that content.
_WRAPPER_TAGS: Final = frozenset({"section", "div", "article", "main", "header", "body", "aside"})
_NON_CONTENT_PATHS: Final = frozenset({"licenses.txt", "navbar.json", "application.css"})
_MISSING_PAGE_HEADING: Final = "This documentation is missing."
# Chrome that survives DevDocs' own filters: local TOCs, source-link bars, pilcrows.
_JUNK_CLASSES: Final = ("_toc", "_links", "headerlink", "_pre-heading", "_attribution")
# Sphinx general-index targets: only the (absent) genindex links to them.
_INDEX_TARGET_ID: Final = re.compile(r"index-\d+")
_SLUG_JUNK: Final = re.compile(r"[^\w]+")


def _elements(node: HtmlElement, xpath: str) -> list[HtmlElement]:
    return [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]


def _is_heading(node: HtmlElement) -> bool:
    return isinstance(node.tag, str) and node.tag in _HEADING_TAGS


def _contains_heading(node: HtmlElement) -> bool:
    return bool(node.xpath(".//h1|.//h2|.//h3|.//h4|.//h5|.//h6"))


def _slugify(text: str) -> str:
    return _SLUG_JUNK.sub("-", text.lower()).strip("-_") or "section"


@dataclass
class _Block:
    """One step of the flattened page: a heading, a content node, loose text or an id."""

    heading: HtmlElement | None = None
    heading_id: str | None = None
    node: HtmlElement | None = None
    text: str | None = None
    anchor: str | None = None


@dataclass
class _Draft:
    """A section being filled; its content nodes become Markdown at the end."""

    section: Section
    nodes: list[HtmlElement | str] = field(default_factory=list)


class DevDocsAdapter(AdapterDefaults):
    """The ``devdocs`` family: every HTML entry is a documentation page; no redirects."""

    name = "devdocs"
    main_page_is_navigation = False
    """The ``index`` page ("X Documentation") is a real overview page, so it stays searchable."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """HTML pages only: not the navbar data, stylesheet, licence text or Vue assets."""
        if not mimetype.startswith("text/html"):
            return False
        return path not in _NON_CONTENT_PATHS and not path.startswith("assets/")

    # devdocs2zim writes no redirects of any kind, and paths map one to one onto pages
    # (fragments never become entries): the defaults' stub_landing and section_for_path.

    symbol_index: str | None = "navbar.json"

    def parse_symbols(self, data: bytes) -> dict[str, Landing]:
        """navbar.json's symbol index: ``{"str.join": Landing("library/stdtypes", "str.join")}``.

        Keys are case-folded names without a trailing ``()``; the first entry of a name
        wins (DevDocs lists the canonical entry first). Malformed data gives ``{}``.
        """
        try:
            tree = json.loads(data)
        except ValueError:
            return {}
        symbols: dict[str, Landing] = {}

        def visit(node: object) -> None:
            if not isinstance(node, dict):
                return
            name, href = node.get("name"), node.get("href")
            if isinstance(name, str) and isinstance(href, str) and href:
                path, _, fragment = href.partition("#")
                key = symbol_key(name)
                if key and path:
                    symbols.setdefault(key, Landing(path, fragment or None))
            for child in node.get("children") or ():
                visit(child)

        visit(tree)
        return symbols

    def parse(self, path: str, title: str, html: bytes) -> Document:
        """The page's section tree; metadata carries ``heading``, ``source_url``, ``missing``."""
        root = parse_html(html)
        page = _content_root(root)
        metadata: dict[str, str] = {}
        source_url = _attribution_url(page)
        if source_url:
            metadata["source_url"] = source_url
        _strip_chrome(page)
        h1 = next(iter(_elements(page, ".//h1")), None)
        heading = visible_text(h1).strip() if h1 is not None else ""
        if heading:
            metadata["heading"] = heading
        document_title = title.strip() or heading or _html_title(root) or path
        if _is_missing_page(page):
            metadata["missing"] = "true"
            lead = Section(id="", title=heading or document_title, level=1)
            return Document(
                path=path,
                title=document_title,
                kind="documentation",
                sections=[lead],
                metadata=metadata,
            )
        lead_anchors: list[_Block] = []
        if h1 is not None:
            # It titles the lead section (its id, if any, lands there); its tail text stays.
            lead_anchors.append(_Block(anchor=h1.get("id")))
            h1.drop_tree()
        blocks = lead_anchors + _without_local_toc(list(_flatten(page)))
        sections = _build_sections(blocks, heading or document_title)
        return Document(
            path=path,
            title=document_title,
            kind="documentation",
            sections=sections,
            metadata=metadata,
        )


def _content_root(root: HtmlElement) -> HtmlElement:
    """``main._content > div._page``, degrading to any ``div._page``, then the body."""
    for xpath in (
        f"//main[{xpath_has_class('_content')}]/div[{xpath_has_class('_page')}]",
        f"//div[{xpath_has_class('_page')}]",
        "//body",
    ):
        found = _elements(root, xpath)
        if found:
            return found[0]
    return root


def _html_title(root: HtmlElement) -> str:
    titles = _elements(root, "//title")  # visible_text() treats the head as junk
    return " ".join(titles[0].text_content().split()) if titles else ""


def _attribution_url(page: HtmlElement) -> str:
    links = _elements(page, f".//a[{xpath_has_class('_attribution-link')}][@href]")
    return str(links[0].get("href", "")).strip() if links else ""


def _strip_chrome(page: HtmlElement) -> None:
    """Remove the attribution box and in-page navigation DevDocs leaves behind."""
    tests = " or ".join(xpath_has_class(name) for name in _JUNK_CLASSES)
    drop(page, f".//*[{tests}] | .//nav")


def _is_missing_page(page: HtmlElement) -> bool:
    """devdocs2zim's ``MISSING_PAGE`` placeholder: an ``h2`` and an apology paragraph."""
    headings = _elements(page, ".//h1|.//h2")
    return (
        len(headings) == 1
        and headings[0].tag == "h2"
        and visible_text(headings[0]).strip() == _MISSING_PAGE_HEADING
    )


def _flatten(container: HtmlElement, container_id: str | None = None) -> Iterator[_Block]:
    """Walk ``container`` in order, unwrapping every wrapper element that holds a heading.

    Nested Sphinx ``section[id]`` wrappers disappear this way; a wrapper's id goes to its
    heading when the heading is its first child, and otherwise becomes an anchor of the
    section in force where the wrapper starts.
    """
    children = [child for child in container if isinstance(child.tag, str)]
    first_child = children[0] if children else None
    heading_first = first_child is not None and _is_heading(first_child)
    if container_id and not heading_first:
        yield _Block(anchor=container_id)
    if container.text and container.text.strip():
        yield _Block(text=container.text)
    for child in container:
        if not isinstance(child.tag, str):
            pass
        elif _is_heading(child):
            inherited = container_id if child is first_child else None
            yield _Block(heading=child, heading_id=inherited)
        elif child.tag in _WRAPPER_TAGS and _contains_heading(child):
            yield from _flatten(child, child.get("id"))
        else:
            yield _Block(node=child)
            continue  # the copied node carries its own tail
        if child.tail and child.tail.strip():
            yield _Block(text=child.tail)


def _without_local_toc(blocks: list[_Block]) -> list[_Block]:
    """The blocks minus any list, before the first heading, whose links all stay in-page.

    Sphinx's unwrapped ``.contents`` leaves such a bare list near the top; lists of links
    to other pages (toctrees, the ``index`` page) are real content and stay.
    """
    kept: list[_Block] = []
    for position, block in enumerate(blocks):
        if block.heading is not None:
            return kept + blocks[position:]
        node = block.node
        if node is not None and node.tag in {"ul", "ol"} and _links_only_in_page(node):
            if node.tail and node.tail.strip():
                kept.append(_Block(text=node.tail))
            continue
        kept.append(block)
    return kept


def _links_only_in_page(node: HtmlElement) -> bool:
    hrefs = [str(link.get("href", "")) for link in _elements(node, ".//a")]
    return bool(hrefs) and all(href.startswith("#") for href in hrefs)


def _build_sections(blocks: list[_Block], lead_title: str) -> list[Section]:
    """Nest headings by level under a lead section (id ``""``) for the text before them."""
    lead = _Draft(Section(id="", title=lead_title, level=1))
    drafts = [lead]
    top: list[Section] = [lead.section]
    stack: list[Section] = []
    taken: set[str] = {""}
    current = lead
    for block in blocks:
        if block.heading is not None:
            current = _Draft(_new_section(block.heading, block.heading_id, taken))
            drafts.append(current)
            while stack and stack[-1].level >= current.section.level:
                stack.pop()
            (stack[-1].children if stack else top).append(current.section)
            stack.append(current.section)
        elif block.node is not None:
            current.nodes.append(block.node)
        elif block.text is not None:
            current.nodes.append(block.text)
        elif block.anchor is not None and block.anchor not in taken:
            taken.add(block.anchor)
            current.section.anchors.append(block.anchor)
    for draft in drafts:
        _finish(draft, taken)
    return top


def _new_section(heading: HtmlElement, inherited_id: str | None, taken: set[str]) -> Section:
    title = " ".join(visible_text(heading).split())
    own_id = heading.get("id")
    base = (own_id or inherited_id or _slugify(title)).strip() or "section"
    section_id = _unique(base, taken)
    section = Section(id=section_id, title=title, level=int(str(heading.tag)[1]))
    if own_id and inherited_id and inherited_id not in taken:
        taken.add(inherited_id)
        section.anchors.append(inherited_id)
    return section


def _unique(base: str, taken: set[str]) -> str:
    candidate, counter = base, 2
    while candidate in taken:
        candidate, counter = f"{base}-{counter}", counter + 1
    taken.add(candidate)
    return candidate


def _finish(draft: _Draft, taken: set[str]) -> None:
    """Render the draft's nodes to Markdown and record the ids they carry as anchors."""
    holder = lxml.html.Element("div")
    for item in draft.nodes:
        if isinstance(item, str):
            _append_text(holder, item)
        else:
            holder.append(copy.deepcopy(item))
    for node in _elements(holder, ".//*[@id]"):
        anchor = str(node.get("id", "")).strip()
        if anchor and anchor not in taken and not _INDEX_TARGET_ID.fullmatch(anchor):
            taken.add(anchor)
            draft.section.anchors.append(anchor)
    draft.section.content = to_markdown(holder).strip() if len(holder) or holder.text else ""


def _append_text(holder: HtmlElement, text: str) -> None:
    if len(holder):
        last = holder[-1]
        last.tail = (last.tail or "") + text
    else:
        holder.text = (holder.text or "") + text
