"""mindtouch2zim archives (LibreTexts): each page's HTML, inside its JSON, as a document.

What mindtouch2zim 0.1 writes (``../shared/zims/families/README.md``): every page's body
as ``content/page_content_<id>.json`` (``{"htmlBody": ...}``), read by a Vue.js reader
(``index.html``) that the front articles ``index/page_<id>`` (empty stubs titled by the
page, their text in the full-text index through IndexData) open
(:mod:`corpus_mcp.adapters.fronted`). The body is MindTouch's markup:

- ``div.mt-section`` opening with an ``h2.editable``: the sections, by the generic
  outline (:mod:`corpus_mcp.adapters.html`), each with the wrapper's id;
- ``div.box-*`` (learning objectives, examples, exercises, answers) titled by a
  ``p.boxtitle``: the title kept in bold before the box's text;
- TeX in ``\\( \\)``, ``\\[ \\]`` and ``\\ce{}`` kept verbatim (the page shows it through
  MathJax); ``\\(\\PageIndex{1}\\)``, MindTouch's numbering macro, is its number;
- a table of contents page (``div#dynamicTOC``, ``ul.toc``: the book's chapters and
  sections as links) is the page's own content here, not a site's chrome, so its list
  is kept, each entry a link to its page (a chapter's entry, an ``h2``, a line: an
  entry is no section of the contents page);
- the editor's script templates (``pre.script`` and the ``p.mt-script-comment`` naming
  it, a content-reuse widget) run on the live site only: dropped. A page holding nothing
  else (a chapter's "listing of subpages") is navigation, never a result;
- links between pages are the reader's routes (``#/Bookshelves/...?anchor=X``), which
  name a page by its path on the site, not by its data file: written as links to that
  path (and ``#X``), which the archive's page list (``content/shared.json``: each page's
  id, title and site path, and the site's address), read once per archive, leads to the
  page's data file (:attr:`~corpus_mcp.adapters.base.PageList.paths`); the same list
  gives each page's address on the web. A route the list lacks stays text.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qs, quote, unquote

import msgspec
from lxml.html import tostring

from corpus_mcp.adapters.base import PageList
from corpus_mcp.adapters.fronted import FrontedAdapter
from corpus_mcp.adapters.html.adapter import HtmlAdapter
from corpus_mcp.adapters.outline import elements
from corpus_mcp.cleaning import make_element, parse_html, xpath_has_class
from corpus_mcp.document import Document, Section

__all__ = ["LibreTextsAdapter", "page_html", "route_link"]

_PAGE_INDEX: Final = re.compile(r"\\\(\s*\\PageIndex\{(\d+)\}\s*\\\)")
_SCRIPTS: Final = (
    f".//pre[{xpath_has_class('script')}]"
    f" | .//*[{xpath_has_class('mt-script-comment')}]"
    f" | .//*[{xpath_has_class('mt-contentreuse-widget')}]"
    " | .//style | .//script | .//iframe"
)


#: A route's path on the site keeps these as they are (as LibreTexts' own URLs do).
_URL_SAFE: Final = "/()"


class _Page(msgspec.Struct):
    htmlBody: str = ""  # mindtouch2zim's key


class _ListedPage(msgspec.Struct):
    id: str | int
    path: str
    title: str = ""


class _Shared(msgspec.Struct):
    """``content/shared.json`` (mindtouch2zim's keys)."""

    pages: list[_ListedPage] = msgspec.field(default_factory=list)
    libraryOnlineUrl: str = ""


_decode_page = msgspec.json.Decoder(_Page).decode
_decode_shared = msgspec.json.Decoder(_Shared).decode


class LibreTextsAdapter(FrontedAdapter):
    """The ``libretexts`` family: pages' HTML, fronted by their title stubs."""

    name = "libretexts"
    version = 2
    content = re.compile(r"content/page_content_(?P<id>\d+)\.json")
    stub = re.compile(r"index/page_(?P<id>\d+)")
    content_path = "content/page_content_{id}.json"
    stub_path = "index/page_{id}"
    page_list: str | None = "content/shared.json"
    stubs_indexed_with_content = True
    """The stubs' IndexData is their page's text (see the module)."""

    def parse_page_list(self, data: bytes) -> PageList:
        """Each listed page's site path -> its data file, and its data file -> its
        address on the site (when the list gives the site's ``http(s)`` address)."""
        try:
            shared = _decode_shared(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return PageList()
        site = shared.libraryOnlineUrl.rstrip("/")
        if not site.startswith(("https://", "http://")):
            site = ""
        paths: dict[str, str] = {}
        urls: dict[str, str] = {}
        for page in shared.pages:
            route = page.path.strip("/")
            if not route:
                continue
            document = self.content_path.format(id=page.id)
            paths.setdefault(route, document)
            if site:
                urls.setdefault(document, f"{site}/{quote(route, safe=_URL_SAFE)}")
        return PageList(paths=paths, urls=urls, site=site)

    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The page's sections (see the module); a page of script templates only, or a
        data file that is no page's JSON, is its title alone, marked navigation."""
        page_title = title if title and title != path else path
        body = page_html(html)
        if body is None:
            return _navigation(path, page_title, view)
        document = _READER.parse(path, page_title, body, library, view=view)
        if not any(_has_text(section) for section in document.sections):
            return _navigation(path, page_title, view)
        return document


class _PageReader(HtmlAdapter):
    """The generic reader of a page's HTML, with TeX kept verbatim."""

    tex = True

    def serves(self, path: str) -> bool:
        """A page's links to other pages are routes (see the module): paths outside the
        archive's own folders, led to their page by the page list when they are kept."""
        return not path.startswith(_STORED)


_READER: Final = _PageReader()
#: Where mindtouch2zim stores entries (the data files, the stubs, the reader): a link
#: there is no route.
_STORED: Final = ("content/", "index/", "index.html", "assets/", "mathjax/", "favicon.ico")


def page_html(data: bytes) -> bytes | None:
    """The page's body of a ``page_content`` JSON, as an HTML page with its scripts'
    templates gone, box titles in bold and ``\\PageIndex`` numbers as numbers; None for
    data that is not a page's JSON."""
    try:
        raw = _decode_page(data).htmlBody
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    numbered = _PAGE_INDEX.sub(r"\1", raw)
    root = parse_html(f"<html><body>{numbered}</body></html>".encode())
    for node in elements(root, _SCRIPTS):
        node.drop_tree()
    for box_title in elements(root, f".//p[{xpath_has_class('boxtitle')}]"):
        strong = make_element("strong")
        strong.text, strong[:] = box_title.text, list(box_title)
        box_title.text = None
        box_title.append(strong)
    for listing in elements(root, f".//*[@id='dynamicTOC'] | .//*[{xpath_has_class('toc')}]"):
        listing.attrib.pop("id", None)  # the generic reader drops a TOC as chrome
        listing.set("class", " ".join(c for c in listing.get("class", "").split() if c != "toc"))
        for entry in elements(listing, ".//h1 | .//h2 | .//h3 | .//h4 | .//h5 | .//h6"):
            entry.tag = "p"
    for link in elements(root, ".//a[starts-with(@href, '#/')]"):
        link.set("href", route_link(link.get("href", "")))
    return bytes(tostring(root, encoding="utf-8"))


def route_link(href: str) -> str:
    """The reader's route ``#/<site path>?anchor=<id>`` as a link to that site path from
    the archive's root (``/<site path>#<id>``), which the page list leads to a page."""
    route, _, query = href[2:].partition("?")
    anchor = next(iter(parse_qs(query).get("anchor", ())), "")
    link = "/" + route.strip("/")
    return f"{link}#{quote(unquote(anchor), safe='')}" if anchor else link


def _has_text(section: Section) -> bool:
    return bool(section.content.strip() or section.passages) or any(
        _has_text(child) for child in section.children
    )


def _navigation(path: str, title: str, view: bool) -> Document:
    lead = Section(id="", title=title, level=1, passages=() if view else None)
    return Document(
        path=path,
        title=title,
        kind="article",
        sections=[lead],
        metadata={"navigation": "true"},
        view=view,
    )
