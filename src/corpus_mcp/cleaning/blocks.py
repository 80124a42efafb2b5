"""Block Markdown: paragraphs, headings, lists, tables, definition lists, quotes,
admonitions, code blocks, figures, and :func:`to_markdown`, which ties them together."""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml.html import HtmlElement

from corpus_mcp.cleaning.code import code_language, fence_for, pre_text
from corpus_mcp.cleaning.html import BLOCK_TAGS, classes, has_class, is_junk
from corpus_mcp.cleaning.inline import PRIVATE_USE, InlineRenderer, LinkTarget, collapse_spaces
from corpus_mcp.cleaning.tables import (
    Cell,
    int_attr,
    is_key_value,
    key_value_list,
    markdown_table,
    table_tr,
)

__all__ = ["to_markdown"]

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
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
_LIST_MARKER = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CELL_PUNCTUATION_JOIN = re.compile(r"([,;:])\s*;\s")


def to_markdown(
    node: HtmlElement,
    *,
    tex: bool = False,
    links: LinkTarget | None = None,
    below_level: int = 0,
) -> str:
    """Clean Markdown for ``node``'s subtree (the node itself included).

    ``tex=True`` (Stack Exchange math sites) keeps raw TeX delimited by ``$``, ``$$``,
    ``\\(...\\)`` or ``\\[...\\]`` in text exactly as written. ``links`` says where each
    link leads (see :data:`~corpus_mcp.cleaning.inline.LinkTarget`); without it links keep
    their text only. ``below_level`` is the level of the section the subtree belongs
    to: its own headings (a post's ``<h2>``) are moved below it, keeping their order.
    """
    renderer = Renderer(tex=tex, links=links, heading_shift=_heading_shift(node, below_level))
    blocks = renderer.blocks_of(node) if _is_container(node) else renderer.element_blocks(node)
    return _normalise("\n\n".join(blocks))


def _heading_shift(node: HtmlElement, below_level: int) -> int:
    """How many levels the subtree's headings move down so that the highest is
    ``below_level + 1`` (0 when they already are below it)."""
    if below_level <= 0:
        return 0
    levels = [_HEADINGS[el.tag] for el in node.iter(*_HEADINGS) if isinstance(el.tag, str)]
    return max(0, below_level + 1 - min(levels)) if levels else 0


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


def _indent(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [(rest + line) if line else "" for line in lines[1:]])


class Renderer(InlineRenderer):
    """One conversion, block side: walks containers and renders each block element."""

    def __init__(
        self, *, tex: bool, links: LinkTarget | None = None, heading_shift: int = 0
    ) -> None:
        super().__init__(tex=tex, links=links)
        self.heading_shift = heading_shift

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
            elif isinstance(tag, str) and not is_junk(child):
                if tag in BLOCK_TAGS or self.is_block_image(child):
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
        if not isinstance(tag, str) or is_junk(el):
            return []
        return self.checked_element_blocks(el, tag)

    def checked_element_blocks(self, el: HtmlElement, tag: str) -> list[str]:
        """:meth:`element_blocks` for an element already known not to be junk."""
        handler = _BLOCK_HANDLERS.get(tag)
        if handler is not None:
            return handler(self, el)
        if tag in _HEADINGS:
            return self.heading(el)
        if tag not in BLOCK_TAGS:
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
        return ["#" * min(6, _HEADINGS[el.tag] + self.heading_shift) + " " + text]

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
        if caption is not None and not is_junk(caption):
            text = " ".join(self.blocks_of(caption)).replace("\n", " ").strip()
        if not text:
            alts = [
                img.get("alt", "").strip()
                for img in el.iter("img")
                if not is_junk(img) and img.get("alt", "").strip()
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
            if not isinstance(child.tag, str) or is_junk(child):
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
            if not isinstance(child.tag, str) or is_junk(child):
                continue
            if child.tag == "dt":
                # Consecutive terms (an option's short and long forms) share their entry.
                if current and not all(line.startswith("**") for line in current):
                    groups.append("\n".join(current))
                    current = []
                term = self.plain_inline(child)
                if term:
                    current.append(f"**{term}**")
            elif child.tag == "dd":
                blocks = self.blocks_of(child)
                if blocks:
                    if current and all(line.startswith("**") for line in current):
                        # The terms stay lines of their own, the description a paragraph.
                        current[-1] += "\n"
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

    # -- code blocks ----------------------------------------------------------------------

    def pre(self, el: HtmlElement) -> list[str]:
        code = PRIVATE_USE.sub("", pre_text(el))
        code = "\n".join(line.rstrip() for line in code.split("\n")).strip("\n")
        if not code.strip():
            return []
        if self.in_cell:
            return [self.expand(self.code_span(collapse_spaces(code).strip()))]
        language = code_language(el)
        fence = fence_for(code)
        return [f"{fence}{language}\n{code}\n{fence}"]

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
        if is_key_value(rows, el):
            return [key_value_list(rows, caption)]
        return [markdown_table(rows, width, caption)]

    def cell_blocks_text(self, text: str) -> str:
        return text.replace(" \\| ", " | ").replace("\\|", "|")

    def table_rows(self, table: HtmlElement) -> list[list[Cell]]:
        rows: list[list[Cell]] = []
        pending: dict[int, tuple[str, int, bool]] = {}
        for tr in table_tr(table):
            if is_junk(tr):
                continue
            row: list[Cell] = []
            col = 0
            cells = [c for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]
            cell_iter = iter(cells)
            while True:
                if col in pending:
                    text, left, header = pending[col]
                    row.append(Cell(text, 1, header))
                    if left <= 1:
                        del pending[col]
                    else:
                        pending[col] = (text, left - 1, header)
                    col += 1
                    continue
                cell = next(cell_iter, None)
                if cell is None:
                    break
                if is_junk(cell):
                    continue
                text = self.cell_text(cell)
                span = int_attr(cell, "colspan", 1, 50)
                rowspan = int_attr(cell, "rowspan", 1, 500)
                header = cell.tag == "th"
                row.append(Cell(text, span, header))
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


_BLOCK_HANDLERS: dict[str, Callable[[Renderer, HtmlElement], list[str]]] = {
    "p": Renderer.paragraph,
    "ul": Renderer.list_blocks,
    "ol": Renderer.list_blocks,
    "menu": Renderer.list_blocks,
    "dir": Renderer.list_blocks,
    "dl": Renderer.definition_list,
    "pre": Renderer.pre,
    "table": Renderer.table,
    "blockquote": Renderer.blockquote,
    "figure": Renderer.figure,
    "hr": Renderer.hr,
    "summary": Renderer.summary,
    "caption": lambda _r, _e: [],
}


def _quote(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.split("\n"))
