"""Section 2: fetch of whole documents, corpus-mcp over MCP against kiwix-serve's raw
GET of the same entry, alternating."""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from _bench_clients import CallFailed, KiwixClient, McpClient, entry_link
from _bench_peers import Call, Peers
from _bench_report import Goal, Latency, heading, ms, ratio, table, verdict
from _corpora import BenchCorpus
from _processes import ROOT

from corpus_mcp.adapters import get_adapter
from corpus_mcp.gather import STUB_MAX_BYTES
from corpus_mcp.zim import ZimReader

REFERENCE = ROOT / "scripts" / "bench-reference.json"
"""Fetch ratios to kiwix-serve of the run before issue 20 (its "no slower than today")."""


@dataclass(frozen=True)
class Article:
    label: str
    ref: str
    html_bytes: int
    book: str
    candidates: tuple[str, ...]
    """Raw paths kiwix-serve may know the entry by (old archives: ``A/…``, ``.html``)."""


@dataclass
class Fetched:
    article: Article
    chars: int = 0
    mcp: list[float] = field(default_factory=list)
    kiwix: list[float] = field(default_factory=list)
    kiwix_link: str | None = None


def pick_articles(corpus: BenchCorpus, readers: Sequence[ZimReader]) -> list[Article]:
    """Per adapter family, its largest document and one of median size."""
    sizes: list[tuple[int, str, str, ZimReader]] = []
    for library, reader in zip(corpus.libraries, readers, strict=True):
        adapter = get_adapter(library.adapter)
        for path, _title, is_redirect in reader.iter_entries():
            if is_redirect or path == reader.info.main_path:
                continue
            entry = reader.resolve(path)
            if adapter.is_content(entry.path, entry.mimetype) and entry.size > STUB_MAX_BYTES:
                sizes.append((entry.size, library.name, entry.path, reader))
    adapters = {library.name: library.adapter for library in corpus.libraries}
    sizes.sort(key=lambda item: (item[0], item[1], item[2]))
    chosen = []
    for family in sorted(set(adapters.values())):
        of_family = [item for item in sizes if adapters[item[1]] == family]
        if of_family:
            largest = "largest" if of_family[-1] is sizes[-1] else "largest of its kind"
            chosen.append((largest, of_family[-1]))
            chosen.append(("median", of_family[len(of_family) // 2]))
    return [_article(label, *item) for label, item in chosen]


def _article(label: str, size: int, library: str, path: str, reader: ZimReader) -> Article:
    candidates = (path,) if reader.info.new_namespace_scheme else (f"A/{path}.html", f"A/{path}")
    return Article(
        label=f"{label}: {library}/{path}",
        ref=f"corpus://{library}/{path}",
        html_bytes=size,
        book=Path(reader.file).stem,
        candidates=candidates,
    )


async def fetches(peers: Peers, articles: Sequence[Article], repeats: int) -> list[Fetched]:
    """Each article fetched whole over MCP and GET raw from kiwix-serve, alternating,
    after one unmeasured call each (both then serve from memory)."""
    results = []
    async with AsyncExitStack() as stack:
        mcp = await stack.enter_async_context(McpClient(peers.mcp.base))
        kiwix = None
        if peers.kiwix is not None:
            kiwix = await stack.enter_async_context(KiwixClient(peers.kiwix.base, peers.books))
        for article in articles:
            fetched = Fetched(article, chars=await mcp.fetch(article.ref))
            if kiwix is not None:
                fetched.kiwix_link = await _kiwix_link(kiwix, article)
            steps: list[tuple[list[float], Call]] = [(fetched.mcp, partial(mcp.fetch, article.ref))]
            if kiwix is not None and fetched.kiwix_link is not None:
                steps.append((fetched.kiwix, partial(kiwix.get, fetched.kiwix_link)))
            for turn in range(repeats):
                for samples, call in steps[turn % 2 :] + steps[: turn % 2]:
                    started = time.perf_counter()
                    await call()
                    samples.append(time.perf_counter() - started)
            results.append(fetched)
    return results


async def _kiwix_link(kiwix: KiwixClient, article: Article) -> str | None:
    for raw in article.candidates:
        link = entry_link(article.book, raw)
        try:
            await kiwix.get(link)
        except CallFailed:
            continue
        return link
    return None


def report_fetch(fetched: Sequence[Fetched]) -> list[Goal]:
    """Section 2's table; the goal's line."""
    heading("2. fetch of a whole document, ms (warm: after one unmeasured call each)")
    rows, met, largest = [], 0, ""
    for item in fetched:
        mine, theirs = Latency.of(item.mcp), Latency.of(item.kiwix)
        judged = verdict(mine.p50 / theirs.p50, 1.0)
        met += judged == "pass"
        if item.article.label.startswith("largest:"):
            largest = f"largest {ms(mine.p50)} vs {ms(theirs.p50)} ms"
        size, chars = f"{item.article.html_bytes / 1000:.0f} KB", f"{item.chars:,}"
        rows.append(
            [
                item.article.label,
                size,
                chars,
                ms(mine.p50),
                ms(mine.p95),
                ms(theirs.p50),
                ms(theirs.p95),
                ratio(mine.p50, theirs.p50),
                judged,
            ]
        )
    headers = [
        "article",
        "HTML",
        "Markdown chars",
        "mcp p50",
        "p95",
        "kiwix p50",
        "p95",
        "mcp/kiwix",
        "verdict",
    ]
    table(headers, rows)
    print(
        "  corpus-mcp answers clean Markdown filled up to FETCH_BUDGET_CHARS (8,000), "
        "kiwix-serve the raw HTML"
    )
    summary = f"{met} of {len(fetched)} articles; {largest}"
    compared = any(item.kiwix for item in fetched)
    return [
        Goal(
            "1. fetch p50 <= kiwix-serve's raw GET",
            summary,
            "-" if not compared else "pass" if met == len(fetched) else "MISS",
        ),
        *_against_reference_both(fetched),
    ]


def _against_reference_both(fetched: Sequence[Fetched]) -> list[Goal]:
    """Issue 20's fetch goal, and issue 24's (fetches no slower with the section
    indexes: against the same reference, the last run measured before either)."""
    goal = _against_reference(fetched)
    later = dataclasses.replace(goal, goal=goal.goal.replace("3.", "6.", 1), issue=24)
    return [goal, later]


def _against_reference(fetched: Sequence[Fetched]) -> Goal:
    """Issue 20: fetches no slower than before it. Ratios to kiwix-serve of one run are
    compared with the reference run's ratios for the same articles (absolute times of
    two runs on a shared machine do not compare): their geometric mean, now over then."""
    goal = "3. fetch no slower than before (mcp/kiwix p50 ratio over the reference's)"
    try:
        reference = json.loads(REFERENCE.read_text())
    except (OSError, ValueError):
        return Goal(goal, f"no reference ({REFERENCE.name})", "-", issue=20)
    then: dict[str, float] = reference["fetch"]
    changes = []
    for item in fetched:
        mine, theirs = Latency.of(item.mcp).p50, Latency.of(item.kiwix).p50
        if item.article.label in then and theirs > 0 and not math.isnan(mine / theirs):
            changes.append((mine / theirs) / then[item.article.label])
    if not changes:
        return Goal(goal, "no article of the reference measured", "-", issue=20)
    mean = math.exp(sum(map(math.log, changes)) / len(changes))
    measured = f"{mean:.2f}x over {len(changes)} articles (reference {reference['commit']})"
    print(
        f"  against the reference run ({reference['commit']}, {reference['date']}): "
        + ", ".join(f"{change:.2f}x" for change in changes)
        + f" of its ratios; geometric mean {mean:.2f}x"
    )
    return Goal(goal, measured, verdict(mean, 1.0), issue=20)
