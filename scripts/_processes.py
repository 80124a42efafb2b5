"""Processes the measuring scripts start and watch: ``corpus-mcp serve`` and
``kiwix-serve`` on free loopback ports, and what /proc says about a process tree.

Every server is started by a context manager that ends it on the way out, on errors and
Ctrl-C as well, so that no run leaves a process behind on a shared machine.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
SERVE = (sys.executable, "-m", "corpus_mcp", "serve")
"""The real command (what the console script and the container run)."""
SERVER_ENV: dict[str, str] = {}
"""Settings every corpus-mcp server started here gets beyond its defaults (``bench.py
--server-env``: measuring an option against kiwix-serve in the same run)."""
INDEXES = ROOT / ".bench" / "indexes"
"""The section indexes of every corpus the scripts serve (built once by ``corpus-mcp
index``, kept: a changed archive gets an index of its own)."""
STARTUP_GUARD_SECONDS = 300.0
"""Only a hang guard: opening 100 archives or a large one takes seconds, not minutes."""
STOP_GUARD_SECONDS = 15.0
LOG_TAIL_CHARS = 3000


class ServerFailed(RuntimeError):
    """A server exited or never became ready; the message ends with its log's tail."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Served:
    """A running server: its process, base URL and how long it took to become ready."""

    process: subprocess.Popen[bytes]
    base: str
    ready_seconds: float

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        """The MCP endpoint (for corpus-mcp)."""
        return f"{self.base}/mcp"


def settings_env() -> dict[str, str]:
    """What every corpus-mcp here is configured with beyond the defaults: the scripts'
    index folder, then ``SERVER_ENV``."""
    return {"CORPUS_INDEX_DIR": str(INDEXES), **SERVER_ENV}


def ensure_indexes(manifest: Path, root: Path | None = None, env: Mapping[str, str] = {}) -> None:
    """Build the corpus's missing section indexes before a server needs them (unless
    INDEX=off): a server would otherwise build them in the background while it is
    measured. Says what it built; says nothing when all were up to date."""
    environ = {
        **os.environ,
        "CORPUS_ROOT": str(root or manifest.parent),
        "CORPUS_CONFIG": str(manifest),
        **settings_env(),
        **env,
    }
    if environ.get("INDEX", "auto").strip().lower() == "off":
        return
    done = subprocess.run(
        [sys.executable, "-m", "corpus_mcp", "index"],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ServerFailed(f"corpus-mcp index failed:\n{done.stdout}{done.stderr}")
    built = [line for line in done.stdout.splitlines() if ": built:" in line]
    for line in built:
        print(f"  section index {line}", flush=True)


def resident_bytes(files: Sequence[Path]) -> int:
    """Bytes of these files in the page cache (``mincore``): what pread-read files such
    as the section indexes take, counted once for every process reading them."""
    import ctypes  # noqa: PLC0415 - only this measurement

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]  # fmt: skip
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for file in files:
        try:
            size = file.stat().st_size
            fd = os.open(file, os.O_RDONLY)
        except OSError:
            continue
        try:
            if size == 0:
                continue
            address = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
            if address in (None, ctypes.c_void_p(-1).value):
                continue
            pages = (size + page - 1) // page
            vector = ctypes.create_string_buffer(pages)
            if libc.mincore(address, size, vector) == 0:
                total += sum(1 for byte in vector.raw if byte & 1) * page
            libc.munmap(address, size)
        finally:
            os.close(fd)
    return total


@contextmanager
def corpus_server(
    manifest: Path,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = SERVE,
    root: Path | None = None,
    log: Path | None = None,
    *,
    prebuild: bool = True,
) -> Iterator[Served]:
    """``corpus-mcp serve`` over the corpus at ``manifest`` (CORPUS_ROOT is ``root``,
    else the manifest's folder) with default settings plus ``env``, ready once
    ``/healthz`` answers 200; its output goes to ``log`` when given (kept, for the
    caller to read while it runs), else to a scratch file. Its missing section indexes
    are built first unless ``prebuild`` is false (the server then builds them in the
    background, as a fresh deployment does)."""
    if prebuild:
        ensure_indexes(manifest, root, env or {})
    port = free_port()
    environ = {
        **os.environ,
        "CORPUS_ROOT": str(root or manifest.parent),
        "CORPUS_CONFIG": str(manifest),
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": str(port),
        "LOG_LEVEL": "warning",
        **settings_env(),
        **(env or {}),
    }
    base = f"http://127.0.0.1:{port}"
    with _running(list(command), environ, f"{base}/healthz", log) as (process, ready):
        yield Served(process, base, ready)


def kiwix_binary() -> str | None:
    """kiwix-serve's path; installed from Debian's kiwix-tools when missing and this
    process may (root with apt-get), else None after saying why."""
    found = shutil.which("kiwix-serve")
    if found or os.geteuid() != 0 or not shutil.which("apt-get"):
        if not found:
            print("kiwix-serve not found and cannot be installed here (needs root and apt-get)")
        return found
    print("kiwix-serve not found: apt-get install -y kiwix-tools ...", flush=True)
    done = subprocess.run(
        ["apt-get", "install", "-y", "-q", "kiwix-tools"],
        capture_output=True,
        text=True,
        check=False,
    )
    found = shutil.which("kiwix-serve")
    if not found:
        print(f"  installing kiwix-tools failed: {done.stderr.strip()[-300:]}")
    return found


@contextmanager
def kiwix_server(binary: str, files: Sequence[Path]) -> Iterator[Served]:
    """``kiwix-serve`` over ``files`` on a free loopback port, ready once it serves its
    catalog."""
    port = free_port()
    command = [binary, "--address=127.0.0.1", f"--port={port}", *map(str, files)]
    base = f"http://127.0.0.1:{port}"
    with _running(command, dict(os.environ), f"{base}/catalog/v2/entries") as (process, ready):
        yield Served(process, base, ready)


@contextmanager
def _running(
    command: list[str], environ: dict[str, str], ready_url: str, path: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], float]]:
    """A process whose output goes to ``path`` (else a scratch log), ended (TERM, then
    KILL) on exit."""
    with _log_file(path) as log:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, env=environ, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        try:
            _wait_ready(process, ready_url, log)
            yield process, time.perf_counter() - started
        finally:
            stop(process)


def _log_file(path: Path | None) -> IO[bytes]:
    """``path`` opened for writing and reading back, else a scratch file."""
    return path.open("w+b") if path is not None else tempfile.TemporaryFile()


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: IO[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_GUARD_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerFailed(f"{process.args!r} exited with {process.returncode}{_tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    raise ServerFailed(
        f"{process.args!r} not ready within {STARTUP_GUARD_SECONDS:.0f} s{_tail(log)}"
    )


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    text = log.read().decode("utf-8", "replace")[-LOG_TAIL_CHARS:]
    return f"; its output ends:\n{text}" if text else ""


def stop(process: subprocess.Popen[bytes]) -> None:
    """TERM, then KILL if it does not end within the guard; always reaped."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_GUARD_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
    process.wait()


# -- /proc ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessSample:
    """A process tree at one moment, summed over its processes (Linux /proc)."""

    processes: int
    threads: int
    rss_bytes: int
    anonymous_bytes: int
    """The processes' own memory (heap, stacks), each page counted once however many of
    the tree's processes share it (forked processes share their parent's until written):
    the anonymous part of PSS."""
    file_bytes: int
    """Mapped files (libraries, archives: shared page cache), counted the same way: the
    file part of PSS."""
    peak_rss_bytes: int
    """Sum of each process's VmHWM: an upper bound of the tree's peak (pages shared by
    its processes counted in each)."""
    pss_bytes: int
    """Proportional set size: each page shared by N processes counted 1/N in each, so the
    tree's sum counts a page its forked processes share with their parent once."""
    cpu_seconds: float
    """User plus system time so far."""
    max_threads: int = 0
    """Threads of the process that has the most."""


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (children of every thread, recursively)."""
    tree = [pid]
    for parent in tree:
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                tree += [int(child) for child in (task / "children").read_text().split()]
            except OSError:  # the task ended meanwhile
                continue
    return tree


def sample(pid: int) -> ProcessSample:
    """Threads, RSS, peak RSS and CPU time of ``pid``'s tree (processes that end while
    being read are left out)."""
    processes = threads = rss = anonymous = mapped = peak = pss = most = 0
    cpu = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for member in process_tree(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
            stat = Path(f"/proc/{member}/stat").read_text()
        except OSError:
            continue
        fields = dict(line.partition(":")[::2] for line in status.splitlines())
        processes += 1
        threads += int(fields.get("Threads", "0"))
        most = max(most, int(fields.get("Threads", "0")))
        rss += _kib(fields.get("VmRSS", "0 kB"))
        peak += _kib(fields.get("VmHWM", "0 kB"))
        proportional = _proportional(member)
        pss += proportional.get("Pss", 0)
        # Shared anonymous memory (the board of several serving processes) is their own.
        anonymous += proportional.get("Pss_Anon", 0) + proportional.get("Pss_Shmem", 0)
        mapped += proportional.get("Pss_File", 0)
        # Fields 14 and 15 of /proc/PID/stat (utime, stime), counted after "(comm)".
        utime, stime = stat.rsplit(")", 1)[1].split()[11:13]
        cpu += (int(utime) + int(stime)) / ticks
    return ProcessSample(processes, threads, rss, anonymous, mapped, peak, pss, cpu, most)


def tree_pss(pid: int) -> int:
    """The proportional set size of ``pid``'s tree (cheaper than :func:`sample`)."""
    return sum(_proportional(member).get("Pss", 0) for member in process_tree(pid))


def _proportional(pid: int) -> dict[str, int]:
    """Pss, Pss_Anon, Pss_File, Pss_Shmem of ``pid`` in bytes (empty when it ended, or
    on a kernel without smaps_rollup)."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return {}
    found = {}
    for line in rollup.splitlines():
        key, _, value = line.partition(":")
        if key.startswith("Pss"):
            found[key] = _kib(value)
    return found


def _kib(value: str) -> int:
    return int(value.split(maxsplit=1)[0]) * 1024
