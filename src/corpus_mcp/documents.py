"""The corpus's documents as search and fetch read them: an entry landed, a document
read from its archive and parsed, kept in one byte-bounded cache, and what its links lead
to (entries of its own archive, web addresses of others).

Every call into an archive goes through :meth:`Documents.in_archive`: a call cancelled
while inside an archive makes its library *stuck* until its thread comes back, and calls
meanwhile fail at once (:class:`~corpus_mcp.library.ArchiveStuck`) instead of queueing
behind a thread that may never return (see :mod:`corpus_mcp.fanout`). A document's bytes
are read in the archive's worker thread and parsed in a worker process
(:mod:`corpus_mcp.parsing`), then kept by archive UUID and path: archives never change
while open, so nothing read is ever stale until another file is served.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import TypeVar

import trio

from corpus_mcp import assemble, refs
from corpus_mcp.cache import ByteLRU
from corpus_mcp.companions import read_companions
from corpus_mcp.config import Settings
from corpus_mcp.document import Document, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.fanout import Abandonable, Stuck
from corpus_mcp.gather import Landed, entry_title, land
from corpus_mcp.library import ArchiveStuck, Library
from corpus_mcp.parsing import Parsed, ParsePool, joined
from corpus_mcp.ranking.terms import DocumentTerms
from corpus_mcp.snapshots import file_snapshot
from corpus_mcp.webmap import WebMap, describe_overlap, first_held, library_site, wanted_paths
from corpus_mcp.zim import (
    ArchiveUnavailable,
    EntryNotFound,
    RedirectError,
    ZimError,
    ZimReader,
    readers_replaced,
)

log = logging.getLogger("corpus_mcp.documents")
T = TypeVar("T")

#: Memory for remembered entry lookups of link targets (about a hundred bytes each).
ENTRIES_CACHE_BYTES = 1_000_000
#: Memory for remembered refs of documents' web links into the corpus (most documents
#: have none: a hundred bytes each).
LED_CACHE_BYTES = 1_000_000


class Documents:
    """The documents of a corpus's libraries: landed, read, parsed, remembered."""

    def __init__(
        self, settings: Settings, libraries: Mapping[str, Library], parser: ParsePool
    ) -> None:
        self._settings = settings
        self._libraries = libraries
        self._parser = parser
        self.cache: ByteLRU[tuple[str, str], Parsed] = ByteLRU(settings.document_cache_bytes)
        """Parsed documents and their word indexes, by archive UUID and path."""
        self.stuck = Stuck()
        """The libraries whose abandoned call has not come back (searches' index work
        included: see :mod:`corpus_mcp.fanout`)."""
        # Whether an entry exists, which fetch asks of the paths links name.
        self._entries: ByteLRU[tuple[str, str], bool] = ByteLRU(ENTRIES_CACHE_BYTES)
        # Where a document's web links lead in the corpus (most lead nowhere).
        self._led: ByteLRU[tuple[str, str], dict[str, assemble.WebLink]] = ByteLRU(LED_CACHE_BYTES)
        # The pairs of libraries the log has said share addresses.
        self._overlaps_said: set[frozenset[str]] = set()
        self.webmap = self._web_map()
        """Where web addresses lead in the corpus (made again when an archive is
        replaced: :meth:`remap`)."""

    def remap(self) -> None:
        """The web-address map made again, after a library was served another file."""
        self.webmap = self._web_map()

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

    def forget(self, archives: set[str]) -> None:
        """After a library was served another file: what was read of those archives goes,
        and so does where any document's web links lead (any library's text may link
        into the new archive)."""
        self.cache.discard_if(lambda key: key[0] in archives)
        self._entries.discard_if(lambda key: key[0] in archives)
        self._led.clear()

    # -- archive calls ----------------------------------------------------------------

    async def in_archive(self, library: Library, fn: Callable[[ZimReader], T]) -> T:
        """``fn`` on the library's archive, unless a call given up earlier is still inside
        it (:class:`ArchiveStuck`, at once): a call cancelled while inside makes the
        library stuck until its thread comes back (:class:`corpus_mcp.fanout.Abandonable`),
        for searches' index work too."""
        if library.name in self.stuck:
            raise ArchiveStuck(library.name)
        call = Abandonable[ZimReader](self.stuck, library.name)
        try:
            return await library.service.run(call.wrap(fn))
        except trio.Cancelled:
            call.abandon()
            raise

    async def land(self, library: Library, path: str) -> Landed:
        """Where a path of the library lands (redirects followed): a document, or
        ``not_found`` (no such entry, or an asset or a listing)."""
        adapter = library.adapter
        try:
            landed = await self.in_archive(library, lambda reader: land(reader, adapter, path))
        except (EntryNotFound, RedirectError):
            raise not_found(library.name, path) from None
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

    async def document(self, library: Library, path: str, title: str) -> Document:
        """The whole document (a search's view of it, if cached, is read again whole;
        the whole one then serves later searches too)."""
        key = (library.service.info.uuid, path)
        cached = self.cache.get(key)
        if cached is not None and not cached.document.view:
            return cached.document
        parsed = await self._read(library, path, title, index=False)
        if cached is not None:
            parsed = joined(parsed.document, cached.terms)
        self.cache.put(key, parsed, parsed.weight)
        return parsed.document

    def cached_whole(self, library: Library, path: str) -> Document | None:
        """The whole document at a canonical content path, if it is cached (such a path
        lands on itself: no trip to the archive is needed)."""
        cached = self.cache.get((library.service.info.uuid, path))
        return cached.document if cached is not None and not cached.document.view else None

    async def searchable(
        self, library: Library, path: str, title: str
    ) -> tuple[Document, DocumentTerms]:
        """The document and the word index of its view (computed once, kept in the same
        cache; a whole document a fetch read is kept beside it)."""
        key = (library.service.info.uuid, path)
        cached = self.cache.get(key)
        if cached is not None and cached.terms is not None:
            return cached.document, cached.terms
        parsed = await self._read(library, path, title, index=True)
        if cached is not None:
            parsed = joined(cached.document, parsed.terms)
        self.cache.put(key, parsed, parsed.weight)
        assert parsed.terms is not None
        return parsed.document, parsed.terms

    async def _read(self, library: Library, path: str, title: str, *, index: bool) -> Parsed:
        """Read a document's bytes and its companions' (holding its archive only for
        that), then parse them in a worker process (:mod:`corpus_mcp.parsing`)."""
        adapter = library.adapter

        def read(reader: ZimReader) -> tuple[str, bytes, dict[str, bytes]]:
            entry, content = reader.read(path)
            named = entry_title(reader, adapter, entry.path, entry.title or title)
            return named, content, read_companions(reader, adapter, entry.path, content)

        named, content, companions = await self.in_archive(library, read)
        return await self._parser.parse(
            adapter,
            library.name,
            path,
            named,
            content,
            index=index,
            companions=companions,
        )

    # -- where links lead -------------------------------------------------------------

    async def existing(self, library: Library, paths: set[str]) -> dict[str, bool]:
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
                trio.move_on_after(self._settings.search_timeout),
                suppress(ArchiveUnavailable, ArchiveStuck, ZimError),
            ):
                looked_up = await self.in_archive(library, look_up)
            if looked_up is None:
                return None
            for path, found in looked_up.items():
                self._entries.put((uuid, path), found, 64 + len(path))
            known.update(looked_up)
        return {path: bool(found) for path, found in known.items()}

    async def respelled(self, library: Library, exists: dict[str, bool]) -> dict[str, str]:
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
        stored = await self.existing(library, wanted)
        return {
            path: found
            for path, others in spellings.items()
            if (found := next((other for other in others if stored.get(other)), None))
        }

    async def web_links(self, library: Library, document: Document) -> dict[str, assemble.WebLink]:
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
            if not target.service.unavailable and name not in self.stuck:
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


def not_found(library: str, path: str) -> CorpusError:
    """``not_found`` for a path no entry of the library's archive holds."""
    return CorpusError(
        "not_found",
        f"no document at {path!r} in library {library!r}; it may have been renamed in a newer "
        "snapshot: search for it by title",
        library=library,
        path=path,
    )
