"""The ZIM service: the only package that imports libzim.

``reader`` reads one archive synchronously, ``service`` calls it from trio under the
per-archive lock, ``writer`` builds archives (fixtures and the demo corpus).
"""

from corpus_mcp.zim.reader import (
    MAX_REDIRECT_HOPS,
    ArchiveInfo,
    EntryNotFound,
    Family,
    RedirectError,
    ResolvedEntry,
    SearchPage,
    Suggestion,
    ZimError,
    ZimOpenError,
    ZimReader,
    detect_family,
    normalise_path,
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
