"""Process-wide memory settings of a server: the C allocator's and libzim's caches.

Measured on the development kit (13 archives, 159 questions asked twice, in one process
that parses in threads; anonymous memory at the end, DEVELOPERS.md "Memory"):

- glibc's malloc keeps one arena per thread that allocates (up to 8 per core: libzim,
  Xapian and lxml allocate in worker threads) and raises its mmap threshold each time a
  large block is freed, after which large blocks come from the arenas and are not given
  back: 294 MB with the defaults. Two arenas and a fixed 128 KiB mmap and trim threshold
  (so that large blocks are mapped and unmapped, and the arenas' tops trimmed): 202 MB,
  at the same speed. A periodic ``malloc_trim`` on top saved 1-3 MB more: not done.
- libzim keeps decompressed clusters in one cache per process (16 MB by default; it
  fills while the archives open, and its large blocks fragment the heap). With the
  allocator settings, two runs each: 16 MB ended at 212-220 MB using 14.4-14.8 s of CPU,
  8 MB at 188-194 MB and 14.8-15.8 s, 4 MB at 184-186 MB and 16.3-16.5 s (documents
  parsed again read their clusters again): 8 MB.

An operator's own ``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_`` or
``MALLOC_TRIM_THRESHOLD_`` is left as set. Elsewhere than glibc nothing changes.
"""

from __future__ import annotations

import ctypes
import logging
import os
from typing import Final

from corpus_mcp.zim import limit_cluster_cache

log = logging.getLogger("corpus_mcp.memory")

CLUSTER_CACHE_BYTES: Final = 8 * 1024 * 1024
"""libzim's decompressed clusters kept per process (8 MiB)."""
ARENAS: Final = 2
MMAP_THRESHOLD: Final = 128 * 1024
TRIM_THRESHOLD: Final = 128 * 1024

# mallopt parameters (glibc's malloc.h) and the variable that sets each at exec.
_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3
_M_ARENA_MAX: Final = -8
_TUNING: Final = (
    (_M_ARENA_MAX, ARENAS, "MALLOC_ARENA_MAX"),
    (_M_MMAP_THRESHOLD, MMAP_THRESHOLD, "MALLOC_MMAP_THRESHOLD_"),
    (_M_TRIM_THRESHOLD, TRIM_THRESHOLD, "MALLOC_TRIM_THRESHOLD_"),
)


def tune_allocator() -> list[str]:
    """Apply the allocator settings above that the environment does not set itself;
    the names of those applied (none where the C library is not glibc)."""
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 (only glibc has it: musl's mallopt differs)
    except (OSError, AttributeError):
        return []
    applied = []
    for parameter, value, variable in _TUNING:
        if variable not in os.environ and mallopt(parameter, value) == 1:
            applied.append(variable)
    return applied


def configure_memory() -> None:
    """What every server process runs with (call once, early: the allocator settings
    apply to threads and blocks made afterwards; forked children inherit them)."""
    applied = tune_allocator()
    limited = limit_cluster_cache(CLUSTER_CACHE_BYTES)
    log.debug(
        "memory: allocator settings %s; libzim cluster cache %s",
        ", ".join(applied) or "as the environment has them",
        f"{CLUSTER_CACHE_BYTES // 1024 // 1024} MB" if limited else "at libzim's default",
    )
