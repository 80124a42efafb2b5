"""The corpus manager: the libraries served, their archives' faults, search and fetch.

:class:`Corpus` is what the MCP surface calls. It holds the enabled libraries
(:mod:`corpus_mcp.library`), their documents (:mod:`corpus_mcp.documents`: read, parsed
in worker processes, cached by archive UUID and path), the search pipeline
(:mod:`corpus_mcp.searching`: the fan-out over libraries, ranking, results) and the fetch
pipeline (:mod:`corpus_mcp.fetching`), and what is remembered of whole answers. A search
waits for its turn (:mod:`corpus_mcp.admission`) under one deadline of SEARCH_TIMEOUT.

An archive whose file changes or goes away under the server is never read again (see
:mod:`corpus_mcp.zim.service`): its library is *unavailable*, left out of searches
(``partial``) and answered ``library_unavailable`` by fetch, until a background check
(every ARCHIVE_RECHECK_SECONDS) finds a sound archive at its path and serves it, with that
library's cache entries dropped. A new archive renamed over a served one is no fault: the
old one serves until the same check finds the new one sound and swaps it in. Each call
reads one archive per library from start to end (``one_reader_per_call``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from typing import cast

import trio

from corpus_mcp import ranking, refs
from corpus_mcp.adapters import get_adapter
from corpus_mcp.admission import Admission, Busy
from corpus_mcp.cache import ByteLRU
from corpus_mcp.config import Manifest, Settings
from corpus_mcp.documents import Documents
from corpus_mcp.errors import CorpusError
from corpus_mcp.fetching import fetch_document, unavailable
from corpus_mcp.gather import ArchiveTables, LibraryHits, load_tables
from corpus_mcp.indexing import Indexed, Indexing, target_of
from corpus_mcp.library import Library
from corpus_mcp.parsing import Parsed, ParsePool, open_parse_pool
from corpus_mcp.redaction import log_failure
from corpus_mcp.searching import Searcher
from corpus_mcp.sections import SectionIndex
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.sections.manager import IndexManager
from corpus_mcp.webmap import WebMap
from corpus_mcp.wire import FetchOutput, SearchOutput
from corpus_mcp.zim import (
    ArchiveService,
    ZimError,
    ZimReader,
    one_reader_per_call,
    open_readers,
    readers_replaced,
)
from corpus_mcp.zim.identity import FileProblem
from corpus_mcp.zim.service import NOT_AN_ARCHIVE

log = logging.getLogger("corpus_mcp.corpus")

#: A search that waited this share of SEARCH_TIMEOUT for its turn is refused as busy:
#: with what is left it could not read its results (see corpus_mcp.admission).
ADMISSION_SHARE = 0.25
#: Memory for remembered answers (a few kilobytes each), divided among the serving
#: processes (WORKERS), like DOCUMENT_CACHE_MB.
ANSWERS_CACHE_BYTES = 4_000_000
#: Memory for remembered fetch answers (their text is mostly the cached document's own
#: strings), divided among the serving processes the same way.
FETCHES_CACHE_BYTES = 4_000_000


class Corpus:
    """What the MCP surface calls: ``search`` and ``fetch``, raising :class:`CorpusError`."""

    def __init__(
        self,
        settings: Settings,
        libraries: list[Library],
        parser: ParsePool,
        disabled: tuple[str, ...] = (),
        *,
        archive_changes: trio.Lock | None = None,
        indexes: IndexManager | None = None,
    ) -> None:
        self.settings = settings
        # Taken to serve a library another file (and by a reload): one change at a time.
        self._archive_changes = archive_changes or trio.Lock()
        self._watching = trio.CancelScope()
        self._libraries = {lib.name: lib for lib in libraries}
        self._disabled = disabled
        self.documents = Documents(settings, self._libraries, parser)
        self.searcher = Searcher(
            settings, self._libraries, self.documents, index_failed=self.index_failed
        )
        self._admission = Admission(
            settings.max_searches, settings.search_timeout * ADMISSION_SHARE
        )
        # Archives do not change while open, so a whole answer stays valid: a repeated
        # question costs a lookup.
        self._answers: ByteLRU[tuple[str, int], SearchOutput] = ByteLRU(
            ANSWERS_CACHE_BYTES // settings.workers
        )
        # And for a fetch's answer: an agent reads a page again, or several agents the
        # same sections, and a reference page's answer is assembled from hundreds of
        # entries (links checked, outline made): 2 ms for Flask's API page, 0 again.
        self._fetches: ByteLRU[tuple[str, str, str, tuple[str, ...]], FetchOutput] = ByteLRU(
            FETCHES_CACHE_BYTES // settings.workers
        )
        self.indexing = Indexing(
            indexes or index_manager(settings),
            self._libraries,
            interval=settings.archive_recheck_seconds,
            forget=self._forget_searches,
        )

    @property
    def libraries(self) -> tuple[str, ...]:
        return tuple(self._libraries)

    def index_states(self) -> dict[str, IndexState]:
        """Each library's section index: off, missing, building, ready, stale, failed."""
        return self.indexing.states()

    def library(self, name: str) -> Library:
        """An enabled library by its configured name (KeyError if unknown)."""
        return self._libraries[name]

    @property
    def webmap(self) -> WebMap:
        """Where web addresses lead in the corpus (:mod:`corpus_mcp.webmap`)."""
        return self.documents.webmap

    # -- search and fetch -------------------------------------------------------------

    async def search(self, query: str, limit: int) -> SearchOutput:
        """Ranked documents from every library for an already validated query and limit
        (:mod:`corpus_mcp.searching`), remembered whole unless partial."""
        normalised = ranking.normalise_query(query)
        # A remembered answer may name a library that has become unavailable since.
        if not self.unavailable_libraries:
            answered = self._answers.get((normalised, limit))
            if answered is not None:
                return answered
        # One deadline for the whole search: waiting for a turn, for a walker, the index
        # work and reading the results all count.
        deadline = trio.current_time() + self.settings.search_timeout
        try:
            async with self._admission.turn():
                with one_reader_per_call():
                    results, failed = await self.searcher.search(normalised, limit, deadline)
                    output = SearchOutput(
                        query=normalised,
                        results=results,
                        partial=bool(failed),
                        unavailable_libraries=failed,
                    )
                    # A partial answer is never remembered (the next try may do better),
                    # nor one read from an archive that another file has replaced since.
                    if not failed and not readers_replaced():
                        self._answers.put((normalised, limit), output, _answer_weight(output))
                    return output
        except Busy as busy:
            raise CorpusError(
                "busy",
                f"the server is busy (searches running: {busy.running}, waiting: "
                f"{busy.waiting}); nothing was searched: try again in {busy.retry_after} s",
                retry_after=busy.retry_after,
            ) from None

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        """The document a ref names, whole or by section ids, filled up to the fetch
        budget (:mod:`corpus_mcp.fetching`), remembered by archive, path, anchor and the
        sections asked for."""
        name, path, fragment = refs.decode(ref, self._libraries, self._disabled)
        library = self._libraries[name]
        if library.service.unavailable:
            raise unavailable(self.settings, name, library.service.unavailable)
        asked = (library.service.info.uuid, path, fragment or "", tuple(sections or ()))
        answered = self._fetches.get(asked)
        if answered is not None:
            return answered
        with one_reader_per_call():
            output = await fetch_document(
                self.settings, self.documents, library, path, fragment=fragment, sections=sections
            )
            # Not from an archive another file has replaced since (as for search answers).
            if not readers_replaced():
                self._fetches.put(asked, output, _fetch_weight(output))
        return output

    # -- what is remembered -----------------------------------------------------------

    @property
    def cache(self) -> ByteLRU[tuple[str, str], Parsed]:
        """Parsed documents and their word indexes (benchmarks clear it to measure cold
        fetches and searches)."""
        return self.documents.cache

    @property
    def hits_cache(self) -> ByteLRU[tuple[str, str, int], LibraryHits]:
        """Per-library hits by query (benchmarks clear it to measure index searches)."""
        return self.searcher.hits

    @property
    def stuck_libraries(self) -> tuple[str, ...]:
        """Libraries with an abandoned index call still inside them (searches leave them
        out until it returns)."""
        return self.documents.stuck.names()

    @property
    def answers_cache(self) -> ByteLRU[tuple[str, int], SearchOutput]:
        """Whole answers by query and limit (benchmarks clear it with the hits)."""
        return self._answers

    @property
    def fetches_cache(self) -> ByteLRU[tuple[str, str, str, tuple[str, ...]], FetchOutput]:
        """Fetch answers by archive, path, anchor and the sections asked for."""
        return self._fetches

    @property
    def unavailable_libraries(self) -> dict[str, str]:
        """Libraries whose archive file changed or went away, and why."""
        return {
            name: reason
            for name, library in self._libraries.items()
            if (reason := library.service.unavailable)
        }

    # -- archive faults ---------------------------------------------------------------

    async def watch_archives(self) -> None:
        """Check every library's archive file every ARCHIVE_RECHECK_SECONDS, until
        :meth:`stop_watching`.

        A served file that changed is found even when no call comes to touch it; a sound
        archive at a library's path that is not served yet (back after a fault, or
        renamed over the one served) is served. One library's failure here is logged and
        never stops the others' checks.
        """
        with self._watching:
            while True:
                await trio.sleep(self.settings.archive_recheck_seconds)
                for library in self._libraries.values():
                    try:
                        await self.recheck(library.name)
                    except Exception as exc:
                        log_failure(
                            log,
                            exc,
                            self.settings.log_queries,
                            "library %s: checking its archive failed",
                            library.name,
                        )

    def stop_watching(self) -> None:
        """No more periodic checks (a reload retired this corpus: the corpus serving now
        checks the libraries it shares with this one, and this one's own serve only the
        calls in flight), nor index builds."""
        self._watching.cancel()
        self.indexing.stop()

    def index_failed(self, library: Library, index: SectionIndex, reason: str) -> None:
        """A search could not read a library's section index: searched without it from
        now on, and it is built again."""
        self.indexing.failed(library, index, reason)

    def _forget_searches(self, library: Indexed) -> None:
        """What was remembered of searches, after a library changed how it is searched."""
        uuid = library.service.info.uuid
        self.searcher.hits.discard_if(lambda key: key[0] == uuid)
        self._answers.clear()

    async def recheck(self, name: str) -> bool:
        """One check of a library's archive file (see :meth:`watch_archives`); True
        when the library serves another file from now on."""
        library = self._libraries[name]
        service = library.service
        if not await trio.to_thread.run_sync(service.check_file):
            return False
        reopen = partial(
            _reopen,
            library,
            direct_index=self.settings.search_engine == "auto",
            check=self.settings.zim_check,
        )
        async with self._archive_changes:
            reopened = await trio.to_thread.run_sync(reopen)
            if reopened is None:
                return False
            reader, tables = reopened
            before = service.info.uuid
            service.serve(reader)
            library.refresh(tables)
            self.documents.remap()
            await self.indexing.reopen(library)
        # Whatever was remembered of the old archive (or of this one before it was
        # retired) goes: documents, entries and hits by archive, answers by any library.
        stale = {before, reader.info.uuid}
        self.documents.forget(stale)
        self.searcher.hits.discard_if(lambda key: key[0] in stale)
        # Any library's text may link into this one: every answer goes (the map is new).
        self._fetches.clear()
        self._answers.clear()
        return True


@asynccontextmanager
async def open_corpus(
    settings: Settings,
    manifest: Manifest,
    *,
    reuse: Mapping[str, Library] | None = None,
    archive_limiter: trio.CapacityLimiter | None = None,
    parser: ParsePool | None = None,
    archive_changes: trio.Lock | None = None,
) -> AsyncIterator[Corpus]:
    """Open every enabled archive (all or nothing, optionally checked), then serve.

    Raises :class:`corpus_mcp.zim.OpenFailure` naming every library that failed.
    A reload (:mod:`corpus_mcp.live`) passes the libraries whose archive has not changed
    in ``reuse``, taken as they are (reader, lock, symbols), and the ``archive_limiter``
    they already share, so that every corpus alive keeps one global pool of archive calls,
    and the ``parser`` pool of worker processes they share (else one is opened, and closed
    with this corpus), and the lock it holds while it reloads (``archive_changes``), so
    that no corpus serves a library another file meanwhile.
    """
    async with AsyncExitStack() as stack:
        if parser is None:
            parser = await stack.enter_async_context(open_parse_pool(settings.parse_workers))
            warm_up = parser.warm_up
        else:
            warm_up = _nothing
        shared = archive_limiter or trio.CapacityLimiter(settings.search_workers)
        indexes = index_manager(settings)
        libraries = await _open_libraries(
            settings, manifest, dict(reuse or {}), shared, warm_up, indexes=indexes
        )
        disabled = tuple(lib.name for lib in manifest.libraries if not lib.enabled)
        corpus = Corpus(
            settings,
            libraries,
            parser,
            disabled,
            archive_changes=archive_changes,
            indexes=indexes,
        )
        async with trio.open_nursery() as watching:
            watching.start_soon(corpus.watch_archives)
            watching.start_soon(corpus.indexing.watch)
            yield corpus
            watching.cancel_scope.cancel()


def index_manager(settings: Settings) -> IndexManager:
    """The section indexes of CORPUS_INDEX_DIR, or none with INDEX=off."""
    folder = settings.index_dir if settings.index == "auto" else None
    return IndexManager(folder, priority=settings.index_priority)


async def _open_libraries(
    settings: Settings,
    manifest: Manifest,
    reused: dict[str, Library],
    shared: trio.CapacityLimiter,
    warm_up: Callable[[], Awaitable[None]],
    *,
    indexes: IndexManager,
) -> list[Library]:
    """The manifest's enabled libraries: the ``reused`` ones as they are, the others
    opened (while ``warm_up`` starts the parse workers).

    A function of its own so that nothing but the libraries refers to the readers it
    opened once it returns: a reader another file replaces later closes when its last
    call ends, not when the corpus does.
    """
    files = {lib.name: lib.file for lib in manifest.enabled if lib.name not in reused}

    def progress(library: str, message: str) -> None:
        log.info("library %s: %s", library, message)

    for lib in manifest.enabled:
        if lib.is_pattern and lib.name in files:  # which snapshot, as list and validate say
            progress(lib.name, f"{lib.path} chose {lib.archive} (the newest snapshot)")

    adapters = {lib.name: get_adapter(lib.adapter) for lib in manifest.enabled}

    def open_all() -> tuple[dict[str, ZimReader], dict[str, ArchiveTables]]:
        readers = open_readers(
            files,
            check=settings.zim_check,
            progress=progress,
            direct_index=settings.search_engine == "auto",
        )
        for name, reader in readers.items():
            if reader.fulltext_index is not None:
                progress(name, "full-text search: its Xapian index, read directly")
            elif reader.info.has_fulltext_index:
                progress(name, "full-text search: libzim")
            else:
                progress(name, "no full-text index: found by titles only")
        tables = {name: load_tables(reader, adapters[name]) for name, reader in readers.items()}
        return readers, tables

    # The parse workers start while the archives open (each takes a fraction of a
    # second). Each outcome is kept, not raised into the nursery, so the caller gets
    # an OpenFailure as itself rather than inside an exception group.
    outcomes: dict[str, object] = {}

    async def keep(name: str, work: Callable[[], Awaitable[object]]) -> None:
        try:
            outcomes[name] = await work()
        except Exception as exc:
            outcomes[name] = exc

    async with trio.open_nursery() as nursery:
        nursery.start_soon(keep, "archives", partial(trio.to_thread.run_sync, open_all))
        nursery.start_soon(keep, "workers", warm_up)
    for outcome in outcomes.values():
        if isinstance(outcome, Exception):
            raise outcome
    readers, tables = cast(
        tuple[dict[str, ZimReader], dict[str, ArchiveTables]], outcomes["archives"]
    )
    opened = [
        reused.get(lib.name)
        or Library(
            lib.name,
            adapters[lib.name],
            ArchiveService(readers[lib.name], shared, library=lib.name),
            tables[lib.name],
        )
        for lib in manifest.enabled
    ]
    fresh = [library for library in opened if library.name not in reused]
    if indexes.enabled and fresh:

        def open_indexes() -> None:
            for library in fresh:
                library.sections = indexes.open(target_of(library))

        await trio.to_thread.run_sync(open_indexes)
        for library in fresh:
            state = indexes.state(target_of(library))
            progress(library.name, f"section index: {state.describe()}")
    return opened


async def _nothing() -> None:
    """The warm-up of a parse pool someone else opened (and warms)."""


def _reopen(
    library: Library, *, direct_index: bool, check: bool
) -> tuple[ZimReader, ArchiveTables] | None:
    """A reader of a sound archive at a library's path that it does not serve yet, and
    its tables (in a worker thread); None while there is none."""
    service = library.service
    reader = service.reopen(direct_index=direct_index, check=check)
    if reader is None:
        return None
    try:
        return reader, load_tables(reader, library.adapter)
    except ZimError as exc:
        service.refuse(FileProblem(NOT_AN_ARCHIVE, f"{reader.file}: {exc.reason}"))
        return None


def _fetch_weight(output: FetchOutput) -> int:
    """Approximate memory of one remembered fetch answer: its structs and strings,
    counted whole (a section's text is often the cached document's own string)."""
    return (
        512
        + sum(120 + len(s.id) + len(s.title) + len(s.content) for s in output.sections)
        + sum(100 + len(s.id) + len(s.title) for s in output.available_sections)
    )


def _answer_weight(output: SearchOutput) -> int:
    """Approximate memory of one remembered answer."""
    return 512 + sum(
        400 + len(r.ref) + len(r.title) + len(r.snippet) + 80 * len(r.relevant_sections)
        for r in output.results
    )
