"""The search fan-out under trio, with test doubles behind the ZIM service's interface.

A library whose reader raises, and one whose reader blocks past SEARCH_TIMEOUT, must each
be left out with ``partial: true`` while the healthy library still answers; the slow
archive's lock must stay held while its abandoned thread is inside "libzim", and every
lock and limiter token must be free once the threads finish.

Time is trio's ``MockClock`` (frozen unless a test jumps it) and the doubles report from
their threads when they are entered, so each test decides the order of events: a deadline
passes only when the test moves the clock, after the healthy library has answered.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest
import trio
import trio.testing

from corpus_mcp.adapters.base import AdapterDefaults, Landing
from corpus_mcp.config import load_settings
from corpus_mcp.corpus import Corpus
from corpus_mcp.document import Document, Section
from corpus_mcp.errors import CorpusError
from corpus_mcp.library import Library
from corpus_mcp.parsing import ParsePool
from corpus_mcp.searching import STALL_SHARE
from corpus_mcp.wire import SearchOutput
from corpus_mcp.zim import (
    ArchiveInfo,
    ArchiveService,
    EntryNotFound,
    ResolvedEntry,
    SearchPage,
    Suggestion,
    ZimError,
    ZimReader,
)

TITLES = {
    "Trio_(software)": "Trio (software)",
    "Structured_concurrency": "Structured concurrency",
    "Python": "Python",
}


def _info(name: str) -> ArchiveInfo:
    return ArchiveInfo(
        file=f"/corpus/{name}.zim",
        size=1,
        uuid=f"uuid-{name}",
        title=name,
        name=name,
        snapshot="2026-05",
        language="eng",
        entry_count=3,
        article_count=3,
        scraper=None,
        tags=(),
        flavour=None,
        family="mwoffliner",
        family_evidence="Scraper 'mwoffliner 1.17.5'",
        has_fulltext_index=True,
        has_title_index=True,
        new_namespace_scheme=True,
        main_path=None,
    )


class UnchangingFile:
    """A fake archive's file: it never changes, so every identity check passes."""

    def problem(self) -> None:
        return None

    def changed(self) -> None:
        return None


class FakeReader:
    """Answers like ZimReader over three tiny articles; ``mode`` makes it fail or block.

    ``entered`` is set (in trio) when a full-text search starts; a "slow" reader then
    blocks its worker thread until ``release`` is set.
    """

    def __init__(self, name: str, mode: str = "ok") -> None:
        self.info = _info(name)
        self.mode = mode
        self.entered = trio.Event()
        self.release = threading.Event()
        self.inside = 0
        self.max_inside = 0
        self.calls = 0
        self.left = threading.Event()
        """Set whenever no call is inside (a thread that was stuck has come back)."""
        self.left.set()
        self._guard = threading.Lock()

    def _enter(self) -> None:
        with self._guard:
            self.calls += 1
            self.inside += 1
            self.max_inside = max(self.max_inside, self.inside)
            self.left.clear()
        trio.from_thread.run_sync(self.entered.set)
        try:
            if self.mode == "raise":
                raise ZimError("simulated corrupt cluster")
            if self.mode == "slow":
                self.release.wait()
        finally:
            with self._guard:
                self.inside -= 1
                if not self.inside:
                    self.left.set()

    handle = UnchangingFile()
    # No index read directly: the search goes through libzim's calls below.
    fulltext_index = None
    title_index = None

    def document_frequency(self, word: str) -> int:
        return sum(word.lower() in title.lower() for title in TITLES.values())

    def fulltext(self, query: str, limit: int, offset: int = 0) -> SearchPage:
        self._enter()
        paths = [p for p in TITLES if any(w in TITLES[p].lower() for w in query.lower().split())]
        return SearchPage(paths=paths[:limit], estimated_total=len(paths))

    def suggest(self, query: str, limit: int) -> list[Suggestion]:
        return [Suggestion(p, t) for p, t in TITLES.items() if t.lower().startswith(query.lower())]

    def resolve(self, path: str) -> ResolvedEntry:
        if path not in TITLES:
            raise EntryNotFound(f"no entry at {path!r}")
        return ResolvedEntry(path=path, title=TITLES[path], mimetype="text/html", size=5000)

    def content(self, path: str) -> bytes:
        return f"<p>{TITLES[path]} text</p>".encode()

    def read(self, path: str) -> tuple[ResolvedEntry, bytes]:
        if self.mode == "unreadable":
            raise ZimError("simulated unreadable cluster")
        if self.mode == "slow-read":
            trio.from_thread.run_sync(self.entered.set)
            self.release.wait()
        return self.resolve(path), self.content(path)


class FakeAdapter(AdapterDefaults):
    name = "mediawiki"
    main_page_is_navigation = True

    def is_content(self, path: str, mimetype: str) -> bool:
        return mimetype == "text/html"

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        return None

    def section_for_path(self, requested_path: str) -> str | None:
        return None

    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        lead = Section(id="", title="", level=1, content=f"{title} is about concurrency in Python.")
        return Document(path=path, title=title, kind="article", sections=[lead])


TIMEOUT = 5.0
"""SEARCH_TIMEOUT in the tests' mock time: it passes only when a test jumps the clock."""
STALL = TIMEOUT * STALL_SHARE
"""How often a search looks at its walk: a library in the same call at two looks in a
row has stalled."""


async def _stall(clock: trio.testing.MockClock) -> None:
    """Move the clock through two looks at the walk: a blocked library is given up."""
    for _ in range(2):
        await trio.testing.wait_all_tasks_blocked()
        clock.jump(STALL)


class Fixture:
    """A corpus over fake readers, with the services and the global pool it shares."""

    def __init__(self, *readers: FakeReader, workers: int = 4, log_queries: bool = True) -> None:
        settings = load_settings(
            {
                "SEARCH_TIMEOUT": str(TIMEOUT),
                "SEARCH_WORKERS": str(workers),
                "LOG_QUERIES": str(log_queries).lower(),
            }
        )
        self.readers = readers
        self.shared = trio.CapacityLimiter(settings.search_workers)
        self.services = [
            ArchiveService(cast(ZimReader, r), self.shared, library=r.info.name) for r in readers
        ]
        libraries = [
            Library(r.info.name, cast(Any, FakeAdapter()), s)
            for r, s in zip(readers, self.services, strict=True)
        ]
        self.corpus = Corpus(settings, libraries, ParsePool.in_threads())

    async def idle(self, service: ArchiveService) -> None:
        """Return once no worker thread is inside ``service``'s archive.

        The archive's lock is released in trio when a thread's result is delivered, so
        taking it waits for every call made so far; the calling task then runs on until
        it blocks again.
        """
        async with service.lock:
            pass
        await trio.testing.wait_all_tasks_blocked()

    async def all_idle(self) -> None:
        for service in self.services:
            await self.idle(service)

    async def threads_done(self) -> None:
        """Return once every abandoned call has come back and its library is no longer
        stuck (waits in a thread: the test's clock is frozen)."""
        for reader in self.readers:
            await trio.to_thread.run_sync(reader.left.wait)
        for _ in range(1000):
            if not self.corpus.stuck_libraries:
                return
            await trio.to_thread.run_sync(threading.Event().wait, 0.01)
        raise AssertionError(f"still stuck: {self.corpus.stuck_libraries}")


def _in_background(
    nursery: trio.Nursery, search: Callable[[], Awaitable[SearchOutput]]
) -> list[SearchOutput]:
    """Start ``search`` in ``nursery``; its output lands in the returned list."""
    out: list[SearchOutput] = []

    async def run() -> None:
        out.append(await search())

    nursery.start_soon(run)
    return out


async def test_healthy_libraries_answer_alone_without_partial(
    mock_clock: trio.testing.MockClock,
) -> None:
    corpus = Fixture(FakeReader("alpha"), FakeReader("beta")).corpus
    out = await corpus.search("trio", 5)
    assert out.partial is False
    assert {r.library for r in out.results} == {"alpha", "beta"}
    assert all(r.ref.startswith("corpus://") for r in out.results)


# "raise": its index search raises; "unreadable": its index answers, its documents do
# not (its hits are dropped). Either way the others stay.
@pytest.mark.parametrize("mode", ["raise", "unreadable"])
async def test_a_failing_library_is_left_out_and_marked_partial(
    mock_clock: trio.testing.MockClock, mode: str
) -> None:
    corpus = Fixture(FakeReader("good"), FakeReader("failing", mode=mode)).corpus
    out = await corpus.search("trio", 5)
    assert out.partial is True
    assert out.unavailable_libraries == ["failing"]
    assert {r.library for r in out.results} == {"good"}


async def test_a_result_not_read_by_the_deadline_leaves_the_search_partial(
    mock_clock: trio.testing.MockClock,
) -> None:
    # The index answers, reading the document hangs: the search answers at its deadline
    # without it.
    slow = FakeReader("slow", mode="slow-read")
    fixture = Fixture(slow)
    try:
        async with trio.open_nursery() as nursery:
            started = trio.current_time()
            done = _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            await trio.testing.wait_all_tasks_blocked()
            mock_clock.jump(TIMEOUT)
        [out] = done
        assert (out.partial, out.unavailable_libraries, out.results) == (True, ["slow"], [])
        assert trio.current_time() - started == TIMEOUT
    finally:
        slow.release.set()


async def test_a_document_fetched_first_is_indexed_for_search_when_needed(
    mock_clock: trio.testing.MockClock,
) -> None:
    corpus = Fixture(FakeReader("alpha")).corpus
    fetched = await corpus.fetch("corpus://alpha/Python", None)
    out = await corpus.search("python", 5)
    assert out.results[0].ref == fetched.ref
    assert out.results[0].snippet  # built from the index made from the cached document


async def test_failures_are_logged_without_details_when_queries_are_not(
    mock_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    fixture = Fixture(FakeReader("good"), FakeReader("broken", mode="raise"), log_queries=False)
    await fixture.corpus.search("trio", 5)
    [line] = [r.getMessage() for r in caplog.records if "broken" in r.getMessage()]
    assert "details withheld" in line
    assert "corrupt cluster" not in line


async def test_a_repeated_question_is_answered_from_memory(
    mock_clock: trio.testing.MockClock,
) -> None:
    good = FakeReader("good")
    corpus = Fixture(good).corpus
    first = await corpus.search("trio", 5)
    assert len(corpus.answers_cache) == 1
    corpus.hits_cache.clear()  # even without the hits, the whole answer is remembered
    assert await corpus.search("trio", 5) == first
    assert good.calls == 1


async def test_a_repeated_fetch_is_answered_from_memory(
    mock_clock: trio.testing.MockClock,
) -> None:
    class CountingReader(FakeReader):
        reads = 0

        def read(self, path: str) -> tuple[ResolvedEntry, bytes]:
            self.reads += 1
            return super().read(path)

    alpha = CountingReader("alpha")
    corpus = Fixture(alpha).corpus
    whole = await corpus.fetch("corpus://alpha/Python", None)
    reads = alpha.reads
    assert reads == 1
    assert len(corpus.fetches_cache) == 1
    corpus.cache.clear()  # even without the document, the whole answer is remembered
    assert await corpus.fetch("corpus://alpha/Python", None) == whole
    assert await corpus.fetch("corpus://alpha/Python", []) == whole  # no sections: whole
    assert alpha.reads == reads
    # Another choice of sections is another answer, assembled from the document.
    first = whole.sections[0].id
    part = await corpus.fetch("corpus://alpha/Python", [first])
    assert part.sections[0].id == first
    assert len(corpus.fetches_cache) == 2


async def test_a_stalled_library_is_left_out_and_the_others_answer(
    mock_clock: trio.testing.MockClock,
) -> None:
    slow, fast = FakeReader("slow", mode="slow"), FakeReader("fast")
    fixture = Fixture(slow, fast)  # the slow one is walked first
    try:
        async with trio.open_nursery() as nursery:
            started = trio.current_time()
            done = _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            await trio.testing.wait_all_tasks_blocked()
            assert done == []  # the walk waits on the slow library...
            await _stall(mock_clock)  # ...until it has stalled; a fresh walker goes on
        [out] = done
        assert out.partial is True
        assert out.unavailable_libraries == ["slow"]
        assert {r.library for r in out.results} == {"fast"}
        # Bounded by two looks, not by the thread: it is still blocked inside.
        assert trio.current_time() - started == 2 * STALL
        assert slow.inside == 1
    finally:
        slow.release.set()


async def test_a_stuck_library_gets_no_second_thread_until_its_call_returns(
    mock_clock: trio.testing.MockClock,
) -> None:
    slow = FakeReader("slow", mode="slow")
    fixture = Fixture(FakeReader("fast"), slow)
    try:
        async with trio.open_nursery() as nursery:
            _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            await _stall(mock_clock)
        # While the abandoned thread is inside, later searches leave the library out at
        # once: no waiting, no second thread into it.
        again = await fixture.corpus.search("trio structured", 5)
        assert again.unavailable_libraries == ["slow"]
        assert slow.calls == 1
    finally:
        slow.release.set()
    await fixture.threads_done()
    assert (slow.calls, slow.max_inside) == (1, 1)
    slow.mode = "ok"
    recovered = await fixture.corpus.search("trio python", 5)
    assert recovered.partial is False  # back once its call returned


async def test_a_search_ends_at_its_deadline_with_what_is_ready(
    mock_clock: trio.testing.MockClock,
) -> None:
    # One walker thread (SEARCH_WORKERS=1), kept by the stalled library: the rest of
    # the walk waits for it, and the search answers at its deadline, partial.
    slow = FakeReader("slow", mode="slow")
    fixture = Fixture(slow, FakeReader("fast"), workers=1)
    try:
        async with trio.open_nursery() as nursery:
            started = trio.current_time()
            done = _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            await _stall(mock_clock)
            await trio.testing.wait_all_tasks_blocked()
            assert done == []  # the fast library waits for a free walker...
            mock_clock.jump(TIMEOUT - 2 * STALL)  # ...that never comes before the deadline
        [out] = done
        assert out.unavailable_libraries == ["fast", "slow"]
        assert trio.current_time() - started == TIMEOUT
    finally:
        slow.release.set()


async def test_cancelling_a_search_leaves_no_lock_or_token_held(
    mock_clock: trio.testing.MockClock,
) -> None:
    slow = FakeReader("slow", mode="slow")
    fixture = Fixture(FakeReader("fast"), slow)
    with trio.CancelScope() as caller:
        async with trio.open_nursery() as nursery:
            _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            caller.cancel()
    slow.release.set()
    await fixture.threads_done()
    assert fixture.corpus.searcher.walkers.borrowed_tokens == 0
    assert fixture.shared.borrowed_tokens == 0
    assert [s.lock.borrowed_tokens for s in fixture.services] == [0, 0]
    out = await fixture.corpus.search("trio", 5)  # everything usable again
    assert out.partial is False


async def test_fetch_of_unknown_entry_is_not_found_naming_library_and_path(
    mock_clock: trio.testing.MockClock,
) -> None:
    corpus = Fixture(FakeReader("alpha")).corpus
    with pytest.raises(CorpusError) as info:
        await corpus.fetch("corpus://alpha/Nope", None)
    assert info.value.code == "not_found"
    assert info.value.details == {"library": "alpha", "path": "Nope"}


async def test_a_repeated_query_is_answered_from_remembered_hits(
    mock_clock: trio.testing.MockClock,
) -> None:
    good = FakeReader("good")
    corpus = Fixture(good).corpus
    first = await corpus.search("trio", 5)
    calls = good.calls
    again = await corpus.search("trio", 5)
    assert [r.ref for r in again.results] == [r.ref for r in first.results]
    assert good.calls == calls  # no index search the second time


async def test_a_failure_is_never_remembered(mock_clock: trio.testing.MockClock) -> None:
    broken = FakeReader("broken", mode="raise")
    corpus = Fixture(FakeReader("good"), broken).corpus
    await corpus.search("trio", 5)
    calls = broken.calls
    again = await corpus.search("trio", 5)
    assert broken.calls > calls  # tried again
    assert again.partial is True


async def test_another_limit_is_another_question(mock_clock: trio.testing.MockClock) -> None:
    good = FakeReader("good")
    corpus = Fixture(good).corpus
    await corpus.search("trio", 5)
    calls = good.calls
    await corpus.search("trio", 3)
    assert good.calls > calls
