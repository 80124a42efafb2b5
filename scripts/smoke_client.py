"""Smoke-test corpus-mcp as a real MCP client would, over HTTP or over stdio.

    python scripts/smoke_client.py http://127.0.0.1:8000/mcp [--query TEXT]
    python scripts/smoke_client.py [--query TEXT] --stdio COMMAND [ARGS...]

Used by the container smoke test (``.ci/container-smoke.sh``) against the published port
and against the image's ``stdio`` command (``podman run -i ...``, ``compose.sh stdio``),
and handy against ``make run``. It lists the tools, runs ``search`` then ``fetch`` of the
first hit in both protocol eras (the SDK's default modern mode and the ``initialize``
handshake); over HTTP it also checks that a request with a foreign Host or Origin header
is refused, since the container binds 0.0.0.0 and relies on those lists. With
``--stdio`` each era starts COMMAND afresh (with this environment) and ends it by closing
its stdin. Prints one line per check and exits 1 on the first failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

EXPECTED_TOOLS = {"search", "fetch"}
REQUEST_TIMEOUT_SECONDS = 30.0
FOREIGN_HOST = "evil.example"


class SmokeFailure(Exception):
    """A check failed; the message says which and what was seen."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def structured(result: Any, tool: str) -> dict[str, Any]:
    """The tool's structured output, or a failure naming the tool's error text."""
    text = " ".join(getattr(block, "text", "") for block in result.content)
    check(not result.is_error, f"{tool} returned an error: {text[:300]}")
    content = result.structured_content
    if not isinstance(content, dict):
        raise SmokeFailure(f"{tool} returned no structured content: {text[:300]}")
    return content


Server = str | StdioServerParameters
"""An endpoint URL, or a command that speaks MCP on its stdin/stdout."""


async def search_then_fetch(server: Server, query: str, mode: str) -> None:
    """One session: tools are exactly search and fetch; a search hit can be fetched."""
    async with Client(server, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_SECONDS) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        check(tools == EXPECTED_TOOLS, f"[{mode}] tools are {sorted(tools)}")
        found = structured(await client.call_tool("search", {"query": query}), "search")
        results = found.get("results") or []
        check(bool(results), f"[{mode}] search {query!r} found nothing: {found}")
        first = results[0]
        print(f"ok [{mode}] search {query!r}: {len(results)} results, first {first['ref']}")
        fetched = structured(await client.call_tool("fetch", {"ref": first["ref"]}), "fetch")
        check(fetched.get("ref") == first["ref"], f"[{mode}] fetch answered {fetched.get('ref')}")
        sections = fetched.get("sections") or []
        chars = sum(len(section.get("content", "")) for section in sections)
        check(chars > 0, f"[{mode}] fetch of {first['ref']} has no content")
        print(f"ok [{mode}] fetch {first['ref']}: {fetched['title']!r}, {chars} chars")


def post_status(url: str, headers: dict[str, str]) -> int:
    """HTTP status of a minimal JSON-RPC ping POSTed with extra ``headers``."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code


def check_rebinding_protection(url: str) -> None:
    """Foreign Host and Origin headers are refused; the client's own are accepted."""
    netloc = urlsplit(url).netloc
    own_origin = f"http://{netloc}"
    status = post_status(url, {"Origin": own_origin})
    check(status == 200, f"POST with own Origin {own_origin} got {status}, expected 200")
    status = post_status(url, {"Host": f"{FOREIGN_HOST}:{urlsplit(url).port}"})
    check(status == 421, f"POST with Host {FOREIGN_HOST} got {status}, expected 421")
    status = post_status(url, {"Origin": f"http://{FOREIGN_HOST}"})
    check(status == 403, f"POST with Origin http://{FOREIGN_HOST} got {status}, expected 403")
    print(f"ok Host/Origin: {netloc} accepted, {FOREIGN_HOST} refused")


async def smoke(server: Server, query: str) -> None:
    for mode in ("auto", "legacy"):
        await search_then_fetch(server, query, mode)
    if isinstance(server, str):
        check_rebinding_protection(server)


def leaves(error: BaseException) -> list[BaseException]:
    """The real errors inside (nested) exception groups, as raised in the client's tasks."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def describe(error: BaseException) -> str:
    if isinstance(error, SmokeFailure):
        return str(error)
    return f"{type(error).__name__}: {error}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("url", nargs="?", help="the MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument("--query", default="python", help="search query (default: python)")
    parser.add_argument(
        "--stdio",
        nargs=argparse.REMAINDER,
        metavar="COMMAND",
        help="instead of a URL: start COMMAND (the remaining arguments) and speak MCP over "
        "its stdin/stdout",
    )
    args = parser.parse_args(argv)
    if bool(args.url) == bool(args.stdio):
        parser.error("give either an endpoint URL or --stdio COMMAND [ARGS...]")
    server: Server = args.url or StdioServerParameters(
        command=args.stdio[0], args=args.stdio[1:], env=dict(os.environ)
    )
    try:
        anyio.run(smoke, server, args.query)
    except Exception as error:  # any check, transport or protocol error fails the smoke
        for leaf in leaves(error):
            print(f"FAILED: {describe(leaf)}", file=sys.stderr)
        return 1
    print("smoke client: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
