"""Soak test (issue 4): many concurrent MCP clients against a real ``corpus-mcp serve``.

Starts the server as a subprocess (the real CLI, so the measured process is exactly
what runs in the container), waits for ``/healthz``, then runs N clients, each in a
loop: ``search`` a query, ``fetch`` the first result's hinted sections (or the whole
document). Prints request counts, errors, latency percentiles, and the server's
thread count, RSS, peak RSS and CPU seconds at start, after warm-up and at the end:
steady threads and a flat RSS after warm-up are what "no leak, bounded threads" looks
like.

Usage: python scripts/soak_server.py [--root .demo-corpus] [--duration 60] [--clients 16]
(build the demo corpus first with ``make demo``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import trio
from _load import report, run_phase
from _processes import ROOT, Served, ServerFailed, corpus_server, sample


def _process_status(pid: int) -> str:
    """Threads, RSS, peak RSS and CPU seconds (user + system) of ``pid``'s process tree.

    The CPU seconds between two lines over the seconds between them are the cores used
    (how deploy/kubernetes sizes its requests and limits).
    """
    now = sample(pid)
    return (
        f"threads={now.threads} rss={now.rss_bytes // 1024} kB "
        f"peak={now.peak_rss_bytes // 1024} kB cpu={now.cpu_seconds:.1f}s"
    )


async def soak(args: argparse.Namespace, server: Served) -> int:
    print(f"server pid {server.pid} at {server.url}")
    print(f"at start:        {_process_status(server.pid)}")
    warm = await run_phase(server.url, args.clients, args.warmup, ("auto",))
    report("warm-up", warm, args.warmup)
    print(f"after warm-up:   {_process_status(server.pid)}")
    main = await run_phase(server.url, args.clients, args.duration, ("auto",))
    report(f"soak ({args.clients} clients)", main, args.duration)
    print(f"after soak:      {_process_status(server.pid)}")
    return 1 if main.errors or warm.errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT / ".demo-corpus")
    parser.add_argument("--config", type=Path, help="manifest (default ROOT/corpus.toml)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of soak")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of warm-up")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--workers",
        default="1",
        help="WORKERS of the server (1: one process, as a Kubernetes pod runs it)",
    )
    args = parser.parse_args()
    config = args.config or args.root / "corpus.toml"
    if not config.is_file():
        print(f"no manifest at {config}: build the demo corpus with `make demo`", file=sys.stderr)
        return 2
    try:
        env = {"WORKERS": args.workers}
        with corpus_server(config.resolve(), env, root=args.root.resolve()) as server:
            return trio.run(soak, args, server)
    except ServerFailed as failure:
        print(f"the server did not start: {failure}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
