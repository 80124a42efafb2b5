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
opened (:mod:`.identity`): a file truncated or replaced under the server would otherwise
kill it with SIGBUS at the next read of its mapping. A changed file makes the library
unavailable until a sound archive is back at its path.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Final, TypeVar, cast

import trio

from corpus_mcp.zim.errors import ArchiveUnavailable, ZimOpenError
from corpus_mcp.zim.identity import REPLACED, FileIdentity, FileProblem, look
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


class ArchiveService:
    """One archive served to trio: ``run`` work on its :class:`ZimReader`, after checking
    that its file is still the one opened (:mod:`.identity`).

    A failed check retires the reader for good: the library is *unavailable* (one warning
    says why), every later call raises :class:`ArchiveUnavailable` without touching the
    archive, and the retired reader is only dropped, never closed, so a thread still
    inside it finishes (the last one lets the archive go). :meth:`reopen` looks for a sound
    file at the path again; :meth:`restore` serves it.
    """

    def __init__(self, reader: ZimReader, shared: trio.CapacityLimiter, *, library: str) -> None:
        self.library = library
        self.lock = trio.CapacityLimiter(1)
        self._limiter = ChainedLimiter(self.lock, shared)
        self._reader: ZimReader | None = reader
        self._info = reader.info
        self._outage: FileProblem | None = None
        # Taken to retire or restore the reader (worker threads check concurrently).
        self._changing = threading.Lock()
        self._seen: FileIdentity | None = None
        """While unavailable: the path's file at the previous :meth:`reopen`."""

    @property
    def info(self) -> ArchiveInfo:
        """The served archive's metadata (the last one served, while unavailable)."""
        return self._info

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
        outage = self._outage
        return None if outage is None else outage.reason

    def enter(self) -> ZimReader:
        """The reader, once its file is checked (unchanged, still the one at the path):
        called right before archive work, in the worker thread that does it."""
        reader = self._reader
        if reader is None:
            raise self._unavailable()
        self._check(reader, reader.handle.problem())
        return reader

    def verify(self, reader: ZimReader) -> None:
        """Raise :class:`ArchiveUnavailable` unless ``reader`` is still served and the
        file it maps unchanged: between the archive calls of a longer job (the path was
        looked at when it began)."""
        self._check(reader, reader.handle.changed())

    def _check(self, reader: ZimReader, problem: FileProblem | None) -> None:
        if problem is not None:
            self._retire(reader, problem)
        if reader is not self._reader:  # retired now, or earlier (maybe replaced since)
            raise self._unavailable()

    def check_file(self) -> None:
        """Retire the reader if its file changed: the periodic check, so that a fault is
        reported even when no call comes to find it."""
        with contextlib.suppress(ArchiveUnavailable):
            self.enter()

    def reopen(self, *, direct_index: bool, check: bool) -> ZimReader | None:
        """While unavailable: a reader of the file now at the path, once that is sound.

        Sound means readable, unchanged since the previous call (so a copy in progress
        is not picked up: it takes two calls in a row seeing the same file), opened by
        libzim (and passing its full check when ``check``), and of the family the
        library served. Otherwise None, and the reason is kept (logged when it changes).
        Called from one thread at a time (the recheck loop).
        """
        file = self._info.file
        found = look(file)
        if isinstance(found, FileProblem):
            self._seen = None
            self.still_unavailable(found)
            return None
        if found != self._seen:
            self._seen = found
            return None
        try:
            reader = ZimReader(file, direct_index=direct_index)
        except ZimOpenError as exc:
            self.still_unavailable(FileProblem(NOT_AN_ARCHIVE, f"{file}: {exc.reason}"))
            return None
        if reader.handle.identity != found:  # changed again since the last look
            self._seen = reader.handle.identity
            return None
        if check and not reader.check():
            self.still_unavailable(FileProblem(FAILS_CHECK, f"{file}: libzim Archive.check failed"))
            return None
        if reader.info.family != self._info.family:
            self.still_unavailable(
                FileProblem(
                    OTHER_FAMILY,
                    f"{file}: a {reader.info.family or 'unknown'} archive "
                    f"(scraper {reader.info.scraper or 'unknown'}) where the library "
                    f"served {self._info.family or 'an unknown family'}",
                )
            )
            return None
        return reader

    def restore(self, reader: ZimReader) -> None:
        """Serve ``reader`` (from :meth:`reopen`) from now on."""
        with self._changing:
            self._reader = reader
            self._info = reader.info
            self._outage = None
            self._seen = None
        log.info(
            "library %s available again: %s (%d bytes, uuid %s)",
            self.library,
            reader.file,
            reader.info.size,
            reader.info.uuid,
        )

    def _retire(self, reader: ZimReader, problem: FileProblem) -> None:
        with self._changing:
            if self._reader is not reader:  # another thread saw it first
                return
            self._outage = problem
            self._reader = None
            self._seen = None
        log.warning(
            "library %s unavailable: %s (%s); left out until a sound archive is at its path",
            self.library,
            problem.reason,
            problem.detail,
        )

    def still_unavailable(self, problem: FileProblem) -> None:
        """Keep the library unavailable, now for ``problem`` (said once per reason): a
        file back at the path that cannot be served yet."""
        with self._changing:
            before, self._outage = self._outage, problem
        if before is None or before.reason != problem.reason:
            log.info(
                "library %s still unavailable: %s (%s)",
                self.library,
                problem.reason,
                problem.detail,
            )

    def _unavailable(self) -> ArchiveUnavailable:
        outage = self._outage
        # No outage: the reader was retired and another one restored meanwhile.
        return ArchiveUnavailable(self.library, outage.reason if outage else REPLACED)

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
