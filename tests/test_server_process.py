"""The real ``corpus-mcp serve`` process: startup failure and graceful shutdown.

These run the installed console script as a subprocess, over real archives copied
into a temporary CORPUS_ROOT, because exit codes, stderr and signal handling only
exist at that level.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .server_process import (
    CORPUS_MCP,
    STARTUP_GUARD_SECONDS,
    ServerProcess,
    free_port,
    running_server,
    server_environment,
)

GOOD_ZIM = "wikipedia_en_ray_charles_mini_2020-03.zim"
BROKEN_ZIM = "invalid/invalid.smaller_than_header.zim"


def _write_corpus(root: Path, shared_zims: Path, libraries: dict[str, str]) -> Path:
    """Copy archives (library name -> file under shared/zims) into ``root``; the manifest."""
    tables = []
    for name, source in libraries.items():
        target = root / f"{name}.zim"
        shutil.copyfile(shared_zims / source, target)
        tables.append(
            f'[[library]]\nname = "{name}"\npath = "{target.name}"\nadapter = "mediawiki"\n'
        )
    manifest = root / "corpus.toml"
    manifest.write_text("version = 1\n\n" + "\n".join(tables))
    return manifest


@pytest.fixture(autouse=True)
def _console_script() -> None:
    if not CORPUS_MCP.is_file():
        pytest.skip(f"console script not installed at {CORPUS_MCP} (pip install -e .)")


def test_startup_failure_names_the_library(shared_zims: Path, tmp_path: Path) -> None:
    manifest = _write_corpus(tmp_path, shared_zims, {"good": GOOD_ZIM, "brokenlib": BROKEN_ZIM})
    done = subprocess.run(
        [str(CORPUS_MCP), "serve"],
        env=server_environment(manifest, free_port()),
        capture_output=True,
        text=True,
        timeout=STARTUP_GUARD_SECONDS,
        check=False,
    )
    assert done.returncode != 0
    assert "'brokenlib'" in done.stderr
    assert "'good'" not in done.stderr
    assert "Traceback" not in done.stderr
    assert "serving" not in done.stderr


def test_a_busy_port_is_a_clean_startup_failure(shared_zims: Path, tmp_path: Path) -> None:
    manifest = _write_corpus(tmp_path, shared_zims, {"good": GOOD_ZIM})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(CORPUS_MCP), "serve"],
            env=server_environment(manifest, port),
            capture_output=True,
            text=True,
            timeout=STARTUP_GUARD_SECONDS,
            check=False,
        )
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def running(shared_zims: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    root = tmp_path / "corpus"
    root.mkdir()
    manifest = _write_corpus(root, shared_zims, {"wiki": GOOD_ZIM})
    with running_server(manifest, tmp_path / "stderr.log") as server:
        yield server


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_the_server_cleanly(running: ServerProcess, signum: signal.Signals) -> None:
    base = f"http://127.0.0.1:{running.port}"
    health = httpx.get(f"{base}/healthz", timeout=STARTUP_GUARD_SECONDS)
    assert health.json() == {"status": "ok", "libraries": 1}
    call = httpx.post(
        f"{base}/mcp",
        timeout=STARTUP_GUARD_SECONDS,
        headers={"accept": "application/json"},
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "Ray Charles"}},
        },
    )
    assert call.json()["result"]["structuredContent"]["results"]
    running.process.send_signal(signum)
    assert running.process.wait(timeout=STARTUP_GUARD_SECONDS) == 0
    stderr = running.stderr
    assert f"received {signum.name}" in stderr
    assert "stopped" in stderr
    assert "Traceback" not in stderr
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base}/healthz")


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (workers fork from a fork server, a grandchild)."""
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


def _gone(pids: set[int]) -> bool:
    """Whether every process in ``pids`` exits (polled; the guard only bounds a hang)."""
    deadline = time.monotonic() + STARTUP_GUARD_SECONDS
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.01)
    return False


def _search_and_fetch(port: int) -> tuple[dict[str, Any], dict[str, Any]]:
    base = f"http://127.0.0.1:{port}/mcp"

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = httpx.post(
            base,
            headers={"accept": "application/json"},
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            },
            timeout=STARTUP_GUARD_SECONDS,
        )
        result: dict[str, Any] = reply.json()["result"]["structuredContent"]
        return result

    found = call("search", {"query": "Ray Charles piano"})
    return found, call("fetch", {"ref": found["results"][0]["ref"]})


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_parse_workers_serve_documents_and_never_outlive_the_server(
    shared_zims: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    manifest = _write_corpus(tmp_path, shared_zims, {"wiki": GOOD_ZIM})
    with running_server(manifest, tmp_path / "stderr.log", env={"PARSE_WORKERS": "2"}) as server:
        found, fetched = _search_and_fetch(server.port)
        assert found["results"][0]["snippet"] and fetched["sections"]
        workers = _descendants(server.process.pid)
        # The fork server, the two workers forked from it, multiprocessing's tracker.
        assert len(workers) >= 3
        server.process.send_signal(signum)
        server.process.wait(timeout=STARTUP_GUARD_SECONDS)
        assert _gone(workers), "parse workers outlived the server"
        assert "Traceback" not in server.stderr
