"""Search benchmark (issue 4): corpus-mcp against a bare libzim loop and kiwix-serve.

In one run over one corpus (the demo fixtures, the real archives of ../shared/zims and
generated large archives, one of them with 50k+ entries), for the same queries, prints:
- corpus-mcp search latency p50/p95, in-process: cold (no cache), warm (documents
  cached, every index searched again) and a repeated query (its hits remembered too);
- a bare baseline: per-archive libzim full-text searches, then reading the raw content of
  the final top ``limit`` entries (the least any snippet needs);
- kiwix-serve (Debian's kiwix-tools) multi-archive full-text search with snippets over
  the same archives, started on loopback by this script;
- the ratios, the event-loop lag during a burst of 16 concurrent searches, the cost of
  one archive that hangs (SEARCH_TIMEOUT bounds it), and peak RSS.

Usage: python scripts/bench_search.py [--large N] [--rounds N]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import httpx
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import CACHE, ROOT, corpus_root, settings_for

from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo.synthetic import (
    build_large_stackexchange,
    build_large_wikipedia,
)
from corpus_mcp.zim import ArchiveService, SearchPage, ZimReader
from corpus_mcp.zim.index import NO_INDEXES

LIMIT = 5
EXTRA_QUERIES = [
    "ray charles",
    "piano",
    "insulin resistance",
    "vector",
    "python",
    "asynchronous io event loop",
    "how do I reverse a list in python",
    "derivative",
    "blues musician born in georgia",
    "treatment of high blood pressure",
]


def queries() -> list[str]:
    cases = tomllib.loads((ROOT / "tests" / "relevance_cases.toml").read_text("utf-8"))
    return [c["query"] for c in cases["case"]] + EXTRA_QUERIES


def large_archives(articles: int) -> tuple[tuple[str, str, str], ...]:
    root = CACHE / "corpus"
    wiki = root / "large" / f"wikipedia_en_synthetic_{articles}_2026-05.zim"
    se = root / "large" / "synthetic.stackexchange.com_en_all_2026-05.zim"
    if not wiki.is_file():
        print(f"building a {articles}-article synthetic Wikipedia (cached in {wiki.parent}) …")
        start = time.perf_counter()
        build_large_wikipedia(wiki, articles=articles)
        print(f"  built in {time.perf_counter() - start:.0f} s")
    if not se.is_file():
        print("building a synthetic Stack Exchange archive …")
        build_large_stackexchange(se)
    return (
        ("synthetic_wiki", str(wiki.relative_to(root)), "mediawiki"),
        ("synthetic_se", str(se.relative_to(root)), "stackexchange"),
    )


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def line(label: str, samples: list[float], base: float | None = None) -> float:
    p50, p95 = pct(samples, 0.5), pct(samples, 0.95)
    ratio = f"   {p50 / base:5.2f}x bare" if base else ""
    print(f"  {label:34s} p50 {p50:8.2f} ms   p95 {p95:8.2f} ms{ratio}")
    return p50


async def corpus_runs(
    corpus: Corpus, qs: list[str], rounds: int
) -> tuple[list[float], list[float], list[float], int]:
    """Per query: cold (no document or hits cached), warm (documents cached, every index
    searched again) and repeated (the same query again: hits remembered too)."""
    cold: list[float] = []
    warm: list[float] = []
    repeated: list[float] = []
    answered = set()
    for _ in range(rounds):
        for q in qs:
            corpus.cache.clear()
            corpus.hits_cache.clear()
            corpus.answers_cache.clear()
            start = time.perf_counter()
            await corpus.search(q, LIMIT)
            cold.append(time.perf_counter() - start)
            corpus.hits_cache.clear()
            corpus.answers_cache.clear()
            start = time.perf_counter()
            out = await corpus.search(q, LIMIT)
            warm.append(time.perf_counter() - start)
            start = time.perf_counter()
            await corpus.search(q, LIMIT)
            repeated.append(time.perf_counter() - start)
            if out.results:
                answered.add(q)
    return cold, warm, repeated, len(answered)


def bare_runs(readers: list[ZimReader], qs: list[str], rounds: int) -> tuple[list[float], int]:
    """libzim searches per archive, round-robin merge, raw content of the top LIMIT;
    also how many queries got at least one result."""
    out: list[float] = []
    answered = set()
    for _ in range(rounds):
        for q in qs:
            start = time.perf_counter()
            per_archive = []
            for reader in readers:
                if reader.info.has_fulltext_index:
                    per_archive.append((reader, reader.fulltext(q, LIMIT).paths))
                else:
                    per_archive.append((reader, [s.path for s in reader.suggest(q, LIMIT)]))
            top: list[tuple[ZimReader, str]] = []
            for rank in range(LIMIT):
                for reader, paths in per_archive:
                    if rank < len(paths) and len(top) < LIMIT:
                        top.append((reader, paths[rank]))
            for reader, path in top:
                reader.content(path)
            out.append(time.perf_counter() - start)
            if top:
                answered.add(q)
    return out, len(answered)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def kiwix_runs(files: list[Path], qs: list[str], rounds: int) -> tuple[list[float], int] | None:
    binary = shutil.which("kiwix-serve")
    if binary is None:
        print("  kiwix-serve not installed (apt-get install kiwix-tools): skipped")
        return None
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--address=127.0.0.1", f"--port={port}", *map(str, files)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/search"
        with httpx.Client(timeout=60) as client:
            for _ in range(100):
                try:
                    client.get(f"http://127.0.0.1:{port}/")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            out: list[float] = []
            answered = set()
            for _ in range(rounds):
                for q in qs:
                    start = time.perf_counter()
                    page = client.get(url, params={"pattern": q, "pageLength": LIMIT})
                    out.append(time.perf_counter() - start)
                    if "<li>" in page.text:
                        answered.add(q)
            return out, len(answered)
    finally:
        proc.terminate()
        proc.wait(10)


async def loop_lag(corpus: Corpus, qs: list[str]) -> float:
    """Worst event-loop delay seen by a 5 ms ticker while 16 searches run at once."""
    worst = 0.0
    done = trio.Event()

    async def ticker() -> None:
        nonlocal worst
        while not done.is_set():
            start = time.perf_counter()
            await trio.sleep(0.005)
            worst = max(worst, time.perf_counter() - start - 0.005)

    async def burst() -> None:
        async with trio.open_nursery() as inner:
            for i in range(16):
                inner.start_soon(corpus.search, qs[i % len(qs)], LIMIT)
        done.set()

    corpus.cache.clear()
    corpus.hits_cache.clear()
    corpus.answers_cache.clear()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker)
        nursery.start_soon(burst)
    return worst * 1000


class HangingReader(ZimReader):
    """A real archive whose full-text search blocks (a stuck disk, a pathological query)."""

    def __init__(self, reader: ZimReader, release: threading.Event) -> None:
        self.__dict__.update(reader.__dict__)
        self._release = release
        # Through libzim's search, whose call blocks here (the index is not read directly).
        self.indexes = NO_INDEXES

    def fulltext(self, query: str, limit: int, offset: int = 0) -> SearchPage:
        self._release.wait(30)
        return super().fulltext(query, limit, offset)


async def hanging_archive_cost(corpus: Corpus, qs: list[str], name: str) -> tuple[float, float]:
    """Median search time with ``name`` healthy, then with it hanging."""
    healthy: list[float] = []
    corpus.hits_cache.clear()
    corpus.answers_cache.clear()
    for q in qs[:10]:
        start = time.perf_counter()
        await corpus.search(q, LIMIT)
        healthy.append(time.perf_counter() - start)
    library = corpus.library(name)
    release = threading.Event()
    original = library.service
    library.service = ArchiveService(
        HangingReader(original.reader, release), trio.CapacityLimiter(8), library=name
    )
    hanging: list[float] = []
    corpus.hits_cache.clear()
    corpus.answers_cache.clear()
    try:
        for q in qs[:3]:
            start = time.perf_counter()
            out = await corpus.search(q, LIMIT)
            hanging.append(time.perf_counter() - start)
            assert out.partial and name in out.unavailable_libraries
    finally:
        release.set()
        library.service = original
    return statistics.median(healthy) * 1000, statistics.median(hanging) * 1000


async def main(args: argparse.Namespace) -> None:
    manifest = corpus_root(extra=large_archives(args.large))
    settings, loaded = settings_for(manifest, SEARCH_TIMEOUT=str(args.timeout))
    qs = queries()
    print(
        f"corpus: {len(loaded.enabled)} archives; {len(qs)} queries x {args.rounds} rounds, "
        f"limit {LIMIT}"
    )
    async with open_corpus(settings, loaded) as corpus:
        for name in corpus.libraries:
            info = corpus.library(name).service.info
            print(
                f"  {name:16s} {info.entry_count:>7d} entries  "
                f"fulltext={'yes' if info.has_fulltext_index else 'no'}"
            )
        readers = [corpus.library(n).service.reader for n in corpus.libraries]
        await corpus.search(qs[0], LIMIT)  # first-touch costs (Xapian open) out of the figures
        bare_runs(readers, qs[:3], 1)
        print("\nlatency, same queries:")
        bare, bare_answered = bare_runs(readers, qs, args.rounds)
        cold, warm, repeated, answered = await corpus_runs(corpus, qs, args.rounds)
        base = line("bare libzim loop + raw content", bare)
        line("corpus-mcp search, cold cache", cold, base)
        warm_p50 = line("corpus-mcp search, warm cache", warm, base)
        repeated_p50 = line("corpus-mcp search, repeated query", repeated, base)
        kiwix = kiwix_runs([Path(lib.file) for lib in loaded.enabled], qs, args.rounds)
        kiwix_answered: int | None = None
        if kiwix:
            kiwix_p50 = line("kiwix-serve /search (HTTP)", kiwix[0], base)
            kiwix_answered = kiwix[1]
            print(f"  warm corpus-mcp vs kiwix-serve: {warm_p50 / kiwix_p50:5.2f}x (goal < 1)")
            print(f"  repeated query vs kiwix-serve:  {repeated_p50 / kiwix_p50:5.2f}x")
        print(f"  warm corpus-mcp vs bare baseline: {warm_p50 / base:5.2f}x (goal <= 1.5)")
        print(
            f"  queries with at least one result: corpus-mcp {answered}/{len(qs)}, "
            f"bare {bare_answered}/{len(qs)}"
            + (f", kiwix-serve {kiwix_answered}/{len(qs)}" if kiwix_answered is not None else "")
        )
        lag = await loop_lag(corpus, qs)
        print(f"\nevent-loop lag during 16 concurrent searches: {lag:.1f} ms max (goal < 50 ms)")
        healthy, hanging = await hanging_archive_cost(corpus, qs, corpus.libraries[0])
        print(
            f"one hanging archive (SEARCH_TIMEOUT={args.timeout}s): median search "
            f"{healthy:.0f} ms healthy -> {hanging:.0f} ms "
            f"(+{hanging - healthy:.0f} ms; goal <= {args.timeout * 1000:.0f} ms)"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS: {rss:.0f} MB")


def parse_args(argv: Any = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=int, default=50_000, help="articles in the large archive")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1.0, help="SEARCH_TIMEOUT for the run")
    return parser.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse_args())
