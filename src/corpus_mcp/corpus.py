"""The corpus manager: fan-out search, federated ranking, documents, fetch assembly.

Search runs one task per enabled library in a nursery. Each branch makes a single
worker-thread call (see :mod:`corpus_mcp.gather`) under the global
``CapacityLimiter(SEARCH_WORKERS)`` and the archive's own lock, inside its own cancel
scope with ``SEARCH_TIMEOUT``: a library that raises or times out is logged and left
out, and the answer says ``partial``. A document's bytes are read in the archive's worker
thread and parsed in a worker process (:mod:`corpus_mcp.parsing`), then kept in a
byte-bounded LRU keyed by archive UUID and path; each library's hits for a query are
remembered the same way, since archives never change while open.

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
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from functools import partial
from typing import Final, TypeVar, cast

import msgspec
import trio

from corpus_mcp import assemble, folding, inbound, locating, metrics, ranking, refs
from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.admission import Admission, Busy
from corpus_mcp.cache import ByteLRU
from corpus_mcp.companions import read_companions
from corpus_mcp.config import Manifest, Settings
from corpus_mcp.document import Document, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.fanout import Abandonable, Checkpoint, Failure, Job, Occupancy, Stuck, fan_out
from corpus_mcp.federate import Candidate, competitive, federate, order, rescore, weigh_words
from corpus_mcp.gather import (
    ArchiveTables,
    Hit,
    Landed,
    LibraryHits,
    collect_hits,
    entry_title,
    land,
    load_tables,
    with_sections,
)
from corpus_mcp.indexing import Indexed, Indexing, target_of
from corpus_mcp.parsing import Parsed, ParsePool, joined, open_parse_pool
from corpus_mcp.ranking.evidence import WEIGHT_SYMBOL, Word, mentioned, read_evidence
from corpus_mcp.ranking.scope import Scope
from corpus_mcp.ranking.scope import library_scope as scope_of
from corpus_mcp.ranking.terms import DocumentTerms
from corpus_mcp.redaction import describe, log_failure
from corpus_mcp.sections import IndexUnreadable, SectionIndex
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.sections.manager import IndexManager
from corpus_mcp.sections.reading import read_documents
from corpus_mcp.snapshots import file_snapshot
from corpus_mcp.symbols import SymbolTable
from corpus_mcp.webmap import WebMap, describe_overlap, first_held, library_site, wanted_paths
from corpus_mcp.wire import FetchOutput, SearchOutput, SearchResult, SectionRef
from corpus_mcp.zim import (
    ArchiveInfo,
    ArchiveService,
    ArchiveUnavailable,
    EntryNotFound,
    RedirectError,
    ZimError,
    ZimReader,
    one_reader_per_call,
    open_readers,
    readers_replaced,
)
from corpus_mcp.zim.identity import FileProblem
from corpus_mcp.zim.service import NOT_AN_ARCHIVE

log = logging.getLogger("corpus_mcp.corpus")
T = TypeVar("T")

#: Why a fetch is refused while a library has an abandoned call inside its archive.
STUCK: Final = "its archive is not answering (an earlier call is still inside it)"
#: Why a fetch is refused when its own archive work outlasted SEARCH_TIMEOUT.
TIMED_OUT: Final = "reading the document took longer than the search timeout"

#: Candidates asked of each library per list: enough for fusion to have a choice.
MIN_CANDIDATES = 10
#: A library's index work may take this share of SEARCH_TIMEOUT before the rest of
#: the search's libraries move on without it.
STALL_SHARE = 0.25
#: API symbols a query may name per library (overloads, several short forms).
MAX_SYMBOL_HITS = 8
#: The best candidates whose documents are read to rescore them on their headings,
#: passages and page titles: the limit and this many more (on the development kit, two
#: more did as well as five more, and so did one; none, slightly worse).
REREAD_EXTRA = 1
#: A library with a section index is not asked libzim's title index: the section index
#: holds its pages' titles and its redirects' (measured on the kit: the same figures,
#: new questions in-process 48 -> 31 ms).
TITLES_FROM_INDEX = True
#: A symbol score from which the query is taken to ask for that symbol alone (half the
#: most a symbol can score: most of the question is the symbol's name).
SYMBOL_ANSWERS = 0.5 * WEIGHT_SYMBOL
#: A search that waited this share of SEARCH_TIMEOUT for its turn is refused as busy:
#: with what is left it could not read its results (see corpus_mcp.admission).
ADMISSION_SHARE = 0.25
#: Walkers (of all searches) inside one library's index work at once.
LIBRARY_WALKERS = 2
#: Threads doing ranking work at once (see Corpus._ranking).
RANKING_THREADS = 2
#: Memory for remembered per-library hits (a few hundred bytes per query and library),
#: divided among the serving processes (WORKERS), like DOCUMENT_CACHE_MB.
HITS_CACHE_BYTES = 8_000_000
#: Memory for remembered answers (a few kilobytes each), divided the same way.
ANSWERS_CACHE_BYTES = 4_000_000
#: Memory for remembered fetch answers (their text is mostly the cached document's own
#: strings), divided among the serving processes the same way.
FETCHES_CACHE_BYTES = 4_000_000
#: Memory for remembered entry lookups of link targets (about a hundred bytes each).
ENTRIES_CACHE_BYTES = 1_000_000
#: Memory for remembered refs of documents' web links into the corpus (most documents
#: have none: a hundred bytes each).
LED_CACHE_BYTES = 1_000_000


class ArchiveStuck(Exception):
    """A library's archive has a call given up at a deadline still inside it: calls
    fail at once rather than queue behind a thread that may never come back."""

    def __init__(self, library: str) -> None:
        super().__init__(f"library {library!r}: {STUCK}")
        self.library = library


class Library:
    """An enabled library at run time: its name, adapter, archive service, tables and
    the words that name its subject."""

    def __init__(
        self,
        name: str,
        adapter: Adapter,
        service: ArchiveService,
        tables: ArchiveTables | None = None,
    ) -> None:
        self.name = name
        self.adapter = adapter
        self.service = service
        self.tables = tables or ArchiveTables()
        """Its symbols and page list (read once per archive)."""
        self.scope = library_scope(name, service.info)
        """The words that name what this library is about."""
        self.sections: SectionIndex | None = None
        """Its section index when one is ready and sound (searches then rank its
        sections and read no page); None: libzim's indexes and its pages."""
        self.broken: tuple[SectionIndex, str] | None = None
        """A section index a search found unreadable, and why: set from a worker thread,
        acted on by the corpus (:meth:`Corpus.index_failed`)."""

    @property
    def snapshot(self) -> str | None:
        return self.service.info.snapshot

    def index_broke(self, index: SectionIndex, reason: str) -> None:
        """Note (from any thread) that ``index`` could not be read."""
        if self.sections is index:
            self.broken = (index, reason)

    @property
    def symbols(self) -> SymbolTable:
        """API symbols -> pages and anchors (devdocs navbar.json)."""
        return self.tables.symbols

    def refresh(self, tables: ArchiveTables) -> None:
        """After the archive was replaced: its tables, and its scope from its metadata."""
        self.tables = tables
        self.scope = library_scope(self.name, self.service.info)


def library_scope(name: str, info: ArchiveInfo) -> Scope:
    """What a library is about, in words of its own metadata (configured name, Name,
    Title, Tags; see :mod:`corpus_mcp.ranking.scope`): a query naming it prefers it."""
    title_head = info.title.split()[:1]
    return scope_of([name, info.name, info.title, *info.tags], [*title_head, *info.tags])


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
        self._parser = parser
        # Taken to serve a library another file (and by a reload): one change at a time.
        self._archive_changes = archive_changes or trio.Lock()
        self._watching = trio.CancelScope()
        self._libraries = {lib.name: lib for lib in libraries}
        self._disabled = disabled
        self._documents: ByteLRU[tuple[str, str], Parsed] = ByteLRU(settings.document_cache_bytes)
        # Threads walking the libraries of searches (one per search at a time), and the
        # libraries whose abandoned call has not come back (see corpus_mcp.fanout).
        self._walkers = trio.CapacityLimiter(settings.search_workers)
        self._stuck = Stuck()
        # At most two walkers inside one library, and never every walker: a library that
        # hangs can then hold only those (see corpus_mcp.fanout.Occupancy).
        self._inside = Occupancy(max(1, min(LIBRARY_WALKERS, settings.search_workers - 1)))
        # Threads scoring candidates and writing snippets: few, as they hold the GIL, and
        # the more of them run, the longer the event loop waits for its turn.
        self._rankers = trio.CapacityLimiter(RANKING_THREADS)
        self._admission = Admission(
            settings.max_searches, settings.search_timeout * ADMISSION_SHARE
        )
        # Archives do not change while open, so a library's hits for a query stay valid:
        # agents repeat queries (retries, several agents on one topic), and a repeat
        # then costs no index search. Failures and timeouts are never remembered.
        self._hits: ByteLRU[tuple[str, str, int], LibraryHits] = ByteLRU(
            HITS_CACHE_BYTES // settings.workers
        )
        # The same holds for a whole answer: a repeated question costs a lookup.
        self._answers: ByteLRU[tuple[str, int], SearchOutput] = ByteLRU(
            ANSWERS_CACHE_BYTES // settings.workers
        )
        # And for a fetch's answer: an agent reads a page again, or several agents the
        # same sections, and a reference page's answer is assembled from hundreds of
        # entries (links checked, outline made): 2 ms for Flask's API page, 0 again.
        self._fetches: ByteLRU[tuple[str, str, str, tuple[str, ...]], FetchOutput] = ByteLRU(
            FETCHES_CACHE_BYTES // settings.workers
        )
        # And for whether an entry exists, which fetch asks of the paths links name.
        self._entries: ByteLRU[tuple[str, str], bool] = ByteLRU(ENTRIES_CACHE_BYTES)
        # And for where a document's web links lead in the corpus (most lead nowhere).
        self._led: ByteLRU[tuple[str, str], dict[str, assemble.WebLink]] = ByteLRU(LED_CACHE_BYTES)
        # Where web addresses lead in the corpus (rebuilt when an archive is replaced),
        # and the pairs of libraries the log has said share addresses.
        self._overlaps_said: set[frozenset[str]] = set()
        self.webmap = self._web_map()
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

    def _web_map(self) -> WebMap:
        """The map from web addresses to the libraries' documents, from every library's
        site as its tables say; libraries whose sites share addresses said in the log,
        once a pair."""
        webmap = WebMap(
            [
                library_site(
                    lib.name,
                    lib.adapter,
                    lib.tables.site,
                    lib.tables.pages,
                    file_snapshot(lib.service.info.file, lib.snapshot),
                )
                for lib in self._libraries.values()
            ]
        )
        for overlap in webmap.overlaps():
            pair = frozenset({overlap.first, overlap.second})
            if pair not in self._overlaps_said:
                self._overlaps_said.add(pair)
                log.info("%s", describe_overlap(overlap))
        return webmap

    # -- search -----------------------------------------------------------------------

    async def search(self, query: str, limit: int) -> SearchOutput:
        """Ranked documents from every library for an already validated query and limit.

        Each library's engine proposes candidates (one worker call per library, in
        parallel); every candidate is scored on the same evidence
        (:mod:`corpus_mcp.federate`); the best are read and scored again on their
        headings and page titles; the diversity pass spreads libraries.
        """
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
                    return await self._search(normalised, limit, deadline)
        except Busy as busy:
            raise CorpusError(
                "busy",
                f"the server is busy (searches running: {busy.running}, waiting: "
                f"{busy.waiting}); nothing was searched: try again in {busy.retry_after} s",
                retry_after=busy.retry_after,
            ) from None

    async def _search(self, normalised: str, limit: int, deadline: float) -> SearchOutput:
        hits, failed = await self._gather(normalised, limit, deadline)
        words = weigh_words(normalised, hits)
        scopes = {name: lib.scope for name, lib in self._libraries.items()}
        candidates = await self._ranking(lambda: federate(normalised, hits, words, scopes))
        reread = limit + REREAD_EXTRA
        reads = _Reads(normalised)
        best = await self._reread(
            normalised, words, candidates[:reread], failed, deadline, reads=reads
        )
        rest = candidates[reread:]
        best, rest = await self._lend(
            normalised,
            words,
            best,
            rest,
            limit=limit,
            failed=failed,
            deadline=deadline,
            reads=reads,
        )
        ordered = ranking.diversify(
            competitive([*best, *(c for c in rest if not reads.absent(c))]),
            lambda c: c.library,
            self.settings.search_max_consecutive,
        )
        results = await self._results(
            normalised, words, ordered, limit, failed, deadline=deadline, reads=reads
        )
        output = SearchOutput(
            query=normalised,
            results=results,
            partial=bool(failed),
            unavailable_libraries=sorted(set(failed)),
        )
        # A partial answer is never remembered (the next try may do better), nor one read
        # from an archive that another file has replaced since.
        if not failed and not readers_replaced():
            self._answers.put((normalised, limit), output, _answer_weight(output))
        return output

    async def _reread(
        self,
        query: str,
        words: list[Word],
        candidates: list[Candidate],
        failed: list[str],
        deadline: float,
        *,
        reads: _Reads,
    ) -> list[Candidate]:
        """The candidates rescored with what their documents say, best first (those a
        section index says are no documents left out)."""
        read = await self._read_all(candidates, failed, deadline, reads)

        def rescored() -> list[Candidate]:
            return order(
                [
                    rescore(query, words, c, read_evidence(c.evidence, *read[i], words))
                    if i in read
                    else c
                    for i, c in enumerate(candidates)
                    if not reads.absent(c)
                ]
            )

        return await self._ranking(rescored)

    async def _lend(
        self,
        query: str,
        words: list[Word],
        best: list[Candidate],
        rest: list[Candidate],
        *,
        limit: int,
        failed: list[str],
        deadline: float,
        reads: _Reads,
    ) -> tuple[list[Candidate], list[Candidate]]:
        """``best`` with the documents that its question threads' answers link to in
        other libraries (:mod:`corpus_mcp.inbound`), those threads' titles lent to them
        as evidence, read and scored again; ``rest`` without them."""
        # Threads that will be results (filler vouches for nothing), read already: from
        # the cache, or the search's own reads of its index.
        results = [c for c in competitive(best)[:limit] if inbound.asks(c)]
        read = await self._read_all(results, failed, deadline, reads)
        asking = [c for i, c in enumerate(results) if i in read and read[i][0].kind == "thread"]
        if not asking:
            return best, rest
        threads: dict[int, inbound.Thread] = {}
        with trio.move_on_at(deadline):
            async with trio.open_nursery() as nursery:
                for i, candidate in enumerate(asking):
                    nursery.start_soon(self._thread, i, candidate, threads)
        # In the order the threads rank, whichever was read first.
        lent = inbound.lent([threads[i] for i in sorted(threads)], self._libraries)
        if not lent:
            return best, rest
        landed: dict[int, Landed] = {}
        with trio.move_on_at(deadline):
            async with trio.open_nursery() as nursery:
                for i, target in enumerate(lent):
                    nursery.start_soon(self._cited, i, target, landed)
        scopes = {name: lib.scope for name, lib in self._libraries.items()}
        known = {c.key: c for c in (*best, *rest)}
        targets = [(target, landed[i]) for i, target in enumerate(lent) if i in landed]
        cited = inbound.cite(query, words, scopes, targets, known)
        linked = cited.candidates
        read = await self._read_all(linked, failed, deadline, reads)

        def placed() -> list[Candidate]:
            again = [
                rescore(query, words, c, read_evidence(c.evidence, *read[i], words))
                if i in read
                else c
                for i, c in enumerate(linked)
                if not reads.absent(c)
            ]
            return inbound.placed(best, again, cited.lenders)

        moved = {c.key for c in linked}
        return await self._ranking(placed), [c for c in rest if c.key not in moved]

    async def _cited(self, i: int, target: inbound.Lent, out: dict[int, Landed]) -> None:
        """Where a page a thread cites lands (none: it is no document, or its library
        cannot answer now; the search goes on without it)."""
        try:
            out[i] = await self._land(self._libraries[target.library], target.path)
        except (CorpusError, ArchiveUnavailable, ArchiveStuck):
            return

    async def _thread(self, i: int, candidate: Candidate, out: dict[int, inbound.Thread]) -> None:
        """A thread among the best results, read whole, with its links into the corpus
        (a thread that cannot be read lends nothing: the search goes on without it)."""
        library = self._libraries[candidate.library]
        try:
            document = await self._document(library, candidate.path, candidate.hit.title)
            links = await self._web_links(library, document)
        except (CorpusError, ArchiveUnavailable, ArchiveStuck, EntryNotFound) as exc:
            log.debug(
                "search: thread %s of %s lends nothing: %s", candidate.path, library.name, exc
            )
            return
        out[i] = inbound.Thread(library.name, candidate.path, document, links)

    async def _read_all(
        self, candidates: list[Candidate], failed: list[str], deadline: float, reads: _Reads
    ) -> dict[int, tuple[Document, DocumentTerms]]:
        """Each candidate's document and word index (concurrently, until ``deadline``):
        from its library's section index when it has one (one call for all of that
        library's candidates), else its page; failures are logged, named in ``failed``
        and left out. What was read is kept in ``reads`` for the rest of the search."""
        read: dict[int, tuple[Document, DocumentTerms]] = {}
        from_index: dict[str, list[int]] = {}
        async with trio.open_nursery() as nursery:
            for i, candidate in enumerate(candidates):
                known = reads.get(candidate)
                if known is not None:
                    read[i] = known
                elif reads.absent(candidate):
                    continue
                elif self._libraries[candidate.library].sections is not None:
                    from_index.setdefault(candidate.library, []).append(i)
                else:
                    nursery.start_soon(self._load_for_search, i, candidate, read, failed, deadline)
            for name, positions in from_index.items():
                chosen = [candidates[i] for i in positions]
                nursery.start_soon(self._load_from_index, name, chosen, reads, failed, deadline)
        for i, candidate in enumerate(candidates):
            found = reads.get(candidate)
            if found is not None:
                read[i] = found
        return read

    async def _load_from_index(
        self,
        name: str,
        candidates: list[Candidate],
        reads: _Reads,
        failed: list[str],
        deadline: float,
    ) -> None:
        """Some of a library's candidates read from its section index (those it does not
        hold are no documents); an index that fails is dropped and the pages are read."""
        library = self._libraries[name]
        index = library.sections
        if index is None:
            return
        paths = [c.path for c in candidates]
        with trio.move_on_at(deadline) as scope:
            try:
                found = await trio.to_thread.run_sync(
                    read_documents, index, reads.query, paths, abandon_on_cancel=True
                )
            except IndexUnreadable as exc:
                self.index_failed(library, index, str(exc))
                found = None
        if scope.cancelled_caught:
            log.warning("search: reading results from the section index of %s timed out", name)
            metrics.library_failed(name, "read_timeout")
            failed.append(name)
            return
        if found is None:  # the index broke: this search reads the pages
            read: dict[int, tuple[Document, DocumentTerms]] = {}
            async with trio.open_nursery() as nursery:
                for i, candidate in enumerate(candidates):
                    nursery.start_soon(self._load_for_search, i, candidate, read, failed, deadline)
            for i, candidate in enumerate(candidates):
                if i in read:
                    reads.keep(candidate, read[i])
            return
        for candidate in candidates:
            document = found.get(candidate.path)
            if document is None:
                reads.drop(candidate)
            else:
                reads.keep(candidate, document)

    async def _gather(
        self, query: str, limit: int, deadline: float
    ) -> tuple[dict[str, LibraryHits], list[str]]:
        """Every library's hits (remembered ones first), and the libraries that failed.

        The libraries still to search are walked in one worker thread
        (:mod:`corpus_mcp.fanout`); one that takes longer than a quarter of
        SEARCH_TIMEOUT is left to its thread and reported failed.
        """
        hits: dict[str, LibraryHits] = {}
        jobs: list[Job[LibraryHits]] = []
        unavailable: list[str] = []  # already said in the log, when it became so
        want = max(limit * 3, MIN_CANDIDATES)
        for library in self._libraries.values():
            if library.service.unavailable:
                unavailable.append(library.name)
                continue
            remembered = self._hits.get((library.service.info.uuid, query, limit))
            if remembered is not None:
                hits[library.name] = remembered
            else:
                run = partial(_library_hits, library, query, want, limit)
                jobs.append(Job(library.name, metrics.timed_search(library.name, run)))
        values, failures = await fan_out(
            jobs,
            deadline=deadline,
            stall=self.settings.search_timeout * STALL_SHARE,
            limiter=self._walkers,
            stuck=self._stuck,
            occupancy=self._inside,
        )
        for name, found in values.items():
            hits[name] = found
            key = (self._libraries[name].service.info.uuid, query, limit)
            self._hits.put(key, found, _hits_weight(found))
        for name, failure in sorted(failures.items()):
            if self._libraries[name].service.unavailable:
                continue  # its archive changed during this search: the service said so
            metrics.library_failed(name, failure.kind)
            log.warning(
                "search: library %s %s after %.0f ms (SEARCH_TIMEOUT=%ss): %s",
                name,
                failure.kind,
                failure.elapsed * 1000,
                self.settings.search_timeout,
                failure.detail if self.settings.log_queries else _redacted(failure),
            )
        return hits, sorted([*failures, *unavailable])

    async def _results(
        self,
        query: str,
        words: list[Word],
        ordered: list[Candidate],
        limit: int,
        failed: list[str],
        *,
        deadline: float,
        reads: _Reads,
    ) -> list[SearchResult]:
        """Snippets and hints for the best ``limit`` candidates that parse into documents."""
        results: list[SearchResult] = []
        position = 0
        while len(results) < limit and position < len(ordered):
            batch = ordered[position : position + limit - len(results)]
            position += len(batch)
            read = await self._read_all(batch, failed, deadline, reads)
            chosen = [
                (candidate, *read[i])
                for i, candidate in enumerate(batch)
                if i in read
                and read[i][0].metadata.get("navigation") != "true"
                and (
                    candidate.scored.symbol > 0
                    or mentioned(words, read[i][0], read[i][1], candidate.evidence.named_by)
                )
            ]
            results += await self._ranking(partial(self._batch_results, query, words, chosen))
        return results

    def _batch_results(
        self,
        query: str,
        words: list[Word],
        chosen: list[tuple[Candidate, Document, DocumentTerms]],
    ) -> list[SearchResult]:
        return [self._result(query, words, *found) for found in chosen]

    async def _ranking(self, work: Callable[[], T]) -> T:
        """Run ranking work (pure Python, milliseconds on long pages) in a thread, so the
        event loop keeps answering other calls meanwhile."""
        return await trio.to_thread.run_sync(work, limiter=self._rankers)

    async def _load_for_search(
        self,
        i: int,
        candidate: Candidate,
        out: dict[int, tuple[Document, DocumentTerms]],
        failed: list[str],
        deadline: float,
    ) -> None:
        library = self._libraries[candidate.library]
        with trio.move_on_at(deadline) as scope:
            try:
                out[i] = await self._searchable(library, candidate.hit.path, candidate.hit.title)
            except ArchiveUnavailable:  # the service logged why
                failed.append(library.name)
            except ArchiveStuck:
                metrics.library_failed(library.name, "stuck")
                failed.append(library.name)
            except EntryNotFound:
                # Found in the archive the library served a moment ago, gone from the one
                # that replaced it (an update by rename, under load): that hit is no
                # result, and the library is as sound as before.
                log.debug("search: a result from %s left with its old archive", library.name)
            except Exception as exc:
                log.warning(
                    "search: reading a result from %s failed: %s",
                    library.name,
                    describe(exc, log_queries=self.settings.log_queries),
                )
                metrics.library_failed(library.name, "read_error")
                failed.append(library.name)
        if scope.cancelled_caught:
            log.warning("search: reading a result from %s timed out", library.name)
            metrics.library_failed(library.name, "read_timeout")
            failed.append(library.name)

    def _result(
        self,
        query: str,
        words: list[Word],
        candidate: Candidate,
        document: Document,
        terms: DocumentTerms,
    ) -> SearchResult:
        library, path, landing = candidate.library, candidate.path, candidate.hit.section
        # A query that is the redirect's title or the symbol's name asks for the landing.
        answers = candidate.scored.exact > 0 or candidate.scored.symbol >= SYMBOL_ANSWERS
        hints = ranking.result_hints(
            query, document, landing, words, landing_answers=answers, terms=terms
        )
        # A hinted section too long for one fetch answer is hinted again from the part
        # that matched, so that fetching the hints delivers it.
        delivered = locating.with_locators(
            query, document.title, terms, hints, self.settings.fetch_budget_chars
        )
        return SearchResult(
            ref=refs.encode(library, path),
            library=library,
            kind=document.kind,
            title=document.title,
            snapshot=self._libraries[library].snapshot,
            snippet=ranking.snippet(
                query, document, within=hints[0][0] if hints else None, terms=terms
            ),
            relevant_sections=[SectionRef(sid, title) for sid, title in delivered],
        )

    # -- fetch ------------------------------------------------------------------------

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        """The document a ref names, whole or by section ids, filled up to the fetch
        budget (:mod:`corpus_mcp.folding`)."""
        with one_reader_per_call():
            return await self._fetch(ref, sections)

    async def _fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        name, path, fragment = refs.decode(ref, self._libraries, self._disabled)
        library = self._libraries[name]
        if library.service.unavailable:
            raise self._unavailable(name, library.service.unavailable)
        asked = (library.service.info.uuid, path, fragment or "", tuple(sections or ()))
        answered = self._fetches.get(asked)
        if answered is not None:
            return answered
        # Only canonical content paths are cache keys, and such a path lands on itself
        # with no section: a cached document needs no trip to the archive at all.
        cached = self._documents.get((library.service.info.uuid, path))
        document = cached.document if cached is not None and not cached.document.view else None
        landing: str | None = None
        if document is None:
            # A fetch's archive work gets the time a search gets: an archive that does
            # not answer must not hold the call forever.
            timeout = self.settings.search_timeout
            try:
                with trio.fail_after(timeout):
                    landed = await self._land(library, path)
                    path, landing = landed.path, landed.section
                    document = await self._document(library, landed.path, landed.title)
            except ArchiveUnavailable as exc:
                raise self._unavailable(name, exc.reason) from None
            except ArchiveStuck:
                raise self._unavailable(name, STUCK, retry_after=timeout) from None
            except trio.TooSlowError:
                metrics.library_failed(name, "read_timeout")
                log.warning("fetch: reading from %s timed out", name)
                raise self._unavailable(name, TIMED_OUT, retry_after=timeout) from None
        # What to return: the sections asked for, else the section the ref's anchor or
        # its redirect lands on (an anchor no section holds means the whole document:
        # every ref a fetched document links to must be fetchable).
        index = assemble.section_index(document)
        if sections:
            wanted: list[str] | None = sections
        elif fragment and fragment in index:
            wanted = [fragment]
        elif landing and landing in index:
            wanted = [landing]
        else:
            wanted = None
        budget = self.settings.fetch_budget_chars
        if wanted is None:
            folded = folding.fold_document(document, budget=budget)
        else:
            resolved = assemble.resolve_asked(document, wanted)
            folded = folding.fold_sections(
                assemble.select_sections(document, wanted),
                resolved.ids,
                budget=budget,
                starts=resolved.starts,
            )
        exists = await self._existing(library, assemble.link_paths(folded.sections))
        respelled = await self._respelled(library, exists)
        web = await self._web_links(library, document)
        chosen = assemble.without_dead_links(folded.sections, exists, index, respelled, web)
        output = FetchOutput(
            ref=refs.encode(name, path),
            library=name,
            kind=document.kind,
            title=document.title,
            snapshot=library.snapshot,
            source_url=library.tables.pages.urls.get(document.path)
            or library.adapter.source_url(document, library.service.info.name)
            or msgspec.UNSET,
            sections=chosen,
            available_sections=assemble.available_sections(
                document, [s.id for s in chosen], folded.omitted
            ),
            truncated=folded.truncated,
        )
        # Not from an archive another file has replaced since (as for search answers).
        if not readers_replaced():
            self._fetches.put(asked, output, _fetch_weight(output))
        return output

    async def _existing(self, library: Library, paths: set[str]) -> dict[str, bool]:
        """Which of the paths a fetched text links to are entries of the library's
        archive. A library that cannot be asked right now leaves the links as they are."""
        found = await self._stored(library, paths)
        return dict.fromkeys(paths, True) if found is None else found

    async def _stored(self, library: Library, paths: set[str]) -> dict[str, bool] | None:
        """Which of ``paths`` are entries of the library's archive (remembered: an open
        archive never changes); None when it cannot be asked right now."""
        uuid = library.service.info.uuid
        known = {path: self._entries.get((uuid, path)) for path in paths}
        unknown = [path for path, found in known.items() if found is None]
        if unknown:

            def look_up(reader: ZimReader) -> dict[str, bool]:
                return {path: reader.has_entry(path) for path in unknown}

            looked_up: dict[str, bool] | None = None
            # Bounded like a fetch's other archive work; a failure here is no failure of
            # the fetch (the document is read already).
            with (
                trio.move_on_after(self.settings.search_timeout),
                suppress(ArchiveUnavailable, ArchiveStuck, ZimError),
            ):
                looked_up = await self._in_archive(library, look_up)
            if looked_up is None:
                return None
            for path, found in looked_up.items():
                self._entries.put((uuid, path), found, 64 + len(path))
            known.update(looked_up)
        return {path: bool(found) for path, found in known.items()}

    async def _respelled(self, library: Library, exists: dict[str, bool]) -> dict[str, str]:
        """For each linked path that is a route of the archive's page list, the page it
        names; for each other linked path the archive lacks, the first other spelling of
        it the adapter names (:meth:`Adapter.link_spellings`) that the archive stores."""
        listed = library.tables.pages.paths
        # A route names its page by the page list alone (no entry is stored at a site
        # path), even when the archive could not say what exists.
        spellings = {
            path: (listed[path],) if path in listed else library.adapter.link_spellings(path)
            for path, found in exists.items()
            if path in listed or not found
        }
        wanted = {other for others in spellings.values() for other in others}
        if not wanted:
            return {}
        stored = await self._existing(library, wanted)
        return {
            path: found
            for path, others in spellings.items()
            if (found := next((other for other in others if stored.get(other)), None))
        }

    async def _web_links(self, library: Library, document: Document) -> dict[str, assemble.WebLink]:
        """Each web address a document links to that leads to a document of the corpus,
        and its ref: the first library, in the map's order (:mod:`corpus_mcp.webmap`),
        whose archive holds one of the paths the address may be stored under. A library
        that is unavailable, stuck or cannot be asked leads nowhere: the address stays
        as written. Remembered by document (most have none, and a document's other
        sections are fetched next), unless a library could not be asked."""
        key = (library.service.info.uuid, document.path)
        known = self._led.get(key)
        if known is not None:
            return known
        contents = [section.content for section in walk(document.sections)]
        addresses = assemble.web_links(contents) if self.webmap.mentioned(contents) else set()
        resolved = {
            address: targets for address in addresses if (targets := self.webmap.resolve(address))
        }
        held: dict[str, dict[str, bool]] = {}
        complete = True
        for name, paths in wanted_paths(resolved.values()).items():
            target = self._libraries[name]
            stored = None
            if not target.service.unavailable and name not in self._stuck:
                stored = await self._stored(target, paths)
            if stored is None:
                complete = False
            else:
                held[name] = stored
        links: dict[str, assemble.WebLink] = {}
        for address, targets in resolved.items():
            found = first_held(targets, held)
            if found is not None:
                lead, path = found
                ref = refs.encode(lead.library, path, lead.fragment)
                if len(ref) <= refs.MAX_REF_CHARS:
                    links[address] = assemble.WebLink(ref, lead.note)
        if complete and not readers_replaced():
            weight = 64 + sum(128 + len(a) + len(link.ref) for a, link in links.items())
            self._led.put(key, links, weight)
        return links

    def _unavailable(
        self, library: str, reason: str, *, retry_after: float | None = None
    ) -> CorpusError:
        seconds = self.settings.archive_recheck_seconds if retry_after is None else retry_after
        return CorpusError(
            "library_unavailable",
            f"library {library!r} is temporarily unavailable ({reason}); retry in "
            f"{seconds:g} s or later, or search the other libraries",
            library=library,
            reason=reason,
            retry_after=seconds,
        )

    async def _land(self, library: Library, path: str) -> Landed:
        adapter = library.adapter
        try:
            landed = await self._in_archive(library, lambda reader: land(reader, adapter, path))
        except (EntryNotFound, RedirectError):
            raise _not_found(library.name, path) from None
        if not adapter.is_content(landed.path, landed.mimetype):
            raise CorpusError(
                "not_found",
                f"{path!r} in library {library.name!r} is not a document (an asset or a listing); "
                "use search to find documents",
                library=library.name,
                path=path,
            )
        return landed

    # -- documents --------------------------------------------------------------------

    async def _document(self, library: Library, path: str, title: str) -> Document:
        """The whole document (a search's view of it, if cached, is read again whole;
        the whole one then serves later searches too)."""
        key = (library.service.info.uuid, path)
        cached = self._documents.get(key)
        if cached is not None and not cached.document.view:
            return cached.document
        parsed = await self._read(library, path, title, index=False)
        if cached is not None:
            parsed = joined(parsed.document, cached.terms)
        self._documents.put(key, parsed, parsed.weight)
        return parsed.document

    async def _read(self, library: Library, path: str, title: str, *, index: bool) -> Parsed:
        """Read a document's bytes and its companions' (holding its archive only for
        that), then parse them in a worker process (:mod:`corpus_mcp.parsing`)."""
        adapter = library.adapter

        def read(reader: ZimReader) -> tuple[str, bytes, dict[str, bytes]]:
            entry, content = reader.read(path)
            named = entry_title(reader, adapter, entry.path, entry.title or title)
            return named, content, read_companions(reader, adapter, entry.path, content)

        named, content, companions = await self._in_archive(library, read)
        return await self._parser.parse(
            adapter,
            library.name,
            path,
            named,
            content,
            index=index,
            companions=companions,
        )

    async def _in_archive(self, library: Library, fn: Callable[[ZimReader], T]) -> T:
        """``fn`` on the library's archive, unless a call given up earlier is still inside
        it (:class:`ArchiveStuck`, at once): a call cancelled while inside makes the
        library stuck until its thread comes back (:class:`corpus_mcp.fanout.Abandonable`),
        for searches' index work too."""
        if library.name in self._stuck:
            raise ArchiveStuck(library.name)
        call = Abandonable[ZimReader](self._stuck, library.name)
        try:
            return await library.service.run(call.wrap(fn))
        except trio.Cancelled:
            call.abandon()
            raise

    async def _searchable(
        self, library: Library, path: str, title: str
    ) -> tuple[Document, DocumentTerms]:
        """The document and the word index of its view (computed once, kept in the same
        cache; a whole document a fetch read is kept beside it)."""
        key = (library.service.info.uuid, path)
        cached = self._documents.get(key)
        if cached is not None and cached.terms is not None:
            return cached.document, cached.terms
        parsed = await self._read(library, path, title, index=True)
        if cached is not None:
            parsed = joined(cached.document, parsed.terms)
        self._documents.put(key, parsed, parsed.weight)
        assert parsed.terms is not None
        return parsed.document, parsed.terms

    @property
    def cache(self) -> ByteLRU[tuple[str, str], Parsed]:
        """Parsed documents and their word indexes (benchmarks clear it to measure cold
        fetches and searches)."""
        return self._documents

    @property
    def hits_cache(self) -> ByteLRU[tuple[str, str, int], LibraryHits]:
        """Per-library hits by query (benchmarks clear it to measure index searches)."""
        return self._hits

    @property
    def stuck_libraries(self) -> tuple[str, ...]:
        """Libraries with an abandoned index call still inside them (searches leave them
        out until it returns)."""
        return self._stuck.names()

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
        self._hits.discard_if(lambda key: key[0] == uuid)
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
            self.webmap = self._web_map()
            await self.indexing.reopen(library)
        # Whatever was remembered of the old archive (or of this one before it was
        # retired) goes: documents and hits by archive, answers by any library.
        stale = {before, reader.info.uuid}
        self._documents.discard_if(lambda key: key[0] in stale)
        self._hits.discard_if(lambda key: key[0] in stale)
        self._entries.discard_if(lambda key: key[0] in stale)
        # Any library's text may link into this one: every answer and every document's
        # web addresses go (the map is new).
        self._fetches.clear()
        self._led.clear()
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


def _library_hits(
    library: Library, query: str, want: int, limit: int, checkpoint: Checkpoint
) -> LibraryHits:
    """One library's hits for a query (run by a fan-out walker thread). The archive's
    file is checked first and again at every checkpoint, before each further call."""
    service = library.service
    reader = service.enter()

    def checked() -> None:
        checkpoint()
        service.verify(reader)

    index = library.sections
    # A section index holds the pages' titles and the redirects': libzim's title index
    # adds nothing then.
    found = collect_hits(
        reader,
        library.adapter,
        query,
        want,
        enough=limit,
        checkpoint=checked,
        titles=index is None or not TITLES_FROM_INDEX,
    )
    found = msgspec.structs.replace(found, symbols=_symbol_hits(library, query))
    if index is None:
        return found
    checkpoint()
    try:
        return with_sections(found, index, query)
    except IndexUnreadable as exc:  # the corpus drops it and reads pages meanwhile
        library.index_broke(index, str(exc))
        return found


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


class _Reads:
    """What one search has read of its candidates, by library and path: a document
    (read from a section index, it is the question's own view of the page and is never
    cached beyond the search), or nothing, when a section index says the path is no
    document."""

    def __init__(self, query: str) -> None:
        self.query = query
        self._read: dict[tuple[str, str], tuple[Document, DocumentTerms]] = {}
        self._absent: set[tuple[str, str]] = set()

    def get(self, candidate: Candidate) -> tuple[Document, DocumentTerms] | None:
        return self._read.get(candidate.key)

    def keep(self, candidate: Candidate, read: tuple[Document, DocumentTerms]) -> None:
        self._read[candidate.key] = read

    def drop(self, candidate: Candidate) -> None:
        self._absent.add(candidate.key)

    def absent(self, candidate: Candidate) -> bool:
        return candidate.key in self._absent


def _redacted(failure: Failure) -> str:
    """A failure's detail when LOG_QUERIES=false: its kind only (a message may name the
    query or a document)."""
    return f"{failure.kind} (details withheld: LOG_QUERIES=false)"


def _symbol_hits(library: Library, query: str) -> list[Hit]:
    """The API symbols the query names in this library, as hits landing on their anchor."""
    matches = library.symbols.lookup(ranking.symbol_candidates(query))[:MAX_SYMBOL_HITS]
    return [
        Hit(
            path=m.symbol.path,
            title=m.symbol.title,
            alias=m.symbol.name,
            section=m.symbol.section,
            strength=m.strength,
            named_by=m.named_by,
        )
        for m in matches
    ]


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


def _hits_weight(hits: LibraryHits) -> int:
    """Approximate memory of one library's hits for one query: each hit's struct, its
    strings, its score and its word frequencies (``sys.getsizeof`` of what they hold came
    to 2.65x what counting 96 bytes a hit did, over the development kit's questions)."""
    every = [*hits.fulltext, *hits.title, *hits.symbols]
    return (
        400
        + 8 * len(hits.frequencies)
        + sum(
            300 + len(h.path) + len(h.title) + len(h.query or "") + 8 * len(h.frequencies or ())
            for h in every
        )
    )


def _not_found(library: str, path: str) -> CorpusError:
    return CorpusError(
        "not_found",
        f"no document at {path!r} in library {library!r}; it may have been renamed in a newer "
        "snapshot: search for it by title",
        library=library,
        path=path,
    )
