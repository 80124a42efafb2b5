"""The freecodecamp and libretexts adapters on their own (pure): which paths are
documents, what a stub stands for and where it lands, the challenge Markdown's parts, a
LibreTexts page's HTML out of its JSON, and bad inputs read without a crash. The pages
through the corpus, demo and real, are in test_fronted_corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.adapters.base import Landing
from corpus_mcp.adapters.challenge import read_challenge
from corpus_mcp.adapters.freecodecamp import FreeCodeCampAdapter
from corpus_mcp.adapters.libretexts import LibreTextsAdapter, page_html, route_link
from corpus_mcp.demo import freecodecamp as fcc_demo
from corpus_mcp.demo import libretexts as libretexts_demo
from corpus_mcp.document import Document, walk
from corpus_mcp.gather import entry_title, land
from corpus_mcp.zim.reader import ZimReader
from corpus_mcp.zim.writer import Page, write_zim

FCC = FreeCodeCampAdapter()
LT = LibreTextsAdapter()
CHALLENGE = "content/curriculum/js/basics/abc123.md"
CHALLENGE_STUB = "index/js/basics/abc123.html"


def _text(document: Document) -> str:
    return "\n".join(section.content for section in walk(document.sections))


def test_both_adapters_are_registered_by_name() -> None:
    assert isinstance(get_adapter("freecodecamp"), FreeCodeCampAdapter)
    assert isinstance(get_adapter("libretexts"), LibreTextsAdapter)


@pytest.mark.parametrize(
    ("path", "mimetype", "content"),
    [
        (CHALLENGE, "text/markdown", True),
        (CHALLENGE, "", True),  # a caller that does not know the mimetype
        (CHALLENGE_STUB, "text/html", False),
        ("index.html", "text/html", False),
        ("content/curriculum/index.json", "application/json", False),
        ("content/locales/intro.json", "application/json", False),
        ("mathjax/README.md", "text/markdown", False),
        ("content/curriculum/js/abc.md", "text/markdown", False),  # no block folder
    ],
)
def test_fcc_documents_are_the_challenge_files(path: str, mimetype: str, content: bool) -> None:
    assert FCC.is_content(path, mimetype) is content


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("content/page_content_402111.json", True),
        ("index/page_402111", False),
        ("content/shared.json", False),
        ("content/config.json", False),
        ("content/page_content_x.json", False),
        ("index.html", False),
    ],
)
def test_libretexts_documents_are_the_page_json(path: str, content: bool) -> None:
    assert LT.is_content(path, "application/json") is content


def test_a_stub_stands_for_its_data_file_and_lands_on_it() -> None:
    assert FCC.result_for(CHALLENGE_STUB) == CHALLENGE
    assert FCC.stub_landing(CHALLENGE_STUB, b"<html></html>") == Landing(path=CHALLENGE)
    assert FCC.title_entry(CHALLENGE) == CHALLENGE_STUB
    assert LT.result_for("index/page_7") == "content/page_content_7.json"
    assert LT.title_entry("content/page_content_7.json") == "index/page_7"
    assert LT.stub_landing("index/page_7", b"") == Landing(path="content/page_content_7.json")


def test_other_paths_stand_for_themselves_and_land_nowhere() -> None:
    for adapter in (FCC, LT):
        assert adapter.result_for("index.html") == "index.html"
        assert adapter.stub_landing("index.html", b"<html></html>") is None
        assert adapter.title_entry("index.html") is None
        assert adapter.title_entry("content/shared.json") is None


def test_links_lead_to_data_files_and_stubs_only() -> None:
    assert FCC.serves(CHALLENGE) and FCC.serves(CHALLENGE_STUB)
    assert not FCC.serves("index.html") and not FCC.serves("assets/index.js")
    assert LT.serves("index/page_3") and not LT.serves("content/shared.json")


def test_a_challenge_reads_its_front_matter_and_parts() -> None:
    challenge = read_challenge(fcc_demo.CHALLENGES[1].markdown)
    assert challenge.title == "Sum a Range"
    assert challenge.front["dashedName"] == "sum-a-range"
    ids = [part.id for part in challenge.parts]
    assert ids == ["description", "hints", "seed", "solutions"]
    seed = challenge.parts[2]
    assert seed.markdown == "" and [c.id for c in seed.children] == [
        "before-user-code",
        "seed-contents",
    ]
    assert [c.title for c in seed.children] == ["Code run before yours", "Starting code"]


def test_a_seed_holding_only_its_contents_is_one_part() -> None:
    challenge = read_challenge(fcc_demo.CHALLENGES[0].markdown)
    seed = next(part for part in challenge.parts if part.id == "seed")
    assert not seed.children and seed.markdown.startswith("```js\nfunction countVowels")


def test_solutions_lose_their_separators_and_markers_stay_inside_code() -> None:
    text = "# --solutions--\n\n```js\nconst a = 1;\n```\n\n---\n\n```md\n# --not-a-marker--\n```\n"
    (solutions,) = read_challenge(text).parts
    assert "---" not in solutions.markdown.replace("```", "")
    assert "# --not-a-marker--" in solutions.markdown
    assert not solutions.children


def test_hints_become_items_with_their_code_under_them() -> None:
    text = (
        "# --hints--\n\n```js\nsetup();\n```\n\nFirst test\nwraps here.\n\n```js\nassert(1);\n```\n"
        "\nA test without code.\n\nAnother one.\n\n```js\n\nassert(2);\n\n```\n"
    )
    (hints,) = read_challenge(text).parts
    assert hints.markdown == "\n\n".join(
        [
            "-",
            "  ```js\n  setup();\n  ```",
            "- First test wraps here.",
            "  ```js\n  assert(1);\n  ```",
            "- A test without code.",
            "- Another one.",
            "  ```js\n\n  assert(2);\n\n  ```",
        ]
    )


def test_text_before_any_marker_and_odd_markers_are_kept() -> None:
    text = "Intro line.\n\n# --notes--\n\nA note.\n\n# --fill-in-the-blank--\n\nBlank.\n"
    parts = read_challenge(text).parts
    assert [(p.id, p.title) for p in parts] == [
        ("", ""),
        ("notes", "Notes"),
        ("fill-in-the-blank", "Fill in the blank"),
    ]
    assert parts[0].markdown == "Intro line."


def test_repeated_markers_get_distinct_ids() -> None:
    text = "# --description--\n\nOne.\n\n# --description--\n\nTwo.\n"
    assert [p.id for p in read_challenge(text).parts] == ["description", "description-2"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no front matter at all",
        "---\ntitle: Unclosed\n\n# --description--\n\nText.",
        "\ufeff---\ntitle: 'Quoted: yes'\n---\n",
    ],
)
def test_odd_challenge_files_read_without_a_crash(text: str) -> None:
    challenge = read_challenge(text)
    assert challenge.title in ("", "Quoted: yes")
    document = FCC.parse(CHALLENGE, CHALLENGE, text.encode(), "Lib")
    assert document.sections[0].id == "" and document.title


def test_an_untitled_challenge_takes_the_entry_title_then_the_path() -> None:
    body = b"# --description--\n\nText.\n"
    assert FCC.parse(CHALLENGE, "From the stub", body, "Lib").title == "From the stub"
    assert FCC.parse(CHALLENGE, CHALLENGE, body, "Lib").title == CHALLENGE
    document = FCC.parse(CHALLENGE, CHALLENGE, body, "Lib")
    assert "source_url" not in document.metadata  # no dashedName


def test_a_challenge_read_for_search_has_passages_and_no_markdown() -> None:
    data = fcc_demo.CHALLENGES[0].markdown.encode()
    view = FCC.parse(fcc_demo.CHALLENGES[0].path, "", data, "Lib", view=True)
    assert view.view and all(s.content == "" for s in walk(view.sections))
    hints = next(s for s in view.sections if s.id == "hints")
    assert hints.passages and all(p.kind == "list" for p in hints.passages)
    assert view.sections[0].passages == ()


def test_a_libretexts_page_keeps_tex_boxes_and_tables() -> None:
    page = libretexts_demo.PAGES[2]
    data = json.dumps({"htmlBody": page.html}).encode()
    document = LT.parse(page.path, page.title, data, "Lib")
    assert document.title == page.title
    assert [s.id for s in document.sections] == ["", "section_1", "section_2"]
    text = _text(document)
    assert "**Learning Objectives**" in text and "**Example 1: Melting ice**" in text
    assert "\\(\\ce{H2O}\\)" in text and "| Solid | fixed | fixed |" in text
    assert "template(" not in text and "PageIndex" not in text and "youtube" not in text
    # The reader's routes name pages by their site path: a ref to that path, which the
    # archive's page list leads to the page (the corpus does, at fetch).
    route = "Bookshelves/Demo/Offline_Chemistry_(Demo)/01:_Matter/1.02:_Density"
    assert f"in [1.2: Density](corpus://Lib/{route})." in text and "#/" not in text


@pytest.mark.parametrize(
    ("href", "link"),
    [
        ("#/Books/A_%28B%29/01%3A_One", "/Books/A_%28B%29/01%3A_One"),
        ("#/Books/One?anchor=Rules_for_Counting", "/Books/One#Rules_for_Counting"),
        ("#/Books/One/?anchor=A%20b&x=1", "/Books/One#A%20b"),
        ("#/Books/One?other=1", "/Books/One"),
    ],
)
def test_a_route_becomes_a_link_to_its_site_path_with_its_anchor(href: str, link: str) -> None:
    assert route_link(href) == link


def test_the_page_list_leads_site_paths_to_data_files_and_gives_their_addresses() -> None:
    shared = {
        "libraryOnlineUrl": "https://chem.libretexts.org/",
        "pages": [
            {"id": "7", "title": "Book", "path": "Bookshelves/Book_(X)"},
            {"id": 8, "title": "1.1: One", "path": "/Bookshelves/Book_(X)/1.01:_One/"},
            {"id": "9", "title": "Root", "path": ""},
        ],
    }
    pages = LT.parse_page_list(json.dumps(shared).encode())
    assert pages.paths == {
        "Bookshelves/Book_(X)": "content/page_content_7.json",
        "Bookshelves/Book_(X)/1.01:_One": "content/page_content_8.json",
    }
    assert pages.urls == {
        "content/page_content_7.json": "https://chem.libretexts.org/Bookshelves/Book_(X)",
        "content/page_content_8.json": "https://chem.libretexts.org/Bookshelves/Book_(X)/"
        "1.01%3A_One",
    }


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"[]", b'{"pages": 3}', b'{"pages": [{"id": "1"}]}'],
)
def test_a_page_list_it_cannot_read_is_empty(data: bytes) -> None:
    pages = LT.parse_page_list(data)
    assert (pages.paths, pages.urls) == ({}, {})


def test_a_page_list_without_a_web_address_gives_no_addresses() -> None:
    shared = {"libraryOnlineUrl": "file:///x", "pages": [{"id": "7", "path": "B/One"}]}
    pages = LT.parse_page_list(json.dumps(shared).encode())
    assert pages.paths == {"B/One": "content/page_content_7.json"} and pages.urls == {}


def test_a_contents_page_keeps_its_list_as_links() -> None:
    body = (
        '<div id="dynamicTOC"><ul class="toc chapter_level"><li><h2 class="chapter_entry">'
        '<a href="#/B/One">1: One</a></h2><ul class="section_level"><li>'
        '<span class="content_entry"><a href="#/B/One/1.1">1.1: First</a></span></li></ul>'
        "</li></ul></div>"
    )
    data = json.dumps({"htmlBody": body}).encode()
    (lead,) = LT.parse("content/page_content_5.json", "Contents", data, "Lib").sections
    assert lead.content == (
        "- [1: One](corpus://Lib/B/One)\n  - [1.1: First](corpus://Lib/B/One/1.1)"
    )


def test_a_page_of_script_templates_only_is_navigation() -> None:
    page = libretexts_demo.PAGES[1]
    data = json.dumps({"htmlBody": page.html}).encode()
    for view in (False, True):
        document = LT.parse(page.path, page.title, data, "Lib", view=view)
        assert document.metadata == {"navigation": "true"}
        assert document.title == page.title and document.sections[0].content == ""


@pytest.mark.parametrize(
    "data", [b"", b"not json", b"[1, 2]", b'{"htmlBody": 3}', b'{"other": "x"}']
)
def test_data_that_is_no_page_json_is_navigation_titled_by_the_path(data: bytes) -> None:
    path = "content/page_content_9.json"
    document = LT.parse(path, path, data, "Lib")
    assert document.title == path and document.metadata == {"navigation": "true"}


def test_a_libretexts_link_to_a_file_is_its_text() -> None:
    body = '<p>See <a href="content/files/table.pdf">the table</a> and <a href="https://x.org/">x</a>.</p>'
    data = json.dumps({"htmlBody": body}).encode()
    (lead,) = LT.parse("content/page_content_4.json", "Links", data, "Lib").sections
    assert lead.content == "See the table and [x](https://x.org/)."


def test_an_unclosed_hint_code_block_keeps_no_trailing_blank_lines() -> None:
    (hints,) = read_challenge("# --hints--\n\nA test.\n\n```js\nassert(3);\n\n\n").parts
    assert hints.markdown == "- A test.\n\n  ```js\n  assert(3);"


def test_page_html_is_none_for_bad_json_and_a_page_otherwise() -> None:
    assert page_html(b"{") is None
    html = page_html(b'{"htmlBody": "<p class=\\"boxtitle\\">Box <em>one</em></p>"}')
    assert html is not None
    assert b"<strong>Box <em>one</em></strong>" in html


def test_an_untitled_data_file_takes_its_stub_title_where_the_archive_has_one(
    tmp_path: Path,
) -> None:
    """gather.entry_title: the stub's title; without a stub, or with one that is itself
    untitled, the entry's own; a titled entry keeps its title."""
    stub = (
        '<html><head><meta http-equiv="refresh" content="0;URL=\'../index.html\'"/></head></html>'
    )
    file = write_zim(
        tmp_path / "lt.zim",
        pages=[
            Page(path="content/page_content_1.json", content="{}", mimetype="application/json"),
            Page(path="content/page_content_2.json", content="{}", mimetype="application/json"),
            Page(path="content/page_content_3.json", content="{}", mimetype="application/json"),
            Page(path="index/page_1", title="1.1: Titled", content=stub),
            Page(path="index/page_3", content=stub),
        ],
        metadata={"Title": "t", "Language": "eng"},
    )
    reader = ZimReader(file)
    named = {
        path: entry_title(reader, LT, path, reader.resolve(path).title)
        for path in ("content/page_content_1.json", "content/page_content_2.json")
    }
    assert named == {
        "content/page_content_1.json": "1.1: Titled",
        "content/page_content_2.json": "content/page_content_2.json",  # no stub
    }
    assert entry_title(reader, LT, "content/page_content_3.json", "") == ""
    assert entry_title(reader, LT, "index/page_1", "1.1: Titled") == "1.1: Titled"
    assert land(reader, LT, "index/page_1").title == "1.1: Titled"
    assert land(reader, LT, "index/page_1").path == "content/page_content_1.json"
