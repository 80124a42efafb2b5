"""The generic HTML adapter (``html``): main-content detection and chrome on pages of each
generator, and a zimit crawl served through the corpus: the demo archive
(``corpus_mcp.demo.zimit``) always, the real warc2zim archive of ../shared/zims/families
where it is present."""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lxml.html import HtmlElement

from corpus_mcp import refs
from corpus_mcp.adapters import Landing, get_adapter
from corpus_mcp.adapters.html import HtmlAdapter
from corpus_mcp.adapters.html.adapter import page_title, source_url, without_site_suffix
from corpus_mcp.adapters.html.content import drop_chrome, main_content
from corpus_mcp.cleaning import parse_html, visible_text
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import _data, zimit
from corpus_mcp.document import Document, walk
from corpus_mcp.wire import FetchOutput
from tests.conftest import SHARED_ZIMS, settings_for

ADAPTER = HtmlAdapter()
LINK = re.compile(r"\]\((corpus://[^)\s]+|#[^)\s]+)\)")
# What the pages' chrome says: none of it is content.
CHROME = (
    "Previous topic", "This Page", "Report a Bug", "Created using", "Navigation",
    "Table of Contents", "Quick search", "¶", "wbinfo", "wombat", "Jump to navigation",
    "Navigation menu", "Log in", "Random page", "Retrieved from", "Category", "Contents",
    "last edited", "cookies", "Most read", "Share", "Privacy", "tracking", "Harbour Gazette",
    "Copyright",
)  # fmt: skip


def _parse(name: str, path: str, title: str = "") -> Document:
    html = zimit._wrapped(path, _data.text(f"zimit/{name}")).encode()
    return ADAPTER.parse(path, title, html, "Demo")


def _text(document: Document) -> str:
    return "\n".join(f"{s.title}\n{s.content}" for s in walk(document.sections))


def _ids(document: Document) -> list[str]:
    return [s.id for s in walk(document.sections)]


# -- pages of each generator ------------------------------------------------------------------


def test_sphinx_page_is_its_body_with_sections_and_no_chrome() -> None:
    doc = _parse("sphinx_venv.html", "docs.example.org/3.11/tutorial/venv.html")
    assert doc.title == "12. Virtual Environments and Packages"
    assert doc.kind == "documentation"
    assert _ids(doc) == ["", "introduction", "creating-virtual-environments"]
    lead = doc.sections[0]
    assert {"virtual-environments-and-packages", "tut-venv"} <= set(lead.anchors)
    text = _text(doc)
    assert "self-contained directory tree" in text
    assert "python3 -m venv tutorial-env" in text
    assert "the footnote says" in text  # docutils' aside.footnote is content
    for chrome in CHROME:
        assert chrome not in text, chrome
    assert doc.metadata["source_url"] == "https://docs.example.org/3.11/tutorial/venv.html"


def test_sphinx_links_keep_the_stored_paths() -> None:
    doc = _parse("sphinx_venv.html", "docs.example.org/3.11/tutorial/venv.html")
    links = LINK.findall(_text(doc))
    glossary = refs.encode(
        "Demo", "docs.example.org/3.11/glossary.html", "term-virtual-environment"
    )
    assert glossary in links
    # A query is part of a warc2zim path (referenced as %3F); fetch drops it if absent.
    history = refs.encode("Demo", "docs.example.org/3.11/history.html?version=3", "history")
    assert history in links
    assert "#f1" in links  # a footnote reference lands in the page
    assert "https://docs.example.org/3.11/library/venv.html#module-venv" in _text(doc)
    assert "venv-diagram.png" not in _text(doc)  # an image is no document


def test_glossary_terms_are_sections_of_their_own() -> None:
    doc = _parse("sphinx_glossary.html", "docs.example.org/3.11/glossary.html")
    entries = {s.id: s for s in walk(doc.sections) if s.role == "entry"}
    assert list(entries) == ["term-interpreter", "term-package", "term-virtual-environment"]
    term = entries["term-virtual-environment"]
    assert term.title == "virtual environment"
    assert "cooperatively isolated" in term.content
    assert "interpreter" not in term.content.split("See also")[0]
    assert refs.encode(
        "Demo", "docs.example.org/3.11/tutorial/venv.html", "creating-virtual-environments"
    ) in LINK.findall(term.content)
    # The canonical link warc2zim rewrote is relative and leads nowhere: no source URL
    # from it, but the replay wrapper's URL.
    assert doc.metadata["source_url"] == "https://docs.example.org/3.11/glossary.html"


def test_mediawiki_crawled_by_zimit() -> None:
    doc = _parse("mediawiki_pacman.html", "wiki.example.org/title/Pacman", "Pacman - DemoWiki")
    assert doc.title == "Pacman"  # h1#firstHeading, above the content
    assert doc.kind == "article"
    assert _ids(doc) == ["", "Usage", "Installing_packages", "Removing_packages"]
    usage = doc.sections[1]
    assert usage.title == "Usage" and usage.level == 2
    assert [c.id for c in usage.children] == ["Installing_packages", "Removing_packages"]
    text = _text(doc)
    assert "binary package format" in text and "pacman -S package_name1" in text
    for chrome in ("edit", "Contents", "Navigation menu", "Retrieved from", "Category", "Log in"):
        assert chrome not in text, chrome
    links = LINK.findall(text)
    assert refs.encode("Demo", "wiki.example.org/title/Mirrors") in links


def test_plain_page_read_by_its_text() -> None:
    doc = _parse("plain_news.html", "news.example.com/lighthouse.html", "")
    # The logo's h1 is in the site header: the title is the <title> less its site.
    assert doc.title == "Lighthouse keepers return"
    assert _ids(doc)[1:] == [
        "lighthouse-keepers-return-to-the-north-pier",
        "a-history-of-the-light",
    ]
    text = _text(doc)
    assert "resident keepers" in text and "local granite" in text
    for chrome in CHROME:
        assert chrome not in text, chrome
    assert "source_url" not in doc.metadata or doc.metadata["source_url"].startswith("https://")


def test_view_reads_passages_without_markdown() -> None:
    html = _data.text("zimit/sphinx_venv.html").encode()
    doc = ADAPTER.parse("docs.example.org/3.11/tutorial/venv.html", "", html, "Demo", view=True)
    assert doc.view
    passages = [p.text for s in walk(doc.sections) for p in s.passages or ()]
    assert any("self-contained directory tree" in p for p in passages)
    assert all(s.content == "" for s in walk(doc.sections))


# -- main content ------------------------------------------------------------------------------


def _body(html: str) -> tuple[HtmlElement, HtmlElement]:
    root = parse_html(html.encode())
    body = root.find("body")
    assert body is not None
    drop_chrome(body)
    return body, main_content(body)


def test_markers_win_when_they_hold_the_text() -> None:
    _, found = _body(
        "<body><div><p>short teaser</p></div><main><p>" + "word " * 80 + "</p></main></body>"
    )
    assert found.tag == "main"


def test_a_marker_without_the_text_is_passed_over() -> None:
    _, found = _body(
        "<body><main><div>search box</div></main><div id='story'><p>"
        + "word " * 80
        + "</p><p>"
        + "more " * 80
        + "</p></div></body>"
    )
    assert found.get("id") == "story"


def test_a_lone_article_is_the_content() -> None:
    _, found = _body(
        "<body><div>x</div><article><h2>A</h2><p>" + "text " * 50 + "</p></article></body>"
    )
    assert found.tag == "article"


def test_descent_stops_where_siblings_hold_headings() -> None:
    _, found = _body(
        "<body><div id='page'><h2>Intro</h2><p>lead</p><div id='big'><p>"
        + "word " * 200
        + "</p></div></div></body>"
    )
    assert found.get("id") == "page"


def test_an_empty_body_is_its_own_content() -> None:
    body, found = _body("<body></body>")
    assert found is body
    _, leaf = _body("<body><div id='only'></div>" + "<p>text</p>" + "</body>")
    assert leaf.tag == "body"


def test_chrome_kept_inside_the_article() -> None:
    root = parse_html(
        b"<body><header><h1>Site</h1></header><article><header role='banner'><h1>Post</h1>"
        b"</header><p>body</p><aside class='note'>a note</aside><aside>ads</aside></article>"
        b"<div role='contentinfo'>foot</div></body>"
    )
    body = root.find("body")
    assert body is not None
    assert drop_chrome(body) == 3  # the site header, the ad aside, the contentinfo
    assert visible_text(body) == "Post body a note"


# -- titles, URLs, entries -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("12. Packages — Python 3.11 documentation", "12. Packages"),
        ("A - B | Site", "A - B"),
        ("Lighthouse – Gazette", "Lighthouse"),
        ("Plain", "Plain"),
        (" — Site", " — Site"),
    ],
)
def test_site_suffix(title: str, expected: str) -> None:
    assert without_site_suffix(title) == expected


def test_page_title_falls_back_to_title_then_path() -> None:
    root = parse_html(b"<html><head><title>Page | Site</title></head><body></body></html>")
    assert page_title(root, "Entry", "p.html") == "Entry"
    assert page_title(root, "p.html", "p.html") == "Page"
    assert page_title(parse_html(b"<body></body>"), "", "p.html") == "p.html"


def test_source_url_only_from_real_urls() -> None:
    canonical = b'<html><head><link rel="canonical" href="//example.org/a b"></head></html>'
    assert source_url(parse_html(canonical), canonical) == "https://example.org/a%20b"
    relative = b'<html><head><link rel="canonical" href="../../3/a.html"></head></html>'
    assert source_url(parse_html(relative), relative) == ""
    other = b'<html><head><link rel="stylesheet" href="https://x.org/s.css"></head></html>'
    assert source_url(parse_html(other), other) == ""
    # A replay wrapper without the URL falls back to the canonical link.
    broken = b"<!-- WB Insert -->" + canonical
    assert source_url(parse_html(broken), broken) == "https://example.org/a%20b"


def test_what_is_content_and_what_links_serve() -> None:
    assert ADAPTER.is_content("docs.example.org/a.html", "text/html; charset=utf-8")
    assert not ADAPTER.is_content("_zim_static/wombat.js", "text/html")
    assert not ADAPTER.is_content("docs.example.org/s.css", "text/css")
    assert ADAPTER.serves("docs.example.org/a.html")
    assert ADAPTER.serves("docs.example.org/search?q=x")
    assert not ADAPTER.serves("docs.example.org/_static/pydoctheme.css?2022.1")
    assert not ADAPTER.serves("docs.example.org/img.PNG")
    assert not ADAPTER.serves("_zim_static/wombatSetup.js")
    assert get_adapter("html").name == "html"


def test_redirect_stubs_land_in_the_archive_only() -> None:
    stub = b'<html><head><meta http-equiv="refresh" content="0; url=../b.html#x"></head></html>'
    assert ADAPTER.stub_landing("site/dir/a.html", stub) == Landing("site/b.html", "x")
    away = b'<html><head><meta http-equiv="Refresh" content="0;URL=https://else.org/"></head>'
    assert ADAPTER.stub_landing("site/a.html", away) is None
    assert ADAPTER.stub_landing("site/a.html", b"<html><body>page</body></html>") is None


def test_unparseable_bytes_give_an_empty_document() -> None:
    doc = ADAPTER.parse("x.html", "X", b"\x00\xff", "Demo")
    assert doc.title == "X"
    assert [s.id for s in doc.sections] == [""]


# -- a zimit crawl served ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("zimit")
    zimit.build(root / zimit.FILE)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "Demo"\npath = "{zimit.FILE}"\nadapter = "html"\n',
        encoding="utf-8",
    )
    return manifest


@pytest.fixture
async def demo(demo_manifest: Path) -> AsyncIterator[Corpus]:
    settings = settings_for(demo_manifest, PARSE_WORKERS="0", INDEX="off")
    async with open_corpus(settings, load_manifest(demo_manifest, demo_manifest.parent)) as c:
        yield c


def _fetched(output: FetchOutput) -> str:
    return "\n".join(f"{s.title}\n{s.content}" for s in output.sections)


async def test_demo_search_finds_bodies_with_clean_snippets(demo: Corpus) -> None:
    cases = {
        "lighthouse keepers north pier": "news.example.com/lighthouse.html",
        "pacman synchronizing package names": "wiki.example.org/title/Pacman",
        "directory where you want to place the environment": (
            "docs.example.org/3.11/tutorial/venv.html"
        ),
    }
    for query, path in cases.items():
        out = await demo.search(query, 5)
        assert out.results, query
        assert out.results[0].ref == refs.encode("Demo", path)
        for chrome in CHROME:
            assert chrome not in out.results[0].snippet, (query, chrome)
    # The main page is the site's navigation, stored twice: only index.html is offered.
    found = await demo.search("official documentation demo language", 5)
    paths = [refs.decode(r.ref, ["Demo"]).path for r in found.results]
    assert zimit.MAIN_PATH not in paths


async def test_demo_fetch_sections_links_and_fragments(demo: Corpus) -> None:
    out = await demo.fetch("corpus://Demo/docs.example.org/3.11/tutorial/venv.html", None)
    assert out.source_url == "https://docs.example.org/3.11/tutorial/venv.html"
    text = _fetched(out)
    for chrome in CHROME:
        assert chrome not in text, chrome
    links = [link for link in LINK.findall(text) if link.startswith("corpus://")]
    # The history page is not in the crawl: its link is dropped, the text stays.
    assert links == [
        refs.encode("Demo", "docs.example.org/3.11/glossary.html", "term-virtual-environment")
    ]
    assert "history of the tool" in text
    for link in links:
        landed = await demo.fetch(link, None)
        assert [s.id for s in landed.sections] == ["term-virtual-environment"]
        assert "cooperatively isolated" in landed.sections[0].content
    section = await demo.fetch(
        "corpus://Demo/docs.example.org/3.11/tutorial/venv.html#creating-virtual-environments",
        None,
    )
    assert [s.id for s in section.sections] == ["creating-virtual-environments"]


async def test_demo_redirects_and_stubs_land(demo: Corpus) -> None:
    stub = await demo.fetch(refs.encode("Demo", zimit.STUB_PATH), None)
    assert stub.ref == refs.encode("Demo", zimit.STUB_TARGET)
    assert stub.title == "Lighthouse keepers return"
    main = await demo.fetch("corpus://Demo/docs.example.org/3.11", None)
    assert main.title == "Demo 3.11 documentation"
    assert refs.encode("Demo", "docs.example.org/3.11/glossary.html") in LINK.findall(
        _fetched(main)
    )


# -- the real warc2zim archive -----------------------------------------------------------------

FAMILIES = SHARED_ZIMS / "families"
PYTHON_FILE = "docs.python.org_en_all_2026-12.zim"
real = pytest.mark.skipif(
    not (FAMILIES / PYTHON_FILE).is_file(), reason=f"the warc2zim archive is not at {FAMILIES}"
)
SPHINX_CHROME = (
    "Previous topic", "Next topic", "This Page", "Show Source", "Report a Bug",
    "Created using", "Please donate", "Found a bug", "Quick search", "¶", "wbinfo",
    "wombat", "© Copyright 2001",
)  # fmt: skip


@pytest.fixture(scope="module")
def python_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("python")
    shutil.copyfile(FAMILIES / PYTHON_FILE, root / PYTHON_FILE)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "Python"\npath = "{PYTHON_FILE}"\nadapter = "html"\n',
        encoding="utf-8",
    )
    return manifest


@pytest.fixture
async def python(python_manifest: Path) -> AsyncIterator[Corpus]:
    settings = settings_for(
        python_manifest, PARSE_WORKERS="0", INDEX="off", MAX_FETCH_CHARS="10000000"
    )
    async with open_corpus(settings, load_manifest(python_manifest, python_manifest.parent)) as c:
        yield c


@real
async def test_real_search_finds_pages_with_clean_snippets(python: Corpus) -> None:
    out = await python.search("create a virtual environment with venv", 5)
    assert out.results[0].ref == "corpus://Python/docs.python.org/3.11/tutorial/venv.html"
    for query in ("Copyright Python Software Foundation", "default argument values function"):
        found = await python.search(query, 5)
        assert found.results, query
        for result in found.results:
            for chrome in SPHINX_CHROME:
                assert chrome not in result.snippet, (query, result.ref, chrome)


@real
async def test_real_fetch_sections_links_and_fragments(python: Corpus) -> None:
    ref = "corpus://Python/docs.python.org/3.11/tutorial/venv.html"
    out = await python.fetch(ref, None)
    assert out.source_url == "https://docs.python.org/3.11/tutorial/venv.html"
    assert [s.id for s in out.sections] == [
        "",
        "introduction",
        "creating-virtual-environments",
        "managing-packages-with-pip",
    ]
    text = _fetched(out)
    for chrome in SPHINX_CHROME:
        assert chrome not in text, chrome
    assert "12\\." not in text
    links = [link for link in LINK.findall(text) if link.startswith("corpus://")]
    assert links
    for link in links:
        landed = await python.fetch(link, None)
        assert landed.sections
    section = await python.fetch(f"{ref}#managing-packages-with-pip", None)
    assert [s.id for s in section.sections] == ["managing-packages-with-pip"]
    assert "pip" in section.sections[0].content


@real
async def test_real_glossary_fragment_is_one_entry(python: Corpus) -> None:
    out = await python.fetch(
        "corpus://Python/docs.python.org/3.11/glossary.html#term-virtual-environment", None
    )
    assert [s.id for s in out.sections] == ["term-virtual-environment"]
    assert len(out.sections[0].content) < 1000
    assert "cooperatively isolated runtime environment" in out.sections[0].content


@real
async def test_real_index_links_fetch(python: Corpus) -> None:
    out = await python.fetch("corpus://Python/docs.python.org/3.11/index.html", None)
    links = {link for link in LINK.findall(_fetched(out)) if link.startswith("corpus://")}
    assert refs.encode("Python", "docs.python.org/3.11/tutorial/index.html") in links
    for link in sorted(links):
        assert (await python.fetch(link, None)).sections, link


def test_headings_in_list_items_open_sections_with_the_items_ids() -> None:
    html = (
        b"<body><main><p>Intro text of the guide, long enough to be the content.</p>"
        b"<ol class='steps'><li id='s1'><div class='step'><div><h2>Step 1</h2></div>"
        b"<ul><li>Hold the cup.</li></ul></div></li>"
        b"<li id='s2'><div class='step'><h2>Step 2</h2><p>Wipe it.</p></div></li></ol>"
        b"<div id='author-container'><h3>Author</h3><p>Someone</p></div>"
        b"<div id='guide-comments-container'><h3>0 comments</h3></div></main></body>"
    )
    doc = ADAPTER.parse("Guide/1", "Guide", html, "Demo")
    assert _ids(doc) == ["", "s1", "s2"]
    assert "Hold the cup." in doc.sections[1].content
    assert "Someone" not in _text(doc) and "comments" not in _text(doc)


def test_a_wrapper_with_text_before_its_heading_keeps_its_id() -> None:
    html = b"<body><main><div id='w'>Text<div><h2>Title</h2><p>x</p></div></div></main></body>"
    doc = ADAPTER.parse("p.html", "P", html, "Demo")
    assert _ids(doc) == ["", "title"]
    assert "w" in doc.sections[0].anchors


def test_descent_stops_where_siblings_hold_paragraphs() -> None:
    # A talk page: the speaker and date beside a long description are content too.
    _, found = _body(
        "<body><div id='content'><p id='speaker'>Lena Moreau</p><div id='descriptions'><p>"
        + "word " * 100
        + "</p></div><div id='date'>17 April 2024</div></div></body>"
    )
    assert found.get("id") == "content"
