"""``corpus-mcp serve`` whose archives fail when a document's bytes are read.

Run as a script by the log tests: the real command over real archives, except that
reading content raises the way the reader does on a corrupt cluster, with the document
path in the message. That is the internal error whose log must not name the path or
the query when ``LOG_QUERIES=false``.
"""

from __future__ import annotations

import sys

from corpus_mcp.cli import main
from corpus_mcp.zim import ResolvedEntry, ZimError, ZimReader


def _decompress() -> bytes:
    raise RuntimeError("zstd: corrupted block (simulated)")


def _failing_read(self: ZimReader, path: str) -> tuple[ResolvedEntry, bytes]:
    entry = self.resolve(path)  # the lookup is real: only reading the bytes fails
    try:
        return entry, _decompress()
    except RuntimeError as exc:  # as ZimReader.read wraps what libzim raises
        raise ZimError(f"reading {path!r} failed: {exc}") from exc


def _failing_content(self: ZimReader, path: str) -> bytes:
    return _failing_read(self, path)[1]


if __name__ == "__main__":
    ZimReader.read = _failing_read  # type: ignore[method-assign]
    ZimReader.content = _failing_content  # type: ignore[method-assign]
    sys.exit(main(["serve"]))
