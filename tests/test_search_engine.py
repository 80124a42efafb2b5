"""SEARCH_ENGINE: ``auto`` searches the archives' Xapian indexes directly, ``libzim``
forces libzim's own search; a real server answers the same way either way."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from corpus_mcp.config import ConfigError, load_manifest, load_settings
from corpus_mcp.corpus import open_corpus
from corpus_mcp.zim.index import available

from .conftest import settings_for
from .mcp_helpers import serving, structured

QUERY = "C3 linearization multiple inheritance"
EXPECTED_REF = "corpus://Wikipedia/C3_linearization"


def test_search_engine_is_auto_unless_set_to_libzim() -> None:
    assert load_settings({}).search_engine == "auto"
    assert load_settings({"SEARCH_ENGINE": "libzim"}).search_engine == "libzim"
    assert load_settings({"SEARCH_ENGINE": "LibZim"}).search_engine == "libzim"


def test_unknown_search_engine_is_rejected_with_the_accepted_values() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"SEARCH_ENGINE": "xapian"})
    assert "SEARCH_ENGINE='xapian': unknown value; accepted: auto, libzim" in str(caught.value)


async def opened_engines(
    manifest: Path, engine: str, caplog: pytest.LogCaptureFixture
) -> dict[str, tuple[bool, str]]:
    """Per library with a full-text index: whether the corpus opened with ``engine``
    reads it directly, and what it logged at startup about that library's search."""
    logged: dict[str, str] = {}
    caplog.clear()
    settings = settings_for(manifest, SEARCH_ENGINE=engine)
    with caplog.at_level(logging.INFO, logger="corpus_mcp.corpus"):
        async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as corpus:
            readers = {name: corpus.library(name).service.reader for name in corpus.libraries}
    for record in caplog.records:
        library, _, message = record.getMessage().removeprefix("library ").partition(": ")
        logged[library] = message
    return {
        name: (reader.fulltext_index is not None, logged[name])
        for name, reader in readers.items()
        if reader.info.has_fulltext_index
    }


async def test_libzim_engine_opens_no_index_directly(
    demo_corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    opened = await opened_engines(demo_corpus, "libzim", caplog)
    assert opened
    assert set(opened.values()) == {(False, "full-text search: libzim")}


@pytest.mark.skipif(not available(), reason="xapian-bindings-binary is not installed")
async def test_auto_engine_reads_every_index_directly(
    demo_corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    opened = await opened_engines(demo_corpus, "auto", caplog)
    assert opened
    assert set(opened.values()) == {(True, "full-text search: its Xapian index, read directly")}


def shape(value: Any) -> Any:
    """A JSON value's shape: its keys and the types of its values, a list by its items."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return sorted({repr(shape(item)) for item in value})
    return type(value).__name__


async def search_then_fetch(
    manifest: Path, nursery: trio.Nursery, engine: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    async with serving(manifest, nursery, SEARCH_ENGINE=engine) as url, Client(url) as client:
        found = structured(await client.call_tool("search", {"query": QUERY, "limit": 5}))
        fetched = structured(await client.call_tool("fetch", {"ref": EXPECTED_REF}))
    return found, fetched


async def test_libzim_engine_answers_search_and_fetch_with_the_shapes_of_auto(
    demo_corpus: Path, nursery: trio.Nursery
) -> None:
    auto = await search_then_fetch(demo_corpus, nursery, "auto")
    libzim = await search_then_fetch(demo_corpus, nursery, "libzim")
    for found, _ in (auto, libzim):
        assert EXPECTED_REF in [result["ref"] for result in found["results"]]
    assert shape(libzim[0]) == shape(auto[0])
    assert libzim[1] == auto[1]  # the same document, whichever engine found it
