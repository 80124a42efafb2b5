"""Several serving processes on one port: a real ``corpus-mcp serve`` with ``WORKERS=2``.

What only several processes have is tested here, through the real surfaces: both
processes answer on the one port, ``/metrics`` shows each one's series, SIGHUP reloads
each, SIGTERM drains each and the supervisor exits 0, a process killed with SIGKILL is
replaced while the port keeps answering, no process outlives a killed supervisor, and a
corpus that cannot be opened stops the server once, naming the library. Nothing is
timed: every wait is for a state the server reports (``/readyz``, ``/metrics``, its
log), with a guard only against a hang.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from prometheus_client.parser import text_string_to_metric_families

from corpus_mcp.demo import DEMO_LIBRARIES

from .server_process import (
    CORPUS_MCP,
    STARTUP_GUARD_SECONDS,
    RawResponse,
    ServerProcess,
    connect,
    free_port,
    parse_responses,
    request_bytes,
    running_server,
    server_environment,
)

ADAPTERS = {name: adapter for name, _, adapter in DEMO_LIBRARIES}
TWO = {"WORKERS": "2"}
CONNECTIONS_GUARD = 64
"""Connections opened at most while looking for the other process (a hang guard only:
a process serving more connections than the other leaves it the next one)."""


@pytest.fixture(autouse=True)
def _console_script() -> None:
    if not CORPUS_MCP.is_file():
        pytest.skip(f"console script not installed at {CORPUS_MCP} (pip install -e .)")


def write_corpus(root: Path, archives: dict[str, Path], names: list[str]) -> Path:
    """Copies of the demo archives ``names`` in ``root``, and their corpus.toml."""
    root.mkdir(exist_ok=True)
    lines = ["version = 1"]
    for name in names:
        shutil.copyfile(archives[name], root / f"{name}.zim")
        lines += ["[[library]]", f'name = "{name}"', f'path = "{name}.zim"']
        lines += [f'adapter = "{ADAPTERS[name]}"']
    manifest = root / "corpus.toml"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


@pytest.fixture
def served(demo_archives: dict[str, Path], tmp_path: Path) -> Iterator[ServerProcess]:
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia", "Python-Docs"])
    with running_server(manifest, tmp_path / "stderr.log", env=TWO) as server:
        yield server
        if server.process.poll() is None:  # whatever a test did, the server stops cleanly
            assert server.stop(signal.SIGTERM) == 0, server.stderr


# -- talking to one process over a connection it accepted ---------------------------------


class Connection:
    """A kept-alive connection, served by whichever process accepted it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = connect(port)

    def ask(self, method: str, path: str, body: bytes = b"") -> RawResponse:
        self.sock.sendall(request_bytes(self.port, method, path, body))
        received = b""
        while True:
            responses, _ = parse_responses(received)
            if responses:
                return responses[0]
            chunk = self.sock.recv(65536)
            assert chunk, f"connection closed without an answer to {method} {path}"
            received += chunk

    def health(self) -> dict[str, object]:
        reply = self.ask("GET", "/healthz")
        assert reply.status == 200, reply
        answer: dict[str, object] = msgspec.json.decode(reply.body)
        return answer

    def search(self, query: str) -> dict[str, object]:
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": query, "limit": 3}},
        }
        reply = self.ask("POST", "/mcp", msgspec.json.encode(call))
        assert reply.status == 200, reply
        result: dict[str, object] = msgspec.json.decode(reply.body)["result"]
        return result

    def close(self) -> None:
        self.sock.close()


def one_of_each(port: int, processes: int = 2) -> tuple[dict[int, Connection], list[Connection]]:
    """A connection served by each process (by its ``/healthz``), and every one opened."""
    found: dict[int, Connection] = {}
    opened: list[Connection] = []
    while len(found) < processes:
        assert len(opened) < CONNECTIONS_GUARD, f"only processes {sorted(found)} answered"
        connection = Connection(port)
        opened.append(connection)
        found.setdefault(int(str(connection.health()["process"])), connection)
    return found, opened


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=STARTUP_GUARD_SECONDS).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def per_process(
    scraped: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str
) -> dict[str, float]:
    """``name``'s value summed per ``process`` label."""
    found: dict[str, float] = {}
    for (sample, labels), value in scraped.items():
        if sample == name:
            process = dict(labels)["process"]
            found[process] = found.get(process, 0.0) + value
    return found


def until(condition: Callable[[], bool], what: str, server: ServerProcess) -> None:
    """Poll ``condition``; the guard only turns a hang into a failure."""
    deadline = time.monotonic() + STARTUP_GUARD_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} never happened; server log:\n{server.stderr}")
        time.sleep(0.05)


def ready(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except FileNotFoundError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def gone(pids: set[int], server: ServerProcess) -> None:
    until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), "every exit", server)


# -- the tests ------------------------------------------------------------------------------


def test_both_processes_answer_and_metrics_show_each(served: ServerProcess) -> None:
    assert ready(served.port)
    found, opened = one_of_each(served.port)
    try:
        for connection in found.values():
            assert connection.search("python list comprehension")["structuredContent"]
        pids = {int(str(connection.health()["pid"])) for connection in found.values()}
    finally:
        for connection in opened:
            connection.close()
    assert len(pids) == 2
    assert pids <= descendants(served.process.pid)
    scraped = scrape(served.port)
    calls = per_process(scraped, "corpus_mcp_tool_calls_total")
    assert calls["1"] >= 1 and calls["2"] >= 1
    assert set(per_process(scraped, "corpus_mcp_event_loop_lag_seconds_count")) == {"1", "2"}
    assert scraped[("corpus_mcp_processes", ())] == 2
    assert scraped[("corpus_mcp_processes_ready", ())] == 2
    log = served.stderr
    assert "[process 1]: accepting calls" in log
    assert "[process 2]: accepting calls" in log
    assert "(2 processes, pids" in log


def test_sighup_reloads_every_process(
    served: ServerProcess, demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia", "Python-Docs", "MDWiki"])
    served.process.send_signal(signal.SIGHUP)

    def reloaded() -> bool:
        generations = per_process(scrape(served.port), "corpus_mcp_corpus_generation")
        return generations == {"1": 2.0, "2": 2.0}

    until(reloaded, "generation 2 in both processes", served)
    log = served.stderr
    assert "received SIGHUP: reloading the corpus in every serving process" in log
    for process in (1, 2):
        assert f"[process {process}]: reload: generation 2 serves" in log
    found, opened = one_of_each(served.port)
    try:
        assert {connection.health()["libraries"] for connection in found.values()} == {3}
    finally:
        for connection in opened:
            connection.close()


def test_sigterm_drains_every_process_and_exits_0(served: ServerProcess) -> None:
    processes = descendants(served.process.pid)
    assert len(processes) == 3  # the fork server and the two serving processes
    assert served.stop(signal.SIGTERM) == 0
    gone(processes, served)
    log = served.stderr
    assert "received SIGTERM: shutting down 2 serving processes" in log
    for process in (1, 2):
        assert f"[process {process}]: received SIGTERM: shutting down" in log
        assert f"[process {process}]: stopped" in log
    assert log.rstrip().endswith("corpus_mcp.server: stopped")
    assert "Traceback" not in log
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", served.port), timeout=5)


def test_a_killed_process_is_replaced_while_the_port_keeps_answering(
    served: ServerProcess,
) -> None:
    found, opened = one_of_each(served.port)
    victim = int(str(found[2].health()["pid"]))
    for connection in opened:
        connection.close()
    mark = served.mark()
    served_during: list[int] = []
    os.kill(victim, signal.SIGKILL)
    while not ready(served.port):
        # Every new connection meanwhile is served: by the process that is left, or by
        # the replacement once it serves (before the supervisor has marked all ready).
        connection = Connection(served.port)
        try:
            served_during.append(int(str(connection.health()["pid"])))
        finally:
            connection.close()
    found, opened = one_of_each(served.port)
    try:
        replacement = int(str(found[2].health()["pid"]))
        assert found[2].search("python list comprehension")["structuredContent"]
    finally:
        for connection in opened:
            connection.close()
    assert replacement != victim
    assert victim not in served_during
    log = served.log_since(mark)
    assert re.search(
        r"serving process 2 was killed by SIGKILL with no tool call in flight"
        r"( on \d+ connections?)?; starting another",
        log,
    ), log
    assert "every serving process is ready again (2)" in log
    restarts = per_process(scrape(served.port), "corpus_mcp_process_restarts_total")
    assert restarts == {"1": 0.0, "2": 1.0}


HANGING_SERVER = Path(__file__).with_name("hanging_server.py")
NO_CORE_DUMP = ["/bin/sh", "-c", 'ulimit -c 0 && exec "$@"', "sh"]


def test_a_crashed_process_is_reported_with_its_signal_stacks_and_calls_in_flight(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    """A serving process dies of SIGSEGV with a search in flight (held inside the
    archive's index by ``hanging_server.py``): faulthandler writes its threads' stacks
    into the log, the supervisor names the signal and the call, and replaces it."""
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia"])
    control = tmp_path / "hang"
    env = {
        **TWO,
        "HANG_ARCHIVE": "Wikipedia.zim",
        "HANG_CONTROL": str(control),
        "SEARCH_TIMEOUT": "600",  # the held search is never given up while the test runs
    }
    argv = [*NO_CORE_DUMP, sys.executable, str(HANGING_SERVER)]
    with running_server(manifest, tmp_path / "stderr.log", env=env, argv=argv) as server:
        found, opened = one_of_each(server.port)
        victim = int(str(found[2].health()["pid"]))
        control.write_text("index")
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "python"}},
        }
        found[2].sock.sendall(request_bytes(server.port, "POST", "/mcp", msgspec.json.encode(call)))
        in_flight = ("corpus_mcp_tool_calls_in_flight", (("process", "2"), ("tool", "search")))
        until(lambda: scrape(server.port).get(in_flight) == 1, "the search in flight", server)
        mark = server.mark()
        os.kill(victim, signal.SIGSEGV)
        server.wait_for_log("serving process 2 was killed by SIGSEGV", mark)
        control.write_text("")
        for connection in opened:
            connection.close()
        until(lambda: ready(server.port), "the replacement", server)
        assert server.stop(signal.SIGTERM) == 0, server.stderr
    log = server.log_since(mark)
    report = log.split("Fatal Python error: Segmentation fault", 1)[1]
    assert "Current thread 0x" in report and "Thread 0x" in report
    assert "hanging_server.py" in report  # the walker thread, inside the index call
    assert (
        "serving process 2 was killed by SIGSEGV with 1 tool call in flight (search 1) on "
    ) in log
    assert "'Fatal Python error'); starting another" in log


def test_a_stop_signal_to_every_process_at_once_stops_cleanly(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    """A terminal's Ctrl-C (or systemd's SIGTERM to the cgroup) reaches the supervisor,
    its fork server and every serving process at once."""
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia"])
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [str(CORPUS_MCP), "serve"],
            env=server_environment(manifest, 0, **TWO),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
    server = ServerProcess(process, log)
    try:
        server.wait_until_ready()
        processes = descendants(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(timeout=STARTUP_GUARD_SECONDS) == 0, server.stderr
        gone(processes, server)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in server.stderr


def test_no_process_outlives_a_killed_supervisor(served: ServerProcess) -> None:
    processes = descendants(served.process.pid)
    served.process.kill()
    served.process.wait(timeout=STARTUP_GUARD_SECONDS)
    gone(processes, served)


def test_a_corpus_that_cannot_open_stops_the_server_once_naming_the_library(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia"])
    (tmp_path / "corpus" / "junk.zim").write_bytes(b"no ZIM archive" * 64)
    with manifest.open("a") as more:
        more.write('[[library]]\nname = "junk"\npath = "junk.zim"\nadapter = "mediawiki"\n')
    done = subprocess.run(
        [str(CORPUS_MCP), "serve"],
        env=server_environment(manifest, free_port(), **TWO),
        capture_output=True,
        text=True,
        timeout=STARTUP_GUARD_SECONDS,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("cannot open the corpus: library 'junk'") == 1
    assert "'Wikipedia'" not in done.stderr
    assert "serving" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_manifest_is_refused_before_any_process_starts(tmp_path: Path) -> None:
    manifest = tmp_path / "corpus.toml"
    manifest.write_text("version = 1\n[[library\n")
    done = subprocess.run(
        [str(CORPUS_MCP), "serve"],
        env=server_environment(manifest, free_port(), **TWO),
        capture_output=True,
        text=True,
        timeout=STARTUP_GUARD_SECONDS,
        check=False,
    )
    assert done.returncode == 2
    assert "TOML syntax error" in done.stderr
    assert "starting 2 processes" not in done.stderr


def test_a_busy_port_fails_before_any_process_starts(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia"])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(CORPUS_MCP), "serve"],
            env=server_environment(manifest, port, **TWO),
            capture_output=True,
            text=True,
            timeout=STARTUP_GUARD_SECONDS,
            check=False,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "starting 2 processes" not in done.stderr


def test_serve_help_documents_workers() -> None:
    done = subprocess.run(
        [str(CORPUS_MCP), "serve", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert "WORKERS" in done.stdout
    assert "one per usable CPU" in done.stdout


def test_a_process_that_does_not_drain_is_killed_and_the_exit_is_1(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    manifest = write_corpus(tmp_path / "corpus", demo_archives, ["Wikipedia"])
    env = {**TWO, "SHUTDOWN_TIMEOUT": "1"}
    with running_server(manifest, tmp_path / "stderr.log", env=env) as server:
        found, opened = one_of_each(server.port)
        stuck = int(str(found[2].health()["pid"]))
        for connection in opened:
            connection.close()
        os.kill(stuck, signal.SIGSTOP)  # as wedged as a process gets: it cannot drain
        assert server.stop(signal.SIGTERM) == 1
    log = server.stderr
    assert "serving processes [2] did not stop in time: killed" in log
    assert re.search(
        r"serving process 2 was killed by SIGKILL with no tool call in flight"
        r"( on \d+ connections?)? while stopping",
        log,
    ), log
    assert "[process 1]: stopped" in log
