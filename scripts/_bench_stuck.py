"""Section 6: a library stuck inside its archive while 16 agents search, on servers whose
archive can be made to hang (tests/hanging_server.py): healthy, stuck in its index calls,
stuck in its reads, and how soon it answers again once released."""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _bench_clients import McpClient
from _bench_load import AGENTS, NewQueries, Phase, mcp_agent, run_phase
from _bench_plan import LIMIT, Plan
from _bench_report import Goal, Latency, heading, ms, table, verdict
from _corpora import BenchCorpus
from _processes import ROOT, corpus_server

from corpus_mcp.zim import ZimReader

HANGING_SERVER = ROOT / "tests" / "hanging_server.py"
RECOVERY_GUARD_SECONDS = 60.0
STUCK_TIMEOUT = 2.0
"""SEARCH_TIMEOUT of these servers (the default, 5 s, only makes the run longer)."""
THREAD_BOUND = 1 + 3 * 8
"""The main thread plus the three worker pools SEARCH_WORKERS (8 by default) wide: index
walkers, archive calls and CPU work. A phase makes 60-100 searches that meet the stuck
library, so work piling up a thread each would pass it at once."""


@dataclass
class StuckPhase:
    label: str
    phase: Phase
    recovery_seconds: float | None = None
    """From the archive answering again to the first whole answer."""


async def stuck_library(
    corpus: BenchCorpus,
    plan: Plan,
    readers: Sequence[ZimReader],
    *,
    seconds: float,
    questions: int,
) -> list[Goal]:
    """The library most answers read, stuck; its questions are the ones that read it."""
    counts = Counter(uuid for documents in plan.reads.values() for uuid, _path in documents)
    if counts:
        uuid = counts.most_common(1)[0][0]
        reading = [q for q, documents in plan.reads.items() if any(u == uuid for u, _ in documents)]
    else:  # searched by section indexes, no page is read: the largest archive, every question
        uuid = max(readers, key=lambda r: r.info.entry_count).info.uuid
        reading = list(corpus.queries)
    hung = next(r for r in readers if r.info.uuid == uuid)
    name = next(lib.name for lib, r in zip(corpus.libraries, readers, strict=True) if r is hung)
    queries = list(corpus.queries)[:questions]
    heading(f"measuring 6: {name} stuck, {AGENTS} agents, SEARCH_TIMEOUT={STUCK_TIMEOUT:g} s ...")
    phases = await _phases(
        corpus.manifest,
        Path(hung.file).name,
        queries,
        reading,
        agents=AGENTS,
        seconds=seconds,
        timeout=STUCK_TIMEOUT,
    )
    heading(
        f"6. one library stuck ({name}, the one most answers read), {AGENTS} agents searching "
        f"{seconds:g} s per row, SEARCH_TIMEOUT={STUCK_TIMEOUT:g} s"
    )
    rows = []
    for item in phases:
        p, times = item.phase, Latency.of(item.phase.searches)
        back = "-" if item.recovery_seconds is None else f"{item.recovery_seconds:.2f} s"
        rows.append(
            [
                item.label,
                str(len(p.searches)),
                str(p.empty),
                str(p.partial),
                str(p.unavailable[name]),
                str(sum(p.errors.values())),
                ms(times.p50),
                ms(times.p95),
                ms(times.max),
                str(max(s.max_threads for s in p.samples)),
                back,
            ]
        )
    table(
        [
            "",
            "searches",
            "no result",
            "partial",
            f"{name} unavailable",
            "errors",
            "p50",
            "p95",
            "max",
            "threads max (a process)",
            "whole again after release",
        ],
        rows,
    )
    print(
        "  healthy and index rows: one server that had answered every question once; reads "
        f"row: a fresh one that had answered all but the {len(reading)} questions reading "
        f"{name}, so that its documents must be read"
    )
    healthy = Latency.of(phases[0].phase.searches)
    added = max(Latency.of(item.phase.searches).p95 for item in phases[1:]) - healthy.p95
    threads = max(s.max_threads for s in phases[0].phase.samples)
    most = max(max(s.max_threads for s in item.phase.samples) for item in phases[1:])
    errors = sum(sum(item.phase.errors.values()) for item in phases[1:])
    empty = sum(item.phase.empty for item in phases[1:])
    named = sum(item.phase.unavailable[name] for item in phases[1:])
    answers = sum(len(item.phase.searches) for item in phases[1:])
    return [
        Goal(
            "4. stuck library: adds <= SEARCH_TIMEOUT to a search (p95 vs healthy p95)",
            f"{added:+.0f} ms (SEARCH_TIMEOUT {STUCK_TIMEOUT * 1000:.0f} ms)",
            verdict(added, STUCK_TIMEOUT * 1000),
        ),
        Goal(
            "4. stuck library: no errors, answers name it unavailable",
            f"{errors} errors, {named} of {answers} answers name it",
            "pass" if not errors and named else "MISS",
        ),
        Goal(
            "4. stuck library: the other libraries still answer",
            f"{empty} of {answers} answers empty (healthy: {phases[0].phase.empty})",
            "pass" if empty <= phases[0].phase.empty else "MISS",
        ),
        Goal(
            f"4. stuck library: threads within the worker pools ({THREAD_BOUND} a process)",
            f"{threads} healthy, at most {most} stuck",
            "pass" if most <= THREAD_BOUND else "MISS",
        ),
    ]


async def _phases(
    manifest: Path,
    archive: str,
    queries: Sequence[str],
    reading: Sequence[str],
    *,
    agents: int,
    seconds: float,
    timeout: float,
) -> list[StuckPhase]:
    """Agents searching while one archive is healthy, then stuck in its index calls
    (then released), on a server that has answered every question once; and stuck in its
    reads on a fresh server that has answered every question but those in ``reading``
    (the ones that read the archive's documents, so that those are not cached)."""
    phases = []
    with tempfile.TemporaryDirectory() as scratch:
        control = Path(scratch) / "hang"
        env = {
            "HANG_ARCHIVE": archive,
            "HANG_CONTROL": str(control),
            "SEARCH_TIMEOUT": f"{timeout:g}",
        }
        command = (sys.executable, str(HANGING_SERVER))
        new = NewQueries(queries)
        with corpus_server(manifest, env, command) as server:
            await _ask_each(server.base, queries)
            agent = mcp_agent(server.base, new, fetch=False)
            phases.append(
                StuckPhase("healthy", await run_phase(agent, agents, seconds, server.pid, None))
            )
            control.write_text("index")
            stuck = await run_phase(agent, agents, seconds, server.pid, None)
            phases.append(
                StuckPhase(
                    "index calls never return", stuck, await _recovery(server.base, control, new)
                )
            )
        with corpus_server(manifest, env, command) as server:
            await _ask_each(server.base, [query for query in queries if query not in reading])
            control.write_text("read")
            agent = mcp_agent(server.base, new, fetch=False)
            stuck = await run_phase(agent, agents, seconds, server.pid, None)
            phases.append(
                StuckPhase("reads never return", stuck, await _recovery(server.base, control, new))
            )
    return phases


async def _ask_each(base: str, queries: Sequence[str]) -> None:
    async with McpClient(base) as client:
        for query in queries:
            await client.search(query, LIMIT)


async def _recovery(base: str, control: Path, new: NewQueries) -> float | None:
    """Release the archive; seconds until a search answers whole (None: not within the
    guard)."""
    control.write_text("")
    released = time.perf_counter()
    async with McpClient(base) as client:
        while time.perf_counter() - released < RECOVERY_GUARD_SECONDS:
            if not (await client.search(next(new), LIMIT)).partial:
                return time.perf_counter() - released
    return None
