"""How many of an archive's web links lead into the corpus, on a sample of its pages
(``corpus-mcp validate``, ``corpus-mcp list --links``).

Synchronous, over open readers: the pages are read and parsed as fetch reads them, their
web links resolved through the corpus's map (:mod:`corpus_mcp.webmap`) and asked of the
archives they lead to, as fetch asks. A sample, not a walk: the first
:data:`SAMPLE_PAGES` documents with web links among entries spread evenly through the
archive (at most :data:`MAX_READ` documents read).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from corpus_mcp.adapters import Adapter
from corpus_mcp.addresses import Mount
from corpus_mcp.assemble import web_links
from corpus_mcp.companions import read_companions
from corpus_mcp.document import walk
from corpus_mcp.gather import entry_title, load_tables
from corpus_mcp.snapshots import file_snapshot
from corpus_mcp.webmap import Overlap, WebMap, first_held, library_site, wanted_paths
from corpus_mcp.zim import ZimError, ZimReader

__all__ = ["MAX_READ", "SAMPLE_PAGES", "LinkSample", "corpus_links", "sample_links"]

#: Documents with web links a sample holds, and documents read at most to find them.
SAMPLE_PAGES: Final = 40
MAX_READ: Final = 200
#: Archives of up to this many entries have their whole directory walked to choose the
#: documents read (each entry's directory record: no content); larger ones are probed.
WALKED_ENTRIES: Final = 50_000
#: Entries looked at from each probe point of a larger archive.
_PROBED_ENTRIES: Final = 64


class LinkSample(msgspec.Struct, kw_only=True):
    """What one library's sample says."""

    pages: int = 0
    """Documents read."""
    with_links: int = 0
    """Of them, documents with web links (the sample's size)."""
    links: int = 0
    """Web links in those (each address once a document)."""
    into: Counter[str] = msgspec.field(default_factory=Counter)
    """Links leading to a document of the corpus, by the library holding it."""

    @property
    def resolved(self) -> int:
        return sum(self.into.values())

    def describe(self) -> str:
        """``12 of 840 web links lead into the corpus (wikipedia 9, devdocs 3); sample:
        40 documents with web links (of 57 read)``."""
        if not self.pages:
            return "no documents read"
        if not self.links:
            return f"no web links in {self.pages} documents read"
        by_library = ", ".join(f"{name} {count}" for name, count in self.into.most_common())
        into = f" ({by_library})" if by_library else ""
        documents = "document" if self.with_links == 1 else "documents"
        return (
            f"{self.resolved} of {self.links} web links lead into the corpus{into}; "
            f"sample: {self.with_links} {documents} with web links (of {self.pages} read)"
        )


class CorpusLinks(msgspec.Struct, kw_only=True):
    """What the corpus's archives say of their sites, and each one's sample."""

    mounts: dict[str, tuple[Mount, ...]]
    """Each library's addresses on the web (empty: none known)."""
    samples: dict[str, LinkSample]
    overlaps: tuple[Overlap, ...]
    unreadable: dict[str, str]
    """Libraries whose tables could not be read, and why (left out of the map)."""


def corpus_links(
    readers: Mapping[str, ZimReader],
    adapters: Mapping[str, Adapter],
    *,
    pages: int = SAMPLE_PAGES,
    progress: Callable[[str], None] = lambda library: None,
) -> CorpusLinks:
    """The corpus's map from its archives' tables (as the server reads them) and each
    library's sample through it."""
    sites = []
    unreadable: dict[str, str] = {}
    for name, reader in readers.items():
        try:
            tables = load_tables(reader, adapters[name])
        except ZimError as exc:
            unreadable[name] = exc.reason
            continue
        snapshot = file_snapshot(reader.file, reader.info.snapshot)
        sites.append(library_site(name, adapters[name], tables.site, tables.pages, snapshot))
    webmap = WebMap(sites)
    readable = {name: reader for name, reader in readers.items() if name not in unreadable}
    return CorpusLinks(
        mounts={site.name: site.site.mounts for site in sites},
        samples=sample_links(readable, adapters, webmap, pages=pages, progress=progress),
        overlaps=webmap.overlaps(),
        unreadable=unreadable,
    )


def sample_links(
    readers: Mapping[str, ZimReader],
    adapters: Mapping[str, Adapter],
    webmap: WebMap,
    *,
    pages: int = SAMPLE_PAGES,
    progress: Callable[[str], None] = lambda library: None,
) -> dict[str, LinkSample]:
    """Each library's sample; a document that cannot be read is passed over."""
    held: dict[str, dict[str, bool]] = {name: {} for name in readers}

    def stored(library: str, paths: set[str]) -> dict[str, bool]:
        known = held[library]
        for path in paths - known.keys():
            try:
                known[path] = readers[library].has_entry(path)
            except ZimError:
                known[path] = False
        return known

    samples: dict[str, LinkSample] = {}
    for name, reader in readers.items():
        progress(name)
        sample = LinkSample()
        for addresses in _documents_links(reader, adapters[name], name, pages):
            sample.pages += 1
            if not addresses:
                continue
            sample.with_links += 1
            sample.links += len(addresses)
            resolved = [targets for address in addresses if (targets := webmap.resolve(address))]
            asked = {
                library: stored(library, paths)
                for library, paths in wanted_paths(resolved).items()
                if library in readers
            }
            for targets in resolved:
                found = first_held(targets, asked)
                if found is not None:
                    sample.into[found[0].library] += 1
        samples[name] = sample
    return samples


def _documents_links(
    reader: ZimReader, adapter: Adapter, library: str, wanted: int
) -> list[set[str]]:
    """The web links of documents spread through the archive, in path order, until
    ``wanted`` of them have some (or :data:`MAX_READ` were read)."""
    found: list[set[str]] = []
    with_links = 0
    for path, title in _spread_documents(reader, adapter):
        if with_links >= wanted or len(found) >= MAX_READ:
            break
        addresses = _links_of(reader, adapter, library, path, title)
        if addresses is not None:
            found.append(addresses)
            with_links += bool(addresses)
    return found


def _spread_documents(reader: ZimReader, adapter: Adapter) -> list[tuple[str, str]]:
    """Up to :data:`MAX_READ` documents (path, title) spread evenly through the archive:
    every document of an archive of up to :data:`WALKED_ENTRIES` entries considered (a
    walk of its directory, no content read), else the first document at each of
    :data:`MAX_READ` points of its path order."""
    count = reader.info.entry_count
    if count <= WALKED_ENTRIES:
        documents = [
            (entry.path, entry.title)
            for entry in reader.entries(0, count)
            if not entry.redirect and adapter.is_content(entry.path, entry.mimetype)
        ]
        step = max(1.0, len(documents) / MAX_READ)
        return [documents[int(i * step)] for i in range(min(MAX_READ, len(documents)))]
    chosen: dict[str, str] = {}
    for point in range(MAX_READ):
        start = point * count // MAX_READ
        for entry in reader.entries(start, start + _PROBED_ENTRIES):
            if not entry.redirect and adapter.is_content(entry.path, entry.mimetype):
                chosen.setdefault(entry.path, entry.title)
                break
    return list(chosen.items())


def _links_of(
    reader: ZimReader, adapter: Adapter, library: str, path: str, title: str
) -> set[str] | None:
    """The web addresses a document's fetched text links to; None if it cannot be read."""
    try:
        entry, content = reader.read(path)
        named = entry_title(reader, adapter, entry.path, entry.title or title)
        companions = read_companions(reader, adapter, entry.path, content)
    except ZimError:
        return None
    document = adapter.parse_with_companions(entry.path, named, content, library, companions)
    if document.metadata.get("navigation") == "true":
        return None
    return web_links(section.content for section in walk(document.sections))
