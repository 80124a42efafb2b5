"""The MCP surface: a low-level ``mcp.server.Server`` with exactly two tools, as ASGI.

The low-level Server (not ``MCPServer``) is used so that the only advertised capability
is ``tools``: no prompts, no resources. It validates nothing itself, so every call
goes through :mod:`corpus_mcp.server.arguments`, and every outcome becomes a tool
result: the output (structured, and the same JSON as text), a domain error (``isError``
with the error payload as JSON text), or a generic ``internal_error`` whose cause
stays in the server log.

The ASGI app is the SDK's Streamable HTTP app at ``/mcp`` (stateless, JSON responses,
so it serves both the 2026-07-28 per-request era and the legacy initialize handshake),
with DNS-rebinding protection on an explicit Host/Origin list and a small body cap,
wrapped by a thin router that answers ``/healthz`` and refuses the idle GET stream.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Protocol

import mcp_types as types
import msgspec
from mcp.server import Server, ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from corpus_mcp import __version__
from corpus_mcp.config import Settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.server.arguments import validate_fetch, validate_search
from corpus_mcp.server.tools import FETCH, SEARCH, TOOL_NAMES, build_tools
from corpus_mcp.wire import FetchOutput, SearchOutput

log = logging.getLogger("corpus_mcp.server")

MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"
MAX_BODY_BYTES = 64 * 1024
"""Tool arguments are tiny; anything larger is refused with 413 before parsing."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

INSTRUCTIONS = (
    "Offline reference libraries (encyclopedias, software documentation, Q&A threads). "
    "Call `search` first, then `fetch` a result's `ref`, ideally with only the "
    "`relevant_sections` it suggests. Refs are opaque: pass them back unchanged."
)


class CorpusAPI(Protocol):
    """What the server needs of the corpus (``corpus_mcp.corpus.Corpus`` provides it)."""

    @property
    def libraries(self) -> tuple[str, ...]: ...

    async def search(self, query: str, limit: int) -> SearchOutput: ...

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput: ...


def _result(output: msgspec.Struct) -> types.CallToolResult:
    """A successful result: ``output`` as structured content and as the same JSON text."""
    structured: dict[str, Any] = msgspec.to_builtins(output)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=msgspec.json.encode(structured).decode())],
        structured_content=structured,
    )


def _error_result(payload: dict[str, Any]) -> types.CallToolResult:
    """An error result: the payload as JSON text only, without structured content.

    The output schema describes successful results, and the spec requires structured
    content to conform to it; the TypeScript SDK client enforces that even when
    ``isError`` is set, so an error payload there would make the call itself fail.
    """
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=msgspec.json.encode(payload).decode())],
        is_error=True,
    )


INTERNAL_ERROR: dict[str, Any] = {
    "error": "internal_error",
    "message": (
        "The server failed while handling this call; the cause is in its log. "
        "Retry once, then try a different query or ref."
    ),
}


class ToolError(Exception):
    """A tool call that ended in an error result; ``payload`` is what the caller gets."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload["message"])
        self.payload = payload


class ToolHandlers:
    """The ``tools/list`` and ``tools/call`` handlers over one corpus.

    Each call is logged as one line: tool, a few counts, duration and outcome. Query
    text and refs are added only when ``settings.log_queries`` is on.
    """

    def __init__(self, corpus: CorpusAPI, settings: Settings) -> None:
        self.corpus = corpus
        self.settings = settings
        self.tools = build_tools(
            corpus.libraries,
            default_limit=settings.search_limit,
            max_limit=settings.search_max_limit,
            max_fetch_chars=settings.max_fetch_chars,
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in TOOL_NAMES:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown tool {params.name!r}; the tools are {SEARCH!r} and {FETCH!r}.",
            )
        try:
            output = await self.run(params.name, params.arguments)
        except ToolError as exc:
            return _error_result(exc.payload)
        return _result(output)

    async def run(
        self, name: str, arguments: Mapping[str, Any] | None
    ) -> SearchOutput | FetchOutput:
        """One call of the tool ``name`` (one of :data:`TOOL_NAMES`), transport aside.

        Returns the tool's output; raises :class:`ToolError` with the payload the
        caller gets otherwise. Both transports
        and the terminal commands (``corpus-mcp search|fetch``) come through here.
        """
        started = time.perf_counter()
        fields: dict[str, object] = {}
        try:
            if name == SEARCH:
                output: SearchOutput | FetchOutput = await self._search(arguments, fields)
            else:
                output = await self._fetch(arguments, fields)
        except CorpusError as exc:
            self._log(name, exc.code, started, fields)
            raise ToolError(exc.payload()) from exc
        except Exception as exc:
            log.exception("tool=%s failed", name)
            self._log(name, "internal_error", started, fields)
            raise ToolError(INTERNAL_ERROR) from exc
        self._log(name, "ok", started, fields)
        return output

    async def _search(
        self, arguments: Mapping[str, Any] | None, fields: dict[str, object]
    ) -> SearchOutput:
        request = validate_search(arguments, self.settings)
        if self.settings.log_queries:
            fields["query"] = request.query
        fields["limit"] = request.limit
        output = await self.corpus.search(request.query, request.limit)
        fields["results"] = len(output.results)
        fields["libraries"] = len({result.library for result in output.results})
        fields["unavailable"] = len(output.unavailable_libraries)
        return output

    async def _fetch(
        self, arguments: Mapping[str, Any] | None, fields: dict[str, object]
    ) -> FetchOutput:
        request = validate_fetch(arguments)
        if self.settings.log_queries:
            fields["ref"] = request.ref
        fields["asked_sections"] = len(request.sections or ())
        output = await self.corpus.fetch(request.ref, request.sections)
        fields["library"] = output.library
        fields["sections"] = len(output.sections)
        fields["truncated"] = output.truncated
        return output

    @staticmethod
    def _log(tool: str, outcome: str, started: float, fields: dict[str, object]) -> None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        details = " ".join(f"{key}={json.dumps(value)}" for key, value in fields.items())
        log.info("tool=%s outcome=%s ms=%.1f %s", tool, outcome, elapsed_ms, details)


def allowed_hosts(settings: Settings, port: int) -> list[str]:
    """Host header values accepted: loopback names on the bound port, plus configured extras."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", *settings.allowed_hosts]


def allowed_origins(settings: Settings, port: int) -> list[str]:
    """Origin header values accepted (a request without Origin is always accepted)."""
    loopback = [f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"http://[::1]:{port}"]
    return [*loopback, *settings.allowed_origins]


def build_mcp_server(corpus: CorpusAPI, settings: Settings) -> Server[Any]:
    """The low-level MCP server: tools only, so ``tools`` is its only capability."""
    handlers = ToolHandlers(corpus, settings)
    return Server(
        "corpus-mcp",
        version=__version__,
        title="Offline reference libraries",
        instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )


async def _send_json(send: Send, status: int, body: dict[str, Any], head: bool = False) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if head else payload})


async def _send_text(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]]) -> None:
    payload = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(payload)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def header_allowed(value: str, allowed: list[str]) -> bool:
    """The SDK's matching rule: an exact value, or ``base:*`` for ``base`` on any port."""
    return value in allowed or any(
        pattern.endswith(":*") and value.startswith(pattern[:-1]) for pattern in allowed
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _watching_refusals(send: Send, method: str, path: str) -> Send:
    """``send``, logging one line when the response is a refusal (status 400 and up).

    Tool calls are logged by the handlers; this covers what never reaches them (bad
    Host or Origin, oversized bodies, malformed JSON-RPC). A 413 also closes the
    connection: the unread rest of the body would otherwise be taken for the next
    request, and a client reusing the connection would see it dropped instead.
    """

    async def send_and_log(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] >= 400:
            status = message["status"]
            log.info("http %s %s refused status=%d", method, path, status)
            if status == 413:
                message = {**message, "headers": [*message["headers"], (b"connection", b"close")]}
        await send(message)

    return send_and_log


class CorpusApp:
    """The ASGI entry point: ``/healthz`` here, everything else to the MCP app.

    ``GET /mcp`` is answered 405: in stateless JSON mode the SDK would open an SSE
    stream that never carries anything and lives until shutdown, which only costs
    a connection. Clients treat 405 as "no server-initiated stream".
    """

    def __init__(self, mcp_app: ASGIApp, security: TransportSecuritySettings, libraries: int):
        self.mcp_app = mcp_app
        self.security = security
        self.libraries = libraries

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.mcp_app(scope, receive, send)  # lifespan runs the session manager
            return
        path, method = scope["path"], scope["method"]
        send = _watching_refusals(send, method, path)
        if path == HEALTH_PATH:
            await self._health(scope, send, method)
        elif path == MCP_PATH and method == "GET":
            await _send_text(send, 405, "Method Not Allowed", [(b"allow", b"POST")])
        else:
            await self.mcp_app(scope, receive, send)

    async def _health(self, scope: Scope, send: Send, method: str) -> None:
        host, origin = _header(scope, b"host"), _header(scope, b"origin")
        if host is None or not header_allowed(host, self.security.allowed_hosts):
            await _send_text(send, 421, "Invalid Host header", [])
        elif origin and not header_allowed(origin, self.security.allowed_origins):
            await _send_text(send, 403, "Invalid Origin header", [])
        elif method not in ("GET", "HEAD"):
            await _send_text(send, 405, "Method Not Allowed", [(b"allow", b"GET, HEAD")])
        else:
            body = {"status": "ok", "libraries": self.libraries}
            await _send_json(send, 200, body, head=method == "HEAD")


def build_app(corpus: CorpusAPI, settings: Settings, *, port: int) -> ASGIApp:
    """The whole ASGI app for a server listening on ``port`` (the real one, not 0).

    Build a new one per server: the SDK's session manager runs only once.
    """
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts(settings, port),
        allowed_origins=allowed_origins(settings, port),
    )
    mcp_app = build_mcp_server(corpus, settings).streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
        max_request_body_size=MAX_BODY_BYTES,
    )
    return CorpusApp(mcp_app, security, len(corpus.libraries))
