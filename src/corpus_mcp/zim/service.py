"""The trio face of the ZIM service: each libzim call in a worker thread, one per archive.

python-libzim holds the GIL inside search and read calls, so threads buy concurrency
(the event loop runs between calls), not parallelism. What matters is *where the
per-archive lock lives*: a ``trio.Lock`` held by the calling task is released as soon
as that task is cancelled, while the abandoned thread is still inside libzim, which lets
a second thread into a non-thread-safe ``Searcher``. Instead the lock is a
``CapacityLimiter(1)`` passed to ``trio.to_thread.run_sync`` as its ``limiter``: trio
releases a thread's limiter only when the thread really finishes, so the archive stays
serialised even across timeouts, and waiters stay cancellable trio tasks that hold no
thread and no global token.

Every call first checks, in its worker thread, that the archive's file is still the one
opened (:mod:`.identity`): a file truncated or changed in place under the server would
otherwise kill it with SIGBUS at the next read of its mapping. Such a fault (or the file
taken away: deleted, unreadable) makes the library unavailable until a sound archive is
back at its path. A new file renamed over the served one is no fault: the file held is
intact and goes on serving until the new one is found sound, then the new one is served
(:meth:`ArchiveService.reopen`, :meth:`ArchiveService.serve`). A call reads one archive
per library from its start to its end (:func:`one_reader_per_call`), so a swap in the
middle of a search never mixes the hits of one file with the documents of the other.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Final, TypeVar, cast

import trio

from corpus_mcp.zim.errors import ArchiveUnavailable, ZimOpenError
from corpus_mcp.zim.identity import FileIdentity, FileProblem, identity_at, look
from corpus_mcp.zim.reader import ArchiveInfo, ZimReader

log = logging.getLogger("corpus_mcp.zim")

#: Why a file back at a library's path is not served yet (besides the faults of
#: :mod:`.identity`): safe to tell an agent, like those.
NOT_AN_ARCHIVE: Final = "archive file cannot be opened"
FAILS_CHECK: Final = "archive file fails the integrity check"
OTHER_FAMILY: Final = "archive file is of another kind than the library's"

T = TypeVar("T")


class ChainedLimiter:
    """Acquire the per-archive limiter first, then a token of the global pool.

    Waiting on the archive first means a caller stuck behind a slow archive holds no
    global token, so it cannot starve the healthy archives.
    """

    def __init__(self, per_archive: trio.CapacityLimiter, shared: trio.CapacityLimiter) -> None:
        self.per_archive = per_archive
        self.shared = shared

    async def acquire_on_behalf_of(self, borrower: object) -> None:
        await self.per_archive.acquire_on_behalf_of(borrower)
        try:
            await self.shared.acquire_on_behalf_of(borrower)
        except BaseException:
            self.per_archive.release_on_behalf_of(borrower)
            raise

    def release_on_behalf_of(self, borrower: object) -> None:
        try:
            self.shared.release_on_behalf_of(borrower)
        finally:
            self.per_archive.release_on_behalf_of(borrower)


def stop_if_abandoned() -> None:
    """In a worker thread, raise ``trio.Cancelled`` once the calling task has given up.

    Called before a worker starts (it may have waited long for the archive) and between
    libzim calls of a longer job, so an abandoned worker does no more work than the
    call it is in. Outside a trio worker thread (a direct call) it does nothing.
    """
    try:
        trio.from_thread.check_cancelled()
    except RuntimeError:  # not in a trio worker thread
        return


_PINNED: ContextVar[dict[ArchiveService, ZimReader] | None] = ContextVar(
    "corpus_mcp_pinned_readers", default=None
)


@contextlib.contextmanager
def one_reader_per_call() -> Iterator[None]:
    """Within the block (one tool call, its child tasks and worker threads), each archive
    service gives the reader it served when the block first used it, to the end.

    A new file swapped in meanwhile is for the next call: a search's hits and the
    documents read for them come from one file, cache keys name the file they were read
    from (:attr:`ArchiveService.info` is the pinned reader's), and the reader the call
    holds is intact (a swap never touches the file it replaces).
    """
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def readers_replaced() -> bool:
    """Whether a reader the call in progress pinned is no longer the one served (a new
    file was swapped in, or the library became unavailable): what the call found out is
    then not for the calls after it to reuse."""
    pinned = _PINNED.get()
    return pinned is not None and any(
        service.held is not reader for service, reader in list(pinned.items())
    )


class ArchiveService:
    """One archive served to trio: ``run`` work on its :class:`ZimReader`, after checking
    that its file is still the one opened (:mod:`.identity`).

    A fault of the file held (changed, taken away) retires the reader for good: the
    library is *unavailable* (one warning says why), every later call raises
    :class:`ArchiveUnavailable` without touching the archive, and the retired reader is
    only dropped, never closed, so a thread still inside it finishes (the last one lets
    the archive go). :meth:`reopen` looks for a sound file at the path: the file back
    after a fault, or a new one renamed over the one served (which serves meanwhile);
    :meth:`serve` serves it.
    """

    def __init__(self, reader: ZimReader, shared: trio.CapacityLimiter, *, library: str) -> None:
        self.library = library
        self.lock = trio.CapacityLimiter(1)
        self._limiter = ChainedLimiter(self.lock, shared)
        self._reader: ZimReader | None = reader
        self._info = reader.info
        self._outage: FileProblem | None = None
        """Why the reader was last retired (set before the reader is dropped, so it is
        there whenever no reader is)."""
        # Taken to retire or serve a reader (worker threads check concurrently).
        self._changing = threading.Lock()
        self._seen: FileIdentity | None = None
        """The path's file at the previous :meth:`reopen`, if it could be served then."""
        self._incoming = False
        """While serving: a new file at the path has been noticed (and said)."""
        self._refused: str | None = None
        """While serving: why the new file at the path cannot be served (said once)."""
        self._detached = False

    @property
    def info(self) -> ArchiveInfo:
        """The metadata of the archive a call reads (:func:`one_reader_per_call`), else
        of the one served now (the last one served, while unavailable)."""
        reader = self._for_call()
        return self._info if reader is None else reader.info

    @property
    def reader(self) -> ZimReader:
        """The reader served now, unchecked (tools and tests); archive work goes through
        :meth:`run` or :meth:`enter`. Raises :class:`ArchiveUnavailable` once retired."""
        reader = self._reader
        if reader is None:
            raise self._unavailable()
        return reader

    @property
    def held(self) -> ZimReader | None:
        """The reader served now, or None while the library is unavailable (never raises:
        for bookkeeping such as which archives a corpus holds open)."""
        return self._reader

    @property
    def unavailable(self) -> str | None:
        """Why the library is unavailable, or None while its archive is served."""
        if self._reader is not None:
            return None
        return self._unavailable().reason

    def _for_call(self) -> ZimReader | None:
        """The reader the call in progress reads: the one pinned by its first use of this
        service, or the one served now (pinned from now on). None while unavailable."""
        pinned = _PINNED.get()
        if pinned is None:
            return self._reader
        reader = pinned.get(self)
        if reader is not None:
            return reader
        served = self._reader
        return None if served is None else pinned.setdefault(self, served)

    def enter(self) -> ZimReader:
        """The call's reader, once its file is checked (unchanged, and its path not taken
        away): called right before archive work, in the worker thread that does it."""
        reader = self._for_call()
        if reader is None:
            raise self._unavailable()
        handle = reader.handle
        self._check(reader, handle.changed() if self._detached else handle.problem())
        return reader

    def verify(self, reader: ZimReader) -> None:
        """Raise :class:`ArchiveUnavailable` unless the file ``reader`` maps is unchanged:
        between the archive calls of a longer job (the path was looked at when it began)."""
        self._check(reader, reader.handle.changed())

    def _check(self, reader: ZimReader, problem: FileProblem | None) -> None:
        if problem is not None:
            self._retire(reader, problem)
            raise ArchiveUnavailable(self.library, problem.reason)

    def check_file(self) -> bool:
        """Retire the reader if its file changed or was taken away: the periodic check,
        so that a fault is reported even when no call comes to find it. True when
        :meth:`reopen` has something to look at: the library is unavailable, or its path
        names another file than the one served (or did at the previous look)."""
        try:
            served = self.enter()
        except ArchiveUnavailable:
            return not self._detached
        if self._detached:
            return False
        at_path = identity_at(served.file)
        renamed_over = isinstance(at_path, FileIdentity) and not at_path.same_file(
            served.handle.identity
        )
        return renamed_over or self._incoming

    def detach(self) -> None:
        """The library is no longer served at its path (a reload dropped it, or opened
        the new file there for the corpus that serves from now on): the calls still
        reading it finish on the file held whatever the path names, so only that file
        is checked from now on."""
        self._detached = True

    def reopen(self, *, direct_index: bool, check: bool) -> ZimReader | None:
        """A reader of a sound file at the path that is not served yet: while unavailable,
        whatever file is there (repaired in place too); while serving, another file than
        the one served (a new archive renamed over it, said once when first seen).

        Sound means readable, unchanged since the previous call (so a copy in progress
        is not picked up: it takes two calls in a row seeing the same file), opened by
        libzim (and passing its full check when ``check``), and of the family the
        library served. Otherwise None, and the reason is kept (said when it changes,
        :meth:`refuse`). Never for a detached library (its path is another corpus's
        business now). Called from one thread at a time (the recheck loop).
        """
        if self._detached:
            return None
        file = self._info.file
        served = self._reader
        if served is not None:
            at_path = identity_at(file)
            if isinstance(at_path, FileProblem) or at_path.same_file(served.handle.identity):
                # Nothing new: the file served (whose faults check_file finds), or no
                # file at all (a fault the next check of the file held reports).
                self._seen = None
                self._incoming = False
                self._refused = None
                return None
            if not self._incoming:
                self._incoming = True
                log.info(
                    "library %s: a new file at its path; serving the old one until the "
                    "new one is sound",
                    self.library,
                )
        found = look(file)
        if isinstance(found, FileProblem):
            self._seen = None
            self.refuse(found)
            return None
        if found != self._seen:
            self._seen = found
            return None
        try:
            reader = ZimReader(file, direct_index=direct_index)
        except ZimOpenError as exc:
            self.refuse(FileProblem(NOT_AN_ARCHIVE, f"{file}: {exc.reason}"))
            return None
        if reader.handle.identity != found:  # changed again since the last look
            self._seen = reader.handle.identity
            return None
        if check and not reader.check():
            self.refuse(FileProblem(FAILS_CHECK, f"{file}: libzim Archive.check failed"))
            return None
        if reader.info.family != self._info.family:
            self.refuse(
                FileProblem(
                    OTHER_FAMILY,
                    f"{file}: a {reader.info.family} archive "
                    f"({reader.info.family_evidence}) where the library "
                    f"served a {self._info.family} one",
                )
            )
            return None
        return reader

    def serve(self, reader: ZimReader) -> None:
        """Serve ``reader`` (from :meth:`reopen`) from now on. Calls already reading the
        reader before it go on with it to their end; the last one lets it go."""
        with self._changing:
            replaced = self._reader is not None
            self._reader = reader
            self._info = reader.info
            self._seen = None
            self._incoming = False
            self._refused = None
        if replaced:
            log.info(
                "library %s now serves %s (replaced); %d bytes, uuid %s",
                self.library,
                reader.file,
                reader.info.size,
                reader.info.uuid,
            )
        else:
            log.info(
                "library %s available again: %s (%d bytes, uuid %s)",
                self.library,
                reader.file,
                reader.info.size,
                reader.info.uuid,
            )

    def _retire(self, reader: ZimReader, problem: FileProblem) -> None:
        with self._changing:
            if self._reader is not reader:  # another thread saw it first, or not served
                return
            self._outage = problem
            self._reader = None
            self._seen = None
            self._incoming = False
            self._refused = None
        log.warning(
            "library %s unavailable: %s (%s); left out until a sound archive is at its path",
            self.library,
            problem.reason,
            problem.detail,
        )

    def refuse(self, problem: FileProblem) -> None:
        """The file at the path cannot be served yet, for ``problem`` (said once per
        reason): an unavailable library stays so, a served one goes on serving its file."""
        with self._changing:
            if self._reader is None:
                said = self._outage.reason if self._outage else None
                self._outage = problem
            else:
                said, self._refused = self._refused, problem.reason
            serving = self._reader is not None
        if said == problem.reason:
            return
        if serving:
            log.warning(
                "library %s: the new file at its path cannot be served: %s (%s); the old "
                "one goes on serving",
                self.library,
                problem.reason,
                problem.detail,
            )
        else:
            log.info(
                "library %s still unavailable: %s (%s)",
                self.library,
                problem.reason,
                problem.detail,
            )

    def _unavailable(self) -> ArchiveUnavailable:
        outage = self._outage
        # A reader is only ever dropped after its outage is recorded (see _retire).
        assert outage is not None
        return ArchiveUnavailable(self.library, outage.reason)

    async def run(self, fn: Callable[[ZimReader], T]) -> T:
        """Run ``fn(reader)`` in a thread holding this archive and one global token,
        once the archive's file is checked (:meth:`enter`).

        Cancellation returns control at once (``abandon_on_cancel``); the thread keeps
        the archive until libzim returns, and skips its work if it had not started.
        """

        def call() -> T:
            stop_if_abandoned()
            return fn(self.enter())

        # trio accepts any object with acquire/release_on_behalf_of as a limiter; its
        # stubs name CapacityLimiter only.
        limiter = cast(trio.CapacityLimiter, self._limiter)
        return await trio.to_thread.run_sync(call, limiter=limiter, abandon_on_cancel=True)


class OpenFailure(Exception):
    """Some archives could not be opened or failed the integrity check."""

    def __init__(self, failures: Mapping[str, str]) -> None:
        self.failures = dict(failures)
        detail = "; ".join(f"library {name!r}: {reason}" for name, reason in self.failures.items())
        super().__init__(f"cannot open the corpus: {detail}")


def open_readers(
    files: Mapping[str, str | os.PathLike[str]],
    check: bool = False,
    progress: Callable[[str, str], None] | None = None,
    *,
    direct_index: bool = True,
) -> dict[str, ZimReader]:
    """Open every archive (library name -> file), all or nothing.

    Every failure is collected before raising, so the operator sees all broken
    libraries at once. ``progress(library, message)`` reports slow steps.
    ``direct_index`` lets readers search the archives' Xapian indexes directly.
    """
    readers: dict[str, ZimReader] = {}
    failures: dict[str, str] = {}
    reader: ZimReader | None = None
    for name, file in files.items():
        try:
            reader = ZimReader(file, direct_index=direct_index)
        except ZimOpenError as exc:
            failures[name] = exc.reason
            continue
        if check:
            if progress:
                progress(name, f"checking {reader.info.size / 1e6:.1f} MB")
            if not reader.check():
                failures[name] = "integrity check failed (libzim Archive.check)"
                continue
            if progress:
                progress(name, "check passed")
        readers[name] = reader
    if failures:
        # All or nothing: the archives that did open are let go here, since the
        # exception's traceback holds this frame for as long as anyone holds it.
        readers.clear()
        reader = None
        raise OpenFailure(failures)
    return readers
