"""Shared by the server tests: a real server over a real corpus, and reading tool results."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import mcp_types as types
import msgspec
import trio

from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import open_corpus
from corpus_mcp.server import serve

from .server_process import corpus_environment


@asynccontextmanager
async def serving(
    manifest: Path, nursery: trio.Nursery, root: Path | None = None, **env: str
) -> AsyncIterator[str]:
    """A hypercorn server on a free loopback port over the corpus at ``manifest`` (its
    folder is CORPUS_ROOT, unless ``root``); yields the MCP endpoint URL, stops the
    server on exit."""
    folder = root or manifest.parent
    environ = corpus_environment(manifest, MCP_HOST="127.0.0.1", CORPUS_ROOT=str(folder), **env)
    settings = msgspec.structs.replace(load_settings(environ), mcp_port=0)
    async with open_corpus(settings, load_manifest(manifest, folder)) as corpus:
        stop = trio.Event()
        binds = await nursery.start(partial(serve, corpus, settings, shutdown_trigger=stop.wait))
        try:
            yield binds[0] + "/mcp"
        finally:
            stop.set()


def structured(result: types.CallToolResult) -> dict[str, Any]:
    """A successful result's structured content, checked to equal its JSON text."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    [text] = result.content
    assert isinstance(text, types.TextContent)
    content: dict[str, Any] = result.structured_content
    assert json.loads(text.text) == content
    return content


def error_payload(result: types.CallToolResult) -> dict[str, Any]:
    """The error payload of an ``isError`` result: JSON text, no structured content.

    Structured content must match the success output schema (the TypeScript client
    enforces it even on errors), so errors travel as text only.
    """
    assert result.is_error
    assert result.structured_content is None
    [text] = result.content
    assert isinstance(text, types.TextContent)
    payload: dict[str, Any] = json.loads(text.text)
    assert payload["message"]
    return payload
