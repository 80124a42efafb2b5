"""``corpus-mcp serve`` with one archive that can be made to hang, and to recover.

Run as a script by the stuck-library tests and the benchmark (``scripts/bench.py``): the
real command over real archives, except that calls into one archive block while a control
file says so. ``HANG_ARCHIVE`` is the archive's file name; ``HANG_CONTROL`` the control
file, whose content is what hangs:

- ``index``: every index call (its Xapian indexes read directly, libzim's search and
  suggestions), as a stalled disk or a pathological query would;
- ``read``: every read of an entry's bytes.

Anything else (or no file) lets the calls through. A blocked call looks at the file every
20 ms and carries on once it says otherwise, so the library recovers the way an archive on
a stalled disk does. It waits in ``time.sleep``, with the GIL released, as a native call
blocked on I/O does; a native call that hung while holding the GIL would stop every
thread of the process, which no thread-based timeout can bound.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from corpus_mcp.cli import main
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.index import FulltextIndex, TitleIndex

ARCHIVE = os.environ.get("HANG_ARCHIVE", "")
CONTROL = Path(os.environ.get("HANG_CONTROL", os.devnull))
POLL_SECONDS = 0.02
#: The indexes (by identity) that belong to the archive.
_INDEXES: set[int] = set()

F = TypeVar("F", bound=Callable[..., Any])


def _hanging(mode: str) -> bool:
    try:
        return CONTROL.read_text().strip() == mode
    except OSError:
        return False


def _blocks(mode: str, belongs: Callable[[Any], bool]) -> Callable[[F], F]:
    """Wrap a method so that, on the archive, it waits while the control file says
    ``mode``."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def blocked(self: Any, *args: Any, **kwargs: Any) -> Any:
            if belongs(self):
                while _hanging(mode):
                    time.sleep(POLL_SECONDS)
            return method(self, *args, **kwargs)

        return blocked  # type: ignore[return-value]

    return wrap


def _is_archive(reader: ZimReader) -> bool:
    return os.path.basename(reader.file) == ARCHIVE


def _is_archive_index(index: object) -> bool:
    return id(index) in _INDEXES


def _remembering_indexes(init: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(init)
    def opened(self: ZimReader, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if _is_archive(self):
            _INDEXES.update(id(index) for index in (self.fulltext_index, self.title_index) if index)

    return opened


def install() -> None:
    ZimReader.__init__ = _remembering_indexes(ZimReader.__init__)  # type: ignore[method-assign]
    on_reader = _blocks("index", _is_archive)
    ZimReader.fulltext = on_reader(ZimReader.fulltext)  # type: ignore[method-assign]
    ZimReader.document_frequency = on_reader(ZimReader.document_frequency)  # type: ignore[method-assign]
    ZimReader.suggest = on_reader(ZimReader.suggest)  # type: ignore[method-assign]
    on_index = _blocks("index", _is_archive_index)
    FulltextIndex.search = on_index(FulltextIndex.search)  # type: ignore[method-assign]
    FulltextIndex.word_frequency = on_index(FulltextIndex.word_frequency)  # type: ignore[method-assign]
    TitleIndex.search = on_index(TitleIndex.search)  # type: ignore[method-assign]
    ZimReader.read = _blocks("read", _is_archive)(ZimReader.read)  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    sys.exit(main(["serve"]))
