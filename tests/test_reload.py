"""Corpus updates without downtime: SIGHUP re-reads corpus.toml and CORPUS_ROOT.

In-process, :class:`corpus_mcp.live.LiveCorpus` over copies of the demo archives shows
each promise on its own: a call in flight finishes on its generation, unchanged archives
stay open while changed ones are reopened, nothing changed is no swap, a manifest or
archive that fails leaves the old corpus serving, and a reload after a new file was
renamed over a served one keeps one reader per file (whether the periodic check had
swapped it in or not). Then real processes: ``corpus-mcp serve`` under a bounded MCP
load while archives are added, replaced and removed (no failed call, the descriptors of
the start back at the end), a rename then SIGHUP under load, and ``corpus-mcp stdio``.
"""

from __future__ import annotations

import gc
import itertools
import os
import re
import shutil
import signal
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from mcp import Client

from corpus_mcp import corpus as corpus_module
from corpus_mcp import metrics
from corpus_mcp.config import load_manifest
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.errors import CorpusError
from corpus_mcp.live import LiveCorpus, identify, open_live_corpus
from corpus_mcp.parsing import ParsePool
from corpus_mcp.zim import ZimReader

from .conftest import NEXT_MONTH_ONLY, settings_for
from .mcp_helpers import error_payload
from .server_process import STARTUP_GUARD_SECONDS, ServerProcess, running_server
from .test_server_stdio import INITIALIZE, INITIALIZED, call, started

ADAPTERS = {name: adapter for name, _, adapter in DEMO_LIBRARIES}
GUARD_SECONDS = STARTUP_GUARD_SECONDS
"""Only a hang guard: what never happens fails the test instead of blocking it."""


# -- a corpus folder the tests change -------------------------------------------------


def place(root: Path, library: str, source: Path) -> Path:
    """A fresh copy of ``source`` at ``root/<library>.zim``, replacing any file there the
    way an operator's ``cp new.zim tmp && mv tmp name.zim`` does (a new inode)."""
    target = root / f"{library}.zim"
    partial = root / f".{library}.zim.partial"
    shutil.copyfile(source, partial)
    os.replace(partial, target)
    return target


def write_manifest(root: Path, libraries: dict[str, str]) -> Path:
    """corpus.toml for ``library -> adapter``, each at ``<library>.zim``, written atomically."""
    lines = ["version = 1"]
    for name, adapter in libraries.items():
        lines += [
            "[[library]]",
            f'name = "{name}"',
            f'path = "{name}.zim"',
            f'adapter = "{adapter}"',
        ]
    manifest = root / "corpus.toml"
    partial = root / ".corpus.toml.partial"
    partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(partial, manifest)
    return manifest


def corpus_folder(root: Path, archives: dict[str, Path], names: list[str]) -> Path:
    for name in names:
        place(root, name, archives[name])
    return write_manifest(root, {name: ADAPTERS[name] for name in names})


def open_files(pid: int | str = "self") -> list[str]:
    """What every descriptor of a process points at (sockets and pipes by kind only)."""
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed while listing (the listing's own descriptor, too)
            continue
        targets.append(target.split(":[")[0] if ":[" in target else target)
    return targets


def archive_files(root: Path, pid: int | str = "self") -> Counter[str]:
    """Descriptors on files in ``root``, by file name (``(deleted)`` when unlinked)."""
    prefix = f"{root}/"
    return Counter(t.removeprefix(prefix) for t in open_files(pid) if t.startswith(prefix))


def broken_checksum(source: Path, target: Path) -> None:
    """A copy of an archive that opens but fails libzim's check (its MD5 altered)."""
    shutil.copyfile(source, target)
    with target.open("r+b") as file:
        file.seek(-1, os.SEEK_END)
        last = file.read(1)
        file.seek(-1, os.SEEK_END)
        file.write(bytes([last[0] ^ 0xFF]))


def reloads(outcome: str) -> float:
    return metrics.REGISTRY.get_sample_value("corpus_mcp_reloads_total", {"outcome": outcome}) or 0


@contextmanager
def counting_reloads() -> Iterator[Callable[[], dict[str, float]]]:
    """The reload outcomes counted while inside (the registry is the process's)."""
    before = {outcome: reloads(outcome) for outcome in metrics.RELOAD_OUTCOMES}

    def counted() -> dict[str, float]:
        changes = {outcome: reloads(outcome) - before[outcome] for outcome in before}
        return {outcome: count for outcome, count in changes.items() if count}

    yield counted


async def a_result(live: LiveCorpus, query: str, library: str) -> str:
    output = await live.search(query, 10)
    refs = [r.ref for r in output.results if r.library == library]
    assert refs, output
    return refs[0]


# -- the live corpus in-process ---------------------------------------------------------


@asynccontextmanager
async def live_corpus(
    root: Path, archives: dict[str, Path], names: list[str], **env: str
) -> AsyncIterator[LiveCorpus]:
    """A live corpus over copies of ``names`` in ``root`` (its manifest there too)."""
    manifest = corpus_folder(root, archives, names)
    settings = settings_for(manifest, **env)
    async with open_live_corpus(settings, load_manifest(manifest, root)) as live:
        yield live


async def test_a_call_in_flight_finishes_on_the_generation_it_began_on(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia", "MDWiki"]) as live:
        ref = await a_result(live, "diabetes insulin", "MDWiki")
        wikipedia = live.current.corpus.library("Wikipedia").service.reader
        with live.current.call() as in_flight:
            write_manifest(tmp_path, {"Wikipedia": "mediawiki"})
            (tmp_path / "MDWiki.zim").unlink()
            with counting_reloads() as counted:
                done = await live.reload()
            assert (done.outcome, done.generation, counted()) == ("swapped", 2, {"swapped": 1})
            assert live.libraries == ("Wikipedia",)
            assert [g.number for g in live.generations] == [1, 2]
            assert live.figures().draining == 1
            # The call in flight still reads the library the manifest no longer has...
            assert (await in_flight.fetch(ref, None)).library == "MDWiki"
            assert archive_files(tmp_path)["MDWiki.zim (deleted)"] > 0
            # ...while a new call is already on the new generation.
            with pytest.raises(CorpusError) as refused:
                await live.fetch(ref, None)
            assert refused.value.code == "invalid_ref"
        del in_flight
        await trio.testing.wait_all_tasks_blocked()  # the old generation closes
        assert [g.number for g in live.generations] == [2]
        assert live.figures().draining == 0
        assert set(archive_files(tmp_path)) == {"Wikipedia.zim"}
        assert live.current.corpus.library("Wikipedia").service.reader is wikipedia


async def test_changed_archives_are_reopened_and_unchanged_ones_kept(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia", "Python-Docs"]) as live:
        kept = live.current.corpus.library("Python-Docs").service.reader
        replaced = live.current.corpus.library("Wikipedia").service.reader.info.uuid
        assert live.figures().open_archives == 2
        # Next month's archive under the same name: here MDWiki's, in Wikipedia's place.
        place(tmp_path, "Wikipedia", demo_archives["MDWiki"])
        assert (await live.reload()).outcome == "swapped"
        await trio.testing.wait_all_tasks_blocked()
        assert live.current.corpus.library("Python-Docs").service.reader is kept
        wikipedia = live.current.corpus.library("Wikipedia").service.reader.info
        assert wikipedia.uuid != replaced
        assert "MDWiki" in wikipedia.title
        assert await a_result(live, "diabetes insulin", "Wikipedia")
        # The replaced file's descriptors closed with the generation that had it.
        assert "Wikipedia.zim (deleted)" not in archive_files(tmp_path)
        figures = live.figures()
        assert (figures.generation, figures.open_archives, figures.draining) == (2, 2, 0)


async def test_nothing_changed_is_no_swap(demo_archives: dict[str, Path], tmp_path: Path) -> None:
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia"]) as live:
        first = live.current
        write_manifest(tmp_path, {"Wikipedia": "mediawiki"})  # rewritten, same content
        with counting_reloads() as counted:
            done = await live.reload()
        assert (done.outcome, done.generation, counted()) == ("unchanged", 1, {"unchanged": 1})
        assert live.current is first
        # A changed adapter is a change even for the same file: it is read differently.
        write_manifest(tmp_path, {"Wikipedia": "devdocs"})
        assert (await live.reload()).outcome == "swapped"


async def test_the_cache_counters_never_go_back_across_generations(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia", "MDWiki"]) as live:
        await live.search("diabetes insulin", 3)
        await live.search("diabetes insulin", 3)  # remembered
        answers = live.figures().caches["answers"]
        assert (answers.hits, answers.misses) == (1, 1)
        write_manifest(tmp_path, {"Wikipedia": "mediawiki"})
        await live.reload()
        await trio.testing.wait_all_tasks_blocked()
        await live.search("diabetes insulin", 3)  # a new generation remembers afresh
        answers = live.figures().caches["answers"]
        assert (answers.hits, answers.misses, answers.entries) == (1, 2, 1)


FAILING_CHANGES = {
    "syntax": ("invalid_manifest", "TOML syntax error"),
    "missing": ("invalid_manifest", "does not exist"),
    "not-a-zim": ("archive_failed", "library 'junk'"),
    "checksum": ("archive_failed", "library 'MDWiki': integrity check failed"),
}


@pytest.mark.parametrize("change", FAILING_CHANGES)
async def test_a_manifest_or_archive_that_fails_leaves_the_old_corpus_serving(
    demo_archives: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture, change: str
) -> None:
    outcome, reason = FAILING_CHANGES[change]
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia"], ZIM_CHECK="true") as live:
        first = live.current
        if change == "syntax":
            (tmp_path / "corpus.toml").write_text("version = 1\n[[library]\n")
        elif change == "missing":
            write_manifest(tmp_path, {"Wikipedia": "mediawiki", "MDWiki": "mediawiki"})
        elif change == "not-a-zim":
            (tmp_path / "junk.zim").write_bytes(b"no ZIM archive" * 64)
            write_manifest(tmp_path, {"Wikipedia": "mediawiki", "junk": "mediawiki"})
        else:  # opens, then fails ZIM_CHECK: it was open, and must be closed again
            broken_checksum(demo_archives["MDWiki"], tmp_path / "MDWiki.zim")
            write_manifest(tmp_path, {"Wikipedia": "mediawiki", "MDWiki": "mediawiki"})
        with counting_reloads() as counted:
            done = await live.reload()
        assert (done.outcome, done.generation, counted()) == (outcome, 1, {outcome: 1})
        assert reason in done.reason
        assert live.current is first
        assert live.generations == (first,)
        assert await a_result(live, "Ray Charles", "Wikipedia")
        assert set(archive_files(tmp_path)) == {"Wikipedia.zim"}
    [logged] = [
        r.getMessage() for r in caplog.records if r.getMessage().startswith("reload failed")
    ]
    assert f"reload failed ({outcome}): " in logged
    assert "generation 1 goes on serving Wikipedia" in logged


# -- a new file renamed over a served one, and a reload ---------------------------------

NEVER = "3600"
"""ARCHIVE_RECHECK_SECONDS where a test runs the periodic check by hand."""


def readers_of(path: Path) -> int:
    """How many readers are alive on the file now at ``path`` (after a collection).

    Frozen objects are not in ``gc.get_objects()``, and ``corpus_mcp.live`` freezes the
    generation it swaps in once anything froze before (``serve.py`` does, and servers run
    in-process by earlier tests leave that behind): so everything is unfrozen first.
    """
    gc.unfreeze()
    gc.collect()
    found = path.stat()
    return sum(
        isinstance(o, ZimReader)
        and (o.handle.identity.device, o.handle.identity.inode) == (found.st_dev, found.st_ino)
        for o in gc.get_objects()
    )


async def test_a_reload_keeps_the_new_file_the_periodic_check_swapped_in(
    demo_archives: dict[str, Path], next_month_wikipedia: Path, tmp_path: Path
) -> None:
    async with live_corpus(
        tmp_path, demo_archives, ["Wikipedia", "Python-Docs"], ARCHIVE_RECHECK_SECONDS=NEVER
    ) as live:
        corpus = live.current.corpus
        place(tmp_path, "Wikipedia", next_month_wikipedia)  # renamed over the served file
        assert [await corpus.recheck("Wikipedia") for _ in range(2)] == [False, True]
        swapped = corpus.library("Wikipedia").service.held
        assert (await live.fetch(f"corpus://Wikipedia/{NEXT_MONTH_ONLY}", None)).library
        assert (await live.reload()).outcome == "unchanged"  # it serves the file there
        # A change elsewhere makes a new generation, which keeps that reader as it is.
        place(tmp_path, "MDWiki", demo_archives["MDWiki"])
        write_manifest(
            tmp_path, {"Wikipedia": "mediawiki", "Python-Docs": "devdocs", "MDWiki": "mediawiki"}
        )
        assert (await live.reload()).outcome == "swapped"
        assert live.current.corpus.library("Wikipedia").service.held is swapped
        del corpus, swapped
        await trio.testing.wait_all_tasks_blocked()  # the first generation closes
        assert readers_of(tmp_path / "Wikipedia.zim") == 1
        assert "Wikipedia.zim (deleted)" not in archive_files(tmp_path)


async def test_a_reload_right_after_a_rename_opens_the_new_file_once(
    demo_archives: dict[str, Path], next_month_wikipedia: Path, tmp_path: Path
) -> None:
    async with live_corpus(
        tmp_path, demo_archives, ["Wikipedia"], ARCHIVE_RECHECK_SECONDS=NEVER
    ) as live:
        first = live.current.corpus
        old = first.library("Wikipedia").service.held
        place(tmp_path, "Wikipedia", next_month_wikipedia)
        assert not await first.recheck("Wikipedia")  # seen once: not served yet
        with live.current.call() as in_flight:
            assert (await live.reload()).outcome == "swapped"
            # The retired generation's library is left to its calls in flight: it swaps
            # nothing in (one reader per file), and answers from its old file to the end.
            for _ in range(3):
                assert not await first.recheck("Wikipedia")
            assert first.library("Wikipedia").service.held is old
            assert readers_of(tmp_path / "Wikipedia.zim") == 1
            assert (await in_flight.fetch("corpus://Wikipedia/Ray_Charles", None)).title
            assert not (await in_flight.search("Ray Charles", 3)).partial
            assert archive_files(tmp_path)["Wikipedia.zim (deleted)"]  # the old file
        del in_flight, first, old
        await trio.testing.wait_all_tasks_blocked()  # the first generation closes
        assert set(archive_files(tmp_path)) == {"Wikipedia.zim"}
        assert (await live.fetch(f"corpus://Wikipedia/{NEXT_MONTH_ONLY}", None)).title


async def test_a_reload_waits_for_a_swap_in_progress_and_keeps_what_it_swapped_in(
    demo_archives: dict[str, Path],
    next_month_wikipedia: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with live_corpus(
        tmp_path, demo_archives, ["Wikipedia"], ARCHIVE_RECHECK_SECONDS=NEVER
    ) as live:
        corpus = live.current.corpus
        place(tmp_path, "Wikipedia", next_month_wikipedia)
        assert not await corpus.recheck("Wikipedia")
        opening, go = threading.Event(), threading.Event()
        reopen = corpus_module._reopen

        def slow_reopen(*args: Any, **kwargs: Any) -> Any:
            opening.set()
            go.wait()
            return reopen(*args, **kwargs)

        monkeypatch.setattr(corpus_module, "_reopen", slow_reopen)
        outcomes: list[str] = []

        async def reload() -> None:
            outcomes.append((await live.reload()).outcome)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(corpus.recheck, "Wikipedia")
            await trio.to_thread.run_sync(opening.wait)
            nursery.start_soon(reload)
            await trio.testing.wait_all_tasks_blocked()
            assert outcomes == []  # waiting for the swap, not opening the file itself
            go.set()
        assert outcomes == ["unchanged"]
        assert live.current.corpus is corpus
        assert readers_of(tmp_path / "Wikipedia.zim") == 1


# -- a real server under load -----------------------------------------------------------

#: Queries the persistent libraries answer (Wikipedia, DevDocs Python, Stack Overflow).
QUERIES = (
    "python programming language",
    "multiple inheritance method resolution order",
    "asynchronous io event loop",
    "list comprehension",
    "regular expression syntax",
    "Ray Charles",
)
CLIENTS = 4
CALLS_PER_PHASE = 24
"""Calls the load completes after each reload before the next change (so that every
corpus, and every swap, is met by calls)."""
SERVER_ENV = {"SEARCH_TIMEOUT": "60"}
"""No search may run out of time on the shared machine: a parse cancelled at a deadline
kills its worker process, whose descriptors then go (the pool starts another only when
two parses are wanted at once again), which would be a difference in the descriptor
comparison that no archive made."""


class Load:
    """A bounded MCP load: ``CLIENTS`` clients in both protocol eras, search then fetch,
    until ``stop``; every call that is not ``ok``, and every partial search, is a
    failure, named."""

    def __init__(self, url: str, persistent: set[str]) -> None:
        self.url = url
        self.persistent = persistent
        self.calls: Counter[str] = Counter()
        self.failures: list[str] = []
        self.stop = trio.Event()

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            for number in range(CLIENTS):
                nursery.start_soon(self.client, number, ("auto", "legacy")[number % 2])

    async def client(self, number: int, mode: Any) -> None:
        queries = itertools.islice(itertools.cycle(QUERIES), number, None)
        try:
            async with Client(self.url, mode=mode, read_timeout_seconds=GUARD_SECONDS) as client:
                while not self.stop.is_set():
                    await self.search_then_fetch(client, next(queries))
        except Exception as exc:  # a session that broke is a failed call too
            self.failures.append(f"session: {type(exc).__name__}: {exc}")

    async def search_then_fetch(self, client: Client, query: str) -> None:
        found = await client.call_tool("search", {"query": query, "limit": 3})
        if found.is_error or found.structured_content is None:
            self.failures.append(f"search {query!r}: {found.content}")
            return
        if found.structured_content["partial"]:
            left_out = found.structured_content["unavailable_libraries"]
            self.failures.append(f"search {query!r}: partial, without {left_out}")
            return
        self.calls["search"] += 1
        results = [
            r for r in found.structured_content["results"] if r["library"] in self.persistent
        ]
        if not results:
            return
        hit = results[0]
        sections = [s["id"] for s in hit["relevant_sections"]]
        fetched = await client.call_tool("fetch", {"ref": hit["ref"], "sections": sections})
        if fetched.is_error:
            self.failures.append(f"fetch {hit['ref']}: {fetched.content}")
            return
        self.calls["fetch"] += 1


async def until(condition: Callable[[], bool], what: str, server: ServerProcess) -> None:
    """Wait for ``condition`` (polling); the guard only catches what never happens."""
    with trio.move_on_after(GUARD_SECONDS):
        while not condition():
            await trio.sleep(0.02)
        return
    pytest.fail(f"{what} never happened; server log:\n{server.stderr}")


async def hang_up(server: ServerProcess, expect: str) -> None:
    """SIGHUP, then wait for the reload's outcome line."""
    mark = server.mark()
    server.process.send_signal(signal.SIGHUP)
    await until(lambda: expect in server.log_since(mark), f"{expect!r}", server)


@pytest.mark.slow
async def test_swaps_under_load_fail_no_call_and_leak_no_descriptor(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    start = ["Wikipedia", "Python-Docs", "StackOverflow", "MDWiki"]
    manifest = corpus_folder(root, demo_archives, start)
    persistent = {"Wikipedia", "Python-Docs", "StackOverflow"}
    with running_server(manifest, tmp_path / "stderr.log", env=SERVER_ENV) as server:
        pid = server.process.pid
        url = f"http://127.0.0.1:{server.port}/mcp"
        sockets = open_files(pid).count("socket")
        async with Client(url) as warm_up:  # whatever a first call opens for good
            await Load(url, persistent).search_then_fetch(warm_up, QUERIES[0])
        await until(lambda: open_files(pid).count("socket") == sockets, "closing", server)
        before = Counter(open_files(pid))
        archives_before = archive_files(root, pid)
        load = Load(url, persistent)
        swaps: list[str] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(load.run)

            async def change(what: str, expect: str) -> None:
                await hang_up(server, expect)
                swaps.append(what)
                done = load.total
                await until(lambda: load.total >= done + CALLS_PER_PHASE, "calls", server)

            await until(lambda: load.total >= CALLS_PER_PHASE, "the first calls", server)
            place(root, "Math-SE", demo_archives["Math-SE"])
            write_manifest(root, {name: ADAPTERS[name] for name in [*start, "Math-SE"]})
            await change("add math", "reload: generation 2 serves")
            place(root, "Wikipedia", demo_archives["Wikipedia"])  # next month's file
            await change("replace wikipedia", "reload: generation 3 serves")
            write_manifest(root, {name: ADAPTERS[name] for name in [*start[:3], "Math-SE"]})
            await change("remove mdwiki", "reload: generation 4 serves")
            # Deleted once no longer served (docs/operations.md): calls on generation 3 finish.
            (root / "MDWiki.zim").unlink()
            (root / "corpus.toml").write_text("version = 1\n[[library\n")
            await change("a broken manifest", "reload failed (invalid_manifest)")
            (root / "junk.zim").write_bytes(b"no ZIM archive" * 64)
            write_manifest(
                root, {**{name: ADAPTERS[name] for name in start[:3]}, "junk": "mediawiki"}
            )
            await change("an archive that cannot open", "reload failed (archive_failed)")
            load.stop.set()
        # Back to the corpus of the start, every file a fresh copy: every archive of the
        # generations before is closed, and what is open is what was open at the start.
        (root / "junk.zim").unlink()
        corpus_folder(root, demo_archives, start)
        (root / "Math-SE.zim").unlink()
        await hang_up(server, "reload: generation 5 serves")
        await until(lambda: "generation 4 closed" in server.stderr, "closing", server)
        with trio.move_on_after(GUARD_SECONDS):  # a hang guard: the difference is reported
            while Counter(open_files(pid)) != before:
                await trio.sleep(0.02)
        after = Counter(open_files(pid))
        scraped = metrics_text(server.port)
        assert server.stop() == 0

    in_flight = re.findall(r"closes after its (\d+) calls in flight", server.stderr)
    print(
        f"\nswaps under load: {len(swaps)} ({', '.join(swaps)}); calls in flight at each "
        f"swap: {', '.join(in_flight)}; calls: {dict(load.calls)}; "
        f"failed calls: {len(load.failures)}; descriptors: {sum(before.values())} before, "
        f"{sum(after.values())} after (archives: {sum(archives_before.values())} before)"
    )
    assert load.failures == []
    assert load.calls["search"] >= CALLS_PER_PHASE * len(swaps) // 2
    assert (after - before, before - after) == (Counter(), Counter())
    log = server.stderr
    for number in (1, 2, 3, 4):
        assert f"generation {number} closed" in log
    assert "Traceback" not in log
    assert 'corpus_mcp_reloads_total{outcome="swapped"} 4.0' in scraped
    assert 'corpus_mcp_reloads_total{outcome="invalid_manifest"} 1.0' in scraped
    assert 'corpus_mcp_reloads_total{outcome="archive_failed"} 1.0' in scraped
    assert "corpus_mcp_corpus_generation 5.0" in scraped
    assert f"corpus_mcp_open_archives {len(start)}.0" in scraped


@pytest.mark.slow
async def test_a_rename_then_sighup_under_load_fails_no_call(
    demo_archives: dict[str, Path], next_month_wikipedia: Path, tmp_path: Path
) -> None:
    """Next month's Wikipedia renamed over the served file, then SIGHUP right away (the
    reload opens the new file, or keeps the one the periodic check may just have swapped
    in); then this month's renamed back, swapped in by the check, then SIGHUP (nothing
    left to change). No call fails or is partial, each archive's documents are served in
    turn, and every old file is closed once its last call has ended."""
    root = tmp_path / "corpus"
    root.mkdir()
    names = ["Wikipedia", "Python-Docs", "StackOverflow"]
    manifest = corpus_folder(root, demo_archives, names)
    env = {**SERVER_ENV, "ARCHIVE_RECHECK_SECONDS": "0.2"}
    only_next_month = {"ref": f"corpus://Wikipedia/{NEXT_MONTH_ONLY}"}
    with running_server(manifest, tmp_path / "stderr.log", env=env) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        load = Load(url, set(names))
        reloads: list[str] = []

        async def calls(what: str) -> None:
            done = load.total
            await until(lambda: load.total >= done + CALLS_PER_PHASE, what, server)

        async def hang_up_reloaded() -> None:
            mark = server.mark()
            server.process.send_signal(signal.SIGHUP)
            await until(lambda: "reload: " in server.log_since(mark), "the reload", server)
            reloads.append(server.log_since(mark).split("reload: ")[1].split(";")[0])

        async with trio.open_nursery() as nursery, Client(url) as client:
            nursery.start_soon(load.run)
            await calls("the first calls")
            place(root, "Wikipedia", next_month_wikipedia)
            await hang_up_reloaded()
            await calls("calls after the first reload")
            assert not (await client.call_tool("fetch", only_next_month)).is_error
            mark = server.mark()
            place(root, "Wikipedia", demo_archives["Wikipedia"])  # and back, the same way
            await until(lambda: "now serves" in server.log_since(mark), "the swap", server)
            await hang_up_reloaded()
            await calls("calls after the second reload")
            gone = error_payload(await client.call_tool("fetch", only_next_month))
            load.stop.set()
        with trio.move_on_after(GUARD_SECONDS):  # a hang guard: what is left is reported
            while "Wikipedia.zim (deleted)" in archive_files(root, server.process.pid):
                await trio.sleep(0.02)
        left = archive_files(root, server.process.pid)
        assert server.stop() == 0
    print(f"\nrename then SIGHUP under load: {' | '.join(reloads)}; calls: {dict(load.calls)}")
    assert load.failures == []
    assert reloads[0].startswith(
        ("generation 2 serves Wikipedia", "corpus.toml and the archives are unchanged")
    )
    assert reloads[1] == "corpus.toml and the archives are unchanged"
    assert gone["error"] == "not_found"
    assert "Wikipedia.zim (deleted)" not in left
    log = server.stderr
    assert " WARNING " not in log
    assert "Traceback" not in log


def metrics_text(port: int) -> str:
    return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=GUARD_SECONDS).text


def test_sighup_reloads_a_stdio_server(demo_archives: dict[str, Path], tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    manifest = corpus_folder(root, demo_archives, ["Wikipedia"])
    with started(manifest, tmp_path) as server:
        server.send(INITIALIZE, INITIALIZED)
        assert server.receive()["id"] == 1
        server.send(call(2, "search", {"query": "diabetes insulin", "limit": 5}))
        before = server.receive()["result"]["structuredContent"]["results"]
        assert {r["library"] for r in before} == {"Wikipedia"}
        corpus_folder(root, demo_archives, ["Wikipedia", "MDWiki"])
        server.popen.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + GUARD_SECONDS  # a hang guard only
        while "reload: generation 2 serves" not in server.stderr:
            assert time.monotonic() < deadline, server.stderr
            time.sleep(0.02)
        server.send({"jsonrpc": "2.0", "id": "tools", "method": "tools/list"})
        tools = server.receive()["result"]["tools"]
        server.send(call(0, "search", {"query": "diabetes insulin", "limit": 5}))
        after = server.receive()["result"]["structuredContent"]["results"]
        server.stdin.close()
        assert server.wait() == 0
    search = next(tool for tool in tools if tool["name"] == "search")
    assert "Search offline libraries: Wikipedia, MDWiki." in search["description"]
    assert "MDWiki" in {r["library"] for r in after}
    assert "generation 1 closed" in server.stderr


# -- bugs never take the serving corpus down -------------------------------------------


@pytest.mark.parametrize("where", ["reading corpus.toml", "opening the corpus"])
async def test_a_bug_during_a_reload_leaves_the_old_corpus_serving(
    demo_archives: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    where: str,
) -> None:
    async with live_corpus(tmp_path, demo_archives, ["Wikipedia"]) as live:
        first = live.current
        write_manifest(tmp_path, {"Wikipedia": "devdocs"})  # a change, so it would swap

        def bug(*args: object, **kwargs: object) -> Any:
            raise RuntimeError("simulated bug")

        target = "load_manifest" if where == "reading corpus.toml" else "open_corpus"
        monkeypatch.setattr(f"corpus_mcp.live.{target}", bug)
        with counting_reloads() as counted:
            done = await live.reload()
        assert (done.outcome, counted()) == ("internal_error", {"internal_error": 1})
        assert done.reason == "RuntimeError: simulated bug"
        assert live.current is first
        assert await a_result(live, "Ray Charles", "Wikipedia")
    assert f"reload: {where} failed" in caplog.text
    assert "Traceback" in caplog.text  # a bug is logged with where it happened


def test_a_file_that_cannot_be_read_has_no_identity(tmp_path: Path) -> None:
    assert identify(tmp_path / "missing.zim") is None
    (tmp_path / "here.zim").write_bytes(b"x")
    found = identify(tmp_path / "here.zim")
    assert found is not None
    assert found.size == 1


async def test_nothing_is_served_before_the_first_generation_is_open() -> None:
    async with trio.open_nursery() as nursery:
        live = LiveCorpus(
            settings_for(Path("/nonexistent/corpus.toml")), nursery, ParsePool.in_threads()
        )
        with pytest.raises(RuntimeError, match="no corpus is open yet"):
            _ = live.libraries
