"""A web page's main content, its site chrome dropped (pure, on the lxml tree).

Rules of our own rather than a main-content library (DEVELOPERS.md, Decisions, has the
figures): the generators that made the pages an archive holds mark their content, so the
semantic markers come first, in the order of how sure they are (MediaWiki's
``#mw-content-text``, Sphinx's ``div.body``, WordPress' ``.entry-content``, then
``main``, ``[role=main]``, a lone ``article``); a page without any is read by its text:
from the body down into the child that holds most of the text, as long as nothing its
siblings hold is a heading or a paragraph.

Chrome is dropped from the whole body first, by what it is (``nav``, ``aside``,
``footer``, a ``header`` outside the content, ARIA landmarks other than ``main``) and by
the names generators give it (Sphinx's sidebar and ``related`` bars, MediaWiki's table of
contents and edit links, pilcrow permalinks, cookie banners, comment threads...). Ids and
classes are read as attribute values (one XPath each, values made in C), and only the
few that name chrome get an element: walking every element in Python would cost more
than the parse.
"""

from __future__ import annotations

from typing import Final, cast

import lxml.etree
from lxml.html import HtmlElement

from corpus_mcp.cleaning import xpath_has_class as _has_class

__all__ = ["drop_chrome", "main_content", "text_size"]

# Never content, whatever their place: the renderer skips them too, but they would
# count as text when the main content is chosen by its size.
_NEVER_TEXT: Final = ("script", "style", "noscript", "template", "svg", "iframe", "object")
_CHROME_TAGS: Final = ("nav", "footer", "form", "dialog")
# An ``aside`` is a sidebar, unless it is a footnote, citation or admonition (docutils
# 0.18+ writes footnotes as ``aside.footnote``).
_KEPT_ASIDES: Final = ("footnote", "citation", "admonition", "note", "warning")
_CHROME_ROLES: Final = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
)
_CHROME_IDS: Final = frozenset(
    {
        "toc", "footer", "header", "sidebar", "navigation", "nav", "menu", "masthead",
        "colophon", "secondary", "mw-navigation", "mw-panel", "mw-head", "mw-page-base",
        "mw-head-base", "catlinks", "siteSub", "contentSub", "jump-to-nav", "comments",
        "respond", "cookie-banner", "cookie-notice", "cookie-law-info-bar", "breadcrumbs",
    }
)  # fmt: skip
_CHROME_CLASSES: Final = frozenset(
    {
        # Sphinx: the sidebar, the two "related" bars, permalinks, the mobile menu.
        "sphinxsidebar", "related", "footer", "headerlink", "mobile-nav", "menu-wrapper",
        # MediaWiki: edit links, the TOC, categories, navigation boxes, jump links.
        "mw-editsection", "toc", "catlinks", "printfooter", "navbox", "mw-jump-link",
        "noprint",
        # Sites at large: bars, menus, sharing, comments, cookie notices, skip links.
        "breadcrumb", "breadcrumbs", "navbar", "navigation", "nav-links", "post-navigation",
        "site-header", "site-footer", "skip-link", "sharedaddy", "share-buttons",
        "social-share", "comments-area", "comment-respond", "js-comments",
        "comments-container", "related-posts", "footer-stat", "stats-container",
        "cookie-notice", "cookie-banner", "actionbar-portal", "author-container",
        "author-box", "author-bio",
    }
)  # fmt: skip
# Class tokens that name chrome wherever they appear in a token ("left-sidebar").
_CHROME_CLASS_PARTS: Final = ("sidebar", "cookie", "breadcrumb", "navbox", "comments")
# And ids: a comment thread, the author's box below a post.
_CHROME_ID_PARTS: Final = ("sidebar", "cookie", "comments", "author-container", "author-box")
# Landmarks a page's own title may sit in: a header inside them is the article's.
_CONTENT_LANDMARKS: Final = ("main", "article")

# (what the page's bytes hold if it has the marker, the marker): a full-tree XPath costs
# milliseconds on a large page, the byte scan microseconds.
_MAIN_ROLE: Final = (b'role="main"', b"role='main'", b"role=main")
_MARKERS: Final = (
    ((b"mw-content-text",), "//*[@id='mw-content-text']"),
    (_MAIN_ROLE, f"//div[{_has_class('body')}][@role='main']"),
    ((b"documentwrapper",), f"//div[{_has_class('documentwrapper')}]//div[{_has_class('body')}]"),
    ((b"entry-content",), f"//*[{_has_class('entry-content')}]"),
    ((b"<main",), "//main"),
    (_MAIN_ROLE, "//*[@role='main']"),
)
#: A marked element must hold this share of the body's text to be the content (a
#: ``main`` holding a search box is not).
MARKER_SHARE: Final = 0.25
#: The body is read down into a child holding this share of its parent's text.
DESCENT_SHARE: Final = 0.7
_DESCENT_TAGS: Final = frozenset(
    {"div", "section", "article", "main", "table", "tbody", "tr", "td", "center", "span"}
)
# What makes a sibling of the text's largest holder content too: a heading, a paragraph.
_CONTENT_BLOCKS: Final = lxml.etree.XPath(
    "descendant-or-self::*[self::h1 or self::h2 or self::h3 or self::h4"
    " or (self::p and normalize-space())][1]"
)
_CLASSES: Final = lxml.etree.XPath("descendant::*/@class")
_IDS: Final = lxml.etree.XPath("descendant::*/@id")
_ROLES: Final = lxml.etree.XPath("descendant::*/@role")
_TEXT_SIZE: Final = lxml.etree.XPath("string-length(normalize-space())")


def _owners(xpath: lxml.etree.XPath, node: HtmlElement, chrome: set[str]) -> list[HtmlElement]:
    values = cast("list[lxml.etree._ElementUnicodeResult]", xpath(node))
    return [cast(HtmlElement, value.getparent()) for value in values if value in chrome]


def _is_chrome_class(value: str) -> bool:
    tokens = value.split()
    if not _CHROME_CLASSES.isdisjoint(tokens):
        return True
    lowered = value.lower()
    return any(part in lowered for part in _CHROME_CLASS_PARTS)


def _is_chrome_id(value: str) -> bool:
    if value in _CHROME_IDS:
        return True
    lowered = value.lower()
    return any(part in lowered for part in _CHROME_ID_PARTS)


def _in_landmark(node: HtmlElement) -> bool:
    return any(True for _ in node.iterancestors(*_CONTENT_LANDMARKS))


def _kept_aside(aside: HtmlElement) -> bool:
    value = (aside.get("class") or "").lower()
    return any(name in value for name in _KEPT_ASIDES)


def drop_chrome(body: HtmlElement) -> int:
    """Remove what is never content from ``body`` (its tail text kept); how many went."""
    doomed: list[HtmlElement] = list(body.iterdescendants(*_NEVER_TEXT, *_CHROME_TAGS))
    doomed += [h for h in body.iterdescendants("header") if not _in_landmark(h)]
    doomed += [a for a in body.iterdescendants("aside") if not _kept_aside(a)]
    values = cast("list[lxml.etree._ElementUnicodeResult]", _CLASSES(body))
    doomed += [cast(HtmlElement, v.getparent()) for v in values if _is_chrome_class(v)]
    ids = cast("list[lxml.etree._ElementUnicodeResult]", _IDS(body))
    doomed += [cast(HtmlElement, v.getparent()) for v in ids if _is_chrome_id(v)]
    for element in _owners(_ROLES, body, set(_CHROME_ROLES)):
        # A banner inside the article is its own header (title, byline): kept.
        if element.get("role") != "banner" or not _in_landmark(element):
            doomed.append(element)
    removed = 0
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()
            removed += 1
    return removed


def text_size(node: HtmlElement) -> int:
    """Characters of text below ``node``, whitespace runs counted once (chrome and
    scripts are gone by now, so this is what a reader sees). In libxml2: on a 700 KB
    book, joining the split text in Python took 5x longer."""
    return int(cast(float, _TEXT_SIZE(node)))


def main_content(body: HtmlElement, html: bytes | None = None) -> HtmlElement:
    """The element holding the page's main content (``body`` itself failing all else),
    ``body`` already without its chrome (:func:`drop_chrome`); ``html``, the page's
    bytes, spares looking for markers they do not hold."""
    whole = text_size(body)
    for needles, xpath in _MARKERS:
        if html is not None and not any(needle in html for needle in needles):
            continue
        found = [item for item in body.xpath(xpath) if isinstance(item, HtmlElement)]
        if found and text_size(found[0]) >= MARKER_SHARE * whole:
            return found[0]
    articles = list(body.iter("article")) if html is None or b"<article" in html else []
    if len(articles) == 1 and text_size(articles[0]) >= MARKER_SHARE * whole:
        return articles[0]
    return _densest(body, whole)


def _densest(node: HtmlElement, size: int) -> HtmlElement:
    """Down from ``node`` into the child holding most of its text while that child holds
    :data:`DESCENT_SHARE` of it and its siblings hold no heading and no paragraph (they
    would be content: a talk's speaker beside its description)."""
    while size:
        children = [child for child in node if isinstance(child.tag, str)]
        sizes = [text_size(child) for child in children]
        if not children:
            return node
        best = max(range(len(children)), key=sizes.__getitem__)
        child = children[best]
        if child.tag not in _DESCENT_TAGS or sizes[best] < DESCENT_SHARE * size:
            return node
        if any(_CONTENT_BLOCKS(other) for other in children if other is not child):
            return node
        node, size = child, sizes[best]
    return node
