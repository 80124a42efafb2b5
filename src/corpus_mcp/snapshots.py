"""Snapshot dates in archive file names, and the newest of several (pure).

Kiwix names every snapshot of a library the same way with its month appended
(``wikipedia_en_all_nopic_2026-05.zim``), and a rebuild of a month with a letter after
it (``_2026-05a``, later than ``_2026-05``). The manifest's path patterns pick the newest
snapshot present by this date (:func:`newest`), ``corpus-mcp init`` names libraries
without it, and archives without a ``Date`` metadata get it from their file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import msgspec

_IN_NAME = re.compile(r"_(?P<month>\d{4}-(?:0[1-9]|1[0-2]))(?P<rebuild>[a-z]?)(?:\.zim\w*)?$")


class Snapshot(msgspec.Struct, frozen=True, order=True):
    """A snapshot's date as a file name carries it; ordered oldest first."""

    month: str
    """``YYYY-MM``."""
    rebuild: str = ""
    """``a``, ``b``...: a rebuild of that month, later than the plain snapshot."""

    def __str__(self) -> str:
        return self.month + self.rebuild


def snapshot_in_name(name: str) -> Snapshot | None:
    """The ``_YYYY-MM`` (and rebuild letter) ending a file name or stem, if any."""
    found = _IN_NAME.search(name)
    if found is None:
        return None
    return Snapshot(found["month"], found["rebuild"])


def file_snapshot(file: str, dated: str | None) -> str | None:
    """Which snapshot an archive file is, as the manifest's patterns order them: the
    date its name carries (``2026-05a``), else ``dated`` (its ``Date`` metadata's month)."""
    found = snapshot_in_name(Path(file).name)
    return str(found) if found is not None else dated


def without_snapshot(stem: str) -> str:
    """``stem`` without the snapshot date ending it (``devdocs_en_c_2025-11`` ->
    ``devdocs_en_c``)."""
    return _IN_NAME.sub("", stem)


class Newest(msgspec.Struct, frozen=True, kw_only=True):
    """Which of several file names is the newest snapshot, or why none can be said to be."""

    name: str | None
    """The newest; None when ``undated`` or ``tied`` is not empty, or there were none."""
    snapshot: Snapshot | None = None
    undated: tuple[str, ...] = ()
    """Names without a snapshot date: nothing to order them by."""
    tied: tuple[str, ...] = ()
    """Names sharing the newest date (e.g. two flavours of one month)."""


def newest(names: Iterable[str]) -> Newest:
    """The newest snapshot among ``names`` (file names) by the date they carry."""
    dated: dict[Snapshot, list[str]] = {}
    undated: list[str] = []
    for name in sorted(set(names)):
        snapshot = snapshot_in_name(name)
        if snapshot is None:
            undated.append(name)
        else:
            dated.setdefault(snapshot, []).append(name)
    if undated:
        return Newest(name=None, undated=tuple(undated))
    if not dated:
        return Newest(name=None)
    latest = max(dated)
    if len(dated[latest]) > 1:
        return Newest(name=None, snapshot=latest, tied=tuple(dated[latest]))
    return Newest(name=dated[latest][0], snapshot=latest)
