"""The process-wide memory settings every server process runs with (corpus_mcp.memory).

Their effect is measured by ``make bench`` (DEVELOPERS.md, "Memory"); here, that they
are applied, that an operator's own allocator variables win, and that bindings without
the cluster-cache setting are left at libzim's default.
"""

from __future__ import annotations

import ctypes
import logging
import platform

import libzim
import pytest

from corpus_mcp import memory
from corpus_mcp.zim import cluster_cache_bytes, limit_cluster_cache

GLIBC = platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="the allocator settings are glibc's")
def test_the_allocator_settings_apply_unless_the_environment_has_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(variable, raising=False)
    assert memory.tune_allocator() == [
        "MALLOC_ARENA_MAX",
        "MALLOC_MMAP_THRESHOLD_",
        "MALLOC_TRIM_THRESHOLD_",
    ]
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert "MALLOC_ARENA_MAX" not in memory.tune_allocator()


def test_no_allocator_settings_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotGlibc:
        def __init__(self, name: object) -> None:
            self.mallopt = lambda *_: 1

    monkeypatch.setattr(ctypes, "CDLL", NotGlibc)
    assert memory.tune_allocator() == []


def test_libzim_keeps_a_bounded_cluster_cache(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, "corpus_mcp.memory")
    memory.configure_memory()
    found = cluster_cache_bytes()
    assert found is not None
    held, bound = found
    assert bound == memory.CLUSTER_CACHE_BYTES
    assert held <= bound
    assert "libzim cluster cache 8 MB" in caplog.text


def test_old_bindings_keep_libzim_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("set_cluster_cache_max_size", "get_cluster_cache_max_size"):
        monkeypatch.delattr(libzim, name)
    assert limit_cluster_cache(1024) is False
    assert cluster_cache_bytes() is None
