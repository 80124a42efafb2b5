"""A connection's socket stream: writes bounded in time, a close that lingers.

hypercorn closes a connection with a plain ``close()``; when the client is still
sending (a body the server refused to read, a pipelined request), the kernel answers
with a reset, which can destroy the response the client was just given. Here the
server's side is shut first (FIN after the last response byte), then input is read
and discarded until the client closes or :data:`LINGER_SECONDS` pass. hypercorn also
shields its writes from cancellation, so a client that never reads would hold a write,
and the server's shutdown, forever: every write here has a deadline.
"""

from __future__ import annotations

import contextlib
import logging
import math

import trio

log = logging.getLogger("corpus_mcp.server")

LINGER_SECONDS = 2.0
"""How long a closing connection keeps reading (and discarding) what the client sends."""
_DISCARD_BYTES = 65536


class LingeringStream(trio.abc.HalfCloseableStream):
    """A socket stream whose writes are bounded in time and whose close lingers.

    hypercorn reads in one task and closes from another, so a close may find a
    receive in progress: that receive then does the lingering (it is the only task
    allowed to read) and the close waits for it, within the same deadline.

    It is also the connection's :class:`~corpus_mcp.server.http.ResponseGuard`: when
    hypercorn's reading task decides to close (a client pipelining past a
    ``connection: close``, or sending garbage) while the app is between a response's
    head and its body, the close waits for that response to be written first.
    """

    def __init__(
        self, stream: trio.SocketStream, *, send_timeout: float, linger: float = LINGER_SECONDS
    ) -> None:
        self._stream = stream
        self._send_timeout = send_timeout
        self._linger_seconds = linger
        self._linger_until: float | None = None
        self._receiving = False
        self._lingering = False
        self._drained = trio.Event()
        self._closed = False
        self._send_broken = False
        self._send_deadline = math.inf
        self._send_scope: trio.CancelScope | None = None
        self._responder: trio.lowlevel.Task | None = None
        self._response_done = trio.Event()

    def limit_writes(self, deadline: float) -> None:
        """End any write, current or later, that is still blocked at ``deadline``."""
        self._send_deadline = min(self._send_deadline, deadline)
        if self._send_scope is not None:
            self._send_scope.deadline = min(self._send_scope.deadline, deadline)

    def response_started(self) -> None:
        self._responder = trio.lowlevel.current_task()
        self._response_done = trio.Event()

    def response_finished(self) -> None:
        self._responder = None
        self._response_done.set()

    async def _after_response(self) -> None:
        """Wait for a response another task is writing (its own closes go through)."""
        if self._responder not in (None, trio.lowlevel.current_task()):
            with trio.move_on_after(self._send_timeout):
                await self._response_done.wait()

    @property
    def socket(self) -> trio.socket.SocketType:
        """hypercorn reads the peer and local addresses from it."""
        return self._stream.socket

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._send_broken:  # after a write cut short, any byte more would corrupt it
            raise trio.BrokenResourceError("an earlier write was cut short")
        deadline = min(trio.current_time() + self._send_timeout, self._send_deadline)
        # hypercorn shields its writes from cancellation, so this deadline is the only
        # thing that ends a write to a client that does not read.
        with trio.CancelScope(deadline=deadline) as waited:
            self._send_scope = waited
            try:
                await self._stream.send_all(data)
            finally:
                self._send_scope = None
        if waited.cancelled_caught:
            # A write cut short leaves the stream unusable; hypercorn closes it.
            self._send_broken = True
            log.info(
                "connection closed: the client read nothing for %g s (HTTP_SEND_TIMEOUT)",
                self._send_timeout,
            )
            raise trio.BrokenResourceError("the client did not read the response in time")

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self._after_response()
        await self._stream.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._linger_until is not None:
            await self._linger()
            return b""
        self._receiving = True
        try:
            data = await self._stream.receive_some(max_bytes)
        finally:
            self._receiving = False
        if self._linger_until is not None:  # closing began while this receive waited
            if data:
                await self._linger()
            self._drained.set()
            return b""
        return data

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._after_response()
            self._linger_until = trio.current_time() + self._linger_seconds
            with contextlib.suppress(
                trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError
            ):
                await self._stream.send_eof()
            if self._receiving:
                with trio.move_on_at(self._linger_until):
                    await self._drained.wait()
            else:
                await self._linger()
        finally:
            await self._stream.aclose()

    async def _linger(self) -> None:
        """Read and drop input until the client closes or the linger deadline passes."""
        if self._lingering:
            await self._drained.wait()
            return
        self._lingering = True
        assert self._linger_until is not None
        try:
            with trio.move_on_at(self._linger_until):
                while await self._stream.receive_some(_DISCARD_BYTES):
                    pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._drained.set()
