"""Sections 3 and 4: many agents against one on the same servers, then the memory both
servers took over the whole single-server part of the run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import trio
from _bench_clients import scrape
from _bench_load import AGENTS, NewQueries, Phase, kiwix_agent, mcp_agent, run_phase
from _bench_peers import KIWIX, MCP, Peers
from _bench_report import Goal, Latency, heading, mb, ms, ratio, table, verdict
from _processes import ProcessSample, resident_bytes, sample

GOAL_THROUGHPUT_SHARE = 0.85
"""AGENTS agents should reach this share of (cores x one agent's throughput)."""
GOAL_LAG_MS = 20.0
GOAL_MEMORY = 2.0
"""Issue 20: the tree's peak PSS at most this multiple of kiwix-serve's."""
WATCH_SECONDS = 0.5
FLAT_RSS = 1.05
"""RSS counts as flat when the last quarter's peak is within 5 % of the first's."""


async def many_agents(
    peers: Peers, queries: Sequence[str], *, seconds: float, repeats: int, warmup: float
) -> list[Goal]:
    """Section 3: a warm-up, then one agent and AGENTS agents on each server, in turn,
    ``repeats`` times ``seconds``; the table, the notes and the goals' lines."""
    heading(
        f"measuring 3: {AGENTS} agents vs one, {repeats} x {seconds:g} s per phase, alternating ..."
    )
    mcp_new, kiwix_new = NewQueries(queries), NewQueries(queries)
    warm = mcp_agent(peers.mcp.base, mcp_new)
    await run_phase(warm, AGENTS, warmup, peers.mcp.pid, None)
    phases: dict[tuple[str, int], list[Phase]] = {}
    for _ in range(repeats):
        for peer, agents in ((MCP, 1), (KIWIX, 1), (MCP, AGENTS), (KIWIX, AGENTS)):
            if peer == MCP:
                agent, pid = mcp_agent(peers.mcp.base, mcp_new), peers.mcp.pid
            elif peers.kiwix is not None:
                agent, pid = kiwix_agent(peers.kiwix.base, peers.books, kiwix_new), peers.kiwix.pid
            else:
                continue
            probe = peers.mcp.base if peer == MCP else None
            phase = await run_phase(agent, agents, seconds, pid, probe)
            phases.setdefault((peer, agents), []).append(phase)
    return _report(phases)


def _lag_quantiles(phases: list[Phase], q: float) -> dict[str, float]:
    """The ``q`` quantile of each serving process's loop lag over ``phases``, in ms."""
    processes = sorted({process for phase in phases for process in phase.lag})
    return {
        process: _quantile([phase.lag.get(process, {}) for phase in phases], q)
        for process in processes
    }


def _worst(quantiles: dict[str, float]) -> float:
    return max(quantiles.values(), default=float("nan"))


def _lags(quantiles: dict[str, float]) -> str:
    """``<= 10.0 ms`` for one process, ``<= 10.0 / 20.0 ms (processes 1 / 2)`` for more."""
    if list(quantiles) == ["-"]:
        return f"<= {ms(quantiles['-'])} ms"
    figures = " / ".join(ms(value) for value in quantiles.values())
    return f"<= {figures} ms (processes {' / '.join(quantiles)})"


def _quantile(histograms: list[dict[float, float]], q: float) -> float:
    """The ``q`` quantile of a loop-lag histogram summed over ``histograms`` (one
    process's, phase by phase), in ms: the upper bound of the bucket it falls in (inf
    when beyond the last)."""
    buckets: dict[float, float] = {}
    for histogram in histograms:
        for bound, count in histogram.items():
            buckets[bound] = buckets.get(bound, 0.0) + count
    total = buckets.get(float("inf"), 0.0)
    if not total:
        return float("nan")
    for bound in sorted(buckets):
        if buckets[bound] >= q * total:
            return bound * 1000
    return float("inf")


def _throughput(phases: list[Phase]) -> float:
    calls = sum(len(p.searches) + len(p.fetches) for p in phases)
    return calls / sum(p.seconds for p in phases) if phases else float("nan")


def _report(phases: dict[tuple[str, int], list[Phase]]) -> list[Goal]:
    heading(
        f"3. {AGENTS} agents vs one: new questions, search then fetch of the first hit's "
        "hinted sections (kiwix: its first link)"
    )
    rows = []
    for (peer, agents), runs in phases.items():
        searches = Latency.of([s for p in runs for s in p.searches])
        fetched = Latency.of([s for p in runs for s in p.fetches])
        errors = sum(sum(p.errors.values()) for p in runs)
        cores = sum(p.server_cpu for p in runs) / sum(p.seconds for p in runs)
        client = sum(p.client_cpu for p in runs) / sum(p.seconds for p in runs)
        rows.append(
            [
                f"{peer}, {agents} agent{'s' if agents > 1 else ''}",
                f"{_throughput(runs):.1f}",
                ms(searches.p50),
                ms(searches.p95),
                ms(fetched.p50),
                str(errors),
                f"{cores:.2f}",
                f"{client:.2f}",
            ]
        )
    table(
        ["", "calls/s", "search p50", "p95", "fetch p50", "errors", "server cores", "bench cores"],
        rows,
    )
    alone, loaded = phases.get((MCP, 1), []), phases.get((MCP, AGENTS), [])
    gain = _throughput(loaded) / _throughput(alone)
    goal = GOAL_THROUGHPUT_SHARE * (len(os.sched_getaffinity(0)))
    kiwix_gain = _throughput(phases.get((KIWIX, AGENTS), [])) / _throughput(
        phases.get((KIWIX, 1), [])
    )
    print(
        f"  throughput {AGENTS} agents / one: corpus-mcp {gain:.2f}x (issue 10: >= "
        f"{goal:.2f}x; issue 20: >= kiwix-serve's), kiwix-serve {kiwix_gain:.2f}x"
    )
    lag_p99 = _lag_quantiles(loaded, 0.99)
    print(
        "  event-loop lag, each serving process's own (corpus_mcp_event_loop_lag_seconds, "
        f"10 a second; histogram bounds): under {AGENTS} agents p50 "
        f"{_lags(_lag_quantiles(loaded, 0.5))}, p99 {_lags(lag_p99)}; one agent p50 "
        f"{_lags(_lag_quantiles(alone, 0.5))}, p99 {_lags(_lag_quantiles(alone, 0.99))}"
    )
    split = _calls_by_process(loaded)
    if len(split) > 1:
        print(
            f"  calls under {AGENTS} agents by serving process (corpus_mcp_tool_calls_total): "
            + ", ".join(f"process {process} {calls:.0f}" for process, calls in split.items())
        )
    probe = Latency.of([s for p in loaded for s in p.probe])
    print(
        f"  /healthz from the bench every 50 ms under {AGENTS} agents (includes the bench's own "
        f"scheduling): p50 {ms(probe.p50)} p99 {ms(probe.p99)} max {ms(probe.max)} ms"
    )
    samples = [s for p in loaded for s in p.samples]
    quarter = max(1, len(samples) // 4)
    first, last = samples[:quarter], samples[-quarter:]
    print(
        f"  server under {AGENTS} agents, after warm-up, sampled every 0.2 s "
        f"({len(samples)} samples): "
        f"threads {min(s.threads for s in first)}-{max(s.threads for s in first)} in the first "
        f"quarter, {min(s.threads for s in last)}-{max(s.threads for s in last)} in the last; "
        f"PSS {mb(min(s.pss_bytes for s in first))}-{mb(max(s.pss_bytes for s in first))}, then "
        f"{mb(min(s.pss_bytes for s in last))}-{mb(max(s.pss_bytes for s in last))}"
    )
    errors = sum(sum(p.errors.values()) for p in loaded)
    threads_flat = max(s.threads for s in last) <= max(s.threads for s in first)
    rss_growth = max(s.pss_bytes for s in last) / max(s.pss_bytes for s in first)
    lag_worst = _worst(lag_p99)
    return [
        Goal(
            f"2. {AGENTS} agents: throughput >= {goal:.2f}x one agent's",
            f"{gain:.2f}x",
            verdict(gain, goal, at_most=False),
        ),
        Goal(f"2. {AGENTS} agents: no errors", str(errors), "pass" if not errors else "MISS"),
        Goal(
            "2. event-loop lag < 20 ms (the server's p99 under load)",
            f"<= {ms(lag_worst)} ms",
            verdict(lag_worst, GOAL_LAG_MS),
        ),
        Goal(
            "2. threads flat after warm-up (last quarter <= first)",
            f"{max(s.threads for s in first)} -> {max(s.threads for s in last)}",
            "pass" if threads_flat else "MISS",
        ),
        Goal(
            "2. memory (PSS) flat after warm-up (last quarter within 5 %)",
            f"{rss_growth - 1:+.1%}",
            verdict(rss_growth, FLAT_RSS),
        ),
        Goal(
            f"1. {AGENTS} agents: throughput multiple of one agent's >= kiwix-serve's",
            f"{gain:.2f}x vs {kiwix_gain:.2f}x",
            verdict(gain, kiwix_gain, at_most=False),
            issue=20,
        ),
        Goal(
            f"1. {AGENTS} agents: no errors",
            str(errors),
            "pass" if not errors else "MISS",
            issue=20,
        ),
        Goal(
            f"3. event-loop lag p99 <= {GOAL_LAG_MS:g} ms in every serving process "
            f"({AGENTS} agents)",
            f"<= {ms(lag_worst)} ms",
            verdict(lag_worst, GOAL_LAG_MS),
            issue=24,
        ),
        Goal(
            f"5. {AGENTS} agents: throughput multiple of one agent's >= kiwix-serve's",
            f"{gain:.2f}x vs {kiwix_gain:.2f}x",
            verdict(gain, kiwix_gain, at_most=False),
            issue=24,
        ),
        Goal(
            f"1. event-loop lag p99 <= {GOAL_LAG_MS:g} ms in every serving process "
            f"({AGENTS} agents)",
            _lags(lag_p99),
            verdict(lag_worst, GOAL_LAG_MS),
            issue=20,
        ),
    ]


def _calls_by_process(phases: list[Phase]) -> dict[str, float]:
    """Tool calls each serving process answered over ``phases``."""
    split: dict[str, float] = {}
    for phase in phases:
        for process, calls in phase.calls.items():
            split[process] = split.get(process, 0.0) + calls
    return dict(sorted(split.items()))


class MemoryWatch:
    """The peak memory of each server's process tree over the single-server sections:
    PSS (a page its processes share counted once) sampled every WATCH_SECONDS."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self.peak: dict[str, ProcessSample] = {}

    async def run(self) -> None:
        while True:
            for peer, pid in self.pids.items():
                now = sample(pid)
                if peer not in self.peak or now.pss_bytes > self.peak[peer].pss_bytes:
                    self.peak[peer] = now
            await trio.sleep(WATCH_SECONDS)


async def report_memory(
    peers: Peers, watch: MemoryWatch, index_files: Sequence[Path] = ()
) -> list[Goal]:
    """Section 4: what both servers took over sections 1-3."""
    heading(
        f"4. memory over sections 1-3, default settings (process trees; PSS sampled every "
        f"{WATCH_SECONDS:g} s)"
    )
    mine = sample(peers.mcp.pid)
    theirs = sample(peers.kiwix.pid) if peers.kiwix else None
    rows = [_memory_row(MCP, mine, watch.peak.get(MCP))]
    if theirs:
        rows.append(_memory_row(KIWIX, theirs, watch.peak.get(KIWIX)))
    table(
        ["", "peak PSS", "own / files then", "peak RSS (VmHWM sum)", "PSS now", "own", "files",
         "processes"],
        rows,
    )  # fmt: skip
    print(
        "  PSS: pages shared between the processes of a tree (forked serving processes and "
        "their fork server, mapped archives) counted once; own: their memory (heap, stacks); "
        "files: libraries and archive pages (page cache); VmHWM sum: each process's peak "
        "RSS, shared pages counted in each"
    )
    metrics = await scrape(peers.mcp.base)
    held: dict[str, float] = {}
    limits: dict[str, float] = {}
    for (name, labels), value in metrics.items():
        if name in ("corpus_mcp_cache_bytes", "corpus_mcp_cache_limit_bytes"):
            into = held if name == "corpus_mcp_cache_bytes" else limits
            cache = dict(labels)["cache"]
            into[cache] = into.get(cache, 0.0) + value
    print(
        "  corpus-mcp caches now, every serving process (corpus_mcp_cache_bytes / limit): "
        + ", ".join(f"{cache} {mb(held[cache])} / {mb(limits.get(cache, 0))}" for cache in held)
    )
    peak = watch.peak.get(MCP)
    their_peak = watch.peak.get(KIWIX)
    mine_pss = peak.pss_bytes if peak else float("nan")
    theirs_pss = their_peak.pss_bytes if their_peak else float("nan")
    measured = f"{mb(mine_pss)} vs {mb(theirs_pss) if their_peak else '-'} "
    measured += f"({ratio(mine_pss, theirs_pss)})"
    # The section indexes are read with pread: their pages are in the page cache, in no
    # process's PSS; counted here once, as every serving process shares them.
    index_pages = resident_bytes(list(index_files))
    index_size = sum(f.stat().st_size for f in index_files)
    with_index = mine_pss + index_pages
    print(
        f"  section indexes: {len(index_files)} files, {mb(index_size)} on disk, "
        f"{mb(index_pages)} in the page cache now (shared by every serving process)"
    )
    counted = f"{mb(with_index)} ({mb(mine_pss)} + {mb(index_pages)} index pages) vs "
    counted += f"{mb(theirs_pss) if their_peak else '-'} ({ratio(with_index, theirs_pss)})"
    return [
        Goal(
            f"4. memory: PSS of the process tree with the index pages <= {GOAL_MEMORY:g}x "
            "kiwix-serve's",
            counted,
            verdict(with_index / theirs_pss, GOAL_MEMORY),
            issue=24,
        ),
        Goal(
            "3. peak memory (PSS of the process tree) <= kiwix-serve's",
            measured,
            verdict(mine_pss / theirs_pss, 1.0),
        ),
        Goal(
            f"4. peak memory of the process tree (PSS) <= {GOAL_MEMORY:g}x kiwix-serve's",
            measured,
            verdict(mine_pss / theirs_pss, GOAL_MEMORY),
            issue=20,
        ),
    ]


def _memory_row(peer: str, now: ProcessSample, peak: ProcessSample | None) -> list[str]:
    return [
        peer,
        mb(peak.pss_bytes) if peak else "-",
        f"{mb(peak.anonymous_bytes)} / {mb(peak.file_bytes)}" if peak else "-",
        mb(now.peak_rss_bytes),
        mb(now.pss_bytes),
        mb(now.anonymous_bytes),
        mb(now.file_bytes),
        str(now.processes),
    ]
