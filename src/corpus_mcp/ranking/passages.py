"""Markdown to plain text: a section's content as prose, list and table passages.

Snippets and section hints compare the query with these passages; nothing here knows
about queries.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from corpus_mcp.document import LIST, PROSE, TABLE, Passage

__all__ = ["LIST", "PROSE", "TABLE", "Passage", "flatten_inline", "passages"]

# -- Markdown to plain text -------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_LINE = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^[\s|:\-+]+$")
_LABELLED_ITEM = re.compile(r"^\s*[-*+]\s+[^:;.]{1,40}:\s")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])")
# TeX as a math site writes it (the same delimiters the cleaner keeps verbatim).
_TEX_SPAN = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)",
    re.DOTALL,
)
_IMAGE = re.compile(r"!\[[^\]]*\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_CITATION = re.compile(r"\[(?:\d+|[a-z]|[a-z]?\s?\d+|note \d+|nb \d+|citation needed)\]", re.I)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"(?<!\\)\*\*(?=\S)(.+?)(?<=\S)(?<!\\)\*\*")
_EMPHASIS = re.compile(r"(?<![\\\w*])\*(?=\S)(.+?)(?<=\S)(?<!\\)\*(?![\w*])")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# A bare web address, which the Markdown writes as an autolink: its text is the address.
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+)>")
_CODE_OPEN, _CODE_CLOSE = "\ue000", "\ue001"
_STASHED = re.compile(f"{_CODE_OPEN}(\\d+){_CODE_CLOSE}")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?)])")
_EMPTY_PARENTHESES = re.compile(r"\(\s*\)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~$<])")


def flatten_inline(
    markdown: str, keep_math: Callable[[str], bool] = lambda _: False, *, tex: bool = False
) -> str:
    """One line of Markdown as plain text: links to their text, images, citation marks,
    HTML tags and emphasis markers gone, code spans unwrapped (their text untouched),
    escapes undone. Inline ``$...$`` math is dropped unless ``keep_math`` accepts its TeX;
    with ``tex`` every formula stays verbatim, delimiters included."""
    codes: list[str] = []

    def stash(match: re.Match[str]) -> str:
        codes.append(match.group(2).strip())
        return f"{_CODE_OPEN}{len(codes) - 1}{_CODE_CLOSE}"

    def stash_tex(match: re.Match[str]) -> str:
        codes.append(match.group(0))
        return f"{_CODE_OPEN}{len(codes) - 1}{_CODE_CLOSE}"

    # Each rewrite runs only where its marker occurs: most lines carry few of them, and
    # search flattens every line of every document it reads.
    text = _CODE_SPAN.sub(stash, markdown) if "`" in markdown else markdown
    if tex and ("$" in text or "\\" in text):
        text = _TEX_SPAN.sub(stash_tex, text)
    if "[" in text:
        text = _IMAGE.sub("", text) if "![" in text else text
        text = _LINK.sub(r"\1", text) if "](" in text else text
        text = _REF_LINK.sub(r"\1", text) if "][" in text else text
        text = _CITATION.sub("", text)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text) if "://" in text else text
        text = _HTML_TAG.sub("", text)
    if "$" in text:
        text = _INLINE_MATH.sub(lambda m: m.group(1) if keep_math(m.group(1)) else "", text)
    if "*" in text:
        text = _STRONG.sub(r"\1", text)
        text = _EMPHASIS.sub(r"\1", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(text.split()))
    if "(" in text:
        text = _EMPTY_PARENTHESES.sub("", text)
    text = text.strip()
    return _STASHED.sub(lambda m: codes[int(m.group(1))], text) if codes else text


def passages(
    markdown: str, keep_math: Callable[[str], bool] | None = None, *, tex: bool = False
) -> tuple[Passage, ...]:
    """The blocks of a section's Markdown as plain-text passages.

    Code fences, display math, headings and rules are left out (never snippet
    material); tables become ``cell, cell; cell, cell`` without pipes; list items become
    one list passage per block. Inline ``$...$`` math is dropped unless ``keep_math``
    accepts it. ``tex`` marks a document whose formulas are its content (a math Q&A
    site): every formula stays, display math included, delimiters and all. Without
    ``keep_math`` (or without any ``$``) the result is memoised, since cached documents
    are scored again on every search.
    """
    if "$" not in markdown or (keep_math is None and not tex):
        return _plain_passages(markdown)
    if tex:
        return _tex_passages(markdown)
    assert keep_math is not None
    return _passages(markdown, keep_math)


@functools.lru_cache(maxsize=4096)
def _plain_passages(markdown: str) -> tuple[Passage, ...]:
    return _passages(markdown, lambda _: False)


@functools.lru_cache(maxsize=1024)
def _tex_passages(markdown: str) -> tuple[Passage, ...]:
    return _passages(markdown, lambda _: True, tex=True)


def _passages(
    markdown: str, keep_math: Callable[[str], bool], *, tex: bool = False
) -> tuple[Passage, ...]:
    out: list[Passage] = []

    def flat(line: str) -> str:
        return flatten_inline(line, keep_math, tex=tex)

    for block in _blocks(markdown if tex else _DISPLAY_MATH.sub("\n\n", markdown)):
        lines = [line for line in block if not _HEADING.match(line) and not _RULE.match(line)]
        if not lines:
            continue
        if sum(bool(_TABLE_LINE.match(line)) for line in lines) * 2 >= len(lines):
            text = _flatten_table(lines, flat)
            kind = TABLE
        elif sum(bool(_LIST_ITEM.match(line)) for line in lines) * 2 >= len(lines):
            items = (flat(_LIST_ITEM.sub("", line)) for line in lines)
            text = "; ".join(item.rstrip(";") for item in items if item)
            # "- Born: ..." lists are infoboxes and other key/value tables, rendered as
            # lists by the cleaner: they read like tables, not like prose.
            labelled = sum(bool(_LABELLED_ITEM.match(line)) for line in lines)
            kind = TABLE if labelled * 2 > len(lines) else LIST
        else:
            text = flat(" ".join(_QUOTE.sub("", line) for line in lines))
            kind = PROSE
        if text:
            out.append(Passage(kind, text))
    return tuple(out)


def _blocks(markdown: str) -> list[list[str]]:
    """Blank-line separated blocks, fenced code blocks dropped whole."""
    blocks: list[list[str]] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1) == fence:
                fence = None
            continue
        if opener:
            fence = opener.group(1)
        if opener or not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        current.append(line)
    if current:
        blocks.append(current)
    return blocks


def _flatten_table(lines: Sequence[str], flat: Callable[[str], str]) -> str:
    rows: list[str] = []
    for line in lines:
        if _TABLE_RULE.match(line):
            continue
        cells = [flat(cell) for cell in line.strip().strip("|").split("|")]
        row = ", ".join(cell for cell in cells if cell)
        if row:
            rows.append(row)
    return "; ".join(rows)
