"""Scale on a large archive: the section index's build and size, and search there against
kiwix-serve, with the index and without (issue 24, "Scale, measured").

The archive is a generated Wikipedia-like one made from the sample archives' real text
(``corpus_mcp.demo.wikipedia_like``: 200,000 articles by default, built once into
``.bench/``; ``--root`` names one built elsewhere). Its section index is built first by
``corpus-mcp index`` (every core; the figures it prints are the build's), unless it is
up to date in ``--indexes``. Then new questions (article titles' words, asked as an
agent would, each variant asked once after its question) go to a real ``corpus-mcp
serve`` with the index, to one with ``INDEX=off``, and to kiwix-serve, taking turns.
Printed: build pages/s (all processes, and per core), index size against the archive's,
search p50/p95 of each peer, and the extrapolation to English Wikipedia.

Usage: python scripts/bench_scale_large.py [--root DIR] [--indexes DIR] [--questions 100]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

import trio
from _bench_scale import scale_row
from _corpora import large_wikipedia_corpus
from _processes import SERVER_ENV, ensure_indexes, kiwix_binary

from corpus_mcp.config import load_manifest, usable_cpus
from corpus_mcp.sections.store import read_meta
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.layout import header_uuid

#: English Wikipedia's articles (2026), for the extrapolation.
ENGLISH_WIKIPEDIA = 6_800_000
CORES = (2, 8, 32)


def questions(archive: Path, count: int) -> list[str]:
    """Questions made of the archive's own article titles (deterministic)."""
    reader = ZimReader(archive, direct_index=False)
    titles = [
        entry.title
        for entry in reader.entries(0, reader.info.entry_count)
        if not entry.redirect and entry.mimetype.startswith("text/html") and " " in entry.title
    ]
    rng = random.Random(24)
    chosen = rng.sample(titles, min(count, len(titles)))
    forms = ("{t}", "what is {t}", "history of {t}", "{t} description")
    return [rng.choice(forms).format(t=title.split(" (")[0].lower()) for title in chosen]


async def measure(args: argparse.Namespace) -> None:
    root = args.root or large_wikipedia_corpus()[0].parent
    manifest = root / "corpus.toml"
    library = load_manifest(manifest, root).enabled[0]
    archive = library.file
    SERVER_ENV["CORPUS_INDEX_DIR"] = str(args.indexes)
    print(f"archive: {archive} ({archive.stat().st_size / 1e6:,.0f} MB)", flush=True)
    ensure_indexes(manifest, root)
    uuid = header_uuid(str(archive))
    index_file = args.indexes / f"{uuid}.{library.adapter}.xapian"
    meta = read_meta(index_file)
    size = index_file.stat().st_size
    rate = meta.documents / meta.seconds if meta.seconds else float("nan")
    cores = usable_cpus()
    print(
        f"section index: {meta.documents:,} pages, {meta.sections:,} sections, built in "
        f"{meta.seconds:,.0f} s ({rate:.1f} pages/s on {cores} cores, "
        f"{rate / cores:.1f} per core); {size / 1e6:,.0f} MB = "
        f"{size / archive.stat().st_size:.2f}x the archive"
    )
    asked = questions(archive, args.questions)
    kiwix = kiwix_binary()
    with_index = await scale_row(
        "with its index", manifest, [archive], asked, rounds=1, kiwix=kiwix
    )
    SERVER_ENV["INDEX"] = "off"
    without = await scale_row("INDEX=off", manifest, [archive], asked, rounds=1, kiwix=None)
    del SERVER_ENV["INDEX"]

    def cell(samples: list[float]) -> str:
        if not samples:
            return "-"
        ordered = sorted(samples)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        return f"{statistics.median(ordered) * 1000:.1f} / {p95 * 1000:.1f}"

    print(f"\nnew questions ({len(asked)}), search p50 / p95 ms:")
    print(f"  corpus-mcp with the section index  {cell(with_index.mcp)}")
    print(f"  corpus-mcp, INDEX=off              {cell(without.mcp)}")
    print(f"  kiwix-serve                        {cell(with_index.kiwix)}")
    if with_index.kiwix:
        ratio = statistics.median(with_index.mcp) / statistics.median(with_index.kiwix)
        print(f"  corpus-mcp with the index / kiwix-serve: {ratio:.2f}x")
    per_page = size / meta.documents
    print(
        f"\nextrapolated to English Wikipedia ({ENGLISH_WIKIPEDIA:,} articles; this "
        "archive's pages are shorter than Wikipedia's average, see docs/performance.md, Scale):"
    )
    for count in CORES:
        hours = ENGLISH_WIKIPEDIA / (rate / cores * count) / 3600
        print(f"  {count:2d} cores: {hours:5.1f} h")
    print(
        f"  on disk: {ENGLISH_WIKIPEDIA * per_page / 1e9:,.1f} GB ({per_page / 1e3:.1f} kB a page)"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, help="a folder with the archive and corpus.toml")
    parser.add_argument(
        "--indexes", type=Path, default=Path(".bench") / "indexes", help="the index folder"
    )
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args()
    args.indexes = args.indexes.absolute()
    trio.run(measure, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
