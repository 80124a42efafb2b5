"""Bounded MCP load for the measuring scripts: N clients, each looping ``search`` then
``fetch`` of the first hit's hinted sections (or the whole document), counted per tool.

Shared by ``soak_server.py`` (one server it starts), ``soak.py`` (the long soak, new
questions all along) and ``balancer_load.py`` (an endpoint that is already up, e.g.
HAProxy in front of replicas). Every loop is bounded by a deadline and by
:data:`MAX_CALLS_PER_CLIENT`. A failed call is recorded with the moment it ended, so a
caller can tell failures before and after an event (a replica killed).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import trio
from mcp import Client

QUERIES = (
    "python programming language",
    "multiple inheritance method resolution order",
    "asynchronous io event loop",
    "thread computing",
    "regular expression syntax",
    "git branch merge",
    "euler identity",
    "inheritance object oriented",
    "malaria treatment",
    "diabetes symptoms",
    "list comprehension",
    "string format",
)
MODES = ("auto", "legacy")
"""The SDK client's protocol eras: per-request (2026-07-28) and the initialize handshake."""
MAX_CALLS_PER_CLIENT = 20_000
REQUEST_TIMEOUT_SECONDS = 30.0
RECONNECT_PAUSE_SECONDS = 0.05


@dataclass(frozen=True)
class Failure:
    """One call that did not end ``ok``: when it ended (``time.monotonic``) and how."""

    ended: float
    tool: str
    outcome: str


@dataclass
class Stats:
    """Counts and latencies shared by every client task (trio: one thread, no locks)."""

    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: {"search": [], "fetch": []})
    failures: list[Failure] = field(default_factory=list)

    def record(self, tool: str, started: float, outcome: str) -> None:
        self.calls[tool] += 1
        if tool in self.latency_ms:
            self.latency_ms[tool].append((time.perf_counter() - started) * 1000)
        if outcome != "ok":
            self.errors[f"{tool}:{outcome}"] += 1
            self.failures.append(Failure(time.monotonic(), tool, outcome))

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def outcome(result: Any) -> str:
    """``ok``, or the error code of an ``isError`` tool result."""
    if not result.is_error:
        return "ok"
    text = result.content[0].text if result.content else ""
    return text.split('"error":"', 1)[-1].split('"', 1)[0] or "error"


def _describe(error: BaseException) -> str:
    """A failure's name: the first real error inside (nested) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return type(error).__name__


async def _search_then_fetch(client: Client, query: str, stats: Stats) -> None:
    started = time.perf_counter()
    try:
        found = await client.call_tool("search", {"query": query, "limit": 5})
    except Exception as exc:
        stats.record("search", started, _describe(exc))
        return
    stats.record("search", started, outcome(found))
    results = (found.structured_content or {}).get("results") or []
    if not results:
        return
    hit = results[0]
    arguments: dict[str, Any] = {"ref": hit["ref"]}
    if hit["relevant_sections"]:
        arguments["sections"] = [section["id"] for section in hit["relevant_sections"]]
    started = time.perf_counter()
    try:
        fetched = await client.call_tool("fetch", arguments)
    except Exception as exc:
        stats.record("fetch", started, _describe(exc))
        return
    stats.record("fetch", started, outcome(fetched))


async def run_client(
    url: str,
    number: int,
    stop_at: float,
    stats: Stats,
    mode: str,
    *,
    questions: Iterator[str] | None = None,
) -> None:
    """One client in protocol era ``mode``: search then fetch until ``stop_at``.

    Its questions come from ``questions`` (shared by every client: each question is
    asked once), else :data:`QUERIES` in turn from the client's own place. A session
    that cannot be opened (the legacy era's initialize failed) or breaks is counted as a
    failed ``session`` call and opened again.
    """
    queries = questions or itertools.cycle(
        QUERIES[number % len(QUERIES) :] + QUERIES[: number % len(QUERIES)]
    )
    calls = 0
    while time.monotonic() < stop_at and calls < MAX_CALLS_PER_CLIENT:
        started = time.perf_counter()
        session = Client(url, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_SECONDS)
        try:
            async with session as client:
                while time.monotonic() < stop_at and calls < MAX_CALLS_PER_CLIENT:
                    await _search_then_fetch(client, next(queries), stats)
                    calls += 2
        except Exception as exc:
            stats.record("session", started, _describe(exc))
            calls += 1
            await trio.sleep(RECONNECT_PAUSE_SECONDS)


async def run_phase(
    url: str,
    clients: int,
    seconds: float,
    modes: tuple[str, ...],
    *,
    questions: Iterator[str] | None = None,
    stats: Stats | None = None,
) -> Stats:
    """``clients`` clients for ``seconds``, their protocol eras taken in turn from
    ``modes``, asking ``questions`` (see :func:`run_client`); counted into ``stats``
    (a new one when not given), which a watcher may read while they run."""
    stats = stats or Stats()
    stop_at = time.monotonic() + seconds
    async with trio.open_nursery() as nursery:
        for number in range(clients):
            client = partial(run_client, questions=questions)
            nursery.start_soon(client, url, number, stop_at, stats, modes[number % len(modes)])
    return stats


def report(label: str, stats: Stats, seconds: float) -> None:
    """Calls, calls/s, latency percentiles per tool and the errors, printed."""
    print(f"{label}: {stats.total} calls in {seconds:.0f} s ({stats.total / seconds:.1f}/s)")
    for tool, latencies in stats.latency_ms.items():
        if len(latencies) >= 2:
            cuts = statistics.quantiles(latencies, n=100)
            print(
                f"  {tool}: {stats.calls[tool]} calls, p50={cuts[49]:.1f} ms "
                f"p95={cuts[94]:.1f} ms max={max(latencies):.1f} ms"
            )
    print(f"  errors: {dict(stats.errors) or 'none'}")
