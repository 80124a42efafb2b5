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
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec
import trio

from corpus_mcp import assemble, ranking, refs
from corpus_mcp.adapters import Adapter, get_adapter, symbol_key
from corpus_mcp.cache import ByteLRU
from corpus_mcp.config import Manifest, Settings
from corpus_mcp.document import Document, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.federate import federate
from corpus_mcp.gather import Hit, Landed, LibraryHits, collect_hits, land, load_symbols
from corpus_mcp.redaction import describe
from corpus_mcp.wire import FetchOutput, SearchOutput, SearchResult, SectionRef
from corpus_mcp.zim import ArchiveService, EntryNotFound, RedirectError, ZimReader, open_readers

log = logging.getLogger("corpus_mcp.corpus")

#: Candidates asked of each library per list: enough for fusion to have a choice.
MIN_CANDIDATES = 15
#: Memory for remembered per-library hits (a few hundred bytes per query and library).
HITS_CACHE_BYTES = 8_000_000


class Library:
    """An enabled library at run time: its name, adapter, archive service and symbols."""

    def __init__(
        self,
        name: str,
        adapter: Adapter,
        service: ArchiveService,
        symbols: dict[str, Hit] | None = None,
    ) -> None:
        self.name = name
        self.adapter = adapter
        self.service = service
        self.symbols = symbols or {}
        """Case-folded API symbol -> its page and anchor (devdocs navbar.json)."""

    @property
    def snapshot(self) -> str | None:
        return self.service.info.snapshot


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
        self._documents: ByteLRU[tuple[str, str], Document] = ByteLRU(settings.document_cache_bytes)
        # Archives do not change while open, so a library's hits for a query stay valid:
        # agents repeat queries (retries, several agents on one topic), and a repeat
        # then costs no index search. Failures and timeouts are never remembered.
        self._hits: ByteLRU[tuple[str, str, int], LibraryHits] = ByteLRU(HITS_CACHE_BYTES)

    @property
    def libraries(self) -> tuple[str, ...]:
        return tuple(self._libraries)

    def library(self, name: str) -> Library:
        """An enabled library by its configured name (KeyError if unknown)."""
        return self._libraries[name]

    # -- search -----------------------------------------------------------------------

    async def search(self, query: str, limit: int) -> SearchOutput:
        """Ranked documents from every library for an already validated query and limit."""
        normalised = ranking.normalise_query(query)
        hits: dict[str, LibraryHits] = {}
        failed: list[str] = []
        async with trio.open_nursery() as nursery:
            for library in self._libraries.values():
                nursery.start_soon(self._search_library, library, normalised, limit, hits, failed)

        ordered, found = federate(normalised, hits, self.settings.search_max_consecutive)
        results = await self._results(normalised, ordered, limit, found, failed)
        return SearchOutput(
            query=normalised,
            results=results,
            partial=bool(failed),
            unavailable_libraries=sorted(set(failed)),
        )

    async def _search_library(
        self,
        library: Library,
        query: str,
        limit: int,
        out: dict[str, LibraryHits],
        failed: list[str],
    ) -> None:
        """One library's hits into ``out``, or its name into ``failed`` (logged).

        Each index search asks for more candidates than ``limit`` (fusion needs a
        choice); relaxing the query stops once ``limit`` documents are found.
        """
        key = (library.service.info.uuid, query, limit)
        if (remembered := self._hits.get(key)) is not None:
            out[library.name] = remembered
            return
        started = time.perf_counter()
        want = max(limit * 3, MIN_CANDIDATES)
        reader, adapter = library.service.reader, library.adapter
        with trio.move_on_after(self.settings.search_timeout) as scope:
            try:
                found = await library.service.run(
                    lambda: collect_hits(
                        reader, adapter, query, want, enough=limit, checkpoint=_checkpoint
                    )
                )
                symbol = library.symbols.get(symbol_key(query))
                found = msgspec.structs.replace(found, symbols=[symbol] if symbol else [])
                out[library.name] = found
                self._hits.put(key, found, _hits_weight(found))
            except Exception as exc:  # one broken archive degrades the search, never kills it
                failed.append(library.name)
                log.warning(
                    "search: library %s failed after %.0f ms: %s",
                    library.name,
                    _ms(started),
                    describe(exc, log_queries=self.settings.log_queries),
                )
                return
        if scope.cancelled_caught:
            failed.append(library.name)
            log.warning(
                "search: library %s timed out after %.0f ms (SEARCH_TIMEOUT=%ss)",
                library.name,
                _ms(started),
                self.settings.search_timeout,
            )

    async def _results(
        self,
        query: str,
        ordered: list[ranking.Candidate],
        limit: int,
        found: dict[tuple[str, str], Hit],
        failed: list[str],
    ) -> list[SearchResult]:
        """Snippets and hints for the best ``limit`` candidates that parse into documents."""
        results: list[SearchResult] = []
        position = 0
        while len(results) < limit and position < len(ordered):
            batch = ordered[position : position + limit - len(results)]
            position += len(batch)
            documents: dict[int, Document] = {}
            async with trio.open_nursery() as nursery:
                for i, candidate in enumerate(batch):
                    hit = found[candidate.key]
                    nursery.start_soon(
                        self._load_for_search, i, candidate.library, hit, documents, failed
                    )
            for i, candidate in enumerate(batch):
                document = documents.get(i)
                if document is None or document.metadata.get("navigation") == "true":
                    continue
                landing = found[candidate.key].section
                results.append(
                    self._result(query, candidate.library, candidate.path, document, landing)
                )
        return results

    async def _load_for_search(
        self, i: int, name: str, hit: Hit, out: dict[int, Document], failed: list[str]
    ) -> None:
        library = self._libraries[name]
        with trio.move_on_after(self.settings.search_timeout) as scope:
            try:
                out[i] = await self._document(library, hit.path, hit.title)
            except Exception as exc:
                log.warning(
                    "search: reading a result from %s failed: %s",
                    library.name,
                    describe(exc, log_queries=self.settings.log_queries),
                )
                failed.append(library.name)
        if scope.cancelled_caught:
            log.warning("search: reading a result from %s timed out", library.name)
            failed.append(library.name)

    def _result(
        self, query: str, library: str, path: str, document: Document, landing: str | None
    ) -> SearchResult:
        hints = ranking.result_hints(query, document, landing)
        return SearchResult(
            ref=refs.encode(library, path),
            library=library,
            kind=document.kind,
            title=document.title,
            snapshot=self._libraries[library].snapshot,
            snippet=ranking.snippet(query, document),
            relevant_sections=[SectionRef(sid, title) for sid, title in hints],
        )

    # -- fetch ------------------------------------------------------------------------

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        """The document a ref names, whole or by section ids, within MAX_FETCH_CHARS."""
        name, path = refs.decode(ref, self._libraries, self._disabled)
        library = self._libraries[name]
        # Only canonical content paths are cache keys, and such a path lands on itself
        # with no section: a cached document needs no trip to the archive at all.
        document = self._documents.get((library.service.info.uuid, path))
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
            return cached
        reader, adapter = library.service.reader, library.adapter
        # Read and parse in one worker call: a thread hop less on every cold document,
        # at the price of holding the archive while parsing (the GIL serialises the two
        # anyway).
        document = await library.service.run(
            lambda: adapter.parse(path, title, reader.content(path))
        )
        self._documents.put(key, document, _weight(document))
        return document

    @property
    def cache(self) -> ByteLRU[tuple[str, str], Document]:
        """Parsed documents (benchmarks clear it to measure cold fetches)."""
        return self._documents

    @property
    def hits_cache(self) -> ByteLRU[tuple[str, str, int], LibraryHits]:
        """Per-library hits by query (benchmarks clear it to measure index searches)."""
        return self._hits


@asynccontextmanager
async def open_corpus(settings: Settings, manifest: Manifest) -> AsyncIterator[Corpus]:
    """Open every enabled archive (all or nothing, optionally checked), then serve.

    Raises :class:`corpus_mcp.zim.OpenFailure` naming every library that failed.
    """
    files = {lib.name: lib.file for lib in manifest.enabled}

    def progress(library: str, message: str) -> None:
        log.info("library %s: %s", library, message)

    adapters = {lib.name: get_adapter(lib.adapter) for lib in manifest.enabled}

    def open_all() -> tuple[dict[str, ZimReader], dict[str, dict[str, Hit]]]:
        readers = open_readers(files, check=settings.zim_check, progress=progress)
        symbols = {name: load_symbols(reader, adapters[name]) for name, reader in readers.items()}
        return readers, symbols

    readers, symbols = await trio.to_thread.run_sync(open_all)
    shared = trio.CapacityLimiter(settings.search_workers)
    libraries = [
        Library(
            lib.name,
            adapters[lib.name],
            ArchiveService(readers[lib.name], shared),
            symbols[lib.name],
        )
        for lib in manifest.enabled
    ]
    disabled = tuple(lib.name for lib in manifest.libraries if not lib.enabled)
    yield Corpus(settings, libraries, disabled)


def _checkpoint() -> None:
    """Between libzim calls in a worker: stop if the caller has given up."""
    try:
        trio.from_thread.check_cancelled()
    except RuntimeError:  # called outside a trio worker thread
        return


def _hits_weight(hits: LibraryHits) -> int:
    """Approximate memory of one library's hits for one query."""
    every = [*hits.fulltext, *hits.title, *hits.symbols]
    return 256 + sum(96 + len(h.path) + len(h.title) + len(h.query or "") for h in every)


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


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
