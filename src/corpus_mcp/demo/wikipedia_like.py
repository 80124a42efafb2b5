"""Large Wikipedia-like archives from real article text, for benchmarks.

:mod:`.synthetic` writes its articles from a fixed vocabulary of a few hundred words;
this module recombines the text of real archives (the mwoffliner samples in
``../shared/zims``) instead, so that an archive of 10,000 to 250,000+ articles has
Wikipedia's vocabulary, paragraph lengths and markup density:

* the sources are read once, through the project's reader and the mediawiki adapter's
  search-time view (:func:`read_pool`): real titles, lead paragraphs, body paragraphs,
  sections with their real headings and blocks, lists, tables, infoboxes, citations;
* each article (:func:`make_article`, seeded by ``(seed, index)``) gets a unique title
  made of real titles and title words, a lead whose first words name it in bold, 3-12
  sections with real headings and paragraphs drawn from the pool, internal links to the
  other articles (about one per 27 words), citation markers and a References list, an
  infobox in about half of them, "See also" and "External links" in some; its length is
  drawn from a log-normal, so there are long and short articles: about 540 visible words
  at the median, 720 on average, 3,400 at the 99th percentile; 9 KB of HTML at the
  median, 40 KB at the 99th percentile, up to about 130 KB;
* redirects (a case variant, the title without its disambiguator's year, "The ...",
  two words swapped) are libzim redirects, one per 2.7 articles at 10,000 and per 3.1 at
  200,000 (more candidates clash with a path already taken); about 3 % of the articles
  also have a redirect to a section, an ``html_redirect`` stub, as mwoffliner 1.17
  writes them (zim-formats.md §1.4);
* the HTML goes through the demo renderers (:mod:`._mediawiki`) and
  :func:`~corpus_mcp.zim.writer.write_zim` (full-text and title index).

The same arguments (sources, count, seed) always give the same entries. The text pool is
small (about 1,560 real passages, 123,000 words, 25,000 distinct), so a large archive
reuses each paragraph many times: words are real, document frequencies are flatter than
Wikipedia's. Pages are generated while libzim writes them; only the titles and the
redirect plan are held. libzim's zstd compression and Xapian indexing take most of the
build. Measured on the shared 2-core machine (other work running, so the rate varied
by half): 10,000 articles (14,150 entries, 112 MB of HTML, 28 MB archive) in 77-149 s;
200,000 articles (271,133 entries, 2.2 GB of HTML, 549 MB archive: 188 MB full-text and
44 MB title index) in 1,893 s (106 articles/s, 760 MB peak RSS),
3,578 s beside a test suite and benchmarks (56 articles/s).

``python -m corpus_mcp.demo.wikipedia_like OUT --articles N`` writes the archive and a
``corpus.toml`` (library ``Wikipedia-Large``) into OUT.
"""

from __future__ import annotations

import argparse
import functools
import html
import itertools
import math
import random
import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from corpus_mcp.adapters.mediawiki import MediaWikiAdapter
from corpus_mcp.demo._mediawiki import (
    Article,
    Section,
    article_entries,
    asset_pages,
    citation,
    href_to,
    list_main_page,
    zim_path,
)
from corpus_mcp.demo.wikipedia import METADATA as WIKIPEDIA_METADATA
from corpus_mcp.document import LIST, PROSE, TABLE, walk
from corpus_mcp.zim.reader import ZimReader
from corpus_mcp.zim.writer import Page, Redirect, write_zim

#: The real mwoffliner archives the text comes from (in ``../shared/zims``).
SOURCE_FILES = (
    "wikipedia_en_100_mini_2022-10.zim",
    "wikipedia_en_ray_charles_mini_2020-03.zim",
    "wikipedia_en_ray_charles_novid_2018-10.zim",
)
FILE = "wikipedia_en_large_nopic_2026-05.zim"
LIBRARY = "Wikipedia-Large"
HOST = "en.wikipedia.org"
MAIN_PAGE_LINKS = 1000
"""The generated list main page links the first articles only (a list of 200,000 would be
a 15 MB page)."""

MEDIAN_WORDS, LENGTH_SIGMA, MIN_WORDS, MAX_WORDS = 350, 0.9, 60, 9000
MIN_SECTIONS, MAX_SECTIONS = 3, 12
WORDS_PER_LINK = 18
MIN_PARAGRAPH_WORDS = 8
REDIRECT_SHARE = 0.4
SECTION_REDIRECT_SHARE = 0.04

_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_DISAMBIGUATOR = re.compile(r"\s+\([^()]*\)$")
_UNSAFE = re.compile(r"[&<>]")
_TITLE_WORD = re.compile(r"^[A-Z][\w'.-]+$")
_VERB = re.compile(r"\s(?:is|was|are|were)\s")
_KINDS = (
    "album", "song", "film", "novel", "band", "play", "TV series", "magazine", "ship",
    "river", "village", "company", "genus", "opera", "poem", "painting", "video game",
    "musician", "politician", "footballer", "singer", "journal", "mountain", "horse",
)  # fmt: skip
_DATED_KINDS = ("album", "song", "film", "novel", "play", "TV series", "video game", "ship")
_JOINERS = ("of", "and", "in", "at", "on", "for")
_LINKABLE = re.compile(r"^(?P<before>[(\"'\[]*)(?P<text>.*?)(?P<after>[)\"'\].,;:!?]*)$")
#: Image captions the view keeps, and mwoffliner 2018's section placeholders.
_NOT_TEXT = re.compile(r"Image:|__[A-Z_]+_\d*__$")
_NOT_CITATIONS = frozenset({"See also", "Further reading", "Other websites"})
_YEAR_KIND = re.compile(r" \((\d{4}) ([^()]*)\)$")


@dataclass(frozen=True)
class Block:
    """One passage of real text: ``kind`` is ``prose``, ``list`` or ``table`` (list items
    joined by ``; ``, table cells by ``, `` and rows by ``; ``, as the view writes them)."""

    kind: str
    text: str
    words: int


@dataclass(frozen=True)
class RealSection:
    """A section of a real article: its heading, level and own blocks."""

    level: int
    heading: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class TextPool:
    """Everything taken from the real archives, deduplicated, in archive order."""

    titles: tuple[str, ...]
    title_words: tuple[str, ...]
    leads: tuple[Block, ...]
    paragraphs: tuple[Block, ...]
    sections: tuple[RealSection, ...]
    structured: tuple[Block, ...]
    infoboxes: tuple[tuple[tuple[str, str], ...], ...]
    citations: tuple[str, ...]
    external_links: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """The whole archive's titles and plain redirects, decided before any page is made:
    ``redirects`` are (title, index of the target article)."""

    seed: int
    titles: tuple[str, ...]
    redirects: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Built:
    """What a build wrote."""

    path: Path
    articles: int
    redirects: int
    section_stubs: int
    html_bytes: int
    seconds: float

    def summary(self) -> str:
        size = self.path.stat().st_size
        return (
            f"{self.path}: {self.articles:,} articles, {self.redirects:,} redirects, "
            f"{self.section_stubs:,} section stubs, {self.html_bytes / 1e6:,.0f} MB of HTML, "
            f"archive {size / 1e6:,.0f} MB, {self.seconds:.0f} s "
            f"({self.articles / max(self.seconds, 1e-9):,.0f} articles/s)"
        )


# -- the pool ------------------------------------------------------------------------------


def default_sources(folder: Path | None = None) -> list[Path]:
    """:data:`SOURCE_FILES` in ``folder`` (default: ``../shared/zims`` beside the checkout)."""
    root = folder or Path(__file__).resolve().parents[4] / "shared" / "zims"
    return _present([root / name for name in SOURCE_FILES])


def find_sources(given: Sequence[Path] | None) -> list[Path]:
    """The archives ``given`` (one folder: :func:`default_sources` in it; none: the default)."""
    if not given or (len(given) == 1 and given[0].is_dir()):
        return default_sources(given[0] if given else None)
    return _present(list(given))


def _present(paths: list[Path]) -> list[Path]:
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"real archives missing: {', '.join(missing)}")
    return paths


def _plain(text: str) -> str:
    return " ".join(_TAG.sub("", text).split())


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split("; ") if part.strip()]


def _block(kind: str, text: str) -> Block:
    return Block(kind, text, len(text.split()))


def _is_text(kind: str, text: str) -> bool:
    """Not an image caption or a placeholder; not a table with tables inside (the view
    flattens those into a first row of long cells)."""
    if kind == PROSE:
        return not _NOT_TEXT.match(text)
    if kind == TABLE:
        rows = _split(text)
        return bool(rows) and all(len(cell) <= 80 for cell in rows[0].split(", "))
    return True


def _infobox(text: str) -> tuple[tuple[str, str], ...]:
    rows = []
    for row in _split(text):
        key, colon, value = row.partition(": ")
        if colon and 0 < len(key) <= 40 and value and not _UNSAFE.search(key):
            rows.append((key, value))
    return tuple(rows[:15])


class _Collector:
    """Gathers a pool from parsed documents, keeping the first of each repeated item."""

    def __init__(self) -> None:
        self.titles: dict[str, None] = {}
        self.leads: dict[Block, None] = {}
        self.paragraphs: dict[Block, None] = {}
        self.sections: dict[RealSection, None] = {}
        self.structured: dict[Block, None] = {}
        self.infoboxes: dict[tuple[tuple[str, str], ...], None] = {}
        self.citations: dict[str, None] = {}
        self.external_links: dict[str, None] = {}

    def add(self, title: str, sections: Iterable[tuple[int, str, str, Sequence[Block]]]) -> None:
        if title and not _UNSAFE.search(title):
            self.titles[title] = None
        for level, heading, role, blocks in sections:
            if role == "reference":
                if heading not in _NOT_CITATIONS:
                    target = self.external_links if heading == "External links" else self.citations
                    for block in blocks:
                        target.update(dict.fromkeys(_split(block.text)))
                continue
            for block in blocks:
                if block.kind == PROSE:
                    # A label line ("Side one", "With B.B. King") stays in its section.
                    if block.words >= MIN_PARAGRAPH_WORDS:
                        self.paragraphs[block] = None
                        if not heading:
                            self.leads[block] = None
                elif not heading and block.kind == TABLE:
                    rows = _infobox(block.text)
                    if len(rows) >= 3:
                        self.infoboxes[rows] = None
                else:
                    self.structured[block] = None
            if heading and not _UNSAFE.search(heading):
                self.sections[RealSection(min(level, 4), heading, tuple(blocks))] = None

    def pool(self) -> TextPool:
        words: dict[str, None] = {}
        for title in self.titles:
            for raw in _DISAMBIGUATOR.sub("", title).split():
                word = raw.strip(',:;!?"()')
                if _TITLE_WORD.match(word) and len(word) > 2:
                    words[word] = None
        pool = TextPool(
            titles=tuple(self.titles),
            title_words=tuple(words),
            leads=tuple(self.leads),
            paragraphs=tuple(self.paragraphs),
            sections=tuple(self.sections),
            structured=tuple(self.structured),
            infoboxes=tuple(self.infoboxes),
            citations=tuple(self.citations),
            external_links=tuple(self.external_links),
        )
        if not (pool.titles and pool.title_words and pool.leads and pool.sections):
            raise ValueError("the source archives hold no sectioned articles to recombine")
        return pool


def read_pool(archives: Iterable[Path]) -> TextPool:
    """Every article of ``archives`` (mwoffliner, any layout) parsed once by the mediawiki
    adapter (its search-time view: plain passages per section) into a :class:`TextPool`.
    Main pages, redirect stubs and assets are left out; "Image: ..." captions too; a
    paragraph drawn at random has 8 words or more."""
    adapter = MediaWikiAdapter()
    collector = _Collector()
    for archive in archives:
        reader = ZimReader(archive, direct_index=False)
        try:
            for path, title, is_redirect in reader.iter_entries():
                if is_redirect:
                    continue
                resolved, data = reader.read(path)
                if not adapter.is_content(path, resolved.mimetype):
                    continue
                if adapter.stub_landing(path, data) is not None:
                    continue
                document = adapter.parse(path, title, data, "pool", view=True)
                if document.metadata.get("navigation"):
                    continue
                sections = [
                    (
                        section.level,
                        _plain(section.title),
                        section.role,
                        [
                            _block(p.kind, p.text)
                            for p in section.passages or ()
                            if p.text and _is_text(p.kind, p.text)
                        ],
                    )
                    for section in walk(document.sections)
                ]
                collector.add(_plain(title or document.title), sections)
        finally:
            reader.handle.close()
    return collector.pool()


# -- titles and redirects ------------------------------------------------------------------


def _base(title: str) -> str:
    return _DISAMBIGUATOR.sub("", title)


def _title(pool: TextPool, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        if rng.random() < 0.4:
            kind = f"{rng.randint(1850, 2025)} {rng.choice(_DATED_KINDS)}"
        elif rng.random() < 0.8:
            kind = rng.choice(_KINDS)
        else:
            kind = rng.choice(pool.title_words)
        return f"{_base(rng.choice(pool.titles))} ({kind})"
    first, second = rng.choice(pool.title_words), rng.choice(pool.title_words)
    if roll < 0.85:
        return f"{first} {second}"
    return f"{first} {rng.choice(_JOINERS)} {second}"


def plan_titles(pool: TextPool, count: int, rng: random.Random) -> list[str]:
    """``count`` titles with distinct paths: the real titles first, then recombinations
    (a real title with another disambiguator, two title words, "X of Y")."""
    seen: set[str] = set()
    titles: list[str] = []

    def take(title: str) -> bool:
        path = zim_path(title)
        if path in seen or not title:
            return False
        seen.add(path)
        titles.append(title)
        return True

    for title in pool.titles[:count]:
        take(title)
    while len(titles) < count:
        if not any(take(_title(pool, rng)) for _ in range(20)):
            n = len(titles)
            while not take(f"{_title(pool, rng)} ({n})"):
                n += 1
    return titles


def _redirect_titles(title: str, rng: random.Random) -> list[str]:
    """Redirect titles MediaWiki editors make for ``title``: a case variant, the title
    without its disambiguator (or its year), "The ...", words swapped."""
    out: list[str] = []
    words = title.split(" ")
    if len(words) > 1 and rng.random() < 0.25:
        out.append(" ".join([words[0], *(w.lower() for w in words[1:])]))
    base = _base(title)
    if base != title and rng.random() < 0.3:
        dated = _YEAR_KIND.search(title)
        out.append(f"{base} ({dated.group(2)})" if dated else base)
    if rng.random() < 0.08 and not title.startswith("The "):
        out.append(f"The {title}")
    if len(words) == 2 and base == title and rng.random() < 0.12:
        out.append(f"{words[1]} {words[0]}")
    return [t for t in out if t != title]


def make_plan(pool: TextPool, articles: int, seed: int) -> Plan:
    """The titles and plain redirects of an archive of ``articles`` pages: a redirect is
    kept only if its path is no page's and no earlier redirect's (``writePageRedirects``)."""
    if articles < 1:
        raise ValueError(f"articles must be at least 1, got {articles}")
    rng = random.Random(f"wikipedia-like/{seed}/titles")
    titles = plan_titles(pool, articles, rng)
    taken = {zim_path(t) for t in titles}
    redirects: list[tuple[str, int]] = []
    choose = random.Random(f"wikipedia-like/{seed}/redirects")
    for index, title in enumerate(titles):
        for alias in _redirect_titles(title, choose):
            path = zim_path(alias)
            if path not in taken:
                taken.add(path)
                redirects.append((alias, index))
    return Plan(seed=seed, titles=tuple(titles), redirects=tuple(redirects))


# -- one article ---------------------------------------------------------------------------


def _length(rng: random.Random) -> int:
    words = rng.lognormvariate(math.log(MEDIAN_WORDS), LENGTH_SIGMA)
    return int(min(max(words, MIN_WORDS), MAX_WORDS))


def _section_count(words: int, rng: random.Random) -> int:
    spread = math.log(max(words, MIN_WORDS) / MIN_WORDS) / math.log(MAX_WORDS / MIN_WORDS)
    count = round(MIN_SECTIONS + (MAX_SECTIONS - MIN_SECTIONS) * spread + rng.uniform(-1.5, 1.5))
    return min(max(count, MIN_SECTIONS), MAX_SECTIONS)


def _names(word: str) -> bool:
    """Whether a link may start at ``word``: a capitalised or a long word."""
    return word[:1].isupper() or len(word) > 6


class _Writer:
    """Turns one article's blocks into HTML: links to other articles, citation markers."""

    def __init__(self, plan: Plan, index: int, rng: random.Random) -> None:
        self.plan, self.index, self.rng = plan, index, rng
        self.path = zim_path(plan.titles[index])

    def link(self, target: int, text: str | None = None) -> str:
        """A link to article ``target``, reading ``text`` (HTML; default: its title)."""
        title = self.plan.titles[target]
        href = href_to(self.path, zim_path(title))
        shown = html.escape(title, quote=False) if text is None else text
        return f'<a href="{html.escape(href)}" title="{html.escape(title)}">{shown}</a>'

    def other(self) -> int:
        count = len(self.plan.titles)
        target = self.rng.randrange(count)
        return target if target != self.index or count == 1 else (target + 1) % count

    def prose(self, text: str, markers: Sequence[int] = (), bold: int = 0) -> str:
        """A paragraph: its first ``bold`` words in ``<b>``, a link every
        :data:`WORDS_PER_LINK` words or so, ``markers`` after sentences."""
        rng = self.rng
        words = [html.escape(w, quote=False) for w in text.split()]
        free = [i >= bold for i in range(len(words))]
        links = round(len(words) / WORDS_PER_LINK * rng.uniform(0.6, 1.8))
        for _ in range(links if len(self.plan.titles) > 1 else 0):
            # Wikipedia links mostly name things: a capitalised or long word is preferred.
            start = next(
                (i for i in (rng.randrange(len(words)) for _ in range(4)) if _names(words[i])), -1
            )
            if start < 0:
                continue
            end = min(len(words), start + (1 if rng.random() < 0.6 else 2))
            if not all(free[start:end]):
                continue
            free[start:end] = [False] * (end - start)
            found = _LINKABLE.match(" ".join(words[start:end]))
            if found is None or not found["text"]:
                continue
            link = self.link(self.other(), found["text"])
            words[start:end] = [found["before"] + link + found["after"]] + [""] * (end - start - 1)
        if bold:
            words[0] = "<b>" + words[0]
            words[bold - 1] += "</b>"
        ends = [i for i, w in enumerate(words) if w.endswith(".") and free[i]] or [len(words) - 1]
        for n in markers:
            words[rng.choice(ends)] += citation(n)
        return " ".join(w for w in words if w)

    def listing(self, text: str) -> str:
        items = "".join(f"<li>{html.escape(item, quote=False)}</li>" for item in _split(text))
        return f"<ul>{items}</ul>"

    def table(self, text: str) -> str:
        rows = [row.split(", ") for row in _split(text)]
        head = "".join(f"<th>{html.escape(c, quote=False)}</th>" for c in rows[0])
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c, quote=False)}</td>" for c in row) + "</tr>"
            for row in rows[1:]
        )
        return f'<table class="wikitable"><tbody><tr>{head}</tr>{body}</tbody></table>'

    def block(self, block: Block, markers: Sequence[int] = ()) -> str:
        if block.kind == LIST:
            return self.listing(block.text)
        if block.kind == TABLE:
            return self.table(block.text)
        return self.prose(block.text, markers)


def _fill(
    own: Sequence[Block], pool: Sequence[Block], budget: int, rng: random.Random
) -> list[Block]:
    """A section's own blocks while they fit ``budget`` words, then paragraphs from
    ``pool`` that fit what is left (the shortest of a few draws where none does), until
    about the budget is spent; never nothing."""
    chosen: list[Block] = []
    used = 0
    for block in own:
        if used + block.words > budget * 1.2 and (chosen or block.words > budget * 3):
            break
        chosen.append(block)
        used += block.words
    while used < budget * 0.9 or not chosen:
        room = max(budget - used, 15) * 1.2
        draws = [rng.choice(pool) for _ in range(4)]
        block = next((b for b in draws if b.words <= room), min(draws, key=lambda b: b.words))
        chosen.append(block)
        used += block.words
    return chosen


def _lead_text(title: str, block: Block) -> tuple[str, int]:
    """The first lead paragraph naming the article: "<b>Name</b> was ..." where the real
    paragraph has "... was" early on (and how many words are bold); else unchanged."""
    found = _VERB.search(block.text, 0, 250)
    if found is None:
        return block.text, 0
    return f"{title}{block.text[found.start() :]}", len(title.split())


def _body(pool: TextPool, rng: random.Random, words: int) -> list[tuple[int, str, list[Block]]]:
    """3-12 sections (more for longer articles) of about ``words`` words in all: (level,
    real heading, blocks), each a real section's own blocks topped up from the pool."""
    count = _section_count(words, rng)
    weights = [rng.uniform(0.5, 1.5) for _ in range(count)]
    headings: set[str] = set()
    body: list[tuple[int, str, list[Block]]] = []
    previous = 1
    for weight in weights:
        section = rng.choice(pool.sections)
        for _ in range(3):
            if section.heading not in headings:
                break
            section = rng.choice(pool.sections)
        headings.add(section.heading)
        level = min(section.level, previous + 1) if body else 2
        previous = level
        budget = max(15, round(words * weight / sum(weights)))
        blocks = _fill(section.blocks, pool.paragraphs, budget, rng)
        if pool.structured and rng.random() < 0.08:
            blocks.insert(rng.randrange(len(blocks) + 1), rng.choice(pool.structured))
        body.append((level, section.heading, blocks))
    return body


def make_article(pool: TextPool, plan: Plan, index: int) -> Article:
    """Article ``index`` of ``plan``: the same pool, plan and index give the same article."""
    rng = random.Random(f"wikipedia-like/{plan.seed}/article/{index}")
    title = plan.titles[index]
    writer = _Writer(plan, index, rng)
    words = _length(rng)
    lead_blocks = _fill((), pool.leads, max(30, round(words * rng.uniform(0.1, 0.2))), rng)[:5]
    body = _body(pool, rng, words - sum(b.words for b in lead_blocks))

    references: list[str] = []
    if pool.citations and rng.random() < 0.92:
        wanted = max(1, round(words / 130 * rng.uniform(0.5, 1.5)))
        references = [rng.choice(pool.citations) for _ in range(min(wanted, 120))]
    prose_at = [(s, b) for s, (_, _, blocks) in enumerate(body)
                for b, block in enumerate(blocks) if block.kind == PROSE]  # fmt: skip
    lead_cited = min(len(references), rng.randint(0, 3)) if prose_at else len(references)
    markers: dict[tuple[int, int], list[int]] = {}
    for n in range(lead_cited + 1, len(references) + 1):
        markers.setdefault(rng.choice(prose_at), []).append(n)

    first, bold = _lead_text(_base(title), lead_blocks[0])
    lead = [writer.prose(first, bold=bold)] + [writer.block(b) for b in lead_blocks[1:]]
    sections = [
        Section(level, heading,
                [writer.block(block, markers.get((s, b), ())) for b, block in enumerate(blocks)])
        for s, (level, heading, blocks) in enumerate(body)
    ]  # fmt: skip
    if rng.random() < 0.3:
        items = "".join(f"<li>{writer.link(writer.other())}</li>" for _ in range(rng.randint(2, 5)))
        sections.append(Section(2, "See also", [f"<ul>{items}</ul>"]))
    if pool.external_links and rng.random() < 0.5:
        items = "".join(f"<li>{html.escape(rng.choice(pool.external_links), quote=False)}</li>"
                        for _ in range(rng.randint(1, 4)))  # fmt: skip
        sections.append(Section(2, "External links", [f"<ul>{items}</ul>"]))
    infobox: list[tuple[str, str]] = []
    if pool.infoboxes and rng.random() < 0.45:
        escape = functools.partial(html.escape, quote=False)
        infobox = [(escape(key), escape(value)) for key, value in rng.choice(pool.infoboxes)]
    section_redirects: tuple[tuple[str, str], ...] = ()
    short = [heading for level, heading, _ in body if level == 2 and len(heading.split()) <= 3]
    if short and rng.random() < SECTION_REDIRECT_SHARE:
        heading = rng.choice(short)
        # An apostrophe in the stub's URL='...' ends it early for the adapter (mwoffliner
        # leaves it unescaped too): such stubs are left out until the adapter reads them.
        if "'" not in title + heading:
            section_redirects = ((f"{heading} of {_base(title)}", heading),)
    return Article(
        title=title,
        lead=lead,
        sections=sections,
        infobox=infobox,
        infobox_class="infobox vcard",
        references=references,
        section_redirects=section_redirects,
        lead_citations=lead_cited,
    )


# -- the archive ---------------------------------------------------------------------------


@dataclass
class _Counts:
    stubs: int = 0
    html_bytes: int = 0


def _pages(pool: TextPool, plan: Plan, counts: _Counts) -> Iterator[Page]:
    """Every article page and section stub, made as libzim asks for them. A stub whose
    path a page, a plain redirect or an earlier stub has is dropped."""
    taken = {zim_path(t) for t in plan.titles} | {zim_path(t) for t, _ in plan.redirects}
    for index in range(len(plan.titles)):
        article = make_article(pool, plan, index)
        kept = []
        for stub_title, heading in article.section_redirects:
            if zim_path(stub_title) not in taken:
                taken.add(zim_path(stub_title))
                kept.append((stub_title, heading))
        article = replace(article, section_redirects=tuple(kept))
        pages, _ = article_entries([article], host=HOST, navboxes={})
        counts.stubs += len(pages) - 1
        for page in pages:
            counts.html_bytes += len(page.content)
            yield page


def metadata(articles: int) -> dict[str, str]:
    return {
        **WIKIPEDIA_METADATA,
        "Name": "wikipedia_en_large",
        "Description": f"{articles:,} articles recombined from real Wikipedia text",
        "LongDescription": (
            "Benchmark archive: titles, headings and paragraphs of real English Wikipedia "
            "articles (mwoffliner samples), recombined into many articles."
        ),
        "Flavour": "nopic",
        "Tags": "wikipedia;_category:wikipedia;_pictures:no;_videos:no;_details:yes;_ftindex:yes",
    }


def build_wikipedia_like(
    path: Path,
    *,
    articles: int = 200_000,
    seed: int = 0,
    sources: Sequence[Path] | None = None,
) -> Built:
    """Write a Wikipedia-like archive of ``articles`` pages at ``path`` (mwoffliner 1.17,
    new scheme, flat layout, full-text and title index) from the text of ``sources``
    (default: :data:`SOURCE_FILES` in ``../shared/zims``)."""
    started = time.perf_counter()
    pool = read_pool(default_sources() if sources is None else sources)
    plan = make_plan(pool, articles, seed)
    counts = _Counts()
    first = [Article(title=t, lead=()) for t in plan.titles[:MAIN_PAGE_LINKS]]
    main = Page(path="index", title="Main Page", content=list_main_page(first, "Wikipedia"),
                front=False)  # fmt: skip
    redirects = (
        Redirect(path=zim_path(alias), target=zim_path(plan.titles[index]), title=alias)
        for alias, index in plan.redirects
    )
    out = write_zim(
        path,
        pages=itertools.chain(_pages(pool, plan, counts), [main], asset_pages()),
        redirects=redirects,
        metadata=metadata(articles),
        main_path="index",
    )
    return Built(
        path=out,
        articles=articles,
        redirects=len(plan.redirects),
        section_stubs=counts.stubs,
        html_bytes=counts.html_bytes,
        seconds=time.perf_counter() - started,
    )


def manifest_text(file: str = FILE, library: str = LIBRARY) -> str:
    """``corpus.toml`` serving the archive ``file`` (relative to CORPUS_ROOT)."""
    return (
        "version = 1\n\n[[library]]\n"
        f'name = "{library}"\npath = "{file}"\nadapter = "mediawiki"\nenabled = true\n'
    )


def build_large_corpus(
    folder: Path, *, articles: int = 200_000, seed: int = 0, sources: Sequence[Path] | None = None
) -> Built:
    """:data:`FILE` and its ``corpus.toml`` in ``folder`` (serve with CORPUS_ROOT=folder,
    CORPUS_CONFIG=folder/corpus.toml)."""
    built = build_wikipedia_like(folder / FILE, articles=articles, seed=seed, sources=sources)
    (folder / "corpus.toml").write_text(manifest_text(), encoding="utf-8")
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m corpus_mcp.demo.wikipedia_like",
        description="Build a large Wikipedia-like archive from real article text, with a "
        f"corpus.toml (library {LIBRARY}) beside it.",
    )
    parser.add_argument("out", type=Path, help="folder to write the archive and corpus.toml in")
    parser.add_argument("--articles", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--sources", type=Path, nargs="+", default=None, help="the real archives, or a "
        "folder holding SOURCE_FILES (default: ../shared/zims beside the checkout)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.articles < 1:
        parser.error("--articles must be at least 1")
    try:
        sources = find_sources(args.sources)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 1
    built = build_large_corpus(
        args.out.resolve(), articles=args.articles, seed=args.seed, sources=sources
    )
    print(built.summary(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
