"""The connection layer in one process, over real socket pairs.

What the fault suite shows from outside (complete early answers, no resets, bounded
writes, the cap) is pinned here at the level of one stream or one pool, with trio's
autojump clock where waiting is the point, so no test waits for real.
"""

from __future__ import annotations

import json
import logging
import resource

import pytest
import trio
import trio.testing

from corpus_mcp.server import connections
from corpus_mcp.server.connections import OVERLOADED, ConnectionPool, fit_connection_limit
from corpus_mcp.server.streams import LingeringStream

BIG = b"x" * (16 * 1024 * 1024)  # more than any pair of socket buffers holds


def _pair() -> tuple[trio.SocketStream, trio.SocketStream]:
    ours, theirs = trio.socket.socketpair()
    return trio.SocketStream(ours), trio.SocketStream(theirs)


async def _read_all(stream: trio.SocketStream) -> tuple[bytes, str]:
    """Everything until the end, and how it ended: ``eof`` or ``reset``; then the client
    closes its side too, as an HTTP client does (which ends the server's lingering)."""
    received = b""
    try:
        while chunk := await stream.receive_some(65536):
            received += chunk
    except trio.BrokenResourceError:
        return received, "reset"
    finally:
        await stream.aclose()
    return received, "eof"


async def test_an_answer_sent_before_the_request_was_read_survives_the_close() -> None:
    server, client = _pair()
    stream = LingeringStream(server, send_timeout=10)
    outcome: list[tuple[bytes, str]] = []

    async def client_sends_then_reads() -> None:
        await client.send_all(b"POST /mcp ...head and a large body..." + b"y" * 1_000_000)
        outcome.append(await _read_all(client))  # a failed send would have raised

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client_sends_then_reads)
        await stream.send_all(b"HTTP/1.1 413 Content Too Large\r\ncontent-length: 4\r\n\r\nbig!")
        await stream.aclose()  # lingers: reads and drops the body the client still sends
    [(received, ended)] = outcome
    assert received.endswith(b"\r\n\r\nbig!")
    assert ended == "eof"


async def test_a_close_from_another_task_waits_for_the_response_being_written() -> None:
    server, client = _pair()
    stream = LingeringStream(server, send_timeout=10)
    outcome: list[tuple[bytes, str]] = []

    async def close_meanwhile() -> None:
        await stream.send_eof()
        await stream.aclose()

    async def client_reads() -> None:
        outcome.append(await _read_all(client))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client_reads)
        stream.response_started()
        await stream.send_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")
        nursery.start_soon(close_meanwhile)
        await trio.testing.wait_all_tasks_blocked()  # the close is waiting for us
        await stream.send_all(b"hello")
        stream.response_finished()
    [(received, ended)] = outcome
    assert received.endswith(b"\r\n\r\nhello")
    assert ended == "eof"


async def test_a_write_the_client_never_reads_ends_after_the_send_timeout(
    autojump_clock: trio.abc.Clock,
) -> None:
    server, client = _pair()  # the client never reads
    stream = LingeringStream(server, send_timeout=3)
    started = trio.current_time()
    with pytest.raises(trio.BrokenResourceError):
        await stream.send_all(BIG)
    assert trio.current_time() - started >= 3
    with pytest.raises(trio.BrokenResourceError):  # a cut-short write breaks the stream
        await stream.send_all(b"more")
    await client.aclose()
    await server.aclose()


async def test_limit_writes_ends_a_write_already_blocked(autojump_clock: trio.abc.Clock) -> None:
    server, client = _pair()
    stream = LingeringStream(server, send_timeout=1000)
    outcome: list[str] = []

    async def write() -> None:
        try:
            await stream.send_all(BIG)
        except trio.BrokenResourceError:
            outcome.append("cut")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write)
        await trio.testing.wait_all_tasks_blocked()
        stream.limit_writes(trio.current_time() + 1)
    assert outcome == ["cut"]
    assert trio.current_time() < 1000
    await client.aclose()
    await server.aclose()


async def test_the_pool_serves_up_to_its_limit_and_answers_the_rest_503() -> None:
    release = trio.Event()
    served: list[LingeringStream] = []

    async def serve(stream: LingeringStream) -> None:
        served.append(stream)
        await release.wait()

    pool = ConnectionPool(serve, limit=2, shed_limit=4, send_timeout=10)
    clients = []
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            server, client = _pair()
            clients.append(client)
            pool.admit(server, nursery, OVERLOADED)
        await trio.testing.wait_all_tasks_blocked()
        assert (pool.open, len(served)) == (2, 2)
        received, ended = await _read_all(clients[2])
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ")
        assert b"retry-after: 1" in head
        assert json.loads(body)["error"]["message"] == OVERLOADED
        assert ended == "eof"
        release.set()
        for client in clients[:2]:
            assert await _read_all(client) == (b"", "eof")
        await pool.wait_closed()
    assert (pool.open, pool.shedding, pool.peak, pool.shed_total) == (0, 0, 2, 1)


async def test_a_failing_handler_ends_its_connection_not_the_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def serve(stream: LingeringStream) -> None:
        raise RuntimeError("a bug in a handler")

    pool = ConnectionPool(serve, limit=2, shed_limit=1, send_timeout=10)
    server, client = _pair()
    async with trio.open_nursery() as nursery:
        pool.admit(server, nursery, OVERLOADED)
        assert await _read_all(client) == (b"", "eof")
    assert pool.open == 0
    assert "connection handler failed" in caplog.text


def test_the_cap_is_lowered_under_a_hard_descriptor_limit(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def setrlimit(kind: int, limits: tuple[int, int]) -> None:
        raise ValueError("not allowed above the hard limit")

    monkeypatch.setattr(resource, "getrlimit", lambda kind: (200, 200))
    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    monkeypatch.setattr(connections, "_open_descriptors", lambda: 40)
    caplog.set_level(logging.WARNING, logger="corpus_mcp.server")
    limit, shed = fit_connection_limit(256)
    assert limit + shed + 40 + connections.FD_MARGIN <= 200
    assert limit > 0
    assert 0 < shed <= connections.SHED_CONNECTIONS
    assert f"MAX_CONNECTIONS=256 lowered to {limit}" in caplog.text


def test_the_soft_descriptor_limit_is_raised_when_the_hard_one_allows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raised: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (256, 100_000))
    monkeypatch.setattr(resource, "setrlimit", lambda kind, limits: raised.append(limits))
    monkeypatch.setattr(connections, "_open_descriptors", lambda: 40)
    assert fit_connection_limit(1000) == (1000, connections.SHED_CONNECTIONS)
    needed = 1000 + connections.SHED_CONNECTIONS + 40 + connections.FD_MARGIN
    assert raised == [(needed, 100_000)]


def test_an_unlimited_descriptor_limit_keeps_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    unlimited = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    monkeypatch.setattr(resource, "getrlimit", lambda kind: unlimited)
    assert fit_connection_limit(5000) == (5000, connections.SHED_CONNECTIONS)
