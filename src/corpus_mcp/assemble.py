"""Fetch assembly: from a parsed Document to the sections an agent asked for, within budget.

Pure functions over :mod:`corpus_mcp.document` values; the corpus manager adds the
ref, library and snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from corpus_mcp.document import Document, Section, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.wire import AvailableSection, FetchedSection


def available_sections(document: Document) -> list[AvailableSection]:
    """Every fetchable section id in document order, the lead first."""
    return [AvailableSection(s.id, s.title, s.level) for s in walk(document.sections)]


def section_index(document: Document) -> dict[str, Section]:
    """Section ids and their aliases (``dt`` anchors, ``answer-<acceptedId>``) -> section."""
    index: dict[str, Section] = {}
    for section in walk(document.sections):
        index.setdefault(section.id, section)
    for section in walk(document.sections):
        for anchor in section.anchors:
            index.setdefault(anchor, section)
    return index


def select_sections(document: Document, requested: Sequence[str]) -> list[Section]:
    """The requested sections (aliases resolved), duplicates and nested repeats collapsed.

    Returned in document order; a section whose ancestor is also requested is left out,
    since the ancestor's subtree already carries it.
    """
    index = section_index(document)
    missing = [sid for sid in dict.fromkeys(requested) if sid not in index]
    if missing:
        raise CorpusError(
            "section_not_found",
            f"no section {', '.join(repr(m) for m in missing)} in this document; "
            "ask for ids listed in available_sections",
            missing_sections=missing,
            available_sections=msgspec.to_builtins(available_sections(document)),
        )
    wanted = {id(index[sid]) for sid in requested}
    chosen: list[Section] = []

    def visit(sections: list[Section]) -> None:
        for section in sections:
            if id(section) in wanted:
                chosen.append(section)
            else:
                visit(section.children)

    visit(document.sections)
    return chosen


def flatten(roots: Sequence[Section]) -> list[FetchedSection]:
    """Each root with its subtree, pre-order, as wire sections."""
    return [
        FetchedSection(
            id=s.id, title=s.title, level=s.level, content=s.content, metadata=s.metadata
        )
        for s in walk(list(roots))
    ]


def within_budget(
    sections: list[FetchedSection], max_chars: int
) -> tuple[list[FetchedSection], bool]:
    """Whole sections while they fit in ``max_chars`` (titles and contents counted).

    Cuts only at section boundaries; a first section larger than the budget alone is cut
    at the last paragraph break that fits (or, failing one, at a line or word break), so
    the agent always gets something. Returns the sections and whether anything was left out.
    """
    kept: list[FetchedSection] = []
    used = 0
    for section in sections:
        size = len(section.title) + len(section.content)
        if used + size <= max_chars:
            kept.append(section)
            used += size
            continue
        if not kept:
            room = max(max_chars - len(section.title), 0)
            kept.append(
                FetchedSection(
                    id=section.id,
                    title=section.title,
                    level=section.level,
                    content=_cut(section.content, room),
                    metadata=section.metadata,
                )
            )
        return kept, True
    return kept, False


def _cut(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    head = text[:room]
    for boundary in ("\n\n", "\n", " "):
        at = head.rfind(boundary)
        if at > room // 4:
            return head[:at].rstrip()
    return head.rstrip()
