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
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TypeVar, cast

import trio

from corpus_mcp.zim.errors import ZimOpenError
from corpus_mcp.zim.reader import ArchiveInfo, ZimReader

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
    """One open archive, called from trio: ``run`` any work on its :class:`ZimReader`."""

    def __init__(self, reader: ZimReader, shared: trio.CapacityLimiter) -> None:
        self.reader = reader
        self.lock = trio.CapacityLimiter(1)
        self._limiter = ChainedLimiter(self.lock, shared)

    @property
    def info(self) -> ArchiveInfo:
        return self.reader.info

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in a thread holding this archive and one global token.

        Cancellation returns control at once (``abandon_on_cancel``); the thread keeps
        the archive until libzim returns, and skips its work if it had not started.
        """

        def call() -> T:
            stop_if_abandoned()
            return fn()

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
