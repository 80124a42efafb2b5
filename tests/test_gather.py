"""collect_hits and load_symbols on real archives, through both engines: the Xapian
indexes read directly (``ZimReader(...)``) and libzim's own search
(``ZimReader(..., direct_index=False)``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_mcp import ranking
from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.demo import wikipedia as demo_wikipedia
from corpus_mcp.demo._mediawiki import zim_path
from corpus_mcp.demo.gutenberg import METADATA as GUTENBERG_METADATA
from corpus_mcp.gather import STUB_MAX_WORDS, Hit, LibraryHits, collect_hits, load_symbols
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.index import available
from corpus_mcp.zim.writer import Page, write_zim

from .conftest import REAL_LIBRARIES

needs_xapian = pytest.mark.skipif(
    not available(), reason="xapian-bindings-binary is not installed (Linux only)"
)
ENGINES = ["index", "libzim"]
#: Every engine as a test parameter; without the bindings only libzim's is tested.
EACH_ENGINE = [pytest.param("index", marks=needs_xapian), "libzim"]
ADAPTERS = {name: adapter for name, _, adapter in DEMO_LIBRARIES}
#: How many hits each index search asks for, as the corpus asks for a limit of 5.
WANT, ENOUGH = 15, 5


def open_reader(file: Path, engine: str) -> ZimReader:
    reader = ZimReader(file, direct_index=engine == "index")
    if reader.info.has_fulltext_index and available():  # the engine asked for serves
        assert (reader.fulltext_index is not None) is (engine == "index")
    return reader


@pytest.fixture(scope="module")
def demo(demo_archives: dict[str, Path]) -> dict[tuple[str, str], ZimReader]:
    return {
        (name, e): open_reader(file, e) for name, file in demo_archives.items() for e in ENGINES
    }


@pytest.fixture(scope="module")
def real(shared_zims: Path) -> dict[tuple[str, str], ZimReader]:
    return {
        (name, engine): open_reader(shared_zims / file, engine)
        for name, file in REAL_LIBRARIES.items()
        for engine in ENGINES
    }


def collect(reader: ZimReader, adapter: str, query: str) -> LibraryHits:
    return collect_hits(reader, get_adapter(adapter), query, WANT, enough=ENOUGH)


def paths(hits: list[Hit]) -> list[str]:
    return [hit.path for hit in hits]


# -- the expected document -----------------------------------------------------------------

DEMO_CASES = [
    ("Wikipedia", "C3 linearization multiple inheritance", "C3_linearization"),
    (
        "StackOverflow",
        "python super multiple inheritance",
        "questions/3277367/how-does-python-s-super-work-with-multiple-inheritance",
    ),
    ("Python-Docs", "str.join", "library/stdtypes"),
    ("Cpp-Docs", "vector push_back", "cpp/container/vector"),
    ("Math-SE", "derivative of x^x", "questions/1212/what-is-the-derivative-of-x-x"),
]


@pytest.mark.parametrize("engine", EACH_ENGINE)
@pytest.mark.parametrize(("library", "query", "expected"), DEMO_CASES)
def test_both_engines_find_the_expected_document(
    demo: dict[tuple[str, str], ZimReader], engine: str, library: str, query: str, expected: str
) -> None:
    found = collect(demo[library, engine], ADAPTERS[library], query)
    assert expected in paths(found.fulltext)[:3]


@pytest.mark.parametrize("engine", EACH_ENGINE)
@pytest.mark.parametrize(
    ("library", "query", "expected"),
    [
        ("wp100", "Charles Darwin evolution", "Charles_Darwin"),
        ("rc2020", "Ray Charles piano", "Ray_Charles"),
        ("rc2018", "Ray Charles piano", "Ray_Charles"),  # 2018: Z//fulltextIndex, no titles
    ],
)
def test_both_engines_find_the_expected_document_in_real_archives(
    real: dict[tuple[str, str], ZimReader], engine: str, library: str, query: str, expected: str
) -> None:
    found = collect(real[library, engine], "mediawiki", query)
    assert expected in paths(found.fulltext) + paths(found.title)


@pytest.mark.parametrize("engine", EACH_ENGINE)
def test_archive_without_fulltext_index_answers_from_titles(
    demo: dict[tuple[str, str], ZimReader], engine: str
) -> None:
    found = collect(demo["MDWiki", engine], "mediawiki", "metformin")
    assert (found.fulltext, found.queries_tried) == ([], 0)
    assert "Metformin" in paths(found.title)


@pytest.mark.parametrize("engine", EACH_ENGINE)
def test_redirect_found_by_title_lands_on_its_target_with_its_title_as_alias(
    demo: dict[tuple[str, str], ZimReader], engine: str
) -> None:
    found = collect(demo["Wikipedia", engine], "mediawiki", "Brother Ray")
    [hit] = [hit for hit in found.title if hit.path == "Ray_Charles"]
    assert (hit.title, hit.alias) == ("Ray Charles", "Brother Ray")
    assert "Brother_Ray" not in paths(found.title)


# -- what each engine reports ---------------------------------------------------------------


@needs_xapian
@pytest.mark.parametrize(("library", "query", "expected"), DEMO_CASES)
def test_direct_hits_carry_weights_lengths_and_frequencies(
    demo: dict[tuple[str, str], ZimReader], library: str, query: str, expected: str
) -> None:
    reader = demo[library, "index"]
    found = collect(reader, ADAPTERS[library], query)
    words = ranking.query_words(query)
    assert found.fulltext
    for hit in found.fulltext:
        assert hit.weight > 0 and hit.length > 0 and hit.query is None
        assert hit.frequencies is not None and len(hit.frequencies) == len(words)
        assert any(hit.frequencies)
    index = reader.fulltext_index
    assert index is not None
    assert (found.doc_count, found.average_length) == (index.doc_count, index.average_length)
    assert len(found.frequencies) == len(words) and found.queries_tried == 1


@pytest.mark.parametrize(("library", "query", "expected"), DEMO_CASES)
def test_libzim_hits_carry_no_weights_or_frequencies(
    demo: dict[tuple[str, str], ZimReader], library: str, query: str, expected: str
) -> None:
    reader = demo[library, "libzim"]
    found = collect(reader, ADAPTERS[library], query)
    assert found.fulltext
    for hit in found.fulltext:
        assert (hit.weight, hit.length, hit.frequencies) == (0.0, 0, None)
        assert hit.query  # the (relaxed) query that found it
    assert (found.doc_count, found.average_length) == (reader.info.article_count, 0.0)
    assert len(found.frequencies) == len(ranking.query_words(query))


@needs_xapian
@pytest.mark.parametrize(
    ("library", "query"),
    [
        ("Wikipedia", "C3 linearization multiple inheritance"),
        ("StackOverflow", "python super multiple inheritance"),
        ("Math-SE", "derivative chain rule"),
    ],
)
def test_both_engines_count_the_same_documents_per_word(
    demo: dict[tuple[str, str], ZimReader], library: str, query: str
) -> None:
    """One-part words: the index's term frequency and libzim's match estimate agree."""
    assert all(len(ranking.index_parts(word)) == 1 for word in ranking.query_words(query))
    counts = [collect(demo[library, e], ADAPTERS[library], query).frequencies for e in ENGINES]
    assert counts[0] == counts[1]
    assert any(counts[0])


@pytest.mark.parametrize("engine", EACH_ENGINE)
def test_a_raising_checkpoint_stops_the_collection(
    demo: dict[tuple[str, str], ZimReader], engine: str
) -> None:
    class CallerGaveUp(Exception):
        pass

    def checkpoint() -> None:
        raise CallerGaveUp

    with pytest.raises(CallerGaveUp):
        collect_hits(
            demo["Wikipedia", engine],
            get_adapter("mediawiki"),
            "C3 linearization",
            WANT,
            enough=ENOUGH,
            checkpoint=checkpoint,
        )


# -- what is never a result -----------------------------------------------------------------

#: mwoffliner's fragment stubs in the demo Wikipedia: stub path -> the article it lands in.
STUBS = {
    zim_path(title): article.path
    for article in demo_wikipedia.ARTICLES
    for title, _heading in article.section_redirects
}


@pytest.mark.parametrize("engine", EACH_ENGINE)
@pytest.mark.parametrize(
    ("query", "target", "section"),
    [
        ("Python 3000", "Python_(programming_language)", "Python_3"),
        ("Ray Charles early life", "Ray_Charles", "Early_life"),
        ("Diamond problem", "Multiple_inheritance", "The_diamond_problem"),
    ],
)
def test_fragment_stubs_are_never_results_but_land_on_their_section(
    demo: dict[tuple[str, str], ZimReader], engine: str, query: str, target: str, section: str
) -> None:
    found = collect(demo["Wikipedia", engine], "mediawiki", query)
    every = found.fulltext + found.title
    assert not set(paths(every)) & set(STUBS)
    assert any(hit.path == target and hit.section == section for hit in every)


@pytest.mark.parametrize("engine", EACH_ENGINE)
@pytest.mark.parametrize(
    ("library", "query"),
    [("Wikipedia", "photosynthesis"), ("Wikipedia", "asthma"), ("StackOverflow", "python")],
)
def test_main_pages_are_never_results(
    demo: dict[tuple[str, str], ZimReader], engine: str, library: str, query: str
) -> None:
    reader = demo[library, engine]
    main = reader.info.main_path
    assert main is not None
    index = reader.fulltext_index
    if index is not None:
        raw = [hit.path for hit in index.search([(query,)], 100)]
    else:
        raw = reader.fulltext(query, 100).paths
    assert main in raw  # the main page lists the articles: the index finds it
    found = collect(reader, ADAPTERS[library], query)
    assert main not in paths(found.fulltext) + paths(found.title)


@needs_xapian
def test_main_page_is_found_by_the_raw_index_short_and_long(
    demo: dict[tuple[str, str], ZimReader],
) -> None:
    """The two cases above take both of the direct path's branches: a short main page
    (landed through the archive) and a long one (judged as it stands)."""
    lengths = {}
    for library, word in (("Wikipedia", "photosynthesis"), ("StackOverflow", "python")):
        reader = demo[library, "index"]
        index = reader.fulltext_index
        assert index is not None
        [main] = [h for h in index.search([(word,)], 100) if h.path == reader.info.main_path]
        lengths[library] = main.length
    assert lengths["Wikipedia"] < STUB_MAX_WORDS <= lengths["StackOverflow"]


# -- symbols ----------------------------------------------------------------------------------


def test_load_symbols_reads_the_devdocs_navbar(demo: dict[tuple[str, str], ZimReader]) -> None:
    table = load_symbols(demo["Python-Docs", "index"], get_adapter("devdocs"))
    [match] = table.lookup([("json.loads", 1.0)])
    assert (match.symbol.path, match.symbol.section) == ("library/json", "json.loads")
    assert match.symbol.title == "json"  # the page's entry title


def test_load_symbols_of_an_archive_without_symbol_index_is_empty(
    demo: dict[tuple[str, str], ZimReader],
) -> None:
    adapter: Adapter = get_adapter("mediawiki")
    assert adapter.symbol_index is None
    assert len(load_symbols(demo["Wikipedia", "index"], adapter)) == 0


@pytest.mark.parametrize("engine", EACH_ENGINE)
def test_a_hit_on_a_page_standing_for_another_gives_that_one(tmp_path: Path, engine: str) -> None:
    """gutenberg2zim's cover pages stand for their books (``Adapter.result_for``), by title
    and by full text; a cover whose book is missing is no hit, never an error."""
    words = " ".join(["lighthouse keeper"] * 40)
    skin = '<html><body class="pure-skin-gutenberg cover"><div class="bibrec">'
    file = write_zim(
        tmp_path / "covers.zim",
        pages=[
            Page(path="Kept.1", title="Kept", content=f"<p>{words}</p>", front=False),
            Page(path="Kept_cover.1", title="Kept", content=f"{skin}<p>{words}</p></div>"),
            Page(path="Gone_cover.2", title="Gone", content=f"{skin}<p>{words}</p></div>"),
        ],
        metadata=GUTENBERG_METADATA,
    )
    reader = open_reader(file, engine)
    for query in ("Kept", "Gone", "lighthouse keeper"):
        found = collect(reader, "gutenberg", query)
        assert {hit.path for hit in [*found.fulltext, *found.title]} <= {"Kept.1"}, query
    assert paths(collect(reader, "gutenberg", "Kept").title) == ["Kept.1"]
    assert "Kept.1" in paths(collect(reader, "gutenberg", "lighthouse keeper").fulltext)
