"""The benchmark (`make bench`): corpus-mcp against kiwix-serve and bare libzim, side by
side in one run, on the development kit plus the real archives.

1. one agent's search: *seen* (asked before), *new* (never asked, its documents read
   before) and *cold* (nothing cached), p50/p95 per peer, ratios to kiwix-serve;
2. fetch of the largest article and typical ones over MCP against kiwix-serve's raw GET;
3. 16 agents against one (search, then fetch of the hinted sections): throughput, search
   latency under load, errors, the event-loop lag proxy, threads and RSS over time;
4. peak memory (PSS) of both servers' process trees over sections 1-3;
5. search latency and memory with 1, 10 and 100 archives and a million entries;
6. a library stuck in its index calls or its reads, under 16 agents.

corpus-mcp runs as a real ``corpus-mcp serve`` with default settings, reached by a lean
client (``_bench_clients``); kiwix-serve is started on the same archives; bare libzim runs
in this process. The machine is shared, so the peers take turns call by call and phases
alternate; the figures are percentiles over repeats. The last tables check issue 10's and
issue 20's goals.

Usage: python scripts/bench.py [--quick] [--no-million] [--server-env NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import trio
from _bench_concurrency import MemoryWatch, many_agents, report_memory
from _bench_fetch import fetches, pick_articles, report_fetch
from _bench_peers import KIWIX, MCP, Peers, kiwix_books, open_readers
from _bench_plan import Plan, make_plan
from _bench_report import Goal, goals_table, heading, kiwix_version, machine_lines
from _bench_scale import corpus_size
from _bench_search import cold, report_search, seen_and_new
from _bench_stuck import stuck_library
from _corpora import BenchCorpus, main_corpus
from _processes import (
    INDEXES,
    SERVER_ENV,
    corpus_server,
    ensure_indexes,
    kiwix_binary,
    kiwix_server,
)


@dataclass(frozen=True)
class Budget:
    """How much of everything a run measures (``--quick`` takes less)."""

    rounds: int
    """Rounds of every question in section 1 (and of the scaling questions)."""
    cold_groups: int | None
    """Cold groups run (None: all); each costs a server start."""
    fetch_repeats: int
    load_seconds: float
    load_repeats: int
    warmup_seconds: float
    scale: tuple[int, ...]
    scale_questions: int
    million: bool
    stuck_seconds: float
    stuck_questions: int


FULL = Budget(3, None, 30, 10.0, 2, 5.0, (1, 10, 50, 100), 20, True, 8.0, 1000)
QUICK = Budget(1, 4, 10, 4.0, 1, 2.0, (1, 10), 10, False, 4.0, 30)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds, no 1M archive")
    parser.add_argument("--no-million", action="store_true", help="skip the 1M-entry archive")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for every corpus-mcp server of the run (measure an option; the "
        "goals are judged for default settings)",
    )
    args = parser.parse_args(argv)
    for assignment in args.server_env:
        name, equals, value = assignment.partition("=")
        if not equals or not name:
            parser.error(f"--server-env {assignment!r}: accepted: NAME=VALUE")
        SERVER_ENV[name] = value
    budget = QUICK if args.quick else FULL
    if args.no_million:
        budget = dataclasses.replace(budget, million=False)
    kiwix = kiwix_binary()
    if kiwix is None:
        print("kiwix-serve is not available: its columns stay empty and its goals unjudged")
    print("corpus-mcp benchmark" + (" (--quick)" if args.quick else ""))
    for line in machine_lines(kiwix_version(kiwix) if kiwix else None):
        print(line)
    if SERVER_ENV:
        shown = " ".join(f"{name}={value}" for name, value in SERVER_ENV.items())
        print(f"settings: {shown} (not the defaults: the goals' verdicts are for those)")
    corpus = main_corpus()
    print(
        f"corpus:   {corpus.description}: {len(corpus.libraries)} archives, "
        f"{len(corpus.queries)} questions, search limit 5"
    )
    print("section indexes: building what is missing (once: .bench/indexes) ...", flush=True)
    ensure_indexes(corpus.manifest)
    print("planning: variants and cold groups, checked in-process ...", flush=True)
    plan = make_plan(corpus.manifest, corpus.queries, budget.rounds)
    try:
        goals = trio.run(_measure, corpus, plan, budget, kiwix)
    except BaseException as stopped:
        if not _interrupted(stopped):
            raise
        print("\ninterrupted: every server this run started has been stopped", file=sys.stderr)
        return 130
    goals_table(goals)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


def _interrupted(stopped: BaseException) -> bool:
    """Ctrl-C or SIGTERM, alone or as every leaf of an exception group."""
    if isinstance(stopped, BaseExceptionGroup):
        matched, rest = stopped.split(KeyboardInterrupt)
        return matched is not None and rest is None
    return isinstance(stopped, KeyboardInterrupt)


async def _measure(
    corpus: BenchCorpus, plan: Plan, budget: Budget, kiwix: str | None
) -> list[Goal]:
    """The sections, stopped by SIGTERM as by Ctrl-C: trio unwinds them, and every
    server is ended on the way out."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_sigterm)
        goals = await _sections(corpus, plan, budget, kiwix)
        nursery.cancel_scope.cancel()
    return goals


async def _stop_on_sigterm() -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as received:
        async for _ in received:
            raise KeyboardInterrupt


async def _sections(
    corpus: BenchCorpus, plan: Plan, budget: Budget, kiwix: str | None
) -> list[Goal]:
    goals: list[Goal] = []
    readers = open_readers(corpus)
    with ExitStack() as processes:
        server = processes.enter_context(corpus_server(corpus.manifest))
        kiwix_served = (
            processes.enter_context(kiwix_server(kiwix, corpus.files())) if kiwix else None
        )
        peers = Peers(server, kiwix_served, kiwix_books(readers), readers)
        pids = {MCP: server.pid} | ({KIWIX: kiwix_served.pid} if kiwix_served else {})
        watch = MemoryWatch(pids)
        async with trio.open_nursery() as watching:
            watching.start_soon(watch.run)
            heading("measuring 1: single agent, seen and new ...")
            searches = await seen_and_new(peers, plan, corpus.queries, budget.rounds)
            groups = plan.groups[: budget.cold_groups]
            heading(f"measuring 1: cold, {len(groups)} groups on fresh processes ...")
            await cold(corpus, groups, kiwix, searches)
            goals += report_search(searches, plan, groups, budget.rounds)
            articles = pick_articles(corpus, readers)
            goals += report_fetch(await fetches(peers, articles, budget.fetch_repeats))
            goals += await many_agents(
                peers,
                corpus.queries,
                seconds=budget.load_seconds,
                repeats=budget.load_repeats,
                warmup=budget.warmup_seconds,
            )
            goals += await report_memory(peers, watch, corpus.index_files(INDEXES))
            watching.cancel_scope.cancel()
    goals += await corpus_size(
        corpus,
        budget.scale,
        questions=budget.scale_questions,
        rounds=budget.rounds,
        million=budget.million,
        kiwix=kiwix,
    )
    goals += await stuck_library(
        corpus,
        plan,
        readers,
        seconds=budget.stuck_seconds,
        questions=budget.stuck_questions,
    )
    return goals


if __name__ == "__main__":
    sys.exit(main())
