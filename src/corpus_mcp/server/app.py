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
wrapped by a thin router that answers ``/healthz``, ``/readyz`` and ``/metrics`` and
refuses the idle GET stream.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping
from typing import Any, Protocol

import mcp_types as types
import msgspec
import trio
from mcp.server import Server, ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from corpus_mcp import __version__, metrics
from corpus_mcp.config import Settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.logs import FIELDS
from corpus_mcp.redaction import log_failure
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.server.arguments import validate_fetch, validate_search
from corpus_mcp.server.connections import SERVER_UNAVAILABLE, SHUTTING_DOWN
from corpus_mcp.server.envelope import INVALID_REQUEST, check_envelope
from corpus_mcp.server.http import (
    CLIENT_LEFT,
    ASGIApp,
    BodyRefused,
    Exchange,
    Receive,
    Scope,
    Send,
    header_values,
    host_origin_refusal,
    read_body,
    replaying,
    shown_path,
)
from corpus_mcp.server.tools import FETCH, SEARCH, TOOL_NAMES, build_tools
from corpus_mcp.wire import FetchOutput, SearchOutput

log = logging.getLogger("corpus_mcp.server")

MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"
"""Liveness: 200 while the process serves HTTP at all, draining included."""
READY_PATH = "/readyz"
"""Readiness (load balancers, Kubernetes readinessProbe): 200 while new calls are welcome,
503 once the server drains after SIGTERM. The socket listens only once every archive is
open, and a reload swaps corpora in one step with the old one serving until then, so
neither needs a not-ready phase of its own. With several serving processes, 200 only
while every one of them is ready (503 ``starting`` while one starts or is replaced)."""
METRICS_PATH = "/metrics"
"""Prometheus metrics (:mod:`corpus_mcp.metrics`), in the format the scraper asks for."""
MAX_BODY_BYTES = 64 * 1024
"""Tool arguments are tiny; anything larger is refused with 413 before parsing."""

INSTRUCTIONS = (
    "Offline reference libraries (encyclopedias, software documentation, Q&A threads). "
    "Call `search` first, then `fetch` a result's `ref`, ideally with only the "
    "`relevant_sections` it suggests. Refs are opaque: pass them back unchanged."
)


class Processes(Protocol):
    """The serving processes of one port, as one of them sees them
    (:class:`corpus_mcp.server.workers.Sibling`)."""

    @property
    def process(self) -> int:
        """This process's number (1 to WORKERS)."""

    @property
    def all_ready(self) -> bool:
        """Whether every serving process accepts calls now."""

    async def exposition(self, accept: str | None) -> tuple[bytes, str]:
        """Every process's metrics, each series labelled with its process."""

    def calls_in_flight(self, tool: str, count: int) -> None:
        """This process has ``count`` calls of ``tool`` in flight now (for the supervisor
        to say, should the process die)."""


class CorpusAPI(Protocol):
    """What the server needs of the corpus (``corpus_mcp.corpus.Corpus`` provides it)."""

    @property
    def libraries(self) -> tuple[str, ...]: ...

    async def search(self, query: str, limit: int) -> SearchOutput: ...

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput: ...

    def index_states(self) -> dict[str, IndexState]: ...


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

    Each call is logged as one line: tool, a few counts, duration and outcome (also as
    the record's fields, for ``LOG_FORMAT=json``), and counted in the metrics. Query
    text and refs are added only when ``settings.log_queries`` is on.
    """

    def __init__(
        self, corpus: CorpusAPI, settings: Settings, processes: Processes | None = None
    ) -> None:
        self.corpus = corpus
        self.settings = settings
        self._processes = processes
        self._tools: tuple[tuple[str, ...], list[types.Tool]] | None = None
        self._in_flight = dict.fromkeys(TOOL_NAMES, 0)
        """Calls being answered, by tool (the metric, and the board for the supervisor)."""

    @property
    def tools(self) -> list[types.Tool]:
        """The tools, whose search description names the libraries served now (a reload
        may change them)."""
        libraries = self.corpus.libraries
        if self._tools is None or self._tools[0] != libraries:
            built = build_tools(
                libraries,
                default_limit=self.settings.search_limit,
                max_limit=self.settings.search_max_limit,
                fetch_budget_chars=self.settings.fetch_budget_chars,
            )
            self._tools = (libraries, built)
        return self._tools[1]

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
        self._calling(name, 1)
        try:
            if name == SEARCH:
                output: SearchOutput | FetchOutput = await self._search(arguments, fields)
            else:
                output = await self._fetch(arguments, fields)
        except CorpusError as exc:
            self._finish(name, exc.code, started, fields)
            raise ToolError(exc.payload()) from exc
        except Exception as exc:  # its message may name the query or the document
            log_failure(log, exc, self.settings.log_queries, "tool=%s failed", name)
            self._finish(name, "internal_error", started, fields)
            raise ToolError(INTERNAL_ERROR) from exc
        finally:  # cancelled too (a shutdown's 503)
            self._calling(name, -1)
        self._finish(name, "ok", started, fields)
        return output

    def _calling(self, tool: str, change: int) -> None:
        count = self._in_flight[tool] = self._in_flight[tool] + change
        metrics.tool_calls_in_flight(tool, change)
        if self._processes is not None:
            self._processes.calls_in_flight(tool, count)

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
        if output.partial:
            metrics.partial_answer()
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
    def _finish(tool: str, outcome: str, started: float, fields: dict[str, object]) -> None:
        """The call's one log line and its metrics."""
        elapsed = time.perf_counter() - started
        metrics.tool_called(tool, outcome, elapsed)
        details = " ".join(f"{key}={json.dumps(value)}" for key, value in fields.items())
        record = {"tool": tool, "outcome": outcome, "ms": round(elapsed * 1000, 1), **fields}
        log.info(
            "tool=%s outcome=%s ms=%.1f %s",
            tool,
            outcome,
            elapsed * 1000,
            details,
            extra={FIELDS: record},
        )


def allowed_hosts(settings: Settings, port: int) -> list[str]:
    """Host header values accepted: loopback names on the bound port, plus configured extras."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", *settings.allowed_hosts]


def allowed_origins(settings: Settings, port: int) -> list[str]:
    """Origin header values accepted (a request without Origin is always accepted)."""
    loopback = [f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"http://[::1]:{port}"]
    return [*loopback, *settings.allowed_origins]


def build_mcp_server(
    corpus: CorpusAPI, settings: Settings, processes: Processes | None = None
) -> Server[Any]:
    """The low-level MCP server: tools only, so ``tools`` is its only capability (its
    calls in flight told to ``processes``, one of several serving processes)."""
    handlers = ToolHandlers(corpus, settings, processes)
    return Server(
        "corpus-mcp",
        version=__version__,
        title="Offline reference libraries",
        instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )


class _QuietStatelessTermination(logging.Filter):
    """Drops the SDK's ``Terminating session: None``: in stateless mode every request
    ends a transport without a session, so the line would repeat on every call."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Terminating session: None"


def _quiet_sdk_noise() -> None:
    sdk = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, _QuietStatelessTermination) for f in sdk.filters):
        sdk.addFilter(_QuietStatelessTermination())


_BODY_MESSAGES = {
    413: "Request body too large: at most {limit} bytes (tool arguments are small)",
    408: "Request body not received in full within {timeout:g} s",
}
INTERNAL_ERROR_CODE = -32603


def _jsonrpc_error(code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def _is_json(scope: Scope) -> bool:
    """The SDK's Content-Type rule: one of the listed media types is application/json."""
    for value in header_values(scope, b"content-type"):
        if any(part.strip() == "application/json" for part in value.split(";")[0].split(",")):
            return True
    return False


class CorpusApp:
    """The ASGI entry point: guards, health, readiness and metrics, everything else to MCP.

    Every HTTP request is checked for Host and Origin first (so no path, not even the
    SDK's trailing-slash redirect, answers a foreign Host), then its body is read in
    full here, bounded in size and time, and a POST's JSON-RPC envelope is checked;
    only then does the SDK get the request, with the body replayed.

    ``GET /mcp`` is answered 405: in stateless JSON mode the SDK would open an SSE
    stream that never carries anything and lives until shutdown, which only costs
    a connection. Clients treat 405 as "no server-initiated stream".

    Shutting down, the server calls :meth:`start_draining` (every later response closes
    its connection, ``/readyz`` answers 503) and, once SHUTDOWN_TIMEOUT has passed,
    :meth:`cancel_in_flight`: each request still running is stopped and answered 503 if
    nothing was sent yet.
    """

    def __init__(
        self,
        mcp_app: ASGIApp,
        security: TransportSecuritySettings,
        corpus: CorpusAPI,
        *,
        body_timeout: float,
        log_queries: bool,
        processes: Processes | None = None,
    ) -> None:
        self.mcp_app = mcp_app
        self.processes = processes
        self.allowed_hosts = list(security.allowed_hosts)
        self.allowed_origins = list(security.allowed_origins)
        self.corpus = corpus
        self.body_timeout = body_timeout
        self.log_queries = log_queries
        self.draining = False
        self._in_flight: set[trio.CancelScope] = set()

    @property
    def in_flight(self) -> int:
        """HTTP requests being handled right now."""
        return len(self._in_flight)

    def start_draining(self) -> None:
        self.draining = True

    def cancel_in_flight(self) -> int:
        """Stop every request still being handled (each answers 503); how many."""
        for scope in self._in_flight:
            scope.cancel()
        return len(self._in_flight)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.mcp_app(scope, receive, send)  # lifespan runs the session manager
            return
        exchange = Exchange(send, scope["method"], scope["path"], closing=self._closing)
        exchange.guarded_by(scope)
        try:
            await self._answer(scope, receive, exchange)
        finally:
            exchange.finish()

    async def _answer(self, scope: Scope, receive: Receive, exchange: Exchange) -> None:
        """Handle one request; a failure is logged and answered 500, a request stopped
        by :meth:`cancel_in_flight` is answered 503 (when nothing was sent yet)."""
        with trio.CancelScope() as request:
            self._in_flight.add(request)
            try:
                await self._handle(scope, receive, exchange)
            except Exception as exc:
                log_failure(
                    log,
                    exc,
                    self.log_queries,
                    "http %s %s failed",
                    exchange.method,
                    shown_path(exchange.path),
                )
                if not exchange.started:
                    body = _jsonrpc_error(INTERNAL_ERROR_CODE, "Internal error; see the server log")
                    await exchange.json(500, body, reason="internal error")
            finally:
                self._in_flight.discard(request)
        if request.cancelled_caught and not exchange.started:
            try:
                await exchange.json(
                    503,
                    _jsonrpc_error(SERVER_UNAVAILABLE, SHUTTING_DOWN),
                    reason="still running when SHUTDOWN_TIMEOUT passed",
                    extra=[(b"retry-after", b"1")],
                )
            except Exception as exc:  # the client may be gone: nothing left to tell
                log.debug(
                    "http %s %s: no 503 sent: %r", exchange.method, shown_path(exchange.path), exc
                )

    def _closing(self) -> bool:
        return self.draining

    async def _handle(self, scope: Scope, receive: Receive, exchange: Exchange) -> None:
        path, method = exchange.path, exchange.method
        refusal = host_origin_refusal(scope, self.allowed_hosts, self.allowed_origins)
        if refusal is not None:
            status, text = refusal
            await exchange.text(status, text, reason=text, close=True)
        elif path in (HEALTH_PATH, READY_PATH, METRICS_PATH):
            await self._probe(scope, exchange)
        elif path == MCP_PATH and method == "GET":
            await exchange.text(405, "Method Not Allowed", extra=[(b"allow", b"POST")])
        else:
            await self._forward(scope, receive, exchange)

    async def _probe(self, scope: Scope, exchange: Exchange) -> None:
        """``/healthz``, ``/readyz`` or ``/metrics``: GET or HEAD, no body read."""
        path, method = exchange.path, exchange.method
        head = method == "HEAD"
        if method not in ("GET", "HEAD"):
            allow = [(b"allow", b"GET, HEAD")]
            await exchange.text(405, "Method Not Allowed", extra=allow, close=True)
        elif path == METRICS_PATH:
            accept = ", ".join(header_values(scope, b"accept"))
            if self.processes is None:
                text, content_type = metrics.exposition(accept)
            else:
                text, content_type = await self.processes.exposition(accept)
            await exchange.respond(200, text, content_type.encode(), head=head)
        elif path == READY_PATH and self.draining:
            draining = {"status": "draining", **self._whom()}
            await exchange.json(503, draining, reason="draining: shutting down", head=head)
        elif path == READY_PATH and self.processes is not None and not self.processes.all_ready:
            starting = {"status": "starting", **self._whom()}
            reason = "starting: a serving process is starting"
            await exchange.json(503, starting, reason=reason, head=head)
        elif path == READY_PATH:
            ready = {"status": "ok", **self._whom(), "indexes": self._indexes()}
            await exchange.json(200, ready, head=head)
        else:
            await exchange.json(200, {"status": "ok", **self._whom()}, head=head)

    def _indexes(self) -> dict[str, str]:
        """Each library's section index, in a phrase (``ready (933 sections)``,
        ``building (995/1,770 entries 56%)``): the server is ready whatever they are
        (a library without an index is searched without one)."""
        return {name: state.describe() for name, state in self.corpus.index_states().items()}

    def _whom(self) -> dict[str, int]:
        """What a probe's answer says besides its status: the libraries served and, with
        several serving processes, which one answered (for diagnostics)."""
        whom = {"libraries": len(self.corpus.libraries)}
        if self.processes is not None:
            whom |= {"process": self.processes.process, "pid": os.getpid()}
        return whom

    async def _forward(self, scope: Scope, receive: Receive, exchange: Exchange) -> None:
        """Read and check the body, then hand the request to the SDK with it replayed."""
        body = await read_body(scope, receive, limit=MAX_BODY_BYTES, timeout=self.body_timeout)
        if isinstance(body, BodyRefused):
            if body is CLIENT_LEFT:
                log.debug("http %s %s: %s", exchange.method, shown_path(exchange.path), body.reason)
            else:
                message = _BODY_MESSAGES[body.status].format(
                    limit=MAX_BODY_BYTES, timeout=self.body_timeout
                )
                await exchange.json(
                    body.status, _jsonrpc_error(INVALID_REQUEST, message), reason=body.reason
                )
            return
        if exchange.path == MCP_PATH and exchange.method == "POST" and _is_json(scope):
            problem = check_envelope(body)
            if problem is not None:
                await exchange.json(400, problem.response(), reason=problem.message)
                return
        await self.mcp_app(scope, replaying(body, receive), exchange.send)


def build_app(
    corpus: CorpusAPI, settings: Settings, *, port: int, processes: Processes | None = None
) -> CorpusApp:
    """The whole ASGI app for a server listening on ``port`` (the real one, not 0), one
    of several serving ``processes`` when given.

    Build a new one per server: the SDK's session manager runs only once.
    """
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts(settings, port),
        allowed_origins=allowed_origins(settings, port),
    )
    mcp_app = build_mcp_server(corpus, settings, processes).streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
        max_request_body_size=MAX_BODY_BYTES,
    )
    _quiet_sdk_noise()
    return CorpusApp(
        mcp_app,
        security,
        corpus,
        body_timeout=settings.http_body_timeout,
        log_queries=settings.log_queries,
        processes=processes,
    )
