"""devdocs2zim 0.2.1 page rendering shared by the DevDocs demo archives (zim-formats.md §2).

A page is the DevDocs ``db.json`` HTML for one path, wrapped in devdocs2zim's
``page.html`` (empty ``devdocs-navbar`` element, ``main._content > div._page``), with
DevDocs' ``_attribution`` box appended. Every page is added with an explicit IndexData
holding the plain text of the DevDocs HTML, so the navbar never reaches the index.
Symbols with a fragment live in ``navbar.json`` only; there are no redirects.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.html

from corpus_mcp.zim.writer import Page

_DT_ID = re.compile(r'<dt[^>]*\bid="([^"]+)"')


@dataclass(frozen=True)
class DocPage:
    """One DevDocs page: its db path, ZIM title, symbol type and content HTML."""

    path: str
    title: str
    type: str
    body: str


@dataclass(frozen=True)
class DocSet:
    """One DevDocs documentation (one ZIM)."""

    slug: str
    """DevDocs slug without version, e.g. ``python`` (gives the ``_page _python`` class)."""
    name: str
    version: str
    attribution: str
    """Copyright and licence HTML of the attribution box (before the link)."""
    source_url: str
    """Original documentation root the attribution link points into."""
    source_suffix: str
    """Suffix of original URLs, e.g. ``.html`` for Sphinx docs."""
    licenses: str


def _attribution(docs: DocSet, page: DocPage) -> str:
    url = docs.source_url + ("" if page.path == "index" else page.path + docs.source_suffix)
    return (
        f'<div class="_attribution"><p class="_attribution-p">{docs.attribution}<br>'
        f'<a href="{url}" class="_attribution-link">{url}</a></p></div>'
    )


def render_page(docs: DocSet, page: DocPage) -> tuple[str, str]:
    """The full devdocs2zim page and the plain text devdocs2zim indexes for it."""
    prefix = "../" * page.path.count("/")
    content = page.body + _attribution(docs, page)
    document = (
        '<html class="_theme-default">\n<head>\n  <meta charset="utf-8">'
        f"<title>{html.escape(page.title)}</title>\n"
        f'  <link rel="preload" href="{prefix}assets/index.js" as="script">\n'
        f'  <link rel="stylesheet" href="{prefix}application.css">'
        f'<link rel="stylesheet" href="{prefix}assets/index.css">\n</head>\n<body>\n'
        ' <div class="_app">\n'
        f'  <devdocs-navbar current="{page.path}" prefix="{prefix}" '
        f'listing-src="{prefix}navbar.json"></devdocs-navbar>\n'
        f'  <div class="_container"><main class="_content"><div class="_page _{docs.slug}">'
        f"{content}</div></main></div>\n </div>\n"
        f' <script src="{prefix}assets/index.js"></script>\n</body></html>'
    )
    text = " ".join(lxml.html.fragment_fromstring(content, create_parent="div").itertext())
    return document, " ".join(text.split())


def navbar(docs: DocSet, pages: Sequence[DocPage]) -> str:
    """``navbar.json``: the whole symbol index, grouped by type, camelCase keys."""
    groups: dict[str, list[dict[str, str]]] = {}
    for page in pages:
        if page.path == "index":
            continue
        entries = groups.setdefault(page.type, [])
        entries.append({"name": page.title, "href": page.path})
        entries += [
            {"name": anchor, "href": f"{page.path}#{anchor}"}
            for anchor in _DT_ID.findall(page.body)
        ]
    document = {
        "name": docs.name,
        "landingHref": "index",
        "licenseHref": "licenses.txt",
        "version": docs.version,
        "children": [{"name": t, "children": e} for t, e in sorted(groups.items())],
    }
    return json.dumps(document, ensure_ascii=False)


def docset_entries(docs: DocSet, pages: Sequence[DocPage]) -> list[Page]:
    """Every entry devdocs2zim writes: pages (explicit IndexData), assets, navbar, licences."""
    out: list[Page] = []
    for page in pages:
        document, text = render_page(docs, page)
        out.append(Page(path=page.path, title=page.title, content=document, index_text=text))
    out += [
        Page(path="application.css", content="._page{margin:1rem}\n", mimetype="text/css",
             front=False, indexed=False),
        Page(path="assets/index.css", content="devdocs-navbar{display:block}\n",
             mimetype="text/css", front=False, indexed=False),
        Page(path="assets/index.js", content="/* devdocs navbar (vue) */\n",
             mimetype="application/javascript", front=False, indexed=False),
        Page(path="navbar.json", content=navbar(docs, pages), mimetype="application/json",
             front=False, indexed=False),
        Page(path="licenses.txt", title="licenses.txt", content=docs.licenses,
             mimetype="text/plain", front=True, indexed=False),
    ]  # fmt: skip
    return out


def metadata(docs: DocSet, date: str) -> dict[str, str]:
    """Kiwix production metadata (recipes override Name; Description per zim-requests #1251)."""
    full_name = f"{docs.name} {docs.version}".strip()
    return {
        "Name": f"devdocs_en_{docs.slug}",
        "Title": f"{full_name} Docs",
        "Description": f"{full_name} documentation, by DevDocs",
        "Creator": "DevDocs",
        "Publisher": "openZIM",
        "Date": date,
        "Language": "eng",
        "Tags": f"devdocs;{docs.slug}",
        "Scraper": "devdocs2zim v0.2.1",
    }
