"""ArchiveService under trio: the per-archive lock outlives abandoned calls, tokens never leak."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.testing

from corpus_mcp.zim import ArchiveService, ChainedLimiter, ZimReader, stop_if_abandoned

MINI_2020 = "wikipedia_en_ray_charles_mini_2020-03.zim"


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
