"""End to end over real HTTP: a hypercorn server on a free port over the demo corpus.

The real corpus (``open_corpus``) behind the real server, driven by the MCP Python
client in both protocol eras: search, then fetch of a hinted section, then every
error an agent can meet.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import mcp_types as types
import msgspec
import pytest
import trio
from mcp import Client

from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import open_corpus
from corpus_mcp.server import serve

MODES = ["auto", "legacy"]
QUERY = "C3 linearization multiple inheritance"


@pytest.fixture
async def url(demo_corpus: Path, nursery: trio.Nursery) -> AsyncIterator[str]:
    """The MCP endpoint of a server over the demo corpus (``demo_corpus`` is its manifest)."""
    settings = load_settings(
        {
            "CORPUS_ROOT": str(demo_corpus.parent),
            "CORPUS_CONFIG": str(demo_corpus),
            "MCP_HOST": "127.0.0.1",
        }
    )
    settings = msgspec.structs.replace(settings, mcp_port=0)
    manifest = load_manifest(settings.corpus_config, settings.corpus_root)
    async with open_corpus(settings, manifest) as opened:
        stop = trio.Event()
        binds = await nursery.start(partial(serve, opened, settings, shutdown_trigger=stop.wait))
        yield binds[0] + "/mcp"
        stop.set()


def _output(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    [text] = result.content
    assert isinstance(text, types.TextContent)
    structured: dict[str, Any] = result.structured_content
    assert json.loads(text.text) == structured
    return structured


def _error_code(result: types.CallToolResult) -> str:
    assert result.is_error
    [text] = result.content
    assert isinstance(text, types.TextContent)
    payload = json.loads(text.text)
    assert payload["message"]
    code: str = payload["error"]
    return code


@pytest.mark.parametrize("mode", MODES)
async def test_search_then_fetch_a_hinted_section(url: str, mode: Any) -> None:
    async with Client(url, mode=mode) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["search", "fetch"]
        found = _output(await client.call_tool("search", {"query": QUERY, "limit": 5}))
        results = found["results"]
        assert results
        hinted = next(r for r in results if r["relevant_sections"])
        section = hinted["relevant_sections"][0]
        fetched = _output(
            await client.call_tool("fetch", {"ref": hinted["ref"], "sections": [section["id"]]})
        )
        whole = _output(await client.call_tool("fetch", {"ref": hinted["ref"]}))
    assert fetched["ref"] == hinted["ref"]
    assert fetched["sections"][0]["id"] == section["id"]
    assert fetched["sections"][0]["content"]
    assert section["id"] in {s["id"] for s in fetched["available_sections"]}
    assert len(whole["sections"]) >= len(fetched["sections"])


@pytest.mark.parametrize("mode", MODES)
async def test_every_error_an_agent_can_meet(url: str, mode: Any) -> None:
    async with Client(url, mode=mode) as client:
        hit = _output(await client.call_tool("search", {"query": QUERY}))["results"][0]
        library, ref = hit["library"], hit["ref"]
        cases = {
            "invalid_arguments": ("search", {"query": "  "}),
            "invalid_ref": ("fetch", {"ref": "https://example.org/wiki/C3"}),
            "not_found": ("fetch", {"ref": f"corpus://{library}/No_such_document_here"}),
            "section_not_found": ("fetch", {"ref": ref, "sections": ["no-such-section"]}),
        }
        for code, (tool, arguments) in cases.items():
            assert _error_code(await client.call_tool(tool, arguments)) == code
        unknown_library = await client.call_tool("fetch", {"ref": "corpus://nolib/C3"})
        assert _error_code(unknown_library) == "invalid_ref"
