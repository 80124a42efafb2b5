"""Section indexes while serving: opened when ready, built when missing, one at a time,
in the background, and dropped when found broken.

A serving process (and stdio) answers at once: a library without a ready index is
searched as it always was (libzim's indexes, its pages read), while its index is built by
a child process (:func:`corpus_mcp.sections.build.main`) at the lowest CPU priority
(``INDEX_PRIORITY``: ``SCHED_IDLE`` by default, so it runs on what searches leave idle),
one build at a time in the index folder whatever serves from it (the folder's build
lock), smallest archive first. The child ends with the serving process, however that
ends (SIGKILL included: :func:`corpus_mcp.lifetime.end_with_parent`).
The corpus polls the folder and switches a library to its index once it is published
(:meth:`IndexManager.open`). A build that fails is tried again later, backing off; an
index a search finds unreadable is removed and built again.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec
import trio

from corpus_mcp.sections.build import NOTICE_PREFIX
from corpus_mcp.sections.catalog import IndexFolder, IndexState, archive_key
from corpus_mcp.sections.store import IndexUnreadable, SectionIndex

log = logging.getLogger("corpus_mcp.sections")

#: After a failed build, the next try waits this long, doubling with each failure...
RETRY_SECONDS: Final = 60.0
#: ...up to this.
RETRY_MAX_SECONDS: Final = 3600.0
#: The child's exit status when another process holds the build lock.
BUSY_EXIT: Final = 3
#: How long a child gets to stop after SIGTERM (it keeps what it committed).
STOP_SECONDS: Final = 5.0


class Target(msgspec.Struct, frozen=True, kw_only=True):
    """A library's archive as far as its index is concerned."""

    library: str
    archive: str
    uuid: str
    size: int
    adapter: str
    adapter_version: int

    @property
    def key(self) -> str:
        return archive_key(self.uuid, self.adapter)


class BuildOutcome(msgspec.Struct, frozen=True):
    built: bool
    busy: bool = False
    """Another process was building: nothing was done."""
    reason: str | None = None


class IndexManager:
    """The section indexes of one served corpus (its folder; None when INDEX=off)."""

    def __init__(self, folder: Path | None, *, priority: str = "idle") -> None:
        self.folder = IndexFolder(folder) if folder is not None else None
        self.priority = priority
        # Files this process found broken and could not remove: never opened again
        # (until another file, a rebuilt one, is at the path).
        self._broken: dict[str, tuple[int, int]] = {}
        self._unusable: str | None = None
        self._said_unusable = False

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def unusable(self) -> str | None:
        """Why no index can be built (the folder cannot be written), said once."""
        if self.folder is None:
            return None
        reason = self.folder.usable()
        if reason is not None and not self._said_unusable:
            log.warning("section indexes: %s; serving without new ones", reason)
            self._said_unusable = True
        self._unusable = reason
        return reason

    def state(self, target: Target) -> IndexState:
        if self.folder is None:
            return IndexState(state="off", reason="INDEX=off")
        state = self.folder.state(target.key, target.adapter_version, target.size)
        if state.state == "ready" and self._is_broken(target):
            return IndexState(state="stale", key=target.key, reason="found unreadable")
        if state.state in ("missing", "stale") and self._unusable:
            return IndexState(state="failed", key=target.key, reason=self._unusable)
        return state

    def open(self, target: Target) -> SectionIndex | None:
        """The target's index when it is ready and opens (blocking: call from a thread);
        an unreadable one is dropped, to be built again."""
        if self.folder is None or self.state(target).state != "ready":
            return None
        try:
            return SectionIndex.open(self.folder.file(target.key))
        except IndexUnreadable as exc:
            self.discard(target, str(exc))
            return None

    def discard(self, target: Target, reason: str) -> None:
        """An index found unreadable: removed so that it is built again (if the folder
        refuses, this process never opens that file again)."""
        if self.folder is None:
            return
        file = self.folder.file(target.key)
        log.warning(
            "library %s: its section index %s is unreadable (%s): searching it without "
            "the index until it is built again",
            target.library,
            file,
            reason,
        )
        try:
            identity = _identity(file)
            file.unlink()
        except FileNotFoundError:
            return
        except OSError:
            if identity is not None:
                self._broken[target.key] = identity

    def _is_broken(self, target: Target) -> bool:
        known = self._broken.get(target.key)
        if known is None or self.folder is None:
            return False
        if _identity(self.folder.file(target.key)) == known:
            return True
        del self._broken[target.key]
        return False

    def next_to_build(self, targets: Sequence[Target]) -> Target | None:
        """The smallest archive whose index is missing or stale, or failed long enough
        ago to be tried again (None: nothing to build now)."""
        if self.folder is None or self.unusable() is not None or self.folder.building():
            # Another process builds now (a serving process, a replica, corpus-mcp
            # index): starting a child only for it to find the lock taken costs a
            # Python start every few seconds.
            return None
        now = time.time()
        for target in sorted(targets, key=lambda t: (t.size, t.library)):
            state = self.state(target)
            if state.state in ("missing", "stale"):
                return target
            if state.state == "failed":
                failure = self.folder.failure(target.key)
                if failure is None or now >= failure.at + retry_delay(failure.attempts):
                    return target
        return None

    async def build(self, target: Target) -> BuildOutcome:
        """Build the target's index in a child process at the lowest priority (killed,
        keeping what it committed, if this is cancelled; ending with this process)."""
        assert self.folder is not None
        command = [
            sys.executable,
            "-m",
            "corpus_mcp.sections.build",
            target.archive,
            target.adapter,
            str(self.folder.root),
            target.library,
            self.priority,
            str(os.getpid()),
        ]
        started = time.monotonic()
        log.info("library %s: building its section index in the background", target.library)
        result = await trio.run_process(
            command,
            check=False,
            capture_stdout=True,
            capture_stderr=True,
            deliver_cancel=_stop_child,
        )
        seconds = time.monotonic() - started
        for notice in _notices(result.stderr):
            log.info("library %s: section index: %s", target.library, notice)
        if result.returncode == BUSY_EXIT:
            return BuildOutcome(built=False, busy=True)
        if result.returncode == 0:
            log.info("library %s: section index built in %.1f s", target.library, seconds)
            return BuildOutcome(built=True)
        failure = self.folder.failure(target.key)
        reason = (
            failure.reason if failure is not None else _last_line(result.stderr, result.returncode)
        )
        log.warning(
            "library %s: building its section index failed (%s); searching it without "
            "one, trying again later",
            target.library,
            reason,
        )
        if failure is None:
            self.folder.record_failure(target.key, reason)
        return BuildOutcome(built=False, reason=reason)


def retry_delay(attempts: int) -> float:
    """Seconds before a build that failed ``attempts`` times is tried again."""
    return float(min(RETRY_MAX_SECONDS, RETRY_SECONDS * 2 ** max(0, attempts - 1)))


async def _stop_child(process: trio.Process) -> None:
    """SIGTERM (the child commits nothing more and exits), then SIGKILL."""
    process.terminate()
    with trio.move_on_after(STOP_SECONDS):
        await process.wait()
        return
    process.kill()


def _identity(file: Path) -> tuple[int, int] | None:
    try:
        stat = file.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns)


def _notices(stderr: bytes | None) -> list[str]:
    """What the child said of what an earlier build left (its notice lines)."""
    lines = (stderr or b"").decode("utf-8", "replace").splitlines()
    return [line.removeprefix(NOTICE_PREFIX) for line in lines if line.startswith(NOTICE_PREFIX)]


def _last_line(stderr: bytes | None, code: int) -> str:
    lines = (stderr or b"").decode("utf-8", "replace").strip().splitlines()
    if lines:
        return lines[-1][-300:]
    return (
        f"the build process exited with status {code}"
        if code > 0
        else (f"the build process was killed by signal {-code}")
    )
