"""Which file an open archive is, and whether the file at its path is still that one.

libzim memory-maps archives. When a mapped file shrinks under the server (``truncate``, or
next month's archive copied over it in place), the next read of a page past its new end
raises SIGBUS and the whole process dies: a signal from native code cannot be caught
safely in-process. So a file that changed is never touched again. Each archive keeps a
descriptor on the file it opened and the file's identity at that moment (device, inode,
size, modification time); before every access :meth:`ArchiveFile.problem` compares it
with the descriptor (a changed size or time: changed in place, its mapping is unsafe)
and with the path (missing or unreadable: the operator took the file away); between the
calls of a longer job :meth:`ArchiveFile.changed` looks at the descriptor only, which is
what keeps the mapping safe. That costs a few microseconds of system calls
(``scripts/bench_archive_check.py``). A file changed between the check and the read
cannot be caught this way; docs/operations.md, "Archive faults", says so and how to update
safely.

A path that names *another* file (the operator renamed a new archive over it) is no
fault: the file held is intact, and goes on serving until the new one is found sound
(:meth:`corpus_mcp.zim.service.ArchiveService.reopen`).

libzim and Xapian open the archive through ``/proc/self/fd/<descriptor>`` where that
exists, so they map exactly the file whose identity is kept even if the path changes
while they open it; elsewhere they open the path, and :meth:`ArchiveFile.opened_as_held`
makes sure it still named the file held.
"""

from __future__ import annotations

import os
import weakref
from typing import Final

import msgspec

TRUNCATED: Final = "archive file truncated"
CHANGED: Final = "archive file changed in place"
DELETED: Final = "archive file deleted"
REPLACED: Final = "archive file replaced"
"""Only while an archive is opened by its path (no ``/proc``): the path named another
file by the time libzim and Xapian had opened it."""
UNREADABLE: Final = "archive file unreadable"


class FileIdentity(msgspec.Struct, frozen=True):
    """What tells one state of one file from another, as ``stat`` reports it."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)

    def same_file(self, other: FileIdentity) -> bool:
        """The same inode, whatever its size and time."""
        return (self.device, self.inode) == (other.device, other.inode)


class FileProblem(msgspec.Struct, frozen=True):
    """Why a file is not (or no longer) the archive served."""

    reason: str
    """One of the constants above: safe to tell an agent (no path)."""
    detail: str
    """For the operator's log: the path and what was seen."""


def look(path: str) -> FileIdentity | FileProblem:
    """The identity of the file at ``path`` now, or why there is no readable file."""
    found = identity_at(path)
    if isinstance(found, FileProblem):
        return found
    return _unreadable(path) or found


def identity_at(path: str) -> FileIdentity | FileProblem:
    """The identity of the file at ``path`` (readable or not), or why there is none."""
    try:
        return FileIdentity.of(os.stat(path))
    except FileNotFoundError:
        return FileProblem(DELETED, f"{path}: no such file")
    except OSError as exc:
        return FileProblem(UNREADABLE, f"{path}: {exc.strerror or exc}")


def _unreadable(path: str) -> FileProblem | None:
    if os.access(path, os.R_OK):
        return None
    return FileProblem(UNREADABLE, f"{path}: no read permission")


class ArchiveFile:
    """A read-only descriptor on an archive file, kept open while the archive is served.

    The descriptor is closed when the object is collected, that is once the last thread
    using the reader that owns it has let go (see :mod:`.service`).
    """

    def __init__(self, path: str) -> None:
        """Open ``path``; raises ``OSError`` when it cannot be opened."""
        self.path = path
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self._descriptor = descriptor
        self._finalizer = weakref.finalize(self, os.close, descriptor)
        self.identity = FileIdentity.of(os.fstat(descriptor))
        by_descriptor = f"/proc/self/fd/{descriptor}"
        self.source = by_descriptor if os.path.exists(by_descriptor) else path
        """Where libzim and Xapian open the archive: the very file held open."""

    def changed(self) -> FileProblem | None:
        """None while the file held open is unchanged: its mapping is safe to read (one
        ``fstat``; a path that names another file now does not make it unsafe)."""
        try:
            now = FileIdentity.of(os.fstat(self._descriptor))
        except OSError as exc:
            return FileProblem(UNREADABLE, f"{self.path}: {exc.strerror or exc}")
        was = self.identity
        if now.size < was.size:
            return FileProblem(TRUNCATED, f"{self.path}: {was.size} -> {now.size} bytes")
        if now != was:
            return FileProblem(
                CHANGED,
                f"{self.path}: {was.size} -> {now.size} bytes, "
                f"modified {(now.mtime_ns - was.mtime_ns) / 1e9:+.3f} s",
            )
        return None

    def problem(self) -> FileProblem | None:
        """None while the file held is unchanged and its path names a file: this one,
        readable, or another (a new archive renamed over it: the one held is intact)."""
        changed = self.changed()
        if changed is not None:
            return changed
        at_path = identity_at(self.path)
        if isinstance(at_path, FileProblem):
            return at_path
        if not at_path.same_file(self.identity):
            return None
        return _unreadable(self.path)

    def opened_as_held(self) -> FileProblem | None:
        """Right after libzim and Xapian opened :attr:`source`: None when the file held
        is sound (:meth:`problem`) and it is what they opened (always, through
        ``/proc/self/fd``; through the path, only if the path still names it)."""
        problem = self.problem()
        if problem is not None or self.source != self.path:
            return problem
        at_path = identity_at(self.path)
        if isinstance(at_path, FileIdentity) and not at_path.same_file(self.identity):
            return FileProblem(REPLACED, f"{self.path}: another file (inode {at_path.inode})")
        return None

    def close(self) -> None:
        """Close the descriptor now (the readers of a failed open)."""
        self._finalizer()
