"""Demo Wikipedia archive: mwoffliner 1.17.5, flat ActionParse layout, new scheme.

A selection ZIM (no wiki main page), so the main path is the generated list page at
``index``. The articles (``data/wikipedia.json``) overlap in vocabulary with the other
demo archives on purpose (Python, C++, inheritance and the MRO, asyncio, regex, git,
Euler's identity, the Basel problem, diabetes, hypertension, asthma) so cross-family
search has competition.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from corpus_mcp.demo import _data
from corpus_mcp.demo._mediawiki import (
    Article,
    article_entries,
    asset_pages,
    list_main_page,
    navbox,
)
from corpus_mcp.zim.writer import Page, Redirect, write_zim

FILE = "wikipedia/wikipedia_en_demo_maxi_2026-05.zim"


class Navbox(msgspec.Struct, frozen=True):
    """A navbox shared by several articles: its title, row group and member titles."""

    title: str
    group: str
    members: list[str]


class Wiki(msgspec.Struct, frozen=True):
    metadata: dict[str, str]
    navboxes: dict[str, Navbox]
    """Navbox key (an article's ``navbox``) -> the navbox."""
    redirects: list[Redirect]
    """Redirects beyond the articles' own, e.g. a two-hop chain (1.17 never writes one,
    but older and merged archives do, and readers must follow them)."""
    articles: list[Article]


WIKI = _data.load("wikipedia.json", Wiki)
METADATA = WIKI.metadata
ARTICLES = tuple(WIKI.articles)


def build(path: Path, *, extra_articles: Sequence[Article] = ()) -> Path:
    """Write the demo Wikipedia archive at ``path``; with ``extra_articles`` too, it is
    "next month's" archive of the same library (tests of corpus updates)."""
    articles = (*ARTICLES, *extra_articles)
    # Navbox links are relative from a top-level page, as every page here is.
    navboxes = {
        key: navbox(box.title, box.group, [(title, title) for title in box.members], "x")
        for key, box in WIKI.navboxes.items()
    }
    pages, redirects = article_entries(articles, host=METADATA["Source"], navboxes=navboxes)
    main = Page(
        path="index",
        title="Main Page",
        content=list_main_page(articles, METADATA["Title"]),
        front=False,
    )
    return write_zim(
        path,
        pages=[*pages, main, *asset_pages()],
        redirects=[*redirects, *WIKI.redirects],
        metadata=METADATA,
        main_path="index",
    )
