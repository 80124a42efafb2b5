"""An enabled library at run time: its name, adapter, archive service, tables, section
index and the words that name its subject."""

from __future__ import annotations

from typing import Final

from corpus_mcp.adapters import Adapter
from corpus_mcp.gather import ArchiveTables
from corpus_mcp.ranking.scope import Scope
from corpus_mcp.ranking.scope import library_scope as scope_of
from corpus_mcp.sections import SectionIndex
from corpus_mcp.symbols import SymbolTable
from corpus_mcp.zim import ArchiveInfo, ArchiveService

#: Why a call is refused while a library has an abandoned call inside its archive.
STUCK: Final = "its archive is not answering (an earlier call is still inside it)"


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
        acted on by the corpus (:meth:`corpus_mcp.corpus.Corpus.index_failed`)."""

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
