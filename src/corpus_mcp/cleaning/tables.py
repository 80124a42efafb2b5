"""Table layout: rows and spans into cells, then a pipe table or a key/value list."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml.html import HtmlElement

from corpus_mcp.cleaning.html import classes

__all__ = ["Cell", "int_attr", "is_key_value", "key_value_list", "markdown_table", "table_tr"]

_LEADING_INT = re.compile(r"\s*(\d+)")


class Cell:
    __slots__ = ("header", "span", "text")

    def __init__(self, text: str, span: int, header: bool) -> None:
        self.text = text
        self.span = span
        self.header = header


def int_attr(el: HtmlElement, name: str, default: int, cap: int) -> int:
    value = el.get(name)
    if not value:
        return default
    digits = _LEADING_INT.match(value)
    if not digits:
        return default
    return max(1, min(cap, int(digits.group(1))))


def table_tr(table: HtmlElement) -> Iterable[HtmlElement]:
    for child in table:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            for tr in child:
                if isinstance(tr.tag, str) and tr.tag == "tr":
                    yield tr


def is_key_value(rows: list[list[Cell]], table: HtmlElement) -> bool:
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


def key_value_list(rows: list[list[Cell]], caption: str) -> str:
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


def markdown_table(rows: list[list[Cell]], width: int, caption: str) -> str:
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
