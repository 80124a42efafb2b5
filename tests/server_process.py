"""Real ``corpus-mcp serve`` processes for tests, and HTTP over raw sockets.

Exit codes, signals, descriptor limits, stderr and what reaches a client's socket
(a complete response, an orderly close or a reset) only exist at this level.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import pytest

CORPUS_MCP = Path(sys.executable).with_name("corpus-mcp")
STARTUP_GUARD_SECONDS = 60.0
"""Only a hang guard: a server that never comes up fails the test instead of blocking it."""
PATIENT_SEARCH_TIMEOUT = "60"
"""SEARCH_TIMEOUT for tests that do not test the deadline itself: a failsafe no healthy
search comes near on any machine, however busy with other work (the default, 5 s, is a
budget for a server; the tests assert what is answered, never how fast)."""
#: What a server logs once it listens (serve.py), in text and JSON logs alike: the
#: address it announces, its port picked by the system (MCP_PORT=0), so nothing else can
#: have taken it and a client connecting after this line is accepted.
SERVING = re.compile(r"serving .* at http://127\.0\.0\.1:(?P<port>[0-9]+)/mcp\b")
POLL_SECONDS = 0.05
"""How often a wait looks at the log again; never what is waited for."""


def free_port() -> int:
    """A port free now, for a test that needs the number before the server starts (the
    ``running_server`` servers pick theirs themselves: nothing can take it meanwhile)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def corpus_environment(manifest: Path, **env: str) -> dict[str, str]:
    """The settings of a corpus at ``manifest`` (its folder is CORPUS_ROOT), with a
    search deadline no healthy search reaches (:data:`PATIENT_SEARCH_TIMEOUT`)."""
    return {
        "CORPUS_ROOT": str(manifest.parent),
        "CORPUS_CONFIG": str(manifest),
        "SEARCH_TIMEOUT": PATIENT_SEARCH_TIMEOUT,
        "INDEX": os.environ.get("INDEX", "off"),
        "CORPUS_INDEX_DIR": os.environ.get("CORPUS_INDEX_DIR", ""),
        **env,
    }


def server_environment(manifest: Path, port: int, **env: str) -> dict[str, str]:
    """The environment of a server over the corpus at ``manifest`` on ``port`` (0: the
    server picks a free one and announces it).

    One serving process unless ``env`` says otherwise: these tests look at one process's
    descriptors, memory and log (each serving process of ``WORKERS=N`` is that same
    server; ``test_server_workers.py`` tests what several add)."""
    return {
        **os.environ,
        **corpus_environment(manifest),
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": str(port),
        "LOG_LEVEL": "info",
        "WORKERS": "1",
        **env,
    }


class ServerProcess:
    """A server process whose stderr goes to a file the test reads."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process = process
        self.log = log
        self.port = 0
        """The port the server announced (:meth:`wait_until_ready`)."""

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def mark(self) -> int:
        """A position in the log; :meth:`log_since` returns what was written after it."""
        return len(self.stderr)

    def log_since(self, mark: int) -> str:
        return self.stderr[mark:]

    def wait_until_ready(self) -> None:
        """Until the server has announced the port it listens on."""
        deadline = time.monotonic() + STARTUP_GUARD_SECONDS
        while not (announced := SERVING.search(self.stderr)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server did not start:\n{self.stderr}")
            time.sleep(POLL_SECONDS)
        self.port = int(announced["port"])

    def wait_for_log(self, text: str, mark: int = 0, guard: float = STARTUP_GUARD_SECONDS) -> None:
        deadline = time.monotonic() + guard
        while text not in self.log_since(mark):
            if time.monotonic() > deadline:
                pytest.fail(f"{text!r} never logged:\n{self.log_since(mark)}")
            time.sleep(POLL_SECONDS)

    def stop(self, signum: signal.Signals = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=STARTUP_GUARD_SECONDS)

    def rss_mb(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0


@contextmanager
def running_server(
    manifest: Path,
    log: Path,
    *,
    env: dict[str, str] | None = None,
    argv: list[str] | None = None,
    open_files: int | None = None,
) -> Iterator[ServerProcess]:
    """``corpus-mcp serve`` (or ``argv``) on a port it picks, with ``env`` added to its
    environment; yields once it listens (it has announced its port), and kills it on exit
    if still running.

    ``open_files`` sets the child's descriptor limit (soft and hard).
    """
    if argv is None and not CORPUS_MCP.is_file():
        pytest.skip(f"console script not installed at {CORPUS_MCP} (pip install -e .)")
    command = argv or [str(CORPUS_MCP), "serve"]
    if open_files is not None:  # the shell's ulimit sets both the soft and the hard limit
        command = ["/bin/sh", "-c", 'ulimit -n "$0" && exec "$@"', str(open_files), *command]
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            command,
            env=server_environment(manifest, 0, **(env or {})),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    server = ServerProcess(process, log)
    try:
        server.wait_until_ready()
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# -- raw HTTP -------------------------------------------------------------------------


class RawResponse(msgspec.Struct):
    """One HTTP/1.1 response as read off a socket."""

    status: int
    headers: dict[str, str]
    body: bytes


class RawReply(msgspec.Struct):
    """Everything a connection received, and how it ended: ``eof``, ``reset`` or ``open``."""

    responses: list[RawResponse]
    ended: str
    rest: bytes = b""


def request_bytes(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    headers: dict[str, str] | None = None,
    host: str | None = None,
) -> bytes:
    """A complete HTTP/1.1 request (``content-length`` set when there is a body)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    fields = {"content-type": "application/json", "accept": "application/json", **(headers or {})}
    if body or method == "POST":
        fields.setdefault("content-length", str(len(body)))
    lines += [f"{name}: {value}" for name, value in fields.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def parse_responses(data: bytes) -> tuple[list[RawResponse], bytes]:
    """The complete responses at the start of ``data`` (content-length framed), and the rest."""
    responses: list[RawResponse] = []
    while b"\r\n\r\n" in data:
        head, _, after = data.partition(b"\r\n\r\n")
        status_line, *fields = head.decode("latin-1").split("\r\n")
        headers = {}
        for field in fields:
            name, _, value = field.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        if len(after) < length:
            break
        responses.append(RawResponse(int(status_line.split()[1]), headers, after[:length]))
        data = after[length:]
    return responses, data


def read_until_closed(sock: socket.socket, guard: float) -> RawReply:
    """Read until the server closes (``eof``), resets (``reset``) or ``guard`` s pass."""
    sock.settimeout(guard)
    received = b""
    ended = "open"
    try:
        while chunk := sock.recv(65536):
            received += chunk
        ended = "eof"
    except ConnectionResetError:
        ended = "reset"
    except TimeoutError:
        ended = "open"
    responses, rest = parse_responses(received)
    return RawReply(responses, ended, rest)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=STARTUP_GUARD_SECONDS)


def exchange(port: int, data: bytes, guard: float = STARTUP_GUARD_SECONDS) -> RawReply:
    """Send ``data`` on a new connection, then read until the server closes it."""
    with connect(port) as sock:
        sock.sendall(data)
        return read_until_closed(sock, guard)


def health_status(port: int) -> int:
    """The status of ``GET /healthz`` on a new connection (closing it after)."""
    request = request_bytes(port, "GET", "/healthz", headers={"connection": "close"})
    reply = exchange(port, request)
    assert reply.responses, reply
    return reply.responses[0].status
