"""The real ``corpus-mcp serve`` process: startup failure and graceful shutdown.

These run the installed console script as a subprocess, over real archives copied
into a temporary CORPUS_ROOT, because exit codes, stderr and signal handling only
exist at that level.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CORPUS_MCP = Path(sys.executable).with_name("corpus-mcp")
GOOD_ZIM = "wikipedia_en_ray_charles_mini_2020-03.zim"
BROKEN_ZIM = "invalid/invalid.smaller_than_header.zim"
STARTUP_GUARD_SECONDS = 60.0
"""Only a hang guard: a server that never comes up fails the test instead of blocking it."""


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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _environment(root: Path, manifest: Path, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "CORPUS_ROOT": str(root),
        "CORPUS_CONFIG": str(manifest),
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": str(port),
        "LOG_LEVEL": "info",
    }


@pytest.fixture(autouse=True)
def _console_script() -> None:
    if not CORPUS_MCP.is_file():
        pytest.skip(f"console script not installed at {CORPUS_MCP} (pip install -e .)")


def test_startup_failure_names_the_library(shared_zims: Path, tmp_path: Path) -> None:
    manifest = _write_corpus(tmp_path, shared_zims, {"good": GOOD_ZIM, "brokenlib": BROKEN_ZIM})
    done = subprocess.run(
        [str(CORPUS_MCP), "serve"],
        env=_environment(tmp_path, manifest, _free_port()),
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
            env=_environment(tmp_path, manifest, port),
            capture_output=True,
            text=True,
            timeout=STARTUP_GUARD_SECONDS,
            check=False,
        )
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


class Running:
    """A ``corpus-mcp serve`` process whose stderr goes to a file we can read."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, port: int) -> None:
        self.process = process
        self.log = log
        self.port = port

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + STARTUP_GUARD_SECONDS
        while "serving" not in self.stderr:
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server did not start:\n{self.stderr}")
            time.sleep(0.05)


@pytest.fixture
def running(shared_zims: Path, tmp_path: Path) -> Iterator[Running]:
    root = tmp_path / "corpus"
    root.mkdir()
    manifest = _write_corpus(root, shared_zims, {"wiki": GOOD_ZIM})
    port = _free_port()
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [str(CORPUS_MCP), "serve"],
            env=_environment(root, manifest, port),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    server = Running(process, log, port)
    try:
        server.wait_until_serving()
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_the_server_cleanly(running: Running, signum: signal.Signals) -> None:
    base = f"http://127.0.0.1:{running.port}"
    health = httpx.get(f"{base}/healthz")
    assert health.json() == {"status": "ok", "libraries": 1}
    call = httpx.post(
        f"{base}/mcp",
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
