"""The build pool's fork server ends with the build process that started it, and its
worker processes with it.

multiprocessing starts its fork server by fork and exec, with no code of ours in
between: the only code of ours that process runs is what it preloads, this module first.
:func:`start_fork_server` starts it with the build process named in :data:`OWNER_ENV`
(set for that moment only); imported in a process started so, this module makes it end
with that build process (:func:`corpus_mcp.lifetime.end_with_parent`) and records its
pid in :data:`FORK_SERVER`, which every worker it forks inherits, to end with it in turn.
Imported anywhere else, it does nothing.
"""

from __future__ import annotations

import multiprocessing.forkserver
import os
import threading
from typing import Final

from corpus_mcp.lifetime import end_with_parent

#: The build process's pid, in the environment the fork server starts with.
OWNER_ENV: Final = "CORPUS_MCP_BUILD_OWNER"

_STARTING = threading.Lock()


def _guard() -> int | None:
    """In the fork server: end with the build process, and this process's pid."""
    owner = os.environ.pop(OWNER_ENV, "")
    if not owner.isdigit():
        return None
    end_with_parent(int(owner))
    return os.getpid()


#: The fork server's pid, in it and in each worker it forks (None elsewhere).
FORK_SERVER: Final = _guard()


def start_fork_server() -> None:
    """Start multiprocessing's fork server (the preload set), ending with this process
    (nothing when it runs already)."""
    with _STARTING:
        os.environ[OWNER_ENV] = str(os.getpid())
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            del os.environ[OWNER_ENV]
