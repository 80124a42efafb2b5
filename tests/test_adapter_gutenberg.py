"""The ``gutenberg`` adapter on its own: books cut into chapters, cover pages, listings.

The pages come from the demo archive (gutenberg2zim's layout, ``corpus_mcp.demo.gutenberg``)
and, for what that archive does not show, from PG HTML written here in the shapes other
books use (``<a name>`` before a heading, page-number spans, tables of contents without
a heading of their own).
"""

from __future__ import annotations

import lxml.html
import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.adapters.book import book_sections
from corpus_mcp.adapters.gutenberg import GutenbergAdapter, author_name
from corpus_mcp.cleaning import Rendering, parse_html
from corpus_mcp.demo import gutenberg as demo
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.zim.reader import ZimReader

ADAPTER = GutenbergAdapter()
PRIDE = next(book for book in demo.BOOKS if book.id == 1342)
EMMA = next(book for book in demo.BOOKS if book.id == 158)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> ZimReader:
    return ZimReader(demo.build(tmp_path_factory.mktemp("gutenberg") / demo.FILE))


def _parse(reader: ZimReader, path: str, *, view: bool = False) -> Document:
    return ADAPTER.parse(path, reader.resolve(path).title, reader.content(path), "G", view=view)


def _by_id(document: Document) -> dict[str, Section]:
    return {section.id: section for section in walk(document.sections)}


def _book(body: str, head: str = "", title: str = "A Book") -> Document:
    html = f"<html><head>{head}</head><body>{body}</body></html>".encode()
    return ADAPTER.parse("A Book.7", title, html, "G")


def test_registered_and_versioned() -> None:
    adapter = get_adapter("gutenberg")
    assert isinstance(adapter, GutenbergAdapter)
    assert adapter.name == "gutenberg" and adapter.version >= 1
    assert adapter.main_page_is_navigation


@pytest.mark.parametrize(
    ("path", "mimetype", "content"),
    [
        ("Pride and Prejudice.1342", "text/html", True),
        ("Pride and Prejudice_cover.1342", "text/html", True),
        ("Jane Austen.68", "text/html", True),
        ("Home", "text/html", False),
        ("lcc_shelf_PR", "text/html", False),
        ("lcc_shelf_home", "text/html", False),
        ("Pride and Prejudice.1342.epub", "application/epub+zip", False),
        ("Pride and Prejudice.1342.epub", "text/html", False),
        ("covers/1342_cover_image.jpg", "image/jpeg", False),
        ("auth_68_by_title.js", "text/javascript", False),
        ("css/style.css", "text/css", False),
    ],
)
def test_what_is_a_document(path: str, mimetype: str, content: bool) -> None:
    assert ADAPTER.is_content(path, mimetype) is content
    assert ADAPTER.serves(path) is content  # a link to it becomes a ref


def test_a_cover_hit_offers_its_book_and_nothing_else_moves() -> None:
    assert ADAPTER.result_for("Emma_cover.158") == "Emma.158"
    assert ADAPTER.result_for("A_cover_story_cover.12") == "A_cover_story.12"
    for path in ("Emma.158", "Jane Austen.68", "Home", "Emma_cover", "Emma_cover.x"):
        assert ADAPTER.result_for(path) == path
    assert get_adapter("mediawiki").result_for("Emma_cover.158") == "Emma_cover.158"


@pytest.mark.parametrize(
    ("creator", "written"),
    [
        ("Austen, Jane, 1775-1817", "Jane Austen"),
        ("Doyle, Arthur Conan, 1859-1930", "Arthur Conan Doyle"),
        ("Plato, 427? BCE-347? BCE", "Plato"),
        ("Chaucer, Geoffrey, active 1372", "Geoffrey Chaucer"),
        ("Homer", "Homer"),
        ("Various", "Various"),
        (" , ", ""),
    ],
)
def test_author_names_as_people_write_them(creator: str, written: str) -> None:
    assert author_name(creator) == written


def test_a_book_is_its_chapters_with_the_ids_its_contents_link_to(reader: ZimReader) -> None:
    document = _parse(reader, PRIDE.path)
    assert document.title == "Pride and Prejudice by Jane Austen"
    assert document.metadata["source_url"] == "https://www.gutenberg.org/ebooks/1342"
    lead, contents, *chapters = document.sections
    assert (lead.id, lead.title) == ("", document.title)
    assert lead.metadata == {"author": "Jane Austen", "language": "en"}
    # The icon-only infobox and the cover picture are gone; the byline stays.
    assert lead.content == "By Jane Austen"
    assert [c.id for c in chapters] == [demo.chapter_id(n) for n in range(1, 62)]
    assert all(c.level == 2 and c.role == "text" and c.content for c in chapters)
    fifty = chapters[49]
    assert fifty.title == "Chapter 50"
    assert fifty.content.startswith(PRIDE.chapters[49].paragraphs[0])
    assert chapters[-1].content.endswith(PRIDE.chapters[-1].paragraphs[-1])
    # The table of contents: links to those sections, fetched but never searched.
    assert (contents.id, contents.title, contents.role) == ("contents", "CONTENTS", "reference")
    assert "[Chapter 50](#chap50)" in contents.content
    assert contents.content.count("](#chap") == 61
    text = "\n".join(s.content for s in walk(document.sections))
    assert "EPUB" not in text and "Cover:" not in text and "_cover" not in text


def test_volumes_hold_their_chapters(reader: ZimReader) -> None:
    document = _parse(reader, EMMA.path)
    volumes = [s for s in document.sections if s.id.startswith("vol")]
    assert [(v.id, v.title, v.level) for v in volumes] == [
        ("vol1", "VOLUME I", 2),
        ("vol2", "VOLUME II", 2),
        ("vol3", "VOLUME III", 2),
    ]
    assert [c.id for c in volumes[1].children] == ["chap04", "chap05", "chap06"]
    assert all(c.level == 3 for v in volumes for c in v.children)
    last = volumes[-1].children[-1]
    assert last.content.endswith(EMMA.volumes[-1].chapters[-1].paragraphs[-1])


def test_a_book_read_for_search_has_passages_and_no_markdown(reader: ZimReader) -> None:
    document = _parse(reader, PRIDE.path, view=True)
    assert document.view
    chapters = _by_id(document)
    fifty = chapters["chap50"]
    assert fifty.content == "" and fifty.passages
    assert PRIDE.chapters[49].paragraphs[0] in " ".join(p.text for p in fifty.passages)


def test_the_cover_page_names_the_book_and_links_it(reader: ZimReader) -> None:
    document = _parse(reader, PRIDE.cover_path)
    assert document.metadata == {
        "navigation": "true",
        "source_url": "https://www.gutenberg.org/ebooks/1342",
    }
    assert document.title == "Pride and Prejudice by Jane Austen"
    (lead,) = document.sections
    assert lead.content.splitlines() == [
        "- Author: Jane Austen",
        "- Language: English",
        "- License: Public domain in the USA.",
        "",
        "The book: [Pride and Prejudice](corpus://G/Pride%20and%20Prejudice.1342)",
    ]


@pytest.mark.parametrize("path", ["Jane Austen.68", "Home", "lcc_shelf_PR"])
def test_script_filled_pages_are_navigation(reader: ZimReader, path: str) -> None:
    for view in (False, True):
        document = _parse(reader, path, view=view)
        assert document.metadata == {"navigation": "true"}
        (lead,) = document.sections
        assert lead.content == "" and lead.title == reader.resolve(path).title
        assert lead.passages == (() if view else None)


def test_a_cover_page_without_facts_or_book_link() -> None:
    skin = '<body class="pure-skin-gutenberg cover"><div class="bibrec">'
    html = f'<html>{skin}<div class="cover-detail"><p class="label">Author</p></div></div></body>'
    document = ADAPTER.parse("Lost_cover.5", "", html.encode(), "G")
    assert document.title == "Lost_cover.5"
    assert document.sections[0].content == ""
    assert document.metadata["navigation"] == "true"


def test_anchors_before_headings_wrapper_ids_and_page_numbers() -> None:
    """Older PG books: ``<a name>`` before each heading, ``div[id]`` wrappers, page-number
    spans in the margin, and headings with no id at all."""
    document = _book(
        '<a name="CHAPTER_I"></a><h2>CHAPTER I.</h2>'
        '<p>First <span class="pagenum"><a id="Page_3">[3]</a></span>words.</p>'
        '<div class="chapter" id="ch2"><h2>CHAPTER II.</h2><p>Second.</p></div>'
        "<h2>Notes</h2><p>One.</p><h2>Notes</h2><p>Two.</p>",
        head='<meta name="dc.creator" content="Doe, Jane, 1800-1880">'
        '<meta name="DC.Creator" content="Doe, John">',
    )
    sections = _by_id(document)
    assert list(sections) == ["", "CHAPTER_I", "ch2", "notes", "notes-2"]
    first = sections["CHAPTER_I"]
    assert first.content == "First words." and first.anchors == ["Page_3"]
    assert sections["notes-2"].content == "Two."
    assert document.title == "A Book by Jane Doe and John Doe"
    assert document.sections[0].metadata == {"author": "Jane Doe and John Doe"}


def test_ids_inside_a_heading_and_around_it_all_land_on_it() -> None:
    document = _book(
        '<div id="part1"><a id="p1"></a><h2 id="own"><a id="inner"></a>Part One</h2>'
        "<p>Text.</p></div>"
        '<p>Tail.</p><a id="loose"></a>'
    )
    part = _by_id(document)["own"]
    assert part.anchors == ["inner", "part1", "p1", "loose"]
    assert part.content == "Text.\n\nTail."


def test_a_title_heading_loose_text_and_a_later_h1() -> None:
    document = _book(
        '<h1 id="top">A BOOK</h1>Loose text<div><h2>Preface</h2>after</div> more'
        "<h1>PART TWO</h1><h3>Deep</h3><p>x</p>",
        head='<meta name="DC.Language" content="fr">',
    )
    lead, preface, part = document.sections
    assert lead.content == "Loose text" and lead.anchors == ["top"]
    assert lead.metadata == {"language": "fr"}
    assert (preface.id, preface.content) == ("preface", "after more")
    assert (part.id, part.level, [c.id for c in part.children]) == ("part-two", 1, ["deep"])


def test_contents_found_by_their_title_and_a_heading_without_words() -> None:
    document = _book("<h2>Table of Contents</h2><p><a href='#x'>X</a></p><h2>¶</h2><p>y</p>")
    contents, untitled = document.sections[1:]
    assert contents.role == "reference" and contents.content == "[X](#x)"
    assert (untitled.id, untitled.role) == ("section", "text")


def test_a_page_of_nothing_and_a_book_without_metadata() -> None:
    document = ADAPTER.parse("Empty.9", "", b"", "G")
    assert document.title == "Empty.9"
    assert [s.id for s in document.sections] == [""]
    assert document.sections[0].metadata is None
    bare = ADAPTER.parse("Plain", "Plain", b"<html><body><p>Hi.</p></body></html>", "G")
    assert "source_url" not in bare.metadata
    assert bare.sections[0].content == "Hi."
    assert ADAPTER.source_url(document, "gutenberg_en_all") == (
        "https://www.gutenberg.org/ebooks/9"
    )


def test_html_lang_when_the_book_names_no_language() -> None:
    html = b'<html lang="de"><body><h2>Kapitel 1</h2><p>Text.</p></body></html>'
    document = ADAPTER.parse("Buch.3", "Buch", html, "G")
    assert document.sections[0].metadata == {"language": "de"}


def test_loose_text_after_a_target_links_and_pictures_stay_text() -> None:
    document = _book(
        '<h2>X</h2><p>a</p><a id="t"></a>tail text <a href="#x">see</a><a href="#" id="w"></a>'
        "<h2>Y</h2>"
        '<p><img src="images/plate.jpg" alt="A plate"/></p>'
        '<p><a id="t"></a>again</p>',
        head='<meta name="DC.Creator" content="Doe, Jane">' * 2,
    )
    first, second = _by_id(document)["x"], _by_id(document)["y"]
    assert first.anchors == ["t", "w"]  # an empty link is no target, but its id lands
    assert first.content == "a\n\ntail text [see](#x)"
    assert "A plate" in second.content and second.anchors == []  # "t" landed before
    assert document.title == "A Book by Jane Doe"


def test_nodes_that_are_not_elements_are_skipped() -> None:
    root = parse_html(b"<html><body><h2>X</h2><p>a</p></body></html>")
    body = root.find("body")
    assert body is not None
    body.insert(1, lxml.html.HtmlComment("a note"))
    (_, section) = book_sections(body, "T", Rendering())
    assert (section.id, section.content) == ("x", "a")


def test_a_cover_page_whose_path_names_no_book() -> None:
    html = b'<html><body class="pure-skin-gutenberg cover"><div class="bibrec"></div></body></html>'
    document = ADAPTER.parse("Lost", "Lost", html, "G")
    assert document.metadata == {"navigation": "true"}
