"""What the archive file check costs (issue 11), and what the alternative would have.

Every archive access first checks that the file is still the one opened (an ``fstat`` of
the kept descriptor, a ``stat`` and an ``access`` of the path: zim/identity.py). Prints,
in one run on this machine:
- one check, in microseconds (median of several rounds);
- cold fetches (document cache cleared) and cold searches (every cache cleared) through
  the corpus, with how many checks each made and the share of its time they took;
- the design left aside: archive work in worker processes, a round trip through a pipe
  with a small and a 100 KB answer, and the memory of one worker with the imports.

Usage: python scripts/bench_archive_check.py [--runs N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import main_corpus

from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.zim import ArchiveService, ZimReader

QUERIES = (
    "ray charles early life",
    "python asyncio cancel a task",
    "derivative of x to the x",
    "std vector reserve",
    "symptoms of asthma",
    "multiple inheritance method resolution order",
)


def per_call_us(fn: Callable[[], object], calls: int, rounds: int = 5) -> float:
    """Median over ``rounds`` of the mean time of one call, in microseconds."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


class CountedChecks:
    """Counts the checks made through every ArchiveService: whole ones (``enter``, before
    each job) and of the descriptor only (``verify``, between the calls of a job)."""

    def __init__(self) -> None:
        self.whole = 0
        self.descriptor = 0
        enter, verify = ArchiveService.enter, ArchiveService.verify

        def counted_enter(service: ArchiveService) -> ZimReader:
            self.whole += 1
            return enter(service)

        def counted_verify(service: ArchiveService, reader: ZimReader) -> None:
            self.descriptor += 1
            verify(service, reader)

        ArchiveService.enter = counted_enter  # type: ignore[method-assign, assignment]
        ArchiveService.verify = counted_verify  # type: ignore[method-assign, assignment]

    @property
    def both(self) -> tuple[int, int]:
        return self.whole, self.descriptor


async def cold_calls(corpus: Corpus, runs: int, checks: CountedChecks) -> None:
    library = "wp100" if "wp100" in corpus.libraries else "Wikipedia"
    found = await corpus.search("music history science", 10)
    refs = [r.ref for r in found.results if r.library == library] or [
        f"corpus://{library}/C3_linearization"
    ]
    service = corpus.library(library).service
    reader = service.reader
    whole_us = per_call_us(service.enter, 20_000)
    descriptor_us = per_call_us(lambda: service.verify(reader), 20_000)
    print(f"one whole check (fstat + stat + access, before a job): {whole_us:.1f} µs")
    print(f"one descriptor check (fstat, between the calls of a job): {descriptor_us:.1f} µs")
    for label, call in (
        ("fetch", lambda i: corpus.fetch(refs[i % len(refs)], None)),
        ("search", lambda i: corpus.search(QUERIES[i % len(QUERIES)], 5)),
    ):
        times: list[float] = []
        made: list[tuple[int, int]] = []
        for i in range(runs):
            corpus.cache.clear()
            corpus.hits_cache.clear()
            corpus.answers_cache.clear()
            whole, descriptor = checks.both
            start = time.perf_counter()
            await call(i)
            times.append(time.perf_counter() - start)
            made.append((checks.whole - whole, checks.descriptor - descriptor))
        median_ms = statistics.median(times) * 1000
        wholes = statistics.median(m[0] for m in made)
        descriptors = statistics.median(m[1] for m in made)
        spent_us = wholes * whole_us + descriptors * descriptor_us
        print(
            f"cold {label}: median {median_ms:.2f} ms; {wholes:.0f} whole and "
            f"{descriptors:.0f} descriptor checks, {spent_us:.0f} µs "
            f"({spent_us / 10 / median_ms:.2f}% of it)"
        )


def _worker(connection: Connection) -> None:
    answer = b"x" * 100_000
    while (asked := connection.recv()) is not None:
        connection.send_bytes(answer if asked == "large" else b"ok")


def process_round_trips(runs: int) -> None:
    ours, theirs = multiprocessing.Pipe()
    worker = multiprocessing.get_context("fork").Process(target=_worker, args=(theirs,))
    worker.start()
    for size in ("small", "large"):
        samples = []
        for _ in range(runs * 200):
            start = time.perf_counter()
            ours.send(size)
            ours.recv_bytes()
            samples.append(time.perf_counter() - start)
        label = "small answer" if size == "small" else "100 KB answer"
        print(f"worker process round trip, {label}: {statistics.median(samples) * 1e6:.0f} µs")
    ours.send(None)
    worker.join()
    imports = "import corpus_mcp.corpus, libzim.reader, xapian"
    rss = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{imports}; print(open('/proc/self/status').read().split('VmRSS:')[1].split()[0])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    print(
        f"one worker process with the imports, before any archive: {int(rss.stdout) / 1024:.0f} MB"
    )


async def main(runs: int) -> None:
    bench = main_corpus()
    settings = load_settings(
        {"CORPUS_ROOT": str(bench.root), "CORPUS_CONFIG": str(bench.manifest), "PARSE_WORKERS": "0"}
    )
    manifest = load_manifest(bench.manifest, bench.root)
    checks = CountedChecks()
    async with open_corpus(settings, manifest) as corpus:
        await cold_calls(corpus, runs, checks)
    process_round_trips(runs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    trio.run(main, parser.parse_args().runs)
