"""The search pipeline: one question asked of every enabled library, top to bottom.

:meth:`Searcher.search` runs its steps in order:

1. **gather**: each library's engine proposes candidates (:mod:`corpus_mcp.gather`,
   and its section index when one is ready), the libraries still to search walked in
   worker threads under ``CapacityLimiter(SEARCH_WORKERS)`` (:mod:`corpus_mcp.fanout`):
   one that raises or outlasts a quarter of SEARCH_TIMEOUT is left out and named;
2. **federate**: every candidate scored on the same evidence (:mod:`corpus_mcp.federate`);
3. **reread**: the best read (from the section index, else the page) and scored again on
   their headings, passages and page titles;
4. **lend**: a result thread asking the question lends its title to the pages of other
   libraries its answer cites (:mod:`corpus_mcp.inbound`);
5. **place**: filler dropped, the diversity pass spreads libraries;
6. **describe**: a snippet and section hints for each of the best ``limit`` that read as
   documents.

Each library's hits for a query are remembered (archives never change while open), so a
repeated question costs no index search. Every step after the gather shares one deadline
and one record of what was read (:class:`_Search`), so a page is read once per search.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import TypeVar

import msgspec
import trio

from corpus_mcp import inbound, locating, metrics, ranking, refs
from corpus_mcp.cache import ByteLRU
from corpus_mcp.config import Settings
from corpus_mcp.document import Document
from corpus_mcp.documents import Documents
from corpus_mcp.errors import CorpusError
from corpus_mcp.fanout import Checkpoint, Failure, Job, Occupancy, fan_out
from corpus_mcp.federate import Candidate, competitive, federate, order, rescore, weigh_words
from corpus_mcp.gather import Hit, Landed, LibraryHits, collect_hits, with_sections
from corpus_mcp.library import ArchiveStuck, Library
from corpus_mcp.ranking.evidence import WEIGHT_SYMBOL, Word, mentioned, read_evidence
from corpus_mcp.ranking.terms import DocumentTerms
from corpus_mcp.redaction import describe
from corpus_mcp.sections import IndexUnreadable, SectionIndex
from corpus_mcp.sections.reading import read_documents
from corpus_mcp.wire import SearchResult, SectionRef
from corpus_mcp.zim import ArchiveUnavailable, EntryNotFound

log = logging.getLogger("corpus_mcp.searching")
T = TypeVar("T")

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
#: Walkers (of all searches) inside one library's index work at once.
LIBRARY_WALKERS = 2
#: Threads doing ranking work at once (see Searcher._ranking).
RANKING_THREADS = 2
#: Memory for remembered per-library hits (a few hundred bytes per query and library),
#: divided among the serving processes (WORKERS), like DOCUMENT_CACHE_MB.
HITS_CACHE_BYTES = 8_000_000

#: What a search has read of a candidate: its document and the word index of its view.
Read = tuple[Document, DocumentTerms]


class Searcher:
    """What every search of one corpus shares: its libraries and documents, the threads
    that walk the libraries and rank, and the hits remembered."""

    def __init__(
        self,
        settings: Settings,
        libraries: Mapping[str, Library],
        documents: Documents,
        *,
        index_failed: Callable[[Library, SectionIndex, str], None],
    ) -> None:
        self._settings = settings
        self._libraries = libraries
        self._documents = documents
        self._index_failed = index_failed
        self.walkers = trio.CapacityLimiter(settings.search_workers)
        """Threads walking the libraries of searches (one per search at a time)."""
        # At most two walkers inside one library, and never every walker: a library that
        # hangs can then hold only those (see corpus_mcp.fanout.Occupancy).
        self._inside = Occupancy(max(1, min(LIBRARY_WALKERS, settings.search_workers - 1)))
        # Threads scoring candidates and writing snippets: few, as they hold the GIL, and
        # the more of them run, the longer the event loop waits for its turn.
        self._rankers = trio.CapacityLimiter(RANKING_THREADS)
        self.hits: ByteLRU[tuple[str, str, int], LibraryHits] = ByteLRU(
            HITS_CACHE_BYTES // settings.workers
        )
        """Each library's hits by archive, query and limit: agents repeat queries
        (retries, several agents on one topic), and a repeat then costs no index search.
        Failures and timeouts are never remembered."""

    async def search(
        self, query: str, limit: int, deadline: float
    ) -> tuple[list[SearchResult], list[str]]:
        """The best ``limit`` results for a normalised query, and the libraries that
        failed or were unavailable (the answer is partial when there are any)."""
        hits, failed = await self._gather(query, limit, deadline)
        words = weigh_words(query, hits)
        search = _Search(query, words, limit, deadline, failed)
        scopes = {name: lib.scope for name, lib in self._libraries.items()}
        candidates = await self._ranking(lambda: federate(query, hits, words, scopes))
        reread = limit + REREAD_EXTRA
        best = await self._reread(search, candidates[:reread])
        best, rest = await self._lend(search, best, candidates[reread:])
        ordered = ranking.diversify(
            competitive([*best, *(c for c in rest if not search.absent(c))]),
            lambda c: c.library,
            self._settings.search_max_consecutive,
        )
        results = await self._results(search, ordered)
        return results, sorted(set(failed))

    # -- gather -----------------------------------------------------------------------

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
            remembered = self.hits.get((library.service.info.uuid, query, limit))
            if remembered is not None:
                hits[library.name] = remembered
            else:
                run = partial(_library_hits, library, query, want, limit)
                jobs.append(Job(library.name, metrics.timed_search(library.name, run)))
        values, failures = await fan_out(
            jobs,
            deadline=deadline,
            stall=self._settings.search_timeout * STALL_SHARE,
            limiter=self.walkers,
            stuck=self._documents.stuck,
            occupancy=self._inside,
        )
        for name, found in values.items():
            hits[name] = found
            key = (self._libraries[name].service.info.uuid, query, limit)
            self.hits.put(key, found, _hits_weight(found))
        for name, failure in sorted(failures.items()):
            if self._libraries[name].service.unavailable:
                continue  # its archive changed during this search: the service said so
            metrics.library_failed(name, failure.kind)
            log.warning(
                "search: library %s %s after %.0f ms (SEARCH_TIMEOUT=%ss): %s",
                name,
                failure.kind,
                failure.elapsed * 1000,
                self._settings.search_timeout,
                failure.detail if self._settings.log_queries else _redacted(failure),
            )
        return hits, sorted([*failures, *unavailable])

    # -- reread and lend --------------------------------------------------------------

    async def _reread(self, search: _Search, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates rescored with what their documents say, best first (those a
        section index says are no documents left out)."""
        read = await self._read_all(search, candidates)
        return await self._ranking(lambda: order(_rescored(search, candidates, read)))

    async def _lend(
        self, search: _Search, best: list[Candidate], rest: list[Candidate]
    ) -> tuple[list[Candidate], list[Candidate]]:
        """``best`` with the documents that its question threads' answers link to in
        other libraries (:mod:`corpus_mcp.inbound`), those threads' titles lent to them
        as evidence, read and scored again; ``rest`` without them."""
        # Threads that will be results (filler vouches for nothing), read already: from
        # the cache, or the search's own reads of its index.
        results = [c for c in competitive(best)[: search.limit] if inbound.asks(c)]
        read = await self._read_all(search, results)
        asking = [c for i, c in enumerate(results) if i in read and read[i][0].kind == "thread"]
        if not asking:
            return best, rest
        threads: dict[int, inbound.Thread] = {}
        with trio.move_on_at(search.deadline):
            async with trio.open_nursery() as nursery:
                for i, candidate in enumerate(asking):
                    nursery.start_soon(self._thread, i, candidate, threads)
        # In the order the threads rank, whichever was read first.
        lent = inbound.lent([threads[i] for i in sorted(threads)], self._libraries)
        if not lent:
            return best, rest
        landed: dict[int, Landed] = {}
        with trio.move_on_at(search.deadline):
            async with trio.open_nursery() as nursery:
                for i, target in enumerate(lent):
                    nursery.start_soon(self._cited, i, target, landed)
        scopes = {name: lib.scope for name, lib in self._libraries.items()}
        known = {c.key: c for c in (*best, *rest)}
        targets = [(target, landed[i]) for i, target in enumerate(lent) if i in landed]
        cited = inbound.cite(search.query, search.words, scopes, targets, known)
        linked = cited.candidates
        read = await self._read_all(search, linked)

        def placed() -> list[Candidate]:
            return inbound.placed(best, _rescored(search, linked, read), cited.lenders)

        moved = {c.key for c in linked}
        return await self._ranking(placed), [c for c in rest if c.key not in moved]

    async def _cited(self, i: int, target: inbound.Lent, out: dict[int, Landed]) -> None:
        """Where a page a thread cites lands (none: it is no document, or its library
        cannot answer now; the search goes on without it)."""
        try:
            out[i] = await self._documents.land(self._libraries[target.library], target.path)
        except (CorpusError, ArchiveUnavailable, ArchiveStuck):
            return

    async def _thread(self, i: int, candidate: Candidate, out: dict[int, inbound.Thread]) -> None:
        """A thread among the best results, read whole, with its links into the corpus
        (a thread that cannot be read lends nothing: the search goes on without it)."""
        library = self._libraries[candidate.library]
        try:
            document = await self._documents.document(library, candidate.path, candidate.hit.title)
            links = await self._documents.web_links(library, document)
        except (CorpusError, ArchiveUnavailable, ArchiveStuck, EntryNotFound) as exc:
            log.debug(
                "search: thread %s of %s lends nothing: %s", candidate.path, library.name, exc
            )
            return
        out[i] = inbound.Thread(library.name, candidate.path, document, links)

    # -- describe ---------------------------------------------------------------------

    async def _results(self, search: _Search, ordered: list[Candidate]) -> list[SearchResult]:
        """Snippets and hints for the best ``limit`` candidates that parse into documents."""
        results: list[SearchResult] = []
        position = 0
        while len(results) < search.limit and position < len(ordered):
            batch = ordered[position : position + search.limit - len(results)]
            position += len(batch)
            read = await self._read_all(search, batch)
            chosen = [
                (candidate, *read[i])
                for i, candidate in enumerate(batch)
                if i in read
                and read[i][0].metadata.get("navigation") != "true"
                and (
                    candidate.scored.symbol > 0
                    or mentioned(search.words, *read[i], candidate.evidence.named_by)
                )
            ]
            results += await self._ranking(partial(self._described, search, chosen))
        return results

    def _described(
        self, search: _Search, chosen: list[tuple[Candidate, Document, DocumentTerms]]
    ) -> list[SearchResult]:
        return [self._result(search, *found) for found in chosen]

    def _result(
        self, search: _Search, candidate: Candidate, document: Document, terms: DocumentTerms
    ) -> SearchResult:
        query = search.query
        library, path, landing = candidate.library, candidate.path, candidate.hit.section
        # A query that is the redirect's title or the symbol's name asks for the landing.
        answers = candidate.scored.exact > 0 or candidate.scored.symbol >= SYMBOL_ANSWERS
        hints = ranking.result_hints(
            query, document, landing, search.words, landing_answers=answers, terms=terms
        )
        # A hinted section too long for one fetch answer is hinted again from the part
        # that matched, so that fetching the hints delivers it.
        delivered = locating.with_locators(
            query, document.title, terms, hints, self._settings.fetch_budget_chars
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

    async def _ranking(self, work: Callable[[], T]) -> T:
        """Run ranking work (pure Python, milliseconds on long pages) in a thread, so the
        event loop keeps answering other calls meanwhile."""
        return await trio.to_thread.run_sync(work, limiter=self._rankers)

    # -- reading candidates -----------------------------------------------------------

    async def _read_all(self, search: _Search, candidates: list[Candidate]) -> dict[int, Read]:
        """Each candidate's document and word index (concurrently, until the search's
        deadline): from its library's section index when it has one (one call for all of
        that library's candidates), else its page; failures are logged, named in the
        search's failed libraries and left out. What was read is kept for the rest of the
        search."""
        read: dict[int, Read] = {}
        from_index: dict[str, list[Candidate]] = {}
        async with trio.open_nursery() as nursery:
            for i, candidate in enumerate(candidates):
                known = search.get(candidate)
                if known is not None:
                    read[i] = known
                elif search.absent(candidate):
                    continue
                elif self._libraries[candidate.library].sections is not None:
                    from_index.setdefault(candidate.library, []).append(candidate)
                else:
                    nursery.start_soon(self._load_page, search, candidate)
            for name, chosen in from_index.items():
                nursery.start_soon(self._load_from_index, search, name, chosen)
        for i, candidate in enumerate(candidates):
            found = search.get(candidate)
            if found is not None:
                read[i] = found
        return read

    async def _load_from_index(
        self, search: _Search, name: str, candidates: list[Candidate]
    ) -> None:
        """Some of a library's candidates read from its section index (those it does not
        hold are no documents); an index that fails is dropped and the pages are read."""
        library = self._libraries[name]
        index = library.sections
        if index is None:
            return
        paths = [c.path for c in candidates]
        with trio.move_on_at(search.deadline) as scope:
            try:
                found = await trio.to_thread.run_sync(
                    read_documents, index, search.query, paths, abandon_on_cancel=True
                )
            except IndexUnreadable as exc:
                self._index_failed(library, index, str(exc))
                found = None
        if scope.cancelled_caught:
            log.warning("search: reading results from the section index of %s timed out", name)
            metrics.library_failed(name, "read_timeout")
            search.failed.append(name)
            return
        if found is None:  # the index broke: this search reads the pages
            async with trio.open_nursery() as nursery:
                for candidate in candidates:
                    nursery.start_soon(self._load_page, search, candidate)
            return
        for candidate in candidates:
            document = found.get(candidate.path)
            if document is None:
                search.drop(candidate)
            else:
                search.keep(candidate, document)

    async def _load_page(self, search: _Search, candidate: Candidate) -> None:
        """A candidate's page read and kept for the search; a failure names its library
        in the search's failed ones (a page gone with a replaced archive is no result)."""
        library = self._libraries[candidate.library]
        with trio.move_on_at(search.deadline) as scope:
            try:
                search.keep(
                    candidate,
                    await self._documents.searchable(
                        library, candidate.hit.path, candidate.hit.title
                    ),
                )
            except ArchiveUnavailable:  # the service logged why
                search.failed.append(library.name)
            except ArchiveStuck:
                metrics.library_failed(library.name, "stuck")
                search.failed.append(library.name)
            except EntryNotFound:
                # Found in the archive the library served a moment ago, gone from the one
                # that replaced it (an update by rename, under load): that hit is no
                # result, and the library is as sound as before.
                log.debug("search: a result from %s left with its old archive", library.name)
            except Exception as exc:
                log.warning(
                    "search: reading a result from %s failed: %s",
                    library.name,
                    describe(exc, log_queries=self._settings.log_queries),
                )
                metrics.library_failed(library.name, "read_error")
                search.failed.append(library.name)
        if scope.cancelled_caught:
            log.warning("search: reading a result from %s timed out", library.name)
            metrics.library_failed(library.name, "read_timeout")
            search.failed.append(library.name)


class _Search:
    """One search after its gather: the question, its weighed words, the limit, the
    deadline, the libraries that failed so far, and what was read of its candidates, by
    library and path: a document and its word index (read from a section index, it is
    the question's own view of the page and is never cached beyond the search), or
    nothing, when a section index says the path is no document."""

    def __init__(
        self, query: str, words: list[Word], limit: int, deadline: float, failed: list[str]
    ) -> None:
        self.query = query
        self.words = words
        self.limit = limit
        self.deadline = deadline
        self.failed = failed
        self._read: dict[tuple[str, str], Read] = {}
        self._absent: set[tuple[str, str]] = set()

    def get(self, candidate: Candidate) -> Read | None:
        return self._read.get(candidate.key)

    def keep(self, candidate: Candidate, read: Read) -> None:
        self._read[candidate.key] = read

    def drop(self, candidate: Candidate) -> None:
        self._absent.add(candidate.key)

    def absent(self, candidate: Candidate) -> bool:
        return candidate.key in self._absent


def _rescored(
    search: _Search, candidates: list[Candidate], read: dict[int, Read]
) -> list[Candidate]:
    """The candidates scored again with what their documents say (those read), those a
    section index says are no documents left out."""
    return [
        rescore(search.query, search.words, c, read_evidence(c.evidence, *read[i], search.words))
        if i in read
        else c
        for i, c in enumerate(candidates)
        if not search.absent(c)
    ]


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


def _redacted(failure: Failure) -> str:
    """A failure's detail when LOG_QUERIES=false: its kind only (a message may name the
    query or a document)."""
    return f"{failure.kind} (details withheld: LOG_QUERIES=false)"


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
