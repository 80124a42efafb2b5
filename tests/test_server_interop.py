"""Interoperability: the official TypeScript MCP SDK client against our real server.

A client nobody here wrote lists the tools and calls both of them over HTTP; the SDK
validates every structured result against the advertised output schema, so a schema
and result that only our own Python tests agree on would fail here. Needs Node and
``npm ci --prefix tests/interop``; skips, saying so, when either is missing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import trio

from .mcp_helpers import serving

INTEROP = Path(__file__).parent / "interop"
NODE = shutil.which("node")
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


async def _run_client(url: str, query: str) -> dict[str, Any]:
    assert NODE is not None
    done = await trio.run_process(
        [NODE, str(INTEROP / "client.mjs"), url, query],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    output: dict[str, Any] = json.loads(done.stdout)
    return output


async def test_typescript_client_lists_and_calls_both_tools(
    shared_zims: Path, tmp_path: Path, nursery: trio.Nursery
) -> None:
    shutil.copyfile(shared_zims / GOOD_ZIM, tmp_path / "wiki.zim")
    (tmp_path / "corpus.toml").write_text(
        'version = 1\n[[library]]\nname = "wiki"\npath = "wiki.zim"\nadapter = "mediawiki"\n'
    )
    async with serving(tmp_path / "corpus.toml", nursery) as url:
        output = await _run_client(url, "Ray Charles early life")

    # The client runs once (it takes a Node process); its facts are compared together, so
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
