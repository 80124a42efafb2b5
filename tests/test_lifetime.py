"""Processes that end with their parent (corpus_mcp.lifetime), with real processes: the
parent killed by SIGKILL, the thread that started the child ending first, the parent
gone before the child could ask."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from corpus_mcp.lifetime import parent_alive

from .process_tree import GONE_SECONDS, killed_at_the_end, process, wait_all_gone

#: A failsafe, never what is measured: how long a process may take to say something.
GUARD_SECONDS = 30.0

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)

#: A parent that starts its child from a thread that ends once the child is armed, says
#: what the child says (armed; then, once it has seen that thread's end, that it lives on)
#: and the child's pid, then waits to be killed.
PARENT = textwrap.dedent(
    """
    import os, subprocess, sys, threading, time
    child = {}
    def start():
        process = subprocess.Popen(
            [sys.executable, "-c", sys.argv[1], str(os.getpid())],
            stdout=subprocess.PIPE, text=True)
        child["process"] = process
        print(process.stdout.readline().strip(), flush=True)  # armed
    thread = threading.Thread(target=start)
    thread.start()
    thread.join()  # the thread that forked the child ended after the child was armed
    process = child["process"]
    print(process.stdout.readline().strip(), flush=True)  # signalled, still here
    print(process.pid, flush=True)
    time.sleep(600)
    """
)

CHILD = textwrap.dedent(
    """
    import os, signal, sys, time
    from corpus_mcp.lifetime import PARENT_GONE, end_with_parent
    parent = int(sys.argv[1])
    assert end_with_parent(parent)
    ends = signal.getsignal(PARENT_GONE)
    def heard(signum, frame):
        ends(signum, frame)  # ends this process only if the parent is gone
        print("signalled, still here", flush=True)
    signal.signal(PARENT_GONE, heard)
    print("armed", flush=True)
    time.sleep(600)
    """
)


class Lines:
    """A process's lines of output as they come (read by a thread: nothing hangs)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        self._stream = process.stdout
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._stream:
            self._lines.put(line.strip())

    def next(self) -> str:
        try:
            return self._lines.get(timeout=GUARD_SECONDS)
        except queue.Empty:
            pytest.fail(f"nothing said in {GUARD_SECONDS:.0f} s")


@linux_only
def test_a_child_outlives_the_thread_that_started_it_and_ends_with_its_parent() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD], stdout=subprocess.PIPE, text=True
    )
    lines = Lines(parent)
    with killed_at_the_end(parent):
        assert lines.next() == "armed"
        # The thread that forked it ended: the kernel signalled the child, which saw its
        # parent alive and stayed.
        assert lines.next() == "signalled, still here"
        child = process(int(lines.next()))
        assert child is not None
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=GONE_SECONDS)
        wait_all_gone([child], groups=False)
    assert parent.stdout is not None
    parent.stdout.close()


def test_a_child_whose_parent_is_gone_before_it_asks_ends_at_once() -> None:
    not_its_parent = os.getppid()  # the child's parent is this process
    probe = (
        "from corpus_mcp.lifetime import end_with_parent; "
        f"end_with_parent({not_its_parent}); print('never')"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        timeout=GUARD_SECONDS,
    )
    assert ran.returncode == -signal.SIGKILL, ran
    assert "never" not in ran.stdout


def test_parent_alive_tells_the_parent_from_any_other_process() -> None:
    assert parent_alive(os.getppid())
    assert not parent_alive(os.getpid())
