"""Fetch benchmark (issue 3): speed against lxml's bare parse, output size, junk check.

Prints, in one run on this machine:
- the largest real article (Ray Charles, 2018 archive): lxml's bare parse of its HTML,
  a cold fetch (empty document cache) and a cached fetch, medians, and the ratios;
- per family: characters of Markdown served vs characters of visible text in the HTML;
- a junk check over every document of every fixture and real archive.

Usage: python scripts/bench_fetch.py [--runs N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import cast

import lxml.etree
import lxml.html
import trio

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _corpora import corpus_root, settings_for

from corpus_mcp import refs
from corpus_mcp.corpus import Corpus, open_corpus

LARGEST = ("rc2018", "Ray_Charles")
# Code legitimately holds `<vector>` and `a[1]`: it is left out before the junk check.
CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
JUNK = {
    "citation marker": re.compile(r"(?<![\w\]])\[\d{1,3}\]"),
    "html tag": re.compile(r"(?<!\\)</?[a-zA-Z][a-zA-Z0-9]*(\s[^>]*)?>"),  # not `\<char>`
    "footer": re.compile(r"This article is issued from|Retrieved from|Jump to navigation"),
    "edit link": re.compile(r"\[edit\]|\[edit source\]"),
    "toc list": re.compile(r"^\s*(Contents|Table of contents)\s*$", re.MULTILINE),
    "navbox chrome": re.compile(r"\bv\s*[·•]\s*t\s*[·•]\s*e\b"),
}


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def timed(fn: Callable[[], Awaitable[object]], runs: int) -> list[float]:
    out: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - start)
    return out


def visible_text_chars(html: bytes) -> int:
    """Characters of text a reader of the page sees (scripts, styles and head left out)."""
    root = cast(lxml.html.HtmlElement, lxml.html.document_fromstring(html))
    lxml.etree.strip_elements(root, "script", "style", "head", with_tail=False)
    return len(" ".join(root.text_content().split()))


async def speed(corpus: Corpus, runs: int) -> None:
    name, path = LARGEST
    library = corpus.library(name)
    html = library.service.reader.content(path)
    ref = refs.encode(name, path)

    async def cold() -> None:
        corpus.cache.clear()
        await corpus.fetch(ref, None)

    async def cached() -> None:
        await corpus.fetch(ref, None)

    # Bare parse and cold fetch alternate, run by run, so that a shared machine's drift
    # lands on both sides of the ratio.
    bare_times: list[float] = []
    cold_times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        lxml.html.document_fromstring(html)
        bare_times.append(time.perf_counter() - start)
        cold_times += await timed(cold, 1)
    await corpus.fetch(ref, None)
    cached_times = await timed(cached, runs * 5)
    b, c, w = median_ms(bare_times), median_ms(cold_times), median_ms(cached_times)
    print(f"largest real article: {name}/{path}, {len(html) / 1000:.0f} KB of HTML")
    print(f"  lxml bare parse      {b:8.2f} ms (median of {runs})")
    print(f"  cold fetch           {c:8.2f} ms   ratio to bare parse {c / b:5.2f}x  (goal <= 4x)")
    print(f"  cached fetch         {w:8.3f} ms   (goal < 1 ms)")


async def sizes_and_junk(corpus: Corpus) -> int:
    markdown: dict[str, int] = defaultdict(int)
    visible: dict[str, int] = defaultdict(int)
    docs: dict[str, int] = defaultdict(int)
    junk: list[str] = []
    for name in corpus.libraries:
        library = corpus.library(name)
        reader, adapter = library.service.reader, library.adapter
        family = adapter.name
        for path, _title, is_redirect in reader.iter_entries():
            if is_redirect:
                continue
            entry = reader.resolve(path)
            if not adapter.is_content(entry.path, entry.mimetype):
                continue
            if adapter.stub_landing(entry.path, reader.content(entry.path)) is not None:
                continue
            out = await corpus.fetch(refs.encode(name, path), None)
            text = "\n".join(s.title + "\n" + s.content for s in out.sections)
            markdown[family] += len(text)
            visible[family] += visible_text_chars(reader.content(path))
            docs[family] += 1
            prose = CODE.sub(" ", text)
            for label, pattern in JUNK.items():
                if m := pattern.search(prose):
                    junk.append(f"{name}/{path}: {label}: {m.group(0)[:60]!r}")
    print("\noutput size: Markdown characters vs visible HTML text characters")
    for family in sorted(markdown):
        ratio = markdown[family] / max(visible[family], 1)
        print(
            f"  {family:14s} {docs[family]:5d} docs  {markdown[family]:>10,d} md  "
            f"{visible[family]:>10,d} visible  ratio {ratio:4.2f}"
        )
    print(f"\njunk check over {sum(docs.values())} documents: {len(junk)} finding(s)")
    for line in junk[:40]:
        print("  " + line)
    return len(junk)


async def main(runs: int) -> int:
    settings, manifest = settings_for(corpus_root(), MAX_FETCH_CHARS="10000000")
    async with open_corpus(settings, manifest) as corpus:
        if LARGEST[0] in corpus.libraries:
            await speed(corpus, runs)
        else:
            print("real archives absent: speed figures skipped")
        findings = await sizes_and_junk(corpus)
    return 1 if findings else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    raise SystemExit(trio.run(main, parser.parse_args().runs))
