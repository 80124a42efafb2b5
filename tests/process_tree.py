"""The processes a test started, and theirs, as /proc shows them: whether any is left
after a kill (by process group and by parent, a reused pid told apart by its start
time), and processes killed when a test ends, whatever happened."""

from __future__ import annotations

import os
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest

#: A failsafe, never what is measured: how long processes get to go after their parent
#: was killed (they go within a second or two).
GONE_SECONDS = 60.0
POLL_SECONDS = 0.05


class Process(NamedTuple):
    pid: int
    ppid: int
    group: int
    started: int
    """Clock ticks after boot (with the pid: this process, not one that reused its pid)."""
    command: str


def process(pid: int) -> Process | None:
    """The live process of that pid (None: none, or a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):
        return None
    return Process(pid, int(fields[1]), int(fields[2]), int(fields[19]), command)


def processes() -> list[Process]:
    found = (process(int(name)) for name in os.listdir("/proc") if name.isdigit())
    return [p for p in found if p is not None]


def tree(root: int) -> list[Process]:
    """Every live process of ``root``'s process group, and every descendant of root."""
    every = processes()
    children: dict[int, list[Process]] = defaultdict(list)
    for each in every:
        children[each.ppid].append(each)
    found = {p.pid: p for p in every if p.group == root}
    waiting = [root]
    while waiting:
        for child in children[waiting.pop()]:
            if child.pid not in found:
                found[child.pid] = child
            waiting.append(child.pid)
    return sorted(found.values())


def alive(known: list[Process], *, groups: bool) -> list[Process]:
    """Which of ``known`` still live, with any process whose parent is one of them, and
    (``groups``) any in their process groups."""
    pids = {p.pid: p for p in known}
    in_groups = {p.group for p in known} if groups else set()
    living = [p for p in (process(pid) for pid in pids) if p and p.started == pids[p.pid].started]
    strays = [p for p in processes() if p.group in in_groups or p.ppid in pids]
    return sorted({*living, *strays})


def wait_all_gone(known: list[Process], *, groups: bool = True) -> None:
    """Until none of ``known`` lives, nor any process they started, nor (``groups``) any
    in their process groups."""
    deadline = time.monotonic() + GONE_SECONDS
    while left := alive(known, groups=groups):
        if time.monotonic() > deadline:
            listing = "\n".join(f"{p.pid} (parent {p.ppid}) {p.command[:120]}" for p in left)
            pytest.fail(f"alive {GONE_SECONDS:.0f} s after the kill:\n{listing}")
        time.sleep(POLL_SECONDS)


@contextmanager
def killed_at_the_end(started: subprocess.Popen[bytes] | subprocess.Popen[str]) -> Iterator[None]:
    """Run a block; ``started`` is killed (and reaped) after it if still running."""
    try:
        yield
    finally:
        if started.poll() is None:
            started.kill()
            started.wait()
