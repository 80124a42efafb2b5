"""Gutenberg archives through the corpus the server serves: the demo archive (always) and
the real gutenberg2zim 3.0.1 archive of ../shared/zims/families (six Jane Austen novels,
skipped cleanly where it is absent), with and without a section index.

What an agent needs of a library of books: a phrase finds its book with its chapter
hinted; every chapter, the last one included, is fetched on its own by its id or by the
anchor the book's table of contents links to; the contents' links fetch; a search for the
author gives the books, never the empty author page; a title hit on a cover page gives
the book; the cover page, fetched, leads to the book.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import lxml.html
import pytest

from corpus_mcp import folding, refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import gutenberg as demo
from corpus_mcp.errors import CorpusError
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.wire import FetchOutput
from corpus_mcp.zim.reader import ZimReader

from .conftest import SHARED_ZIMS, settings_for

REAL = SHARED_ZIMS / "families" / "gutenberg_en_all_2026-12.zim"
LIBRARY = "Gutenberg"
PRIDE = "Pride and Prejudice.1342"
# The first sentence of Pride and Prejudice's chapter 50, in both archives.
CHAPTER_50_PHRASE = "laid by an annual sum for the better provision of his children"
LINK = re.compile(r"\]\((corpus://[^)\s]+|#[^)\s]+)\)")


@pytest.fixture(
    scope="module",
    params=[
        "demo",
        pytest.param(
            "real",
            marks=pytest.mark.skipif(not REAL.is_file(), reason=f"real archive not at {REAL}"),
        ),
    ],
)
def archive(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the archive and a corpus.toml serving it with the adapter."""
    root = tmp_path_factory.mktemp(f"gutenberg-{request.param}")
    file = root / "gutenberg_en_all_2026-12.zim"
    if request.param == "real":
        shutil.copyfile(REAL, file)
    else:
        demo.build(file)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "{LIBRARY}"\npath = "{file.name}"\n'
        'adapter = "gutenberg"\n',
        encoding="utf-8",
    )
    return manifest


@pytest.fixture
async def corpus(archive: Path) -> AsyncIterator[Corpus]:
    # A cap and a budget no book reaches: these tests read whole books too.
    settings = settings_for(
        archive, PARSE_WORKERS="0", MAX_FETCH_CHARS="10000000", FETCH_BUDGET_CHARS="10000000"
    )
    async with open_corpus(settings, load_manifest(archive, archive.parent)) as opened:
        yield opened


@pytest.fixture
async def budgeted(archive: Path) -> AsyncIterator[Corpus]:
    """The corpus as served by default: fetch's cap and budget untouched."""
    settings = settings_for(archive, PARSE_WORKERS="0")
    async with open_corpus(settings, load_manifest(archive, archive.parent)) as opened:
        yield opened


def _books(archive: Path) -> list[str]:
    reader = ZimReader(archive.parent / "gutenberg_en_all_2026-12.zim")
    return sorted(
        path
        for path, _, redirect in reader.iter_entries()
        if not redirect
        and re.fullmatch(r"[^_]+\.\d+", path)
        and b'class="chapter"' in reader.content(path)
    )


def _last_paragraph(archive: Path, path: str) -> str:
    reader = ZimReader(archive.parent / "gutenberg_en_all_2026-12.zim")
    root = lxml.html.fromstring(reader.content(path))
    paragraphs = [p for p in root.iter("p") if isinstance(p, lxml.html.HtmlElement)]
    return " ".join(paragraphs[-1].text_content().split())


async def test_a_phrase_of_chapter_50_finds_the_book_with_that_chapter(corpus: Corpus) -> None:
    found = await corpus.search(CHAPTER_50_PHRASE, 5)
    best = found.results[0]
    assert best.ref == refs.encode(LIBRARY, PRIDE)
    assert best.title == "Pride and Prejudice by Jane Austen"
    assert "annual sum" in best.snippet
    assert best.relevant_sections[0].id == "chap50"


async def test_chapter_50_is_fetched_alone_by_its_id_or_its_anchor(corpus: Corpus) -> None:
    by_anchor = await corpus.fetch(refs.encode(LIBRARY, PRIDE, "chap50"), None)
    by_id = await corpus.fetch(refs.encode(LIBRARY, PRIDE), ["chap50"])
    for out in (by_anchor, by_id):
        (chapter,) = out.sections
        assert (chapter.id, chapter.title, chapter.level) == ("chap50", "Chapter 50", 2)
        assert CHAPTER_50_PHRASE in chapter.content
        assert not out.truncated
        assert out.source_url == "https://www.gutenberg.org/ebooks/1342"


async def test_the_end_of_every_book_is_reachable(corpus: Corpus, archive: Path) -> None:
    books = _books(archive)
    assert PRIDE in books and len(books) >= 2
    for path in books:
        whole = await corpus.fetch(refs.encode(LIBRARY, path), None)
        last = whole.sections[-1]
        assert re.fullmatch(r"chap\d+", last.id), (path, last.id)
        alone = await corpus.fetch(refs.encode(LIBRARY, path), [last.id])
        assert [s.id for s in alone.sections] == [last.id]
        ending = " ".join(alone.sections[0].content.split())
        assert ending.endswith(_last_paragraph(archive, path).replace("*", r"\*")), path


async def test_a_whole_book_over_the_budget_leads_to_its_end(
    budgeted: Corpus, archive: Path
) -> None:
    # What an agent meets by default: a book over fetch's budget comes as its lead with the
    # rest listed by size; following the last section listed (a volume lists its chapters
    # in turn) reaches the book's last words.
    for path in _books(archive):
        book = refs.encode(LIBRARY, path)
        out = await budgeted.fetch(book, None)
        if out.truncated:
            assert sum(len(s.content) for s in out.sections) <= 8_000, path
        while left_out := [s for s in out.available_sections if s.chars]:
            out = await budgeted.fetch(book, [left_out[-1].id])
        ending = " ".join(out.sections[-1].content.split())
        assert ending.endswith(_last_paragraph(archive, path).replace("*", r"\*")), path


async def test_the_table_of_contents_links_land_on_their_chapters(corpus: Corpus) -> None:
    book = refs.encode(LIBRARY, PRIDE)
    (contents,) = (await corpus.fetch(book, ["contents"])).sections
    anchors = [link[1:] for link in LINK.findall(contents.content)]
    assert anchors[49] == "chap50" and len(anchors) == 61
    whole = await corpus.fetch(book, None)
    assert anchors == [s.id for s in whole.sections if s.id.startswith("chap")]
    for anchor in (anchors[0], anchors[12], anchors[-1]):
        (landed,) = (await corpus.fetch(refs.encode(LIBRARY, PRIDE, anchor), None)).sections
        assert landed.id == anchor and landed.content


async def test_a_volume_is_fetched_with_its_chapters(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode(LIBRARY, "Emma.158"), ["vol2"])
    volume, *chapters = out.sections
    assert (volume.id, volume.title, volume.level) == ("vol2", "VOLUME II", 2)
    assert chapters and all(c.level == 3 and c.id.startswith("chap") for c in chapters)
    assert chapters[0].title == "CHAPTER I"
    listed = {s.id for s in out.available_sections}
    assert {"vol1", "vol2", "vol3"} <= listed


async def test_a_search_for_the_author_gives_her_books(corpus: Corpus) -> None:
    found = await corpus.search("Jane Austen", 5)
    assert len(found.results) >= 2
    for result in found.results:
        assert result.ref != refs.encode(LIBRARY, "Jane Austen.68")
        assert "_cover." not in result.ref
        assert result.title.endswith(" by Jane Austen") and result.snippet


async def test_a_title_hit_on_a_cover_gives_the_book(corpus: Corpus) -> None:
    found = await corpus.search("Pride and Prejudice", 5)
    assert found.results[0].ref == refs.encode(LIBRARY, PRIDE)
    assert all("_cover." not in result.ref for result in found.results)


async def test_the_cover_page_leads_to_the_book(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode(LIBRARY, "Pride and Prejudice_cover.1342"), None)
    (lead,) = out.sections
    assert "- Author: Jane Austen" in lead.content and "- Language: English" in lead.content
    (link,) = LINK.findall(lead.content)
    book = await corpus.fetch(link, ["chap01"])
    assert book.ref == refs.encode(LIBRARY, PRIDE)
    assert book.sections[0].content.startswith("It is a truth universally acknowledged")


async def test_listings_assets_and_downloads_are_no_documents(corpus: Corpus) -> None:
    author = await corpus.fetch(refs.encode(LIBRARY, "Jane Austen.68"), None)
    # A skeleton a script fills: no text in the archive, and the answer says so.
    assert author.title == "Jane Austen" and author.sections[0].content == folding.EMPTY
    for path in ("Home", "lcc_shelf_PR", f"{PRIDE}.epub", "covers/1342_cover_image.jpg"):
        with pytest.raises(CorpusError) as refused:
            await corpus.fetch(refs.encode(LIBRARY, path), None)
        assert refused.value.code == "not_found"


def _document_links(out: FetchOutput) -> list[str]:
    return [link for s in out.sections for link in LINK.findall(s.content)]


async def test_every_link_of_a_book_stays_in_it(corpus: Corpus) -> None:
    """The infobox's links (cover page, EPUB) are gone; the contents link in-page."""
    out = await corpus.fetch(refs.encode(LIBRARY, PRIDE), None)
    links = _document_links(out)
    assert links and all(link.startswith("#chap") for link in links)


async def test_the_section_index_hints_chapters_and_skips_navigation(
    archive: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    build_index(
        BuildJob(
            archive=archive.parent / "gutenberg_en_all_2026-12.zim",
            adapter="gutenberg",
            folder=folder,
            library=LIBRARY,
        ),
        processes=1,
    )
    settings = settings_for(archive, INDEX="auto", CORPUS_INDEX_DIR=str(folder), PARSE_WORKERS="0")
    async with open_corpus(settings, load_manifest(archive, archive.parent)) as corpus:
        assert {s.state for s in corpus.index_states().values()} == {"ready"}
        found = await corpus.search(CHAPTER_50_PHRASE, 5)
        assert found.results[0].ref == refs.encode(LIBRARY, PRIDE)
        assert found.results[0].relevant_sections[0].id == "chap50"
        author = await corpus.search("Jane Austen", 5)
        assert author.results
        assert all("Jane%20Austen.68" not in r.ref for r in author.results)
