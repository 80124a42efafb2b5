"""Bursts of searches against a real ``corpus-mcp serve``: every search is answered or
refused ``busy`` (retryable, with a retry time), none is lost, the server stays healthy.

How many a cold burst sheds depends on how fast the machine is, so that burst asserts
only what holds at any speed. Which searches are shed is shown where it does not: while
one archive hangs by its switch (``hanging_server.py``), the searches let in hold their
turns until the server gives it up, and every search beyond ``MAX_SEARCHES`` that arrives
meanwhile runs out of patience. The only time bounds are hang guards.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import trio

from corpus_mcp.demo import wikipedia

from .server_process import connect, health_status, read_until_closed, request_bytes, running_server
from .test_server_stdio import call

GUARD = 120.0
"""Hang guard for the whole burst."""
WORDS = [
    "derivative",
    "asthma",
    "linearization",
    "python",
    "vector",
    "regex",
    "migration",
    "prime",
    "harmonic",
    "insulin",
    "diamond",
    "inheritance",
    "coroutine",
    "template",
    "exception",
]
HANGING_SERVER = Path(__file__).with_name("hanging_server.py")


def _assert_busy(refusal: dict[str, Any]) -> None:
    assert refusal["error"] == "busy", refusal
    assert refusal["retry_after"] >= 1, refusal
    assert "nothing was searched" in refusal["message"], refusal


async def test_a_cold_burst_is_answered_or_refused_busy_never_lost(
    demo_corpus: Path, tmp_path: Path
) -> None:
    queries = [" ".join(pair) for pair in itertools.combinations(WORDS, 2)]  # 105, distinct
    env = {"MAX_SEARCHES": "2", "SEARCH_TIMEOUT": "2", "MAX_CONNECTIONS": "512"}
    with running_server(demo_corpus, tmp_path / "stderr.log", env=env) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        answered: list[dict[str, Any]] = []
        refused: list[dict[str, Any]] = []
        failures: list[str] = []

        async def search(http: httpx.AsyncClient, number: int, query: str) -> None:
            message = call(number, "search", {"query": query})
            try:
                reply = await http.post(url, headers={"accept": "application/json"}, json=message)
            except httpx.HTTPError as exc:
                failures.append(repr(exc))
                return
            if reply.status_code != 200:
                failures.append(f"HTTP {reply.status_code}")
                return
            result = reply.json()["result"]
            if result.get("isError"):
                refused.append(json.loads(result["content"][0]["text"]))
            else:
                answered.append(result["structuredContent"])

        limits = httpx.Limits(max_connections=len(queries))
        async with httpx.AsyncClient(timeout=GUARD, limits=limits) as http:
            with trio.fail_after(GUARD):
                async with trio.open_nursery() as nursery:
                    for number, query in enumerate(queries):
                        nursery.start_soon(search, http, number, query)
        assert health_status(server.port) == 200
        log = server.stderr
    assert failures == []
    assert len(answered) + len(refused) == len(queries)
    assert answered, "no search was let through"  # the first MAX_SEARCHES always are
    for refusal in refused:
        _assert_busy(refusal)
    assert "Traceback" not in log


def _search_request(port: int, number: int) -> bytes:
    body = json.dumps(call(number, "search", {"query": f"C3 linearization {'?' * number}"}))
    return request_bytes(port, "POST", "/mcp", body.encode(), headers={"connection": "close"})


def _whole_again(port: int) -> dict[str, Any]:
    """A search answered whole, once the hung call has returned (the guard bounds it)."""
    deadline = time.monotonic() + GUARD
    with httpx.Client(timeout=GUARD) as http:
        for attempt in itertools.count():
            message = call(attempt, "search", {"query": f"git {'!' * attempt}"})
            reply = http.post(
                f"http://127.0.0.1:{port}/mcp", json=message, headers={"accept": "application/json"}
            )
            content: dict[str, Any] = reply.json()["result"]["structuredContent"]
            if not content["partial"]:
                return content
            assert time.monotonic() < deadline, f"the library never came back: {content}"
            time.sleep(0.2)
    raise AssertionError("unreachable")


def test_searches_beyond_max_searches_are_refused_busy_while_the_admitted_hold_their_turns(
    demo_corpus: Path, tmp_path: Path
) -> None:
    """Ten searches arrive at once while Wikipedia's index hangs: the two let in hold
    their turns until the server gives the archive up (at least half of SEARCH_TIMEOUT,
    6 s), the eight others wait a quarter of it (3 s) and are refused ``busy``; the two
    answer without Wikipedia. Once the archive answers again, so do searches, whole."""
    control = tmp_path / "hang"
    env = {
        "HANG_ARCHIVE": Path(wikipedia.FILE).name,
        "HANG_CONTROL": str(control),
        "MAX_SEARCHES": "2",
        "SEARCH_TIMEOUT": "12",
    }
    argv = [sys.executable, str(HANGING_SERVER)]
    with running_server(demo_corpus, tmp_path / "stderr.log", env=env, argv=argv) as server:
        control.write_text("index")
        # Every request complete but its last byte, then the last bytes in one loop: they
        # arrive together, however long connecting took.
        requests = [_search_request(server.port, number) for number in range(1, 11)]
        sockets: list[socket.socket] = []
        for request in requests:
            sockets.append(connect(server.port))
            sockets[-1].sendall(request[:-1])
        for sock, request in zip(sockets, requests, strict=True):
            sock.sendall(request[-1:])
        replies = []
        for sock in sockets:
            with sock:
                replies.append(read_until_closed(sock, GUARD))
        results = [json.loads(reply.responses[0].body)["result"] for reply in replies]
        answered = [result["structuredContent"] for result in results if not result.get("isError")]
        refused = [
            json.loads(result["content"][0]["text"]) for result in results if result.get("isError")
        ]
        assert len(answered) == 2, answered
        for content in answered:
            assert content["unavailable_libraries"] == ["Wikipedia"], content
            assert content["results"], content
        assert len(refused) == 8, refused
        for refusal in refused:
            _assert_busy(refusal)
        assert health_status(server.port) == 200
        control.write_text("")
        content = _whole_again(server.port)
        assert any(result["library"] == "Wikipedia" for result in content["results"])
        log = server.stderr
    assert "Traceback" not in log
