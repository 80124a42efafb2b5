"""The search fan-out under trio, with test doubles behind the ZIM service's interface.

A library whose reader raises, and one whose reader blocks far past SEARCH_TIMEOUT, must
each be left out with ``partial: true`` while the healthy library still answers; the
slow archive's lock must stay held while its abandoned thread is inside "libzim", and
every lock and limiter token must be free once the threads finish.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import pytest
import trio

from corpus_mcp.adapters.base import Landing
from corpus_mcp.config import load_settings
from corpus_mcp.corpus import Corpus, Library
from corpus_mcp.document import Document, Section
from corpus_mcp.errors import CorpusError
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
        family="mediawiki",
        has_fulltext_index=True,
        has_title_index=True,
        new_namespace_scheme=True,
        main_path=None,
    )


class FakeReader:
    """Answers like ZimReader over three tiny articles; ``mode`` makes it fail or block."""

    def __init__(self, name: str, mode: str = "ok") -> None:
        self.info = _info(name)
        self.mode = mode
        self.release = threading.Event()
        self.inside = 0
        self.max_inside = 0
        self.calls = 0
        self._guard = threading.Lock()

    def _enter(self) -> None:
        with self._guard:
            self.calls += 1
            self.inside += 1
            self.max_inside = max(self.max_inside, self.inside)
        try:
            if self.mode == "raise":
                raise ZimError("simulated corrupt cluster")
            if self.mode == "slow":
                self.release.wait(30)
        finally:
            with self._guard:
                self.inside -= 1

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
        return self.resolve(path), self.content(path)


class FakeAdapter:
    name = "mediawiki"
    main_page_is_navigation = True

    def is_content(self, path: str, mimetype: str) -> bool:
        return mimetype == "text/html"

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        return None

    def section_for_path(self, requested_path: str) -> str | None:
        return None

    def parse(self, path: str, title: str, html: bytes) -> Document:
        lead = Section(id="", title="", level=1, content=f"{title} is about concurrency in Python.")
        return Document(path=path, title=title, kind="article", sections=[lead])


def _corpus(*readers: FakeReader, timeout: str = "0.3") -> tuple[Corpus, list[ArchiveService]]:
    settings = load_settings({"SEARCH_TIMEOUT": timeout, "SEARCH_WORKERS": "4"})
    shared = trio.CapacityLimiter(settings.search_workers)
    services = [ArchiveService(cast(ZimReader, r), shared) for r in readers]
    libraries = [
        Library(r.info.name, cast(Any, FakeAdapter()), s)
        for r, s in zip(readers, services, strict=True)
    ]
    return Corpus(settings, libraries), services


async def test_healthy_libraries_answer_alone_without_partial() -> None:
    corpus, _ = _corpus(FakeReader("alpha"), FakeReader("beta"))
    out = await corpus.search("trio", 5)
    assert out.partial is False
    assert {r.library for r in out.results} == {"alpha", "beta"}
    assert all(r.ref.startswith("corpus://") for r in out.results)


async def test_a_raising_library_is_left_out_and_marked_partial() -> None:
    corpus, _ = _corpus(FakeReader("good"), FakeReader("broken", mode="raise"))
    out = await corpus.search("trio", 5)
    assert out.partial is True
    assert out.unavailable_libraries == ["broken"]
    assert out.results
    assert {r.library for r in out.results} == {"good"}


async def test_a_slow_library_times_out_and_keeps_its_lock_until_the_thread_ends() -> None:
    slow = FakeReader("slow", mode="slow")
    corpus, services = _corpus(FakeReader("fast"), slow, timeout="0.2")
    try:
        start = trio.current_time()
        out = await corpus.search("trio", 5)
        elapsed = trio.current_time() - start
        assert out.partial is True
        assert out.unavailable_libraries == ["slow"]
        assert {r.library for r in out.results} == {"fast"}
        assert elapsed < 10  # bounded by SEARCH_TIMEOUT, not by the blocked thread (30 s)
        # The abandoned worker is still inside the slow archive: its lock stays held,
        # so a second search cannot put another thread into that archive.
        assert services[1].lock.borrowed_tokens == 1
        again = await corpus.search("trio", 5)
        assert again.unavailable_libraries == ["slow"]
        assert slow.max_inside == 1
    finally:
        slow.release.set()
    with trio.fail_after(10):
        while services[1].lock.borrowed_tokens or services[0]._limiter.shared.borrowed_tokens:
            await trio.sleep(0.01)
    # The waiting second search never entered: only one thread ever ran in the archive.
    assert slow.calls == 1


async def test_cancelling_a_search_leaves_no_lock_or_token_held() -> None:
    slow = FakeReader("slow", mode="slow")
    corpus, services = _corpus(FakeReader("fast"), slow, timeout="5")
    with trio.move_on_after(0.1) as scope:
        await corpus.search("trio", 5)
    assert scope.cancelled_caught
    slow.release.set()
    with trio.fail_after(10):
        while (
            any(s.lock.borrowed_tokens for s in services)
            or services[0]._limiter.shared.borrowed_tokens
        ):
            await trio.sleep(0.01)
    out = await corpus.search("trio", 5)  # everything usable again
    assert out.partial is False


async def test_fetch_of_unknown_entry_is_not_found_naming_library_and_path() -> None:
    corpus, _ = _corpus(FakeReader("alpha"))
    with pytest.raises(CorpusError) as info:
        await corpus.fetch("corpus://alpha/Nope", None)
    assert info.value.code == "not_found"
    assert info.value.details == {"library": "alpha", "path": "Nope"}


async def test_search_is_deterministic() -> None:
    corpus, _ = _corpus(FakeReader("alpha"), FakeReader("beta"), FakeReader("gamma"))
    first = await corpus.search("structured concurrency trio python", 10)
    for _ in range(3):
        again = await corpus.search("structured concurrency trio python", 10)
        assert [r.ref for r in again.results] == [r.ref for r in first.results]


async def test_a_repeated_query_is_answered_from_remembered_hits_but_failures_are_not() -> None:
    good, broken = FakeReader("good"), FakeReader("broken", mode="raise")
    corpus, _ = _corpus(good, broken)
    first = await corpus.search("trio", 5)
    calls = (good.calls, broken.calls)
    again = await corpus.search("trio", 5)
    assert [r.ref for r in again.results] == [r.ref for r in first.results]
    assert good.calls == calls[0]  # no index search the second time
    assert broken.calls > calls[1]  # a failure is tried again, never remembered
    assert again.partial is True
    await corpus.search("trio", 3)  # another limit is another question
    assert good.calls > calls[0]
