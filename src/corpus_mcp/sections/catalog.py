"""Where section indexes live, what state each is in, and who may build one (no Xapian
beyond reading an index's own description).

The index folder (``CORPUS_INDEX_DIR``) holds, per archive and adapter (the *key*:
``<archive uuid>.<adapter>``, so a replaced archive, a new snapshot under the same name,
never meets the old file's index):

- ``<key>.xapian``: the published index, one file, describing itself
  (:class:`~corpus_mcp.sections.store.IndexMeta`: format, archive, adapter version);
- ``<key>.build/``: a build in progress or interrupted (shards, ``build.json``,
  ``progress.json``), continued by the next build of that key;
- ``<key>.failed``: why the last build failed (JSON), until one succeeds;
- ``build.lock``: held (``flock``) by whichever process is building, so that one build
  runs at a time in the folder, whatever serves from it (several serving processes,
  containers sharing the volume, an operator's ``corpus-mcp index``);
- ``build.owner``: which build writes in the folder now (:class:`BuildOwner`, its
  token), the fence its worker processes commit behind (:meth:`IndexFolder.fence`); left
  filled in by a build that was killed.

A state (:class:`IndexState`) is read from these files alone, cheaply: ``list`` shows it
without opening an archive (the UUID is read from the archive's header).
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Literal

import msgspec

from corpus_mcp.sections.store import INDEX_FORMAT, IndexMeta, IndexUnreadable, read_meta

State = Literal["off", "missing", "building", "ready", "stale", "failed"]
STATES: Final[tuple[State, ...]] = ("off", "missing", "building", "ready", "stale", "failed")

LOCK_NAME: Final = "build.lock"
OWNER_NAME: Final = "build.owner"


class BuildProgress(msgspec.Struct, kw_only=True):
    """What a running build says of itself (``progress.json``, rewritten as it goes)."""

    pid: int
    entries_done: int
    entries_total: int
    pages: int
    sections: int
    updated: float
    """``time.time()`` of the last rewrite."""


class BuildOwner(msgspec.Struct, frozen=True, kw_only=True):
    """The build writing in the folder (``build.owner``): written by the process holding
    the build lock as its build starts, emptied as it ends."""

    token: str
    """Its workers carry it: a worker whose token is no longer here writes nothing."""
    pid: int
    key: str
    library: str
    started: float


class Failure(msgspec.Struct, kw_only=True):
    """Why a build failed (``<key>.failed``)."""

    reason: str
    at: float
    attempts: int = 1


class IndexState(msgspec.Struct, frozen=True, kw_only=True):
    """A library's section index as the folder shows it."""

    state: State
    key: str | None = None
    done: int = 0
    """Building: entries read so far (of ``total``)."""
    total: int = 0
    sections: int = 0
    """Ready: how many sections it holds."""
    bytes: int = 0
    """Ready: the index file's size."""
    reason: str | None = None
    """Stale, failed, off: why."""

    def describe(self) -> str:
        """One phrase for a table or a log line."""
        if self.state == "building":
            share = f" {100 * self.done / self.total:.0f}%" if self.total else ""
            return f"building ({self.done:,}/{self.total:,} entries{share})"
        if self.state == "ready":
            return f"ready ({self.sections:,} sections)"
        return f"{self.state} ({self.reason})" if self.reason else self.state


def archive_key(uuid: str, adapter: str) -> str:
    return f"{uuid}.{adapter}"


class IndexFolder:
    """The index folder and the files of each key in it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def file(self, key: str) -> Path:
        return self.root / f"{key}.xapian"

    def work(self, key: str) -> Path:
        return self.root / f"{key}.build"

    def failure_file(self, key: str) -> Path:
        return self.root / f"{key}.failed"

    def usable(self) -> str | None:
        """Why indexes cannot be built here (None: they can): the folder cannot be made,
        or is not writable."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"the index folder {self.root} cannot be created ({_strerror(exc)})"
        if not os.access(self.root, os.W_OK | os.X_OK):
            return f"the index folder {self.root} is not writable"
        return None

    def state(self, key: str, adapter_version: int, archive_size: int) -> IndexState:
        """The state of ``key``'s index, from the folder's files."""
        file = self.file(key)
        progress = self._progress(key)
        if progress is not None:
            return IndexState(
                state="building", key=key, done=progress.entries_done, total=progress.entries_total
            )
        if file.exists():
            try:
                meta = read_meta(file)
            except IndexUnreadable as exc:
                return IndexState(state="stale", key=key, reason=f"unreadable: {exc}")
            stale = staleness(meta, adapter_version, archive_size)
            if stale is None:
                return IndexState(state="ready", key=key, sections=meta.sections, bytes=_size(file))
            return IndexState(state="stale", key=key, reason=stale)
        failure = self.failure(key)
        if failure is not None:
            return IndexState(state="failed", key=key, reason=failure.reason)
        return IndexState(state="missing", key=key)

    def _progress(self, key: str) -> BuildProgress | None:
        """The progress of a build of ``key`` running now (None when none runs: a
        progress file left by a build that died does not count)."""
        try:
            progress = msgspec.json.decode(
                (self.work(key) / "progress.json").read_bytes(), type=BuildProgress
            )
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        return progress if self.building() and _alive(progress.pid) else None

    def failure(self, key: str) -> Failure | None:
        try:
            return msgspec.json.decode(self.failure_file(key).read_bytes(), type=Failure)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None

    def record_failure(self, key: str, reason: str) -> Failure:
        """Write why ``key``'s build failed (best effort: a full or read-only folder may
        refuse even this), counting the attempts."""
        before = self.failure(key)
        failure = Failure(
            reason=reason, at=time.time(), attempts=(before.attempts + 1) if before else 1
        )
        _write_atomic(self.failure_file(key), msgspec.json.encode(failure), quiet=True)
        return failure

    def clear_failure(self, key: str) -> None:
        self.failure_file(key).unlink(missing_ok=True)

    def write_progress(self, key: str, progress: BuildProgress) -> None:
        _write_atomic(self.work(key) / "progress.json", msgspec.json.encode(progress), quiet=True)

    def building(self) -> bool:
        """Whether some process holds the build lock now."""
        try:
            fd = os.open(self.root / LOCK_NAME, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    @contextmanager
    def build_lock(self, *, wait: bool) -> Iterator[bool]:
        """Hold the folder's build lock for a ``with`` block; yields False (and holds
        nothing) when another process holds it and ``wait`` is false. Released when the
        block ends or the process dies (a killed build never leaves it held)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    yield False
                    return
                raise
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def claim(self, key: str, library: str) -> tuple[BuildOwner, BuildOwner | None]:
        """Make this process's build (the caller holds the build lock) the one writer of
        the folder: a new token written behind the fence, once no worker of an earlier
        build is committing; none commits after. Returns this build's owner record and
        the one an earlier build left (None when it ended as it should)."""
        owner = BuildOwner(
            token=secrets.token_hex(8),
            pid=os.getpid(),
            key=key,
            library=library,
            started=time.time(),
        )
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / OWNER_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            earlier = _owner(_read_all(fd))
            os.ftruncate(fd, 0)
            os.pwrite(fd, msgspec.json.encode(owner), 0)
        finally:
            os.close(fd)  # the lock goes with it
        return owner, earlier

    def release(self, owner: BuildOwner) -> None:
        """The build of ``owner`` ended (its workers with it): the folder has no writer.
        Best effort: a folder that refuses leaves the record, which the next build
        reports as an earlier build's."""
        try:
            fd = os.open(self.root / OWNER_NAME, os.O_RDWR)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            current = _owner(_read_all(fd))
            if current is not None and current.token == owner.token:
                os.ftruncate(fd, 0)
        except OSError:
            pass
        finally:
            os.close(fd)

    @contextmanager
    def fence(self, token: str) -> Iterator[bool]:
        """For a ``with`` block a worker commits in: yields whether the build of
        ``token`` still owns the folder (its token is the one written, and the build lock
        is held: its process lives), and holds off any new claim until the block ends."""
        try:
            fd = os.open(self.root / OWNER_NAME, os.O_RDONLY)
        except FileNotFoundError:
            yield False
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            current = _owner(_read_all(fd))
            yield current is not None and current.token == token and self.building()
        finally:
            os.close(fd)

    def index_keys(self) -> list[str]:
        """Every key with a published index or a build in the folder."""
        found: set[str] = set()
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        for name in names:
            for suffix in (".xapian", ".build", ".failed"):
                if name.endswith(suffix):
                    found.add(name[: -len(suffix)])
        return sorted(found)


def staleness(meta: IndexMeta, adapter_version: int, archive_size: int) -> str | None:
    """Why a published index no longer fits (None: it does): another format, another
    version of the adapter, an archive of another size under the same UUID."""
    if meta.format != INDEX_FORMAT:
        return f"index format {meta.format}, this version builds {INDEX_FORMAT}"
    if meta.adapter_version != adapter_version:
        return (
            f"built by {meta.adapter} adapter version {meta.adapter_version}, now {adapter_version}"
        )
    if meta.archive_size != archive_size:
        return "built from another file with the same UUID"
    return None


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _owner(data: bytes) -> BuildOwner | None:
    """The owner record written (None: empty, the last build ended, or unreadable)."""
    if not data:
        return None
    try:
        return msgspec.json.decode(data, type=BuildOwner)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:
        return 0


def _write_atomic(target: Path, data: bytes, *, quiet: bool) -> None:
    partial = target.with_name(target.name + ".tmp")
    try:
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError:
        if not quiet:
            raise


def _strerror(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
