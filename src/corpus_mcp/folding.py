"""Fetch answers the size of the question: what to return of the sections asked for.

A section comes with its subsections when all of them fit in the answer budget
(``FETCH_BUDGET_CHARS``); otherwise it comes with its own text, and its subsections are
*omitted*: listed with their ids, titles and sizes, for the agent to fetch those it needs
(a class with its methods, a book with its chapters). A whole document over the budget is
its first section (the lead) and the list of the others. Subsections the agent asked for
by id always come, inside a folded section too.

Nothing is lost on the way: every omitted section is listed, and fetching its id returns
it (folded again if it is itself over the budget). Only a single section whose own text
exceeds ``MAX_FETCH_CHARS`` is cut, at a paragraph boundary, and the answer says
``truncated``. Pure functions over :mod:`corpus_mcp.document` values.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from corpus_mcp.document import Document, Section, walk
from corpus_mcp.wire import FetchedSection


class Omitted(msgspec.Struct, frozen=True, gc=False):
    """A section left out for size: its id and its size with its subsections."""

    id: str
    chars: int


class Folded(msgspec.Struct, frozen=True, gc=False):
    """What a fetch returns: the sections (pre-order, each with its own text), those left
    out (in document order, each the root of what it leaves out), and whether a section's
    own text was cut to the hard cap."""

    sections: list[FetchedSection]
    omitted: list[Omitted]
    cut: bool = False


def own_size(section: Section | FetchedSection) -> int:
    """A section's own characters as an answer counts them: title and content."""
    return len(section.title) + len(section.content)


def fold_document(document: Document, *, budget: int, cap: int) -> Folded:
    """The whole document if it fits in ``budget``; else its first section (the lead,
    folded in turn) and the list of the others."""
    sections = document.sections
    folder = _Folder(sections, asked=(), budget=budget, cap=cap)
    if sum(folder.size(s) for s in sections) <= folder.budget:
        return folder.take(sections)
    head, *rest = sections
    folder.keep(head)
    folder.omit(rest)
    return folder.result()


def fold_sections(
    roots: Sequence[Section], *, asked: Collection[str], budget: int, cap: int
) -> Folded:
    """The sections a fetch chose (:func:`corpus_mcp.assemble.select_sections`), each
    with its own text at least; their subsections while the answer stays within
    ``budget``, the subsections named in ``asked`` (section ids) in any case."""
    folder = _Folder(roots, asked=asked, budget=budget, cap=cap)
    for root in roots:
        folder.keep(root)
    return folder.result()


class _Folder:
    """One answer being folded: the sizes of the subtrees it may return, the characters
    used so far, and what it left out."""

    def __init__(
        self, roots: Sequence[Section], *, asked: Collection[str], budget: int, cap: int
    ) -> None:
        self.cap = cap
        # The hard cap bounds the budget too: an answer never exceeds MAX_FETCH_CHARS.
        self.budget = min(budget, cap)
        self.used = 0
        self.cut = False
        self.sections: list[FetchedSection] = []
        self.omitted: list[Omitted] = []
        self._sizes: dict[int, int] = {}
        self._leads_to_asked: set[int] = set()
        wanted = set(asked)
        for root in roots:
            self._measure(root, wanted)

    def _measure(self, section: Section, wanted: set[str]) -> tuple[int, bool]:
        """The subtree's size and whether it holds an asked section, remembered by node.
        Recursion depth is the section tree's depth: a handful of levels."""
        size = own_size(section)
        holds = section.id in wanted
        for child in section.children:
            child_size, child_holds = self._measure(child, wanted)
            size += child_size
            holds = holds or child_holds
        self._sizes[id(section)] = size
        if holds:
            self._leads_to_asked.add(id(section))
        return size, holds

    def size(self, section: Section) -> int:
        return self._sizes[id(section)]

    def take(self, sections: Sequence[Section]) -> Folded:
        """Everything, as it is (it fits)."""
        self.sections.extend(_fetched(s, s.content) for s in walk(list(sections)))
        return self.result()

    def keep(self, section: Section) -> None:
        """Return ``section``: whole if it fits in what is left of the budget; else its
        own text, the subsections leading to an asked one kept the same way, and the
        others omitted. A section the cap has no room for is omitted, unless the answer
        is still empty: then its text is cut to the cap, so there is always an answer."""
        size = self.size(section)
        if self.used + size <= self.budget:
            self.sections.extend(_fetched(s, s.content) for s in walk([section]))
            self.used += size
            return
        own = own_size(section)
        if self.used + own > self.cap:
            if self.sections:
                self.omit([section])
                return
            room = max(self.cap - len(section.title), 0)
            self.sections.append(_fetched(section, cut_text(section.content, room)))
            self.used = self.cap
            self.cut = True
        else:
            self.sections.append(_fetched(section, section.content))
            self.used += own
        for child in section.children:
            if id(child) in self._leads_to_asked:
                self.keep(child)
            else:
                self.omit([child])

    def omit(self, sections: Sequence[Section]) -> None:
        self.omitted.extend(Omitted(id=s.id, chars=self.size(s)) for s in sections)

    def result(self) -> Folded:
        return Folded(sections=self.sections, omitted=self.omitted, cut=self.cut)


def _fetched(section: Section, content: str) -> FetchedSection:
    return FetchedSection(
        id=section.id,
        title=section.title,
        level=section.level,
        content=content,
        metadata=section.metadata if section.metadata is not None else msgspec.UNSET,
    )


def cut_text(text: str, room: int) -> str:
    """``text`` within ``room`` characters, cut at the last paragraph break that fits
    (failing one, at a line or word break past a quarter of the room)."""
    if len(text) <= room:
        return text
    head = text[:room]
    for boundary in ("\n\n", "\n", " "):
        at = head.rfind(boundary)
        if at > room // 4:
            return head[:at].rstrip()
    return head.rstrip()
