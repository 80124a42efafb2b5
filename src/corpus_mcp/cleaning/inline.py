"""Inline Markdown: text runs, escaping, code spans, TeX math, emphasis, sup/sub.

:class:`InlineRenderer` holds the state of one conversion (the protected pieces of the
current run, whether a table cell is being rendered); the block side extends it, because
inline and block rendering recurse into each other (a ``div`` inside a ``span``, a
paragraph inside a list item).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable

from lxml.html import HtmlElement

from corpus_mcp.cleaning.html import BLOCK_TAGS, classes, is_junk
from corpus_mcp.refs import flat_parentheses

__all__ = ["PRIVATE_USE", "InlineRenderer", "LinkTarget", "collapse_spaces"]

LinkTarget = Callable[[HtmlElement], "str | None"]
"""Where a link (an ``a`` element) leads, as the agent should see it (a ``corpus://`` ref,
``#anchor`` for the same document, an external URL), or None to keep only its text.
The adapter decides: it knows the page's path and which paths are documents."""

_CODE_INLINE_TAGS = frozenset({"code", "kbd", "samp", "tt", "var"})
_STRONG_TAGS = frozenset({"b", "strong"})
_EM_TAGS = frozenset({"i", "em", "dfn"})
_STRIKE_TAGS = frozenset({"s", "del", "strike"})
_DISPLAYSTYLE = re.compile(r"^\s*\{\\displaystyle\s*(?P<body>.*)\}\s*$", re.DOTALL)
_TEXSTYLE = re.compile(r"^\s*\{\\textstyle\s*(?P<body>.*)\}\s*$", re.DOTALL)
_TEX_IN_TEXT = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)",
    re.DOTALL,
)

# Private-use characters mark protected inline pieces (code, math) and forced breaks
# while an inline run is assembled; any occurrence in the source text is removed.
_OPEN, _CLOSE, _BR = "\ue000", "\ue001", "\ue002"
PRIVATE_USE = re.compile("[\ue000-\ue002]")
_TOKEN = re.compile("\ue000(\\d+)\ue001")
_SPACES = re.compile(r"[ \t\r\n\f\v\xa0\u2028\u2029]+")
# Zero-width space and BOM; the zero-width (non-)joiners carry meaning in some scripts.
_ZERO_WIDTH = str.maketrans("", "", "\u200b\ufeff")
_MULTI_SPACE = re.compile(r" {2,}")
_ESCAPE_INLINE = re.compile(r"\\(?=[!-/:-@\[-`{-~])|`|<(?=[A-Za-z/!?])|\*|_")
_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[-+*](?=\s)|=+\s*$|(\d{1,9})([.)])(?=\s))")
_SUP_PLAIN = re.compile(r"^[0-9+\-−–⁄/.,()nNiIxX]+$")
# What a Markdown link destination may not hold unescaped.
_DESTINATION_UNSAFE = re.compile(r"[\s<>()\\]")
_DESTINATION_UNSAFE_BALANCED = re.compile(r"[\s<>\\]")
# A web address CommonMark reads as an autolink between angle brackets.
_AUTOLINK_TARGET = re.compile(r"https?://[^\s<>]+")


def collapse_spaces(text: str) -> str:
    """Every whitespace run (as :data:`_SPACES` defines it) becomes one space, and
    zero-width spaces (Wikipedia templates pad with them: ``Presley \u200b (m. 1994``)
    disappear.

    Most text nodes hold nothing to collapse, and saying so is much cheaper than running
    the regex: every character ``_SPACES`` matches except the plain space is
    non-printable, so printable text without a double space is already collapsed.
    """
    if text.isprintable() and "  " not in text:
        return text
    return _SPACES.sub(" ", text.translate(_ZERO_WIDTH))


def _clean_tex(tex: str) -> str:
    tex = tex.strip()
    for pattern in (_DISPLAYSTYLE, _TEXSTYLE):
        match = pattern.match(tex)
        if match:
            tex = match.group("body").strip()
    return collapse_spaces(tex).strip()


def _escape_text(text: str) -> str:
    # Five substring tests run at memchr speed; a set or regex test goes char by char.
    if not ("\\" in text or "`" in text or "<" in text or "*" in text or "_" in text):
        return text

    def repl(match: re.Match[str]) -> str:
        char = match.group(0)
        if char in "*_":
            start, end = match.start(), match.end()
            before = text[start - 1] if start > 0 else " "
            after = text[end] if end < len(text) else " "
            if char == "_" and before.isalnum() and after.isalnum():
                return char
            if before.isspace() and after.isspace():
                return char
        return "\\" + char

    return _ESCAPE_INLINE.sub(repl, text)


def _escape_line_starts(text: str) -> str:
    if "\n" not in text:  # the common case: one line, no split and join
        return _escape_line_start(text)
    return "\n".join(_escape_line_start(line) for line in text.split("\n"))


def _escape_line_start(line: str) -> str:
    """Escape a Markdown block marker (heading, quote, list item, ...) opening ``line``."""
    match = _LINE_START.match(line)
    if not match:
        return line
    lead, marker = match.group(1), match.group(2)
    if match.group(3):
        return f"{lead}{match.group(3)}\\{match.group(4)}{line[match.end() :]}"
    return f"{lead}\\{marker}{line[match.end() :]}"


def _math_tex(el: HtmlElement) -> tuple[str, bool]:
    """TeX and display flag from MediaWiki/KaTeX math markup or a fallback image."""
    display = False
    tokens = classes(el)
    if el.tag == "img":
        return _clean_tex(el.get("alt") or ""), any("display" in t for t in tokens)
    for node in el.iter():
        if not isinstance(node.tag, str):
            continue
        node_classes = node.get("class") or ""
        if (
            "mwe-math-mathml-display" in node_classes
            or "mwe-math-fallback-image-display" in node_classes
            or "katex-display" in node_classes
        ):
            display = True
        if node.tag == "math" and node.get("display") == "block":
            display = True
    for annotation in el.iter("annotation"):
        if (annotation.get("encoding") or "").lower() == "application/x-tex":
            tex = _clean_tex("".join(annotation.itertext()))
            if tex:
                return tex, display
    for math in el.iter("math"):
        alt = math.get("alttext")
        if alt and alt.strip():
            return _clean_tex(alt), display
    for img in el.iter("img"):
        alt = img.get("alt")
        if alt and alt.strip():
            return _clean_tex(alt), display
    return "", display


class InlineRenderer(ABC):
    """One conversion: holds protected inline pieces until their run is finished."""

    def __init__(self, *, tex: bool, links: LinkTarget | None = None) -> None:
        self.tex = tex
        self.links = links
        self.protected: list[str] = []
        self.in_cell = 0

    # The block side (blocks.Renderer) provides this: an inline run can hold a block.

    @abstractmethod
    def element_blocks(self, el: HtmlElement) -> list[str]:
        """The Markdown blocks of ``el``, for a block element met inside an inline run."""

    # -- inline runs -------------------------------------------------------------------

    def protect(self, text: str) -> str:
        self.protected.append(text)
        return f"{_OPEN}{len(self.protected) - 1}{_CLOSE}"

    def expand(self, text: str) -> str:
        while _OPEN in text:
            text = _TOKEN.sub(lambda m: self.protected[int(m.group(1))], text)
        return text

    def text(self, raw: str) -> str:
        """A text node: whitespace collapsed, escaped, raw TeX protected in tex mode."""
        if raw.isspace():
            return " "
        if _OPEN in raw or _CLOSE in raw or _BR in raw:
            raw = PRIVATE_USE.sub("", raw)
        if not self.tex:
            return _escape_text(collapse_spaces(raw))
        out: list[str] = []
        pos = 0
        for match in _TEX_IN_TEXT.finditer(raw):
            out.append(_escape_text(collapse_spaces(raw[pos : match.start()])))
            out.append(self.protect(match.group(0)))
            pos = match.end()
        out.append(_escape_text(collapse_spaces(raw[pos:])))
        return "".join(out)

    def finish_run(self, parts: list[str]) -> str:
        """Turn collected inline pieces into one paragraph's Markdown ('' if blank)."""
        run = "".join(parts)
        if "  " in run:  # the regex costs far more than this check
            run = _MULTI_SPACE.sub(" ", run)
        if _BR in run:
            run = "\n".join(piece.strip() for piece in run.split(_BR))
            run = re.sub(r"\n{2,}", "\n", run)
        run = run.strip()
        if not run:
            return ""
        return self.expand(_escape_line_starts(run))

    # -- code spans and math ----------------------------------------------------------

    def code_span(self, code: str) -> str:
        if not code:
            return ""
        fence = "`" * (max((len(m) for m in re.findall("`+", code)), default=0) + 1)
        pad = " " if code.startswith("`") or code.endswith("`") else ""
        return self.protect(f"{fence}{pad}{code}{pad}{fence}")

    def math(self, el: HtmlElement) -> str:
        tex, display = _math_tex(el)
        if not tex:
            return ""
        return self.protect(f"$${tex}$$" if display else f"${tex}$")

    # -- inline ----------------------------------------------------------------------------

    def inline_children(self, el: HtmlElement) -> str:
        parts: list[str] = []
        if text := el.text:
            parts.append(self.text(text))
        for child in el:
            if isinstance(child.tag, str) and not is_junk(child):
                parts.append(self.inline(child))
            if tail := child.tail:
                parts.append(self.text(tail))
        return "".join(parts)

    def plain_inline(self, el: HtmlElement) -> str:
        """An element's content as one line of inline Markdown, protected pieces expanded."""
        return self.finish_run([self.inline_children(el)]).replace("\n", " ")

    def inline(self, el: HtmlElement) -> str:
        tag = el.tag
        tokens = (el.get("class") or "").split()  # runs per inline element: no frozenset
        if tokens and ("mwe-math-element" in tokens or "katex" in tokens):
            return self.math(el)
        if tag == "math":
            return self.math(el)
        if tag == "img":
            if tokens and any(t.startswith("mwe-math-fallback-image") for t in tokens):
                return self.math(el)
            alt = (el.get("alt") or "").strip()
            return self.text(alt) if alt else ""
        if tag == "a" and self.links is not None:
            target = self.links(el)
            if target is not None:
                return self.link(el, target)
        if tag == "br":
            return _BR if not self.in_cell else "; "
        if tag in _CODE_INLINE_TAGS:
            if tag == "var" and el.getparent() is not None and el.getparent().tag != "pre":
                return self.emphasis(el, "*")
            return self.code_span(
                collapse_spaces(PRIVATE_USE.sub("", "".join(el.itertext()))).strip()
            )
        if tag in _STRONG_TAGS:
            return self.emphasis(el, "**")
        if tag in _EM_TAGS:
            return self.emphasis(el, "*")
        if tag in _STRIKE_TAGS:
            return self.emphasis(el, "~~")
        if tag == "sup":
            return self.superscript(el)
        if tag in BLOCK_TAGS or tag == "pre":
            blocks = self.element_blocks(el)
            return " " + " ".join(b.replace("\n", " ") for b in blocks) + " " if blocks else " "
        return self.inline_children(el)

    def link(self, el: HtmlElement, target: str) -> str:
        """``[text](target)``; the text alone when it is empty; an autolink
        (``<https://...>``) when the text is the web address itself: a bare URL needs no
        second copy, and the mark lets fetch lead it into the corpus like any link."""
        inner = self.inline_children(el)
        stripped = inner.strip()
        if _AUTOLINK_TARGET.fullmatch(target) and "".join(el.itertext()).strip() == target:
            lead = " " if inner[:1].isspace() else ""
            trail = " " if inner[-1:].isspace() else ""
            return f"{lead}{self.protect(f'<{target}>')}{trail}"
        if not stripped or stripped == target or _BR in stripped:
            return inner
        lead = " " if inner[:1].isspace() else ""
        trail = " " if inner[-1:].isspace() else ""
        label = stripped.replace("[", "\\[").replace("]", "\\]")
        return f"{lead}[{label}]{self.protect(f'({_destination(target)})')}{trail}"

    def emphasis(self, el: HtmlElement, mark: str) -> str:
        inner = self.inline_children(el)
        stripped = inner.strip()
        if not stripped or _BR in stripped:
            return inner
        if stripped.startswith(mark[0]) or stripped.endswith(mark[0]):
            return inner
        lead = " " if inner[:1].isspace() else ""
        trail = " " if inner[-1:].isspace() else ""
        return f"{lead}{mark}{stripped}{mark}{trail}"

    def superscript(self, el: HtmlElement) -> str:
        inner = self.inline_children(el)
        stripped = inner.strip()
        if stripped and _SUP_PLAIN.match(stripped) and any(c.isdigit() for c in stripped):
            parent = el.getparent()
            prev = (
                el.getprevious().tail
                if el.getprevious() is not None
                else parent.text
                if parent is not None
                else None
            ) or ""
            if prev[-1:].isalnum() or prev[-1:] in ")]":
                return (
                    f"^{stripped}" if len(stripped) == 1 or stripped.isdigit() else f"^({stripped})"
                )
        return inner


def _destination(target: str) -> str:
    """A link destination Markdown reads back whole: percent-encoded where it holds
    spaces, angle brackets or backslashes, and parentheses unless they are balanced and
    one level deep, the rule refs follow (``corpus://Wikipedia/Ray_(film)`` stays as
    search wrote it)."""
    flat = flat_parentheses(target)
    unsafe = _DESTINATION_UNSAFE_BALANCED if flat else _DESTINATION_UNSAFE
    if not unsafe.search(target):
        return target
    return unsafe.sub(lambda m: f"%{ord(m.group()):02X}", target)
