"""Demo MDWiki archive: mwoffliner 1.17.5, ActionParse, **no full-text index**.

Like the real 2025 MDWiki builds (``--withoutZimFullTextIndex``, ``--customMainPage=
App/IntroPage``), search can only use the title index. Most pages (``data/mdwiki.json``)
use the legacy parser (flat layout); pages mirrored from Wikipedia carry Parsoid
``<section>`` wrappers, so one archive mixes both layouts (zim-formats.md §1.11).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from corpus_mcp.demo import _data
from corpus_mcp.demo._mediawiki import (
    Article,
    article_entries,
    asset_pages,
    href_to,
    navbox,
)
from corpus_mcp.zim.writer import write_zim

FILE = "mdwiki/mdwiki_en_demo_maxi_2025-11.zim"
MAIN_PATH = "App/IntroPage"


class Wiki(msgspec.Struct, frozen=True):
    metadata: dict[str, str]
    intro: list[str]
    """The custom main page's paragraphs; a list of every article follows them."""
    articles: list[Article]


WIKI = _data.load("mdwiki.json", Wiki)
METADATA = WIKI.metadata
ARTICLES = tuple(WIKI.articles)


def _intro_page() -> Article:
    """The custom main page: the intro text and a link to every article."""
    links = "".join(
        f'<li><a href="{href_to(MAIN_PATH, a.path)}">{a.title}</a></li>' for a in ARTICLES
    )
    return Article(title=MAIN_PATH, lead=(*WIKI.intro, f"<ul>{links}</ul>"))


def build(path: Path) -> Path:
    """Write the demo MDWiki archive at ``path`` (title index only)."""
    medicine = navbox(
        "Essential medicines and conditions", "Medicine",
        [(a.title, a.title) for a in ARTICLES], "x",
    )  # fmt: skip
    pages, redirects = article_entries(
        (*ARTICLES, _intro_page()), host=METADATA["Source"], navboxes={"medicine": medicine}
    )
    return write_zim(
        path,
        pages=[*pages, *asset_pages()],
        redirects=redirects,
        metadata=METADATA,
        main_path=MAIN_PATH,
        fulltext_index=False,
    )
