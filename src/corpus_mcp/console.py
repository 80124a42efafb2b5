"""Plain-text output of the terminal commands: tables, sizes and progress on stderr."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from typing import TextIO


def human_size(size: int) -> str:
    """Bytes in decimal units with one decimal, as operators read disk sizes: ``2.1 MB``."""
    if size < 1000:
        return f"{size} B"
    value = size / 1000
    for unit in ("kB", "MB", "GB"):
        if round(value, 1) < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain text columns, left-aligned and padded to the widest cell, one row a line."""
    widths = [len(header) for header in headers]
    for row in rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))

    separator = ["-" * width for width in widths]
    return "\n".join(line(cells).rstrip() for cells in (headers, separator, *rows))


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for a table column."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


PROGRESS_INTERVAL_SECONDS = 5.0
"""Off a terminal, at most one progress line this often (a short job prints none)."""


class Progress:
    """Progress of a loop over slow items, on stderr and never on stdout.

    On a terminal, one live line rewritten in place and cleared at the end. Elsewhere
    (a log file, CI), a plain line at most every :data:`PROGRESS_INTERVAL_SECONDS`, so
    logs stay readable and a quick job prints nothing.
    """

    def __init__(self, stream: TextIO, label: str, total: int) -> None:
        self.stream = stream
        self.label = label
        self.total = total
        self.live = stream.isatty()
        self._last_line = time.monotonic()
        self._width = 0

    def step(self, done: int, item: str) -> None:
        """``done`` items finished so far; ``item`` is the one being worked on now."""
        text = f"{self.label} {done + 1}/{self.total}: {item}"
        if self.live:
            columns = shutil.get_terminal_size().columns - 1
            text = text[:columns]
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
            self.stream.flush()
        elif time.monotonic() - self._last_line >= PROGRESS_INTERVAL_SECONDS:
            print(text, file=self.stream, flush=True)
            self._last_line = time.monotonic()

    def close(self) -> None:
        """Clear the live line (nothing to do off a terminal)."""
        if self.live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
