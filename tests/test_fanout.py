"""The per-search walk over libraries (corpus_mcp.fanout), with jobs that answer, raise,
block or loop, under trio's frozen clock: the tests decide when a look or a deadline
comes."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

import trio
import trio.testing

from corpus_mcp.fanout import Abandonable, Checkpoint, Failure, Job, Occupancy, Stuck, fan_out

STALL = 1.0
DEADLINE = 10.0
Outcome = tuple[dict[str, str], dict[str, Failure]]


def _answer(value: str) -> Callable[[Checkpoint], str]:
    return lambda checkpoint: value


def _raise(checkpoint: Checkpoint) -> str:
    raise RuntimeError("corrupt cluster")


class Blocking:
    """A job that blocks its thread until released (a call that never comes back)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.returned = threading.Event()

    def __call__(self, checkpoint: Checkpoint) -> str:
        self.entered.set()
        self.release.wait()
        self.returned.set()
        return "late answer"


async def _run(
    jobs: list[Job[str]],
    stuck: Stuck | None = None,
    workers: int = 2,
    occupancy: Occupancy | None = None,
) -> tuple[dict[str, str], dict[str, Failure]]:
    return await fan_out(
        jobs,
        deadline=trio.current_time() + DEADLINE,
        stall=STALL,
        limiter=trio.CapacityLimiter(workers),
        stuck=stuck or Stuck(),
        occupancy=occupancy,
    )


async def _looks(clock: trio.testing.MockClock, count: int = 2) -> None:
    for _ in range(count):
        await trio.testing.wait_all_tasks_blocked()
        clock.jump(STALL)


async def test_every_library_answers_in_one_walk(mock_clock: trio.testing.MockClock) -> None:
    jobs = [Job(name, _answer(name.upper())) for name in ("a", "b", "c")]
    values, failures = await _run(jobs)
    assert values == {"a": "A", "b": "B", "c": "C"}
    assert failures == {}


async def test_a_library_that_raises_fails_alone(mock_clock: trio.testing.MockClock) -> None:
    values, failures = await _run(
        [Job("a", _answer("A")), Job("bad", _raise), Job("c", _answer("C"))]
    )
    assert values == {"a": "A", "c": "C"}
    assert failures["bad"].kind == "raised"
    assert "corrupt cluster" in failures["bad"].detail


async def _cleared(stuck: Stuck, name: str) -> bool:
    """Whether ``name`` stops being stuck within ten real seconds: the walker records
    its call's return just after the call, in its own thread."""
    for _ in range(1000):
        if name not in stuck:
            return True
        await trio.to_thread.run_sync(threading.Event().wait, 0.01)
    return name not in stuck


async def test_a_stalled_library_is_given_up_and_the_rest_walk_on(
    mock_clock: trio.testing.MockClock,
) -> None:
    blocking, stuck = Blocking(), Stuck()
    jobs = [Job("a", _answer("A")), Job("slow", blocking), Job("c", _answer("C"))]
    async with trio.open_nursery() as nursery:
        result: list[Outcome] = []
        nursery.start_soon(_collect, result, _run(jobs, stuck))
        await trio.to_thread.run_sync(blocking.entered.wait)
        await _looks(mock_clock)  # the same call at two looks in a row
    [(values, failures)] = result
    assert values == {"a": "A", "c": "C"}
    assert failures["slow"].kind == "stalled"
    assert "slow" in stuck  # its thread is still inside
    blocking.release.set()
    await trio.to_thread.run_sync(blocking.returned.wait)
    assert await _cleared(stuck, "slow")


async def test_a_stuck_library_is_skipped_without_calling_it(
    mock_clock: trio.testing.MockClock,
) -> None:
    stuck = Stuck()
    stuck.add("slow")
    called: list[str] = []

    def job(checkpoint: Checkpoint) -> str:
        called.append("slow")
        return "S"

    values, failures = await _run([Job("slow", job), Job("a", _answer("A"))], stuck)
    assert values == {"a": "A"}
    assert failures["slow"].kind == "stuck"
    assert called == []


async def test_libraries_not_reached_by_the_deadline_are_late(
    mock_clock: trio.testing.MockClock,
) -> None:
    # One walker thread, kept by a stalled library: the rest wait for it in vain.
    blocking = Blocking()
    jobs = [Job("slow", blocking), Job("a", _answer("A"))]
    async with trio.open_nursery() as nursery:
        result: list[Outcome] = []
        nursery.start_soon(_collect, result, _run(jobs, workers=1))
        await trio.to_thread.run_sync(blocking.entered.wait)
        await _looks(mock_clock)
        await trio.testing.wait_all_tasks_blocked()
        assert result == []
        mock_clock.jump(DEADLINE)
    [(values, failures)] = result
    assert values == {}
    assert (failures["slow"].kind, failures["a"].kind) == ("stalled", "late")
    blocking.release.set()


async def test_a_given_up_walker_stops_at_its_next_checkpoint(
    mock_clock: trio.testing.MockClock,
) -> None:
    # A long job that checks in between its calls stops as soon as it is given up,
    # so its library is not stuck any more once that call has returned.
    entered, step = threading.Event(), threading.Semaphore(0)
    stuck = Stuck()

    def looping(checkpoint: Checkpoint) -> str:
        entered.set()
        while True:
            step.acquire()  # one "call"
            checkpoint()

    async with trio.open_nursery() as nursery:
        result: list[Outcome] = []
        nursery.start_soon(_collect, result, _run([Job("loop", looping)], stuck))
        await trio.to_thread.run_sync(entered.wait)
        await _looks(mock_clock)
    assert result[0][1]["loop"].kind == "stalled"
    step.release()  # the call in progress returns; the checkpoint stops the job
    assert await _cleared(stuck, "loop")


async def test_a_full_library_waits_while_the_others_answer_and_is_left_once_stuck(
    mock_clock: trio.testing.MockClock,
) -> None:
    # One walker at a time inside a library: the first search's hangs there; the second
    # does its other library, waits for a place, and leaves the library once the first
    # search has given up on it (stuck) instead of sending a second thread in.
    blocking, stuck, occupancy = Blocking(), Stuck(), Occupancy(1)
    first: list[Outcome] = []
    second: list[Outcome] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_collect, first, _run([Job("slow", blocking)], stuck, 4, occupancy))
        await trio.to_thread.run_sync(blocking.entered.wait)
        jobs = [Job("slow", _answer("never")), Job("a", _answer("A"))]
        nursery.start_soon(_collect, second, _run(jobs, stuck, 4, occupancy))
        await _looks(mock_clock)  # the first search gives the hanging library up
        await _until(lambda: bool(second))
    assert first[0][1]["slow"].kind == "stalled"
    [(values, failures)] = second
    assert values == {"a": "A"}
    assert failures["slow"].kind == "stuck"
    assert occupancy.inside("slow") == 1  # only the first walker ever went in
    blocking.release.set()
    await _until(lambda: occupancy.inside("slow") == 0)


async def test_a_walker_leaving_a_full_library_lets_the_next_one_in(
    mock_clock: trio.testing.MockClock,
) -> None:
    blocking, occupancy = Blocking(), Occupancy(1)
    first: list[Outcome] = []
    second: list[Outcome] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_collect, first, _run([Job("lib", blocking)], occupancy=occupancy))
        await trio.to_thread.run_sync(blocking.entered.wait)
        nursery.start_soon(_collect, second, _run([Job("lib", _answer("B"))], occupancy=occupancy))
        await trio.testing.wait_all_tasks_blocked()
        assert second == []  # waiting for its place
        blocking.release.set()
    assert first[0][0] == {"lib": "late answer"}
    assert second[0][0] == {"lib": "B"}


async def _until(condition: Callable[[], bool]) -> None:
    """Wait in real time (walkers are threads) until ``condition`` holds; a hang guard."""
    for _ in range(2000):
        if condition():
            return
        await trio.to_thread.run_sync(threading.Event().wait, 0.005)
    raise AssertionError("never happened")


async def _collect(into: list[Outcome], run: Awaitable[Outcome]) -> None:
    into.append(await run)


def test_a_library_is_stuck_until_its_last_abandoned_call_returns() -> None:
    stuck = Stuck()
    stuck.add("wiki")
    stuck.add("wiki")
    stuck.discard("wiki")
    assert "wiki" in stuck
    stuck.discard("wiki")
    assert "wiki" not in stuck
    assert stuck.since("wiki") is None


def test_a_call_given_up_inside_makes_its_library_stuck_until_it_returns() -> None:
    stuck, blocking = Stuck(), Blocking()
    call = Abandonable[Checkpoint](stuck, "wiki")
    thread = threading.Thread(target=call.wrap(blocking), args=(lambda: None,))
    thread.start()
    blocking.entered.wait()
    call.abandon()  # what a cancelled caller does
    assert "wiki" in stuck
    blocking.release.set()
    thread.join()
    assert stuck.names() == ()


def test_a_call_given_up_before_it_began_or_after_it_returned_leaves_no_mark() -> None:
    stuck = Stuck()
    early = Abandonable[Checkpoint](stuck, "wiki")
    early.abandon()
    assert "wiki" not in stuck
    done = Abandonable[Checkpoint](stuck, "wiki")
    assert done.wrap(_answer("ok"))(lambda: None) == "ok"
    done.abandon()
    assert "wiki" not in stuck
