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
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, Landing, symbol_key
from corpus_mcp.adapters.links import LinkResolver
from corpus_mcp.adapters.outline import Block, build_sections, elements, flatten, without_local_toc
from corpus_mcp.cleaning import (
    Rendering,
    drop,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document, Section, walk

_NON_CONTENT_PATHS: Final = frozenset({"licenses.txt", "navbar.json", "application.css"})
_MISSING_PAGE_HEADING: Final = "This documentation is missing."
# Chrome that survives DevDocs' own filters: local TOCs, source-link bars, pilcrows.
# rustdoc's ``.rightside`` (a source link and a "since" version floated beside a heading)
# and ``.notable-traits`` (a tooltip repeating a trait impl after a method's signature).
_JUNK_CLASSES: Final = (
    "_toc", "_links", "headerlink", "_pre-heading", "_attribution", "rightside",
    "notable-traits",
)  # fmt: skip


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
        h1 = next(iter(elements(page, ".//h1")), None)
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
        lead_anchors: list[Block] = []
        if h1 is not None:
            # It titles the lead section (its id, if any, lands there); its tail text stays.
            lead_anchors.append(Block(anchor=h1.get("id")))
            h1.drop_tree()
        blocks = lead_anchors + without_local_toc(list(flatten(page)))
        sections = build_sections(blocks, heading or document_title, rendering)
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
        found = elements(root, xpath)
        if found:
            return found[0]
    return root


def _html_title(root: HtmlElement) -> str:
    titles = elements(root, "//title")  # visible_text() treats the head as junk
    return " ".join(titles[0].text_content().split()) if titles else ""


def _attribution_url(page: HtmlElement) -> str:
    links = elements(page, f".//a[{xpath_has_class('_attribution-link')}][@href]")
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
    headings = elements(page, ".//h1|.//h2")
    return (
        len(headings) == 1
        and headings[0].tag == "h2"
        and visible_text(headings[0]).strip() == _MISSING_PAGE_HEADING
    )
