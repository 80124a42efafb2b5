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

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, Landing, symbol_key
from corpus_mcp.adapters.entries import INDEX_TARGET_ID, split_entries, unique_id
from corpus_mcp.adapters.links import LinkResolver
from corpus_mcp.cleaning import (
    Rendering,
    drop,
    make_element,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document, Section, walk

_HEADING_TAGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block wrappers that are unwrapped when they hold a heading; a heading inside a table or
# a definition list stays part of that content.
# rustdoc's ``summary`` holds a method's ``section[id] > h4`` (DevDocs unwraps the
# ``details`` around it but keeps the ``summary``): unwrapped too, so a method is a section.
_WRAPPER_TAGS: Final = frozenset(
    {"section", "div", "article", "main", "header", "body", "aside", "summary", "details"}
)
_NON_CONTENT_PATHS: Final = frozenset({"licenses.txt", "navbar.json", "application.css"})
_MISSING_PAGE_HEADING: Final = "This documentation is missing."
# Chrome that survives DevDocs' own filters: local TOCs, source-link bars, pilcrows.
# rustdoc's ``.rightside`` (a source link and a "since" version floated beside a heading)
# and ``.notable-traits`` (a tooltip repeating a trait impl after a method's signature).
_JUNK_CLASSES: Final = (
    "_toc", "_links", "headerlink", "_pre-heading", "_attribution", "rightside",
    "notable-traits",
)  # fmt: skip
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
    aliases: tuple[str, ...] = ()
    """Ids of the empty link targets just before the heading (Sphinx labels)."""
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
    version = 3  # 2: rustdoc methods are sections; 3: a page titled after an entry on it
    # is titled by its heading
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

    def parse_symbols(self, data: bytes) -> list[tuple[str, Landing]]:
        """navbar.json's entries in order: ``("str.join", Landing("library/stdtypes",
        "str.join"))``, page entries (``"Admin actions"``) included.

        Names are case-folded without a trailing ``()``. Every entry is kept, so a name
        documented in two places finds both. Malformed data gives ``[]``.
        """
        try:
            tree = json.loads(data)
        except ValueError:
            return []
        symbols: list[tuple[str, Landing]] = []

        def visit(node: object) -> None:
            if not isinstance(node, dict):
                return
            name, href = node.get("name"), node.get("href")
            if isinstance(name, str) and isinstance(href, str) and href:
                path, _, fragment = href.partition("#")
                key = symbol_key(name)
                if key and path:
                    symbols.append((key, Landing(path, fragment or None)))
            for child in node.get("children") or ():
                visit(child)

        visit(tree)
        return list(dict.fromkeys(symbols))

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The page's section tree; metadata carries ``heading``, ``source_url``, ``missing``."""
        root = parse_html(html)
        page = _content_root(root)
        metadata: dict[str, str] = {}
        source_url = _attribution_url(page)
        if source_url:
            metadata["source_url"] = source_url
        _strip_chrome(page, html)
        rendering = Rendering(links=LinkResolver(library, path, serves=self.serves), view=view)
        rendering.prepare(page, html)
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
                view=view,
            )
        lead_anchors: list[_Block] = []
        if h1 is not None:
            # It titles the lead section (its id, if any, lands there); its tail text stays.
            lead_anchors.append(_Block(anchor=h1.get("id")))
            h1.drop_tree()
        blocks = lead_anchors + _without_local_toc(list(_flatten(page)))
        sections = _build_sections(blocks, heading or document_title, rendering)
        if heading and _names_an_entry(document_title, sections):
            document_title = heading
        return Document(
            path=path,
            title=document_title,
            kind="documentation",
            sections=sections,
            metadata=metadata,
            view=view,
        )


def _names_an_entry(title: str, sections: list[Section]) -> bool:
    """Whether the archive's title for a page is the name of one of the API entries on
    it: devdocs2zim titles a page after an index entry, which on a reference page can be
    any of its entries (Flask's API page is ``_AppCtxGlobals``, a PostgreSQL settings page
    ``Config: maintenance_work_mem``); such a page is titled by its heading. A title that
    only names the page's subject (``std::stoll`` over "std::stoi, std::stol,
    std::stoll", no entries) stays."""
    # DevDocs prefixes some entry names with their kind ("Config: ", "Hooks: ").
    wanted = {_name(title), _name(title.rsplit(": ", 1)[-1])}
    return any(
        not wanted.isdisjoint(_entry_names(section))
        for section in walk(sections)
        if section.role == "entry"
    )


def _entry_names(entry: Section) -> set[str]:
    """What an entry is called: its anchor and the name its signature opens with, each
    also without its module or class (``flask.ctx._AppCtxGlobals``, ``_AppCtxGlobals``)."""
    signature = entry.title.split("(", 1)[0].split()
    names = {entry.id, signature[-1].rstrip(":")} if signature else {entry.id}
    names |= {name.rsplit(".", 1)[-1] for name in names}
    return {_name(name) for name in names}


def _name(text: str) -> str:
    """A name as written, spaces collapsed, without a trailing ``()``; case kept: the
    ``abc`` module's page is not named after its ``ABC`` class."""
    name = " ".join(text.split())
    return name[:-2].rstrip() if name.endswith("()") else name


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


def _strip_chrome(page: HtmlElement, html: bytes) -> None:
    """Remove the attribution box and in-page navigation DevDocs leaves behind.

    Only the classes the page's bytes mention are looked for: the tree-wide class test
    costs milliseconds on a large page, the byte scan microseconds.
    """
    present = [name for name in _JUNK_CLASSES if name.encode() in html]
    paths = [f".//*[{' or '.join(xpath_has_class(name) for name in present)}]"] if present else []
    if b"<nav" in html:
        paths.append(".//nav")
    if paths:
        drop(page, " | ".join(paths))


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

    Nested Sphinx ``section[id]`` wrappers disappear this way. Real Sphinx output puts
    empty link targets before the heading (``<section id="slots"><span id="label">
    </span><h3>``): such targets are skipped when asking whether the heading opens the
    wrapper, and become aliases of the heading's section. A wrapper's id goes to the
    heading that opens it; otherwise it becomes an anchor of the section in force where
    the wrapper starts.
    """
    children = [child for child in container if isinstance(child.tag, str)]
    targets: list[HtmlElement] = []
    if not (container.text or "").strip():
        for child in children:
            if not _is_empty_target(child):
                break
            targets.append(child)
    opener = children[len(targets)] if len(children) > len(targets) else None
    heading_first = opener is not None and _is_heading(opener)
    if container_id and not heading_first:
        yield _Block(anchor=container_id)
    if container.text and container.text.strip():
        yield _Block(text=container.text)
    leading = {id(t) for t in targets} if heading_first else set()
    pending = [str(t.get("id")) for t in targets] if heading_first else []
    for child in container:
        if not isinstance(child.tag, str) or id(child) in leading:
            continue  # leading targets travel with the heading they announce
        if _is_heading(child):
            inherited = container_id if child is opener else None
            yield _Block(heading=child, heading_id=inherited, aliases=tuple(pending))
            pending = []
        elif child.tag in _WRAPPER_TAGS and _contains_heading(child):
            yield from _flatten(child, child.get("id"))
        elif (alias := _lone_target_before_heading(child)) is not None:
            # A label target announcing an unwrapped heading: that heading's alias.
            pending.append(alias)
            continue
        else:
            yield _Block(node=child)
            continue  # the copied node carries its own tail
        if child.tail and child.tail.strip():
            yield _Block(text=child.tail)


def _is_empty_target(node: HtmlElement) -> bool:
    """An id-only link target: ``<span id="x"></span>`` or ``<a id="x"></a>``."""
    return (
        node.tag in {"span", "a"}
        and bool(node.get("id"))
        and not node.get("href")
        and len(node) == 0
        and not (node.text or "").strip()
        and not (node.tail or "").strip()
    )


def _lone_target_before_heading(node: HtmlElement) -> str | None:
    """The id of an empty target that directly precedes a heading among its siblings."""
    if not _is_empty_target(node):
        return None
    following = node.getnext()
    while following is not None and _is_empty_target(following):
        following = following.getnext()
    if following is not None and _is_heading(following):
        return str(node.get("id"))
    return None


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


def _build_sections(blocks: list[_Block], lead_title: str, rendering: Rendering) -> list[Section]:
    """Nest headings by level under a lead section (id ``""``) for the text before them."""
    lead = _Draft(Section(id="", title=lead_title, level=1))
    drafts = [lead]
    top: list[Section] = [lead.section]
    stack: list[Section] = []
    taken: set[str] = {""}
    current = lead
    for block in blocks:
        if block.heading is not None:
            current = _Draft(_new_section(block.heading, block.heading_id, block.aliases, taken))
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
        _finish(draft, taken, rendering)
    return top


def _new_section(
    heading: HtmlElement, inherited_id: str | None, aliases: tuple[str, ...], taken: set[str]
) -> Section:
    """The section a heading opens. Its id is the archive's own anchor: the heading's
    id, else the id of the wrapper it opens, else the first label target announcing it,
    and only failing all of them a slug of its text; the other ids become aliases."""
    title = " ".join(visible_text(heading).split())
    own_id = heading.get("id")
    named = [i for i in (own_id, inherited_id, *aliases) if i and i.strip()]
    base = named[0].strip() if named else _slugify(title)
    section_id = unique_id(base or "section", taken)
    section = Section(id=section_id, title=title, level=int(str(heading.tag)[1]))
    for alias in named[1:]:
        if alias not in taken:
            taken.add(alias)
            section.anchors.append(alias)
    return section


def _finish(draft: _Draft, taken: set[str], rendering: Rendering) -> None:
    """Render the draft's nodes to Markdown, its API entries as sections of their own
    (:mod:`corpus_mcp.adapters.entries`), and record the ids they carry as anchors."""
    # The page's tree has been walked in full by now, so its nodes are moved, not copied
    # (a copy of every node cost more than rendering some of them); they keep their tails.
    holder = make_element("div")
    for item in draft.nodes:
        if isinstance(item, str):
            _append_text(holder, item)
        else:
            holder.append(item)
    section = draft.section
    section.children[:0] = split_entries(holder, section.level, taken, rendering, section.title)
    for node in _elements(holder, ".//*[@id]"):
        anchor = str(node.get("id", "")).strip()
        if anchor and anchor not in taken and not INDEX_TARGET_ID.fullmatch(anchor):
            taken.add(anchor)
            section.anchors.append(anchor)
    text = rendering(holder, section.level) if len(holder) or holder.text else rendering.nothing()
    section.content, section.passages = text


def _append_text(holder: HtmlElement, text: str) -> None:
    if len(holder):
        last = holder[-1]
        last.tail = (last.tail or "") + text
    else:
        holder.text = (holder.text or "") + text
