"""A demo zimit archive: what warc2zim 2.3.1 (the converter zimit runs) writes of a crawl.

The crawl holds three sites, each page as its generator made it: a Sphinx 5.3
documentation (``docs.example.org/3.11/``: a tutorial page with nested ``section[id]``,
pilcrow permalinks, footnotes as ``aside.footnote``, and a ``dl.glossary``), a MediaWiki
wiki crawled by zimit rather than scraped by mwoffliner (``#mw-content-text``,
``span.mw-headline[id]``, the table of contents, edit links, the navigation menu), and a
plain news page with a cookie banner, a header with the site's logo in an ``h1``, a
sidebar, a footer and a script. Laid out as warc2zim does (``../shared/zims/families``
README): entries at the crawled URL without its scheme; every page with the ``<!-- WB
Insert -->`` replay block at the top of its ``<head>``; the main page stored twice
(``3.11/`` and ``3.11/index.html``) and ``3.11`` redirecting to it; a stylesheet's query
kept in its path (``pydoctheme.css?2022.1``, referenced as ``%3F``); the replay code under
``_zim_static/``; a moved page as a ``meta refresh`` stub.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from corpus_mcp.demo import _data
from corpus_mcp.zim.writer import Page, Redirect, write_zim

FILE: Final = "zimit/docs.example.org_en_all_2026-12.zim"
MAIN_PATH: Final = "docs.example.org/3.11/"
# (entry path, entry title as warc2zim gives it, data file)
PAGES: Final = (
    (MAIN_PATH, "3.11 Documentation", "sphinx_index.html"),
    ("docs.example.org/3.11/index.html", "3.11 Documentation", "sphinx_index.html"),
    (
        "docs.example.org/3.11/tutorial/venv.html",
        "12. Virtual Environments and Packages",
        "sphinx_venv.html",
    ),
    ("docs.example.org/3.11/glossary.html", "Glossary", "sphinx_glossary.html"),
    ("wiki.example.org/title/Pacman", "Pacman - DemoWiki", "mediawiki_pacman.html"),
    ("wiki.example.org/title/Mirrors", "Mirrors - DemoWiki", "mediawiki_mirrors.html"),
    ("news.example.com/lighthouse.html", "Lighthouse keepers return", "plain_news.html"),
)
STUB_PATH: Final = "news.example.com/2026/lighthouse-keepers.html"
STUB_TARGET: Final = "news.example.com/lighthouse.html"
_STUB: Final = (
    '<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0; url=../lighthouse.html">'
    "</head><body></body></html>"
)
_WB_INSERT: Final = """
<!-- WB Insert -->
<script src="{up}_zim_static/wombat.js"></script>
<script src="{up}_zim_static/wombatSetup.js"></script>
<script>
  const current_url = (function () {{
    var href = new URL(window.location.href);
    href.hash = "";
    return href.toString();
  }})();
  const wbinfo = wombatSetup.getWombatInfo(
    current_url,
    "{host}",
    "https",
    "https://{path}",
    current_url.substring(0, current_url.length - ("{path}".length))
  );
  if (window && window._WBWombatInit) {{
    window._WBWombatInit(wbinfo);
  }}
</script>
<!-- End WB Insert -->
"""
METADATA: Final = {
    "Name": "docs.example.org_en_all",
    "Title": "Demo 3.11 documentation",
    "Description": "A zimit crawl of a demo documentation, wiki and news site",
    "Language": "eng",
    "Creator": "Demo Software Foundation",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Tags": "_category:other;_ftindex:yes;documentation",
    "Scraper": "warc2zim 2.3.1,Browsertrix-Crawler 1.4.0",
}


def _wrapped(path: str, html: str) -> str:
    """The page with warc2zim's replay block at the top of its ``<head>``."""
    up = "../" * path.count("/")
    block = _WB_INSERT.format(up=up, host=path.split("/", 1)[0], path=path)
    head = html.index("<head>") + len("<head>")
    return html[:head] + block + html[head:]


def build(path: Path) -> Path:
    """Write the demo zimit archive at ``path``."""
    pages = [
        Page(path=entry, title=title, content=_wrapped(entry, _data.text(f"zimit/{name}")))
        for entry, title, name in PAGES
    ]
    pages += [
        Page(path=STUB_PATH, title="Lighthouse keepers (moved)", content=_STUB),
        Page(
            path="docs.example.org/3.11/_static/pydoctheme.css?2022.1",
            content="body { margin: 0 }",
            mimetype="text/css",
            front=False,
            indexed=False,
        ),
        Page(
            path="docs.example.org/3.11/_static/venv-diagram.png",
            content=b"\x89PNG\r\n\x1a\n",
            mimetype="image/png",
            front=False,
            indexed=False,
        ),
        *(
            Page(
                path=f"_zim_static/{name}",
                content="/* replay */",
                mimetype="text/javascript",
                front=False,
                indexed=False,
            )
            for name in ("wombat.js", "wombatSetup.js", "__wb_module_decl.js")
        ),
    ]
    redirects = [Redirect(path="docs.example.org/3.11", target=MAIN_PATH, front=False)]
    return write_zim(path, pages=pages, redirects=redirects, metadata=METADATA, main_path=MAIN_PATH)
