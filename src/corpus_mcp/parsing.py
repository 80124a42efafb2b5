"""Parsing documents, in worker processes: the one step of search and fetch that needs
a whole core.

Cleaning an article's HTML and indexing its words is pure Python (lxml releases the
GIL only while it tokenises the bytes). In the server process it would serialise every
agent on one core, and a thread cannot be stopped once a search's deadline passes. So
the bytes read from the archive go to a pool of worker processes (``PARSE_WORKERS``,
trio-parallel), which parse and index them and send back the pickled result:

- every core works: with two cores, two documents are parsed at once;
- a search that gives up on a document kills the worker parsing it (trio-parallel's
  ``kill_on_cancel``): its deadline holds, and no abandoned work piles up;
- a document that crashes or exhausts its parser costs that document, not the server
  (``BrokenWorkerError`` becomes :class:`ParseFailure`);
- the workers import no archive code and hold no cache: they only see bytes.

Receiving a result costs about a tenth of parsing it (unpickling). ``PARSE_WORKERS=0``
parses in threads of the server process instead (no extra memory, one core).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import pickle
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from math import inf
from types import MappingProxyType
from typing import Final

import msgspec
import trio
import trio_parallel

from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.document import Document, walk
from corpus_mcp.ranking.terms import DocumentTerms, index_document

#: How long a closing pool waits for multiprocessing's fork server to exit.
FORK_SERVER_STOP_SECONDS = 10.0
#: A worker whose resident memory grew past this after a job is replaced: one huge
#: page must not keep its parser's memory for the life of the server.
WORKER_MAX_RSS = 192 * 1024 * 1024
#: What a page without companion entries is parsed with (:mod:`corpus_mcp.companions`).
NO_COMPANIONS: Final[Mapping[str, bytes]] = MappingProxyType({})


class Parsed(msgspec.Struct, kw_only=True, gc=False):
    """A document as the cache keeps it: parsed, and indexed once search needs it."""

    document: Document
    terms: DocumentTerms | None = None
    weight: int = 0
    """Approximate bytes held (what the document cache counts)."""


class ParseFailure(Exception):
    """A worker died parsing a document (a crash or the system killing it)."""


def parse(
    adapter: Adapter,
    library: str,
    path: str,
    title: str,
    content: bytes,
    *,
    index: bool,
    companions: Mapping[str, bytes] = NO_COMPANIONS,
) -> Parsed:
    """Parse one document's bytes (``library``: the name its links' refs carry; with
    the bytes of its companion entries): for search (``index``) as its view and word
    index, for fetch whole."""
    document = adapter.parse_with_companions(path, title, content, library, companions, view=index)
    terms = index_document(document) if index else None
    return Parsed(document=document, terms=terms, weight=_weight(document, terms))


def joined(document: Document, terms: DocumentTerms | None) -> Parsed:
    """One cache entry from a whole document (a fetch's) and the word index of its view
    (a search's): search always ranks on the view's index, whichever read came first,
    so its answers do not depend on what was fetched before."""
    return Parsed(document=document, terms=terms, weight=_weight(document, terms))


def _weight(document: Document, terms: DocumentTerms | None) -> int:
    """Approximate memory of a parsed document (characters dominate) and its index."""
    text = sum(
        256 + len(s.id) + len(s.title) + len(s.content) + sum(len(p.text) for p in s.passages or ())
        for s in walk(document.sections)
    )
    return 512 + len(document.title) + text + (terms.size if terms is not None else 0)


_ADAPTERS: dict[str, Adapter] = {}


def _adapter(name: str) -> Adapter:
    """The adapter of that name (adapters hold no state: one per process)."""
    adapter = _ADAPTERS.get(name)
    if adapter is None:
        adapter = _ADAPTERS[name] = get_adapter(name)
    return adapter


def _parse_pickled(
    shelf: tuple[str, str],
    path: str,
    title: str,
    read: tuple[bytes, Mapping[str, bytes]],
    index: bool,
) -> bytes:
    """What a worker runs (``shelf``: the adapter's name and the library's; ``read``:
    the page's bytes and its companions'): the result pickled once, here, instead of by
    the pool's generic machinery (the document and its index share nodes: one pickle
    keeps them shared)."""
    adapter, library = shelf
    content, companions = read
    parsed = parse(
        _adapter(adapter), library, path, title, content, index=index, companions=companions
    )
    return pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL)


def _ready() -> bool:
    """A worker's warm-up job (its imports are done once this returns)."""
    return True


def _grown() -> bool:
    """After each job: retire a worker whose memory grew past WORKER_MAX_RSS."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            resident_pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return False
    return resident_pages * os.sysconf("SC_PAGE_SIZE") > WORKER_MAX_RSS


@dataclass
class ParsePool:
    """Parses documents in worker processes (or, with no workers, in threads)."""

    workers: int
    _context: trio_parallel.WorkerContext | None
    _limiter: trio.CapacityLimiter

    @classmethod
    def in_threads(cls) -> ParsePool:
        """A pool without processes: documents parse in threads of this process."""
        # Two threads: the GIL serialises them anyway, and the event loop (another
        # thread) keeps getting its turn.
        return cls(0, None, trio.CapacityLimiter(2))

    async def parse(
        self,
        adapter: Adapter,
        library: str,
        path: str,
        title: str,
        content: bytes,
        *,
        index: bool,
        companions: Mapping[str, bytes] = NO_COMPANIONS,
    ) -> Parsed:
        """Parse one document (and its companions' bytes); cancelling the caller kills
        the worker doing it (workers receive the adapter's name: adapters hold no state)."""
        if self._context is None:
            return await trio.to_thread.run_sync(
                lambda: parse(
                    adapter, library, path, title, content, index=index, companions=companions
                ),
                limiter=self._limiter,
                abandon_on_cancel=True,
            )
        try:
            pickled = await self._context.run_sync(
                _parse_pickled,
                (adapter.name, library),
                path,
                title,
                (content, dict(companions)),  # a plain dict pickles (a read-only view not)
                index,
                kill_on_cancel=True,
                limiter=self._limiter,
            )
        except trio_parallel.BrokenWorkerError as exc:
            raise ParseFailure(f"the worker parsing {path!r} died ({exc.args[-1]!r})") from None
        parsed: Parsed = pickle.loads(pickled)
        return parsed

    async def warm_up(self) -> None:
        """Start every worker now, so the first searches do not wait for Python to start
        (about half a second each)."""
        if self._context is None:
            return
        context = self._context
        async with trio.open_nursery() as nursery:
            for _ in range(self.workers):
                nursery.start_soon(
                    lambda: context.run_sync(_ready, kill_on_cancel=True, limiter=self._limiter)
                )


@asynccontextmanager
async def open_parse_pool(workers: int) -> AsyncIterator[ParsePool]:
    """A pool of ``workers`` processes (0: threads); call :meth:`ParsePool.warm_up` to
    start them before the first document needs one."""
    if workers == 0:
        yield ParsePool.in_threads()
        return
    # Workers fork from a server process that imported this module once (and nothing of
    # the MCP side): each starts in milliseconds and shares those pages with the others.
    multiprocessing.get_context("forkserver").set_forkserver_preload([__name__])
    try:
        async with trio_parallel.open_worker_context(
            idle_timeout=inf,
            retire=_grown,
            grace_period=5.0,
            worker_type=trio_parallel.WorkerType.FORKSERVER,
        ) as context:
            yield ParsePool(workers, context, trio.CapacityLimiter(workers))
    finally:
        # Bounded: were a worker somehow still alive, the fork server would not end, and
        # the server's exit must not wait for it (the abandoned thread is a daemon).
        with trio.move_on_after(FORK_SERVER_STOP_SECONDS, shield=True):
            await trio.to_thread.run_sync(_stop_fork_server, abandon_on_cancel=True)


def _stop_fork_server() -> None:
    """Stop multiprocessing's fork server and wait for it to exit.

    It is one per process and would otherwise outlive the pool, ending only after the
    server process did: a process left behind, still writing (its coverage data, under
    the tests) in a folder its owner is removing. Its workers are gone by now (the
    worker context closed; each held a copy of the pipe whose closing tells it to go),
    so it exits as soon as the pipe closes."""
    stop = getattr(multiprocessing.forkserver._forkserver, "_stop", None)
    if stop is not None:  # CPython 3.4+; another Python leaves it to end with us
        stop()
