"""The two tools' outputs, exactly as they cross the MCP surface (msgspec Structs)."""

from __future__ import annotations

import msgspec

from corpus_mcp.document import Kind


class SectionRef(msgspec.Struct, frozen=True, gc=False):
    """A section an agent can ask ``fetch`` for."""

    id: str
    title: str


class SearchResult(msgspec.Struct, kw_only=True, gc=False):
    ref: str
    library: str
    kind: Kind
    title: str
    snapshot: str | None
    snippet: str
    relevant_sections: list[SectionRef]


class SearchOutput(msgspec.Struct, kw_only=True, gc=False):
    query: str
    results: list[SearchResult]
    partial: bool = False
    """True when some libraries failed, timed out or are unavailable (their archive file
    changed under the server) and are left out; they are named below."""
    unavailable_libraries: list[str] = msgspec.field(default_factory=list)


class FetchedSection(msgspec.Struct, kw_only=True):
    id: str
    title: str
    level: int
    content: str
    metadata: dict[str, str | int | bool | list[str]] | msgspec.UnsetType = msgspec.UNSET
    """Absent for sections without metadata (most of them)."""


class AvailableSection(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    title: str
    level: int
    unlisted: int = 0
    """Sections under this one that the list leaves out (a long document lists its
    outline and what was fetched): fetch this section to see them."""
    chars: int = 0
    """Set on the sections this answer left out for size (with them, it would exceed
    the fetch budget: a section's subsections, a document's sections past its lead):
    the section's size in characters, subsections included. Fetch it by id."""


class FetchOutput(msgspec.Struct, kw_only=True):
    ref: str
    library: str
    kind: Kind
    title: str
    snapshot: str | None
    source_url: str | msgspec.UnsetType = msgspec.UNSET
    """Where the archive says the document comes from (to cite; never fetched); absent
    when it says nothing."""
    sections: list[FetchedSection]
    available_sections: list[AvailableSection]
    truncated: bool
