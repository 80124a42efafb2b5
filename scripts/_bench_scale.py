"""Section 5: corpus size. Search latency and memory with 1, 10 and 100 archives (copies
of one small archive) and with one archive of a million entries, each corpus on a
corpus-mcp server and a kiwix-serve of its own."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from _bench_clients import KiwixClient, McpClient
from _bench_plan import LIMIT, variant
from _bench_report import Goal, Latency, heading, mb, ms, ratio, table, verdict
from _corpora import MILLION_PAGES, BenchCorpus, copies_corpus, million_corpus
from _processes import ProcessSample, corpus_server, kiwix_server, sample

from corpus_mcp.demo.synthetic import ADJECTIVES, NOUNS
from corpus_mcp.zim import ZimReader

FLAT_MARGIN = 1.5
"""Per-archive cost counts as flat when what each archive adds to search p50 between the
two largest corpora is at most this multiple of what it adds between the two before
(spans of many archives: a span of few drowns in the machine's noise)."""


@dataclass
class ScaleRow:
    label: str
    entries: int
    ready_seconds: float
    ready: ProcessSample
    """The server once it answered /healthz (archives open, nothing asked)."""
    kiwix_ready: ProcessSample | None = None
    mcp: list[float] = field(default_factory=list)
    kiwix: list[float] = field(default_factory=list)
    after: ProcessSample | None = None
    """The server after the questions."""
    kiwix_after: ProcessSample | None = None


def entry_count(files: Sequence[Path]) -> int:
    return sum(ZimReader(file, direct_index=False).info.entry_count for file in files)


def synthetic_queries(count: int) -> list[str]:
    """Questions in the generated archives' vocabulary."""
    rng = random.Random(7)
    forms = ("{a} {n}", "how does a {a} {n} work", "{n} {a} {n2}", "what is the {a} {n} used for")
    return [
        rng.choice(forms).format(
            a=rng.choice(ADJECTIVES), n=rng.choice(NOUNS), n2=rng.choice(NOUNS)
        )
        for _ in range(count)
    ]


async def scale_row(
    label: str,
    manifest: Path,
    files: Sequence[Path],
    queries: Sequence[str],
    *,
    rounds: int,
    kiwix: str | None,
) -> ScaleRow:
    """Search p50 (new questions whose documents were read: the same protocol as the
    single agent's *new* row) and memory, corpus-mcp and kiwix-serve alternating."""
    entries = entry_count(files)
    with ExitStack() as processes:
        server = processes.enter_context(corpus_server(manifest))
        row = ScaleRow(label, entries, server.ready_seconds, sample(server.pid))
        kiwix_served = processes.enter_context(kiwix_server(kiwix, files)) if kiwix else None
        if kiwix_served is not None:
            row.kiwix_ready = sample(kiwix_served.pid)
        async with AsyncExitStack() as stack:
            mcp = await stack.enter_async_context(McpClient(server.base))
            kiwix_client = None
            if kiwix_served is not None:
                books = [file.stem for file in files]
                kiwix_client = await stack.enter_async_context(
                    KiwixClient(kiwix_served.base, books)
                )
            for query in queries:
                await mcp.search(query, LIMIT)
                if kiwix_client is not None:
                    await kiwix_client.search(query, LIMIT)
            for number in range(1, rounds + 1):
                for query in queries:
                    asked = variant(query, number)
                    started = time.perf_counter()
                    await mcp.search(asked, LIMIT)
                    row.mcp.append(time.perf_counter() - started)
                    if kiwix_client is not None:
                        started = time.perf_counter()
                        await kiwix_client.search(asked, LIMIT)
                        row.kiwix.append(time.perf_counter() - started)
        row.after = sample(server.pid)
        if kiwix_served is not None:
            row.kiwix_after = sample(kiwix_served.pid)
    return row


async def corpus_size(
    corpus: BenchCorpus,
    counts: Sequence[int],
    *,
    questions: int,
    rounds: int,
    million: bool,
    kiwix: str | None,
) -> list[Goal]:
    """Section 5: copies of the corpus's smallest indexed archive, ``counts`` of them,
    and (``million``) the generated archive; the table, the notes and the goals' lines."""
    readers = {
        lib.path: ZimReader(corpus.root / lib.path, direct_index=False) for lib in corpus.libraries
    }
    base = min(
        (lib for lib in corpus.libraries if readers[lib.path].info.has_fulltext_index),
        key=lambda lib: (corpus.root / lib.path).stat().st_size,
    )
    source = corpus.root / base.path
    queries = random.Random(5).sample(list(corpus.queries), min(questions, len(corpus.queries)))
    heading(
        f"measuring 5: corpus size, copies of {base.name} "
        f"({source.stat().st_size / 1000:.0f} KB) ..."
    )
    rows = []
    for count in counts:
        manifest = copies_corpus(source, base.adapter, count)
        files = [manifest.parent / f"copy{n:03d}.zim" for n in range(1, count + 1)]
        rows.append(
            await scale_row(
                f"{count} x {base.name}",
                manifest,
                files,
                queries,
                rounds=rounds,
                kiwix=kiwix,
            )
        )
    built = ""
    if million:
        manifest, archive, built = million_corpus()
        rows.append(
            await scale_row(
                "1 x generated, 1M entries",
                manifest,
                [archive],
                synthetic_queries(questions),
                rounds=rounds,
                kiwix=kiwix,
            )
        )
    heading(f"5. corpus size: new questions ({len(queries)} x {rounds}), search ms; memory")
    table(
        ["corpus", "entries", "ready s", "mcp p50", "p95", "kiwix p50", "mcp/kiwix",
         "RSS ready: own + files", "after questions", "kiwix after"],
        [
            [
                r.label,
                f"{r.entries:,}",
                f"{r.ready_seconds:.1f}",
                ms(Latency.of(r.mcp).p50),
                ms(Latency.of(r.mcp).p95),
                ms(Latency.of(r.kiwix).p50),
                ratio(Latency.of(r.mcp).p50, Latency.of(r.kiwix).p50),
                _split(r.ready),
                _split(r.after),
                _split(r.kiwix_after),
            ]
            for r in rows
        ],
    )  # fmt: skip
    print("  own: the process's memory (heap, stacks); files: mapped libraries and archive pages")
    if built:
        print(f"  the 1M-entry archive ({MILLION_PAGES:,} pages, the rest redirects): {built}")
    return _verdicts(rows, counts)


def _split(taken: ProcessSample | None) -> str:
    if taken is None:
        return "-"
    return f"{mb(taken.anonymous_bytes)} + {mb(taken.file_bytes)}"


def _own(taken: ProcessSample | None) -> int:
    return taken.anonymous_bytes if taken else 0


def _verdicts(rows: list[ScaleRow], counts: Sequence[int]) -> list[Goal]:
    copies = rows[: len(counts)]
    p50 = [Latency.of(r.mcp).p50 for r in copies]
    spans = [(counts[i], counts[i + 1]) for i in range(len(counts) - 1)]
    added = [(p50[i + 1] - p50[i]) / (b - a) for i, (a, b) in enumerate(spans)]
    memory = [
        (_own(copies[i + 1].after) - _own(copies[i].after)) / (b - a)
        for i, (a, b) in enumerate(spans)
    ]
    shown = ", ".join(
        f"{a}->{b}: {cost:+.2f} ms" for (a, b), cost in zip(spans, added, strict=True)
    )
    print(
        f"  each added archive: {shown} of search p50; "
        + ", ".join(f"{a}->{b}: {mb(m)}" for (a, b), m in zip(spans, memory, strict=True))
        + " of own memory"
    )
    goals = []
    if len(added) >= 3:
        flat = added[-1] <= FLAT_MARGIN * max(added[-2], 0.0)
        print(
            "  per-archive search cost "
            + ("flat: the last span costs no more per archive" if flat else "grows with the corpus")
        )
        goals.append(
            Goal(
                f"5. per-archive search cost flat ({spans[-1][0]}->{spans[-1][1]} <= "
                f"{FLAT_MARGIN:g}x {spans[-2][0]}->{spans[-2][1]}, per archive)",
                f"{added[-2]:+.2f} then {added[-1]:+.2f} ms per archive",
                "pass" if flat else "MISS",
            )
        )
    if len(rows) > len(counts):
        goals.append(_per_entry(rows[-1], copies[0]))
    return goals


def _per_entry(big: ScaleRow, small: ScaleRow) -> Goal:
    """Own memory a million entries add, at open and after the questions, against what
    they add to kiwix-serve's."""
    entries = max(big.entries - small.entries, 1)
    opened = (_own(big.ready) - _own(small.ready)) / entries
    asked = (_own(big.after) - _own(small.after)) / entries
    theirs = (_own(big.kiwix_after) - _own(small.kiwix_after)) / entries
    print(
        f"  a million entries add {opened:.0f} bytes per entry of own memory once open, "
        f"{asked:.0f} after the questions (kiwix-serve: {theirs:.0f})"
    )
    return Goal(
        "5. per-entry memory (own, after questions) <= kiwix-serve's",
        f"{opened:.0f} B/entry open, {asked:.0f} after questions; kiwix {theirs:.0f}",
        verdict(asked, theirs) if big.kiwix_after else "-",
    )
