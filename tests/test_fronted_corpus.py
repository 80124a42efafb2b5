"""freeCodeCamp and LibreTexts archives through the corpus the server serves: the demo
archives (always) and the real fcc2zim 2.1.0 and mindtouch2zim 0.1.1 archives of
../shared/zims/families (skipped cleanly where they are absent), with the section index a
server builds and without it.

What an agent needs of them: words of a page's body find that page (the data file behind
the front-article stub) by its title, with a clean snippet; fetch returns its sections
without the scraper's markers or the editor's scripts; a section id fetches that section
alone; a ref to a stub lands on its page; the Vue.js reader, its data and its assets are
never documents.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from corpus_mcp import folding, refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import freecodecamp as fcc_demo
from corpus_mcp.demo import libretexts as libretexts_demo
from corpus_mcp.errors import CorpusError
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.zim import ZimError, ZimReader

from .conftest import SHARED_ZIMS, settings_for

FAMILIES = SHARED_ZIMS / "families"
LIBRARY = "Library"
_FCC_REAL = "content/curriculum/javascript-algorithms-and-data-structures/basic-algorithm-scripting"
_FCC_DEMO = f"content/curriculum/{fcc_demo.SUPERBLOCK}/{fcc_demo.BLOCK}"


class Case(msgspec.Struct, frozen=True, kw_only=True):
    """One archive and what its pages say."""

    name: str
    adapter: str
    file: str
    real: bool
    phrase: str
    """Words of one page's body, in no title."""
    page: str
    title: str
    section: str
    """The section holding ``phrase`` (where search lands)."""
    stub: str
    sections: tuple[str, ...]
    """The page's section ids, in order (the lead's "" first)."""
    verbatim: tuple[str, ...]
    """Text the page's fetch keeps exactly (code, TeX)."""
    source_url: str | None
    navigation: str | None
    """A page that is only a script's listing: fetched as its title, never a result."""
    no_documents: tuple[str, ...]
    fulltext: bool
    """The archive's own full-text index holds the pages' words (mindtouch2zim's stubs
    carry them as IndexData; fcc2zim indexes none: its pages are found by their title or
    through the section index)."""
    links: tuple[tuple[str, str, str, str], ...] = ()
    """Links between pages: (page, link text, the page it leads to, the section it lands
    on); every one is a ref that fetch follows there."""
    unlinked: tuple[str, str] | None = None
    """(page, text of a link to a page the archive lacks): it stays text."""
    contents: tuple[str, int] | None = None
    """(the book's contents page, how many pages it links to)."""


CASES = (
    Case(
        name="freecodecamp-demo",
        adapter="freecodecamp",
        file="freecodecamp_en_javascript_2026-12.zim",
        real=False,
        phrase="walks the word once and counts each vowel",
        page=f"{_FCC_DEMO}/d3m0000000000000000000a1.md",
        title="Count the Vowels",
        section="instructions",
        stub=f"index/{fcc_demo.SUPERBLOCK}/{fcc_demo.BLOCK}/d3m0000000000000000000a1.html",
        sections=("", "description", "instructions", "hints", "seed", "solutions"),
        verbatim=("return (word.match(/[aeiou]/gi) || []).length;",),
        source_url="https://www.freecodecamp.org/learn/javascript-algorithms-and-data-structures/"
        "basic-algorithm-scripting/count-the-vowels",
        navigation=None,
        no_documents=(
            "index.html",
            "content/curriculum/index.json",
            "content/locales/translations.json",
            "mathjax/README.md",
            "assets/index.js",
        ),
        fulltext=False,
    ),
    Case(
        name="freecodecamp-real",
        adapter="freecodecamp",
        file="freecodecamp_en_javascript_2026-12.zim",
        real=True,
        phrase="lowest index at which a value should be inserted once it has been sorted",
        page=f"{_FCC_REAL}/a24c1a4622e3c05097f71d67.md",
        title="Where do I Belong",
        section="description",
        stub="index/javascript-algorithms-and-data-structures/basic-algorithm-scripting/"
        "a24c1a4622e3c05097f71d67.html",
        sections=("", "description", "hints", "seed", "solutions"),
        verbatim=("arr = arr.sort((a, b) => a - b);",),
        source_url="https://www.freecodecamp.org/learn/javascript-algorithms-and-data-structures/"
        "basic-algorithm-scripting/where-do-i-belong",
        navigation=None,
        no_documents=(
            "index.html",
            "content/curriculum/index.json",
            "content/locales/translations.json",
            "mathjax/README.md",
        ),
        fulltext=False,
    ),
    Case(
        name="libretexts-demo",
        adapter="libretexts",
        file="libretexts.org_en_chem_2026-12.zim",
        real=False,
        phrase="particles keep fixed places",
        page="content/page_content_500111.json",
        title="1.1: States of Matter",
        section="section_1",
        stub="index/page_500111",
        sections=("", "section_1", "section_2"),
        verbatim=("\\(\\ce{H2O}\\)", "\\[ q = n\\,\\Delta H_\\text{fus}"),
        source_url="https://chem.libretexts.org/Bookshelves/Demo/Offline_Chemistry_(Demo)/"
        "01%3A_Matter/1.01%3A_States_of_Matter",
        navigation="content/page_content_500110.json",
        no_documents=("index.html", "content/shared.json", "content/config.json"),
        fulltext=True,
        links=(
            (
                "content/page_content_500111.json",
                "1.2: Density",
                "content/page_content_500112.json",
                "",
            ),
            (
                "content/page_content_500112.json",
                "Melting Heat",
                "content/page_content_500111.json",
                "section_2",
            ),
        ),
        unlinked=("content/page_content_500112.json", "a chapter not in this archive"),
    ),
    Case(
        name="libretexts-real",
        adapter="libretexts",
        file="libretexts.org_en_chem_2026-12.zim",
        real=True,
        phrase="concise statement often mathematical of a relationship always the same",
        page="content/page_content_402111.json",
        title="1.1: Scientific Method",
        section="section_1",
        stub="index/page_402111",
        sections=("", "section_1", "section_2", "section_3", "section_4"),
        verbatim=("\\(PV = nRT\\)", "\\(P_1V_1 = P_2V_2\\)"),
        source_url="https://chem.libretexts.org/Bookshelves/Introductory_Chemistry/"
        "Introductory_Chemistry_(Sandbox)/01%3A_The_Chemical_World/1.01%3A_Scientific_Method",
        navigation="content/page_content_402110.json",
        no_documents=("index.html", "content/shared.json", "content/config.json"),
        fulltext=True,
        links=(
            (
                "content/page_content_402111.json",
                "1.2: Classifying Matter",
                "content/page_content_402112.json",
                "",
            ),
            (
                "content/page_content_402122.json",
                "significant figures",
                "content/page_content_402121.json",
                "section_2",
            ),
        ),
        contents=("content/page_content_402102.json", 8),
    ),
)
_DEMOS = {"freecodecamp": fcc_demo.build, "libretexts": libretexts_demo.build}
# What a fetch or a snippet never shows: the scrapers' markers, the editor's scripts.
_MARKUP = re.compile(r"# --[a-z-]+--|template\(|mt-script-comment|htmlBody|PageIndex")


def _param(case: Case) -> object:
    marks = []
    if case.real and not (FAMILIES / case.file).is_file():
        marks.append(pytest.mark.skip(reason=f"real archive not at {FAMILIES / case.file}"))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.fixture(scope="module", params=[_param(case) for case in CASES])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Case, Path]:
    """The case and a corpus.toml serving its archive with its adapter."""
    case: Case = request.param
    root = tmp_path_factory.mktemp(case.name)
    file = root / case.file
    if case.real:
        shutil.copyfile(FAMILIES / case.file, file)
    else:
        _DEMOS[case.adapter](file)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "{LIBRARY}"\npath = "{file.name}"\n'
        f'adapter = "{case.adapter}"\n',
        encoding="utf-8",
    )
    return case, manifest


@pytest.fixture(scope="module")
def index_folder(served: tuple[Case, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    case, manifest = served
    folder = tmp_path_factory.mktemp(f"{case.name}-indexes")
    build_index(
        BuildJob(
            archive=manifest.parent / case.file,
            adapter=case.adapter,
            folder=folder,
            library=LIBRARY,
        ),
        processes=1,
    )
    return folder


@pytest.fixture(params=["indexed", "unindexed"])
async def corpus(
    request: pytest.FixtureRequest, served: tuple[Case, Path], index_folder: Path
) -> AsyncIterator[Corpus]:
    _, manifest = served
    index = "auto" if request.param == "indexed" else "off"
    settings = settings_for(
        manifest, PARSE_WORKERS="0", INDEX=index, CORPUS_INDEX_DIR=str(index_folder)
    )
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as opened:
        if index == "auto":
            assert {s.state for s in opened.index_states().values()} == {"ready"}
        yield opened


def _indexed(corpus: Corpus) -> bool:
    return {s.state for s in corpus.index_states().values()} == {"ready"}


async def test_words_of_a_body_find_the_page_by_its_title(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    if not case.fulltext and not _indexed(corpus):
        pytest.skip(f"{case.name}: body words are in no index but the section index")
    found = await corpus.search(case.phrase, 5)
    best = found.results[0]
    assert (best.ref, best.title) == (refs.encode(LIBRARY, case.page), case.title)
    assert case.phrase.split()[0] in best.snippet
    assert not _MARKUP.search(best.snippet)
    for result in found.results:
        assert not result.ref.endswith(("index.html", ".html")) and "index/" not in result.ref


async def test_the_section_index_lands_on_the_section_holding_the_words(
    served: tuple[Case, Path], index_folder: Path
) -> None:
    case, manifest = served
    settings = settings_for(
        manifest, PARSE_WORKERS="0", INDEX="auto", CORPUS_INDEX_DIR=str(index_folder)
    )
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as corpus:
        best = (await corpus.search(case.phrase, 5)).results[0]
    assert best.ref == refs.encode(LIBRARY, case.page)
    assert best.relevant_sections[0].id == case.section


async def test_a_title_search_gives_the_page_not_its_stub(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    found = await corpus.search(case.title, 5)
    assert found.results[0].ref == refs.encode(LIBRARY, case.page)
    assert found.results[0].title == case.title


async def test_fetch_returns_the_page_sections_without_markup(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    out = await corpus.fetch(refs.encode(LIBRARY, case.page), None)
    assert out.title == case.title and (out.source_url or None) == case.source_url
    assert tuple(s.id for s in out.sections) == case.sections
    assert not out.truncated
    text = "\n".join(s.content for s in out.sections)
    assert case.phrase.split()[-1] in text and not _MARKUP.search(text)
    for kept in case.verbatim:
        assert kept in text


async def test_a_section_id_fetches_that_section_alone(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    by_id = await corpus.fetch(refs.encode(LIBRARY, case.page), [case.section])
    by_anchor = await corpus.fetch(refs.encode(LIBRARY, case.page, case.section), None)
    for out in (by_id, by_anchor):
        (section,) = out.sections
        assert section.id == case.section and section.content


async def test_a_ref_to_a_stub_lands_on_its_page(corpus: Corpus, served: tuple[Case, Path]) -> None:
    case, _ = served
    out = await corpus.fetch(refs.encode(LIBRARY, case.stub), None)
    assert out.ref == refs.encode(LIBRARY, case.page) and out.title == case.title
    assert len(out.sections) == len(case.sections)


async def test_the_reader_its_data_and_assets_are_no_documents(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    for path in case.no_documents:
        with pytest.raises(CorpusError) as refused:
            await corpus.fetch(refs.encode(LIBRARY, path), None)
        assert refused.value.code == "not_found", path


async def test_a_listing_page_is_its_title_and_never_a_result(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    if case.navigation is None:
        pytest.skip(f"{case.name} has no listing pages")
    out = await corpus.fetch(refs.encode(LIBRARY, case.navigation), None)
    (lead,) = out.sections
    # A page a script fills: no text in the archive, and the answer says so.
    assert lead.content == folding.EMPTY and out.title and out.title != case.navigation
    found = await corpus.search(out.title, 10)
    assert refs.encode(LIBRARY, case.navigation) not in [r.ref for r in found.results]


async def test_hints_are_a_list_and_code_stays_fenced(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    if case.adapter != "freecodecamp":
        pytest.skip("challenges only")
    (hints,) = (await corpus.fetch(refs.encode(LIBRARY, case.page), ["hints"])).sections
    assert hints.title == "Tests"
    items = [line for line in hints.content.splitlines() if line.startswith("- ")]
    assert len(items) >= 2 and all("should return" in item for item in items)
    assert "  ```js" in hints.content
    (seed,) = (await corpus.fetch(refs.encode(LIBRARY, case.page), ["seed"])).sections
    assert seed.content.startswith("```js") and seed.content.rstrip().endswith("```")


_REF_LINK = re.compile(r"\[([^\]]+)\]\((corpus://[^)\s]+)\)")


async def _fetched_text(corpus: Corpus, page: str) -> str:
    out = await corpus.fetch(refs.encode(LIBRARY, page), None)
    return "\n".join(s.content for s in out.sections)


async def test_links_between_pages_lead_to_their_pages_and_sections(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    """The reader's routes become refs to the pages they name (the archive's page list),
    their anchors kept: each fetches that page, landing on the anchor's section."""
    case, _ = served
    if not case.links:
        pytest.skip(f"{case.name}: its pages do not link to each other")
    for page, label, target, landed in case.links:
        text = await _fetched_text(corpus, page)
        [ref] = [ref for text_, ref in _REF_LINK.findall(text) if text_ == label]
        assert refs.decode(ref, [LIBRARY])[1] == target, ref
        followed = await corpus.fetch(ref, None)
        assert followed.ref == refs.encode(LIBRARY, target)
        if landed:
            assert [s.id for s in followed.sections] == [landed]
    if case.unlinked is not None:
        page, label = case.unlinked
        text = await _fetched_text(corpus, page)
        assert label in text and f"[{label}]" not in text


async def test_the_contents_page_lists_the_book_as_links_that_fetch(
    corpus: Corpus, served: tuple[Case, Path]
) -> None:
    case, _ = served
    if case.contents is None:
        pytest.skip(f"{case.name}: no contents page")
    page, count = case.contents
    linked = _REF_LINK.findall(await _fetched_text(corpus, page))
    assert len(linked) == count
    for label, ref in linked:
        followed = await corpus.fetch(ref, None)
        assert followed.title.endswith(label.split(": ", 1)[-1]), (label, followed.title)


async def test_links_lead_to_their_pages_when_the_archive_cannot_say_what_exists(
    corpus: Corpus, served: tuple[Case, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetch keeps its links as written when the archive cannot be asked which paths
    exist; a route still leads to its page, which the page list alone names."""
    case, _ = served
    if not case.links:
        pytest.skip(f"{case.name}: its pages do not link to each other")

    def unanswered(reader: ZimReader, path: str) -> bool:
        raise ZimError("entry lookup failed: simulated")

    monkeypatch.setattr(ZimReader, "has_entry", unanswered)
    for page, label, target, _landed in case.links:
        text = await _fetched_text(corpus, page)
        [ref] = [ref for text_, ref in _REF_LINK.findall(text) if text_ == label]
        assert refs.decode(ref, [LIBRARY])[1] == target, ref
