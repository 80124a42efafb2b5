"""Bounded MCP load against an endpoint that is already up (HAProxy in front of replicas):
calls/s, latency and failures, optionally with a command run part-way (a replica killed).

    python scripts/balancer_load.py http://127.0.0.1:8000/mcp [--clients 8] [--seconds 10]
    python scripts/balancer_load.py URL --seconds 16 --event-after 5 --notice 2 \\
        --event 'podman kill --signal KILL <replica id>'

The clients take the two protocol eras in turn (the per-request 2026-07-28 era and the
initialize handshake; ``--era`` picks one), each looping ``search`` then ``fetch``
(``_load.py``). With ``--event``, the command runs ``--event-after`` seconds in; failed
calls are then split into those that ended while the balancer could not yet know (from
the event to ``--notice`` seconds after it: HAProxy's check interval times its fall
count) and those after it. Exits 1 on any failure after the notice window (without
``--event``: on any failure at all) or when the command fails; 0 otherwise. The last line
is a JSON summary for scripts.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from typing import Any

import trio
from _load import MODES, Stats, report, run_phase

ERAS = {"both": MODES, "modern": ("auto",), "legacy": ("legacy",)}
"""``--era``: the SDK client modes the clients take in turn."""


async def _run_event(command: str, after: float, moment: list[float], status: list[int]) -> None:
    """Run ``command`` ``after`` seconds in; note when it started (monotonic and wall clock,
    the latter to compare with other logs) and its exit status."""
    await trio.sleep(after)
    moment += [time.monotonic(), time.time()]
    print(f"event at {after:.1f} s: {command}", flush=True)
    completed = await trio.run_process(shlex.split(command), check=False, capture_stdout=True)
    status.append(completed.returncode)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    moment: list[float] = []
    status: list[int] = []
    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        if args.event:
            nursery.start_soon(_run_event, args.event, args.event_after, moment, status)
        stats: Stats = await run_phase(args.url, args.clients, args.seconds, ERAS[args.era])
    elapsed = time.monotonic() - started
    report(f"{args.clients} clients, protocol era: {args.era}", stats, elapsed)
    summary: dict[str, Any] = {
        "calls": stats.total,
        "seconds": round(elapsed, 1),
        "calls_per_second": round(stats.total / elapsed, 1),
        "failed": len(stats.failures),
        "errors": dict(stats.errors),
    }
    if moment:
        notice_ends = moment[0] + args.notice
        before = [f for f in stats.failures if f.ended < moment[0]]
        window = [f for f in stats.failures if moment[0] <= f.ended <= notice_ends]
        after = [f for f in stats.failures if f.ended > notice_ends]
        print(
            f"failed calls: {len(before)} before the event, {len(window)} within the "
            f"{args.notice:g} s notice window, {len(after)} after it"
        )
        summary |= {
            "event_status": status[0],
            "event_unix_time": round(moment[1], 3),
            "failed_before_event": len(before),
            "failed_in_notice_window": len(window),
            "failed_after_notice": len(after),
        }
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("url", help="the MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the load (10)")
    parser.add_argument(
        "--era", choices=sorted(ERAS), default="both", help="protocol eras of the clients (both)"
    )
    parser.add_argument("--event", help="a command to run during the load (no shell)")
    parser.add_argument(
        "--event-after", type=float, default=5.0, help="seconds into the load to run it (5)"
    )
    parser.add_argument(
        "--notice",
        type=float,
        default=2.0,
        help="seconds the balancer may take to notice the event (HAProxy: inter x fall; 2)",
    )
    args = parser.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0:
        parser.error("--clients must be at least 1 and --seconds positive")
    if args.event and not 0 <= args.event_after < args.seconds:
        parser.error("--event-after must fall within the load (0 <= it < --seconds)")
    summary = trio.run(measure, args)
    print(json.dumps(summary, sort_keys=True))
    if args.event:
        if summary["event_status"] != 0:
            print(f"FAILED: {args.event!r} exited with {summary['event_status']}", file=sys.stderr)
            return 1
        return 1 if summary["failed_after_notice"] else 0
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
