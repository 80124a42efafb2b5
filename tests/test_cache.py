"""The byte-bounded LRU behind the document cache."""

from __future__ import annotations

from corpus_mcp.cache import ByteLRU


def test_evicts_least_recently_used_past_the_byte_budget() -> None:
    cache: ByteLRU[str, str] = ByteLRU(100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the most recent
    cache.put("c", "C", 40)  # 120 > 100: evicts b, the least recently used
    assert cache.get("b") is None
    assert cache.get("a") == "A"
    assert cache.get("c") == "C"
    assert cache.bytes == 80
    assert len(cache) == 2


def test_replacing_a_key_updates_its_size() -> None:
    cache: ByteLRU[str, str] = ByteLRU(100)
    cache.put("a", "A", 60)
    cache.put("a", "A2", 30)
    assert cache.bytes == 30
    assert cache.get("a") == "A2"


def test_a_value_larger_than_the_budget_is_not_stored() -> None:
    cache: ByteLRU[str, str] = ByteLRU(100)
    cache.put("small", "s", 10)
    cache.put("huge", "h", 1000)
    assert cache.get("huge") is None
    assert cache.get("small") == "s"


def test_counts_hits_and_misses() -> None:
    cache: ByteLRU[tuple[str, str], int] = ByteLRU(10)
    cache.put(("uuid-1", "p"), 1, 1)
    cache.get(("uuid-1", "p"))
    cache.get(("uuid-2", "p"))  # same path, other archive identity: a miss
    assert (cache.hits, cache.misses) == (1, 1)
