"""A least-recently-used cache of parsed documents, bounded by (approximate) bytes.

Search hints and repeated fetches of one document parse it once. Keys carry the
archive's identity (its UUID) as well as the path, so a replaced archive can never be
served from a stale entry. Used from the trio thread only, hence no locking.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByteLRU(Generic[K, V]):
    """Evicts least-recently-used values once their summed sizes exceed ``max_bytes``.

    A value larger than the whole budget is not stored (it would evict everything and
    then itself).
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return found[0]

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def discard_if(self, stale: Callable[[K], bool]) -> int:
        """Drop every entry whose key is ``stale`` (an archive's, once it is replaced);
        how many."""
        keys = [key for key in self._items if stale(key)]
        for key in keys:
            self.bytes -= self._items.pop(key)[1]
        return len(keys)

    def put(self, key: K, value: V, size: int) -> None:
        if key in self._items:
            self.bytes -= self._items.pop(key)[1]
        if size > self.max_bytes:
            return
        self._items[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, (_, evicted) = self._items.popitem(last=False)
            self.bytes -= evicted
