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
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import trio
from _load import report, run_phase

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _process_status(pid: int) -> str:
    """Threads, RSS, peak RSS and CPU seconds (user + system) of ``pid`` from /proc (Linux).

    The CPU seconds between two lines over the seconds between them are the cores used
    (how deploy/kubernetes sizes its requests and limits).
    """
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    # /proc/PID/stat: fields 14 and 15 (utime, stime) in clock ticks, after the "(comm)".
    ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]
    cpu = sum(int(tick) for tick in ticks) / os.sysconf("SC_CLK_TCK")
    return (
        f"threads={fields.get('Threads', '?')} rss={fields.get('VmRSS', '?')} "
        f"peak={fields.get('VmHWM', '?')} cpu={cpu:.1f}s"
    )


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


async def soak(args: argparse.Namespace, process: subprocess.Popen[bytes], base: str) -> int:
    await _wait_healthy(base, process)
    url = f"{base}/mcp"
    print(f"server pid {process.pid} at {url}")
    print(f"at start:        {_process_status(process.pid)}")
    warm = await run_phase(url, args.clients, args.warmup, ("auto",))
    report("warm-up", warm, args.warmup)
    print(f"after warm-up:   {_process_status(process.pid)}")
    main = await run_phase(url, args.clients, args.duration, ("auto",))
    report(f"soak ({args.clients} clients)", main, args.duration)
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
