"""A fetch fills its answer up to the budget (``MAX_FETCH_CHARS``): what of what was
asked for it returns, and what it lists as left out.

The specification's rule. An answer is filled in order and stops at the first section
boundary where the next section would pass the budget; everything from there on is
*omitted*: listed with its id and size (its subsections included), for the next call to
ask for. The order:

- a whole document: its sections in document order;
- sections asked for: first their own texts, in the order asked (search hints the best
  section first), so that every section asked for comes when the budget holds them all;
  then their subsections in document order, those of a subsection also asked for
  before its parent's others (a hinted parent brings the subsection that matched
  first). A section asked for that does not fit in what is left is listed, and the
  others asked for still come; a section asked for with no text of its own brings its
  first subsections.

Returned, the sections are in document order. An answer is never empty while what was
asked for holds text: the first section with text that does not fit is cut, and so is
a section larger than the whole budget when at least half of it is left; a cut ends
where a block closes (:mod:`corpus_mcp.cutting`), and the rest is listed as a
continuation, ``<id>@<offset>``: that section from that character of its text on (then
its subsections), fetched like any section. A heading left with none of its text and
none of its subsections goes back to the list. What was asked for holding no text at
all (a heading the archive left empty) says so in its content (:data:`EMPTY`).

Pure functions over :mod:`corpus_mcp.document` values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import msgspec

from corpus_mcp import cutting
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.wire import FetchedSection

#: Between a section's id and the offset its continuation starts at.
CONTINUED = "@"
#: The content of a section asked for when it and its subsections hold no text.
EMPTY = "*(No text: this section is empty in the archive.)*"


class Omitted(msgspec.Struct, frozen=True, gc=False):
    """A section left out for size: its id and its size with its subsections; for a
    continuation, the id of the section it continues."""

    id: str
    chars: int
    continues: str | None = None


class Folded(msgspec.Struct, frozen=True, gc=False):
    """What a fetch returns: the sections (document order, each with the text returned
    of it) and what it left out (document order, each the root of what it leaves out)."""

    sections: list[FetchedSection]
    omitted: list[Omitted]

    @property
    def truncated(self) -> bool:
        return bool(self.omitted)


def own_size(section: Section | FetchedSection) -> int:
    """A section's own characters as an answer counts them: title and content."""
    return len(section.title) + len(section.content)


def continuation_id(section_id: str, offset: int) -> str:
    """The id of ``section_id``'s text from character ``offset`` on."""
    return f"{section_id}{CONTINUED}{offset}"


def continued(section_id: str) -> tuple[str, int] | None:
    """The section id and offset a continuation id names; None for other ids."""
    base, mark, offset = section_id.rpartition(CONTINUED)
    if not mark or not offset.isdigit() or offset != str(int(offset)):
        return None
    return base, int(offset)


def fold_document(document: Document, *, budget: int) -> Folded:
    """The document's sections in document order, up to ``budget`` characters."""
    filler = _Filler(document.sections, {}, budget)
    for section in walk(document.sections):
        if not filler.offer(section):
            break
    return filler.result(asked=(), empty_says_so=document.sections[:1])


def fold_sections(
    roots: Sequence[Section],
    asked: Sequence[str],
    *,
    budget: int,
    starts: Mapping[str, int] | None = None,
) -> Folded:
    """The sections a fetch chose (:func:`corpus_mcp.assemble.select_sections`: the
    roots, in document order, each with the subsections it carries) up to ``budget``
    characters. ``asked``: the ids asked for, in the order asked (roots, subsections a
    root carries); ``starts``: the offset a continuation asked for starts at, by the id
    of the section it continues."""
    filler = _Filler(roots, starts or {}, budget)
    nodes: dict[str, Section] = {}
    for section in walk(list(roots)):
        nodes.setdefault(section.id, section)
    chosen = [nodes[sid] for sid in dict.fromkeys(asked) if sid in nodes]
    taken = [s for s in chosen if filler.offer(s, asked=True)]
    if not filler.stopped:
        marked = {id(s) for s in chosen}
        for section in _in_order(taken, marked):
            if not filler.offer(section):
                break
    return filler.result(asked=chosen, empty_says_so=chosen[:1])


def _in_order(taken: Sequence[Section], asked: set[int]) -> Iterator[Section]:
    """The subsections of the sections asked for that were taken, in document order,
    those of an asked section inside another before the other's own."""
    kept = {id(s) for s in taken}
    done: set[int] = set()

    def under(section: Section) -> Iterator[Section]:
        done.add(id(section))
        for inner in walk(section.children):
            if id(inner) in asked and id(inner) in kept and id(inner) not in done:
                yield from under(inner)
        yield from _subtree_without(section, asked)

    for section in taken:
        if id(section) not in done:
            yield from under(section)


def _subtree_without(section: Section, asked: set[int]) -> Iterator[Section]:
    """``section``'s subsections in document order, without the sections asked for and
    theirs (they come on their own)."""
    stack = section.children[::-1]
    while stack:
        node = stack.pop()
        if id(node) in asked:
            continue
        yield node
        stack.extend(reversed(node.children))


class _Filler:
    """One answer being filled: the characters used, what it holds, where it stopped."""

    def __init__(self, roots: Sequence[Section], starts: Mapping[str, int], budget: int) -> None:
        self.roots = roots
        self.budget = max(budget, 1)
        self.starts = starts
        self.used = 0
        self.holds_text = False
        self.stopped = False
        self.taken: dict[int, str] = {}
        """Section (by identity) -> the text returned of it."""
        self.rest: tuple[Section, int] | None = None
        """The section cut, and the offset its rest starts at."""
        self._sizes: dict[int, int] = {}
        for root in roots:
            self._measure(root)

    def _measure(self, section: Section) -> int:
        """The subtree's size, remembered by node (the recursion is the tree's depth)."""
        size = len(section.title) + len(self.text(section))
        size += sum(self._measure(child) for child in section.children)
        self._sizes[id(section)] = size
        return size

    def text(self, section: Section) -> str:
        """The section's own text as this answer offers it (a continuation's rest)."""
        start = self.starts.get(section.id, 0)
        if not start:
            return section.content
        return cutting.rest(section.content, start) or ""

    def offer(self, section: Section, *, asked: bool = False) -> bool:
        """Take ``section``'s own text if it fits; cut it when the answer holds no text
        yet or the section alone is larger than the budget (and half of it is left).
        False when it was not taken whole: a fill stops there, unless the section was
        asked for and not cut (the other sections asked for still come)."""
        if self.stopped:
            return False
        text = self.text(section)
        size = len(section.title) + len(text)
        left = self.budget - self.used
        if size <= left:
            self.taken[id(section)] = text
            self.used += size
            self.holds_text = self.holds_text or bool(text.strip())
            return True
        larger = size > self.budget and left >= self.budget // 2
        room_for_asked = asked and left - len(section.title) >= self.budget // 4
        if text.strip() and (not self.holds_text or larger or room_for_asked):
            # The room for the text: what is left, and never less than a quarter of the
            # budget (headings alone may have used the rest), so that a cut moves on.
            room = max(left - len(section.title), self.budget // 4, 1)
            start = self.starts.get(section.id, 0)
            piece = cutting.cut(section.content, room, start)
            self.taken[id(section)] = piece.head
            self.used += len(section.title) + len(piece.head)
            self.holds_text = True
            if piece.rest_at < len(section.content):
                self.rest = (section, piece.rest_at)
            self.stopped = True
            return False
        if not asked:
            self.stopped = True
        return False

    def result(self, asked: Sequence[Section], empty_says_so: Sequence[Section]) -> Folded:
        """The answer; when what was asked for holds no text, the first of
        ``empty_says_so`` says so."""
        self._drop_bare_headings(asked)
        if (
            empty_says_so
            and not self.holds_text
            and not any(self.text(s).strip() for s in walk(list(self.roots)))
        ):
            self.taken[id(empty_says_so[0])] = EMPTY
        sections: list[FetchedSection] = []
        omitted: list[Omitted] = []

        def visit(section: Section, listed: bool) -> None:
            content = self.taken.get(id(section))
            if content is not None:
                start = self.starts.get(section.id, 0)
                sid = continuation_id(section.id, start) if start else section.id
                sections.append(_fetched(section, sid, content))
            elif not listed:
                sid = section.id
                start = self.starts.get(section.id, 0)
                if start:
                    sid = continuation_id(section.id, start)
                omitted.append(Omitted(id=sid, chars=self._sizes[id(section)]))
                listed = True
            if self.rest is not None and self.rest[0] is section:
                rest_at = self.rest[1]
                size = len(section.title) + len(cutting.rest(section.content, rest_at) or "")
                size += sum(self._sizes[id(child)] for child in section.children)
                omitted.append(
                    Omitted(
                        id=continuation_id(section.id, rest_at), chars=size, continues=section.id
                    )
                )
                listed = True
            for child in section.children:
                visit(child, listed)

        for root in self.roots:
            visit(root, False)
        return Folded(sections=sections, omitted=omitted)

    def _drop_bare_headings(self, asked: Sequence[Section]) -> None:
        """A heading taken with no text of its own and none of its subsections (the
        fill stopped at the first) goes back to the list, unless it was asked for."""
        kept = {id(s) for s in asked}

        def visit(section: Section) -> bool:
            """Whether anything of the subtree is taken, bare headings dropped."""
            inner = [visit(child) for child in section.children]
            if (
                section.children
                and not any(inner)
                and id(section) not in kept
                and not self.taken.get(id(section), "x").strip()
            ):
                self.taken.pop(id(section), None)
            return id(section) in self.taken or any(inner)

        for root in self.roots:
            visit(root)


def _fetched(section: Section, sid: str, content: str) -> FetchedSection:
    return FetchedSection(
        id=sid,
        title=section.title,
        level=section.level,
        content=content,
        metadata=section.metadata if section.metadata is not None else msgspec.UNSET,
    )
