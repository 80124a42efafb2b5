"""mwoffliner 1.17 page rendering shared by the Wikipedia and MDWiki demo archives.

Articles are described as data (:class:`Article`) and rendered the way mwoffliner's
ActionParse renderer writes them (zim-formats.md §1.5): the vector-2022 template, the
flat legacy-parser layout (``div.mw-heading > hN[id]``) or, for MDWiki pages mirrored
from Wikipedia, the Parsoid layout with nested ``<section data-mw-section-id>``; the
footer sits inside ``htdig_noindex`` so it never reaches the full-text index. Redirects
become libzim redirects, redirects to a section become ``html_redirect`` stubs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

from corpus_mcp.zim.writer import Page, Redirect

Layout = Literal["flat", "parsoid"]

#: mwoffliner's own css/js (``_res_``) and MediaWiki modules (``_mw_``), new scheme.
ASSETS: tuple[tuple[str, str, str], ...] = (
    ("_res_/script.js", "application/javascript", "/* mwoffliner article script */\n"),
    ("_res_/footer.css", "text/css", ".zim-footer{font-size:small;margin-top:2em}\n"),
    ("_res_/vector-2022.css", "text/css", ".mw-page-container{max-width:80em}\n"),
    ("_mw_/skins.vector.styles.css", "text/css", ".vector-body{font-size:0.875rem}\n"),
    ("_mw_/ext.cite.styles.css", "text/css", ".reference{vertical-align:super}\n"),
    ("_res_/index.css", "text/css", "#list li{list-style:none}\n"),
)

TEMPLATE_STYLES = (
    '<style data-mw-deduplicate="TemplateStyles:r1236090951">'
    ".mw-parser-output .hatnote{font-style:italic}"
    ".mw-parser-output div.hatnote{padding-left:1.6em;margin-bottom:0.5em}</style>"
)
INFOBOX_STYLES = (
    '<style data-mw-deduplicate="TemplateStyles:r1257001546">'
    ".mw-parser-output .infobox{border:1px solid #a2a9b1;float:right;width:22em}</style>"
)


@dataclass(frozen=True)
class Section:
    """One heading (``level`` 2–4) with its body blocks; a block starting with ``<`` is
    raw HTML, anything else becomes a paragraph."""

    level: int
    heading: str
    blocks: Sequence[str]


@dataclass(frozen=True)
class Article:
    """An encyclopedia page as mwoffliner would store it."""

    title: str
    lead: Sequence[str]
    sections: Sequence[Section] = ()
    infobox: Sequence[tuple[str, str]] = ()
    infobox_class: str = "infobox"
    hatnote: str = ""
    references: Sequence[str] = ()
    redirects: Sequence[str] = ()
    """Titles of plain redirects to this page."""
    section_redirects: Sequence[tuple[str, str]] = ()
    """(redirect title, heading text) pairs: redirects to a section, written as stubs."""
    navbox: str = ""
    """Key into the navbox table passed to :func:`render_article`."""
    layout: Layout = "flat"
    categories: Sequence[str] = field(default_factory=tuple)
    lead_citations: int | None = None
    """How many of the references the lead cites (markers 1..n on its paragraphs); None:
    all of them. The others are cited in the sections' own blocks (:func:`citation`)."""

    @property
    def path(self) -> str:
        return zim_path(self.title)


def zim_path(title: str) -> str:
    """mwoffliner's ``makeZimPath``: spaces become ``_``, nothing else changes."""
    return title.replace(" ", "_")


def href_to(from_path: str, to_path: str, fragment: str = "") -> str:
    """Relative, percent-encoded link as mwoffliner rewrites internal links."""
    prefix = "../" * from_path.count("/") or "./"
    target = quote(to_path, safe="/:()',!*_-.~")
    return prefix + target + (f"#{fragment}" if fragment else "")


def wiki_url(host: str, path: str) -> str:
    """An article's URL as MediaWiki writes it (``wfUrlencode``: parentheses, commas and
    colons stay, an apostrophe and non-ASCII letters are escaped), e.g. the canonical
    ``https://en.wikipedia.org/wiki/Billboard_(magazine)`` of the real archives."""
    return f"https://{host}/wiki/{quote(path, safe=';@$!*(),/~:')}"


def anchor_ids(headings: Iterable[str]) -> list[str]:
    """MediaWiki heading anchors: spaces to ``_``, repeats suffixed ``_2``, ``_3``…"""
    seen: dict[str, int] = {}
    ids: list[str] = []
    for text in headings:
        base = text.replace(" ", "_")
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return ids


def code_block(lang: str, source: str) -> str:
    """SyntaxHighlight output: ``div.mw-highlight-lang-X > pre``."""
    return (
        f'<div class="mw-highlight mw-highlight-lang-{lang} mw-content-ltr" dir="ltr">'
        f"<pre>{html.escape(source)}</pre></div>"
    )


_BLOCK_START = re.compile(
    r"<(?:p|div|table|ul|ol|dl|pre|figure|blockquote|section|style|h[1-6])[\s>]", re.I
)


def _block(text: str) -> str:
    """Paragraph text gets its ``<p>`` (it may open with inline markup such as ``<b>``);
    ready-made blocks pass through."""
    return text if _BLOCK_START.match(text) else f"<p>{text}</p>"


def citation(n: int) -> str:
    """The marker citing reference ``n`` (1-based) of an article's ``references``."""
    return (
        f'<sup id="cite_ref-ref{n}_{n}-0" class="reference"><a href="#cite_note-ref{n}-{n}">'
        f'<span class="cite-bracket">[</span>{n}<span class="cite-bracket">]</span></a></sup>'
    )


def _with_citations(blocks: list[str], count: int) -> list[str]:
    """Attach reference markers to the first paragraphs, one marker per reference."""
    out = list(blocks)
    paragraphs = [i for i, b in enumerate(out) if b.startswith("<p>")]
    for n in range(1, count + 1):
        if not paragraphs:
            break
        i = paragraphs[(n - 1) % len(paragraphs)]
        out[i] = out[i][: -len("</p>")] + citation(n) + "</p>"
    return out


def _infobox(article: Article) -> str:
    rows = "".join(
        f'<tr><th scope="row" class="infobox-label">{k}</th><td class="infobox-data">{v}</td></tr>'
        for k, v in article.infobox
    )
    return (
        f'{INFOBOX_STYLES}<table class="{article.infobox_class}"><tbody>'
        f'<tr><th colspan="2" class="infobox-above">{html.escape(article.title, quote=False)}'
        f"</th></tr>{rows}"
        "</tbody></table>"
    )


def _references(article: Article) -> str:
    items = "".join(
        f'<li id="cite_note-ref{n}-{n}"><span class="mw-cite-backlink"><b>'
        f'<a href="#cite_ref-ref{n}_{n}-0">^</a></b></span> '
        f'<span class="reference-text">{text}</span></li>'
        for n, text in enumerate(article.references, start=1)
    )
    return (
        '<div class="reflist"><div class="mw-references-wrap mw-references-columns">'
        f'<ol class="references">{items}</ol></div></div>'
    )


def _heading(level: int, anchor: str, text: str) -> str:
    return (
        f'<div class="mw-heading mw-heading{level}"><h{level} id="{html.escape(anchor)}">'
        f"{text}</h{level}></div>"
    )


def _lead(article: Article) -> str:
    parts = [TEMPLATE_STYLES]
    if article.hatnote:
        parts.append(
            f'<div role="note" class="hatnote navigation-not-searchable">{article.hatnote}</div>'
        )
    if article.infobox:
        parts.append(_infobox(article))
    cited = len(article.references)
    if article.lead_citations is not None:
        cited = min(cited, article.lead_citations)
    parts += _with_citations([_block(b) for b in article.lead], cited)
    return "".join(parts)


#: Appendices that come after the references (Wikipedia's order: See also, References,
#: Further reading, External links).
_AFTER_REFERENCES = frozenset({"Further reading", "External links"})


def _all_sections(article: Article) -> list[Section]:
    sections = list(article.sections)
    if article.references:
        at = len(sections)
        while at and sections[at - 1].level == 2 and sections[at - 1].heading in _AFTER_REFERENCES:
            at -= 1
        sections.insert(at, Section(2, "References", (_references(article),)))
    return sections


def _flat_body(article: Article, navbox: str) -> str:
    sections = _all_sections(article)
    ids = anchor_ids(s.heading for s in sections)
    parts = [_lead(article)]
    for section, anchor in zip(sections, ids, strict=True):
        parts.append(_heading(section.level, anchor, section.heading))
        parts += [_block(b) for b in section.blocks]
    parts.append(navbox)
    return "".join(parts)


def _parsoid_body(article: Article, navbox: str) -> str:
    """Nested ``<section>`` wrappers: a heading closes every open section at its level or deeper."""
    sections = _all_sections(article)
    ids = anchor_ids(s.heading for s in sections)
    parts = [f'<section data-mw-section-id="0">{_lead(article)}</section>']
    open_levels: list[int] = []
    for number, (section, anchor) in enumerate(zip(sections, ids, strict=True), start=1):
        while open_levels and open_levels[-1] >= section.level:
            parts.append("</section>")
            open_levels.pop()
        parts.append(f'<section data-mw-section-id="{number}">')
        parts.append(_heading(section.level, anchor, section.heading))
        parts += [_block(b) for b in section.blocks]
        open_levels.append(section.level)
    parts += ["</section>"] * len(open_levels)
    if navbox:
        parts.append(f'<section data-mw-section-id="-1">{navbox}</section>')
    return "".join(parts)


def navbox(title: str, group: str, links: Sequence[tuple[str, str]], from_path: str) -> str:
    """A ``div.navbox[role=navigation]``; mwoffliner keeps navbox bodies."""
    items = " · ".join(
        f'<li><a href="{href_to(from_path, zim_path(t))}" title="{t}">{label}</a></li>'
        for t, label in links
    )
    label_id = zim_path(title)
    return (
        f'<div role="navigation" class="navbox" aria-labelledby="{label_id}">'
        f'<table class="nowraplinks navbox-inner"><tbody><tr><th scope="col" class="navbox-title" '
        f'colspan="2"><div id="{label_id}">{title}</div></th></tr>'
        f'<tr><th scope="row" class="navbox-group">{group}</th><td class="navbox-list">'
        f"<div><ul>{items}</ul></div></td></tr></tbody></table></div>"
    )


def _footer(article: Article, host: str) -> str:
    url = wiki_url(host, article.path)
    return (
        '<!--htdig_noindex--><div><div class="zim-footer">This article is issued from '
        f'<a class="external text" href="{url}">{host.split(".")[-2].capitalize()}</a>. '
        "The text is licensed under Creative Commons - Attribution - Sharealike. "
        "Additional terms may apply for the media files.</div></div><!--/htdig_noindex-->"
    )


def _catlinks(article: Article) -> str:
    if not article.categories:
        return ""
    links = "".join(f"<li>{c}</li>" for c in article.categories)
    return (
        '<div id="catlinks" class="catlinks" data-mw="interface"><div id="mw-normal-catlinks" '
        f'class="mw-normal-catlinks">Categories: <ul>{links}</ul></div></div>'
    )


def render_article(article: Article, *, host: str, navbox_html: str = "") -> str:
    """The full ``pageVector2022.html`` document for one article."""
    path = article.path
    body = (
        _parsoid_body(article, navbox_html)
        if article.layout == "parsoid"
        else _flat_body(article, navbox_html)
    )
    res = "../" * path.count("/") or "./"
    title = html.escape(article.title)
    return (
        '<!DOCTYPE html>\n<html class="client-nojs vector-feature-language-in-header-enabled" '
        'lang="en" dir="ltr"><head><meta charset="UTF-8">'
        f"<title>{title}</title>"
        f'<link rel="icon" href="{res}_res_/favicon.png">'
        f'<link rel="canonical" href="{wiki_url(host, path)}">'
        f'<link rel="stylesheet" href="{res}_mw_/skins.vector.styles.css">'
        f'<link rel="stylesheet" href="{res}_mw_/ext.cite.styles.css">'
        f'<link rel="stylesheet" href="{res}_res_/footer.css">'
        f'<link rel="stylesheet" href="{res}_res_/vector-2022.css">'
        f'<script src="{res}_res_/script.js"></script></head>'
        f'<body class="skin-vector skin-vector-2022 mediawiki ltr page-{html.escape(path)} '
        f'rootpage-{html.escape(path.split("/")[0])} ns-0 ns-subject">'
        '<div class="mw-page-container"><div class="mw-page-container-inner">'
        '<div class="mw-content-container"><main id="content" class="mw-body">'
        '<header class="mw-body-header vector-page-titlebar">'
        '<h1 id="firstHeading" class="firstHeading mw-first-heading">'
        f'<span class="mw-page-title-main">{title}</span></h1></header><a id="top"></a>'
        '<div id="bodyContent" class="vector-body">'
        '<div id="contentSub"><div id="mw-content-subtitle"></div></div>'
        '<div id="mw-content-text" class="mw-body-content mw-content-ltr" lang="en" dir="ltr">'
        f'<div class="mw-content-ltr mw-parser-output" lang="en" dir="ltr">{body}</div>'
        f"{_catlinks(article)}{_footer(article, host)}"
        "</div></div></main></div></div></div></body></html>"
    )


def redirect_stub(title: str, from_path: str, target: str, fragment: str) -> str:
    """mwoffliner's ``html_redirect.html`` for a redirect to a section (1.17+)."""
    href = href_to(from_path, target, fragment.replace(" ", "_"))
    safe_title = html.escape(title)
    return (
        f"<html>\n  <head>\n    <title>{safe_title}</title>\n"
        f'    <meta http-equiv="refresh" content="0;URL=\'{href}\'" />\n  </head>\n'
        f'  <body>\n    <a href="{href}">{safe_title}</a>\n  </body>\n</html>\n'
    )


def list_main_page(articles: Sequence[Article], site_title: str) -> str:
    """The generated selection main page (``createIndexPage``): navigation, not an article."""
    items = "".join(
        f'<li><a href="{href_to("index", a.path)}">{html.escape(a.title)}</a></li>'
        for a in articles
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="UTF-8">'
        f"<title>{html.escape(site_title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">'
        '<link href="./_res_/index.css" rel="stylesheet" type="text/css">'
        '<script src="./_res_/script.js"></script></head>'
        '<body class="page-list-home mw-body-content nojs">'
        f'<ul id="list">{items}</ul></body></html>'
    )


def article_entries(
    articles: Sequence[Article],
    *,
    host: str,
    navboxes: dict[str, str],
) -> tuple[list[Page], list[Redirect]]:
    """Pages, section-redirect stubs and plain redirects, filtered the way
    ``writePageRedirects`` filters them: a redirect never replaces a page or an earlier
    redirect, and its target is always a page of this archive."""
    page_paths = {a.path for a in articles}
    pages: list[Page] = []
    redirects: list[Redirect] = []
    for article in articles:
        nav = navboxes.get(article.navbox, "")
        pages.append(
            Page(
                path=article.path,
                title=article.title,
                content=render_article(article, host=host, navbox_html=nav),
            )
        )
    taken = set(page_paths)
    for article in articles:
        for title in article.redirects:
            source = zim_path(title)
            if source in taken:
                continue
            taken.add(source)
            redirects.append(Redirect(path=source, target=article.path, title=title))
        heading_ids = dict(
            zip(
                (s.heading for s in _all_sections(article)),
                anchor_ids(s.heading for s in _all_sections(article)),
                strict=True,
            )
        )
        for title, heading in article.section_redirects:
            source = zim_path(title)
            if source in taken:
                continue
            taken.add(source)
            stub = redirect_stub(title, source, article.path, heading_ids[heading])
            pages.append(Page(path=source, title=title, content=stub))
    return pages, redirects


def asset_pages() -> list[Page]:
    """The css/js every page links to; not front, not indexed."""
    pages = [Page(path=p, content=c, mimetype=m, front=False, indexed=False) for p, m, c in ASSETS]
    pages.append(
        Page(
            path="_res_/favicon.png",
            content=_PNG_1PX,
            mimetype="image/png",
            front=False,
            indexed=False,
        )
    )
    return pages


_PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000005000157ea1b0d0000000049454e44ae426082"
)
