"""The ZIM service: the only package that imports libzim.

``reader`` reads one archive synchronously, ``index`` searches the Xapian databases
inside it directly (``layout`` finds them in the file), ``identity`` tells whether the
file is still the one opened, ``service`` calls it from trio under the per-archive lock
(and retires a reader whose file changed), ``writer`` builds archives (fixtures and the
demo corpus).
"""

from corpus_mcp.zim.errors import (
    ArchiveUnavailable,
    EntryNotFound,
    RedirectError,
    ZimError,
    ZimOpenError,
    normalise_path,
)
from corpus_mcp.zim.reader import (
    MAX_REDIRECT_HOPS,
    ArchiveInfo,
    Family,
    ResolvedEntry,
    SearchPage,
    Suggestion,
    ZimReader,
    detect_family,
    snapshot_of,
)
from corpus_mcp.zim.service import (
    ArchiveService,
    ChainedLimiter,
    OpenFailure,
    open_readers,
    stop_if_abandoned,
)

__all__ = [
    "MAX_REDIRECT_HOPS",
    "ArchiveInfo",
    "ArchiveService",
    "ArchiveUnavailable",
    "ChainedLimiter",
    "EntryNotFound",
    "Family",
    "OpenFailure",
    "RedirectError",
    "ResolvedEntry",
    "SearchPage",
    "Suggestion",
    "ZimError",
    "ZimOpenError",
    "ZimReader",
    "detect_family",
    "normalise_path",
    "open_readers",
    "snapshot_of",
    "stop_if_abandoned",
]
