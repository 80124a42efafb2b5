"""One search's index work: its libraries walked in turn by one worker thread, stalls
handed over to a fresh one.

Most of the work around each index call holds the GIL (python-libzim holds it even
inside its calls), so a thread per library buys contention, not speed: the libraries of
one search took about twice as long in a thread each as in one thread one after the
other (DEVELOPERS.md). So one worker thread walks a queue of the search's libraries, and
concurrent searches walk in parallel, each in its own thread.

Isolation is kept. A library that raises fails alone. A library whose call has not
returned after ``stall`` seconds (a hung disk, a native call that never comes back) is
abandoned to its thread and reported failed, and a fresh walker takes the rest of the
queue. Until that thread comes back the library is *stuck*: later searches report it
failed at once instead of sending it another thread. Searches that arrive together, before
any of them has given up, are kept out too: at most :class:`Occupancy`'s limit of walkers
(of all searches) are inside one library, the others do their other libraries first and
then wait for a place, leaving the library as soon as it is known to be stuck. So stuck
work cannot pile up threads, nor take every walker from the healthy libraries.
Everything ends at the search's ``deadline``; time spent waiting for a free walker counts
too.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

import msgspec
import trio

T = TypeVar("T")
A = TypeVar("A")

Checkpoint = Callable[[], None]


class Job(msgspec.Struct, Generic[T], frozen=True):
    """One library's work: ``run(checkpoint)`` calls ``checkpoint`` between index calls."""

    name: str
    run: Callable[[Checkpoint], T]


class Failure(msgspec.Struct, frozen=True):
    """Why a library has no answer: ``raised``, ``stalled``, ``stuck`` or ``late``."""

    kind: str
    detail: str
    elapsed: float
    """Seconds from the start of the library's work (or of the search) to the verdict."""


class Stuck:
    """Libraries with an abandoned call still inside them (shared by all searches and
    fetches): a library is stuck from the first such call until the last returns."""

    def __init__(self) -> None:
        self._since: dict[str, float] = {}
        self._inside: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, name: str) -> None:
        with self._lock:
            self._since.setdefault(name, time.monotonic())
            self._inside[name] = self._inside.get(name, 0) + 1

    def discard(self, name: str) -> None:
        with self._lock:
            left = self._inside.get(name, 0) - 1
            if left > 0:
                self._inside[name] = left
            else:
                self._inside.pop(name, None)
                self._since.pop(name, None)

    def since(self, name: str) -> float | None:
        with self._lock:
            return self._since.get(name)

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._since

    def names(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(sorted(self._since))


class Abandonable(Generic[A]):
    """One archive call outside a walk (a document read) that its caller may give up.

    Given up while its thread is inside (:meth:`abandon`, on cancellation), the call
    makes its library stuck until the thread comes back, like a stalled walker: later
    calls then fail at once instead of queueing on the archive that thread holds. Given
    up before its thread began, it costs nothing (the thread skips the work).
    """

    def __init__(self, stuck: Stuck, name: str) -> None:
        self._stuck = stuck
        self._name = name
        self._lock = threading.Lock()
        self._inside = False
        self._counted = False
        """Whether this call made its library stuck (undone when it comes back)."""

    def wrap(self, fn: Callable[[A], T]) -> Callable[[A], T]:
        """``fn`` with its time inside recorded, for the worker thread to run."""

        def call(arg: A) -> T:
            with self._lock:
                self._inside = True
            try:
                return fn(arg)
            finally:
                with self._lock:
                    self._inside = False
                    if self._counted:
                        self._stuck.discard(self._name)

        return call

    def abandon(self) -> None:
        with self._lock:
            if self._inside and not self._counted:
                self._counted = True
                self._stuck.add(self._name)


class Occupancy:
    """How many walkers (of all searches) are inside each library's work right now.

    At most ``limit`` at a time: a burst of searches arriving together would otherwise
    send a walker each into a library that has just hung, before the first of them could
    be given up, and every one of those threads would stay inside with its token. A
    walker finding a library full does the search's other libraries first, then waits
    for a place, and gives the library up as soon as it is known to be stuck.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._inside: dict[str, int] = {}
        self._changed = threading.Condition()

    def try_enter(self, name: str) -> bool:
        with self._changed:
            if self._inside.get(name, 0) >= self.limit:
                return False
            self._inside[name] = self._inside.get(name, 0) + 1
            return True

    def wait(self, seconds: float) -> None:
        """Until a walker leaves some library (or ``seconds`` pass)."""
        with self._changed:
            self._changed.wait(seconds)

    def leave(self, name: str) -> None:
        with self._changed:
            self._inside[name] -= 1
            if not self._inside[name]:
                del self._inside[name]
            self._changed.notify_all()

    def inside(self, name: str) -> int:
        with self._changed:
            return self._inside.get(name, 0)


#: How often a walker waiting for a place in a full library looks whether it was given
#: up or the library became stuck (a leaving walker wakes it at once).
_WAIT_STEP = 0.05


class _Abandoned(Exception):
    """Raised by a walker's checkpoint once the search gave up on it."""


class _StuckMeanwhile(Exception):
    """A library became stuck while this walker waited for a place in it."""


class _Walker:
    """A worker thread walking the shared queue until it is empty or given up on.

    It tells the search's task nothing while it walks (every message would wake the
    event loop and fight the walker for the GIL): it records what it is doing and what
    came back, and the task looks when it wakes up.
    """

    def __init__(self, queue: deque[Job[T]]) -> None:
        self.queue = queue
        self.abandoned = threading.Event()
        self.current: tuple[int, str] | None = None
        """The job in progress, numbered so that two looks can tell it is the same one."""
        self.finished: deque[tuple[str, object]] = deque()
        self.seen: tuple[int, str] | None = None
        """What the task saw in progress at its last look."""
        self.lock = threading.Lock()
        """Held while a job's end is recorded and while the walker is given up, so that
        a library counts as stuck exactly while a given-up call is inside it."""
        self._count = 0

    def checkpoint(self) -> None:
        if self.abandoned.is_set():
            raise _Abandoned

    def walk(self, stuck: Stuck, occupancy: Occupancy) -> None:
        full = 0  # jobs in a row put back because their library was full
        while not self.abandoned.is_set():
            try:
                job = self.queue.popleft()
            except IndexError:
                return
            if job.name in stuck:  # became stuck while this search was under way
                self.finished.append((job.name, _StuckMeanwhile()))
                continue
            if not occupancy.try_enter(job.name):
                # Full: the other libraries first; with only full ones left, wait for
                # a place (a leaving walker wakes this one).
                self.queue.append(job)
                full += 1
                if full >= len(self.queue):
                    occupancy.wait(_WAIT_STEP)
                    full = 0
                continue
            full = 0
            self._count += 1
            self.current = (self._count, job.name)
            try:
                value: object = job.run(self.checkpoint)
            except _Abandoned:
                value = None
            except Exception as exc:  # one library's failure is its own
                value = exc
            finally:
                occupancy.leave(job.name)
            with self.lock:
                if self.abandoned.is_set():  # came back after the search gave up on it
                    stuck.discard(job.name)
                    return
                self.finished.append((job.name, value))
                self.current = None


async def fan_out(
    jobs: Iterable[Job[T]],
    *,
    deadline: float,
    stall: float,
    limiter: trio.CapacityLimiter,
    stuck: Stuck,
    occupancy: Occupancy | None = None,
) -> tuple[dict[str, T], dict[str, Failure]]:
    """Run every job, one walker thread at a time (see the module docstring).

    ``deadline`` is on trio's clock. Every ``stall`` seconds the walk is looked at: a
    library still in the very call it was in at the previous look is given up, and a
    fresh walker takes the rest of the queue (so a stalled library costs between one
    and two ``stall`` periods). Returns the values and the failures by library name;
    every job is in exactly one of them.
    """
    walk = _Walk[T](
        deadline=deadline,
        stall=stall,
        limiter=limiter,
        stuck=stuck,
        occupancy=occupancy or Occupancy(int(limiter.total_tokens)),
    )
    for job in jobs:
        if job.name in stuck:
            walk.failures[job.name] = Failure("stuck", "an earlier search is still inside it", 0.0)
        else:
            walk.queue.append(job)
            walk.pending.add(job.name)
    if walk.pending:
        async with trio.open_nursery() as nursery:
            await walk.run(nursery)
    return walk.values, walk.failures


class _Walk(Generic[T]):
    """The state of one :func:`fan_out`: the queue, the walkers, what came back."""

    def __init__(
        self,
        *,
        deadline: float,
        stall: float,
        limiter: trio.CapacityLimiter,
        stuck: Stuck,
        occupancy: Occupancy,
    ) -> None:
        self.deadline = deadline
        self.stall = stall
        self.limiter = limiter
        self.stuck = stuck
        self.occupancy = occupancy
        self.begun = trio.current_time()
        self.queue: deque[Job[T]] = deque()
        self.pending: set[str] = set()
        self.values: dict[str, T] = {}
        self.failures: dict[str, Failure] = {}
        self.walkers: dict[_Walker, trio.CancelScope] = {}
        self.exits: trio.MemorySendChannel[_Walker]
        self.exits, self.exited = trio.open_memory_channel[_Walker](float("inf"))

    async def run(self, nursery: trio.Nursery) -> None:
        self.start_walker(nursery)
        while self.pending and self.walkers:
            with trio.move_on_at(min(self.deadline, trio.current_time() + self.stall)):
                walker = await self.exited.receive()
                self.collect(walker)
                if self.walkers.pop(walker, None) is not None and self.queue:
                    self.start_walker(nursery)  # it ended early: someone must go on
                continue
            for walker in list(self.walkers):
                self.collect(walker)
                self.look_at(walker)
            if trio.current_time() >= self.deadline:
                break
            if self.queue and not self.walkers:
                self.start_walker(nursery)
        for walker in list(self.walkers):
            self.collect(walker)
            self.give_up(walker, "no answer before the deadline")
        for name in self.pending:
            # Never started: the walkers were busy or stalled until the deadline.
            elapsed = trio.current_time() - self.begun
            self.failures[name] = Failure("late", "not reached before the deadline", elapsed)

    def start_walker(self, nursery: trio.Nursery) -> None:
        walker = _Walker(self.queue)
        scope = self.walkers[walker] = trio.CancelScope()
        nursery.start_soon(self.run_walker, walker, scope)

    async def run_walker(self, walker: _Walker, scope: trio.CancelScope) -> None:
        with scope:
            try:
                await trio.to_thread.run_sync(
                    walker.walk,
                    self.stuck,
                    self.occupancy,
                    limiter=self.limiter,
                    abandon_on_cancel=True,
                )
            finally:
                self.exits.send_nowait(walker)

    def collect(self, walker: _Walker) -> None:
        """Take what the walker has finished so far."""
        while walker.finished:
            name, value = walker.finished.popleft()
            self.pending.discard(name)
            if isinstance(value, _StuckMeanwhile):
                elapsed = trio.current_time() - self.begun
                self.failures[name] = Failure("stuck", "another search is still inside it", elapsed)
            elif isinstance(value, Exception):
                elapsed = trio.current_time() - self.begun
                self.failures[name] = Failure("raised", _describe(value), elapsed)
            else:
                self.values[name] = value  # type: ignore[assignment]

    def look_at(self, walker: _Walker) -> None:
        """Give the walker up when it is in the same call as at the last look."""
        current = walker.current
        if current is not None and current == walker.seen:
            self.give_up(walker, "no answer in time")
        else:
            walker.seen = current

    def give_up(self, walker: _Walker, why: str) -> None:
        with walker.lock:
            walker.abandoned.set()
            current = walker.current
            if current is not None:
                # Its thread stays inside the library until the call returns.
                self.stuck.add(current[1])
        self.walkers.pop(walker).cancel()
        self.collect(walker)
        if current is not None and current[1] in self.pending:
            self.pending.discard(current[1])
            elapsed = trio.current_time() - self.begun
            self.failures[current[1]] = Failure("stalled", why, elapsed)


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason) if reason else f"{type(exc).__name__}: {exc}"
