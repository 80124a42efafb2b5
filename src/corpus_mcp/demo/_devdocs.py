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
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.html

from corpus_mcp.zim.writer import Page


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
        f'<div class="_attribution">\n  <p class="_attribution-p">\n    {docs.attribution}<br>\n'
        f'    <a href="{url}" class="_attribution-link">{url}</a>\n  </p>\n</div>\n'
    )


def render_page(docs: DocSet, page: DocPage) -> tuple[str, str]:
    """The full devdocs2zim page (its ``page.html``, whitespace included) and the plain
    text devdocs2zim indexes for it."""
    prefix = "../" * page.path.count("/")
    content = page.body + _attribution(docs, page)
    document = f"""<html class="_theme-default">
<head>
    <meta charset="utf-8">
    <title>{html.escape(page.title)}</title>

    <link rel="preload" href="{prefix}assets/index.js" as="script" type="text/javascript" />

    <link rel="stylesheet" type="text/css" href="{prefix}application.css" />
    <link rel="stylesheet" type="text/css" href="{prefix}assets/index.css" />
</head>
<body>
    <div class="_app">
        <devdocs-navbar current="{page.path}" prefix="{prefix}" listing-src="{prefix}navbar.json"></devdocs-navbar>
        <div class="_container">
            <main class="_content">
                <div class="_page _{docs.slug}">{content}</div>
            </main>
        </div>
    </div>
    <script type="text/javascript" src="{prefix}assets/index.js"></script>
</body>

</html>"""  # noqa: E501
    text = " ".join(lxml.html.fragment_fromstring(content, create_parent="div").itertext())
    return document, " ".join(text.split())


# Sphinx object kinds DevDocs names with a trailing "()".
_CALLABLE_KINDS = frozenset({"function", "method", "classmethod", "staticmethod", "decorator"})


def _entry_name(term: lxml.html.HtmlElement) -> str:
    """DevDocs' index name for a ``dt[id]``: ``str.join()`` for a Sphinx callable, the
    id for other Sphinx objects, ``Config: shared_buffers`` for a PostgreSQL setting."""
    anchor = str(term.get("id"))
    holder = term.getparent()
    kinds = set(str(holder.get("class", "")).split()) if holder is not None else set()
    if "py" in kinds:
        return anchor + "()" if kinds & _CALLABLE_KINDS else anchor
    if "variablelist" in kinds:
        setting = term.find(".//code")
        return f"Config: {setting.text_content() if setting is not None else anchor}"
    return anchor


def _page_entries(page: DocPage) -> list[dict[str, str]]:
    """The page's index entries: itself (unless DevDocs gives it none, as for
    PostgreSQL's settings pages, which devdocs2zim then titles after their first entry),
    then one per ``dt[id]``."""
    tree = lxml.html.fragment_fromstring(page.body, create_parent="div")
    anchors = [
        {"name": _entry_name(term), "href": f"{page.path}#{term.get('id')}"}
        for term in tree.iter("dt")
        if term.get("id")
    ]
    if any(entry["name"] == page.title for entry in anchors):
        return anchors
    return [{"name": page.title, "href": page.path}, *anchors]


def _by_name(entry: dict[str, str]) -> str:
    return entry["name"].casefold()


def navbar(docs: DocSet, pages: Sequence[DocPage]) -> str:
    """``navbar.json``: the whole symbol index, grouped by type, camelCase keys; groups
    and entries in DevDocs' case-insensitive order, written compactly as devdocs2zim does."""
    groups: dict[str, list[dict[str, str]]] = {}
    for page in pages:
        if page.path != "index":
            groups.setdefault(page.type, []).extend(_page_entries(page))
    children: list[dict[str, object]] = [
        {"name": name, "children": sorted(groups[name], key=_by_name)}
        for name in sorted(groups, key=str.casefold)
    ]
    document = {
        "name": docs.name,
        "landingHref": "index",
        "licenseHref": "licenses.txt",
        "version": docs.version,
        "children": children,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


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
