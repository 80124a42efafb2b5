"""HTTP exchanges at the ASGI level: guards, the request body, refusals and their logs.

Everything here runs before the SDK sees a request, so that what a client can get
wrong or do slowly is answered by one complete, explained response (with the
connection closed where the rest of the request cannot be trusted), logged in one
line without a traceback, and never reaches the SDK's error paths (which log an
ERROR with a traceback and answer 500 for a client that merely went away).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

import msgspec
import trio

log = logging.getLogger("corpus_mcp.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONNECTION_KEY = "corpus_mcp.connection"
"""Where the server puts the connection's :class:`ResponseGuard` in ``scope["state"]``."""


class ResponseGuard(Protocol):
    """The connection's side of a response: closing waits while one is being written."""

    def response_started(self) -> None: ...

    def response_finished(self) -> None: ...


CLOSING_STATUSES = frozenset({408, 413, 503})
"""Refusals after which the rest of the connection's input cannot be trusted (or the
server wants the client gone): the response says ``connection: close``."""
_SHOWN_PATH_CHARS = 120


def header_values(scope: Scope, name: bytes) -> list[str]:
    """Every value of header ``name`` (lowercase), in order."""
    return [
        bytes(value).decode("latin-1")
        for key, value in scope.get("headers", ())
        if bytes(key).lower() == name
    ]


def header_allowed(value: str, allowed: list[str]) -> bool:
    """The SDK's matching rule: an exact value, or ``base:*`` for ``base`` on any port."""
    return value in allowed or any(
        pattern.endswith(":*") and value.startswith(pattern[:-1]) for pattern in allowed
    )


def host_origin_refusal(
    scope: Scope, allowed_hosts: list[str], allowed_origins: list[str]
) -> tuple[int, str] | None:
    """The status and reason to refuse a request for its Host or Origin, or ``None``.

    Every value counts: one Host exactly (RFC 9112 demands 400 for several), and all
    Origin values allowed and equal, so a second header cannot smuggle another origin.
    A request without Origin (not from a browser) is accepted.
    """
    hosts = header_values(scope, b"host")
    if len(hosts) > 1:
        return 400, "More than one Host header"
    if not hosts or not header_allowed(hosts[0], allowed_hosts):
        return 421, "Invalid Host header"
    origins = header_values(scope, b"origin")
    if len(set(origins)) > 1:
        return 403, "Conflicting Origin headers"
    if origins and not header_allowed(origins[0], allowed_origins):
        return 403, "Invalid Origin header"
    return None


def shown_path(path: str) -> str:
    """A request path as it may appear in a log line: quoted (no forged lines), bounded."""
    return json.dumps(path[:_SHOWN_PATH_CHARS] + ("…" if len(path) > _SHOWN_PATH_CHARS else ""))


class Exchange:
    """The response side of one request: what was sent, connection closing, refusal logs.

    The response says ``connection: close`` when ``closing()`` is true at its start
    (the server is draining), for the statuses in :data:`CLOSING_STATUSES`, and for a
    refusal sent before the body was read (``close=True``): that connection's input
    is not worth reading on. A refusal (status 400 and up) is logged as one line, with
    ``reason`` when the refusal is ours.
    """

    def __init__(self, send: Send, method: str, path: str, *, closing: Callable[[], bool]) -> None:
        self._send = send
        self.method = method
        self.path = path
        self._closing = closing
        self._close = False
        self.status: int | None = None
        self.reason = ""
        self._guard: ResponseGuard | None = None

    def guarded_by(self, scope: Scope) -> Exchange:
        """Tell the connection (when the server gave one) while a response is written."""
        guard = (scope.get("state") or {}).get(CONNECTION_KEY)
        self._guard = guard if hasattr(guard, "response_started") else None
        return self

    def finish(self) -> None:
        """The response is complete, or will never be: closing need not wait any more."""
        if self._guard is not None:
            self._guard.response_finished()
            self._guard = None

    @property
    def started(self) -> bool:
        return self.status is not None

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            headers = list(message.get("headers", ()))
            close = self._close or self._closing() or self.status in CLOSING_STATUSES
            if close and not any(bytes(key).lower() == b"connection" for key, _ in headers):
                headers.append((b"connection", b"close"))
            message = {**message, "headers": headers}
            if self._guard is not None:
                self._guard.response_started()
            if self.status >= 400:
                because = f": {self.reason}" if self.reason else ""
                log.info(
                    "http %s %s refused status=%d%s",
                    self.method,
                    shown_path(self.path),
                    self.status,
                    because,
                )
        await self._send(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.finish()

    async def respond(
        self,
        status: int,
        body: bytes,
        content_type: bytes,
        *,
        reason: str = "",
        extra: list[tuple[bytes, bytes]] | None = None,
        head: bool = False,
        close: bool = False,
    ) -> None:
        """A complete response (``head``: headers only, as for HEAD)."""
        self.reason = reason
        self._close = close
        headers = [
            (b"content-type", content_type),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *(extra or []),
        ]
        await self.send({"type": "http.response.start", "status": status, "headers": headers})
        await self.send({"type": "http.response.body", "body": b"" if head else body})

    async def text(self, status: int, text: str, *, reason: str = "", **kw: Any) -> None:
        await self.respond(status, text.encode(), b"text/plain; charset=utf-8", reason=reason, **kw)

    async def json(self, status: int, body: object, *, reason: str = "", **kw: Any) -> None:
        await self.respond(
            status, json.dumps(body).encode(), b"application/json", reason=reason, **kw
        )


class BodyRefused(msgspec.Struct, frozen=True):
    """Why a request body was not read in full (``status`` 0: the client left)."""

    status: int
    reason: str


CLIENT_LEFT = BodyRefused(0, "the client closed the connection before the body was complete")


async def read_body(
    scope: Scope, receive: Receive, *, limit: int, timeout: float
) -> bytes | BodyRefused:
    """The whole request body, or why not: too large (413), too slow (408), client gone.

    A declared ``content-length`` over ``limit`` is refused before reading anything;
    ``timeout`` bounds the time from the request's head to the body's last byte.
    """
    for declared in header_values(scope, b"content-length"):
        if declared.strip().isdigit() and int(declared) > limit:
            return BodyRefused(413, f"declared body of {int(declared)} bytes, limit {limit}")
    body = bytearray()
    with trio.move_on_after(timeout):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return CLIENT_LEFT
            body += message.get("body", b"")
            if len(body) > limit:
                return BodyRefused(413, f"body over the limit of {limit} bytes")
            if not message.get("more_body", False):
                return bytes(body)
    return BodyRefused(408, f"body not complete after {timeout:g} s (HTTP_BODY_TIMEOUT)")


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that yields ``body`` in one message, then defers to ``receive``
    (which reports the client's disconnect when it comes)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay
