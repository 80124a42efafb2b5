"""Sections 3 and 4: many agents against one on the same servers, then the memory both
servers took over the whole single-server part of the run."""

from __future__ import annotations

import os
from collections.abc import Sequence

from _bench_clients import scrape
from _bench_load import AGENTS, NewQueries, Phase, kiwix_agent, mcp_agent, run_phase
from _bench_peers import KIWIX, MCP, Peers
from _bench_report import Goal, Latency, heading, mb, ms, ratio, table, verdict
from _processes import ProcessSample, sample

GOAL_THROUGHPUT_SHARE = 0.85
"""AGENTS agents should reach this share of (cores x one agent's throughput)."""
GOAL_LAG_MS = 20.0
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


def _quantile(phases: list[Phase], q: float) -> float:
    """The ``q`` quantile of the server's loop lag over ``phases``, in ms: the upper
    bound of the histogram bucket it falls in (inf when beyond the last)."""
    buckets: dict[float, float] = {}
    for phase in phases:
        for bound, count in phase.lag.items():
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
        f"  throughput {AGENTS} agents / one: corpus-mcp {gain:.2f}x (goal >= {goal:.2f}x), "
        f"kiwix-serve {kiwix_gain:.2f}x"
    )
    lag_p50, lag_p99 = _quantile(loaded, 0.5), _quantile(loaded, 0.99)
    print(
        f"  event-loop lag, the server's own (corpus_mcp_event_loop_lag_seconds, 10 a second; "
        f"histogram bounds): under {AGENTS} agents p50 <= {ms(lag_p50)} p99 <= "
        f"{ms(lag_p99)} ms; one agent p50 <= {ms(_quantile(alone, 0.5))} "
        f"p99 <= {ms(_quantile(alone, 0.99))} ms"
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
        f"RSS {mb(min(s.rss_bytes for s in first))}-{mb(max(s.rss_bytes for s in first))}, then "
        f"{mb(min(s.rss_bytes for s in last))}-{mb(max(s.rss_bytes for s in last))}"
    )
    errors = sum(sum(p.errors.values()) for p in loaded)
    threads_flat = max(s.threads for s in last) <= max(s.threads for s in first)
    rss_growth = max(s.rss_bytes for s in last) / max(s.rss_bytes for s in first)
    return [
        Goal(
            f"2. {AGENTS} agents: throughput >= {goal:.2f}x one agent's",
            f"{gain:.2f}x",
            verdict(gain, goal, at_most=False),
        ),
        Goal(f"2. {AGENTS} agents: no errors", str(errors), "pass" if not errors else "MISS"),
        Goal(
            "2. event-loop lag < 20 ms (the server's p99 under load)",
            f"<= {ms(lag_p99)} ms",
            verdict(lag_p99, GOAL_LAG_MS),
        ),
        Goal(
            "2. threads flat after warm-up (last quarter <= first)",
            f"{max(s.threads for s in first)} -> {max(s.threads for s in last)}",
            "pass" if threads_flat else "MISS",
        ),
        Goal(
            "2. RSS flat after warm-up (last quarter within 5 %)",
            f"{rss_growth - 1:+.1%}",
            verdict(rss_growth, FLAT_RSS),
        ),
    ]


async def report_memory(peers: Peers) -> list[Goal]:
    """Section 4: what both servers took over sections 1-3."""
    heading("4. memory over sections 1-3, default settings (VmHWM; process trees)")
    mine = sample(peers.mcp.pid)
    theirs = sample(peers.kiwix.pid) if peers.kiwix else None
    rows = [_memory_row(MCP, mine)] + ([_memory_row(KIWIX, theirs)] if theirs else [])
    table(["", "peak RSS", "RSS now", "PSS now", "own", "mapped files", "processes"], rows)
    print(
        "  own: the processes' memory (heap, stacks); mapped files: libraries and archive pages "
        "(shared page cache); PSS: pages shared between the processes of a tree counted once"
    )
    metrics = await scrape(peers.mcp.base)
    held = {
        dict(labels)["cache"]: value
        for (name, labels), value in metrics.items()
        if name == "corpus_mcp_cache_bytes"
    }
    limits = {
        dict(labels)["cache"]: value
        for (name, labels), value in metrics.items()
        if name == "corpus_mcp_cache_limit_bytes"
    }
    print(
        "  corpus-mcp caches now (corpus_mcp_cache_bytes / limit): "
        + ", ".join(f"{cache} {mb(held[cache])} / {mb(limits.get(cache, 0))}" for cache in held)
    )
    peak_ratio = mine.peak_rss_bytes / theirs.peak_rss_bytes if theirs else float("nan")
    theirs_peak = mb(theirs.peak_rss_bytes) if theirs else "-"
    return [
        Goal(
            "3. peak RSS <= kiwix-serve's",
            f"{mb(mine.peak_rss_bytes)} vs {theirs_peak} "
            f"({ratio(mine.peak_rss_bytes, theirs.peak_rss_bytes if theirs else float('nan'))})",
            verdict(peak_ratio, 1.0),
        )
    ]


def _memory_row(peer: str, now: ProcessSample) -> list[str]:
    return [
        peer,
        mb(now.peak_rss_bytes),
        mb(now.rss_bytes),
        mb(now.pss_bytes),
        mb(now.anonymous_bytes),
        mb(now.file_bytes),
        str(now.processes),
    ]
