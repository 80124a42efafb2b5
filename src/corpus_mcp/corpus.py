"""The corpus manager: fan-out search, federated ranking, documents, fetch assembly.

Search runs one task per enabled library in a nursery. Each branch makes a single
worker-thread call (see :mod:`corpus_mcp.gather`) under the global
``CapacityLimiter(SEARCH_WORKERS)`` and the archive's own lock, inside its own cancel
scope with ``SEARCH_TIMEOUT``: a library that raises or times out is logged and left
out, and the answer says ``partial``. Documents are read and parsed in one worker call
too (parsing a large article would otherwise stall the event loop) and kept in a
byte-bounded LRU keyed by archive UUID and path; each library's hits for a query are
remembered the same way, since archives never change while open.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import partial

import msgspec
import trio

from corpus_mcp import assemble, metrics, ranking, refs
from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.cache import ByteLRU
from corpus_mcp.config import Manifest, Settings
from corpus_mcp.document import Document, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.fanout import Checkpoint, Failure, Job, Stuck, fan_out
from corpus_mcp.federate import Candidate, federate, order, rescore, weigh_words
from corpus_mcp.gather import Hit, Landed, LibraryHits, collect_hits, land, load_symbols
from corpus_mcp.ranking.evidence import WEIGHT_SYMBOL, Word, read_evidence, scope_words
from corpus_mcp.ranking.terms import DocumentTerms, index_document
from corpus_mcp.ranking.text import word_set
from corpus_mcp.redaction import describe
from corpus_mcp.symbols import SymbolTable
from corpus_mcp.wire import FetchOutput, SearchOutput, SearchResult, SectionRef
from corpus_mcp.zim import (
    ArchiveInfo,
    ArchiveService,
    EntryNotFound,
    RedirectError,
    ZimReader,
    open_readers,
)

log = logging.getLogger("corpus_mcp.corpus")

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
#: A symbol score from which the query is taken to ask for that symbol alone (half the
#: most a symbol can score: most of the question is the symbol's name).
SYMBOL_ANSWERS = 0.5 * WEIGHT_SYMBOL
#: Memory for remembered per-library hits (a few hundred bytes per query and library).
HITS_CACHE_BYTES = 8_000_000
#: Memory for remembered answers (a few kilobytes each).
ANSWERS_CACHE_BYTES = 4_000_000
#: Words of archive names and metadata that say how an archive was made, not what it is
#: about (flavours, hosts, formats): never scope words.
ARCHIVE_VOCABULARY = word_set(
    """
    all maxi mini nopic novid nodet top com www org net zim html docs documentation
    devdocs wiki stackexchange stack exchange
    """
)


class Library:
    """An enabled library at run time: its name, adapter, archive service, symbols and
    the words that name its subject."""

    def __init__(
        self,
        name: str,
        adapter: Adapter,
        service: ArchiveService,
        symbols: SymbolTable | None = None,
    ) -> None:
        self.name = name
        self.adapter = adapter
        self.service = service
        self.symbols = symbols or SymbolTable()
        """API symbols -> pages and anchors (devdocs navbar.json)."""
        self.scope = library_scope(name, service.info)
        """Stems of the words that name what this library is about."""

    @property
    def snapshot(self) -> str | None:
        return self.service.info.snapshot


def library_scope(name: str, info: ArchiveInfo) -> frozenset[str]:
    """What a library is about, in words of its own metadata (configured name, Name,
    Title, Tags, Description): a query naming one of them prefers this library."""
    texts = [name, info.name, info.title, *info.tags, info.description or ""]
    return scope_words((t for t in texts if not t.startswith("_")), ARCHIVE_VOCABULARY)


class Corpus:
    """What the MCP surface calls: ``search`` and ``fetch``, raising :class:`CorpusError`."""

    def __init__(
        self,
        settings: Settings,
        libraries: list[Library],
        disabled: tuple[str, ...] = (),
    ) -> None:
        self.settings = settings
        self._libraries = {lib.name: lib for lib in libraries}
        self._disabled = disabled
        self._documents: ByteLRU[tuple[str, str], Parsed] = ByteLRU(settings.document_cache_bytes)
        # Indexing a document's words is pure CPU work: a worker thread, but no archive.
        self._cpu = trio.CapacityLimiter(settings.search_workers)
        # Threads walking the libraries of searches (one per search at a time), and the
        # libraries whose abandoned call has not come back (see corpus_mcp.fanout).
        self._walkers = trio.CapacityLimiter(settings.search_workers)
        self._stuck = Stuck()
        # Archives do not change while open, so a library's hits for a query stay valid:
        # agents repeat queries (retries, several agents on one topic), and a repeat
        # then costs no index search. Failures and timeouts are never remembered.
        self._hits: ByteLRU[tuple[str, str, int], LibraryHits] = ByteLRU(HITS_CACHE_BYTES)
        # The same holds for a whole answer: a repeated question costs a lookup.
        self._answers: ByteLRU[tuple[str, int], SearchOutput] = ByteLRU(ANSWERS_CACHE_BYTES)

    @property
    def libraries(self) -> tuple[str, ...]:
        return tuple(self._libraries)

    def library(self, name: str) -> Library:
        """An enabled library by its configured name (KeyError if unknown)."""
        return self._libraries[name]

    # -- search -----------------------------------------------------------------------

    async def search(self, query: str, limit: int) -> SearchOutput:
        """Ranked documents from every library for an already validated query and limit.

        Each library's engine proposes candidates (one worker call per library, in
        parallel); every candidate is scored on the same evidence
        (:mod:`corpus_mcp.federate`); the best are read and scored again on their
        headings and page titles; the diversity pass spreads libraries.
        """
        normalised = ranking.normalise_query(query)
        answered = self._answers.get((normalised, limit))
        if answered is not None:
            return answered
        # One deadline for the whole search: waiting for a walker, the index work and
        # reading the results all count.
        deadline = trio.current_time() + self.settings.search_timeout
        hits, failed = await self._gather(normalised, limit, deadline)
        words = weigh_words(normalised, hits)
        scopes = {name: lib.scope for name, lib in self._libraries.items()}
        candidates = federate(normalised, hits, words, scopes)
        reread = limit + REREAD_EXTRA
        best = await self._reread(normalised, words, candidates[:reread], failed, deadline)
        ordered = ranking.diversify(
            [*best, *candidates[reread:]],
            lambda c: c.library,
            self.settings.search_max_consecutive,
        )
        results = await self._results(normalised, words, ordered, limit, failed, deadline=deadline)
        output = SearchOutput(
            query=normalised,
            results=results,
            partial=bool(failed),
            unavailable_libraries=sorted(set(failed)),
        )
        if not failed:  # a partial answer is never remembered: the next try may do better
            self._answers.put((normalised, limit), output, _answer_weight(output))
        return output

    async def _reread(
        self,
        query: str,
        words: list[Word],
        candidates: list[Candidate],
        failed: list[str],
        deadline: float,
    ) -> list[Candidate]:
        """The candidates rescored with what their documents say, best first."""
        read = await self._read_all(candidates, failed, deadline)
        rescored = [
            rescore(query, words, c, read_evidence(c.evidence, *read[i], words)) if i in read else c
            for i, c in enumerate(candidates)
        ]
        return order(rescored)

    async def _read_all(
        self, candidates: list[Candidate], failed: list[str], deadline: float
    ) -> dict[int, tuple[Document, DocumentTerms]]:
        """Each candidate's document and word index (concurrently, until ``deadline``);
        failures are logged, named in ``failed`` and left out."""
        read: dict[int, tuple[Document, DocumentTerms]] = {}
        async with trio.open_nursery() as nursery:
            for i, candidate in enumerate(candidates):
                nursery.start_soon(self._load_for_search, i, candidate, read, failed, deadline)
        return read

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
        want = max(limit * 3, MIN_CANDIDATES)
        for library in self._libraries.values():
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
        )
        for name, found in values.items():
            hits[name] = found
            key = (self._libraries[name].service.info.uuid, query, limit)
            self._hits.put(key, found, _hits_weight(found))
        for name, failure in sorted(failures.items()):
            metrics.library_failed(name, failure.kind)
            log.warning(
                "search: library %s %s after %.0f ms (SEARCH_TIMEOUT=%ss): %s",
                name,
                failure.kind,
                failure.elapsed * 1000,
                self.settings.search_timeout,
                failure.detail if self.settings.log_queries else _redacted(failure),
            )
        return hits, sorted(failures)

    async def _results(
        self,
        query: str,
        words: list[Word],
        ordered: list[Candidate],
        limit: int,
        failed: list[str],
        *,
        deadline: float,
    ) -> list[SearchResult]:
        """Snippets and hints for the best ``limit`` candidates that parse into documents."""
        results: list[SearchResult] = []
        position = 0
        while len(results) < limit and position < len(ordered):
            batch = ordered[position : position + limit - len(results)]
            position += len(batch)
            read = await self._read_all(batch, failed, deadline)
            for i, candidate in enumerate(batch):
                if i not in read or read[i][0].metadata.get("navigation") == "true":
                    continue
                results.append(self._result(query, words, candidate, *read[i]))
        return results

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
        return SearchResult(
            ref=refs.encode(library, path),
            library=library,
            kind=document.kind,
            title=document.title,
            snapshot=self._libraries[library].snapshot,
            snippet=ranking.snippet(
                query, document, within=hints[0][0] if hints else None, terms=terms
            ),
            relevant_sections=[SectionRef(sid, title) for sid, title in hints],
        )

    # -- fetch ------------------------------------------------------------------------

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        """The document a ref names, whole or by section ids, within MAX_FETCH_CHARS."""
        name, path = refs.decode(ref, self._libraries, self._disabled)
        library = self._libraries[name]
        # Only canonical content paths are cache keys, and such a path lands on itself
        # with no section: a cached document needs no trip to the archive at all.
        cached = self._documents.get((library.service.info.uuid, path))
        document = cached.document if cached is not None else None
        landing: str | None = None
        if document is None:
            landed = await self._land(library, path)
            path, landing = landed.path, landed.section
            document = await self._document(library, landed.path, landed.title)
        if sections:
            roots = assemble.select_sections(document, sections)
        elif landing and landing in assemble.section_index(document):
            roots = assemble.select_sections(document, [landing])
        else:
            roots = document.sections
        chosen, truncated = assemble.within_budget(
            assemble.flatten(roots), self.settings.max_fetch_chars
        )
        return FetchOutput(
            ref=refs.encode(name, path),
            library=name,
            kind=document.kind,
            title=document.title,
            snapshot=library.snapshot,
            sections=chosen,
            available_sections=assemble.available_sections(document),
            truncated=truncated,
        )

    async def _land(self, library: Library, path: str) -> Landed:
        reader, adapter = library.service.reader, library.adapter
        try:
            landed = await library.service.run(lambda: land(reader, adapter, path))
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
        key = (library.service.info.uuid, path)
        cached = self._documents.get(key)
        if cached is not None:
            return cached.document
        parsed = await library.service.run(lambda: _read(library, path, title, index=False))
        self._documents.put(key, parsed, parsed.weight)
        return parsed.document

    async def _searchable(
        self, library: Library, path: str, title: str
    ) -> tuple[Document, DocumentTerms]:
        """The document and its word index (computed once, kept in the same cache)."""
        key = (library.service.info.uuid, path)
        parsed = self._documents.get(key)
        if parsed is None:
            parsed = await library.service.run(lambda: _read(library, path, title, index=True))
        elif parsed.terms is None:
            document = parsed.document
            terms = await trio.to_thread.run_sync(index_document, document, limiter=self._cpu)
            parsed = Parsed(document=document, terms=terms)
        else:
            return parsed.document, parsed.terms
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


@asynccontextmanager
async def open_corpus(
    settings: Settings,
    manifest: Manifest,
    *,
    reuse: Mapping[str, Library] | None = None,
    archive_limiter: trio.CapacityLimiter | None = None,
) -> AsyncIterator[Corpus]:
    """Open every enabled archive (all or nothing, optionally checked), then serve.

    Raises :class:`corpus_mcp.zim.OpenFailure` naming every library that failed.
    A reload (:mod:`corpus_mcp.live`) passes the libraries whose archive has not changed
    in ``reuse``, taken as they are (reader, lock, symbols), and the ``archive_limiter``
    they already share, so that every corpus alive keeps one global pool of archive calls.
    """
    reused = dict(reuse or {})
    files = {lib.name: lib.file for lib in manifest.enabled if lib.name not in reused}

    def progress(library: str, message: str) -> None:
        log.info("library %s: %s", library, message)

    adapters = {lib.name: get_adapter(lib.adapter) for lib in manifest.enabled}

    def open_all() -> tuple[dict[str, ZimReader], dict[str, SymbolTable]]:
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
        symbols = {name: load_symbols(reader, adapters[name]) for name, reader in readers.items()}
        return readers, symbols

    readers, symbols = await trio.to_thread.run_sync(open_all)
    shared = archive_limiter or trio.CapacityLimiter(settings.search_workers)
    libraries = [
        reused.get(lib.name)
        or Library(
            lib.name,
            adapters[lib.name],
            ArchiveService(readers[lib.name], shared),
            symbols[lib.name],
        )
        for lib in manifest.enabled
    ]
    disabled = tuple(lib.name for lib in manifest.libraries if not lib.enabled)
    yield Corpus(settings, libraries, disabled)


def _library_hits(
    library: Library, query: str, want: int, limit: int, checkpoint: Checkpoint
) -> LibraryHits:
    """One library's hits for a query (run by a fan-out walker thread)."""
    found = collect_hits(
        library.service.reader, library.adapter, query, want, enough=limit, checkpoint=checkpoint
    )
    return msgspec.structs.replace(found, symbols=_symbol_hits(library, query))


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


def _answer_weight(output: SearchOutput) -> int:
    """Approximate memory of one remembered answer."""
    return 512 + sum(
        400 + len(r.ref) + len(r.title) + len(r.snippet) + 80 * len(r.relevant_sections)
        for r in output.results
    )


def _hits_weight(hits: LibraryHits) -> int:
    """Approximate memory of one library's hits for one query."""
    every = [*hits.fulltext, *hits.title, *hits.symbols]
    return 256 + sum(96 + len(h.path) + len(h.title) + len(h.query or "") for h in every)


class Parsed(msgspec.Struct, kw_only=True):
    """A document as the cache keeps it: parsed, and indexed once search needs it."""

    document: Document
    terms: DocumentTerms | None = None

    @property
    def weight(self) -> int:
        return _weight(self.document) + (self.terms.size if self.terms is not None else 0)


def _read(library: Library, path: str, title: str, *, index: bool) -> Parsed:
    """Read, parse and (for search) index in one worker call: a thread hop less on every
    cold document, at the price of holding the archive meanwhile (the GIL serialises the
    work anyway)."""
    entry, content = library.service.reader.read(path)
    document = library.adapter.parse(path, entry.title or title, content)
    return Parsed(document=document, terms=index_document(document) if index else None)


def _weight(document: Document) -> int:
    """Approximate memory of a parsed document (characters dominate)."""
    return (
        512
        + sum(256 + len(s.id) + len(s.title) + len(s.content) for s in walk(document.sections))
        + len(document.title)
    )


def _not_found(library: str, path: str) -> CorpusError:
    return CorpusError(
        "not_found",
        f"no document at {path!r} in library {library!r}; it may have been renamed in a newer "
        "snapshot: search for it by title",
        library=library,
        path=path,
    )
