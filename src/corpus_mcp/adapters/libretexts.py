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
- the editor's script templates (``pre.script`` and the ``p.mt-script-comment`` naming
  it, a content-reuse widget) run on the live site only: dropped. A page holding nothing
  else (a chapter's "listing of subpages") is navigation, never a result;
- links between pages are the reader's routes (``#/Bookshelves/...``), which name a
  page by its path, not its id: without the page list the text stays, the link goes.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
from lxml.html import tostring

from corpus_mcp.adapters.fronted import FrontedAdapter
from corpus_mcp.adapters.html.adapter import HtmlAdapter
from corpus_mcp.adapters.outline import elements
from corpus_mcp.cleaning import make_element, parse_html, xpath_has_class
from corpus_mcp.document import Document, Section

__all__ = ["LibreTextsAdapter", "page_html"]

_PAGE_INDEX: Final = re.compile(r"\\\(\s*\\PageIndex\{(\d+)\}\s*\\\)")
_SCRIPTS: Final = (
    f".//pre[{xpath_has_class('script')}]"
    f" | .//*[{xpath_has_class('mt-script-comment')}]"
    f" | .//*[{xpath_has_class('mt-contentreuse-widget')}]"
    " | .//style | .//script | .//iframe"
)


class _Page(msgspec.Struct):
    htmlBody: str = ""  # mindtouch2zim's key


_decode_page = msgspec.json.Decoder(_Page).decode


class LibreTextsAdapter(FrontedAdapter):
    """The ``libretexts`` family: pages' HTML, fronted by their title stubs."""

    name = "libretexts"
    version = 1
    content = re.compile(r"content/page_content_(?P<id>\d+)\.json")
    stub = re.compile(r"index/page_(?P<id>\d+)")
    content_path = "content/page_content_{id}.json"
    stub_path = "index/page_{id}"

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
        return False  # the page's links are the reader's routes (see the module)


_READER: Final = _PageReader()


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
    for link in elements(root, ".//a[starts-with(@href, '#/')]"):
        link.attrib.pop("href")
    return bytes(tostring(root, encoding="utf-8"))


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
