"""``corpus-mcp stdio`` as MCP hosts run it: a real subprocess on pipes.

The Python SDK's stdio client drives it in both protocol eras and must see exactly what
an HTTP client sees (same tools, same results, same errors). Raw pipes check what only
the process level shows: nothing but JSON-RPC on stdout, logs on stderr, EOF answered
then exit 0, SIGTERM/SIGINT at once with stdin still open, a host that closes our
output, a corpus that cannot be opened. The TypeScript SDK's StdioClientTransport is in
``test_server_interop.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import mcp_types as types
import pytest
import trio
import trio.testing
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.server.stdio import Outstanding, parse_frame

from .mcp_helpers import error_payload, serving, structured
from .server_process import corpus_environment

CORPUS_MCP = Path(sys.executable).with_name("corpus-mcp")
GUARD_SECONDS = 60.0
"""Only a hang guard: a process that never answers or exits fails the test."""

pytestmark = pytest.mark.skipif(
    not CORPUS_MCP.is_file(), reason=f"console script not installed at {CORPUS_MCP}"
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def environment(manifest: Path, **extra: str) -> dict[str, str]:
    # Coverage's variables too: `make test` measures the stdio server as well.
    measured = {k: v for k, v in os.environ.items() if k.startswith("COVERAGE_")}
    return {
        "PATH": os.environ.get("PATH", ""),
        **measured,
        **corpus_environment(manifest, **extra),
    }


def call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


# -- the Python SDK's stdio client -------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_python_sdk_stdio_client_sees_what_an_http_client_sees(
    demo_corpus: Path, tmp_path: Path, nursery: trio.Nursery, mode: str
) -> None:
    params = StdioServerParameters(
        command=str(CORPUS_MCP), args=["stdio"], env=environment(demo_corpus)
    )
    stderr_log = tmp_path / "stderr.log"
    bad_search = {"query": "   "}
    unknown_ref = {"ref": "corpus://nowhere/Page"}
    with stderr_log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode) as over_stdio:
            stdio_tools = (await over_stdio.list_tools()).tools
            found = structured(await over_stdio.call_tool("search", {"query": "python"}))
            first = found["results"][0]["ref"]
            fetched = structured(await over_stdio.call_tool("fetch", {"ref": first}))
            invalid = error_payload(await over_stdio.call_tool("search", bad_search))
            missing = error_payload(await over_stdio.call_tool("fetch", unknown_ref))
            with pytest.raises(MCPError, match="Unknown tool 'browse'"):
                await over_stdio.call_tool("browse", {})

    async with (
        serving(demo_corpus, nursery) as url,
        Client(url, mode=mode) as over_http,
    ):
        assert [t.model_dump() for t in stdio_tools] == [
            t.model_dump() for t in (await over_http.list_tools()).tools
        ]
        assert found == structured(await over_http.call_tool("search", {"query": "python"}))
        assert fetched == structured(await over_http.call_tool("fetch", {"ref": first}))
        assert invalid == error_payload(await over_http.call_tool("search", bad_search))
        assert missing == error_payload(await over_http.call_tool("fetch", unknown_ref))

    assert [tool.name for tool in stdio_tools] == ["search", "fetch"]
    assert found["results"] and fetched["sections"]
    assert (invalid["error"], missing["error"]) == ("invalid_arguments", "invalid_ref")
    logs = stderr_log.read_text()
    assert "over stdio" in logs
    assert "tool=search outcome=ok ms=" in logs
    assert "tool=fetch outcome=invalid_ref" in logs
    assert "Traceback" not in logs


# -- raw pipes ---------------------------------------------------------------------------


class Process:
    """``corpus-mcp stdio`` on pipes, its stderr in a file."""

    def __init__(self, popen: subprocess.Popen[bytes], log: Path) -> None:
        self.popen = popen
        self.log = log

    @property
    def stdin(self) -> IO[bytes]:
        assert self.popen.stdin is not None
        return self.popen.stdin

    @property
    def stdout(self) -> IO[bytes]:
        assert self.popen.stdout is not None
        return self.popen.stdout

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def send(self, *messages: dict[str, Any] | bytes) -> None:
        for message in messages:
            self.stdin.write(message if isinstance(message, bytes) else frame(message))
        self.stdin.flush()

    def receive(self) -> dict[str, Any]:
        line = self.stdout.readline()
        assert line.endswith(b"\n"), f"no answer; stderr:\n{self.stderr}"
        message: dict[str, Any] = json.loads(line)
        return message

    def wait(self) -> int:
        return self.popen.wait(timeout=GUARD_SECONDS)


NO_CORE_DUMP = ["/bin/sh", "-c", 'ulimit -c 0 && exec "$@"', "sh"]
"""Runs a command that a test kills with a fatal signal without leaving a core file."""


@contextmanager
def started(
    manifest: Path, tmp_path: Path, *, wrapper: list[str] | None = None, **env: str
) -> Iterator[Process]:
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        popen = subprocess.Popen(
            [*(wrapper or []), str(CORPUS_MCP), "stdio"],
            env=environment(manifest, **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    try:
        yield Process(popen, log)
    finally:
        if popen.poll() is None:
            popen.kill()
            popen.wait()
        for stream in (popen.stdin, popen.stdout):
            if stream is not None and not stream.closed:
                stream.close()


def test_eof_answers_every_request_read_then_exits_0(demo_corpus: Path, tmp_path: Path) -> None:
    with started(demo_corpus, tmp_path) as server:
        server.send(
            INITIALIZE,
            INITIALIZED,
            b"this is not json\n",
            b'{"json": "but not JSON-RPC"}\n',
            b"\n",
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            call(3, "search", {"query": "python", "limit": 2}),
            call(4, "fetch", {"ref": "corpus://nowhere/Page"}),
        )
        server.stdin.close()  # EOF right behind the requests: they are still answered
        stdout = server.stdout.read()
        assert server.wait() == 0

    messages = [json.loads(line) for line in stdout.splitlines()]
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    by_id = {message["id"]: message for message in messages}
    assert set(by_id) == {1, 2, 3, 4, None}
    assert by_id[1]["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert [tool["name"] for tool in by_id[2]["result"]["tools"]] == ["search", "fetch"]
    assert by_id[3]["result"]["structuredContent"]["results"]
    assert json.loads(by_id[4]["result"]["content"][0]["text"])["error"] == "invalid_ref"
    refusals = [m["error"] for m in messages if m["id"] is None]
    assert [error["code"] for error in refusals] == [types.PARSE_ERROR, types.INVALID_REQUEST]

    logs = server.stderr
    assert "stdio message refused: not JSON" in logs
    assert "stdio: end of input" in logs
    assert logs.rstrip().endswith("stopped")
    assert "Traceback" not in logs


def test_an_oversized_line_is_refused_and_the_session_goes_on(
    demo_corpus: Path, tmp_path: Path
) -> None:
    with started(demo_corpus, tmp_path) as server:
        server.send(INITIALIZE)
        assert server.receive()["id"] == 1
        huge = call(2, "search", {"query": "x" * 70_000})
        server.send(huge, call(3, "search", {"query": "python"}))
        refused = server.receive()
        assert (refused["id"], refused["error"]["code"]) == (None, types.INVALID_REQUEST)
        assert "longer than 65536 bytes" in refused["error"]["message"]
        assert server.receive()["id"] == 3
        server.stdin.close()
        assert server.wait() == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_it_at_once_with_stdin_still_open(
    demo_corpus: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    with started(demo_corpus, tmp_path) as server:
        server.send(INITIALIZE)
        assert server.receive()["result"]["serverInfo"]["name"] == "corpus-mcp"
        server.popen.send_signal(signum)
        assert server.wait() == 0
        assert server.stdout.read() == b""
    logs = server.stderr
    assert f"received {signum.name}: shutting down" in logs
    assert "stopped" in logs
    assert "Traceback" not in logs


def test_a_native_crash_writes_every_threads_stack_into_the_log(
    demo_corpus: Path, tmp_path: Path
) -> None:
    """faulthandler reports a fatal signal on stderr, where the log goes (plain text
    among the JSON records: nothing can be formatted in a signal handler)."""
    with started(
        demo_corpus, tmp_path, wrapper=NO_CORE_DUMP, LOG_LEVEL="info", LOG_FORMAT="json"
    ) as server:
        server.send(INITIALIZE)
        assert server.receive()["id"] == 1
        server.popen.send_signal(signal.SIGSEGV)
        assert server.wait() == -signal.SIGSEGV
    logs = server.stderr
    records, report = logs.split("Fatal Python error: Segmentation fault", 1)
    assert [json.loads(line)["level"] for line in records.splitlines() if line]
    assert "Current thread 0x" in report
    assert report.count("Thread 0x") >= 1  # the others too: the stdin reader at least
    assert "File " in report


def test_a_host_that_closes_our_output_ends_the_session(demo_corpus: Path, tmp_path: Path) -> None:
    with started(demo_corpus, tmp_path) as server:
        server.send(INITIALIZE)
        assert server.receive()["id"] == 1
        server.stdout.close()
        server.send(call(2, "search", {"query": "python"}))
        assert server.wait() == 0
    assert "output closed by the client" in server.stderr
    assert "Traceback" not in server.stderr


def test_archives_are_opened_and_checked_before_anything_is_answered(
    demo_corpus: Path, tmp_path: Path
) -> None:
    with started(demo_corpus, tmp_path, ZIM_CHECK="true") as server:
        server.send(INITIALIZE)
        assert server.receive()["id"] == 1
        server.stdin.close()
        assert server.wait() == 0
    lines = server.stderr.splitlines()
    serving_at = next(i for i, line in enumerate(lines) if "over stdio" in line)
    checked = [i for i, line in enumerate(lines) if line.endswith(": check passed")]
    assert len(checked) == len(DEMO_LIBRARIES)  # every demo library
    assert max(checked) < serving_at


def test_a_corpus_that_cannot_be_opened_answers_nothing_and_exits_1(
    unopenable_corpus: Path, tmp_path: Path
) -> None:
    with started(unopenable_corpus, tmp_path) as server:
        server.send(INITIALIZE)
        assert server.wait() == 1
        assert server.stdout.read() == b""
    assert "cannot open the corpus: library 'brokenlib'" in server.stderr
    assert "Traceback" not in server.stderr


def test_stray_output_cannot_reach_the_wire(tmp_path: Path) -> None:
    """While claimed, fd 1 and sys.stdout go to stderr; only the wire reaches stdout."""
    script = (
        "import os, sys\n"
        "from corpus_mcp.server.stdio import claim_standard_streams\n"
        "with claim_standard_streams() as (wire_in, wire_out):\n"
        "    print('stray print')\n"
        "    sys.stdout.flush()\n"
        "    os.write(1, b'stray fd write\\n')\n"
        "    wire_out.write(wire_in.readline().upper())\n"
        "    assert sys.stdin.read() == ''\n"  # fd 0 reads /dev/null meanwhile
        "print('after release')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=b"frame\n",
        capture_output=True,
        timeout=GUARD_SECONDS,
        check=True,
    )
    assert done.stdout == b"FRAME\nafter release\n"
    assert done.stderr == b"stray print\nstray fd write\n"


# -- units -------------------------------------------------------------------------------


async def test_outstanding_waits_until_every_request_is_answered_or_cancelled() -> None:
    outstanding = Outstanding()
    outstanding.add(1)
    outstanding.add("two")
    finished = trio.Event()

    async def wait() -> None:
        await outstanding.wait_all_answered()
        finished.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait)
        await trio.testing.wait_all_tasks_blocked()
        outstanding.answered(1)
        outstanding.answered(None)  # an error for an unknown id changes nothing
        await trio.testing.wait_all_tasks_blocked()
        assert not finished.is_set()
        outstanding.answered("two")  # answered, or cancelled by the client
    assert finished.is_set()


@pytest.mark.parametrize(
    ("line", "code"),
    [(b"{not json", types.PARSE_ERROR), (b'{"id": 1}', types.INVALID_REQUEST)],
)
def test_parse_frame_answers_what_is_not_json_rpc(line: bytes, code: int) -> None:
    parsed = parse_frame(line)
    assert isinstance(parsed, tuple)
    refusal, reason = parsed
    assert isinstance(refusal.message, types.JSONRPCError)
    assert (refusal.message.id, refusal.message.error.code) == (None, code)
    assert reason


def test_parse_frame_reads_a_request() -> None:
    parsed = parse_frame(frame(INITIALIZE))
    assert not isinstance(parsed, tuple)
    assert isinstance(parsed.message, types.JSONRPCRequest)
    assert parsed.message.method == "initialize"
