"""Section 1: one agent's search, *seen*, *new* and *cold*, corpus-mcp over MCP against
kiwix-serve over HTTP and bare libzim in-process, the same questions, call by call."""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field
from typing import Any

from _bench_clients import CallFailed, KiwixClient, McpClient
from _bench_peers import (
    BARE,
    KIWIX,
    MCP,
    PEERS,
    Call,
    Peers,
    bare_search,
    kiwix_books,
    open_readers,
)
from _bench_plan import LIMIT, ColdGroup, Plan
from _bench_report import Goal, Latency, heading, ms, ratio, table, verdict
from _corpora import BenchCorpus
from _processes import corpus_server, kiwix_server

from corpus_mcp.zim import ZimReader

TRANSPORT_PROBES = 100
#: Per scenario: what it means, and the goal as a ratio to kiwix-serve's p50.
SCENARIOS = {
    "seen": ("seen (answer cached)", 1.0),
    "new": ("new, documents read before", 1.0),
    "cold": ("cold (nothing cached)", 2.0),
}
#: Issue 20's goals, the same way: search over cached documents, and cold.
ISSUE_20 = {"new": 1.5, "cold": 3.0}
#: Issue 24's: with the section indexes built (new and cold: a fresh process, indexes on
#: disk).
ISSUE_24 = {"new": 1.5, "cold": 2.0}


@dataclass
class Searches:
    """Latencies by (scenario, peer), and what was checked on the way."""

    seconds: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    variants_same: int = 0
    variants_checked: int = 0
    transport: list[float] = field(default_factory=list)
    """``tools/list`` round trips: what any call costs before the tool runs."""


class _Askers:
    """The three peers' ``search`` as calls of one question each."""

    def __init__(self, mcp: McpClient, kiwix: KiwixClient | None, readers: list[ZimReader]):
        self.mcp, self.kiwix, self.readers = mcp, kiwix, readers

    def calls(self, query: str) -> list[tuple[str, Call]]:
        async def bare() -> int:
            return bare_search(self.readers, query)

        calls: list[tuple[str, Call]] = [(MCP, lambda: self.mcp.search(query, LIMIT))]
        if self.kiwix is not None:
            kiwix = self.kiwix
            calls.append((KIWIX, lambda: kiwix.search(query, LIMIT)))
        calls.append((BARE, bare))
        return calls


async def _timed(out: Searches, scenario: str, peer: str, call: Call) -> Any:
    started = time.perf_counter()
    try:
        value = await call()
    except CallFailed as failure:
        out.errors[f"{peer} {scenario}: {failure.kind}"] += 1
        return None
    out.seconds[scenario, peer].append(time.perf_counter() - started)
    return value


async def seen_and_new(peers: Peers, plan: Plan, queries: Sequence[str], rounds: int) -> Searches:
    """Every question once (unmeasured: now it is *seen* and its documents read), then
    ``rounds`` rounds in a shuffled order: the question again and one of its verified
    variants (*new*), each peer in turn, the turn rotating from call to call."""
    out = Searches()
    async with AsyncExitStack() as stack:
        mcp = await stack.enter_async_context(McpClient(peers.mcp.base))
        kiwix = None
        if peers.kiwix is not None:
            kiwix = await stack.enter_async_context(KiwixClient(peers.kiwix.base, peers.books))
        askers = _Askers(mcp, kiwix, peers.readers)
        first: dict[str, tuple[str, ...]] = {}
        for query in queries:
            for peer, call in askers.calls(query):
                answer = await _timed(out, "warm-up", peer, call)
                if peer == MCP and answer is not None:
                    first[query] = answer.refs
        for _ in range(TRANSPORT_PROBES):
            started = time.perf_counter()
            await mcp.rpc("tools/list")
            out.transport.append(time.perf_counter() - started)
        turn = 0
        for number in range(rounds):
            for query in random.Random(number).sample(list(queries), len(queries)):
                variants = plan.variants.get(query, ())
                steps = [("seen", peer, call) for peer, call in askers.calls(query)]
                if number < len(variants):
                    steps += [("new", peer, call) for peer, call in askers.calls(variants[number])]
                turn += 1
                for scenario, peer, call in steps[turn % len(steps) :] + steps[: turn % len(steps)]:
                    answer = await _timed(out, scenario, peer, call)
                    if scenario == "new" and peer == MCP and answer is not None:
                        out.variants_checked += 1
                        out.variants_same += answer.refs == first.get(query)
    return out


async def cold(
    corpus: BenchCorpus, groups: Sequence[ColdGroup], kiwix: str | None, out: Searches
) -> None:
    """Each group on fresh processes (and fresh libzim readers): one warm-up question,
    then the group's questions, which share no document, each peer in turn."""
    turn = 0
    for group in groups:
        with ExitStack() as processes:
            server = processes.enter_context(corpus_server(corpus.manifest))
            readers = open_readers(corpus)
            kiwix_served = (
                processes.enter_context(kiwix_server(kiwix, corpus.files())) if kiwix else None
            )
            async with AsyncExitStack() as stack:
                mcp = await stack.enter_async_context(McpClient(server.base))
                kiwix_client = None
                if kiwix_served is not None:
                    kiwix_client = await stack.enter_async_context(
                        KiwixClient(kiwix_served.base, kiwix_books(readers))
                    )
                askers = _Askers(mcp, kiwix_client, readers)
                for peer, call in askers.calls(group.warm_up):
                    await _timed(out, "warm-up", peer, call)
                for query in group.queries:
                    steps = askers.calls(query)
                    turn += 1
                    for peer, call in steps[turn % len(steps) :] + steps[: turn % len(steps)]:
                        await _timed(out, "cold", peer, call)


def report_search(
    searches: Searches, plan: Plan, groups: Sequence[ColdGroup], rounds: int
) -> list[Goal]:
    """Section 1's table and notes; the goals' lines."""
    heading(
        f"1. single agent, search latency in ms ({rounds} round(s) x "
        f"{len(plan.variants)} questions; cold: each question once)"
    )
    rows, goals = [], []
    for scenario, (label, limit) in SCENARIOS.items():
        figures = {peer: Latency.of(searches.seconds[scenario, peer]) for peer in PEERS}
        mine, theirs = figures[MCP].p50, figures[KIWIX].p50
        row = [label]
        for peer in PEERS:
            row += [ms(figures[peer].p50), ms(figures[peer].p95)]
        row += [
            ratio(mine, theirs),
            f"<= {limit:g}",
            verdict(mine / theirs, limit),
        ]
        rows.append(row)
        goals.append(
            Goal(
                f"1. search {scenario}: p50 <= {limit:g}x kiwix-serve",
                f"{ms(mine)} vs {ms(theirs)} ms ({ratio(mine, theirs)})",
                verdict(mine / theirs, limit),
            )
        )
        if scenario in ISSUE_24:
            goals.append(
                Goal(
                    f"{1 if scenario == 'new' else 2}. search {scenario}: p50 <= "
                    f"{ISSUE_24[scenario]:g}x kiwix-serve",
                    f"{ms(mine)} vs {ms(theirs)} ms ({ratio(mine, theirs)})",
                    verdict(mine / theirs, ISSUE_24[scenario]),
                    issue=24,
                )
            )
        if scenario in ISSUE_20:
            goals.append(
                Goal(
                    f"2. search {scenario}: p50 <= {ISSUE_20[scenario]:g}x kiwix-serve",
                    f"{ms(mine)} vs {ms(theirs)} ms ({ratio(mine, theirs)})",
                    verdict(mine / theirs, ISSUE_20[scenario]),
                    issue=20,
                )
            )
    headers = [
        "",
        *(f"{peer} {p}" for peer in PEERS for p in ("p50", "p95")),
        "mcp/kiwix",
        "goal",
        "verdict",
    ]
    table(headers, rows)
    checked = sum(len(v) for v in plan.variants.values())
    asked = checked + len(plan.failed)
    print(
        f"  transport: tools/list round trip p50 {ms(Latency.of(searches.transport).p50)} ms "
        "(lean client: httpx keep-alive, stateless JSON-RPC tools/call, result parsed)"
    )
    print(
        f"  new: {checked} of {asked} variants (the question plus lone punctuation marks) "
        "passed the in-process check: both query caches missed, every document came from the "
        "cache, same refs; "
        f"over MCP {searches.variants_same} of {searches.variants_checked} gave the same refs"
    )
    for failure in plan.failed[:5]:
        print(f"    variant refused: {failure}")
    grouped = sum(len(g.queries) for g in plan.groups)
    print(
        f"  cold: {sum(len(g.queries) for g in groups)} questions in {len(groups)} of "
        f"{len(plan.groups)} groups, each group on a fresh server, kiwix-serve and libzim "
        "readers after one warm-up question that shares no document with it; replayed "
        f"in-process, {plan.cold_checked} of {grouped} questions read only uncached documents"
    )
    if searches.errors:
        print(f"  errors: {dict(searches.errors)}")
    return goals
