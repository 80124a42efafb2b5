"""A document's sections as the index keeps them, and a document made back from them (pure).

The index is fed by the adapters' search-time view (:attr:`corpus_mcp.document.Document.view`):
every section as the adapter cuts it (headings, API entries, thread posts, comments), with
its plain passages. Each becomes one record: the fields it is found by (its own text, the
document's titles, its heading path, the identifiers naming it) and what search shows
without opening the page (:class:`StoredSection`: the passages a snippet is cut from, and
where the section sits in its document, which hints need).

Search reads a few sections of a candidate document this way and ranks them as a
document (:func:`partial_document`): the sections the question matched, the document's
key sections (its lead; a thread's accepted answer) and the sections they are in, as
placeholders with their titles.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Final

import msgspec

from corpus_mcp.document import Document, Kind, Passage, Role, Section, thread_answer
from corpus_mcp.ranking.query import is_identifier
from corpus_mcp.sections.analysis import names_of

#: Document metadata ranking reads that the records carry (``tex``: formulas are content).
DOCUMENT_FLAGS: Final = ("tex",)
#: Section metadata kept (what hints and thread ranking read; dates and authors are not).
SECTION_METADATA: Final = ("accepted", "answer_id", "question_id", "score", "tags")

Metadata = dict[str, str | int | bool | list[str]]


class Ancestor(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A section that encloses another: where it is and what it is called."""

    order: int
    id: str
    title: str
    level: int
    role: Role


class StoredSection(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """What the index keeps of one section: enough to rank it, hint it and cut a snippet
    from it without reading its page."""

    path: str
    document_title: str
    heading: str
    """The page's own heading (the adapter's ``heading`` metadata), "" when none."""
    kind: Kind
    order: int
    """The section's position in its document (pre-order)."""
    id: str
    title: str
    level: int
    role: Role
    anchors: tuple[str, ...]
    passages: tuple[tuple[str, str], ...]
    """(kind, text) of each passage of its own text."""
    chain: tuple[Ancestor, ...]
    """The sections it is in, outermost first."""
    metadata: Metadata | None = None
    flags: tuple[str, ...] = ()
    """Document metadata ranking reads (:data:`DOCUMENT_FLAGS` that are "true")."""
    key: bool = False
    """A section search always reads with its document: its lead, a thread's accepted
    answer."""
    redirect: str | None = None
    """For a redirect's record (no section: :func:`redirect_record`), its title: the
    document at ``path`` (``id``: the section it lands on) is found by it too."""


class SectionRecord(msgspec.Struct, frozen=True, gc=False):
    """One section to index: its fields and what is stored of it."""

    stored: StoredSection
    body: str
    titles: str
    headings: str
    names: tuple[str, ...]


NamesByAnchor = Mapping[tuple[str, str], Sequence[str]]
"""(document path, anchor) -> the identifiers naming it (``""``: the page itself)."""


def records(document: Document, names: NamesByAnchor | None = None) -> list[SectionRecord]:
    """Every searchable section of a document (reference matter is never searched)."""
    names = names or {}
    flags = tuple(f for f in DOCUMENT_FLAGS if document.metadata.get(f) == "true")
    heading = document.metadata.get("heading", "")
    titles = " ".join(dict.fromkeys(t for t in (document.title, heading) if t))
    keys = _key_sections(document)
    out: list[SectionRecord] = []
    for order, (section, chain) in enumerate(_walk(document.sections, ())):
        if section.reference:
            continue
        stored = StoredSection(
            path=document.path,
            document_title=document.title,
            heading=heading,
            kind=document.kind,
            order=order,
            id=section.id,
            title=section.title,
            level=section.level,
            role=section.role,
            anchors=tuple(section.anchors),
            passages=tuple((p.kind, p.text) for p in section.passages or ()),
            chain=chain,
            metadata=_kept(section.metadata),
            flags=flags,
            key=section.id in keys,
        )
        out.append(
            SectionRecord(
                stored=stored,
                body="\n".join(p.text for p in section.passages or ()),
                titles=titles,
                headings=" ".join([*(a.title for a in chain), section.title]),
                names=tuple(_names(document.path, section, names)),
            )
        )
    return out


def redirect_record(
    title: str, path: str, document_title: str, section: str | None
) -> SectionRecord:
    """A redirect's record: its title finds the document it leads to (a redirect title
    is the archive's own name for the page: "Charles, Ray", an old name, a synonym), on
    the section it lands on; it holds no text."""
    stored = StoredSection(
        path=path,
        document_title=document_title,
        heading="",
        kind="article",
        order=-1,
        id=section or "",
        title=title,
        level=1,
        role="text",
        anchors=(),
        passages=(),
        chain=(),
        redirect=title,
    )
    return SectionRecord(stored=stored, body="", titles=title, headings="", names=())


def _key_sections(document: Document) -> set[str]:
    """The ids of the sections search reads with any of a document's: its lead and, in a
    thread, the answer hints name first (the accepted one, else the first listed)."""
    answer = thread_answer(document)
    return {"", answer.id} if answer is not None else {""}


def _walk(
    sections: Sequence[Section], chain: tuple[Ancestor, ...]
) -> Iterator[tuple[Section, tuple[Ancestor, ...]]]:
    """Sections in document order with the ones enclosing each (the lead encloses
    nothing: its id is "")."""
    order = 0
    stack: list[tuple[Section, tuple[Ancestor, ...]]] = [(s, chain) for s in reversed(sections)]
    while stack:
        section, enclosing = stack.pop()
        yield section, enclosing
        own = Ancestor(order, section.id, section.title, section.level, section.role)
        inner = (*enclosing, own) if section.id else enclosing
        stack.extend((child, inner) for child in reversed(section.children))
        order += 1


def _names(path: str, section: Section, names: NamesByAnchor) -> list[str]:
    """The identifiers naming a section: index names landing on its id or an anchor of
    it (the page's own names on its lead), an API entry's own id, a thread's tags."""
    found: list[str] = []
    for anchor in (section.id, *section.anchors):
        found += names.get((path, anchor), ())
    if section.role == "entry" and is_identifier(section.id):
        found.append(section.id)
    tags = (section.metadata or {}).get("tags")
    if isinstance(tags, list):
        found += tags
    return names_of(found)


def _kept(metadata: Metadata | None) -> Metadata | None:
    if not metadata:
        return None
    kept: Metadata = {key: metadata[key] for key in SECTION_METADATA if key in metadata}
    return kept or None


def partial_document(stored: Sequence[StoredSection]) -> Document:
    """A document made of some of its sections (those of one document, any order): each
    in its place, under placeholders for the sections it is in (their titles, no text),
    so that ranking sees the heading path of every section it reads."""
    if not stored:
        raise ValueError("a document needs at least one section")
    first = stored[0]
    nodes: dict[int, Section] = {}
    parents: dict[int, int | None] = {}
    for item in stored:
        for depth, ancestor in enumerate(item.chain):
            if ancestor.order not in nodes:
                nodes[ancestor.order] = Section(
                    id=ancestor.id,
                    title=ancestor.title,
                    level=ancestor.level,
                    role=ancestor.role,
                    passages=(),
                )
                parents[ancestor.order] = item.chain[depth - 1].order if depth else None
        nodes[item.order] = Section(
            id=item.id,
            title=item.title,
            level=item.level,
            role=item.role,
            anchors=list(item.anchors),
            metadata=dict(item.metadata) if item.metadata else None,
            passages=tuple(Passage(kind, text) for kind, text in item.passages),
        )
        parents[item.order] = item.chain[-1].order if item.chain else None
    top: list[Section] = []
    for order in sorted(nodes):
        parent = parents[order]
        (nodes[parent].children if parent is not None else top).append(nodes[order])
    metadata = {"heading": first.heading} if first.heading else {}
    metadata.update(dict.fromkeys(first.flags, "true"))
    return Document(
        path=first.path,
        title=first.document_title,
        kind=first.kind,
        sections=top,
        metadata=metadata,
        view=True,
    )
