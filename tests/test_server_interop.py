"""Interoperability: the official TypeScript MCP SDK client against our real server.

A client nobody here wrote lists the tools and calls both of them, over HTTP and over
stdio (its ``StdioClientTransport`` starting ``corpus-mcp stdio``); the SDK validates
every structured result against the advertised output schema, so a schema and result
that only our own Python tests agree on would fail here. Needs Node and
``npm ci --prefix tests/interop``; skips, saying so, when either is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from .mcp_helpers import serving

INTEROP = Path(__file__).parent / "interop"
NODE = shutil.which("node")
CORPUS_MCP = Path(sys.executable).with_name("corpus-mcp")
GOOD_ZIM = "wikipedia_en_ray_charles_novid_2018-10.zim"
"""Full articles with sections, so search hints at some and fetch can select them."""

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
    pytest.mark.skipif(
        not (INTEROP / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(),
        reason="TypeScript SDK not installed: run `npm ci --prefix tests/interop`",
    ),
]


async def _run_client(
    arguments: list[str], env: dict[str, str] | None = None
) -> tuple[dict[str, Any], str]:
    """Run client.mjs; its JSON report and its stderr (the stdio server's logs land there)."""
    assert NODE is not None
    done = await trio.run_process(
        [NODE, str(INTEROP / "client.mjs"), *arguments],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode()
    output: dict[str, Any] = json.loads(done.stdout)
    return output, done.stderr.decode(errors="replace")


def _write_corpus(shared_zims: Path, root: Path) -> Path:
    shutil.copyfile(shared_zims / GOOD_ZIM, root / "wiki.zim")
    manifest = root / "corpus.toml"
    manifest.write_text(
        'version = 1\n[[library]]\nname = "wiki"\npath = "wiki.zim"\nadapter = "mediawiki"\n'
    )
    return manifest


def _check_both_tools(output: dict[str, Any]) -> None:
    """What the SDK saw: exactly our two tools, a search, a hinted fetch, an error."""
    assert [tool["name"] for tool in output["tools"]] == ["search", "fetch"]
    assert all(tool["hasOutputSchema"] for tool in output["tools"])
    assert all(tool["annotations"]["readOnlyHint"] for tool in output["tools"])
    assert set(output["serverCapabilities"]) == {"tools"}

    search = output["search"]
    assert search["isError"] is False
    results = search["structuredContent"]["results"]
    assert results
    assert results[0]["library"] == "wiki"

    fetched = output["fetch"]
    assert fetched["isError"] is False
    document = fetched["structuredContent"]
    assert document["ref"] == output["fetchedRef"]
    assert output["hinted"]
    assert [section["id"] for section in document["sections"]] == output["hinted"]

    invalid = output["invalid"]
    assert invalid["isError"] is True
    assert json.loads(invalid["text"])["error"] == "invalid_arguments"


async def test_typescript_client_lists_and_calls_both_tools(
    shared_zims: Path, tmp_path: Path, nursery: trio.Nursery
) -> None:
    manifest = _write_corpus(shared_zims, tmp_path)
    async with serving(manifest, nursery) as url:
        output, _ = await _run_client([url, "Ray Charles early life"])
    assert output["transport"] == "http"
    _check_both_tools(output)


@pytest.mark.skipif(not CORPUS_MCP.is_file(), reason="console script not installed")
async def test_typescript_stdio_client_starts_and_uses_corpus_mcp_stdio(
    shared_zims: Path, tmp_path: Path
) -> None:
    manifest = _write_corpus(shared_zims, tmp_path)
    env = {**os.environ, "CORPUS_ROOT": str(tmp_path), "CORPUS_CONFIG": str(manifest)}
    output, stderr = await _run_client(
        ["--stdio", "Ray Charles early life", str(CORPUS_MCP), "stdio"], env=env
    )
    assert output["transport"] == "stdio"
    _check_both_tools(output)
    # The server's logs went to stderr, the same lines as over HTTP.
    assert "serving wiki over stdio" in stderr
    assert "tool=search outcome=ok" in stderr
    assert "tool=search outcome=invalid_arguments" in stderr
