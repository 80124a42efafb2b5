"""Load shedding: how many searches run at once, and refusing those that cannot start in time.

Past the point where both cores are busy, running more searches at once only makes each
of them slower: a burst of 200 would all end at their deadline, most of them partial. So
at most ``capacity`` searches run; the others queue, and one that has queued for its
``patience`` (a share of SEARCH_TIMEOUT) is refused with :class:`Busy`, which tells the
agent when to try again. A quick, retryable refusal is worth more to an agent than an
empty answer five seconds later.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

#: Weight of the newest search in the running average of how long one takes.
_SMOOTHING = 0.2


class Busy(Exception):
    """No turn came within the patience: the server is overloaded."""

    def __init__(self, retry_after: int, running: int, waiting: int) -> None:
        super().__init__(f"searches running: {running}, waiting: {waiting}")
        self.retry_after = retry_after
        self.running = running
        self.waiting = waiting


class Admission:
    """Turns for searches: ``async with admission.turn(): ...``."""

    def __init__(self, capacity: int, patience: float) -> None:
        self._limiter = trio.CapacityLimiter(capacity)
        self._patience = patience
        self._average = 0.0
        """Seconds a search takes once running (a running average)."""

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for a turn (at most the patience), hold it while the body runs."""
        with trio.move_on_after(self._patience) as waiting:
            await self._limiter.acquire()
        if waiting.cancelled_caught:  # acquire was cancelled: no token is held
            raise self._busy()
        started = trio.current_time()
        try:
            yield
        finally:
            self._limiter.release()
            took = trio.current_time() - started
            self._average += _SMOOTHING * (took - self._average)

    def _busy(self) -> Busy:
        """The refusal, with how long the queue ahead should take to drain."""
        stats = self._limiter.statistics()
        drain = stats.tasks_waiting * self._average / max(stats.total_tokens, 1)
        return Busy(max(1, math.ceil(drain)), stats.borrowed_tokens, stats.tasks_waiting)
