"""What a background index build costs the searches a server answers meanwhile.

A serving process builds a missing section index in a child process at the lowest CPU
priority (``INDEX_PRIORITY=idle``: ``SCHED_IDLE`` and the idle I/O class). This measures
how much that slows searches: a real ``corpus-mcp serve`` over the development kit (its
indexes built first, so that it builds nothing itself) answers new questions from one
agent and from 16, while a build of another archive's index (the generated
Wikipedia-like one, or the kit's largest) runs beside it at a given priority, and
without one, the two alternating phase by phase (one machine, the same minutes). It
prints the search p50/p95 and calls/s with and without the build, their ratio (the share
a build slows searches by) and the pages/s the build made meanwhile.

Usage: python scripts/bench_background_build.py [--archive ZIM --adapter NAME]
       [--priority idle|low|normal] [--seconds 15] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio
from _bench_clients import McpClient
from _bench_load import AGENTS, NewQueries
from _corpora import main_corpus
from _processes import corpus_server

WIKIPEDIA_LIKE = Path("/work/bench-data/wikipedia-large-10k/wikipedia_en_large_nopic_2026-05.zim")


async def agents(base: str, queries: NewQueries, count: int, seconds: float) -> list[float]:
    """Search latencies of ``count`` agents asking new questions for ``seconds``."""
    latencies: list[float] = []
    deadline = trio.current_time() + seconds

    async def agent() -> None:
        async with McpClient(base) as client:
            while trio.current_time() < deadline:
                started = time.perf_counter()
                await client.search(next(queries), 5)
                latencies.append(time.perf_counter() - started)

    async with trio.open_nursery() as nursery:
        for _ in range(count):
            nursery.start_soon(agent)
    return latencies


def start_build(
    archive: Path, adapter: str, folder: Path, priority: str
) -> subprocess.Popen[bytes]:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    command = [sys.executable, "-m", "corpus_mcp.sections.build", str(archive), adapter]
    return subprocess.Popen(
        [*command, str(folder), "background", priority],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def pages_done(folder: Path) -> int:
    """Pages the build committed so far (its progress file)."""
    for progress in folder.glob("*.build/progress.json"):
        try:
            return int(json.loads(progress.read_text())["pages"])
        except (OSError, ValueError, KeyError):
            return 0
    return 0


def figures(latencies: list[float], seconds: float) -> tuple[float, float, float]:
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))] if ordered else float("nan")
    median = statistics.median(ordered) if ordered else float("nan")
    return median * 1000, p95 * 1000, len(ordered) / seconds


async def measure(args: argparse.Namespace) -> None:
    corpus = main_corpus()
    queries = NewQueries(corpus.queries)
    scratch = Path(tempfile.mkdtemp(prefix="corpus-mcp-background-"))
    rows: dict[tuple[int, bool], list[tuple[float, float, float]]] = {}
    rates: list[float] = []
    try:
        with corpus_server(corpus.manifest) as server:
            await agents(server.base, queries, 1, 3.0)  # warm-up
            for _ in range(args.repeats):
                for count in (1, AGENTS):
                    for building in (False, True):
                        build = (
                            start_build(args.archive, args.adapter, scratch, args.priority)
                            if building
                            else None
                        )
                        if build is not None:
                            await trio.sleep(2.0)  # past its imports, into its pages
                        before = pages_done(scratch) if building else 0
                        started = time.monotonic()
                        latencies = await agents(server.base, queries, count, args.seconds)
                        elapsed = time.monotonic() - started
                        if build is not None:
                            rates.append((pages_done(scratch) - before) / elapsed)
                            build.kill()
                            build.wait()
                        rows.setdefault((count, building), []).append(figures(latencies, elapsed))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"\nsearches with a background build of {args.archive.name} at INDEX_PRIORITY="
        f"{args.priority} beside them ({args.repeats} x {args.seconds:g} s a phase, "
        f"alternating), load average {os.getloadavg()[0]:.2f} at the end"
    )
    print("  agents  build  search p50 ms  p95 ms  searches/s")
    for (count, building), measured in sorted(rows.items()):
        p50 = statistics.median(m[0] for m in measured)
        p95 = statistics.median(m[1] for m in measured)
        rate = statistics.median(m[2] for m in measured)
        print(
            f"  {count:6d}  {'yes' if building else 'no':5}  {p50:13.1f}  {p95:6.1f}  {rate:10.1f}"
        )
    for count in (1, AGENTS):
        without = statistics.median(m[0] for m in rows[count, False])
        with_build = statistics.median(m[0] for m in rows[count, True])
        slower = statistics.median(m[2] for m in rows[count, False]) / statistics.median(
            m[2] for m in rows[count, True]
        )
        print(
            f"  {count} agent(s): search p50 {with_build / without:.2f}x with the build, "
            f"throughput {1 / slower:.2f}x"
        )
    if rates:
        print(f"  the build meanwhile: {statistics.median(rates):.1f} pages/s (median of phases)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--archive", type=Path, default=WIKIPEDIA_LIKE)
    parser.add_argument("--adapter", default="mediawiki")
    parser.add_argument("--priority", default="idle", choices=("idle", "low", "normal"))
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if not args.archive.is_file():
        print(f"no archive at {args.archive}: give one with --archive", file=sys.stderr)
        return 2
    trio.run(measure, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
