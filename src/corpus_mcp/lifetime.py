"""Processes that end with their parent, however it ends (SIGKILL and the OOM killer
included): what the section index's build processes use, and the serving fork server.

Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``) makes the kernel signal a
process when its parent goes. Two pitfalls shape :func:`end_with_parent`:

- the "parent" is the *thread* that forked the child, not its process: a child started
  from a worker thread (trio starts subprocesses from its thread cache, whose threads end
  after 10 s idle) is signalled while its parent process lives on. So the signal is a
  catchable one (:data:`PARENT_GONE`) whose handler ends this process only when
  ``getppid()`` is no longer the parent it was given (a child whose forking thread ended
  is handed to another thread of the same process: same ``getppid()``), and ignores it
  otherwise;
- the child sets it on itself, after the fork: a parent that died before that sends
  nothing, so ``getppid()`` is checked against the expected parent (given by the parent,
  not read here) right after.

The handler runs between two bytecodes of the main thread: within a page's parse, a
chunk's commit. Where prctl is missing (not Linux), the callers check
:func:`parent_alive` between their units of work. This process ends by SIGKILL: no
cleanup, no ``atexit``, and no destructor that writes (a Xapian database commits what
it holds when it is destroyed outside a transaction).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from types import FrameType
from typing import Final

_PR_SET_PDEATHSIG: Final = 1
#: The parent-death signal of :func:`end_with_parent` (nothing else here uses it).
PARENT_GONE: Final = signal.SIGUSR1


def parent_death_signal(signum: int) -> bool:
    """Ask the kernel for ``signum`` when the thread that forked this process ends
    (Linux); False where it cannot (nothing was set)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    return False


def parent_alive(parent: int) -> bool:
    """Whether process ``parent`` is still this process's parent (a process whose parent
    died belongs to init or a subreaper)."""
    return os.getppid() == parent


def end_now() -> None:
    """End this process at once, as if killed: nothing of it runs any more."""
    os.kill(os.getpid(), signal.SIGKILL)


def end_with_parent(parent: int) -> bool:
    """End this process when process ``parent`` (its parent, as the parent said) ends;
    call it first in the child's main thread. True when the kernel will say so (Linux),
    False when only :func:`parent_alive` checks can tell."""

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        if not parent_alive(parent):
            end_now()

    signal.signal(PARENT_GONE, on_signal)
    armed = parent_death_signal(PARENT_GONE)
    if not parent_alive(parent):  # it died before the signal was set: nothing will come
        end_now()
    return armed
