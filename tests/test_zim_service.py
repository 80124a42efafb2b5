"""ArchiveService under trio: the per-archive lock outlives abandoned calls, tokens never
leak, a reader whose file changed is retired and replaced once the file is sound, a new
file renamed over the served one is served once sound without an outage, and a call
reads one reader from start to end."""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.testing

from corpus_mcp.zim import (
    ArchiveService,
    ArchiveUnavailable,
    ChainedLimiter,
    ZimReader,
    one_reader_per_call,
    readers_replaced,
    stop_if_abandoned,
)
from corpus_mcp.zim import service as service_module
from corpus_mcp.zim.identity import CHANGED, DELETED, TRUNCATED, UNREADABLE, FileProblem
from corpus_mcp.zim.service import FAILS_CHECK, NOT_AN_ARCHIVE, OTHER_FAMILY

MINI_2020 = "wikipedia_en_ray_charles_mini_2020-03.zim"
AS_ROOT = pytest.mark.skipif(
    os.geteuid() == 0, reason="root reads a file whatever its mode: chmod 000 cannot stop it"
)


@pytest.fixture(scope="module")
def reader(shared_zims: Path) -> ZimReader:
    return ZimReader(shared_zims / MINI_2020)


class Gate:
    """A blocking function for worker threads: reports that it started, waits to be let go."""

    def __init__(self, result: str) -> None:
        self.result = result
        self.started = threading.Event()
        self.released = threading.Event()

    def __call__(self, reader: ZimReader | None = None) -> str:
        self.started.set()
        self.released.wait()
        return self.result

    async def wait_started(self) -> None:
        await trio.to_thread.run_sync(self.started.wait)


@pytest.fixture
def gates() -> Iterator[list[Gate]]:
    """Gates opened at teardown whatever happens, so no test leaves a thread blocked."""
    made: list[Gate] = []
    yield made
    for gate in made:
        gate.released.set()


def new_gate(gates: list[Gate], result: str = "slow") -> Gate:
    gate = Gate(result)
    gates.append(gate)
    return gate


# -- ChainedLimiter ----------------------------------------------------------------------------


async def test_chained_limiter_takes_both_and_releases_both() -> None:
    per_archive, shared = trio.CapacityLimiter(1), trio.CapacityLimiter(2)
    chained = ChainedLimiter(per_archive, shared)
    borrower = object()
    await chained.acquire_on_behalf_of(borrower)
    assert (per_archive.borrowed_tokens, shared.borrowed_tokens) == (1, 1)
    chained.release_on_behalf_of(borrower)
    assert (per_archive.borrowed_tokens, shared.borrowed_tokens) == (0, 0)


async def test_waiter_for_a_busy_archive_holds_no_shared_token() -> None:
    per_archive, shared = trio.CapacityLimiter(1), trio.CapacityLimiter(2)
    chained = ChainedLimiter(per_archive, shared)
    first, second = object(), object()
    await chained.acquire_on_behalf_of(first)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(chained.acquire_on_behalf_of, second)
        await trio.testing.wait_all_tasks_blocked()
        assert per_archive.statistics().tasks_waiting == 1
        assert shared.borrowed_tokens == 1  # only the first borrower's
        chained.release_on_behalf_of(first)
    assert per_archive.statistics().borrowers == [second]
    assert shared.statistics().borrowers == [second]
    chained.release_on_behalf_of(second)


async def test_cancelled_wait_for_shared_token_gives_the_archive_back() -> None:
    per_archive, shared = trio.CapacityLimiter(1), trio.CapacityLimiter(1)
    chained = ChainedLimiter(per_archive, shared)
    hog = object()
    await shared.acquire_on_behalf_of(hog)
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(chained.acquire_on_behalf_of, object())
            await trio.testing.wait_all_tasks_blocked()
            assert per_archive.borrowed_tokens == 1
            scope.cancel()
    assert per_archive.borrowed_tokens == 0
    assert shared.statistics().borrowers == [hog]
    shared.release_on_behalf_of(hog)


# -- ArchiveService ----------------------------------------------------------------------------


async def test_run_calls_the_reader_in_a_worker_thread(reader: ZimReader) -> None:
    service = ArchiveService(reader, trio.CapacityLimiter(2), library="rc")
    assert service.info is reader.info

    def resolve_in_thread(checked: ZimReader) -> tuple[str, int]:
        assert checked is reader  # the reader served, once its file is checked
        return checked.resolve("Charles,_Ray").path, threading.get_ident()

    path, thread = await service.run(resolve_in_thread)
    assert path == "Ray_Charles"
    assert thread != threading.get_ident()


def test_stop_if_abandoned_does_nothing_outside_a_worker_thread() -> None:
    stop_if_abandoned()  # a direct call, as the gather functions get in unit tests


async def test_stop_if_abandoned_stops_a_worker_whose_caller_gave_up(
    reader: ZimReader, gates: list[Gate]
) -> None:
    service = ArchiveService(reader, trio.CapacityLimiter(2), library="rc")
    gate = new_gate(gates)
    steps: list[str] = []

    def job(reader: ZimReader) -> None:
        gate()
        steps.append("first libzim call")
        stop_if_abandoned()
        steps.append("second libzim call")

    with trio.CancelScope() as caller:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(service.run, job)
            await gate.wait_started()
            caller.cancel()
    gate.released.set()
    async with service.lock:  # taken once the abandoned thread has ended
        pass
    assert steps == ["first libzim call"]


async def test_abandoned_call_keeps_archive_locked_until_thread_finishes(
    reader: ZimReader, gates: list[Gate]
) -> None:
    shared = trio.CapacityLimiter(2)
    slow_archive, other_archive = (
        ArchiveService(reader, shared, library="rc"),
        ArchiveService(reader, shared, library="rc"),
    )
    slow = new_gate(gates)

    with trio.CancelScope() as caller:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(slow_archive.run, slow)
            await slow.wait_started()
            caller.cancel()  # the caller gives up (a timeout); the thread is still inside
    assert not slow.released.is_set()
    assert slow_archive.lock.borrowed_tokens == 1
    assert shared.borrowed_tokens == 1

    # Other archives still answer, using the remaining global token.
    assert await other_archive.run(lambda _: "other") == "other"
    assert shared.borrowed_tokens == 1

    results: list[str] = []

    async def next_call() -> None:
        results.append(await slow_archive.run(lambda _: "next"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(next_call)
        await trio.testing.wait_all_tasks_blocked()
        # Queued behind the abandoned thread, without a global token.
        assert results == []
        assert slow_archive.lock.statistics().tasks_waiting == 1
        assert shared.borrowed_tokens == 1
        slow.released.set()
    assert results == ["next"]
    assert slow_archive.lock.borrowed_tokens == 0
    assert shared.borrowed_tokens == 0


async def test_cancelled_queued_call_never_runs(reader: ZimReader, gates: list[Gate]) -> None:
    shared = trio.CapacityLimiter(2)
    service = ArchiveService(reader, shared, library="rc")
    slow = new_gate(gates)
    ran: list[str] = []

    async def queued_call() -> None:
        await service.run(lambda _: ran.append("queued"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(service.run, slow)
        await slow.wait_started()
        with trio.CancelScope() as waiter:
            async with trio.open_nursery() as queue:
                queue.start_soon(queued_call)
                await trio.testing.wait_all_tasks_blocked()
                assert service.lock.statistics().tasks_waiting == 1
                waiter.cancel()
        assert service.lock.statistics().tasks_waiting == 0
        slow.released.set()
    assert ran == []
    assert (service.lock.borrowed_tokens, shared.borrowed_tokens) == (0, 0)


async def test_global_pool_bounds_threads_across_archives(
    reader: ZimReader, gates: list[Gate]
) -> None:
    shared = trio.CapacityLimiter(1)
    first, second = (
        ArchiveService(reader, shared, library="rc"),
        ArchiveService(reader, shared, library="rc"),
    )
    slow = new_gate(gates)
    results: list[str] = []

    async def call_second() -> None:
        results.append(await second.run(lambda _: "second"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(first.run, slow)
        await slow.wait_started()
        nursery.start_soon(call_second)
        await trio.testing.wait_all_tasks_blocked()
        # The second archive is free but the only global token is taken.
        assert results == []
        assert second.lock.borrowed_tokens == 1
        assert shared.statistics().tasks_waiting == 1
        slow.released.set()
    assert results == ["second"]
    assert (first.lock.borrowed_tokens, second.lock.borrowed_tokens) == (0, 0)
    assert shared.borrowed_tokens == 0


async def test_exception_in_call_releases_tokens(reader: ZimReader) -> None:
    shared = trio.CapacityLimiter(1)
    service = ArchiveService(reader, shared, library="rc")

    def fail(reader: ZimReader) -> None:
        raise ValueError("inside libzim")

    with pytest.raises(ValueError, match="inside libzim"):
        await service.run(fail)
    assert (service.lock.borrowed_tokens, shared.borrowed_tokens) == (0, 0)


# -- archive faults: retiring and reopening -----------------------------------------------------


@pytest.fixture
def archive(demo_archives: dict[str, Path], tmp_path: Path) -> Path:
    """A served copy of the demo Wikipedia archive, free to break."""
    copy = tmp_path / "served" / "wikipedia.zim"
    copy.parent.mkdir()
    shutil.copyfile(demo_archives["Wikipedia"], copy)
    return copy


def write_in_place(target: Path, data: bytes) -> None:
    """What ``cp`` does to ``target``: the same inode, emptied, then written."""
    with target.open("wb") as writing:
        writing.write(data)


@pytest.fixture(autouse=True)
def zim_log_at_info(caplog: pytest.LogCaptureFixture) -> None:
    """The service's info lines (a library still unavailable, available again)."""
    caplog.set_level(logging.INFO, logger="corpus_mcp.zim")


def zim_records(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "corpus_mcp.zim"]


async def test_a_changed_file_retires_the_reader_with_one_warning(
    archive: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reader = ZimReader(archive)
    shared = trio.CapacityLimiter(2)
    service = ArchiveService(reader, shared, library="wiki")
    assert await service.run(lambda checked: checked.info.uuid) == reader.info.uuid
    size = archive.stat().st_size
    os.truncate(archive, size // 2)
    touched: list[ZimReader] = []
    for _ in range(2):
        with pytest.raises(ArchiveUnavailable) as caught:
            await service.run(touched.append)
        assert caught.value.library == "wiki"
        assert caught.value.reason == TRUNCATED
        assert str(caught.value) == "library 'wiki' is unavailable: archive file truncated"
    assert touched == []  # the mapping of the changed file was never reached
    assert zim_records(caplog) == [
        (
            logging.WARNING,
            f"library wiki unavailable: archive file truncated ({archive}: {size} -> "
            f"{size // 2} bytes); left out until a sound archive is at its path",
        )
    ]
    assert service.unavailable == TRUNCATED
    assert service.info is reader.info  # still known, for the cache keys and the log
    with pytest.raises(ArchiveUnavailable):
        _ = service.reader
    assert (service.lock.borrowed_tokens, shared.borrowed_tokens) == (0, 0)


async def test_reopen_waits_for_a_file_that_stays_the_same(
    archive: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pristine = archive.read_bytes()
    service = ArchiveService(ZimReader(archive), trio.CapacityLimiter(1), library="wiki")
    archive.unlink()
    service.check_file()
    assert service.unavailable == DELETED
    assert service.reopen(direct_index=True, check=False) is None
    write_in_place(archive, pristine[:1000])  # a copy in progress
    assert service.reopen(direct_index=True, check=False) is None  # first seen
    write_in_place(archive, pristine)
    assert service.reopen(direct_index=True, check=False) is None  # changed since
    assert service.unavailable == DELETED  # nothing opened yet, nothing new to say
    reopened = service.reopen(direct_index=True, check=False)
    assert reopened is not None
    assert reopened.handle.identity.inode == archive.stat().st_ino
    service.serve(reopened)
    assert service.unavailable is None
    assert service.enter() is reopened
    assert service.info is reopened.info
    [retired, restored] = zim_records(caplog)
    assert retired[0] == logging.WARNING
    assert "library wiki unavailable: archive file deleted" in retired[1]
    assert restored == (
        logging.INFO,
        f"library wiki available again: {archive} ({len(pristine)} bytes, "
        f"uuid {reopened.info.uuid})",
    )


async def test_a_reader_retired_then_replaced_is_never_let_back_in(archive: Path) -> None:
    pristine = archive.read_bytes()
    first = ZimReader(archive)
    service = ArchiveService(first, trio.CapacityLimiter(1), library="wiki")
    os.truncate(archive, 100)
    with pytest.raises(ArchiveUnavailable):
        service.verify(first)
    write_in_place(archive, pristine)
    while (second := service.reopen(direct_index=True, check=False)) is None:
        pass
    service.serve(second)
    with pytest.raises(ArchiveUnavailable) as caught:
        service.verify(first)  # a job that began before the fault, still going
    assert caught.value.reason == CHANGED  # the file it maps, rewritten in place
    service.verify(second)


@pytest.mark.parametrize(
    "case",
    [
        ("junk", NOT_AN_ARCHIVE, "Zim file(s) is of bad size or corrupted."),
        ("Python-Docs", OTHER_FAMILY, "a devdocs2zim archive (Scraper 'devdocs2zim"),
    ],
    ids=["not-an-archive", "another-family"],
)
async def test_reopen_refuses_what_the_library_cannot_serve(
    archive: Path,
    demo_archives: dict[str, Path],
    caplog: pytest.LogCaptureFixture,
    case: tuple[str, str, str],
) -> None:
    put, reason, detail = case
    service = ArchiveService(ZimReader(archive), trio.CapacityLimiter(1), library="wiki")
    if put == "junk":
        write_in_place(archive, archive.read_bytes()[:5000])
    else:
        write_in_place(archive, demo_archives[put].read_bytes())
    service.check_file()
    for _ in range(3):
        assert service.reopen(direct_index=True, check=False) is None
    assert service.unavailable == reason
    said = [message for level, message in zim_records(caplog) if level == logging.INFO]
    [still] = said  # once, not at every check
    assert still.startswith(f"library wiki still unavailable: {reason} ({archive}: ")
    assert detail in still


async def test_reopen_under_zim_check_refuses_an_archive_failing_it(
    shared_zims: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    served = tmp_path / "damaged.zim"
    shutil.copyfile(shared_zims / "invalid" / "invalid.nonsorted_title_index.zim", served)
    first = ZimReader(served)
    service = ArchiveService(first, trio.CapacityLimiter(1), library="damaged")
    rename_copy = tmp_path / "damaged.new"
    shutil.copyfile(served, rename_copy)
    os.replace(rename_copy, served)
    service.check_file()
    assert service.unavailable is None  # renamed over: the file held serves on
    assert service.reopen(direct_index=True, check=True) is None
    for _ in range(2):
        assert service.reopen(direct_index=True, check=True) is None
    assert service.unavailable is None
    assert service.enter() is first
    [refused] = [message for level, message in zim_records(caplog) if level == logging.WARNING]
    assert refused.startswith(
        f"library damaged: the new file at its path cannot be served: {FAILS_CHECK} ({served}: "
    )
    assert refused.endswith("; the old one goes on serving")
    assert service.reopen(direct_index=True, check=False) is not None  # it opens


async def test_reopen_looks_again_when_the_file_changes_while_it_opens(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = ArchiveService(ZimReader(archive), trio.CapacityLimiter(1), library="wiki")
    os.utime(archive, ns=(0, 0))
    service.check_file()
    assert service.unavailable == CHANGED
    assert service.reopen(direct_index=True, check=False) is None

    def touched_while_opening(file: str, *, direct_index: bool) -> ZimReader:
        os.utime(file, ns=(1, 1))  # between the look and the open
        return ZimReader(file, direct_index=direct_index)

    monkeypatch.setattr(service_module, "ZimReader", touched_while_opening)
    assert service.reopen(direct_index=True, check=False) is None
    monkeypatch.undo()
    assert service.reopen(direct_index=True, check=False) is not None


async def test_two_threads_finding_the_fault_at_once_say_it_once(
    archive: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = ZimReader(archive)
    service = ArchiveService(reader, trio.CapacityLimiter(1), library="wiki")
    os.truncate(archive, 100)
    changed = reader.handle.changed

    def another_thread_retires_it_meanwhile() -> FileProblem | None:
        monkeypatch.undo()
        service.check_file()  # the other thread: it retires the reader and says so
        return changed()

    monkeypatch.setattr(reader.handle, "changed", another_thread_retires_it_meanwhile)
    with pytest.raises(ArchiveUnavailable):
        service.verify(reader)
    assert [level for level, _ in zim_records(caplog)] == [logging.WARNING]


# -- a new file renamed over the served one: no outage ------------------------------------------


def rename_over(source: Path | bytes, target: Path) -> None:
    """The safe update: a complete new file written next to the served one, then moved
    over it (``source``: a file to copy, or the bytes to write)."""
    fresh = target.with_name(target.name + ".new")
    if isinstance(source, bytes):
        fresh.write_bytes(source)
    else:
        shutil.copyfile(source, fresh)
    os.replace(fresh, target)


async def test_a_file_renamed_over_is_served_once_sound_without_an_outage(
    archive: Path, demo_archives: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    old = ZimReader(archive)
    service = ArchiveService(old, trio.CapacityLimiter(1), library="wiki")
    assert not service.check_file()  # nothing new at the path
    rename_over(demo_archives["MDWiki"], archive)  # another archive of the same family
    assert service.check_file()  # no fault, and something for reopen to look at
    assert (service.unavailable, service.enter(), service.held) == (None, old, old)
    assert service.reopen(direct_index=True, check=False) is None  # first seen
    assert service.enter() is old
    new = service.reopen(direct_index=True, check=False)
    assert new is not None
    assert new.handle.identity.inode == archive.stat().st_ino
    assert await service.run(lambda reader: reader) is old  # not served until told
    service.serve(new)
    assert not service.check_file()
    assert (service.unavailable, service.enter(), service.info) == (None, new, new.info)
    # The file replaced is intact: a call still reading it goes on.
    assert old.handle.problem() is None
    service.verify(old)
    assert service.reopen(direct_index=True, check=False) is None  # nothing new now
    assert zim_records(caplog) == [
        (
            logging.INFO,
            "library wiki: a new file at its path; serving the old one until the new one is sound",
        ),
        (
            logging.INFO,
            f"library wiki now serves {archive} (replaced); {new.info.size} bytes, "
            f"uuid {new.info.uuid}",
        ),
    ]


async def test_a_new_file_that_cannot_be_served_leaves_the_old_one_serving(
    archive: Path, demo_archives: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    old = ZimReader(archive)
    service = ArchiveService(old, trio.CapacityLimiter(1), library="wiki")
    rename_over(demo_archives["Python-Docs"], archive)  # of another family
    for _ in range(4):
        assert service.reopen(direct_index=True, check=False) is None
        service.check_file()
    rename_over(b"no ZIM archive" * 64, archive)
    for _ in range(3):
        assert service.reopen(direct_index=True, check=False) is None
    assert (service.unavailable, service.enter()) == (None, old)
    said = zim_records(caplog)
    assert [level for level, _ in said] == [logging.INFO, logging.WARNING, logging.WARNING]
    assert f"cannot be served: {OTHER_FAMILY} ({archive}: a devdocs2zim archive" in said[1][1]
    assert f"cannot be served: {NOT_AN_ARCHIVE} ({archive}: " in said[2][1]


@AS_ROOT
async def test_a_new_file_that_cannot_be_read_is_not_served(
    archive: Path, demo_archives: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    old = ZimReader(archive)
    service = ArchiveService(old, trio.CapacityLimiter(1), library="wiki")
    rename_over(demo_archives["MDWiki"], archive)
    archive.chmod(0)
    for _ in range(3):
        service.check_file()  # the file held is still readable through its descriptor
        assert service.reopen(direct_index=True, check=False) is None
    assert service.enter() is old
    [_, refused] = zim_records(caplog)
    assert refused[1].startswith(
        f"library wiki: the new file at its path cannot be served: {UNREADABLE} ({archive}: "
    )
    archive.chmod(0o644)
    assert service.reopen(direct_index=True, check=False) is None  # first seen readable
    assert service.reopen(direct_index=True, check=False) is not None


async def test_the_path_back_on_the_served_file_is_nothing_new(
    archive: Path, demo_archives: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    old = ZimReader(archive)
    service = ArchiveService(old, trio.CapacityLimiter(1), library="wiki")
    aside = archive.with_name("aside.zim")
    os.link(archive, aside)  # the served file keeps a second name
    rename_over(demo_archives["MDWiki"], archive)
    assert service.reopen(direct_index=True, check=False) is None
    os.replace(aside, archive)  # the operator puts the old file back
    assert service.check_file()  # once more, so that reopen forgets the new file
    for _ in range(3):
        assert service.reopen(direct_index=True, check=False) is None
    assert not service.check_file()
    rename_over(demo_archives["MDWiki"], archive)  # then tries again: said again
    assert service.reopen(direct_index=True, check=False) is None
    noticed = [message for _, message in zim_records(caplog) if "a new file" in message]
    assert len(noticed) == 2
    assert service.enter() is old


async def test_a_deleted_path_is_a_fault_even_with_the_file_held_intact(archive: Path) -> None:
    """A restart could not open the library: it is unavailable now, not at the next
    restart, and the deleted file's space comes back once its last call ends."""
    service = ArchiveService(ZimReader(archive), trio.CapacityLimiter(1), library="wiki")
    archive.unlink()
    with pytest.raises(ArchiveUnavailable) as caught:
        await service.run(lambda reader: reader)
    assert caught.value.reason == DELETED
    assert service.held is None
    assert service.check_file()  # unavailable: reopen looks for a file back at the path


async def test_a_detached_library_finishes_its_calls_whatever_its_path_names(
    archive: Path, demo_archives: dict[str, Path]
) -> None:
    """A reload left it to the calls in flight: the old file may be deleted meanwhile."""
    reader = ZimReader(archive)
    service = ArchiveService(reader, trio.CapacityLimiter(1), library="wiki")
    service.detach()
    archive.unlink()
    assert await service.run(lambda checked: checked) is reader
    shutil.copyfile(demo_archives["MDWiki"], archive)  # another file there: not its business
    for _ in range(3):
        assert not service.check_file()
        assert service.reopen(direct_index=True, check=False) is None
    os.truncate(reader.handle.source, 100)  # the deleted file, through its descriptor
    with pytest.raises(ArchiveUnavailable) as caught:  # its own file is still checked
        await service.run(lambda checked: checked)
    assert caught.value.reason == TRUNCATED
    assert not service.check_file()  # unavailable, and not its business either


async def test_a_call_reads_one_reader_from_start_to_end(
    archive: Path, demo_archives: dict[str, Path]
) -> None:
    old = ZimReader(archive)
    service = ArchiveService(old, trio.CapacityLimiter(1), library="wiki")
    rename_over(demo_archives["MDWiki"], archive)
    while (new := service.reopen(direct_index=True, check=False)) is None:
        pass
    seen: list[ZimReader] = []
    with one_reader_per_call():
        assert service.info is old.info  # the first use pins it (a cache key, here)
        assert not readers_replaced()
        service.serve(new)
        seen.append(await service.run(lambda reader: reader))  # a worker thread

        async def child() -> None:
            seen.append(service.enter())

        async with trio.open_nursery() as nursery:  # child tasks read the same one
            nursery.start_soon(child)
        assert readers_replaced()
    assert seen == [old, old]
    with one_reader_per_call():  # the next call reads the new one
        assert await service.run(lambda reader: reader) is new
        assert not readers_replaced()
    assert service.enter() is new  # outside any call: the one served


async def test_a_call_that_began_while_unavailable_pins_what_is_served_later(
    archive: Path,
) -> None:
    pristine = archive.read_bytes()
    service = ArchiveService(ZimReader(archive), trio.CapacityLimiter(1), library="wiki")
    os.truncate(archive, 100)
    service.check_file()
    with one_reader_per_call():
        with pytest.raises(ArchiveUnavailable):
            service.enter()
        write_in_place(archive, pristine)
        while (back := service.reopen(direct_index=True, check=False)) is None:
            pass
        service.serve(back)
        assert service.enter() is back
        assert not readers_replaced()
