"""The MCP surface over real HTTP (hypercorn on a free port) with a scripted corpus.

A fake corpus keeps these tests about the server: the tool list and its schemas, how
arguments, results and errors cross the wire in both protocol eras, and the HTTP
guards (Host/Origin, body size, malformed JSON-RPC, health). The same surface over
the real demo corpus is in ``test_server_e2e.py``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import httpx
import mcp_types as types
import msgspec
import pytest
import trio
from mcp import Client
from mcp.shared.exceptions import MCPError

from corpus_mcp.config import Settings, load_settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.server import serve
from corpus_mcp.wire import (
    AvailableSection,
    FetchedSection,
    FetchOutput,
    SearchOutput,
    SearchResult,
    SectionRef,
)

from .mcp_helpers import error_payload, structured
from .server_process import RawReply, exchange

MODES = ["auto", "legacy"]
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
LEGACY_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "search", "arguments": {"query": "trio"}},
}
SECRET = "/srv/secret/archive.zim"


class FakeCorpus:
    """A scripted corpus: ``limit`` results per search, errors on request, calls recorded."""

    libraries: tuple[str, ...] = ("wiki", "docs")

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, Any]] = []

    async def search(self, query: str, limit: int) -> SearchOutput:
        self.calls.append(("search", query, limit))
        if query == "explode":
            raise RuntimeError(f"cannot read {SECRET}")
        results = [
            SearchResult(
                ref=f"corpus://wiki/Article_{n}",
                library="wiki",
                kind="article",
                title=f"Article {n}",
                snapshot="2024-01",
                snippet=f"About {query}",
                relevant_sections=[SectionRef(id="History", title="History")],
            )
            for n in range(limit)
        ]
        return SearchOutput(query=query, results=results)

    def index_states(self) -> dict[str, IndexState]:
        return {"wiki": IndexState(state="ready", sections=12), "docs": IndexState(state="missing")}

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        self.calls.append(("fetch", ref, sections))
        if ref.startswith("error:"):
            code: Any = ref.removeprefix("error:")
            raise CorpusError(code, f"scripted {code}", ref=ref)
        chosen = sections or ["Lead", "History"]
        return FetchOutput(
            ref=ref,
            library="wiki",
            kind="article",
            title="Article",
            snapshot=None,
            sections=[
                FetchedSection(id=s, title=s, level=2, content=f"Text of {s}.") for s in chosen
            ],
            available_sections=[
                AvailableSection("Lead", "Lead", 1),
                AvailableSection("History", "History", 2),
            ],
            truncated=False,
        )


class Served(msgspec.Struct):
    base: str
    port: int
    corpus: FakeCorpus

    @property
    def url(self) -> str:
        return self.base + "/mcp"


def make_settings(**environ: str) -> Settings:
    settings = load_settings({"MCP_HOST": "127.0.0.1", "SEARCH_LIMIT": "3", **environ})
    return msgspec.structs.replace(settings, mcp_port=0)


async def start(
    nursery: trio.Nursery, settings: Settings, libraries: tuple[str, ...] = ("wiki", "docs")
) -> Served:
    corpus = FakeCorpus()
    corpus.libraries = libraries
    binds = await nursery.start(
        partial(serve, corpus, settings, shutdown_trigger=trio.sleep_forever)
    )
    base = binds[0]
    return Served(base=base, port=int(base.rsplit(":", 1)[1]), corpus=corpus)


@pytest.fixture
async def served(nursery: trio.Nursery) -> Served:
    return await start(nursery, make_settings(MCP_ALLOWED_HOSTS="mcp.internal:8000"))


@pytest.fixture
async def http(served: Served) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=served.base) as client:
        yield client


def _structure(schema: Any) -> Any:
    """A schema without its prose (titles, descriptions): what the regression pins."""
    if isinstance(schema, list):
        return [_structure(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {k: _structure(v) for k, v in schema.items() if k not in ("title", "description")}
    for named in ("properties", "$defs"):  # keys here are names, not keywords
        if named in schema:
            kept[named] = {name: _structure(sub) for name, sub in schema[named].items()}
    return kept


SEARCH_INPUT = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 500, "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "default": 3},
    },
    "required": ["query"],
    "additionalProperties": False,
}
FETCH_INPUT = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "maxLength": 2048, "minLength": 1},
        "sections": {
            "type": "array",
            "items": {"type": "string", "maxLength": 512},
            "maxItems": 64,
        },
    },
    "required": ["ref"],
    "additionalProperties": False,
}
# -- the MCP surface ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_the_server_offers_tools_and_no_prompts_or_resources(
    served: Served, mode: Any
) -> None:
    async with Client(served.url, mode=mode) as client:
        capabilities = client.server_capabilities
    assert capabilities is not None
    offered = {
        "tools": capabilities.tools is not None,
        "prompts": capabilities.prompts is not None,
        "resources": capabilities.resources is not None,
    }
    assert offered == {"tools": True, "prompts": False, "resources": False}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("listing", ["list_prompts", "list_resources"])
async def test_prompts_and_resources_are_unknown_methods(
    served: Served, mode: Any, listing: str
) -> None:
    async with Client(served.url, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await getattr(client, listing)()
    assert caught.value.code == types.METHOD_NOT_FOUND


@pytest.mark.parametrize("mode", MODES)
async def test_the_tools_are_search_and_fetch_in_that_order(served: Served, mode: Any) -> None:
    async with Client(served.url, mode=mode) as client:
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == ["search", "fetch"]


KIND = {"enum": ["article", "documentation", "thread"]}
STRING = {"type": "string"}
SEARCH_OUTPUT = {
    "type": "object",
    "properties": {
        "query": STRING,
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "ref": STRING,
                    "library": STRING,
                    "kind": KIND,
                    "title": STRING,
                    "snapshot": {"type": ["string", "null"]},
                    "snippet": STRING,
                    "relevant_sections": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"id": STRING, "title": STRING},
                            "required": ["id", "title"],
                        },
                    },
                },
                "required": [
                    "ref", "library", "kind", "title", "snapshot", "snippet", "relevant_sections",
                ],
            },
        },
        "partial": {"type": "boolean"},
        "unavailable_libraries": {"type": "array", "items": STRING},
    },
    "required": ["query", "results"],
}  # fmt: skip
FETCH_OUTPUT = {
    "type": "object",
    "properties": {
        "ref": STRING,
        "library": STRING,
        "kind": KIND,
        "title": STRING,
        "snapshot": {"type": ["string", "null"]},
        "source_url": STRING,
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": STRING,
                    "title": STRING,
                    "level": {"type": "integer"},
                    "content": STRING,
                    "metadata": {
                        "type": "object",
                        "additionalProperties": {
                            "type": ["string", "integer", "boolean", "array"],
                            "items": STRING,
                        },
                    },
                },
                "required": ["id", "title", "level", "content"],
            },
        },
        "available_sections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": STRING,
                    "title": STRING,
                    "level": {"type": "integer"},
                    "unlisted": {"type": "integer"},
                    "chars": {"type": "integer"},
                },
                "required": ["id", "title", "level"],
            },
        },
        "truncated": {"type": "boolean"},
    },
    "required": [
        "ref", "library", "kind", "title", "snapshot", "sections", "available_sections",
        "truncated",
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "input_schema", "output_schema"),
    [("search", SEARCH_INPUT, SEARCH_OUTPUT), ("fetch", FETCH_INPUT, FETCH_OUTPUT)],
)
async def test_tool_schemas_are_the_pinned_ones(
    served: Served, name: str, input_schema: dict[str, Any], output_schema: dict[str, Any]
) -> None:
    async with Client(served.url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert _structure(tools[name].input_schema) == input_schema
    # Exact and compact: one type list for a nullable field, definitions inlined.
    assert tools[name].output_schema == output_schema


#: The development kit's eleven libraries (../shared/eval-dev): the names a realistic
#: corpus lists in the search tool's description.
KIT_LIBRARIES = (
    "Wikipedia", "Wiki-Mini", "Django-Docs", "Flask-Docs", "Django-SE", "Node-Docs",
    "Git-Docs", "Postgres-Docs", "Git-SE", "Pandas-Docs", "Rust-Docs",
)  # fmt: skip


async def test_the_tool_list_is_small_as_sent(nursery: trio.Nursery) -> None:
    """Every agent request carries the tool list: at most 3,000 characters as the
    server sends it (the whole JSON-RPC response), for the kit's eleven libraries."""
    served = await start(nursery, make_settings(), libraries=KIT_LIBRARIES)
    async with Client(served.url) as client:
        # A real MCP session (handshake, then tools/list) gets the tools whole...
        listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == ["search", "fetch"]
    assert ", ".join(KIT_LIBRARIES) in (listed[0].description or "")
    async with httpx.AsyncClient() as http:
        response = await http.post(
            served.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers=JSON_HEADERS,
        )
    # ... and what the server sends for them is the list an agent's requests carry.
    assert response.json()["result"]["tools"] == [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed
    ]
    assert len(response.content) <= 3000, len(response.content)


@pytest.mark.parametrize("name", ["search", "fetch"])
async def test_tools_are_titled_read_only_and_closed_world(served: Served, name: str) -> None:
    async with Client(served.url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    tool = tools[name]
    assert tool.title
    assert tool.annotations is not None
    hints = tool.annotations
    assert (hints.read_only_hint, hints.open_world_hint) == (True, False)
    # Meaningful only for a tool that writes (MCP): left out of a reader's list.
    assert (hints.idempotent_hint, hints.destructive_hint) == (None, None)


async def test_descriptions_teach_the_workflow_and_the_errors(served: Served) -> None:
    async with Client(served.url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    search, fetch = tools["search"].description or "", tools["fetch"].description or ""
    assert "wiki, docs" in search  # the libraries served
    assert "relevant_sections" in search
    assert "`fetch`" in search
    assert "`ref`: as given" in fetch
    assert "available_sections" in fetch
    # The budget, and how to reach what it leaves out.
    assert "Up to 8000 chars in order; the rest listed with `chars`: fetch those next" in fetch
    # The error contract is said once, for both tools: where errors come, their shape,
    # and that the message says what to do (each code's message does).
    assert "isError, JSON {error, message}: do as it says." in search
    assert "Errors: as search." in fetch


# -- calls --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_search_then_fetch_a_hinted_section(served: Served, mode: Any) -> None:
    async with Client(served.url, mode=mode) as client:
        found = await client.call_tool("search", {"query": "  the\x00 trio  ", "limit": 2})
        results = structured(found)["results"]
        assert len(results) == 2
        hit = results[0]
        section = hit["relevant_sections"][0]["id"]
        fetched = await client.call_tool("fetch", {"ref": hit["ref"], "sections": [section]})
    document = structured(fetched)
    assert [s["id"] for s in document["sections"]] == ["History"]
    # No output schema is listed, but the structured content is exactly the wire shape.
    for content, shape in ((structured(found), SearchOutput), (document, FetchOutput)):
        assert msgspec.to_builtins(msgspec.convert(content, shape, strict=True)) == content
    assert served.corpus.calls == [
        ("search", "the trio", 2),  # normalised as the corpus does: NUL out, spaces collapsed
        ("fetch", "corpus://wiki/Article_0", ["History"]),
    ]


async def test_limit_defaults_and_is_clamped(served: Served) -> None:
    async with Client(served.url) as client:
        default = await client.call_tool("search", {"query": "trio"})
        clamped = await client.call_tool("search", {"query": "trio", "limit": 1000})
    assert len(structured(default)["results"]) == 3
    assert len(structured(clamped)["results"]) == 10


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("code", ["invalid_ref", "not_found", "section_not_found"])
async def test_corpus_errors_are_tool_results(served: Served, mode: Any, code: str) -> None:
    async with Client(served.url, mode=mode) as client:
        result = await client.call_tool("fetch", {"ref": f"error:{code}"})
    assert error_payload(result) == {
        "error": code,
        "message": f"scripted {code}",
        "ref": f"error:{code}",
    }


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search", {}),
        ("search", {"query": "   "}),
        ("search", {"query": "trio", "limit": True}),
        ("search", {"query": "trio", "limit": 0}),
        ("search", {"query": "trio", "extra": 1}),
        ("fetch", {"ref": 3}),
        ("fetch", {"ref": "corpus://wiki/A", "sections": ["s"] * 65}),
    ],
)
async def test_invalid_arguments_never_reach_the_corpus(
    served: Served, tool: str, arguments: dict[str, Any]
) -> None:
    async with Client(served.url) as client:
        result = await client.call_tool(tool, arguments)
    payload = error_payload(result)
    assert payload["error"] == "invalid_arguments"
    assert payload["message"].startswith(f"Invalid arguments for {tool}")
    assert served.corpus.calls == []


async def test_unexpected_failure_is_a_generic_internalerror_payload(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="corpus_mcp.server")
    async with Client(served.url) as client:
        result = await client.call_tool("search", {"query": "explode"})
    payload = error_payload(result)
    assert payload["error"] == "internal_error"
    assert SECRET not in json.dumps(payload)
    [failure] = [r.exc_info for r in caplog.records if r.exc_info]
    assert failure is not None
    assert SECRET in str(failure[1])  # the cause stays in the server log
    assert "outcome=internal_error" in caplog.text


async def test_unknown_tool_is_a_protocolerror_payload(served: Served) -> None:
    async with Client(served.url) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("read", {"ref": "x"})
    assert caught.value.code == types.INVALID_PARAMS
    assert "search" in caught.value.message


# -- logging ------------------------------------------------------------------------


def _tool_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "corpus_mcp.server" and r.getMessage().startswith("tool=")
    ]


async def test_one_log_line_per_call_with_queries(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="corpus_mcp.server")
    async with Client(served.url) as client:
        await client.call_tool("search", {"query": "needle words"})
        await client.call_tool("fetch", {"ref": "error:not_found"})
    search_line, fetch_line = _tool_lines(caplog)
    assert "tool=search outcome=ok" in search_line
    assert '"needle words"' in search_line
    assert "results=3" in search_line
    assert "ms=" in search_line
    assert "tool=fetch outcome=not_found" in fetch_line
    assert "error:not_found" in fetch_line


async def test_log_queries_off_keeps_queries_and_refs_out(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="corpus_mcp.server")
    served = await start(nursery, make_settings(LOG_QUERIES="false"))
    async with Client(served.url) as client:
        await client.call_tool("search", {"query": "needle words"})
        await client.call_tool("fetch", {"ref": "corpus://wiki/Secret_page"})
        await client.call_tool("fetch", {"ref": "error:not_found"})
    lines = _tool_lines(caplog)
    assert len(lines) == 3
    assert "needle" not in caplog.text
    assert "Secret_page" not in caplog.text
    assert "error:not_found" not in caplog.text
    assert "results=3" in lines[0]


async def test_log_queries_off_keeps_an_internal_errors_message_out(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="corpus_mcp.server")
    served = await start(nursery, make_settings(LOG_QUERIES="false"))
    async with Client(served.url) as client:
        result = await client.call_tool("search", {"query": "explode"})
    assert error_payload(result)["error"] == "internal_error"
    assert SECRET not in caplog.text  # the exception's message names a file
    assert "explode" not in caplog.text
    [failure] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert failure.exc_info is None
    assert "RuntimeError (details withheld: LOG_QUERIES=false)" in failure.getMessage()
    assert "in search" in failure.getMessage()  # the frames stay: where it failed is known


# -- HTTP guards --------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
async def test_health_and_readiness(http: httpx.AsyncClient, path: str) -> None:
    response = await http.get(path)
    assert response.status_code == 200
    indexes = {"indexes": {"wiki": "ready (12 sections)", "docs": "missing"}}
    # Readiness details each library's section index (none makes the server unready).
    expected = {"status": "ok", "libraries": 2, **(indexes if path == "/readyz" else {})}
    assert response.json() == expected
    assert response.headers["cache-control"] == "no-store"
    assert (await http.head(path)).status_code == 200
    assert (await http.post(path)).status_code == 405
    assert (await http.get(path, headers={"host": "evil.example"})).status_code == 421
    assert (await http.get(path, headers={"origin": "http://evil.example"})).status_code == 403


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example"}, 421),
        ({"host": "evil.example:{port}"}, 421),
        ({"host": "127.0.0.1"}, 421),  # no port: not on the list
        ({"host": "127.0.0.1:1"}, 421),  # another port
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://127.0.0.1:1"}, 403),
        ({"host": "localhost:{port}", "origin": "http://localhost:{port}"}, 200),
        ({"host": "[::1]:{port}", "origin": "http://[::1]:{port}"}, 200),
        ({"host": "mcp.internal:8000"}, 200),  # MCP_ALLOWED_HOSTS
        ({"origin": "http://127.0.0.1:{port}"}, 200),
    ],
)
async def test_host_and_origin(
    served: Served, http: httpx.AsyncClient, headers: dict[str, str], status: int
) -> None:
    headers = {k: v.format(port=served.port) for k, v in headers.items()}
    response = await http.post("/mcp", headers={**JSON_HEADERS, **headers}, json=LEGACY_CALL)
    assert response.status_code == status
    assert (status == 200) == (served.corpus.calls == [("search", "trio", 3)])


async def _raw(port: int, request: str) -> RawReply:
    """``request`` (header lines, no body) on a new connection, from a worker thread
    so that the server in this event loop can answer."""
    data = request.format(port=port).replace("\n", "\r\n").encode() + b"\r\n\r\n"
    return await trio.to_thread.run_sync(exchange, port, data, 30.0)


@pytest.mark.parametrize("path", ["/mcp/", "/mcp", "/healthz", "/anything", "/"])
async def test_a_foreign_host_is_refused_on_every_path_before_any_redirect(
    served: Served, path: str
) -> None:
    reply = await _raw(served.port, f"GET {path} HTTP/1.1\nHost: evil.example\nConnection: close")
    [response] = reply.responses
    assert response.status == 421
    assert "location" not in response.headers


async def test_the_trailing_slash_redirect_stays_on_an_allowed_host(served: Served) -> None:
    reply = await _raw(served.port, "GET /mcp/ HTTP/1.1\nHost: 127.0.0.1:{port}\nConnection: close")
    [response] = reply.responses
    assert response.status == 307
    assert response.headers["location"] == f"http://127.0.0.1:{served.port}/mcp"


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ("Origin: http://127.0.0.1:{port}\nOrigin: http://evil.example", 403),
        ("Origin: http://evil.example\nOrigin: http://127.0.0.1:{port}", 403),
        ("Origin: http://127.0.0.1:{port}\nOrigin: http://localhost:{port}", 403),
        ("Origin: http://127.0.0.1:{port}\nOrigin: http://127.0.0.1:{port}", 200),
        ("Host: 127.0.0.1:{port}", 400),  # a second Host
    ],
)
async def test_every_host_and_origin_value_is_checked(
    served: Served, headers: str, status: int
) -> None:
    body = json.dumps(LEGACY_CALL)
    request = (
        "POST /mcp HTTP/1.1\nHost: 127.0.0.1:{port}\nContent-Type: application/json\n"
        f"Accept: application/json\nContent-Length: {len(body)}\nConnection: close\n{headers}"
    )
    data = request.format(port=served.port).replace("\n", "\r\n").encode()
    data += b"\r\n\r\n" + body.encode()
    reply = await trio.to_thread.run_sync(exchange, served.port, data, 30.0)
    [response] = reply.responses
    assert response.status == status
    assert (status == 200) == (served.corpus.calls == [("search", "trio", 3)])


@pytest.mark.parametrize(
    ("body", "code", "answer_id", "says"),
    [
        (b"{not json", types.PARSE_ERROR, None, "not valid JSON"),
        (b"[" * 10_000 + b"]" * 10_000, types.PARSE_ERROR, None, "nested too deeply"),
        (b'{"jsonrpc": "2.0", "id": 1}', types.INVALID_REQUEST, 1, '"method" is missing'),
        (b"[]", types.INVALID_REQUEST, None, "batches are not supported"),
        (b'"tools/call"', types.INVALID_REQUEST, None, "not a string"),
        (b'{"jsonrpc": "1.0", "id": "a", "method": "tools/list"}', types.INVALID_REQUEST, "a",
         '"jsonrpc" must be "2.0"'),
        (b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', types.INVALID_REQUEST, None,
         '"id" must be a string or an integer, not null'),
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', types.INVALID_REQUEST,
         None, "not an object"),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}', types.INVALID_REQUEST, None,
         "not a number with a fraction"),
        (b'{"jsonrpc": "2.0", "id": 2, "method": 7}', types.INVALID_REQUEST, 2,
         '"method" must be a non-empty string'),
        (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": [1]}',
         types.INVALID_REQUEST, 3, '"params" must be an object, not an array'),
        (b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {}}',
         types.INVALID_PARAMS, 4, 'tools/call needs "name"'),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", '
         b'"params": {"name": "search", "arguments": "trio"}}',
         types.INVALID_PARAMS, 5, '"arguments" must be an object'),
    ],
)  # fmt: skip
async def test_malformed_json_rpc_gets_a_clear_error(
    http: httpx.AsyncClient, body: bytes, code: int, answer_id: object, says: str
) -> None:
    response = await http.post("/mcp", headers=JSON_HEADERS, content=body)
    assert response.status_code == 400
    answer = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] == answer_id
    assert answer["error"]["code"] == code
    message = answer["error"]["message"]
    assert says in message
    for internal in ("pydantic", "input_value", "validation error", "JSONRPC"):
        assert internal not in message
    assert (await http.post("/mcp", headers=JSON_HEADERS, json=LEGACY_CALL)).status_code == 200


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_null_or_object_id_is_answered_not_dropped(
    served: Served, http: httpx.AsyncClient, era: str
) -> None:
    headers = {**JSON_HEADERS, "mcp-protocol-version": era, "mcp-method": "tools/call"}
    for request_id in (None, {"n": 1}):
        response = await http.post("/mcp", headers=headers, json={**LEGACY_CALL, "id": request_id})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == types.INVALID_REQUEST
    assert served.corpus.calls == []


async def test_notifications_are_still_accepted(http: httpx.AsyncClient) -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    response = await http.post("/mcp", headers=JSON_HEADERS, json=notification)
    assert response.status_code == 202


async def test_wrong_content_type_and_get_stream_are_refused(http: httpx.AsyncClient) -> None:
    as_text = {**JSON_HEADERS, "content-type": "text/plain"}
    assert (await http.post("/mcp", headers=as_text, json=LEGACY_CALL)).status_code == 400
    get = await http.get("/mcp", headers={"accept": "text/event-stream"})
    assert get.status_code == 405
    assert get.headers["allow"] == "POST"


async def _chunks(size: int) -> AsyncIterator[bytes]:
    for _ in range(size // 8192):
        yield b" " * 8192


async def test_oversized_bodies_get_413(served: Served, http: httpx.AsyncClient) -> None:
    padded = json.dumps({**LEGACY_CALL, "padding": "x" * 70_000}).encode()
    declared = await http.post("/mcp", headers=JSON_HEADERS, content=padded)
    assert declared.status_code == 413
    streamed = await http.post("/mcp", headers=JSON_HEADERS, content=_chunks(128 * 1024))
    assert streamed.status_code == 413
    assert served.corpus.calls == []
    assert (await http.post("/mcp", headers=JSON_HEADERS, json=LEGACY_CALL)).status_code == 200
