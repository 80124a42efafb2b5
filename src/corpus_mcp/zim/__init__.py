"""The ZIM service: the only package that imports libzim.

``reader`` reads one archive synchronously, ``index`` searches the Xapian databases
inside it directly (``layout`` finds them in the file), ``identity`` tells whether the
file is still the one opened, ``service`` calls it from trio under the per-archive lock
(retires a reader whose file changed, serves a new file renamed over the old one once it
is sound, one reader per library for a whole call), ``writer`` builds archives (fixtures
and the demo corpus).
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
    EntryAt,
    ResolvedEntry,
    SearchPage,
    Suggestion,
    ZimReader,
    cluster_cache_bytes,
    limit_cluster_cache,
    snapshot_of,
)
from corpus_mcp.zim.service import (
    ArchiveService,
    ChainedLimiter,
    OpenFailure,
    one_reader_per_call,
    open_readers,
    readers_replaced,
    stop_if_abandoned,
)

__all__ = [
    "MAX_REDIRECT_HOPS",
    "ArchiveInfo",
    "ArchiveService",
    "ArchiveUnavailable",
    "ChainedLimiter",
    "EntryAt",
    "EntryNotFound",
    "OpenFailure",
    "RedirectError",
    "ResolvedEntry",
    "SearchPage",
    "Suggestion",
    "ZimError",
    "ZimOpenError",
    "ZimReader",
    "cluster_cache_bytes",
    "limit_cluster_cache",
    "normalise_path",
    "one_reader_per_call",
    "open_readers",
    "readers_replaced",
    "snapshot_of",
    "stop_if_abandoned",
]
