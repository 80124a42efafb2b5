"""The peers every single-agent measurement compares: a corpus-mcp server, kiwix-serve
(when installed) and bare libzim in this process, over the same archives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _bench_plan import LIMIT
from _corpora import BenchCorpus
from _processes import Served

from corpus_mcp.zim import ZimReader

MCP, KIWIX, BARE = "corpus-mcp", "kiwix-serve", "bare libzim"
PEERS = (MCP, KIWIX, BARE)

Call = Callable[[], Awaitable[Any]]
"""One request to one peer, ready to be timed."""


@dataclass
class Peers:
    """The peers of sections 1-4: one corpus-mcp server, kiwix-serve (when installed)
    and bare libzim readers in this process, all over the same archives."""

    mcp: Served
    kiwix: Served | None
    books: list[str]
    """kiwix-serve's names of the books with a full-text index (those it can search)."""
    readers: list[ZimReader]


def open_readers(corpus: BenchCorpus) -> list[ZimReader]:
    return [ZimReader(file, direct_index=False) for file in corpus.files()]


def kiwix_books(readers: Sequence[ZimReader]) -> list[str]:
    return [Path(r.file).stem for r in readers if r.info.has_fulltext_index]


def bare_search(readers: Sequence[ZimReader], query: str) -> int:
    """libzim per archive (full-text, or title suggestions where there is no full-text
    index), merged round-robin, then the raw bytes of the top LIMIT: the least a search
    with snippets must do. Returns the bytes read."""
    per_archive = []
    for reader in readers:
        if reader.info.has_fulltext_index:
            paths = reader.fulltext(query, LIMIT).paths
        else:
            paths = [s.path for s in reader.suggest(query, LIMIT)]
        per_archive.append((reader, paths))
    top = [
        (reader, paths[rank])
        for rank in range(LIMIT)
        for reader, paths in per_archive
        if rank < len(paths)
    ][:LIMIT]
    return sum(len(reader.content(path)) for reader, path in top)
