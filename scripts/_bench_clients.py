"""Lean clients for the benchmark: what a call costs the *server*, not a client library.

The MCP SDK's client adds its own work to every call (sessions, pydantic models,
streams), which would land in the figures. Here one keep-alive HTTP connection per
client carries stateless JSON-RPC ``tools/call`` requests (``POST /mcp``, no initialize:
the server keeps no session) and msgspec parses the answer; kiwix-serve gets the same
treatment (its XML search results, its raw entries).
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import msgspec
from prometheus_client.parser import text_string_to_metric_families

TIMEOUT_SECONDS = 120.0
"""A hang guard: answers come in milliseconds, a stuck library in SEARCH_TIMEOUT."""
_ITEM = re.compile(rb"<item>(.*?)</item>", re.DOTALL)
_LINK = re.compile(rb"<link>([^<]*)</link>")
_DECODE = msgspec.json.Decoder()
_MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class CallFailed(Exception):
    """A call that did not give a result: transport error, HTTP status, JSON-RPC or tool
    error. ``kind`` names it for the error counts."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True)
class Hit:
    ref: str
    sections: tuple[str, ...]
    """The hit's relevant_sections ids."""


@dataclass(frozen=True)
class Found:
    hits: tuple[Hit, ...]
    partial: bool
    unavailable: tuple[str, ...]

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(hit.ref for hit in self.hits)


def _client(base: str) -> httpx.AsyncClient:
    """One kept-alive connection (HTTP/1.1, as agents' clients use)."""
    return httpx.AsyncClient(
        base_url=base,
        timeout=TIMEOUT_SECONDS,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )


class McpClient:
    """``search`` and ``fetch`` over one connection to a corpus-mcp server."""

    def __init__(self, base: str) -> None:
        self._http = _client(base)
        self._ids = itertools.count(1)

    async def __aenter__(self) -> McpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def rpc(self, method: str, params: dict[str, Any] | None = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        try:
            answer = await self._http.post(
                "/mcp", content=msgspec.json.encode(message), headers=_MCP_HEADERS
            )
        except httpx.TransportError as exc:
            raise CallFailed(type(exc).__name__) from exc
        if answer.status_code != 200:
            raise CallFailed(f"http {answer.status_code}")
        body = _DECODE.decode(answer.content)
        if "error" in body:
            raise CallFailed(f"jsonrpc {body['error'].get('code')}")
        return body["result"]

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.rpc("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            text = result["content"][0]["text"] if result.get("content") else "{}"
            raise CallFailed(f"{tool}: {_DECODE.decode(text).get('error', 'error')}")
        content: dict[str, Any] = result["structuredContent"]
        return content

    async def search(self, query: str, limit: int) -> Found:
        out = await self.call("search", {"query": query, "limit": limit})
        hits = tuple(
            Hit(r["ref"], tuple(s["id"] for s in r["relevant_sections"])) for r in out["results"]
        )
        return Found(hits, bool(out["partial"]), tuple(out["unavailable_libraries"]))

    async def fetch(self, ref: str, sections: Sequence[str] = ()) -> int:
        """Characters of Markdown served."""
        arguments: dict[str, Any] = {"ref": ref}
        if sections:
            arguments["sections"] = list(sections)
        out = await self.call("fetch", arguments)
        return sum(len(s["title"]) + len(s["content"]) for s in out["sections"])

    async def get(self, path: str) -> int:
        """Status of a plain GET (``/healthz``)."""
        try:
            return (await self._http.get(path)).status_code
        except httpx.TransportError as exc:
            raise CallFailed(type(exc).__name__) from exc


async def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The server's /metrics as {(sample name, sorted labels): value}."""
    async with _client(base) as http:
        text = (await http.get("/metrics")).text
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for name, labels, value, *_ in family.samples:
            found[(name, tuple(sorted(labels.items())))] = float(value)
    return found


class KiwixClient:
    """kiwix-serve's multi-book full-text search (with snippets) and raw entries."""

    def __init__(self, base: str, books: Sequence[str]) -> None:
        self._http = _client(base)
        self._books = [("books.name", book) for book in books]

    async def __aenter__(self) -> KiwixClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def search(self, query: str, limit: int) -> list[str]:
        """The result links (``/<book>/<path>``), best first."""
        params = httpx.QueryParams(
            [("pattern", query), ("format", "xml"), ("pageLength", str(limit)), *self._books]
        )
        try:
            answer = await self._http.get("/search", params=params)
        except httpx.TransportError as exc:
            raise CallFailed(type(exc).__name__) from exc
        if answer.status_code != 200:
            raise CallFailed(f"http {answer.status_code}")
        links = []
        for item in _ITEM.findall(answer.content):
            link = _LINK.search(item)
            if link:
                links.append(html.unescape(link.group(1).decode("utf-8")))
        return links

    async def get(self, link: str) -> int:
        """Bytes of a raw entry."""
        try:
            answer = await self._http.get(link)
        except httpx.TransportError as exc:
            raise CallFailed(type(exc).__name__) from exc
        if answer.status_code != 200:
            raise CallFailed(f"http {answer.status_code}")
        return len(answer.content)


def entry_link(book: str, raw_path: str) -> str:
    """kiwix-serve's URL of an entry, as its search results write it."""
    return f"/{book}/{quote(raw_path)}"
