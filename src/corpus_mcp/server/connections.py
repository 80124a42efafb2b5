"""Connections: accepting under a cap, shedding the excess, closing without resets.

hypercorn's trio worker accepts with ``trio.serve_listeners``: no bound on open
connections and an EMFILE traceback every 0.1 s at the descriptor limit. This module
replaces that part and keeps hypercorn's per-connection protocol handling
(``TCPServer``):

- at most ``MAX_CONNECTIONS`` connections are served; the next ones are answered
  ``503`` at once (a bounded number at a time) and beyond that wait in the kernel's
  backlog, so a flood costs neither memory nor descriptors;
- the cap is fitted under the process's open-file limit at startup (raising the soft
  limit where the hard one allows), and an accept that still fails for lack of
  descriptors is retried quietly, logged at most once per :data:`EMFILE_LOG_SECONDS`;
- every connection is a :class:`~corpus_mcp.server.streams.LingeringStream`: its
  writes are bounded by ``HTTP_SEND_TIMEOUT`` and its close lingers, so an early answer
  (413, 408, 503) is never reset away;
- with several serving processes on one socket (``WORKERS``), a process that serves
  more connections than another lets that one take the next (:class:`Balance`). The
  kernel wakes every process for each connection and the first to call ``accept`` gets
  it: measured under 16 agents on 2 cores, one process took all 16 connections of a
  burst, and the other none; with the balance, 8 each (DEVELOPERS.md).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import resource
import select
import socket
from collections.abc import Awaitable, Callable
from typing import Protocol

import trio

from corpus_mcp.server.streams import LingeringStream

log = logging.getLogger("corpus_mcp.server")

SHED_LINGER_SECONDS = 0.5
"""The same for a connection answered 503 at once: a client sends its request right
after connecting, and a shed slot held by a silent client blocks the next refusal."""
SHED_CONNECTIONS = 32
"""Connections beyond the cap answered 503 at the same time; more wait in the backlog."""
FD_MARGIN = 32
"""Descriptors kept free for everything but connections (logging, threads' files...)."""
ACCEPT_RETRY_SECONDS = 0.1
EMFILE_LOG_SECONDS = 10.0
_CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

BALANCE_DEFER_SECONDS = 0.05
"""How long a process serving more connections than another waits, once a connection is
pending, for that one to accept it; then it accepts it itself (the other may be busy)."""

ServeConnection = Callable[[LingeringStream], Awaitable[None]]


class Balance(Protocol):
    """The connections of the other processes accepting from the same socket."""

    def served(self, count: int) -> None:
        """This process accepts, and serves ``count`` connections now."""

    def stopped(self) -> None:
        """This process accepts no more connections (it drains)."""

    def fewer_elsewhere(self, count: int) -> bool:
        """Whether another accepting process serves fewer than ``count``."""


def shed_response(reason: str) -> bytes:
    """A complete ``503`` for a connection the server will not serve (JSON-RPC error body)."""
    error = {"code": SERVER_UNAVAILABLE, "message": reason}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "retry-after: 1\r\n"
        "connection: close\r\n\r\n"
    ).encode()
    return head + body


SERVER_UNAVAILABLE = -32000
"""JSON-RPC code (implementation-defined server error range) of a retryable refusal."""
OVERLOADED = "The server has too many open connections; retry shortly."
SHUTTING_DOWN = "The server is shutting down; retry shortly."


class ConnectionPool:
    """Accepts connections and hands at most ``limit`` of them to ``serve`` at once."""

    def __init__(
        self,
        serve: ServeConnection,
        *,
        limit: int,
        shed_limit: int,
        send_timeout: float,
        balance: Balance | None = None,
    ) -> None:
        self._serve = serve
        self._balance = balance
        self._accepting = False
        self.limit = limit
        self.shed_limit = shed_limit
        self._send_timeout = send_timeout
        self.open = 0
        self.shedding = 0
        self.peak = 0
        self.shed_total = 0
        self._streams: set[LingeringStream] = set()
        self._freed = trio.Event()
        self._last_emfile_log = -EMFILE_LOG_SECONDS

    async def accept_forever(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        """Accept from ``listener`` until cancelled; connections run in ``nursery``."""
        self._accepting = True
        self._report()
        while True:
            while self.open >= self.limit and self.shedding >= self.shed_limit:
                await self._freed.wait()  # both full: let the kernel's backlog hold them
            if await self._left_to_another(listener):
                continue
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in _CAPACITY_ERRNOS:
                    raise
                self._log_capacity(exc)
                await trio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            self.admit(stream, nursery, OVERLOADED)

    async def _left_to_another(self, listener: trio.SocketListener) -> bool:
        """When another process serves fewer connections: once one is pending, give that
        process the time to take it. Whether it did (else this process takes it)."""
        if self._balance is None or not self._balance.fewer_elsewhere(self.open):
            return False
        descriptor = listener.socket.fileno()
        await trio.lowlevel.wait_readable(descriptor)
        await trio.sleep(BALANCE_DEFER_SECONDS)
        poller = select.poll()  # not select(): descriptors may exceed FD_SETSIZE
        poller.register(descriptor, select.POLLIN)
        return not poller.poll(0)

    def stop_balancing(self) -> None:
        """Accepting has ended: the other processes take every new connection."""
        self._accepting = False
        if self._balance is not None:
            self._balance.stopped()

    def _report(self) -> None:
        if self._balance is not None and self._accepting:
            self._balance.served(self.open)

    async def wait_closed(self) -> None:
        """Until every connection (served or being refused) has closed."""
        while self.open or self.shedding:
            await self._freed.wait()

    def admit(self, stream: trio.SocketStream, nursery: trio.Nursery, refusal: str) -> None:
        """Serve ``stream`` if there is room, else answer it 503 with ``refusal``."""
        if self.open < self.limit:
            self.open += 1
            self.peak = max(self.peak, self.open)
            self._report()
            served = LingeringStream(stream, send_timeout=self._send_timeout)
            self._streams.add(served)
            nursery.start_soon(self._run, served)
        else:
            self.shedding += 1
            self.shed_total += 1
            shed = LingeringStream(
                stream, send_timeout=self._send_timeout, linger=SHED_LINGER_SECONDS
            )
            self._streams.add(shed)
            nursery.start_soon(self._shed, shed, refusal)

    def limit_writes(self, deadline: float) -> None:
        """Bound every connection's writes by ``deadline`` (the end of a shutdown)."""
        for stream in self._streams:
            stream.limit_writes(deadline)

    def accept_backlog(self, sock: socket.socket, nursery: trio.Nursery, refusal: str) -> int:
        """Take every connection already waiting on ``sock`` without blocking; how many.

        Used when shutting down: a connection the kernel completed is a client that
        may have sent its call, and closing the listener would reset it.
        """
        taken = 0
        while True:
            try:
                conn, _ = sock.accept()
            except (BlockingIOError, InterruptedError):
                return taken
            except OSError as exc:
                if exc.errno in _CAPACITY_ERRNOS:
                    self._log_capacity(exc)
                    return taken
                if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                    continue
                raise
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.admit(trio.SocketStream(trio.socket.from_stdlib_socket(conn)), nursery, refusal)
            taken += 1

    async def _run(self, stream: LingeringStream) -> None:
        try:
            await self._serve(stream)
        except Exception:
            # hypercorn handles protocol and socket errors itself; anything else is a
            # bug that must end this connection, never the server.
            log.exception("connection handler failed")
        finally:
            try:
                await stream.aclose()  # hypercorn has closed it already, unless it failed
            finally:
                self.open -= 1  # only now is its descriptor free
                self._streams.discard(stream)
                self._signal_freed()
                self._report()

    async def _shed(self, stream: LingeringStream, refusal: str) -> None:
        try:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await stream.send_all(shed_response(refusal))
            await stream.aclose()
        finally:
            self.shedding -= 1
            self._streams.discard(stream)
            self._signal_freed()

    def _signal_freed(self) -> None:
        self._freed.set()
        self._freed = trio.Event()

    def _log_capacity(self, exc: OSError) -> None:
        now = trio.current_time()
        if now - self._last_emfile_log >= EMFILE_LOG_SECONDS:
            self._last_emfile_log = now
            log.warning(
                "cannot accept connections: %s (%d open); retrying every %.1f s, "
                "next report in %.0f s at the earliest",
                os.strerror(exc.errno or 0),
                self.open + self.shedding,
                ACCEPT_RETRY_SECONDS,
                EMFILE_LOG_SECONDS,
            )


def fit_connection_limit(wanted: int) -> tuple[int, int]:
    """``(connections, shed)`` that fit under the open-file limit, raising it if allowed.

    Counts the descriptors already open (archives, the event loop) and keeps
    :data:`FD_MARGIN` spare. When even the hard limit is too low, the cap is lowered
    with a warning: refusing to serve over it would help no one.
    """
    in_use = _open_descriptors()
    shed = SHED_CONNECTIONS
    needed = wanted + shed + in_use + FD_MARGIN
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return wanted, shed
    budget = max(2, soft - in_use - FD_MARGIN)
    shed = max(1, min(SHED_CONNECTIONS, budget // 8))
    fitted = max(1, budget - shed)
    log.warning(
        "MAX_CONNECTIONS=%d lowered to %d: the open-file limit is %d with %d in use "
        "(raise it with `ulimit -n` or compose's ulimits.nofile)",
        wanted,
        fitted,
        soft,
        in_use,
    )
    return fitted, shed


def _open_descriptors() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # not Linux: assume a small process
        return 64
