"""The section indexes' manager and the ``index`` command on their unhappy paths: a
background build that fails or is cancelled, an index file the folder will not let go,
a library whose archive cannot be read, a build that fails or finds its work done."""

from __future__ import annotations

import errno
import io
import os
import re
import shutil
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager
from pathlib import Path

import msgspec
import pytest
import trio

from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import Library, load_manifest
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.indexing import Indexing
from corpus_mcp.sections import IndexUnreadable, SectionIndex, build, catalog, command, store
from corpus_mcp.sections.build import BuildFailed, build_index
from corpus_mcp.sections.catalog import IndexFolder
from corpus_mcp.sections.manager import BuildOutcome, IndexManager, Target, _last_line
from corpus_mcp.sections.store import IndexAnswer
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.xapian_pool import xapian

from .conftest import settings_for
from .test_sections_build import job_for, target_for


def bogus_target(tmp_path: Path) -> Target:
    """A target whose archive is no ZIM: its build fails in the child."""
    bogus = tmp_path / "bogus.zim"
    bogus.write_bytes(b"not a zim" * 100)
    return Target(
        library="bogus",
        archive=str(bogus),
        uuid="0123456789abcdef0123456789abcdef",
        size=bogus.stat().st_size,
        adapter="mediawiki",
        adapter_version=1,
    )


async def test_a_failed_background_build_is_recorded_and_not_retried_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manager = IndexManager(tmp_path / "indexes", priority="normal")
    target = bogus_target(tmp_path)
    assert manager.next_to_build([target]) == target
    outcome = await manager.build(target)
    assert not outcome.built and not outcome.busy
    assert outcome.reason and "cannot be opened" in outcome.reason, outcome
    state = manager.state(target)
    assert state.state == "failed" and "cannot be opened" in (state.reason or ""), state
    # Backing off: the failure is seconds old, not retried before its delay.
    assert manager.next_to_build([target]) is None
    assert "building its section index failed" in caplog.text


async def test_a_cancelled_background_build_stops_its_child_and_frees_the_lock(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    manager = IndexManager(folder, priority="normal")
    target = target_for(demo_archives["Wikipedia"], "mediawiki", "Wikipedia")
    with trio.move_on_after(0.1) as scope:
        await manager.build(target)
    assert scope.cancelled_caught
    # The child was stopped (SIGTERM, then SIGKILL): nobody holds the build lock.
    with IndexFolder(folder).build_lock(wait=False) as held:
        assert held
    assert manager.state(target).state in ("missing", "building")


def test_a_child_that_says_nothing_is_described_by_its_exit() -> None:
    assert _last_line(b"Traceback...\nValueError: no\n", 1) == "ValueError: no"
    assert _last_line(None, 3) == "the build process exited with status 3"
    assert _last_line(b"", -9) == "the build process was killed by signal 9"


def test_an_index_the_folder_will_not_remove_is_never_opened_again(
    demo_archives: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = demo_archives["Math-SE"]
    build_index(job_for(archive, "stackexchange", tmp_path, "Math-SE"), processes=1)
    manager = IndexManager(tmp_path)
    target = target_for(archive, "stackexchange", "Math-SE")
    assert manager.open(target) is not None
    file = IndexFolder(tmp_path).file(target.key)

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    with monkeypatch.context() as patch:
        patch.setattr(Path, "unlink", refuse)
        manager.discard(target, "reading it failed")
    assert file.exists()
    assert manager.state(target).state == "stale"
    assert manager.state(target).reason == "found unreadable"
    assert manager.open(target) is None
    # Another file at the path (a rebuilt one) is opened again.
    rebuilt = file.with_name(file.name + ".new")
    shutil.copyfile(file, rebuilt)
    os.replace(rebuilt, file)
    assert manager.state(target).state == "ready"
    assert manager.open(target) is not None
    # A file gone meanwhile is nothing to discard.
    file.unlink()
    manager.discard(target, "gone")


def test_a_manager_without_a_folder_builds_and_opens_nothing(tmp_path: Path) -> None:
    manager = IndexManager(None)
    target = bogus_target(tmp_path)
    assert not manager.enabled
    assert manager.unusable() is None
    assert manager.state(target).state == "off"
    assert manager.open(target) is None
    assert manager.next_to_build([target]) is None
    manager.discard(target, "unused")


# -- corpus-mcp index, in the process ---------------------------------------------------------


def index_run(demo_corpus: Path, folder: Path, only: list[str], **env: str) -> tuple[int, str, str]:
    settings = settings_for(
        demo_corpus, **{"INDEX": "auto", "CORPUS_INDEX_DIR": str(folder), **env}
    )
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    out, err = io.StringIO(), io.StringIO()
    code = command.run_index(
        settings, manifest, only=only, processes=1, prune=False, out=out, err=err
    )
    return code, out.getvalue(), err.getvalue()


def test_a_library_whose_archive_cannot_be_read_is_failed_by_name(
    demo_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command, "header_uuid", lambda path: None)
    code, out, _err = index_run(demo_corpus, tmp_path, ["Math-SE"])
    assert code == 1
    assert "Math-SE: FAILED: its archive cannot be read" in out.splitlines()
    assert out.splitlines()[-1] == "0 built, 1 failed, 0 up to date"


def test_an_archive_gone_since_the_manifest_was_read_is_failed(
    demo_corpus: Path, tmp_path: Path
) -> None:
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    library = next(lib for lib in manifest.enabled if lib.name == "Math-SE")
    moved = tmp_path / "math.zim"
    shutil.copyfile(library.file, moved)
    gone = msgspec.structs.replace(library, file=moved)
    moved.unlink()
    state = command.index_state(IndexFolder(tmp_path / "indexes"), gone)
    assert state.state == "failed" and state.reason == "its archive cannot be read"


def test_a_failed_build_is_said_and_a_stale_index_built_again(
    demo_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: object, **kwargs: object) -> None:
        raise BuildFailed("the disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(command, "build_index", failing)
        code, out, _err = index_run(demo_corpus, tmp_path, ["Math-SE"], INDEX="off")
    assert code == 1
    assert "Math-SE: FAILED: the disk is full (what was built is kept for the next run)" in out
    code, out, err = index_run(demo_corpus, tmp_path, ["Math-SE"], INDEX="off")
    assert code == 0, err
    assert "note: INDEX=off" in err
    # Another adapter version makes it stale: built again, saying why.
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    library = next(lib for lib in manifest.enabled if lib.name == "Math-SE")
    adapter = get_adapter(library.adapter)
    monkeypatch.setattr(type(adapter), "version", adapter.version + 1)
    code, out, err = index_run(demo_corpus, tmp_path, ["Math-SE"])
    assert code == 0, err
    assert any(
        line.startswith("Math-SE: stale (built by stackexchange adapter version ")
        and line.endswith("): building it again")
        for line in out.splitlines()
    ), out


def test_a_build_waits_for_another_and_takes_its_work(
    demo_corpus: Path, demo_archives: dict[str, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    folder = IndexFolder(tmp_path)
    held_by_other = [True]
    real_lock = IndexFolder.build_lock

    def lock(self: IndexFolder, *, wait: bool) -> AbstractContextManager[bool]:
        if not wait and held_by_other[0]:
            # As if a server were building: it finishes while this run waits.
            held_by_other[0] = False
            name = next(n for n, _r, _a in DEMO_LIBRARIES if n == "Math-SE")
            build_index(job_for(demo_archives[name], "stackexchange", tmp_path, name), processes=1)
            return _Refused()
        return real_lock(self, wait=wait)

    monkeypatch.setattr(IndexFolder, "build_lock", lock)
    code, out, err = index_run(demo_corpus, tmp_path, ["Math-SE"])
    assert code == 0, err
    assert "another build holds" in err and "waiting for it" in err
    assert "Math-SE: built meanwhile by another process" in out
    assert folder.file(command.library_key(_library(demo_corpus, "Math-SE")) or "").exists()


class _Refused:
    """A lock another process holds, as ``build_lock(wait=False)`` yields it."""

    def __enter__(self) -> bool:
        return False

    def __exit__(self, *exc: object) -> None:
        return None


def _library(demo_corpus: Path, name: str) -> Library:
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    return next(lib for lib in manifest.enabled if lib.name == name)


# -- a build that cannot write, in the process ------------------------------------------------


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "is full"),
        (OSError(errno.EROFS, "Read-only file system"), "is not writable"),
        (OSError(errno.EIO, "Input/output error", "/x/shard"), "Input/output error: /x/shard"),
        (xapian.DatabaseError("Db block overwritten"), "writing the index failed (Db block"),
        (BrokenProcessPool(), "a build process died"),
    ],
)
def test_a_build_that_cannot_finish_says_why_and_records_it(
    demo_archives: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    said: str,
) -> None:
    def fail(*args: object) -> None:
        raise error

    monkeypatch.setattr(build, "publish", fail)
    archive = demo_archives["Math-SE"]
    with pytest.raises(BuildFailed, match=re.escape(said)):
        build_index(job_for(archive, "stackexchange", tmp_path, "Math-SE"), processes=1)
    target = target_for(archive, "stackexchange", "Math-SE")
    failure = IndexFolder(tmp_path).failure(target.key)
    assert failure is not None and said in failure.reason


def test_the_build_child_says_why_its_lock_cannot_be_taken(
    demo_archives: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    def refuse(self: IndexFolder, *, wait: bool) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(IndexFolder, "build_lock", refuse)
    archive = str(demo_archives["Math-SE"])
    assert build.main([archive, "stackexchange", str(tmp_path), "Math-SE", "normal"]) == 1
    assert f"the index folder {tmp_path} is not writable" in capsys.readouterr().err


# -- the store and the folder on damaged data -------------------------------------------------


def test_an_empty_question_or_request_asks_nothing_of_the_index(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    archive = demo_archives["Math-SE"]
    build_index(job_for(archive, "stackexchange", tmp_path, "Math-SE"), processes=1)
    index = SectionIndex.open(IndexFolder(tmp_path).file(target_for(archive, "stackexchange").key))
    words = index.analyser.question("prime numbers")
    nothing = index.analyser.question("")
    assert index.search(words, 0, 3) == [] and index.search(nothing, 10, 3) == []
    assert index.ask(nothing, limit=10, per_document=3) == IndexAnswer()
    assert index.sections_of(words, [], 4) == {}
    assert index.sections_of(words, ["x" * 300], 4) == {}


def test_damaged_values_and_stored_sections_are_unreadable() -> None:
    with pytest.raises(IndexUnreadable, match="reported values are damaged"):
        store._reported(b"only one part")
    with pytest.raises(IndexUnreadable, match="stored section is damaged"):
        store._decoded(b"\xc1 not msgpack")


def test_a_shard_that_cannot_be_read_holds_nothing(tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    shard.mkdir()
    (shard / "iamglass").write_bytes(b"garbage")
    assert store.shard_done(shard) == store.ShardDone(frozenset(), 0, 0)
    assert store.shard_done(tmp_path / "none") == store.ShardDone(frozenset(), 0, 0)


def test_the_folder_helpers_take_what_the_system_refuses(tmp_path: Path) -> None:
    assert IndexFolder(tmp_path / "none").index_keys() == []
    assert catalog._alive(os.getpid())
    assert not catalog._alive(2**22 + 12345)  # above any pid_max: no such process
    assert catalog._size(tmp_path / "none") == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    catalog._write_atomic(blocker / "inside", b"data", quiet=True)
    with pytest.raises(OSError):
        catalog._write_atomic(blocker / "inside", b"data", quiet=False)


# -- switching a corpus's libraries, with stand-ins ---------------------------------------------


class _Service:
    def __init__(self, target: Target) -> None:
        self.info = ZimReader(Path(target.archive), direct_index=False).info


class _Library:
    def __init__(self, target: Target) -> None:
        self.name = target.library
        self.adapter = get_adapter(target.adapter)
        self.service = _Service(target)
        self.sections: SectionIndex | None = None
        self.broken: tuple[SectionIndex, str] | None = None


async def test_a_broken_index_is_dropped_and_a_failed_build_waits(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    archive = demo_archives["Math-SE"]
    build_index(job_for(archive, "stackexchange", tmp_path, "Math-SE"), processes=1)
    target = target_for(archive, "stackexchange", "Math-SE")
    library = _Library(target)
    forgotten: list[object] = []
    indexing = Indexing(
        IndexManager(tmp_path), {"Math-SE": library}, interval=0.01, forget=forgotten.append
    )
    await indexing.check()
    index = library.sections
    assert index is not None and indexing.state("Math-SE").state == "ready"
    assert forgotten == [library]  # switched: what was remembered is forgotten
    library.broken = (index, "reading it failed")
    await indexing.check()
    # Dropped, its file removed to be built again; the next look finds nothing to open.
    assert library.sections is None and library.broken is None and forgotten == [library, library]
    assert indexing.state("Math-SE").state == "missing"

    class Failing(IndexManager):
        builds = 0

        async def build(self, target: Target) -> BuildOutcome:
            Failing.builds += 1
            return BuildOutcome(built=False, reason="no")

    indexing = Indexing(Failing(tmp_path), {"Math-SE": library}, interval=0.01, forget=print)
    with trio.move_on_after(0.2):
        await indexing.watch()
    # Each failure waits an interval before the folder is looked at again.
    assert 1 <= Failing.builds <= 20


def test_an_interrupted_build_says_the_next_run_continues(
    demo_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "build_index", interrupted)
    settings = settings_for(demo_corpus, INDEX="auto", CORPUS_INDEX_DIR=str(tmp_path))
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        command.run_index(
            settings, manifest, only=["Math-SE"], processes=1, prune=False, out=out, err=err
        )
    assert "Math-SE: interrupted; the next run continues where this one stopped" in err.getvalue()


def test_pruning_removes_a_build_folder_no_library_uses(demo_corpus: Path, tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path)
    work = folder.work("00000000-0000-0000-0000-000000000000.devdocs")
    (work / "shard").mkdir(parents=True)
    (work / "shard" / "postlist.glass").write_bytes(b"x" * 1000)
    folder.record_failure("11111111-1111-1111-1111-111111111111.devdocs", "gone")
    settings = settings_for(demo_corpus, INDEX="auto", CORPUS_INDEX_DIR=str(tmp_path))
    manifest = load_manifest(demo_corpus, demo_corpus.parent)
    out = io.StringIO()
    code = command.run_index(
        settings, manifest, only=["Math-SE"], processes=1, prune=True, out=out, err=io.StringIO()
    )
    assert code == 0
    assert not work.exists()
    assert not folder.failure_file("11111111-1111-1111-1111-111111111111.devdocs").exists()
    assert re.search(r"pruned 2 index\(es\) no enabled library uses \(1\.\d kB\)", out.getvalue())
