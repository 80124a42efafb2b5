"""A cold burst of distinct searches against a real ``corpus-mcp serve``: every search is
answered or refused ``busy`` (retryable, with a retry time), none is lost, the server
stays healthy. The only time bounds are hang guards."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import trio

from .server_process import health_status, running_server
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
    # Two at a time and a half-second patience cannot take 105 cold searches at once.
    assert refused, "the burst was not shed"
    assert answered, "no search was let through"
    for refusal in refused:
        assert refusal["error"] == "busy"
        assert refusal["retry_after"] >= 1
        assert "nothing was searched" in refusal["message"]
    assert "Traceback" not in log
