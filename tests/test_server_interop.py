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
