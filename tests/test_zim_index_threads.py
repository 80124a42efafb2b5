"""Threads searching one archive's Xapian indexes through small pools (issue 23).

A serving process died of a segfault under 16 clients: a search gave its database back
to the pool while its ``Enquire`` and ``Document`` objects were still referenced, and
destroyed them while another thread searched that database. Xapian's objects share the
database's internals through reference counts that are not atomic, and the bindings
release the GIL, so the two threads' updates of those counts raced, and the database's
internals were freed while in use (:mod:`corpus_mcp.zim.xapian_pool`).

The test makes that race likely: 16 threads on pools of one or two databases, so every
search borrows a database another thread has just given back, with queries of many
words (Xapian opens and closes a posting list per word, each counting a reference to
the database, while the GIL is released), on indexes opened anew for each of 24 trials
(a count a lost update left too high would otherwise shield the later trials). It runs
in a child process, so that a crash fails the test instead of killing pytest.

On the code before the fix (3027513's ``index.py``, its pool bounded the same way) the
child crashed with SIGSEGV in 20 of 20 runs on an idle 2-core machine, each within 3 s,
and in 2 of 5 with both cores kept busy (``.ci/busy-cores``: fewer threads truly run at
once); with the fix it never crashed nor answered wrong. Nothing is timed: the child
does a fixed amount of work; the timeout is only a guard against a hang.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_mcp.zim import index as zim_index

pytestmark = pytest.mark.skipif(
    not zim_index.available(), reason="xapian-bindings-binary is not installed (Linux only)"
)

CHILD = Path(__file__).with_name("index_threads_child.py")
HANG_GUARD_SECONDS = 600


def test_threads_taking_turns_on_small_pools_never_crash_nor_answer_wrong(
    demo_archives: dict[str, Path],
) -> None:
    pool_sizes, threads, rounds, trials = "1,2", 16, 50, 24
    archive = str(demo_archives["Wikipedia"])
    done = subprocess.run(
        [sys.executable, str(CHILD), archive, pool_sizes, *map(str, (threads, rounds, trials))],
        check=False,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
    )
    if done.returncode < 0:
        pytest.fail(
            f"the threads crashed the process ({signal.Signals(-done.returncode).name}):\n"
            + done.stderr[-6000:]
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == (
        f"trials {trials} rounds {trials * threads * rounds} wrong 0 errors 0".split()
    )
