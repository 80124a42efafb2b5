"""gutenberg2zim archives (Project Gutenberg): books, their cover pages, listings.

What gutenberg2zim 3.x writes (``../shared/zims/families/README.md``):

- a book is one page ``<Title>.<id>``, PG's HTML with an icon-only infobox prepended
  (links to the cover page and the EPUB, a "back to top" arrow): its chapters become
  sections (:mod:`corpus_mcp.adapters.book`), the infobox and the cover image go;
- ``<Title>_cover.<id>``, the front article a title search finds: author, language,
  licence, popularity and icon-only format links. As a document it names the book, its
  author and language and links the book; as a search hit it stands for the book
  (:meth:`GutenbergAdapter.result_for`), which holds every word the cover has and the
  whole text besides, so a search never offers a page of five lines in its place;
- author pages ``<Name>.<agent id>``, ``Home`` and the ``lcc_shelf_*`` bookshelves:
  skeletons whose book lists scripts fill from ``*.js`` JSON helpers, which an adapter
  (bytes of one entry in) cannot read. They are navigation, never a result: the books
  themselves answer a search for their author, whose name their titles carry;
- EPUBs, covers, scripts and their l10n JSON: never documents. One of those helpers,
  ``full_by_title.js`` (every book's title and number), is the archive's page list: a
  book's address on Project Gutenberg (``/ebooks/<id>``, or one of its files') leads to
  the book.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, PageList, Site, SiteFacts, listed_site
from corpus_mcp.adapters.book import book_sections
from corpus_mcp.adapters.links import LinkResolver
from corpus_mcp.cleaning import (
    Rendering,
    drop,
    has_class,
    make_element,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document, Section

__all__ = ["GutenbergAdapter", "author_name"]

# ``<Title>.<id>`` (a book or an author page) and ``<Title>_cover.<id>``: the only
# entries that are documents; ``<Title>.<id>.epub`` and the JSON helpers do not match.
_PAGE_PATH: Final = re.compile(r".+\.(?P<id>\d+)")
_COVER_PATH: Final = re.compile(r"(?P<title>.+)_cover\.(?P<id>\d+)")
_LISTING_PATHS: Final = re.compile(r"Home|lcc_shelf_.*")
_INFOBOX_CLASSES: Final = ("zim_info", "zim_epub", "zim_up")
# gutenberg2zim renames the book's ``images/cover.jpg`` to ``<id>_cover.jpg``: the book's
# first picture is its cover, which the cover page already shows.
_COVER_IMAGE: Final = re.compile(r"(?:\./)?\d+_cover\.\w+")
_EBOOK_URL: Final = "https://www.gutenberg.org/ebooks/{}"
_SITE: Final = "https://www.gutenberg.org"
# A book's addresses on Project Gutenberg: its page, its files, its cached EPUB and HTML.
_WEB_BOOK: Final = re.compile(r"(?:ebooks|files|cache/epub)/(\d+)(?:[./].*)?")
_BOOK_LIST_START: Final = b"["

_DATES: Final = re.compile(r"\d|^(?:fl\.|active|approximately|ca\.)", re.IGNORECASE)


class GutenbergAdapter(AdapterDefaults):
    """The ``gutenberg`` family: books as chapters, covers leading to their books."""

    name = "gutenberg"
    version = 1
    main_page_is_navigation = True
    """``Home`` is the library's list of books, filled by a script."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """Books, cover pages and author pages (told apart only by their content);
        not ``Home``, the bookshelves, EPUBs, images or scripts."""
        if not mimetype.startswith("text/html"):
            return False
        return _PAGE_PATH.fullmatch(path) is not None and not _LISTING_PATHS.fullmatch(path)

    def serves(self, path: str) -> bool:
        return self.is_content(path, "text/html")

    def result_for(self, path: str) -> str:
        """A hit on a book's cover page offers the book (``Emma_cover.158`` ->
        ``Emma.158``); any other page offers itself."""
        return _book_path(path)

    page_list: str | None = "full_by_title.js"
    site_samples = False
    """A book's address is its number, which the page list maps to its title."""

    def parse_page_list(self, data: bytes) -> PageList:
        """``ebooks/<id>`` -> ``<Title>.<id>`` for every book of ``full_by_title.js``
        (``var json_data = [[title, author, downloads, id, shelf], ...];``); a list it
        cannot read lists nothing."""
        start, end = data.find(_BOOK_LIST_START), data.rfind(b"]")
        try:
            books = msgspec.json.decode(data[start : end + 1]) if 0 <= start < end else []
        except msgspec.DecodeError:
            return PageList()
        paths: dict[str, str] = {}
        for book in books if isinstance(books, list) else ():
            if isinstance(book, list) and len(book) > 3 and isinstance(book[0], str):
                paths.setdefault(f"ebooks/{book[3]}", f"{book[0]}.{book[3]}")
        return PageList(paths=paths, site=_SITE)

    def web_site(self, facts: SiteFacts) -> Site:
        return listed_site(facts)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """Any of a book's addresses is the book (its page list route)."""
        book = _WEB_BOOK.fullmatch(rest)
        return (f"ebooks/{book.group(1)}",) if book else ()

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """A book's chapters, a cover page's facts, or a listing's title (navigation)."""
        root = parse_html(html)
        rendering = Rendering(links=LinkResolver(library, path, serves=self.serves), view=view)
        body = _body(root)
        page_title = title.strip() or _html_title(root) or path
        if _is_catalog_page(body):
            if _first(body, f".//div[{xpath_has_class('bibrec')}]") is not None:
                return _cover(path, page_title, body, rendering)
            return _listing(path, page_title, rendering)
        return _book(path, page_title, root, html, rendering)


def _book_path(path: str) -> str:
    """The book a cover page ``<Title>_cover.<id>`` introduces (gutenberg2zim names
    both from the same title and number); any other path itself."""
    cover = _COVER_PATH.fullmatch(path)
    return f"{cover['title']}.{cover['id']}" if cover else path


def _body(root: HtmlElement) -> HtmlElement:
    body = _first(root, "//body")
    return root if body is None else body


def _first(node: HtmlElement, xpath: str) -> HtmlElement | None:
    found = [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]
    return found[0] if found else None


def _html_title(root: HtmlElement) -> str:
    found = _first(root, "//title")
    return " ".join(found.text_content().split()) if found is not None else ""


def _is_catalog_page(body: HtmlElement) -> bool:
    """gutenberg2zim's own pages (cover, author, shelf, home) share one skin; a book is
    PG's HTML and has none of it."""
    return (
        has_class(body, "pure-skin-gutenberg")
        or _first(body, ".//*[@id='books_table']") is not None
    )


def _ebook_id(path: str) -> str | None:
    """The book's Project Gutenberg number, as its path (and its cover page's) ends."""
    found = _PAGE_PATH.fullmatch(path)
    return found["id"] if found else None


def author_name(creator: str) -> str:
    """A catalogue's ``"Austen, Jane, 1775-1817"`` as people write it: ``"Jane Austen"``
    (life dates dropped, the surname last); a name without a comma stays as it is."""
    parts = [part.strip() for part in creator.split(",") if part.strip()]
    while len(parts) > 1 and _DATES.search(parts[-1]):
        parts.pop()
    if len(parts) >= 2:
        return " ".join([*parts[1:], parts[0]])
    return parts[0] if parts else ""


def _book_metadata(root: HtmlElement) -> tuple[list[str], str]:
    """The book's authors (``DC.Creator``, in order) and language (``DC.Language``, else
    the page's ``lang``)."""
    authors: list[str] = []
    language = ""
    for meta in root.iter("meta"):
        name = (meta.get("name") or "").strip().lower()
        content = " ".join((meta.get("content") or "").split())
        if name == "dc.creator" and content:
            written = author_name(content)
            if written and written not in authors:
                authors.append(written)
        elif name == "dc.language" and content and not language:
            language = content
    return authors, language or (root.get("lang") or "").strip()


def _titled(title: str, authors: list[str]) -> str:
    return f"{title} by {' and '.join(authors)}" if authors else title


def _book(path: str, title: str, root: HtmlElement, html: bytes, rendering: Rendering) -> Document:
    authors, language = _book_metadata(root)
    body = _body(root)
    infobox = " or ".join(xpath_has_class(name) for name in _INFOBOX_CLASSES)
    drop(body, f".//*[{infobox}]")
    for image in body.iter("img"):
        if _COVER_IMAGE.fullmatch((image.get("src") or "").strip()):
            image.drop_tree()
    rendering.prepare(body, html)
    document_title = _titled(title, authors)
    sections = book_sections(body, document_title, rendering)
    facts: dict[str, str | int | bool | list[str]] = {}
    if authors:
        facts["author"] = " and ".join(authors)
    if language:
        facts["language"] = language
    sections[0].metadata = facts or None
    metadata: dict[str, str] = {}
    ebook = _ebook_id(path)
    if ebook:
        metadata["source_url"] = _EBOOK_URL.format(ebook)
    return Document(
        path=path,
        title=document_title,
        kind="article",
        sections=sections,
        metadata=metadata,
        view=rendering.view,
    )


def _cover(path: str, title: str, body: HtmlElement, rendering: Rendering) -> Document:
    """The cover page's facts ("Author: Jane Austen", language, licence) and a link to the
    book; never a search result (a hit on it offers the book)."""
    author_link = _first(body, f".//a[{xpath_has_class('author-btn')}]")
    author = visible_text(author_link) if author_link is not None else ""
    document_title = _titled(title, [author] if author else [])
    holder = make_element("div")
    facts = make_element("ul")
    for detail in body.xpath(f".//div[{xpath_has_class('cover-detail')}]"):
        label = _first(detail, f".//*[{xpath_has_class('label')}]")
        value = _first(detail, f".//*[{xpath_has_class('label-value')}]")
        text = visible_text(value) if value is not None else ""
        if label is not None and text:
            item = make_element("li")
            item.text = f"{visible_text(label)}: {text}"
            facts.append(item)
    if len(facts):
        holder.append(facts)
    for link in body.xpath(f".//div[{xpath_has_class('icons-footer')}]//a[@href]"):
        if rendering.links is not None and rendering.links(link) is not None:
            paragraph = make_element("p")
            paragraph.text = "The book: "
            anchor = make_element("a")
            anchor.set("href", str(link.get("href")))
            anchor.text = title
            paragraph.append(anchor)
            holder.append(paragraph)
            break
    rendering.prepare(holder, b"")
    lead = Section(id="", title=document_title, level=1)
    lead.content, lead.passages = rendering(holder, 1) if len(holder) else rendering.nothing()
    metadata = {"navigation": "true"}
    ebook = _ebook_id(path)
    if ebook:
        metadata["source_url"] = _EBOOK_URL.format(ebook)
    return Document(
        path=path,
        title=document_title,
        kind="article",
        sections=[lead],
        metadata=metadata,
        view=rendering.view,
    )


def _listing(path: str, title: str, rendering: Rendering) -> Document:
    """An author page or bookshelf: its list is a script's, so nothing but its title."""
    lead = Section(id="", title=title, level=1)
    lead.content, lead.passages = rendering.nothing()
    return Document(
        path=path,
        title=title,
        kind="article",
        sections=[lead],
        metadata={"navigation": "true"},
        view=rendering.view,
    )
