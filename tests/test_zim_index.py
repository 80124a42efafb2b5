"""The Xapian databases inside ZIMs, searched directly (corpus_mcp.zim.index).

The oracles are independent of the code under test: libzim's own ``Searcher`` (through
``ZimReader.fulltext`` and ``document_frequency``) for what a one-word query finds,
where AND and OR agree; the posting lists, read from a database opened here, for what
each word's frequency in a document must be.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest

from corpus_mcp.zim import ZimReader, normalise_path
from corpus_mcp.zim import index as zim_index
from corpus_mcp.zim.index import (
    NO_INDEXES,
    FulltextIndex,
    TitleHit,
    TitleIndex,
    Word,
    open_indexes,
)
from corpus_mcp.zim.layout import BlobLocation, locate_blob
from corpus_mcp.zim.writer import Page, write_zim
from corpus_mcp.zim.xapian_pool import DatabasePool, open_database_at

from .conftest import REAL_LIBRARIES

pytestmark = pytest.mark.skipif(
    not zim_index.available(), reason="xapian-bindings-binary is not installed (Linux only)"
)


@pytest.fixture(scope="module")
def demo(demo_archives: dict[str, Path]) -> dict[str, ZimReader]:
    return {name: ZimReader(file) for name, file in demo_archives.items()}


@pytest.fixture(scope="module")
def real(shared_zims: Path) -> dict[str, ZimReader]:
    return {name: ZimReader(shared_zims / file) for name, file in REAL_LIBRARIES.items()}


def fulltext_of(reader: ZimReader) -> FulltextIndex:
    index = reader.fulltext_index
    assert index is not None
    return index


def title_of(reader: ZimReader) -> TitleIndex:
    index = reader.title_index
    assert index is not None
    return index


def fulltext_blob(file: str) -> BlobLocation:
    fd = os.open(file, os.O_RDONLY)
    try:
        found = next(filter(None, (locate_blob(fd, *at) for at in zim_index.FULLTEXT_LOCATIONS)))
    finally:
        os.close(fd)
    return found


@contextmanager
def database_of(reader: ZimReader) -> Iterator[Any]:
    """The archive's full-text database, opened here (not through the index's pool)."""
    fd = os.open(reader.file, os.O_RDONLY)
    os.lseek(fd, fulltext_blob(reader.file).offset, os.SEEK_SET)
    database = zim_index.xapian.Database(fd)  # owns the descriptor from here on
    try:
        yield database
    finally:
        database.close()


def wdf_by_path(reader: ZimReader, part: str) -> dict[str, int]:
    """How often each document holds ``part``, from the term's whole posting list."""
    term = fulltext_of(reader).stem(part).encode("utf-8")
    with database_of(reader) as database:
        if not database.term_exists(term):
            return {}
        out = {}
        for posting in database.postlist(term):
            data = database.get_document(posting.docid).get_data().decode("utf-8")
            out[normalise_path(data.removeprefix("C/"))] = int(posting.wdf)
        return out


# -- opening ------------------------------------------------------------------------------


def test_built_archive_has_both_indexes_read_directly(demo: dict[str, ZimReader]) -> None:
    fulltext, title = fulltext_of(demo["Wikipedia"]), title_of(demo["Wikipedia"])
    assert (fulltext.language, title.language) == ("eng", "eng")
    assert fulltext.doc_count > 0 and title.doc_count > 0
    assert fulltext.average_length > 0


def test_archive_built_without_fulltext_index_has_only_its_title_index(
    demo: dict[str, ZimReader],
) -> None:
    assert demo["MDWiki"].fulltext_index is None
    assert demo["MDWiki"].title_index is not None


def test_2018_fulltext_layout_is_read_directly(real: dict[str, ZimReader]) -> None:
    reader = real["rc2018"]
    assert fulltext_of(reader).doc_count > 0
    assert reader.title_index is None  # the 2018 archive has no title index


def test_archive_without_indexes_gives_none_none(shared_zims: Path) -> None:
    assert open_indexes(str(shared_zims / REAL_LIBRARIES["wikibooks_be"])) == NO_INDEXES


def test_blob_that_is_not_a_database_gives_no_index(
    shared_zims: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An uncompressed blob that is not a glass database: libzim's search serves."""
    monkeypatch.setattr(zim_index, "FULLTEXT_LOCATIONS", (("I", "favicon.png"),))
    indexes = open_indexes(str(shared_zims / REAL_LIBRARIES["wikibooks_be"]))
    assert indexes.fulltext is None


def test_invalid_archives_never_raise_on_opening_indexes(shared_zims: Path) -> None:
    opened = [open_indexes(str(file)) for file in sorted(shared_zims.glob("invalid/*.zim"))]
    assert len(opened) == 16


def test_missing_file_has_no_indexes(tmp_path: Path) -> None:
    assert open_indexes(str(tmp_path / "absent.zim")) == NO_INDEXES


def test_without_bindings_no_index_is_opened_and_the_reader_uses_libzim(
    demo_archives: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zim_index, "xapian", None)
    assert not zim_index.available()
    assert open_indexes(str(demo_archives["Wikipedia"])) == NO_INDEXES
    reader = ZimReader(demo_archives["Wikipedia"])
    assert (reader.fulltext_index, reader.title_index) == (None, None)
    assert "C3_linearization" in reader.fulltext("linearization", 5).paths


def test_reader_asked_not_to_read_indexes_directly_has_none(
    demo_archives: dict[str, Path],
) -> None:
    reader = ZimReader(demo_archives["Wikipedia"], direct_index=False)
    assert reader.indexes == NO_INDEXES
    assert (reader.fulltext_index, reader.title_index) == (None, None)


# -- one word: the same as libzim ----------------------------------------------------------

DEMO_WORDS = [
    ("Wikipedia", "python"),
    ("Wikipedia", "inheritance"),
    ("Wikipedia", "inherited"),
    ("Wikipedia", "Linearization"),
    ("StackOverflow", "python"),
    ("StackOverflow", "vector"),
    ("Python-Docs", "function"),
    ("Python-Docs", "list"),
    ("Cpp-Docs", "function"),
    ("Math-SE", "function"),
]
REAL_WORDS = [
    ("wp100", "music"),
    ("wp100", "singer"),
    ("rc2020", "piano"),
    ("rc2020", "singers"),
    ("rc2018", "music"),
    ("rc2018", "piano"),
]


def libzim_paths(reader: ZimReader, word: str, limit: int) -> list[str]:
    return reader.fulltext(word, limit).paths


@pytest.mark.parametrize(("library", "word"), DEMO_WORDS)
def test_one_word_finds_what_libzim_finds_on_built_archives(
    demo: dict[str, ZimReader], library: str, word: str
) -> None:
    reader = demo[library]
    expected = libzim_paths(reader, word, 10)
    assert len(expected) >= 2  # enough to compare an order
    assert [hit.path for hit in fulltext_of(reader).search([(word,)], 10)] == expected


@pytest.mark.parametrize(("library", "word"), REAL_WORDS)
def test_one_word_finds_what_libzim_finds_on_real_archives(
    real: dict[str, ZimReader], library: str, word: str
) -> None:
    reader = real[library]
    expected = libzim_paths(reader, word, 10)
    assert len(expected) >= 2
    assert [hit.path for hit in fulltext_of(reader).search([(word,)], 10)] == expected


@pytest.mark.parametrize(("library", "word"), DEMO_WORDS)
def test_word_frequency_equals_libzims_estimate_on_built_archives(
    demo: dict[str, ZimReader], library: str, word: str
) -> None:
    reader = demo[library]
    assert fulltext_of(reader).word_frequency((word,)) == reader.document_frequency(word)


@pytest.mark.parametrize(("library", "word"), REAL_WORDS)
def test_word_frequency_equals_libzims_estimate_on_real_archives(
    real: dict[str, ZimReader], library: str, word: str
) -> None:
    reader = real[library]
    assert fulltext_of(reader).word_frequency((word,)) == reader.document_frequency(word)


def test_word_in_no_document_has_frequency_zero_and_no_hits(
    demo: dict[str, ZimReader],
) -> None:
    index = fulltext_of(demo["Wikipedia"])
    assert index.word_frequency(("zyzzogeton",)) == 0
    assert index.search([("zyzzogeton",)], 10) == []


def test_no_words_or_no_room_finds_nothing(demo: dict[str, ZimReader]) -> None:
    fulltext, title = fulltext_of(demo["Wikipedia"]), title_of(demo["Wikipedia"])
    assert fulltext.search([], 10) == [] and fulltext.search([("python",)], 0) == []
    assert title.search([], 10) == [] and title.search(["python"], 0) == []


@pytest.fixture(scope="module")
def french(tmp_path_factory: pytest.TempPathFactory) -> ZimReader:
    """An archive indexed in French: "chante" and "chantaient" share the stem "chant"."""

    def page(path: str, text: str) -> Page:
        body = f"<html><head><title>{path}</title></head><body><p>{text}</p></body></html>"
        return Page(path=path, title=path.capitalize(), content=body)

    file = write_zim(
        tmp_path_factory.mktemp("french") / "fr.zim",
        pages=[
            page("chorale", "Les chanteuses chantaient des chansons célèbres."),
            page("musique", "La soliste chante une chanson, les musiciens jouent."),
            page("cuisine", "Le café et les crêpes sont délicieux."),
        ],
        metadata={"Title": "Démo", "Name": "demo_fr", "Language": "fra"},
        language="fra",
    )
    return ZimReader(file)


def test_stemmer_follows_the_index_language(french: ZimReader) -> None:
    index = fulltext_of(french)
    assert index.language == "fra"
    found = [hit.path for hit in index.search([("chantaient",)], 10)]
    assert found == libzim_paths(french, "chantaient", 10)
    assert "musique" in found  # only by the French stem: it says "chante"


def test_accents_and_case_are_folded_as_libzim_folds_them(french: ZimReader) -> None:
    index = fulltext_of(french)
    for word in ("crêpes", "CRÊPES", "crepes", "Café"):
        assert [hit.path for hit in index.search([(word,)], 10)] == ["cuisine"], word


# -- several words: frequencies from the posting lists ------------------------------------


@pytest.mark.parametrize(
    ("library", "words"),
    [
        ("Wikipedia", ("python", "linearization", "photosynthesis")),
        ("StackOverflow", ("inheritance", "super", "diamond")),
    ],
)
def test_frequencies_are_the_posting_lists_counts_on_built_archives(
    demo: dict[str, ZimReader], library: str, words: tuple[str, ...]
) -> None:
    check_frequencies(demo[library], words)


@pytest.mark.parametrize(
    ("library", "words"),
    [("rc2020", ("piano", "singer", "python")), ("rc2018", ("piano", "gospel", "organ"))],
)
def test_frequencies_are_the_posting_lists_counts_on_real_archives(
    real: dict[str, ZimReader], library: str, words: tuple[str, ...]
) -> None:
    check_frequencies(real[library], words)


def check_frequencies(reader: ZimReader, words: tuple[str, ...]) -> None:
    hits = fulltext_of(reader).search([(word,) for word in words], 40)
    assert hits
    expected = [wdf_by_path(reader, word) for word in words]
    for hit in hits:
        assert hit.frequencies == tuple(counts.get(hit.path, 0) for counts in expected)


def test_word_absent_from_a_hit_has_frequency_zero(demo: dict[str, ZimReader]) -> None:
    hits = fulltext_of(demo["Wikipedia"]).search([("photosynthesis",), ("regex",)], 40)
    by_path = {hit.path: hit.frequencies for hit in hits}
    assert by_path["Regular_expression"][0] == 0 < by_path["Regular_expression"][1]
    assert by_path["Photosynthesis"][0] > 0 == by_path["Photosynthesis"][1]


def test_word_in_a_hits_title_has_a_positive_frequency(real: dict[str, ZimReader]) -> None:
    words = ("ray", "charles", "piano", "blues")
    hits = fulltext_of(real["rc2020"]).search([(word,) for word in words], 40)
    checked = 0
    for hit in hits:
        title_words = hit.title.lower().replace("(", " ").replace(")", " ").split()
        for word, frequency in zip(words, hit.frequencies, strict=True):
            if word in title_words:
                assert frequency > 0, (hit.path, word)
                checked += 1
    assert checked > 0


def test_hits_carry_the_bm25_order_and_document_lengths(demo: dict[str, ZimReader]) -> None:
    hits = fulltext_of(demo["Wikipedia"]).search([("python",), ("inheritance",)], 40)
    weights = [hit.weight for hit in hits]
    assert weights == sorted(weights, reverse=True)
    assert all(weight > 0 for weight in weights)
    assert all(hit.length > 0 for hit in hits)


def test_a_document_holding_more_query_words_ranks_first(demo: dict[str, ZimReader]) -> None:
    """Every word is optional: documents need not hold them all, but those that do lead."""
    words: list[Word] = [("multiple",), ("inheritance",), ("linearization",)]
    hits = fulltext_of(demo["Wikipedia"]).search(words, 40)
    assert any(0 in hit.frequencies for hit in hits)  # OR: partial matches are found
    assert 0 not in hits[0].frequencies


# -- multi-part words ------------------------------------------------------------------------


def test_multi_part_word_alone_finds_the_documents_holding_every_part(
    demo: dict[str, ZimReader],
) -> None:
    reader = demo["Python-Docs"]
    with_str, with_join = wdf_by_path(reader, "str"), wdf_by_path(reader, "join")
    both = set(with_str) & set(with_join)
    assert both and set(with_str) - both  # some documents say "str" without "join"
    hits = fulltext_of(reader).search([("str", "join")], 40)
    assert {hit.path for hit in hits} == both
    for hit in hits:
        assert hit.frequencies == (min(with_str[hit.path], with_join[hit.path]),)


def test_multi_part_word_counts_zero_where_a_part_is_missing(
    demo: dict[str, ZimReader],
) -> None:
    reader = demo["Python-Docs"]
    hits = fulltext_of(reader).search([("str", "join"), ("json",)], 40)
    by_path = {hit.path: hit.frequencies for hit in hits}
    assert "library/json" in wdf_by_path(reader, "str")  # it says "str" ...
    assert "library/json" not in wdf_by_path(reader, "join")  # ... but never "join"
    assert by_path["library/json"][0] == 0 < by_path["library/json"][1]
    assert by_path["library/stdtypes"][0] > 0


def test_word_frequency_of_a_multi_part_word_is_its_rarest_parts(
    demo: dict[str, ZimReader],
) -> None:
    reader = demo["Python-Docs"]
    index = fulltext_of(reader)
    with_str, with_join = wdf_by_path(reader, "str"), wdf_by_path(reader, "join")
    frequency = index.word_frequency(("str", "join"))
    assert frequency == min(len(with_str), len(with_join))
    assert frequency >= len(set(with_str) & set(with_join))  # an upper bound


# -- the title index -----------------------------------------------------------------------


def test_title_search_gives_redirect_titles_with_their_targets_on_new_archives(
    demo: dict[str, ZimReader],
) -> None:
    index = title_of(demo["Wikipedia"])
    assert TitleHit(path="Regex", title="Regex", target="Regular_expression") in index.search(
        ["regex"], 10
    )
    found = index.search(["brother", "ray"], 10)
    assert TitleHit(path="Brother_Ray", title="Brother Ray", target="Ray_Charles") in found


def test_title_search_target_of_an_article_is_the_article_on_new_archives(
    demo: dict[str, ZimReader],
) -> None:
    reader = demo["Wikipedia"]
    articles = [
        hit
        for hit in title_of(reader).search(["python"], 20)
        if reader.resolve(hit.path).redirected_from is None
    ]
    assert articles
    assert all(hit.target == hit.path for hit in articles)


@pytest.mark.parametrize(("library", "word"), [("rc2020", "charles"), ("wp100", "darwin")])
def test_title_search_gives_no_targets_on_old_archives(
    real: dict[str, ZimReader], library: str, word: str
) -> None:
    reader = real[library]
    found = title_of(reader).search([word], 20)
    redirects = [hit for hit in found if reader.resolve(hit.path).redirected_from is not None]
    assert redirects  # redirect titles are in old title indexes too ...
    assert all(hit.target is None for hit in found)  # ... but not where they lead


def test_title_search_matches_a_stem_of_the_title(demo: dict[str, ZimReader]) -> None:
    found = {hit.path for hit in title_of(demo["Wikipedia"]).search(["inherited"], 20)}
    assert "Multiple_inheritance" in found


# -- the pool: one database per thread at a time ------------------------------------------


class Lockstep:
    """Runs the lines of one function in strict turns between threads: a thread runs
    one line, then waits until every other thread still in the function has run one.

    The waits have a deadline only so that a broken run cannot hang the suite."""

    def __init__(self, code: CodeType, parties: int) -> None:
        self.code = code
        self.turn = 0
        self.inside = set(range(parties))
        self.started: set[int] = set()
        self.changed = threading.Condition()

    def _hand_on(self, me: int) -> None:
        later = sorted(i for i in self.inside if i > me) or sorted(self.inside)
        self.turn = later[0] if later else me
        self.changed.notify_all()

    def tracer(self, me: int) -> Callable[[FrameType, str, Any], Any]:
        def local(frame: FrameType, event: str, arg: Any) -> Any:
            with self.changed:
                if me not in self.inside:
                    return local
                if event == "line":
                    if me in self.started:
                        self._hand_on(me)  # the previous line has run
                    self.started.add(me)
                    self.changed.wait_for(lambda: self.turn == me, timeout=30)
                elif event == "return":  # the function yielded or returned
                    self.inside.discard(me)
                    self._hand_on(me)
            return local

        def calls(frame: FrameType, event: str, arg: Any) -> Any:
            return local if frame.f_code is self.code else None

        return calls


@pytest.fixture
def pool(demo_archives: dict[str, Path]) -> DatabasePool:
    file = str(demo_archives["Wikipedia"])
    return DatabasePool(partial(open_database_at, file, fulltext_blob(file).offset))


def run_at_once(parties: int, work: Callable[[int], None]) -> list[BaseException]:
    """``work(i)`` in ``parties`` threads released together; what they raised."""
    start = threading.Barrier(parties, timeout=60)
    errors: list[BaseException] = []

    def run(me: int) -> None:
        try:
            start.wait()
            work(me)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(parties)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def borrow_at_once(pool: DatabasePool, parties: int, lockstep: Lockstep | None = None) -> list[int]:
    """Identities of the databases ``parties`` threads hold at the same time."""
    held = threading.Barrier(parties, timeout=60)
    got: list[int] = [0] * parties

    def hold(me: int, database: Any) -> None:
        sys.settrace(None)
        got[me] = id(database)
        held.wait()  # nobody gives a database back before all have one

    def borrower(me: int) -> None:
        if lockstep is not None:
            sys.settrace(lockstep.tracer(me))
        try:
            pool.run(partial(hold, me))
        finally:
            sys.settrace(None)

    assert run_at_once(parties, borrower) == []
    return got


def test_threads_interleaved_line_by_line_never_share_a_database(pool: DatabasePool) -> None:
    """Both threads take a database line by line in turns (this once handed the same
    database, the one opened first, to both)."""
    got = borrow_at_once(pool, 2, Lockstep(DatabasePool._take.__code__, 2))
    assert len(set(got)) == 2


def test_concurrent_borrowers_hold_distinct_databases_that_are_reused(
    pool: DatabasePool,
) -> None:
    first = borrow_at_once(pool, 6)
    assert len(set(first)) == 6
    again = borrow_at_once(pool, 6)
    assert set(again) == set(first)  # given back and lent again, none opened anew


def test_hits_are_read_before_the_database_goes_back_to_the_pool(
    demo_archives: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hit's document reads its data through the database: read after the database
    was given back, another thread may be using it (this raised DatabaseClosedError
    here, where each database is closed as it is given back)."""
    reader = ZimReader(demo_archives["Wikipedia"])
    fulltext, titles = fulltext_of(reader), title_of(reader)
    expected = (fulltext.search([("python",)], 10), titles.search(["python"], 10))
    for pool in (fulltext._pool, titles._pool):

        def closed_on_return(fn: Callable[[Any], Any], pool: DatabasePool = pool) -> Any:
            database = pool._open()
            try:
                return fn(database)
            finally:
                database.close()

        monkeypatch.setattr(pool, "run", closed_on_return)
    assert (fulltext.search([("python",)], 10), titles.search(["python"], 10)) == expected


def test_threads_searching_at_once_all_get_the_right_answers(
    demo: dict[str, ZimReader],
) -> None:
    """Hits are read from their documents before the database goes back to the pool
    (read after, another thread's search shared the database: wrong hits, and
    DatabaseCorruptError)."""
    index = fulltext_of(demo["Wikipedia"])
    titles = title_of(demo["Wikipedia"])
    queries: list[list[Word]] = [
        [("python",)],
        [("multiple",), ("inheritance",)],
        [("str", "join"), ("regex",)],
        [("photosynthesis",), ("insulin",), ("charles",)],
    ]
    expected = [(index.search(q, 20), titles.search([w[0] for w in q], 20)) for q in queries]
    wrong: list[tuple[int, int]] = []

    def searcher(me: int) -> None:
        for round_ in range(25):
            which = (me + round_) % len(queries)
            query = queries[which]
            found = (index.search(query, 20), titles.search([w[0] for w in query], 20))
            if found != expected[which]:
                wrong.append((me, round_))

    assert run_at_once(8, searcher) == []
    assert wrong == []


def test_threads_stemming_at_once_get_the_stems_one_thread_gets(
    demo: dict[str, ZimReader],
) -> None:
    """A Xapian Stem is not thread-safe (unguarded, this gave other threads' stems,
    "stemming exception!" and crashes)."""
    index = fulltext_of(demo["Wikipedia"])
    words = ["linearization", "inheritance", "photosynthesis", "programming", "charles"]
    expected = {word: index.stem(word) for word in words}
    wrong: list[tuple[str, str]] = []

    def stemmer(me: int) -> None:
        for round_ in range(10_000):
            word = words[(me + round_) % len(words)]
            if (stem := index.stem(word)) != expected[word]:
                wrong.append((word, stem))

    assert run_at_once(8, stemmer) == []
    assert wrong == []


# -- the borrow's rules (corpus_mcp.zim.xapian_pool) -----------------------------------


def xapian_objects(value: object) -> list[str]:
    """Names of the Xapian objects among ``value``'s items (``value`` a frame's locals: a
    dict, or on Python 3.13+ a write-through proxy of them, PEP 667)."""
    items = dict(value)  # type: ignore[call-overload]
    return [name for name, item in items.items() if type(item).__module__.startswith("xapian")]


def test_a_xapian_object_cannot_leave_its_borrow(pool: DatabasePool) -> None:
    for leaks in (
        lambda database: database.get_document(1),
        lambda database: [("hit", database.get_document(1))],
        lambda database: {"enquire": zim_index.xapian.Enquire(database)},
    ):
        with pytest.raises(TypeError, match="no Xapian object may leave its borrow"):
            pool.run(leaks)
    assert pool.run(lambda database: int(database.get_doccount())) > 0  # still lends
    assert pool.opened == 1


def test_plain_data_leaves_a_borrow(pool: DatabasePool) -> None:
    hit = TitleHit(path="Python", title="Python", target=None)
    plain = {"hits": [hit], "counts": (1, 2.5, True, None), "raw": b"x", "set": frozenset("ab")}
    assert pool.run(lambda database: plain) == plain


def test_an_exception_raised_in_a_borrow_holds_no_xapian_object(pool: DatabasePool) -> None:
    """Its traceback's frames would keep the Xapian objects of their locals alive past
    the borrow, to be destroyed by whoever drops the exception (another thread)."""

    def fails(database: Any) -> None:
        enquire = zim_index.xapian.Enquire(database)
        document = database.get_document(1)
        assert enquire and document
        raise ValueError("inside the borrow")

    with pytest.raises(ValueError, match="inside the borrow") as raised:
        pool.run(fails)
    tb = raised.value.__traceback__
    frames = 0
    while tb is not None:
        assert xapian_objects(tb.tb_frame.f_locals) == [], tb.tb_frame.f_code.co_name
        frames += 1
        tb = tb.tb_next
    assert frames >= 3  # run, the call in the borrow, fails


def test_a_bounded_pool_makes_threads_wait_for_its_databases(pool: DatabasePool) -> None:
    """With ``size`` databases lent, the next thread waits for one to come back."""
    bounded = DatabasePool(pool._open, size=1)
    held: list[int] = []

    def borrower(me: int) -> None:
        for _ in range(20):
            bounded.run(lambda database: held.append(id(database)))

    assert run_at_once(6, borrower) == []
    assert bounded.opened == 1 and len(set(held)) == 1 and len(held) == 120
