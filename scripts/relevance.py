"""Relevance evaluation (issue 4): Hit@1, MRR@5 and hint accuracy against a naive baseline.

The cases live in ``tests/relevance_cases.toml`` (demo fixtures) and
``tests/relevance_real.toml`` (the real archives of ../shared/zims, skipped when absent).
Each case names a query, the expected document (``library`` + ``path``, with optional
``alternatives`` as "library/path" strings) and optionally the expected section.

The baseline is what a thin wrapper over libzim would do: each archive's own full-text
order (title suggestions where there is no full-text index), redirects resolved,
merged round-robin across archives. Both run in the same process over the same corpus.

Usage: python scripts/relevance.py [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import ROOT, SHARED_ZIMS, corpus_root, settings_for

from corpus_mcp import refs
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.gather import land
from corpus_mcp.zim import ZimError

K = 5


def load_cases() -> list[dict[str, Any]]:
    files = [ROOT / "tests" / "relevance_cases.toml"]
    if SHARED_ZIMS.is_dir():
        files.append(ROOT / "tests" / "relevance_real.toml")
    cases: list[dict[str, Any]] = []
    for file in files:
        cases += tomllib.loads(file.read_text("utf-8"))["case"]
    return cases


def expected(case: dict[str, Any]) -> set[str]:
    return {f"{case['library']}/{case['path']}", *case.get("alternatives", [])}


async def ours(corpus: Corpus, query: str) -> list[tuple[str, list[str]]]:
    out = await corpus.search(query, K)
    return [
        (
            f"{r.library}/{refs.decode(r.ref, corpus.libraries)[1]}",
            [h.id for h in r.relevant_sections],
        )
        for r in out.results
    ]


def baseline(corpus: Corpus, query: str) -> list[tuple[str, list[str]]]:
    per_library: list[list[str]] = []
    for name in sorted(corpus.libraries):
        library = corpus.library(name)
        reader, adapter = library.service.reader, library.adapter
        try:
            if reader.info.has_fulltext_index:
                raw = reader.fulltext(query, K).paths
            else:
                raw = [s.path for s in reader.suggest(query, K)]
        except ZimError:
            raw = []
        landed: list[str] = []
        for path in raw:
            try:
                hit = land(reader, adapter, path)
            except ZimError:
                continue
            key = f"{name}/{hit.path}"
            if key not in landed:
                landed.append(key)
        per_library.append(landed)
    merged: list[str] = []
    for rank in range(K):
        for hits in per_library:
            if rank < len(hits) and len(merged) < K:
                merged.append(hits[rank])
    return [(key, []) for key in merged]


async def accepted_hints(corpus: Corpus, case: dict[str, Any]) -> set[str]:
    """Hint ids that count as right: the expected id and, when it is an anchor (a
    ``dt`` id, an answer alias), the id of the section ``fetch`` lands it on."""
    if "section" not in case:
        return set()
    ref = refs.encode(case["library"], case["path"])
    fetched = await corpus.fetch(ref, [case["section"]])
    return {case["section"], fetched.sections[0].id}


def score(
    results: list[tuple[str, list[str]]], case: dict[str, Any], right_hints: set[str]
) -> tuple[int, float, bool | None]:
    wanted = expected(case)
    hit1 = int(bool(results) and results[0][0] in wanted)
    rr = 0.0
    hint: bool | None = None if "section" not in case else False
    for rank, (key, hints) in enumerate(results[:K], start=1):
        if key in wanted:
            rr = 1.0 / rank
            if "section" in case:
                hint = bool(right_hints & set(hints))
            break
    return hit1, rr, hint


async def main(verbose: bool) -> None:
    cases = load_cases()
    settings, manifest = settings_for(corpus_root())
    totals: dict[str, list[float]] = {"corpus-mcp": [0, 0, 0, 0], "baseline": [0, 0, 0, 0]}
    async with open_corpus(settings, manifest) as corpus:
        for case in cases:
            right_hints = await accepted_hints(corpus, case)
            for label, results in (
                ("corpus-mcp", await ours(corpus, case["query"])),
                ("baseline", baseline(corpus, case["query"])),
            ):
                hit1, rr, hint = score(results, case, right_hints)
                t = totals[label]
                t[0] += hit1
                t[1] += rr
                if hint is not None:
                    t[2] += int(hint)
                    t[3] += 1
                if verbose and label == "corpus-mcp" and (not hit1 or hint is False):
                    got = ", ".join(k for k, _ in results[:3]) or "nothing"
                    print(
                        f"  miss: {case['query']!r}: want {sorted(expected(case))[0]}"
                        f"{'#' + case['section'] if 'section' in case else ''}, got {got}"
                    )
    n = len(cases)
    print(f"{n} cases, {sum('section' in c for c in cases)} with an expected section")
    print(f"{'':12s} {'Hit@1':>7s} {'MRR@5':>7s} {'hints':>7s}")
    for label, (hits, rr, hint_ok, hint_n) in totals.items():
        hints = f"{hint_ok / hint_n:7.2f}" if label == "corpus-mcp" and hint_n else "    n/a"
        print(f"{label:12s} {hits / n:7.2f} {rr / n:7.2f} {hints}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print the misses")
    trio.run(main, parser.parse_args().verbose)
