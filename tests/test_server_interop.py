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
from .server_process import corpus_environment

INTEROP = Path(__file__).parent / "interop"
NODE = shutil.which("node")
CORPUS_MCP = Path(sys.executable).with_name("corpus-mcp")
GOOD_ZIM = "wikipedia_en_ray_charles_novid_2018-10.zim"
"""Full articles with sections, so search hints at some and fetch can select them."""


def _sdk_missing() -> str | None:
    """Why the TypeScript SDK cannot be used, or None when `npm ci` installed it."""
    failed = INTEROP / "npm-ci-failed.log"
    if failed.is_file():
        lines = failed.read_text("utf-8", errors="replace").splitlines()
        # npm's first error line names the cause (`npm error code ECONNREFUSED`).
        cause = next((line for line in lines if line.strip()), "no output")
        return f"`npm ci --prefix tests/interop` failed (offline?): {cause} ({failed.name})"
    # npm writes this file last, so a partial install (an interrupted npm ci) counts as none.
    if not (INTEROP / "node_modules" / ".package-lock.json").is_file():
        return "TypeScript SDK not installed: run `npm ci --prefix tests/interop`"
    return None


pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
    pytest.mark.skipif(_sdk_missing() is not None, reason=_sdk_missing() or ""),
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
    # Each client runs once (it takes a Node process); its facts are compared together, so
    # one broken promise shows beside all the others instead of hiding them.
    search, fetched, invalid = output["search"], output["fetch"], output["invalid"]
    results = search["structuredContent"]["results"] if not search["isError"] else []
    document = fetched["structuredContent"] if not fetched["isError"] else {}
    facts = {
        "tools": [tool["name"] for tool in output["tools"]],
        "every tool has an output schema": all(t["hasOutputSchema"] for t in output["tools"]),
        "every tool is read-only": all(t["annotations"]["readOnlyHint"] for t in output["tools"]),
        "server capabilities": sorted(output["serverCapabilities"]),
        "search is an error": search["isError"],
        "first result's library": results[0]["library"] if results else None,
        "fetch is an error": fetched["isError"],
        "fetched the ref asked for": document.get("ref") == output["fetchedRef"],
        "search hinted sections": bool(output["hinted"]),
        "fetched sections are the hinted ones": (
            [section["id"] for section in document.get("sections", [])] == output["hinted"]
        ),
        "bad arguments are an error": invalid["isError"],
        "bad arguments' error code": json.loads(invalid["text"])["error"],
    }
    assert facts == {
        "tools": ["search", "fetch"],
        "every tool has an output schema": True,
        "every tool is read-only": True,
        "server capabilities": ["tools"],
        "search is an error": False,
        "first result's library": "wiki",
        "fetch is an error": False,
        "fetched the ref asked for": True,
        "search hinted sections": True,
        "fetched sections are the hinted ones": True,
        "bad arguments are an error": True,
        "bad arguments' error code": "invalid_arguments",
    }


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
    env = {**os.environ, **corpus_environment(manifest)}
    output, stderr = await _run_client(
        ["--stdio", "Ray Charles early life", str(CORPUS_MCP), "stdio"], env=env
    )
    assert output["transport"] == "stdio"
    _check_both_tools(output)
    # The server's logs went to stderr, the same lines as over HTTP.
    assert "serving wiki over stdio" in stderr
    assert "tool=search outcome=ok" in stderr
    assert "tool=search outcome=invalid_arguments" in stderr
