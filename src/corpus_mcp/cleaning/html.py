"""The HTML side of cleaning: parsing, element helpers, junk detection, visible text.

Everything here reads the lxml tree and nothing renders Markdown, so the adapters can use
it to pick their content node and the renderer to decide what to skip.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import lxml.etree
import lxml.html
from lxml.html import HtmlElement

__all__ = [
    "BLOCK_TAGS",
    "CITATION_SUP_CLASSES",
    "DROP_TAGS",
    "JUNK_CLASSES",
    "classes",
    "drop",
    "has_class",
    "is_junk",
    "make_element",
    "parse_html",
    "visible_text",
    "xml_safe_retry",
    "xpath_has_class",
]

# -- parsing ------------------------------------------------------------------------------

_UTF8_CHECK_SLICE = 16384
_PARSER = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
# lxml.html's own lookup is a Python method called for every element proxy the walk
# creates (thousands per large page). Every tag here is a plain HtmlElement (the form
# element subclasses are never used), so lxml's C-level default lookup does the same.
_PARSER.set_element_class_lookup(
    lxml.etree.ElementDefaultClassLookup(
        element=HtmlElement,
        comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction,
        entity=lxml.html.HtmlEntity,
    )
)


def parse_html(data: bytes) -> HtmlElement:
    """Parse an entry's bytes as UTF-8 HTML; never raises, junk gives an empty document.

    Comments are dropped at parse time (the ``htdig_noindex`` markers included): no
    adapter needs them and it spares the walk. Invalid UTF-8 is replaced, not fatal.
    """
    if not _is_utf8(data):
        data = data.decode("utf-8", "replace").encode("utf-8")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        root = lxml.html.document_fromstring(data, parser=_PARSER)
    except (lxml.etree.ParserError, ValueError, TypeError):
        root = None
    if root is None:
        return lxml.html.document_fromstring(b"<html><body></body></html>", parser=_PARSER)
    return root


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8.

    Decoded in slices: one ``decode`` of a large page allocates a str as large as the
    page or larger (slow to obtain from the OS) only to throw it away.
    """
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for offset in range(0, len(data), _UTF8_CHECK_SLICE):
            decoder.decode(data[offset : offset + _UTF8_CHECK_SLICE])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def make_element(tag: str) -> HtmlElement:
    """A new detached element from :func:`parse_html`'s parser.

    Nodes moved under it keep the fast class lookup (a tree's proxies are made by its
    document's parser), unlike under ``lxml.html.Element``.
    """
    element: HtmlElement = _PARSER.makeelement(tag)
    return element


# What an XML tree cannot hold: C0 controls other than tab and line breaks, U+FFFE and
# U+FFFF, raw or as character references. lxml's HTML parser keeps them in text, but
# any later assignment of such text to a node (our own, or lxml's drop_tree) raises
# ValueError. Scanning every page for them would cost a third of the parse, and real
# pages almost never carry them, so a page that trips on them is parsed again without.
_XML_REFUSED = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]"
    rb"|&#(?:[xX]0*(?:[0-8bBcCeEfF]|1[0-9a-fA-F]|[fF]{3}[eEfF])(?![0-9a-fA-F])"
    rb"|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]|6553[45])(?![0-9]));?"
)
_XML_REFUSAL = "All strings must be XML compatible"

T = TypeVar("T")


def xml_safe_retry(parse: Callable[..., T]) -> Callable[..., T]:
    """An adapter's ``parse(path, title, html, library, *, view)``, tried again on the page
    without the characters XML refuses when lxml raises on them (see above)."""

    @functools.wraps(parse)
    def parse_safely(
        adapter: Any, path: str, title: str, html: bytes, library: str, **options: Any
    ) -> T:
        try:
            return parse(adapter, path, title, html, library, **options)
        except ValueError as exc:
            if _XML_REFUSAL not in str(exc):
                raise
            return parse(adapter, path, title, _XML_REFUSED.sub(b"", html), library, **options)

    return parse_safely


# -- small shared helpers -------------------------------------------------------------------


def classes(el: HtmlElement) -> frozenset[str]:
    """The element's class tokens."""
    value = el.get("class")
    return frozenset(value.split()) if value else frozenset()


def has_class(el: HtmlElement, name: str) -> bool:
    value = el.get("class")
    return value is not None and name in value.split()


def xpath_has_class(name: str) -> str:
    """An XPath predicate body matching a class token (cssselect is not installed)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def drop(node: HtmlElement, xpath: str) -> int:
    """Remove every element matching ``xpath`` (relative to ``node``), keeping tail text.

    Returns how many were removed. Elements nested in an already removed one are
    skipped, so overlapping matches are harmless.
    """
    removed = 0
    for el in node.xpath(xpath):
        if not isinstance(el, HtmlElement) or el.getparent() is None:
            continue
        el.drop_tree()
        removed += 1
    return removed


# -- junk --------------------------------------------------------------------------------

DROP_TAGS = frozenset(
    {
        "script", "style", "link", "meta", "noscript", "template", "head", "title",
        "button", "input", "select", "option", "textarea", "iframe", "object", "embed",
        "audio", "video", "source", "track", "canvas", "svg", "map", "area", "base",
    }
)  # fmt: skip
JUNK_CLASSES = frozenset(
    {
        "mw-editsection", "mw-empty-elt", "mw-cite-backlink", "reference-link",
        "mw-reflink-text", "cite-bracket", "reference-accessdate", "noprint", "mw-linkback-text",
    }
)  # fmt: skip
CITATION_SUP_CLASSES = frozenset({"reference", "mw-ref"})
_BRACKET_MARKER = re.compile(r"^\s*\[[^\[\]]{1,30}\]\s*$")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


def is_junk(el: HtmlElement) -> bool:
    tag = el.tag
    if tag in DROP_TAGS:
        return True
    # This runs for every element: one keys() call spares an attribute lookup for each of
    # the three below that is absent, as most are.
    names = el.keys()
    if "hidden" in names:
        return True
    if "style" in names:
        style = el.get("style")
        if style and "none" in style and _HIDDEN_STYLE.search(style):
            return True
    value = el.get("class") if "class" in names else None
    if value:
        tokens = value.split()
        if not JUNK_CLASSES.isdisjoint(tokens):
            return True
        if (tag in ("sup", "span")) and not CITATION_SUP_CLASSES.isdisjoint(tokens):
            return True
    if tag == "sup":
        text = "".join(el.itertext())
        if _BRACKET_MARKER.match(text):
            return True
    return False


# -- element kinds ---------------------------------------------------------------------------

# Tags that break an inline run: visible text spaces them apart, the renderer makes blocks.
BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr",
        "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "menu", "dir", "legend",
    }
)  # fmt: skip


# -- visible text --------------------------------------------------------------------------

_WS = re.compile(r"\s+")


def _visible_pieces(el: HtmlElement) -> Iterator[str]:
    if el.text:
        yield el.text
    for child in el:
        if isinstance(child.tag, str) and not is_junk(child):
            if child.tag in BLOCK_TAGS or child.tag == "br":
                yield " "
            yield from _visible_pieces(child)
            if child.tag in BLOCK_TAGS:
                yield " "
        if child.tail:
            yield child.tail


def visible_text(node: HtmlElement) -> str:
    """Whitespace-normalised visible text of ``node`` (junk skipped), for snippets and sizes."""
    if not isinstance(node.tag, str) or is_junk(node):
        return ""
    return _WS.sub(" ", "".join(_visible_pieces(node))).strip()
