"""A subtree's text as search reads it: plain passages straight from lxml (no Markdown).

Search needs what a page says, by block (for its word statistics, passages, snippets and
section hints), not how it would be written: rendering Markdown is most of what reading
a page costs, and a cold search reads several. So a page read for search goes from the
tree to :class:`~corpus_mcp.document.Passage` blocks here, the text of each taken with
lxml's own text iteration (in C), and yields what
:func:`corpus_mcp.ranking.passages.passages` gives for the Markdown of the same subtree,
up to formatting: prose paragraphs, one list passage per list (items joined by ``; ``;
a list of ``Label: value`` items reads as a table), tables as ``cell, cell; cell,
cell``, code blocks, headings and display math left out, junk (citation marks, edit
links, hidden elements) skipped.

The page is the caller's to give up: :func:`prepare` takes junk and formulas out of it
first, once per page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml.html import HtmlElement

from corpus_mcp.cleaning.html import (
    BLOCK_TAGS,
    CITATION_SUP_CLASSES,
    DROP_TAGS,
    JUNK_CLASSES,
    classes,
    is_junk,
)
from corpus_mcp.document import LIST, PROSE, TABLE, Passage

__all__ = ["prepare", "to_passages"]

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_LISTS = frozenset({"ul", "ol", "menu", "dir"})
_SKIPPED = frozenset({"pre", "hr", "caption", "summary"}) | _HEADINGS
_FIGURES = frozenset({"thumb", "gallerybox", "thumbinner"})
_LABELLED = re.compile(r"^[^:;.]{1,40}:\s")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?)])")
_DROP_TAG = re.compile(
    rb"<(" + b"|".join(sorted(tag.encode() for tag in DROP_TAGS)) + rb")[\s/>]", re.IGNORECASE
)
_MATH = (
    ".//math | .//*[contains(@class, 'mwe-math-element') or contains(@class, 'katex')]"
    " | .//img[contains(@class, 'mwe-math-fallback-image')]"
)


def prepare(page: HtmlElement, html: bytes, *, tex: bool = False) -> None:
    """Make a page's tree ready for :func:`to_passages`, once per page: take out what the
    Markdown renderer would skip (junk, and formulas outside a math site: search leaves
    inline math out), and end every block and line break with a space, so that lxml's
    text iteration never glues the words of two blocks together.

    ``html`` is the page's bytes: only junk whose markers they hold is looked for (a
    tree-wide class test costs milliseconds, a byte scan microseconds).
    """
    present = {match.decode().lower() for match in _DROP_TAG.findall(html)}
    tests = [f".//{tag}" for tag in sorted(present)]
    if b"hidden" in html:
        tests.append(".//*[@hidden]")
    if b"none" in html:
        tests.append(".//*[contains(@style, 'none')]")
    tests += [
        f".//*[contains(@class, '{name}')]"
        for name in sorted(JUNK_CLASSES)
        if name.encode() in html
    ]
    if b"<sup" in html:
        tests.append(".//sup")
    if b"<span" in html:
        tests += [
            f".//span[contains(@class, '{name}')]"
            for name in sorted(CITATION_SUP_CLASSES)
            if name.encode() in html
        ]
    if tests:
        _drop(page, " | ".join(tests), junk_only=True)
    if not tex and (b"math" in html or b"katex" in html):
        _drop(page, _MATH, junk_only=False)
    for el in page.iter(*BLOCK_TAGS, "br"):
        el.tail = " " + el.tail if el.tail else " "


def to_passages(node: HtmlElement) -> tuple[Passage, ...]:
    """The passages of ``node``'s subtree (see the module docstring), from a page
    :func:`prepare` made ready."""
    return tuple(_passages(node))


def _drop(page: HtmlElement, xpath: str, *, junk_only: bool) -> None:
    found = page.xpath(xpath)
    for el in found if isinstance(found, list) else ():
        if not isinstance(el, HtmlElement) or el.getparent() is None:
            continue
        if not junk_only or is_junk(el):
            el.drop_tree()


def _passages(el: HtmlElement) -> Iterator[Passage]:
    """The block walk: runs of inline content are prose; block children are read by
    their kind."""
    run: list[str] = [el.text or ""]
    for child in el:
        tag = child.tag
        if not isinstance(tag, str):
            run.append(child.tail or "")
            continue
        if tag in BLOCK_TAGS or tag == "pre" or _is_figure(child):
            yield from _prose(run)
            run = []
            yield from _block(child, tag)
        else:
            run.append(_raw_text(child))
        run.append(child.tail or "")
    yield from _prose(run)


def _block(el: HtmlElement, tag: str) -> Iterator[Passage]:
    if tag in _SKIPPED:
        return
    if _is_figure(el):
        caption = _text(el)
        if caption:
            yield Passage(PROSE, f"Image: {caption}")
        return
    if tag in _LISTS:
        yield from _list(el)
    elif tag == "table":
        yield from _table(el)
    elif tag == "dl":
        for child in el:
            if isinstance(child.tag, str):
                if child.tag == "dt":
                    yield from _prose([_raw_text(child)])
                else:
                    yield from _passages(child)
    else:
        yield from _passages(el)


def _list(el: HtmlElement) -> Iterator[Passage]:
    items = [text for text in (_text(li) for li in el if li.tag == "li") if text]
    if not items:
        return
    labelled = sum(bool(_LABELLED.match(item)) for item in items)
    kind = TABLE if labelled * 2 > len(items) else LIST
    yield Passage(kind, "; ".join(item.rstrip(";") for item in items))


def _table(el: HtmlElement) -> Iterator[Passage]:
    grid: list[list[tuple[str, bool]]] = []
    for tr in el.iter("tr"):
        cells = [
            (_text(c), c.tag == "th")
            for c in tr
            if isinstance(c.tag, str) and c.tag in ("td", "th")
        ]
        cells = [cell for cell in cells if cell[0]]
        if cells:
            grid.append(cells)
    if _key_value(grid, el):
        # Infoboxes and label/value tables read as "Label: value" (the renderer's list).
        rows = [
            f"{cells[0][0]}: {'; '.join(text for text, _ in cells[1:])}"
            if len(cells) >= 2 and cells[0][1]
            else "; ".join(text for text, _ in cells)
            for cells in grid
        ]
        yield Passage(TABLE, "; ".join(rows))
        return
    rows = [", ".join(text for text, _ in cells) for cells in grid]
    if len(rows) == 1 or all("," not in row for row in rows):
        # A one-row or one-column table reads as its cells (the renderer's blocks).
        for row in rows:
            yield Passage(PROSE, row)
    elif rows:
        yield Passage(TABLE, "; ".join(rows))


def _key_value(grid: list[list[tuple[str, bool]]], table: HtmlElement) -> bool:
    """As the renderer tells them (``tables.is_key_value``): an infobox, or two or more
    rows of a header cell and one value, and no wider row."""
    tokens = classes(table)
    if any(t.startswith("infobox") for t in tokens) or "vcard" in tokens:
        return True
    pairs = 0
    for cells in grid:
        if len(cells) > 2:
            return False
        if len(cells) == 2:
            if not cells[0][1] or cells[1][1]:
                return False
            pairs += 1
    return pairs >= 2


def _prose(run: list[str]) -> Iterator[Passage]:
    text = _clean("".join(run))
    if text:
        yield Passage(PROSE, text)


def _text(el: HtmlElement) -> str:
    return _clean(_raw_text(el))


def _raw_text(el: HtmlElement) -> str:
    """The element's text, in C (:func:`prepare` put a space after every block)."""
    return "".join(el.itertext())


def _clean(text: str) -> str:
    text = " ".join(text.split())
    if " " in text and any(mark in text for mark in ",.;:!?)"):
        text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    return text


def _is_figure(el: HtmlElement) -> bool:
    tag = el.tag
    if tag == "figure":
        return True
    return tag in ("div", "span") and not _FIGURES.isdisjoint(classes(el))
