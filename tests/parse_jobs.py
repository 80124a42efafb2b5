"""Jobs that stand in for a worker's parse in tests/test_parsing.py.

Workers import a job by its module path, so these live in a module of their own, not
in the test file (which a worker process could not import as such).
"""

from __future__ import annotations

import os
import threading


def never_return(shelf: tuple[str, str], pid_file: str, *_: object) -> bytes:
    """A parse that never ends (as a pathological page might), once it has written its
    worker's process id to the file passed as the document's path."""
    with open(pid_file, "w") as out:
        out.write(str(os.getpid()))
    threading.Event().wait()
    raise AssertionError("unreachable")


def die(*_: object) -> bytes:
    """A parse that takes its worker down (as a crash in native code would)."""
    os._exit(70)


def raise_value_error(*_: object) -> bytes:
    raise ValueError("unparseable page")
