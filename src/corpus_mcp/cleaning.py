"""HTML subtree -> clean Markdown for agents (pure; shared by every family adapter).

The renderer walks the lxml tree directly instead of going through markdownify: that
would need a BeautifulSoup copy of every page, several times the cost of lxml's own
parse, and its output would still need most of the rules below overridden. Rules:

* Generic junk (scripts, styles, hidden elements, edit links, citation markers, ...) is
  skipped during the walk; the caller's tree is never mutated by :func:`to_markdown`.
* Meaning is kept: paragraphs, nested lists, tables (key/value tables such as infoboxes
  become a compact list), definition lists, block quotes, admonitions, fenced code with
  its language, inline code, TeX math (``$...$`` / ``$$...$$``), image captions.
* Links keep their text only and images their caption or alt text: URLs are noise to
  an agent and the archive's relative URLs would not resolve anyway.
* Escaping is minimal: only what would change the meaning of the Markdown (emphasis
  markers, backticks, tag-like ``<x``, block markers at line start, ``|`` in tables);
  intraword underscores are left alone. Code and math are never escaped.
* Output is deterministic and normalised: no trailing spaces, at most one blank line
  between blocks (outside code fences), stripped.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator

import lxml.etree
import lxml.html
from lxml.html import HtmlElement

__all__ = [
    "classes",
    "drop",
    "has_class",
    "make_element",
    "parse_html",
    "to_markdown",
    "visible_text",
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

_DROP_TAGS = frozenset(
    {
        "script", "style", "link", "meta", "noscript", "template", "head", "title",
        "button", "input", "select", "option", "textarea", "iframe", "object", "embed",
        "audio", "video", "source", "track", "canvas", "svg", "map", "area", "base",
    }
)  # fmt: skip
_JUNK_CLASSES = frozenset(
    {
        "mw-editsection", "mw-empty-elt", "mw-cite-backlink", "reference-link",
        "mw-reflink-text", "cite-bracket", "reference-accessdate", "noprint", "mw-linkback-text",
    }
)  # fmt: skip
_CITATION_SUP_CLASSES = frozenset({"reference", "mw-ref"})
_BRACKET_MARKER = re.compile(r"^\s*\[[^\[\]]{1,30}\]\s*$")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


def _is_junk(el: HtmlElement) -> bool:
    tag = el.tag
    if tag in _DROP_TAGS:
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
        if not _JUNK_CLASSES.isdisjoint(tokens):
            return True
        if (tag in ("sup", "span")) and not _CITATION_SUP_CLASSES.isdisjoint(tokens):
            return True
    if tag == "sup":
        text = "".join(el.itertext())
        if _BRACKET_MARKER.match(text):
            return True
    return False


# -- visible text --------------------------------------------------------------------------

_WS = re.compile(r"\s+")


def _visible_pieces(el: HtmlElement) -> Iterator[str]:
    if el.text:
        yield el.text
    for child in el:
        if isinstance(child.tag, str) and not _is_junk(child):
            if child.tag in _BLOCK_TAGS or child.tag == "br":
                yield " "
            yield from _visible_pieces(child)
            if child.tag in _BLOCK_TAGS:
                yield " "
        if child.tail:
            yield child.tail


def visible_text(node: HtmlElement) -> str:
    """Whitespace-normalised visible text of ``node`` (junk skipped), for snippets and sizes."""
    if not isinstance(node.tag, str) or _is_junk(node):
        return ""
    return _WS.sub(" ", "".join(_visible_pieces(node))).strip()


# -- Markdown rendering ----------------------------------------------------------------------

_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr",
        "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "menu", "dir", "legend",
    }
)  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CODE_INLINE_TAGS = frozenset({"code", "kbd", "samp", "tt", "var"})
_STRONG_TAGS = frozenset({"b", "strong"})
_EM_TAGS = frozenset({"i", "em", "dfn"})
_STRIKE_TAGS = frozenset({"s", "del", "strike"})
_ADMONITION_CLASSES = {
    "note": "Note",
    "_note": "Note",
    "warning": "Warning",
    "_warning": "Warning",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "caution": "Caution",
    "danger": "Danger",
    "attention": "Attention",
    "error": "Error",
    "seealso": "See also",
    "deprecated": "Deprecated",
    "versionadded": "New",
    "versionchanged": "Changed",
}
_ADMONITION_TAGS = frozenset({"div", "aside", "section", "blockquote", "p"})
_FIGURE_CAPTION_CLASSES = frozenset({"thumbcaption", "gallerytext"})
_FIGURE_CLASSES = frozenset({"thumb", "gallerybox", "thumbinner"})
_LANG_CLASS = re.compile(
    r"^(?:mw-highlight-lang-|lang-|language-|highlight-source-|source-|brush:)(?P<lang>[\w#+.-]+)$"
)
_LANG_OK = re.compile(r"^[\w#+.-]{1,30}$")
_DISPLAYSTYLE = re.compile(r"^\s*\{\\displaystyle\s*(?P<body>.*)\}\s*$", re.DOTALL)
_TEXSTYLE = re.compile(r"^\s*\{\\textstyle\s*(?P<body>.*)\}\s*$", re.DOTALL)
_TEX_IN_TEXT = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)",
    re.DOTALL,
)

# Private-use characters mark protected inline pieces (code, math) and forced breaks
# while an inline run is assembled; any occurrence in the source text is removed.
_OPEN, _CLOSE, _BR = "\ue000", "\ue001", "\ue002"
_PRIVATE = re.compile("[\ue000-\ue002]")
_TOKEN = re.compile("\ue000(\\d+)\ue001")
_SPACES = re.compile(r"[ \t\r\n\f\v\xa0\u2028\u2029]+")
_MULTI_SPACE = re.compile(r" {2,}")
_ESCAPE_INLINE = re.compile(r"\\(?=[!-/:-@\[-`{-~])|`|<(?=[A-Za-z/!?])|\*|_")
_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[-+*](?=\s)|=+\s*$|(\d{1,9})([.)])(?=\s))")
_LIST_MARKER = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CELL_PUNCTUATION_JOIN = re.compile(r"([,;:])\s*;\s")
_LEADING_INT = re.compile(r"\s*(\d+)")
_SUP_PLAIN = re.compile(r"^[0-9+\-−–⁄/.,()nNiIxX]+$")


def to_markdown(node: HtmlElement, *, tex: bool = False) -> str:
    """Clean Markdown for ``node``'s subtree (the node itself included).

    ``tex=True`` (Stack Exchange math sites) keeps raw TeX delimited by ``$``, ``$$``,
    ``\\(...\\)`` or ``\\[...\\]`` in text exactly as written.
    """
    renderer = _Renderer(tex=tex)
    blocks = renderer.blocks_of(node) if _is_container(node) else renderer.element_blocks(node)
    return _normalise("\n\n".join(blocks))


def _is_container(node: HtmlElement) -> bool:
    return isinstance(node.tag, str) and node.tag in (
        "html",
        "body",
        "div",
        "section",
        "main",
        "article",
        "details",
        "td",
        "th",
        "li",
        "dd",
        "figure",
        "aside",
        "header",
        "footer",
        "nav",
        "center",
    )


def _normalise(text: str) -> str:
    """Strip trailing spaces; collapse blank-line runs outside code fences; strip."""
    out: list[str] = []
    fence: str | None = None
    blank = False
    for raw in text.split("\n"):
        line = raw.rstrip()
        match = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and line.strip() == match.group(1)
            ):
                fence = None
            continue
        if match:
            fence = match.group(1)
        if not line:
            if not blank and out:
                out.append("")
            blank = True
            continue
        blank = False
        out.append(line)
    return "\n".join(out).strip()


def _collapse_spaces(text: str) -> str:
    """Every whitespace run (as :data:`_SPACES` defines it) becomes one space.

    Most text nodes hold nothing to collapse, and saying so is much cheaper than running
    the regex: every character ``_SPACES`` matches except the plain space is
    non-printable, so printable text without a double space is already collapsed.
    """
    if text.isprintable() and "  " not in text:
        return text
    return _SPACES.sub(" ", text)


def _fence_for(content: str, char: str = "`") -> str:
    longest = max((len(m) for m in re.findall(re.escape(char) + "+", content)), default=0)
    return char * max(3, longest + 1)


def _clean_tex(tex: str) -> str:
    tex = tex.strip()
    for pattern in (_DISPLAYSTYLE, _TEXSTYLE):
        match = pattern.match(tex)
        if match:
            tex = match.group("body").strip()
    return _collapse_spaces(tex).strip()


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


def _indent(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [(rest + line) if line else "" for line in lines[1:]])


class _Renderer:
    """One conversion: holds protected inline pieces until their run is finished."""

    def __init__(self, *, tex: bool) -> None:
        self.tex = tex
        self.protected: list[str] = []
        self.in_cell = 0

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
            raw = _PRIVATE.sub("", raw)
        if not self.tex:
            return _escape_text(_collapse_spaces(raw))
        out: list[str] = []
        pos = 0
        for match in _TEX_IN_TEXT.finditer(raw):
            out.append(_escape_text(_collapse_spaces(raw[pos : match.start()])))
            out.append(self.protect(match.group(0)))
            pos = match.end()
        out.append(_escape_text(_collapse_spaces(raw[pos:])))
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

    # -- block walk --------------------------------------------------------------------

    def blocks_of(self, el: HtmlElement, skip: HtmlElement | None = None) -> list[str]:
        """The Markdown blocks of ``el``'s children (text and inline runs become paragraphs)."""
        # lxml builds a new string on every ``.tag`` / ``.text`` / ``.tail`` read: this
        # loop and inline_children's run for every element, so each is read once.
        blocks: list[str] = []
        parts: list[str] = []
        if text := el.text:
            parts.append(self.text(text))
        for child in el:
            tag = child.tag
            if child is skip:
                pass
            elif isinstance(tag, str) and not _is_junk(child):
                if tag in _BLOCK_TAGS or self.is_block_image(child):
                    if parts:
                        para = self.finish_run(parts)
                        if para:
                            blocks.append(para)
                        parts = []
                    blocks.extend(self.checked_element_blocks(child, tag))
                else:
                    parts.append(self.inline(child))
            if tail := child.tail:
                parts.append(self.text(tail))
        if parts:
            para = self.finish_run(parts)
            if para:
                blocks.append(para)
        return blocks

    def is_block_image(self, el: HtmlElement) -> bool:
        value = el.get("class") if el.tag == "span" else None  # no frozenset: runs per child
        return value is not None and not _FIGURE_CLASSES.isdisjoint(value.split())

    def element_blocks(self, el: HtmlElement) -> list[str]:
        tag = el.tag
        if not isinstance(tag, str) or _is_junk(el):
            return []
        return self.checked_element_blocks(el, tag)

    def checked_element_blocks(self, el: HtmlElement, tag: str) -> list[str]:
        """:meth:`element_blocks` for an element already known not to be junk."""
        handler = _BLOCK_HANDLERS.get(tag)
        if handler is not None:
            return handler(self, el)
        if tag in _HEADINGS:
            return self.heading(el)
        if tag not in _BLOCK_TAGS:
            para = self.finish_run([self.inline(el)])
            return [para] if para else []
        return self.container(el)

    def container(self, el: HtmlElement) -> list[str]:
        tokens = classes(el)
        if tokens:
            if not _FIGURE_CLASSES.isdisjoint(tokens):
                return self.figure(el)
            label = self.admonition_label(el, tokens)
            if label is not None:
                return self.admonition(el, label)
            if any(t.startswith(("mw-highlight-lang-", "highlight-")) for t in tokens):
                pre = el.find(".//pre")
                if pre is not None:
                    return self.pre(pre)
        return self.blocks_of(el)

    def admonition_label(self, el: HtmlElement, tokens: frozenset[str]) -> str | None:
        if el.tag not in _ADMONITION_TAGS or el.tag == "p":
            return None
        for token in sorted(tokens):
            if token in _ADMONITION_CLASSES:
                return _ADMONITION_CLASSES[token]
        if "admonition" in tokens:
            return "Note"
        return None

    def admonition(self, el: HtmlElement, label: str) -> list[str]:
        title_el = None
        for child in el:
            if isinstance(child.tag, str) and has_class(child, "admonition-title"):
                title_el = child
                break
        if title_el is not None:
            title = self.plain_inline(title_el).rstrip(":").strip()
            label = title or label
        blocks = self.blocks_of(el, skip=title_el)
        if not blocks:
            return []
        body = "\n\n".join(blocks)
        if body.lower().startswith(label.lower() + ":"):
            body = body[len(label) + 1 :].lstrip()
        body = f"**{label}:** {body}" if not _FENCE.match(body) else f"**{label}:**\n\n{body}"
        return [_quote(body)]

    def heading(self, el: HtmlElement) -> list[str]:
        text = self.plain_inline(el).replace("\n", " ")
        if not text:
            return []
        if self.in_cell:
            return [f"**{text}**"]
        return ["#" * _HEADINGS[el.tag] + " " + text]

    def paragraph(self, el: HtmlElement) -> list[str]:
        return self.blocks_of(el)

    def summary(self, el: HtmlElement) -> list[str]:
        text = self.plain_inline(el)
        return [f"**{text}**"] if text else []

    def hr(self, el: HtmlElement) -> list[str]:
        return [] if self.in_cell else ["---"]

    def blockquote(self, el: HtmlElement) -> list[str]:
        tokens = classes(el)
        label = self.admonition_label(el, tokens) if tokens else None
        if label is not None:
            return self.admonition(el, label)
        blocks = self.blocks_of(el)
        if not blocks:
            return []
        if self.in_cell:
            return blocks
        return [_quote("\n\n".join(blocks))]

    def figure(self, el: HtmlElement) -> list[str]:
        caption = None
        for sub in el.iter("figcaption", "div", "span", "p"):
            if sub.tag == "figcaption" or not _FIGURE_CAPTION_CLASSES.isdisjoint(classes(sub)):
                caption = sub
                break
        text = ""
        if caption is not None and not _is_junk(caption):
            text = " ".join(self.blocks_of(caption)).replace("\n", " ").strip()
        if not text:
            alts = [
                img.get("alt", "").strip()
                for img in el.iter("img")
                if not _is_junk(img) and img.get("alt", "").strip()
            ]
            text = self.text(" ".join(alts)).strip() if alts else ""
        return [f"Image: {text}"] if text else []

    # -- lists ---------------------------------------------------------------------------

    def list_blocks(self, el: HtmlElement) -> list[str]:
        ordered = el.tag == "ol"
        try:
            number = int(el.get("start", "1"))
        except ValueError:
            number = 1
        items: list[str] = []
        for child in el:
            if not isinstance(child.tag, str) or _is_junk(child):
                continue
            if child.tag != "li":
                items.extend(self.element_blocks(child))
                continue
            blocks = self.blocks_of(child)
            if not blocks:
                continue
            if self.in_cell:
                items.append(" ".join(b.replace("\n", " ") for b in blocks))
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            joiner = "\n" if all(_LIST_MARKER.match(b) for b in blocks[1:]) else "\n\n"
            items.append(_indent(joiner.join(blocks), marker, " " * len(marker)))
        if not items:
            return []
        if self.in_cell:
            return ["; ".join(items)]
        return ["\n".join(items)]

    def definition_list(self, el: HtmlElement) -> list[str]:
        groups: list[str] = []
        current: list[str] = []
        for child in el:
            if not isinstance(child.tag, str) or _is_junk(child):
                continue
            if child.tag == "dt":
                if current:
                    groups.append("\n".join(current))
                    current = []
                term = self.plain_inline(child)
                if term:
                    current.append(f"**{term}**")
            elif child.tag == "dd":
                blocks = self.blocks_of(child)
                if blocks:
                    if current and current[-1].startswith("**") and len(current) == 1:
                        current.append("\n\n".join(blocks))
                    else:
                        if current:
                            groups.append("\n".join(current))
                        current = ["\n\n".join(blocks)]
            else:
                blocks = self.element_blocks(child)
                if blocks:
                    if current:
                        groups.append("\n".join(current))
                        current = []
                    groups.extend(blocks)
        if current:
            groups.append("\n".join(current))
        if self.in_cell:
            return [" ".join(g.replace("\n", " ") for g in groups)] if groups else []
        return groups

    # -- code and math --------------------------------------------------------------------

    def pre(self, el: HtmlElement) -> list[str]:
        code = _PRIVATE.sub("", _pre_text(el))
        code = "\n".join(line.rstrip() for line in code.split("\n")).strip("\n")
        if not code.strip():
            return []
        if self.in_cell:
            return [self.expand(self.code_span(_collapse_spaces(code).strip()))]
        language = _code_language(el)
        fence = _fence_for(code)
        return [f"{fence}{language}\n{code}\n{fence}"]

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

    # -- tables ----------------------------------------------------------------------------

    def table(self, el: HtmlElement) -> list[str]:
        rows = self.table_rows(el)
        caption_el = el.find("caption")
        caption = self.plain_inline(caption_el) if caption_el is not None else ""
        rows = [row for row in rows if any(cell.text for cell in row)]
        if not rows:
            return [f"**{caption}**"] if caption else []
        width = max(sum(cell.span for cell in row) for row in rows)
        if width == 1 or self.in_cell:
            texts = [cell.text for row in rows for cell in row if cell.text]
            body = [f"**{caption}**"] if caption else []
            if self.in_cell:
                return [" ".join(body + texts)]
            return body + [self.cell_blocks_text(t) for t in texts]
        if _is_key_value(rows, el):
            return [_key_value_list(rows, caption)]
        return [_markdown_table(rows, width, caption)]

    def cell_blocks_text(self, text: str) -> str:
        return text.replace(" \\| ", " | ").replace("\\|", "|")

    def table_rows(self, table: HtmlElement) -> list[list[_Cell]]:
        rows: list[list[_Cell]] = []
        pending: dict[int, tuple[str, int, bool]] = {}
        for tr in _table_tr(table):
            if _is_junk(tr):
                continue
            row: list[_Cell] = []
            col = 0
            cells = [c for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]
            cell_iter = iter(cells)
            while True:
                if col in pending:
                    text, left, header = pending[col]
                    row.append(_Cell(text, 1, header))
                    if left <= 1:
                        del pending[col]
                    else:
                        pending[col] = (text, left - 1, header)
                    col += 1
                    continue
                cell = next(cell_iter, None)
                if cell is None:
                    break
                if _is_junk(cell):
                    continue
                text = self.cell_text(cell)
                span = _int_attr(cell, "colspan", 1, 50)
                rowspan = _int_attr(cell, "rowspan", 1, 500)
                header = cell.tag == "th"
                row.append(_Cell(text, span, header))
                if rowspan > 1:
                    for offset in range(span):
                        pending[col + offset] = (text if offset == 0 else "", rowspan - 1, header)
                col += span
            if pending and not cells:
                pending.clear()
            rows.append(row)
        return rows

    def cell_text(self, cell: HtmlElement) -> str:
        self.in_cell += 1
        try:
            blocks = self.blocks_of(cell)
        finally:
            self.in_cell -= 1
        text = "; ".join(b.replace("\n", "; ") for b in blocks)
        if ";" in text:
            text = _CELL_PUNCTUATION_JOIN.sub(r"\1 ", text)
        return text.replace("|", "\\|").strip()

    # -- inline ----------------------------------------------------------------------------

    def inline_children(self, el: HtmlElement) -> str:
        parts: list[str] = []
        if text := el.text:
            parts.append(self.text(text))
        for child in el:
            if isinstance(child.tag, str) and not _is_junk(child):
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
        if tag == "br":
            return _BR if not self.in_cell else "; "
        if tag in _CODE_INLINE_TAGS:
            if tag == "var" and el.getparent() is not None and el.getparent().tag != "pre":
                return self.emphasis(el, "*")
            return self.code_span(
                _collapse_spaces(_PRIVATE.sub("", "".join(el.itertext()))).strip()
            )
        if tag in _STRONG_TAGS:
            return self.emphasis(el, "**")
        if tag in _EM_TAGS:
            return self.emphasis(el, "*")
        if tag in _STRIKE_TAGS:
            return self.emphasis(el, "~~")
        if tag == "sup":
            return self.superscript(el)
        if tag in _BLOCK_TAGS or tag == "pre":
            blocks = self.element_blocks(el)
            return " " + " ".join(b.replace("\n", " ") for b in blocks) + " " if blocks else " "
        return self.inline_children(el)

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


_BLOCK_HANDLERS: dict[str, Callable[[_Renderer, HtmlElement], list[str]]] = {
    "p": _Renderer.paragraph,
    "ul": _Renderer.list_blocks,
    "ol": _Renderer.list_blocks,
    "menu": _Renderer.list_blocks,
    "dir": _Renderer.list_blocks,
    "dl": _Renderer.definition_list,
    "pre": _Renderer.pre,
    "table": _Renderer.table,
    "blockquote": _Renderer.blockquote,
    "figure": _Renderer.figure,
    "hr": _Renderer.hr,
    "summary": _Renderer.summary,
    "caption": lambda _r, _e: [],
}


class _Cell:
    __slots__ = ("header", "span", "text")

    def __init__(self, text: str, span: int, header: bool) -> None:
        self.text = text
        self.span = span
        self.header = header


def _quote(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.split("\n"))


def _int_attr(el: HtmlElement, name: str, default: int, cap: int) -> int:
    value = el.get(name)
    if not value:
        return default
    digits = _LEADING_INT.match(value)
    if not digits:
        return default
    return max(1, min(cap, int(digits.group(1))))


def _table_tr(table: HtmlElement) -> Iterable[HtmlElement]:
    for child in table:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            for tr in child:
                if isinstance(tr.tag, str) and tr.tag == "tr":
                    yield tr


def _is_key_value(rows: list[list[_Cell]], table: HtmlElement) -> bool:
    """Infoboxes and other two-column label/value tables read best as a compact list."""
    tokens = classes(table)
    if any(t.startswith("infobox") for t in tokens) or "vcard" in tokens:
        return True
    pairs = 0
    for row in rows:
        texts = [c for c in row if c.text]
        if len(texts) > 2:
            return False
        if len(texts) == 2:
            if not texts[0].header or texts[1].header:
                return False
            pairs += 1
    return pairs >= 2


def _key_value_list(rows: list[list[_Cell]], caption: str) -> str:
    lines: list[str] = [f"**{caption}**"] if caption else []
    for row in rows:
        texts = [c for c in row if c.text]
        if len(texts) >= 2 and texts[0].header:
            key = texts[0].text.replace("\\|", "|")
            values = "; ".join(c.text.replace("\\|", "|") for c in texts[1:])
            lines.append(f"- {key}: {values}")
        elif len(texts) == 1 and texts[0].header:
            label = texts[0].text.replace("\\|", "|")
            lines.extend([f"**{label}**"] if not lines else ["", f"**{label}**"])
        else:
            lines.append("- " + "; ".join(c.text.replace("\\|", "|") for c in texts))
    return "\n".join(lines)


def _markdown_table(rows: list[list[_Cell]], width: int, caption: str) -> str:
    grid: list[list[str]] = []
    for row in rows:
        line: list[str] = []
        for cell in row:
            line.append(cell.text)
            line.extend([""] * (cell.span - 1))
        line.extend([""] * (width - len(line)))
        grid.append(line[:width])
    header, body = grid[0], grid[1:]
    out = [f"**{caption}**", ""] if caption else []
    out.append(_table_row(header))
    out.append("|" + "|".join(["---"] * width) + "|")
    out.extend(_table_row(line) for line in body)
    return "\n".join(out)


def _table_row(cells: list[str]) -> str:
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def _pre_text(el: HtmlElement) -> str:
    """A ``pre``'s text with ``<br>`` as newlines and junk (line-number gutters) skipped."""
    parts: list[str] = []

    def walk(node: HtmlElement) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child.tag, str):
                if child.tag == "br":
                    parts.append("\n")
                elif not _is_junk(child) and not has_class(child, "linenos"):
                    walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return "".join(parts).replace("\r\n", "\n").replace("\r", "\n")


def _code_language(pre: HtmlElement) -> str:
    value = str(pre.get("data-language") or pre.get("data-lang") or "").strip()
    if value and _LANG_OK.match(value):
        return value.lower()
    candidates = [pre]
    code = pre.find("code")
    if code is not None:
        candidates.insert(0, code)
    parent = pre.getparent()
    while parent is not None and len(candidates) < 5:
        candidates.append(parent)
        parent = parent.getparent()
    for node in candidates:
        for token in sorted(classes(node)):
            match = _LANG_CLASS.match(token)
            if match:
                return match.group("lang").lower()
            if token.startswith("highlight-") and token not in ("highlight-default",):
                lang = token[len("highlight-") :]
                if _LANG_OK.match(lang) and lang not in ("source", "default"):
                    return lang.lower()
    return ""


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
