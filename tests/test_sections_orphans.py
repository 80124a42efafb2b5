"""A killed index build leaves nothing behind: no process of it computing or writing after
it died (``corpus-mcp index`` and a serving process building in the background, killed
by SIGKILL mid-build, with real processes and a real archive), one writer per build
folder (the owner record and its fence, shards an earlier build's process still holds),
and the next run finishing an index whose records equal a clean build's."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import msgspec
import pytest

from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.demo.wikipedia_like import build_large_corpus
from corpus_mcp.sections import build
from corpus_mcp.sections.analysis import Analyser
from corpus_mcp.sections.build import BuildJob, build_index, main
from corpus_mcp.sections.catalog import BuildOwner, BuildProgress, IndexFolder, archive_key
from corpus_mcp.sections.records import redirect_record
from corpus_mcp.sections.store import ShardDone, ShardWriter, shard_done, shard_held
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.xapian_pool import xapian

from .process_tree import (
    GONE_SECONDS,
    POLL_SECONDS,
    Process,
    killed_at_the_end,
    process,
    tree,
    wait_all_gone,
)
from .server_process import CORPUS_MCP, ServerProcess, server_environment

#: A failsafe, never what is measured: how long a build or a server may take.
BUILD_SECONDS = 600.0
#: Articles of the generated Wikipedia: a few seconds of indexing, many chunks.
ARTICLES = 600
LIBRARY = "Wikipedia-Large"


def eventually(what: str, condition: Callable[[], bool], running: subprocess.Popen[bytes]) -> None:
    """Until ``condition()`` holds, failing if ``running`` exits first or after the guard."""
    deadline = time.monotonic() + BUILD_SECONDS
    while not condition():
        if running.poll() is not None:
            pytest.fail(f"exited ({running.returncode}) before: {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"never: {what}")
        time.sleep(POLL_SECONDS)


# -- the archive, and what a clean build of it holds ----------------------------------------


class Wikipedia(NamedTuple):
    manifest: Path
    archive: Path
    key: str


@pytest.fixture(scope="module")
def wikipedia(
    demo_archives: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Wikipedia:
    """A generated Wikipedia of :data:`ARTICLES` articles (from the demo Wikipedia's text:
    no ../shared needed) and its corpus.toml."""
    folder = tmp_path_factory.mktemp("wikipedia")
    built = build_large_corpus(folder, articles=ARTICLES, sources=[demo_archives["Wikipedia"]])
    uuid = ZimReader(built.path, direct_index=False).info.uuid
    return Wikipedia(folder / "corpus.toml", built.path, archive_key(uuid, "mediawiki"))


def index_records(
    file: Path,
) -> list[tuple[bytes, tuple[bytes, ...], tuple[tuple[bytes, int], ...]]]:
    """Every record of a published index (its stored data, its values, its terms with
    their counts), sorted: what a build wrote, whatever the order it wrote it in."""
    database = xapian.Database(str(file))
    terms: dict[int, list[tuple[bytes, int]]] = defaultdict(list)
    for item in database.allterms():
        term = bytes(item.term)
        for posting in database.postlist(term):
            terms[posting.docid].append((term, posting.wdf))
    found = []
    for docid in range(1, database.get_lastdocid() + 1):
        document = database.get_document(docid)
        values = tuple(bytes(value.value) for value in document.values())
        found.append((bytes(document.get_data()), values, tuple(terms[docid])))
    database.close()
    return sorted(found)


@pytest.fixture(scope="module")
def clean_records(wikipedia: Wikipedia, tmp_path_factory: pytest.TempPathFactory) -> list[object]:
    """The records of the archive's index built in one go, by one process."""
    folder = tmp_path_factory.mktemp("clean")
    job = BuildJob(archive=wikipedia.archive, adapter="mediawiki", folder=folder, library=LIBRARY)
    build_index(job, processes=1)
    records: list[object] = list(index_records(IndexFolder(folder).file(wikipedia.key)))
    assert records
    return records


def committed_a_chunk(folder: Path, key: str) -> Callable[[], bool]:
    """Whether a build of ``key`` has committed a chunk (its progress file is written
    once the first chunk is)."""
    return (IndexFolder(folder).work(key) / "progress.json").is_file


def index_environment(wikipedia: Wikipedia, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CORPUS_ROOT": str(wikipedia.manifest.parent),
        "CORPUS_CONFIG": str(wikipedia.manifest),
        "CORPUS_INDEX_DIR": str(folder),
        "INDEX": "auto",
    }


def run_index(wikipedia: Wikipedia, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CORPUS_MCP), "index", "--processes", "2"],
        env=index_environment(wikipedia, folder),
        capture_output=True,
        text=True,
        check=False,
        timeout=BUILD_SECONDS,
    )


# -- corpus-mcp index killed -------------------------------------------------------------------


@pytest.mark.slow
def test_a_killed_index_command_leaves_no_process_and_the_next_run_continues(
    wikipedia: Wikipedia, clean_records: list[object], tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    with (tmp_path / "index.err").open("wb") as err:
        command = subprocess.Popen(
            [str(CORPUS_MCP), "index", "--processes", "2"],
            env=index_environment(wikipedia, folder),
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # a process group of its own
        )
    with killed_at_the_end(command):
        eventually("a chunk committed", committed_a_chunk(folder, wikipedia.key), command)
        building = tree(command.pid)
        # The command, its fork server and workers (and multiprocessing's resource tracker).
        forked = [p for p in building if "multiprocessing.forkserver" in p.command]
        assert len(forked) >= 2, building
        command.send_signal(signal.SIGKILL)
        command.wait(timeout=GONE_SECONDS)
        wait_all_gone(building)
    assert not IndexFolder(folder).file(wikipedia.key).exists(), "built after its end"
    again = run_index(wikipedia, folder)
    assert again.returncode == 0, again.stderr
    said = again.stderr
    assert f"{LIBRARY}: an earlier build of this index (process {command.pid}) stopped" in said
    assert "continuing from what it committed" in said
    assert "by an earlier run" in again.stdout
    assert index_records(IndexFolder(folder).file(wikipedia.key)) == clean_records
    assert not IndexFolder(folder).work(wikipedia.key).exists()


# -- a serving process killed while it builds --------------------------------------------------


def start_server(wikipedia: Wikipedia, folder: Path, log: Path, **env: str) -> ServerProcess:
    """``corpus-mcp serve`` in a process group of its own, building in the background."""
    environment = server_environment(
        wikipedia.manifest,
        0,
        INDEX="auto",
        CORPUS_INDEX_DIR=str(folder),
        # At the server's priority: at SCHED_IDLE a build waits for idle time a busy
        # machine may not have.
        INDEX_PRIORITY="normal",
        ARCHIVE_RECHECK_SECONDS="0.2",
        **env,
    )
    with log.open("wb") as stderr:
        started = subprocess.Popen(
            [str(CORPUS_MCP), "serve"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
    server = ServerProcess(started, log)
    server.wait_until_ready()
    return server


class Building(NamedTuple):
    """A server building in the background: its processes, the build child among them."""

    server: ServerProcess
    processes: list[Process]
    child: Process


@contextmanager
def server_building(wikipedia: Wikipedia, folder: Path, **env: str) -> Iterator[Building]:
    """A server whose background build into ``folder`` has committed a chunk (killed at
    the end of the block if still running)."""
    server = start_server(wikipedia, folder, folder.with_name("serve.log"), **env)
    with killed_at_the_end(server.process):
        eventually("a chunk committed", committed_a_chunk(folder, wikipedia.key), server.process)
        processes = tree(server.process.pid)
        children = [p for p in processes if "corpus_mcp.sections.build" in p.command]
        assert len(children) == 1, processes
        yield Building(server, processes, children[0])


@pytest.mark.slow
def test_a_serving_process_killed_while_it_builds_leaves_no_process(
    wikipedia: Wikipedia, clean_records: list[object], tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    with server_building(wikipedia, folder, PARSE_WORKERS="2") as (server, serving, child):
        assert child.ppid == server.process.pid
        assert any("multiprocessing.forkserver" in p.command for p in serving), serving
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=GONE_SECONDS)
        wait_all_gone(serving)
        assert not IndexFolder(folder).file(wikipedia.key).exists(), "built after its end"
    # The next server continues the build, says so, and serves the index.
    again = start_server(wikipedia, folder, tmp_path / "again.log")
    ready = IndexFolder(folder).file(wikipedia.key)
    with killed_at_the_end(again.process):
        eventually("the index published", ready.is_file, again.process)
        again.wait_for_log(f"(process {child.pid}) stopped before it finished")
        assert again.stop() == 0
    assert index_records(ready) == clean_records


@pytest.mark.slow
def test_serving_processes_killed_while_one_builds_leave_no_process(
    wikipedia: Wikipedia, clean_records: list[object], tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    with server_building(wikipedia, folder, WORKERS="2") as (server, _, child):
        building = process(child.ppid)
        assert building is not None and building.ppid != server.process.pid  # a serving process
        os.kill(building.pid, signal.SIGKILL)
        wait_all_gone([building, child], groups=False)  # the rest of the server lives on
        # Published by nothing meanwhile: the other serving process, which may take the
        # build over now, has all its chunks to do.
        assert not IndexFolder(folder).file(wikipedia.key).exists(), "built after its end"
        # The supervisor killed too (the others' builds, and whatever replaced the killed
        # process, go with it).
        supervised = tree(server.process.pid)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=GONE_SECONDS)
        wait_all_gone(supervised)
    finished = run_index(wikipedia, folder)
    assert finished.returncode == 0, finished.stderr
    assert index_records(IndexFolder(folder).file(wikipedia.key)) == clean_records


# -- one writer per build folder ------------------------------------------------------------------


def test_a_build_claims_the_folder_and_an_earlier_builds_workers_commit_nothing_after(
    tmp_path: Path,
) -> None:
    folder = IndexFolder(tmp_path)
    with folder.build_lock(wait=False) as held:
        assert held
        first, earlier = folder.claim("key", "lib")
        assert earlier is None
        with folder.fence(first.token) as ours:
            assert ours
        # The first build killed (its record stays): the next one says so and takes over.
        second, earlier = folder.claim("key", "lib")
        assert earlier == first
        with folder.fence(first.token) as ours:
            assert not ours
        with folder.fence(second.token) as ours:
            assert ours
    with folder.fence(second.token) as ours:
        assert not ours, "no build lock held: the build of that token is gone"
    folder.release(first)  # not the current owner: nothing changes
    assert folder.claim("key", "lib")[1] == second
    third, _ = folder.claim("key", "lib")
    folder.release(third)
    assert folder.claim("key", "lib")[1] is None, "a build that ended leaves no record"


def test_a_folder_without_a_readable_owner_record_has_no_owner(tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path / "indexes")
    with folder.fence("any") as ours:
        assert not ours, "no owner record: no build owns the folder"
    folder.root.mkdir()
    (folder.root / "build.owner").write_bytes(b"{not json")
    owner, earlier = folder.claim("key", "lib")
    assert earlier is None
    (folder.root / "build.owner").unlink()
    folder.release(owner)  # nothing to empty
    assert not (folder.root / "build.owner").exists()


def test_what_an_earlier_build_left_is_said() -> None:
    said: list[str] = []
    progress = BuildProgress(
        pid=1, entries_done=0, entries_total=100, pages=0, sections=0, updated=0.0
    )
    other = BuildOwner(token="t", pid=42, key="other", library="Wiki", started=0.0)
    build._say_resumed(said.append, other, "key", progress)
    assert said == [
        "an earlier build of Wiki's index (process 42) stopped before it finished (killed?); "
        "its next build continues it"
    ]
    said.clear()
    same = msgspec.structs.replace(other, key="key")
    build._say_resumed(said.append, same, "key", progress)
    assert said[0].endswith("(killed?); it committed nothing")
    said.clear()
    resumed = msgspec.structs.replace(progress, entries_done=40)
    build._say_resumed(said.append, other, "key", resumed)
    assert said[1] == "continuing from what earlier runs committed: 40 of 100 entries"


def test_a_claim_waits_for_a_commit_in_progress(tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path)
    owner, _ = folder.claim("key", "lib")
    committed: list[bool] = []
    claimed: list[bool] = []

    def claim() -> None:
        folder.claim("key", "lib")
        claimed.append(bool(committed))  # what had happened when the claim got through

    with folder.build_lock(wait=False), folder.fence(owner.token) as ours:
        assert ours
        other = threading.Thread(target=claim)
        other.start()
        time.sleep(0.2)  # room for the claim to try (it waits whenever it tries)
        committed.append(True)
    other.join(timeout=GONE_SECONDS)
    assert claimed == [True]


def test_a_chunk_is_committed_whole_or_not_at_all(tmp_path: Path) -> None:
    shard = tmp_path / "shard-1"
    writer = ShardWriter(shard, Analyser.for_language("eng"))
    writer.add(redirect_record("Alpha", "A", "Alpha page", None))
    writer.commit(0, 1, 1)
    writer.add(redirect_record("Beta", "B", "Beta page", None))
    assert shard_held(shard)
    writer.close()  # part-way through chunk 1: what it added goes
    assert not shard_held(shard)
    assert shard_done(shard) == ShardDone(frozenset({0}), 1, 1)
    database = xapian.Database(str(shard))
    assert database.get_doccount() == 1
    database.close()


def test_shards_a_live_process_still_writes_are_set_aside_and_their_chunks_done_again(
    demo_archives: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = demo_archives["StackOverflow"]
    adapter = next(a for name, _, a in DEMO_LIBRARIES if name == "StackOverflow")
    clean_folder = tmp_path / "clean"
    build_index(
        BuildJob(archive=archive, adapter=adapter, folder=clean_folder, library="so"), processes=1
    )
    key = archive_key(ZimReader(archive, direct_index=False).info.uuid, adapter)
    clean = index_records(IndexFolder(clean_folder).file(key))

    folder = tmp_path / "indexes"
    job = BuildJob(archive=archive, adapter=adapter, folder=folder, library="so")
    monkeypatch.setattr(build, "chunk_entries", lambda _total, _processes: 4)

    class Stopped(Exception):
        pass

    def stop_after_two(progress: BuildProgress, _seconds: float) -> None:
        if progress.entries_done >= 8:
            raise Stopped

    with pytest.raises(Stopped):
        build_index(job, processes=1, progress=stop_after_two)
    # A process of an earlier build still holds a shard, with a chunk it says it did.
    work = IndexFolder(folder).work(key)
    stray = ShardWriter(work / "shard-424242", Analyser.for_language("eng"))
    stray.add(redirect_record("Stray", "questions/1", "Not a record of this index", None))
    stray.commit(5, 1, 1)
    said: list[str] = []
    try:
        meta = build_index(job, processes=1, notice=said.append)
    finally:
        stray.close()
    assert any("(pid 424242)" in text and "set aside" in text for text in said), said
    assert any("continuing from what earlier runs committed: 8 of" in text for text in said), said
    assert meta.documents > 0
    assert index_records(IndexFolder(folder).file(key)) == clean


def test_the_build_child_refuses_a_parent_that_is_no_pid(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    archive = str(demo_archives["Math-SE"])
    assert main([archive, "stackexchange", str(tmp_path), "math", "normal", "me"]) == 2
    assert main([archive, "stackexchange", str(tmp_path), "math", "normal", "1", "2"]) == 2
