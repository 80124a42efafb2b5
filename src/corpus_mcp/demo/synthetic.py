"""Large generated archives for benchmarks: deterministic, realistic markup, 50k+ entries.

The text is assembled from a fixed technical, scientific and medical vocabulary with a
seeded RNG, so the same arguments always give the same archive; the HTML goes through
the same mwoffliner and sotoki renderers as the demo corpus, so parsing, search and
ranking costs are representative. Measured on the shared 2-core dev machine (libzim's
compression and Xapian indexing dominate): 50,000 Wikipedia articles (about 60,000
entries, 61 MB) in about 150 s; 20,000 Stack Exchange threads (about 92,000 entries, 39 MB) in
about 145 s. :func:`build_million_entries` trades article size for entry count.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

from corpus_mcp.demo import _sotoki
from corpus_mcp.demo._mediawiki import (
    Article,
    Section,
    article_entries,
    asset_pages,
    code_block,
    list_main_page,
    render_article,
    zim_path,
)
from corpus_mcp.demo.wikipedia import METADATA as WIKIPEDIA_METADATA
from corpus_mcp.zim.writer import Page, Redirect, write_zim

NOUNS = (
    "algorithm", "array", "bacterium", "battery", "bridge", "cell", "compiler", "crystal",
    "database", "dialect", "enzyme", "equation", "fortress", "galaxy", "genome", "glacier",
    "hormone", "interpreter", "island", "kernel", "lattice", "manuscript", "matrix",
    "membrane", "monastery", "network", "orbit", "parser", "pathway", "polymer", "protocol",
    "province", "queue", "reactor", "receptor", "river", "scheduler", "sensor", "sonata",
    "spectrum", "symphony", "syndrome", "telescope", "theorem", "thread", "token", "vaccine",
    "valley", "vector", "volcano",
)  # fmt: skip
ADJECTIVES = (
    "adaptive", "ancient", "asynchronous", "binary", "cardiac", "coastal", "concurrent",
    "cyclic", "digital", "distributed", "dynamic", "early", "electric", "elliptic",
    "endocrine", "federal", "functional", "generic", "geometric", "harmonic", "immune",
    "inverse", "lazy", "linear", "lunar", "medieval", "modular", "nested", "northern",
    "optical", "parallel", "polar", "quantum", "recursive", "renal", "solar", "sparse",
    "static", "symmetric", "thermal", "tropical", "urban", "virtual", "volcanic",
)  # fmt: skip
FIELDS = (
    "computing", "mathematics", "medicine", "biology", "physics", "music", "geography",
    "history", "chemistry", "linguistics", "astronomy", "engineering",
)  # fmt: skip
VERBS = (
    "describes", "measures", "connects", "stores", "regulates", "encodes", "produces",
    "transforms", "predicts", "inherits", "schedules", "resolves", "protects", "compiles",
)  # fmt: skip
EXTRA = (
    "the", "of", "and", "in", "a", "is", "with", "by", "for", "which", "as", "its", "from",
    "method", "resolution", "order", "insulin", "glucose", "pressure", "python", "function",
    "proof", "series", "complex", "number", "inheritance", "memory", "pointer", "string",
)  # fmt: skip


def _sentence(rng: random.Random, subject: str) -> str:
    words = [
        rng.choice(ADJECTIVES),
        rng.choice(NOUNS),
        rng.choice(VERBS),
        *rng.sample(EXTRA, 4),
        rng.choice(ADJECTIVES),
        rng.choice(NOUNS),
    ]
    return f"The {subject} {' '.join(words)}."


def _paragraph(rng: random.Random, subject: str, sentences: int = 4) -> str:
    return " ".join(_sentence(rng, subject) for _ in range(sentences))


def _unique_titles(
    rng: random.Random, count: int, make: Callable[[random.Random], str]
) -> list[str]:
    """``count`` distinct titles from ``make(rng)``; a clash gets a numeric suffix."""
    seen: set[str] = set()
    titles: list[str] = []
    for n in range(count):
        title = make(rng)
        if title in seen:
            title = f"{title} {n}"
        seen.add(title)
        titles.append(title)
    return titles


def _wiki_title(rng: random.Random) -> str:
    return f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)} ({rng.choice(FIELDS)})"


def _article(rng: random.Random, title: str) -> Article:
    subject = title.split(" (", maxsplit=1)[0].lower()
    headings = rng.sample(
        ("History", "Description", "Structure", "Applications", "Mechanism", "Research",
         "Variants", "Reception", "Examples", "Criticism"), 3,
    )  # fmt: skip
    sections = [Section(2, h, (_paragraph(rng, subject), _paragraph(rng, subject, 3)))
                for h in headings]  # fmt: skip
    sections.insert(2, Section(3, "Overview", (_paragraph(rng, subject, 2),)))
    if rng.random() < 0.1:
        sections.append(Section(2, "Example", (code_block("python", f"print({subject!r})"),)))
    redirects = (f"{subject.capitalize()} {rng.randint(1, 9)}",) if rng.random() < 0.2 else ()
    section_redirects = (
        ((f"{headings[0]} of the {subject}", headings[0]),) if rng.random() < 0.05 else ()
    )
    return Article(
        title=title,
        lead=(_paragraph(rng, subject, 5), _paragraph(rng, subject, 3)),
        sections=sections,
        infobox=(
            ("Field", title.rsplit("(", maxsplit=1)[-1].rstrip(")")),
            ("Type", rng.choice(NOUNS)),
        ),
        references=(f"Synthetic source on the {subject}.",),
        redirects=redirects,
        section_redirects=section_redirects,
    )


def build_large_wikipedia(path: Path, articles: int = 50_000, seed: int = 0) -> Path:
    """A mwoffliner-1.17-style Wikipedia with ``articles`` pages plus redirects and stubs."""
    rng = random.Random(seed)
    titles = _unique_titles(rng, articles, _wiki_title)
    models = [_article(rng, title) for title in titles]
    pages, redirects = article_entries(models, host="en.wikipedia.org", navboxes={})
    main = Page(path="index", title="Main Page", content=list_main_page(models, "Wikipedia"),
                front=False)  # fmt: skip
    metadata = {**WIKIPEDIA_METADATA, "Name": "wikipedia_en_synthetic",
                "Description": f"{articles} generated articles for benchmarks"}  # fmt: skip
    return write_zim(path, pages=[*pages, main, *asset_pages()], redirects=redirects,
                     metadata=metadata, main_path="index")  # fmt: skip


def build_million_entries(
    path: Path, entries: int = 1_000_000, pages: int = 100_000, seed: int = 0
) -> Path:
    """A mwoffliner-style Wikipedia of ``entries`` entries (plus its main page and
    assets): ``pages`` one-paragraph articles and, for the rest, redirects to them (real
    Wikipedias have more redirects than articles). For the corpus-size benchmark: what
    grows with the entry count (directory, title index, full-text index) without the build
    time of full articles: 1,000,000 entries with 100,000 pages took about 170 s on the
    shared 2-core machine, 358 MB.

    Pages and redirects are generated while libzim writes them; the writer itself keeps
    about 450 MB for a million entries.
    """
    if not 0 < pages <= entries:
        raise ValueError(f"pages must be in 1..entries, got {pages} of {entries}")
    rng = random.Random(seed)
    titles = [f"{_wiki_title(rng).split(' (', 1)[0]} {n}" for n in range(pages)]

    def articles() -> Iterator[Page]:
        words = random.Random(seed)
        for title in titles:
            subject = title.lower()
            article = Article(title=title, lead=(_paragraph(words, subject, 2),))
            yield Page(path=article.path, title=title,
                       content=render_article(article, host="en.wikipedia.org"))  # fmt: skip
        yield Page(path="index", title="Main Page", front=False,
                   content=list_main_page([], "Wikipedia"))  # fmt: skip
        yield from asset_pages()

    def redirects() -> Iterator[Redirect]:
        choices = random.Random(seed + 1)
        for n in range(entries - pages):
            target = titles[choices.randrange(pages)]
            title = f"{choices.choice(ADJECTIVES).capitalize()} {target.lower()} {n}"
            yield Redirect(path=zim_path(title), target=zim_path(target), title=title)

    metadata = {**WIKIPEDIA_METADATA, "Name": "wikipedia_en_synthetic_million",
                "Description": f"{entries} generated entries for benchmarks"}  # fmt: skip
    return write_zim(path, pages=articles(), redirects=redirects(), metadata=metadata,
                     main_path="index")  # fmt: skip


def _question_title(rng: random.Random) -> str:
    return (
        f"How do I {rng.choice(VERBS).rstrip('s')} a {rng.choice(ADJECTIVES)} "
        f"{rng.choice(NOUNS)} with a {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}?"
    )


def build_large_stackexchange(path: Path, questions: int = 20_000, seed: int = 0) -> Path:
    """A sotoki-3-style Stack Exchange site with ``questions`` threads and their redirects."""
    rng = random.Random(seed)
    users = [_sotoki.User(1000 + n, f"{rng.choice(ADJECTIVES).capitalize()} "
                          f"{rng.choice(NOUNS).capitalize()} {n}", rng.randint(1, 500_000))
             for n in range(max(10, questions // 40))]  # fmt: skip
    tags = [f"{a}-{n}" for a in ADJECTIVES[:20] for n in NOUNS[:10]]
    threads = []
    for n, title in enumerate(_unique_titles(rng, questions, _question_title)):
        subject = title.split(" a ", 1)[-1].rstrip("?")
        answers = [
            _sotoki.Answer(
                uid=rng.choice(users).uid,
                score=rng.randint(-2, 300),
                body=f"<p>{_paragraph(rng, subject)}</p>"
                + (_sotoki.code(f"solve({subject!r})", "python") if rng.random() < 0.3 else ""),
            )
            for _ in range(rng.randint(1, 4))
        ]
        accepted = rng.randrange(len(answers))
        answers[accepted] = _sotoki.Answer(answers[accepted].uid, answers[accepted].score,
                                           answers[accepted].body, accepted=True)  # fmt: skip
        threads.append(_sotoki.Thread(
            qid=100_000 + n * 50, title=title, tags=tuple(rng.sample(tags, 3)),
            uid=rng.choice(users).uid, score=rng.randint(-3, 900),
            created=f"20{rng.randint(10, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00",
            body=f"<p>{_paragraph(rng, subject, 3)}</p>", answers=answers,
            comments=(_sotoki.Comment(rng.choice(users).uid, rng.randint(0, 9),
                                      _sentence(rng, subject)),),
        ))  # fmt: skip
    site = _sotoki.Site(
        domain="synthetic.stackexchange.com", title="Synthetic Stack Exchange",
        description="Generated questions and answers for benchmarks", mathjax=False,
        date="2026-05-01", name="synthetic.stackexchange.com_en_all", users=users,
        threads=threads,
    )  # fmt: skip
    pages, redirects = _sotoki.site_entries(site)
    return write_zim(path, pages=pages, redirects=redirects, metadata=_sotoki.metadata(site),
                     main_path="questions")  # fmt: skip
