"""Load shedding (corpus_mcp.admission): turns for searches under trio's frozen clock, so
the tests decide when patience runs out."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from corpus_mcp.admission import Admission, Busy

PATIENCE = 1.0


async def _hold(admission: Admission, release: trio.Event, *, task_status: trio.TaskStatus) -> None:
    async with admission.turn():
        task_status.started()
        await release.wait()


async def test_searches_within_capacity_run_at_once(mock_clock: trio.testing.MockClock) -> None:
    admission = Admission(2, PATIENCE)
    release = trio.Event()
    async with trio.open_nursery() as nursery:
        await nursery.start(_hold, admission, release)
        await nursery.start(_hold, admission, release)
        release.set()


async def test_a_search_that_gets_its_turn_within_its_patience_runs(
    mock_clock: trio.testing.MockClock,
) -> None:
    admission = Admission(1, PATIENCE)
    release = trio.Event()
    ran = trio.Event()

    async def second() -> None:
        async with admission.turn():
            ran.set()

    async with trio.open_nursery() as nursery:
        await nursery.start(_hold, admission, release)
        nursery.start_soon(second)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(PATIENCE * 0.9)
        release.set()
    assert ran.is_set()


async def test_a_search_that_waited_its_patience_is_refused_with_a_retry_time(
    mock_clock: trio.testing.MockClock,
) -> None:
    admission = Admission(1, PATIENCE)
    release = trio.Event()
    refusals: list[Busy] = []

    async def late() -> None:
        with pytest.raises(Busy) as raised:
            async with admission.turn():
                raise AssertionError("a refused search must not run")
        refusals.append(raised.value)

    async with trio.open_nursery() as nursery:
        await nursery.start(_hold, admission, release)
        nursery.start_soon(late)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(PATIENCE)
        await trio.testing.wait_all_tasks_blocked()
        release.set()
    (busy,) = refusals
    assert (busy.running, busy.waiting) == (1, 0)
    assert busy.retry_after >= 1
    assert str(busy) == "searches running: 1, waiting: 0"


async def test_the_retry_time_grows_with_the_queue_and_how_long_searches_take(
    mock_clock: trio.testing.MockClock,
) -> None:
    admission = Admission(1, PATIENCE)
    # Searches have been taking 10 s each (the running average learns it).
    for _ in range(30):
        async with admission.turn():
            mock_clock.jump(10.0)
    release = trio.Event()
    refusals: list[Busy] = []

    async def waiter() -> None:
        try:
            async with admission.turn():
                pass
        except Busy as busy:
            refusals.append(busy)

    async with trio.open_nursery() as nursery:
        await nursery.start(_hold, admission, release)
        for _ in range(3):  # each arrives a little after the one before
            nursery.start_soon(waiter)
            await trio.testing.wait_all_tasks_blocked()
            mock_clock.jump(PATIENCE / 10)
        # Patience runs out for one at a time (the last arrived at 0.2).
        for step in (PATIENCE * 0.7, PATIENCE / 10, PATIENCE / 10):
            mock_clock.jump(step)
            await trio.testing.wait_all_tasks_blocked()
        release.set()
    # The first refused still had two searches queued behind it, ~10 s each; the last
    # refused had none.
    assert [busy.waiting for busy in refusals] == [2, 1, 0]
    assert refusals[0].retry_after >= 15
    assert refusals[-1].retry_after == 1


async def test_a_refused_or_finished_search_leaves_no_turn_taken(
    mock_clock: trio.testing.MockClock,
) -> None:
    admission = Admission(1, PATIENCE)
    with pytest.raises(RuntimeError):
        async with admission.turn():
            raise RuntimeError("the search failed")
    with trio.fail_after(PATIENCE / 2):  # the turn came back: no wait at all
        async with admission.turn():
            pass
