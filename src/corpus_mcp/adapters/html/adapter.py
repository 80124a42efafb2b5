"""Any HTML archive (adapter ``html``): a crawled site (zimit/warc2zim), or any family
without an adapter of its own.

A page is read as its generator made it: its main content found and its chrome dropped
(:mod:`.content`), its headings made sections with their own ids (Sphinx ``section[id]``,
``h2[id]``, MediaWiki's ``span.mw-headline[id]``, an ``a[name]`` before a heading) by the
outline DevDocs pages use (:mod:`corpus_mcp.adapters.outline`), so glossary and API
entries (``dt[id]``) are sections of their own. The replay wrapper warc2zim puts at the
top of every page (``<!-- WB Insert -->``: wombat scripts and ``wbinfo``) is scripts and
a comment, never text; it says where the page was crawled from.

Links keep the paths the archive stores: ``.html`` stays, and a query string is part of a
warc2zim path (``pydoctheme.css?2022.1``, referenced as ``%3F``); links to entries the
archive lacks are dropped by fetch, which asks the archive (``assemble.without_dead_links``).
"""

from __future__ import annotations

import re
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, Landing
from corpus_mcp.adapters.html.content import drop_chrome, main_content
from corpus_mcp.adapters.links import LinkResolver, web_url
from corpus_mcp.adapters.outline import (
    WRAPPER_TAGS,
    Block,
    build_sections,
    elements,
    flatten,
    without_local_toc,
)
from corpus_mcp.adapters.stubs import refresh_landing
from corpus_mcp.cleaning import Rendering, parse_html, visible_text, xml_safe_retry
from corpus_mcp.document import Document, Kind

__all__ = ["HtmlAdapter", "page_title", "source_url"]

# warc2zim's replay files and any ``_zim_static`` helper: code, never documents.
_REPLAY_PREFIX: Final = "_zim_static/"
# What a link to an entry of these kinds leads to is a file, not a page fetch can show.
_FILE_SUFFIXES: Final = (
    ".css", ".js", ".mjs", ".json", ".xml", ".png", ".jpg", ".jpeg", ".gif", ".svg",
    ".webp", ".ico", ".bmp", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".zip",
    ".gz", ".epub", ".mp3", ".mp4", ".webm", ".ogg", ".vtt", ".txt", ".csv",
)  # fmt: skip
# ``wombatSetup.getWombatInfo(current_url, "host", "scheme", "https://host/page", ...)``
_WBINFO_URL: Final = re.compile(
    rb"getWombatInfo\(\s*current_url\s*,\s*\"[^\"]*\"\s*,\s*\"[^\"]*\"\s*,\s*\"(https?://[^\"]+)\""
)
_WB_INSERT: Final = b"<!-- WB Insert -->"
# A page title's site suffix: "Page — Site", "Page | Site", "Page - Site".
_TITLE_SEPARATORS: Final = (" — ", " | ", " – ", " - ", " · ", " :: ")
_DOCUMENTATION_GENERATORS: Final = ("sphinx", "docutils", "mkdocs", "doxygen", "javadoc")
# A heading inside a list item opens a section too (a guide's steps as ``ol > li``):
# such lists are unwrapped like the block wrappers DevDocs pages have.
_WRAPPERS: Final = WRAPPER_TAGS | {"ol", "ul", "li"}
_UNNAMED_HEADINGS: Final = "|".join(f".//h{level}[not(@id)]" for level in range(1, 7))


class HtmlAdapter(AdapterDefaults):
    """The ``html`` family: every HTML entry is a page, the main page a listing."""

    name = "html"
    version = 1
    main_page_is_navigation = True
    """A site's home page is its navigation; and warc2zim stores it twice (``3.11/`` and
    ``3.11/index.html``): the main entry left out, a search never returns both."""
    redirect_stubs = True
    """A crawled site's moved pages are ``<meta http-equiv=refresh>`` stubs."""
    tex = False
    """Raw TeX in the text kept verbatim (a family whose pages MathJax typesets)."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """HTML pages, not the replay files; assets are not HTML."""
        if mimetype.split(";", 1)[0].strip().lower() != "text/html":
            return False
        return not path.startswith(_REPLAY_PREFIX)

    def serves(self, path: str) -> bool:
        """A page: not the replay files, not a stylesheet, image or download."""
        lowered = path.lower()
        if path.startswith(_REPLAY_PREFIX) or lowered.endswith(_FILE_SUFFIXES):
            return False
        return "?" not in path or not lowered.split("?", 1)[0].endswith(_FILE_SUFFIXES)

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        """Where a ``meta refresh`` stub lands in the archive (not a refresh off-site)."""
        return refresh_landing(path, html, web=True)

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The page's section tree; metadata carries ``heading`` and ``source_url``."""
        root = parse_html(html)
        metadata: dict[str, str] = {}
        url = source_url(root, html)
        if url:
            metadata["source_url"] = url
        kind = _kind(root)
        document_title = page_title(root, title, path)
        body = root.find("body")
        if body is None:
            body = root
        drop_chrome(body)
        page = main_content(body, html)
        _name_headings(page)
        rendering = Rendering(
            links=LinkResolver(library, path, serves=self.serves), tex=self.tex, view=view
        )
        rendering.prepare(page, html)
        h1 = next(page.iter("h1"), None)
        # Sphinx's title is inside its content, MediaWiki's above it.
        named = h1 if h1 is not None else _first_heading(body, html)
        heading = visible_text(named) if named is not None else ""
        if heading:
            metadata["heading"] = heading
            if heading.casefold() != document_title.casefold():
                document_title = heading  # else the entry's casing ("Emma", not "EMMA")
        lead: list[Block] = []
        if h1 is not None:
            lead.append(Block(anchor=h1.get("id")))
            h1.drop_tree()  # it titles the lead section; its tail text stays
        blocks = lead + without_local_toc(list(flatten(page, wrappers=_WRAPPERS)))
        sections = build_sections(blocks, document_title, rendering)
        return Document(
            path=path,
            title=document_title,
            kind=kind,
            sections=sections,
            metadata=metadata,
            view=view,
        )


def page_title(root: HtmlElement, entry_title: str, path: str) -> str:
    """The entry's title, else the ``<title>`` without its site suffix, else the path.

    (The page's ``h1``, when it has one, wins over all three: see ``parse``.) An entry
    titled by its own path (what libzim gives an untitled entry) is untitled.
    """
    title = entry_title.strip()
    if title and title != path:
        return title
    for element in root.iter("title"):
        text = " ".join(element.text_content().split())
        if text:
            return without_site_suffix(text)
    return path


def without_site_suffix(title: str) -> str:
    """``"12. Packages — Python 3.11 documentation"`` -> ``"12. Packages"``: the part
    before the last separator of the strongest kind the title has."""
    for separator in _TITLE_SEPARATORS:
        head, found, _ = title.rpartition(separator)
        if found and head.strip():
            return head.strip()
    return title


def source_url(root: HtmlElement, html: bytes) -> str:
    """Where the page was read from: the URL warc2zim's replay wrapper records, else a
    canonical link that is an absolute web URL (warc2zim rewrites canonical links into
    relative paths that lead nowhere: those are not the page's URL)."""
    if _WB_INSERT in html[:8192] or b"getWombatInfo" in html[:16384]:
        found = _WBINFO_URL.search(html, 0, 16384)
        if found:
            return web_url(found.group(1).decode("utf-8", "replace"))
    for link in root.iter("link"):
        if (link.get("rel") or "").strip().lower() != "canonical":
            continue
        href = (link.get("href") or "").strip()
        if href.startswith("//"):
            href = "https:" + href
        if href[:8].lower().startswith(("http://", "https://")):
            return web_url(href)
    return ""


def _kind(root: HtmlElement) -> Kind:
    """``documentation`` for pages a documentation generator made, else ``article``."""
    for meta in root.iter("meta"):
        if (meta.get("name") or "").strip().lower() == "generator":
            generator = (meta.get("content") or "").lower()
            if any(name in generator for name in _DOCUMENTATION_GENERATORS):
                return "documentation"
    return "article"


def _first_heading(body: HtmlElement, html: bytes) -> HtmlElement | None:
    """MediaWiki's ``h1#firstHeading`` (outside its content), if the page has one."""
    if b"firstHeading" not in html:
        return None
    found = elements(body, ".//h1[@id='firstHeading']")
    return found[0] if found and visible_text(found[0]) else None


def _name_headings(page: HtmlElement) -> None:
    """Give each heading the id its generator put elsewhere: inside it (MediaWiki's
    ``h2 > span.mw-headline[id]``, an ``h2 > a[name]``) or on the wrappers it opens
    (``li#s301 > div.step > div > h2``: the outline gives a wrapper's id to the heading
    opening it directly only); and make every ``a[name]`` link target (older pages) an
    ``id`` target, as the outline reads Sphinx's ``span[id]`` labels before a heading."""
    for anchor in elements(page, ".//a[@name][not(@href)][not(@id)]"):
        anchor.set("id", str(anchor.get("name")))
    for heading in elements(page, _UNNAMED_HEADINGS):
        named = elements(heading, ".//*[@id]")
        if named:
            heading.set("id", str(named[0].get("id")))
            del named[0].attrib["id"]
            continue
        opened = _wrapper_opened_by(heading)
        if opened is not None:
            heading.set("id", str(opened.get("id")))
            del opened.attrib["id"]


def _wrapper_opened_by(heading: HtmlElement) -> HtmlElement | None:
    """The outermost id'd wrapper whose first content, through wrappers, is ``heading``."""
    found: HtmlElement | None = None
    node = heading
    parent = node.getparent()
    while parent is not None and parent.tag in _WRAPPERS and parent.tag != "body":
        first = next((child for child in parent if isinstance(child.tag, str)), None)
        if first is not node or (parent.text or "").strip():
            break
        if parent.get("id"):
            found = parent
        node, parent = parent, parent.getparent()
    return found
