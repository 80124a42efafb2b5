"""Soak test (issue 4): many concurrent MCP clients against a real ``corpus-mcp serve``.

Starts the server as a subprocess (the real CLI, so the measured process is exactly
what runs in the container), waits for ``/healthz``, then runs N clients, each in a
loop: ``search`` a query, ``fetch`` the first result's hinted sections (or the whole
document). Prints request counts, errors, latency percentiles, and the server's
thread count and RSS at start, after warm-up and at the end: steady threads and a
flat RSS after warm-up are what "no leak, bounded threads" looks like.

Usage: python scripts/soak_server.py [--root .demo-corpus] [--duration 60] [--clients 16]
(build the demo corpus first with ``make demo``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import trio
from mcp import Client

ROOT = Path(__file__).resolve().parents[1]
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


class Stats:
    """Counts and latencies shared by every client task (trio: one thread, no locks)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.latency_ms: dict[str, list[float]] = {"search": [], "fetch": []}

    def record(self, tool: str, started: float, outcome: str) -> None:
        self.calls[tool] += 1
        self.latency_ms[tool].append((time.perf_counter() - started) * 1000)
        if outcome != "ok":
            self.errors[f"{tool}:{outcome}"] += 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _process_status(pid: int) -> str:
    """Threads and RSS of ``pid`` from /proc (Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return f"threads={fields.get('Threads', '?')} rss={fields.get('VmRSS', '?')}"


def _outcome(result: Any) -> str:
    if not result.is_error:
        return "ok"
    text = result.content[0].text if result.content else ""
    return text.split('"error":"', 1)[-1].split('"', 1)[0] or "error"


async def _client(url: str, number: int, stop_at: float, stats: Stats) -> None:
    queries = itertools.cycle(QUERIES[number % len(QUERIES) :] + QUERIES[: number % len(QUERIES)])
    async with Client(url) as client:
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            try:
                found = await client.call_tool("search", {"query": next(queries), "limit": 5})
            except Exception as exc:
                stats.record("search", started, type(exc).__name__)
                continue
            stats.record("search", started, _outcome(found))
            results = (found.structured_content or {}).get("results") or []
            if not results:
                continue
            hit = results[0]
            arguments: dict[str, Any] = {"ref": hit["ref"]}
            if hit["relevant_sections"]:
                arguments["sections"] = [s["id"] for s in hit["relevant_sections"]]
            started = time.perf_counter()
            try:
                fetched = await client.call_tool("fetch", arguments)
            except Exception as exc:
                stats.record("fetch", started, type(exc).__name__)
                continue
            stats.record("fetch", started, _outcome(fetched))


async def _wait_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient() as http:
        while True:
            if process.poll() is not None:
                sys.exit(f"server exited with {process.returncode} before becoming healthy")
            try:
                if (await http.get(f"{base}/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await trio.sleep(0.1)


async def _phase(url: str, clients: int, seconds: float) -> Stats:
    stats = Stats()
    stop_at = time.monotonic() + seconds
    async with trio.open_nursery() as nursery:
        for number in range(clients):
            nursery.start_soon(_client, url, number, stop_at, stats)
    return stats


def _report(label: str, stats: Stats, seconds: float) -> None:
    total = sum(stats.calls.values())
    print(f"{label}: {total} calls in {seconds:.0f} s ({total / seconds:.1f}/s)")
    for tool, latencies in stats.latency_ms.items():
        if len(latencies) >= 2:
            cuts = statistics.quantiles(latencies, n=100)
            print(
                f"  {tool}: {stats.calls[tool]} calls, p50={cuts[49]:.1f} ms "
                f"p95={cuts[94]:.1f} ms max={max(latencies):.1f} ms"
            )
    print(f"  errors: {dict(stats.errors) or 'none'}")


async def soak(args: argparse.Namespace, process: subprocess.Popen[bytes], base: str) -> int:
    await _wait_healthy(base, process)
    url = f"{base}/mcp"
    print(f"server pid {process.pid} at {url}")
    print(f"at start:        {_process_status(process.pid)}")
    warm = await _phase(url, args.clients, args.warmup)
    _report("warm-up", warm, args.warmup)
    print(f"after warm-up:   {_process_status(process.pid)}")
    main = await _phase(url, args.clients, args.duration)
    _report(f"soak ({args.clients} clients)", main, args.duration)
    print(f"after soak:      {_process_status(process.pid)}")
    return 1 if main.errors or warm.errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT / ".demo-corpus")
    parser.add_argument("--config", type=Path, help="manifest (default ROOT/corpus.toml)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of soak")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of warm-up")
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    config = args.config or args.root / "corpus.toml"
    if not config.is_file():
        print(f"no manifest at {config}: build the demo corpus with `make demo`", file=sys.stderr)
        return 2
    port = _free_port()
    environ = {
        **os.environ,
        "CORPUS_ROOT": str(args.root.resolve()),
        "CORPUS_CONFIG": str(config.resolve()),
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": str(port),
        "LOG_LEVEL": "warning",
    }
    command = [str(Path(sys.executable).with_name("corpus-mcp")), "serve"]
    process = subprocess.Popen(command, env=environ)
    try:
        return trio.run(soak, args, process, f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
