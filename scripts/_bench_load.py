"""Agents under load: N concurrent clients, each asking new questions (search, then fetch
of what the first hit points to), with the server watched while they run.

While a phase runs, a probe asks ``/healthz`` every 50 ms on a connection of its own
(its latency is the event-loop lag proxy: the answer needs the loop and nothing else) and
a sampler reads the server's process tree from /proc every 0.2 s (threads, RSS).
"""

from __future__ import annotations

import itertools
import resource
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import trio
from _bench_clients import CallFailed, KiwixClient, McpClient, scrape
from _bench_plan import LIMIT, variant
from _processes import ProcessSample, sample

AGENTS = 16
"""Concurrent agents in the load sections."""
PROBE_SECONDS = 0.05
SAMPLE_SECONDS = 0.2
FIRST_LOAD_VARIANT = 1_000
"""Variants for load start here, past those the single-agent rounds used."""

T = TypeVar("T")


class NewQueries:
    """An endless supply of questions never asked before: the base questions in turn,
    each time with another variant (same documents, new strings)."""

    def __init__(self, queries: Sequence[str]) -> None:
        self._bases = itertools.cycle(queries)
        self._numbers = itertools.count(FIRST_LOAD_VARIANT)

    def __next__(self) -> str:
        return variant(next(self._bases), next(self._numbers))

    def __iter__(self) -> Iterator[str]:
        return self


@dataclass
class Phase:
    """What the clients of one phase did."""

    agents: int
    seconds: float = 0.0
    searches: list[float] = field(default_factory=list)
    fetches: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    partial: int = 0
    empty: int = 0
    """Answers without a single result."""
    unavailable: Counter[str] = field(default_factory=Counter)
    """Libraries named unavailable, per answer."""
    probe: list[float] = field(default_factory=list)
    lag: dict[str, dict[float, float]] = field(default_factory=dict)
    """Each serving process's own event-loop lag over the phase (its ``process`` label,
    ``-`` for a server of one process): upper bound (s) -> samples at or below it (the
    corpus_mcp_event_loop_lag_seconds histogram's growth)."""
    calls: dict[str, float] = field(default_factory=dict)
    """Tool calls each serving process answered over the phase (by ``process``)."""
    samples: list[ProcessSample] = field(default_factory=list)
    server_cpu: float = 0.0
    client_cpu: float = 0.0

    @property
    def throughput(self) -> float:
        return (len(self.searches) + len(self.fetches)) / self.seconds if self.seconds else 0.0


Agent = Callable[[Phase, float], Awaitable[None]]
"""Runs one client until the deadline (``time.monotonic``), recording into the phase."""


async def _timed(phase: Phase, samples: list[float], call: Awaitable[T]) -> T | None:
    """``call``'s value, its latency added to ``samples``; None (and counted) if it failed."""
    started = time.perf_counter()
    try:
        value = await call
    except CallFailed as failure:
        phase.errors[failure.kind] += 1
        return None
    samples.append(time.perf_counter() - started)
    return value


def mcp_agent(base: str, queries: NewQueries, *, fetch: bool = True) -> Agent:
    async def run(phase: Phase, deadline: float) -> None:
        async with McpClient(base) as client:
            while time.monotonic() < deadline:
                found = await _timed(phase, phase.searches, client.search(next(queries), LIMIT))
                if found is None:
                    continue
                phase.partial += found.partial
                phase.empty += not found.hits
                phase.unavailable.update(found.unavailable)
                if fetch and found.hits:
                    first = found.hits[0]
                    await _timed(phase, phase.fetches, client.fetch(first.ref, first.sections))

    return run


def kiwix_agent(base: str, books: Sequence[str], queries: NewQueries) -> Agent:
    async def run(phase: Phase, deadline: float) -> None:
        async with KiwixClient(base, books) as client:
            while time.monotonic() < deadline:
                links = await _timed(phase, phase.searches, client.search(next(queries), LIMIT))
                if links:
                    await _timed(phase, phase.fetches, client.get(links[0]))

    return run


async def run_phase(
    agent: Agent, agents: int, seconds: float, pid: int, probe_base: str | None
) -> Phase:
    """``agents`` copies of ``agent`` for ``seconds``, with the server (``pid``) sampled
    and, when ``probe_base`` is given, its ``/healthz`` probed."""
    phase = Phase(agents)
    lag_before, calls_before = await _figures(probe_base) if probe_base else ({}, {})
    deadline = time.monotonic() + seconds
    before, client_before = sample(pid), _own_cpu()
    started = time.perf_counter()
    async with trio.open_nursery() as watchers:
        watchers.start_soon(_sampler, pid, phase)
        if probe_base is not None:
            watchers.start_soon(_probe, probe_base, phase)
        async with trio.open_nursery() as clients:
            for _ in range(agents):
                clients.start_soon(agent, phase, deadline)
        phase.seconds = time.perf_counter() - started
        watchers.cancel_scope.cancel()
    phase.server_cpu = sample(pid).cpu_seconds - before.cpu_seconds
    phase.client_cpu = _own_cpu() - client_before
    if probe_base:
        after, calls_after = await _figures(probe_base)
        phase.calls = {
            process: calls - calls_before.get(process, 0.0)
            for process, calls in calls_after.items()
        }
        phase.lag = {
            process: {
                bound: count - lag_before.get(process, {}).get(bound, 0.0)
                for bound, count in buckets.items()
            }
            for process, buckets in after.items()
        }
    return phase


async def _figures(base: str) -> tuple[dict[str, dict[float, float]], dict[str, float]]:
    """Each serving process's loop-lag histogram (cumulative buckets) and tool calls,
    from /metrics: a scrape of several processes shows every one's series as of the
    scrape, labelled ``process`` (``-``: a server of one process)."""
    found = await scrape(base)
    buckets: dict[str, dict[float, float]] = {}
    calls: dict[str, float] = {}
    for (name, labels), value in found.items():
        named = dict(labels)
        process = named.get("process", "-")
        if name == "corpus_mcp_event_loop_lag_seconds_bucket":
            buckets.setdefault(process, {})[float(named["le"])] = value
        elif name == "corpus_mcp_tool_calls_total":
            calls[process] = calls.get(process, 0.0) + value
    return buckets, calls


async def _probe(base: str, phase: Phase) -> None:
    async with McpClient(base) as client:
        while True:
            started = time.perf_counter()
            try:
                await client.get("/healthz")
            except CallFailed as failure:
                phase.errors[f"healthz {failure.kind}"] += 1
            phase.probe.append(time.perf_counter() - started)
            await trio.sleep(PROBE_SECONDS)


async def _sampler(pid: int, phase: Phase) -> None:
    while True:
        phase.samples.append(sample(pid))
        await trio.sleep(SAMPLE_SECONDS)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
