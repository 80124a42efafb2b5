"""Cheap look-ups of an archive's entries by stored path, for recognising its family.

libzim keeps entries sorted by path and gives the ``i``-th in that order, so the
entries under a prefix are found by a binary search (about 20 reads for a million
entries) and read a few at a time, never by walking the archive. A failing read (a
damaged dirent) answers "not there": recognition is a guess, and the reader reports
real damage where it reads the entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ArchiveProbe:
    """:class:`corpus_mcp.families.Probe` over one libzim ``Archive``."""

    def __init__(self, archive: Any) -> None:
        self._archive = archive
        self._count = int(archive.entry_count)

    def has_entry(self, path: str) -> bool:
        try:
            return bool(self._archive.has_entry_by_path(path))
        except Exception:  # what libzim raises on a damaged dirent: not there
            return False

    def _path_at(self, index: int) -> str:
        return str(self._archive._get_entry_by_id(index).path)

    def paths_from(self, prefix: str, limit: int) -> Sequence[str]:
        try:
            low, high = 0, self._count
            while low < high:  # the first entry whose path is >= prefix
                middle = (low + high) // 2
                if self._path_at(middle) < prefix:
                    low = middle + 1
                else:
                    high = middle
            paths = [self._path_at(i) for i in range(low, min(low + limit, self._count))]
        except Exception:  # a damaged dirent: nothing found
            return ()
        return [path for path in paths if path.startswith(prefix)]
