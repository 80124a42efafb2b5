"""MCP over stdio: newline-delimited JSON-RPC on stdin and stdout, for hosts that start
the server as a subprocess (Claude Desktop, Claude Code, VS Code, Cursor, ...).

The messages are handled by the same low-level Server as over HTTP
(:func:`corpus_mcp.server.app.build_mcp_server`) through the SDK's own serving loop
(``Server.run``, both protocol eras), so tools, schemas, validation, errors and logs
are the same. Only the transport is ours: the SDK's ``mcp.server.stdio.stdio_server``
reads stdin in a worker thread that cannot be cancelled, so under trio a SIGTERM while
the host keeps stdin open waited for the next line (seen with mcp 2.3.0). Here every
read and write runs in a worker thread that is abandoned on cancellation, so:

- SIGTERM or SIGINT stop the process at once (exit 0);
- EOF on stdin means no more requests: the requests already read are answered (within
  :data:`DRAIN_SECONDS`), then the process exits 0 (``corpus-mcp stdio <
  requests.jsonl`` gets every answer);
- a host that closes our stdout ends the session the same way.

Nothing but protocol reaches stdout: before the corpus is opened, the wire moves to
private descriptors and fd 1 points at stderr (fd 0 at ``/dev/null``), so a stray
``print`` or a C library's output cannot corrupt a frame. A line that is not JSON-RPC,
or is longer than :data:`MAX_LINE_BYTES`, is answered with a JSON-RPC error
(``id: null``) and logged, like a refused HTTP request.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from typing import BinaryIO

import anyio
import mcp_types as types
import trio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from corpus_mcp.config import Manifest, Settings
from corpus_mcp.server.app import MAX_BODY_BYTES, CorpusAPI, build_mcp_server
from corpus_mcp.server.serve import run_program

log = logging.getLogger("corpus_mcp.server")

MAX_LINE_BYTES = MAX_BODY_BYTES
"""The HTTP body cap, per message: tool arguments are tiny."""

DRAIN_SECONDS = 30
"""After EOF, how long requests already read may take to be answered (searches are
bounded by SEARCH_TIMEOUT, so this is only reached by something stuck)."""
CANCELLED = "notifications/cancelled"

Incoming = SessionMessage | Exception


class StdioUnavailable(Exception):
    """Standard input or output is not open, so there is no wire to serve on."""


class Outstanding:
    """Ids of requests read but not answered yet, so that EOF can wait for their answers."""

    def __init__(self) -> None:
        self._ids: set[types.RequestId] = set()
        self._changed = trio.Event()

    def add(self, request_id: types.RequestId) -> None:
        self._ids.add(request_id)

    def answered(self, request_id: types.RequestId | None) -> None:
        if request_id in self._ids:
            self._ids.discard(request_id)
            changed, self._changed = self._changed, trio.Event()
            changed.set()

    async def wait_all_answered(self) -> None:
        while self._ids:
            await self._changed.wait()


def _error_frame(code: int, message: str) -> SessionMessage:
    """A JSON-RPC error for a line whose request id cannot be known (``id: null``)."""
    error = types.ErrorData(code=code, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


def parse_frame(line: bytes) -> SessionMessage | tuple[SessionMessage, str]:
    """One line as a message, or the error frame to answer and the reason to log."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        try:
            json.loads(line)
        except ValueError:
            reason = "not JSON"
            return _error_frame(types.PARSE_ERROR, f"Parse error: {reason}"), reason
        reason = "JSON but not a JSON-RPC 2.0 message"
        return _error_frame(types.INVALID_REQUEST, f"Invalid Request: {reason}"), reason
    return SessionMessage(message)


def _discard_rest_of_line(wire_in: BinaryIO) -> None:
    while True:
        chunk = wire_in.readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


async def _read_frames(
    wire_in: BinaryIO,
    incoming: MemoryObjectSendStream[Incoming],
    refusals: MemoryObjectSendStream[SessionMessage],
    outstanding: Outstanding,
) -> None:
    """stdin -> the session, line by line; at EOF, close it once every request is answered."""
    async with incoming, refusals:
        try:
            await _read_lines(wire_in, incoming, refusals, outstanding)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the session ended on its own; nothing is left to read for


async def _read_lines(
    wire_in: BinaryIO,
    incoming: MemoryObjectSendStream[Incoming],
    refusals: MemoryObjectSendStream[SessionMessage],
    outstanding: Outstanding,
) -> None:
    """One message a line; refusals are answered here; returns at EOF once the requests
    already read are answered."""
    while True:
        line = await trio.to_thread.run_sync(
            wire_in.readline, MAX_LINE_BYTES + 1, abandon_on_cancel=True
        )
        if not line:
            log.info("stdio: end of input")
            with trio.move_on_after(DRAIN_SECONDS) as draining:
                await outstanding.wait_all_answered()
            if draining.cancelled_caught:
                log.warning("stdio: requests still unanswered after %d s: stopping", DRAIN_SECONDS)
            return
        if len(line) > MAX_LINE_BYTES:
            if not line.endswith(b"\n"):
                await trio.to_thread.run_sync(
                    _discard_rest_of_line, wire_in, abandon_on_cancel=True
                )
            log.info("stdio message refused: longer than %d bytes", MAX_LINE_BYTES)
            too_long = f"Invalid Request: message longer than {MAX_LINE_BYTES} bytes"
            await refusals.send(_error_frame(types.INVALID_REQUEST, too_long))
            continue
        if not line.strip():
            continue
        parsed = parse_frame(line)
        if isinstance(parsed, tuple):
            frame, reason = parsed
            log.info("stdio message refused: %s", reason)
            await refusals.send(frame)
            continue
        message = parsed.message
        if isinstance(message, types.JSONRPCRequest):
            outstanding.add(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == CANCELLED:
            # A cancelled request gets no answer: EOF must not wait for one.
            outstanding.answered((message.params or {}).get("requestId"))
        await incoming.send(parsed)


def _write_line(wire_out: BinaryIO, frame: bytes) -> None:
    """All of ``frame`` (an unbuffered write may be partial when a signal interrupts it)."""
    view = memoryview(frame)
    while view:
        view = view[wire_out.write(view) :]
    wire_out.flush()


async def _write_frames(
    wire_out: BinaryIO,
    outgoing: MemoryObjectReceiveStream[SessionMessage],
    outstanding: Outstanding,
    client_gone: trio.CancelScope,
) -> None:
    """The session -> stdout, one JSON line per message, flushed at once."""
    async with outgoing:
        async for session_message in outgoing:
            message = session_message.message
            encoded = message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                await trio.to_thread.run_sync(
                    _write_line, wire_out, encoded.encode() + b"\n", abandon_on_cancel=True
                )
            except OSError as exc:  # EPIPE: the host closed its end
                log.info("stdio: output closed by the client (%s): stopping", exc.strerror)
                client_gone.cancel()
                return
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                outstanding.answered(message.id)


@asynccontextmanager
async def stdio_streams(
    wire_in: BinaryIO, wire_out: BinaryIO
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]
]:
    """The session's read and write streams over two binary files (the wire).

    When the session ends by itself (after EOF), everything it sent is written before
    this exits. When it is cancelled (a signal) or the client closes our output,
    nothing is waited for: worker threads blocked on the wire are abandoned.
    """
    incoming_send, incoming = anyio.create_memory_object_stream[Incoming](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    outstanding = Outstanding()
    reading = trio.CancelScope()

    async def read() -> None:
        with reading:
            await _read_frames(wire_in, incoming_send, outgoing.clone(), outstanding)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        nursery.start_soon(
            _write_frames, wire_out, outgoing_receive, outstanding, nursery.cancel_scope
        )
        yield incoming, outgoing
        # The session is over. The reader normally ended first (EOF is what ends a
        # session); the writer ends once it has written what the session sent.
        reading.cancel()
        await outgoing.aclose()


async def serve_stdio(
    corpus: CorpusAPI, settings: Settings, stop: trio.Event, wire_in: BinaryIO, wire_out: BinaryIO
) -> None:
    """Serve one MCP session over the wire until EOF, a closed output, or ``stop``."""
    server = build_mcp_server(corpus, settings)
    log.info("serving %s over stdio", ", ".join(corpus.libraries))
    async with trio.open_nursery() as nursery:

        async def cancel_on_stop() -> None:
            await stop.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(cancel_on_stop)
        async with stdio_streams(wire_in, wire_out) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        nursery.cancel_scope.cancel()


@contextmanager
def claim_standard_streams() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The process's stdin and stdout as the wire, with fd 0 and fd 1 moved out of the way.

    While claimed, fd 0 reads ``/dev/null`` and fd 1 writes to stderr, so nothing but
    the protocol can reach the real stdout; both are restored on exit. The input
    descriptor is left open: a worker thread abandoned on SIGTERM may still be blocked
    reading it, and closing a descriptor under a blocked read lets its number be reused.
    """
    sys.stdout.flush()
    try:
        wire_in_fd = os.dup(0)
        wire_out_fd = os.dup(1)
    except OSError as exc:
        raise StdioUnavailable(f"standard input and output must be open ({exc.strerror})") from exc
    # Blocking I/O in worker threads is the design; a parent may have left the
    # descriptors non-blocking.
    os.set_blocking(wire_in_fd, True)
    os.set_blocking(wire_out_fd, True)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    # Unbuffered, so that closing it never blocks on a flush to a host that stopped reading.
    wire_out = os.fdopen(wire_out_fd, "wb", buffering=0)
    try:
        yield os.fdopen(wire_in_fd, "rb", closefd=False), wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_in_fd, 0)
        os.dup2(wire_out_fd, 1)
        wire_out.close()


def main(settings: Settings, manifest: Manifest) -> int:
    """``corpus-mcp stdio``: 0 after EOF, a signal or a closed output; 1 if it cannot start."""
    try:
        with claim_standard_streams() as (wire_in, wire_out):
            transport = partial(_serve_wire, wire_in=wire_in, wire_out=wire_out)
            return run_program(settings, manifest, transport)
    except StdioUnavailable as exc:
        print(f"corpus-mcp stdio: {exc}", file=sys.stderr)
        return 1


async def _serve_wire(
    corpus: CorpusAPI,
    settings: Settings,
    stop: trio.Event,
    *,
    wire_in: BinaryIO,
    wire_out: BinaryIO,
) -> None:
    await serve_stdio(corpus, settings, stop, wire_in, wire_out)
