"""Fetch assembly: from a parsed Document to the sections an agent asked for.

Pure functions over :mod:`corpus_mcp.document` values (what of them fits an answer is
:mod:`corpus_mcp.folding`'s); the corpus manager adds the ref, library and snapshot.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

import msgspec

from corpus_mcp import folding, locating, refs
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.folding import Omitted
from corpus_mcp.wire import AvailableSection, FetchedSection

#: The most sections ``available_sections`` lists beyond those returned and theirs.
MAX_LISTED = 40


def available_sections(
    document: Document, returned: Collection[str] = (), omitted: Sequence[Omitted] = ()
) -> list[AvailableSection]:
    """The document's fetchable sections in document order, the lead first.

    This list goes with every fetch, and a reference page can hold hundreds of sections
    (Node's ``fs``: 274, 23 K characters of list for a 10 K answer; Flask's API page:
    514 entries): beyond :data:`MAX_LISTED` sections it is the outline, as many levels
    from the top as fit, plus the sections ``returned``, those ``omitted`` (left out of
    the answer for size, listed with their ``chars``) and those they are in. Every
    listed section says in ``unlisted`` how many sections under it are not listed (fetch
    it, or ask for one of them, to see them). The continuation of a section cut
    (``<id>@<offset>``, the rest of its text) follows it.
    """
    sizes = {o.id: o.chars for o in omitted if o.continues is None}
    rests = {o.continues: o for o in omitted if o.continues is not None}
    parents: dict[int, Section | None] = {}
    order: list[Section] = []

    def visit(sections: list[Section], parent: Section | None) -> None:
        for section in sections:
            parents[id(section)] = parent
            order.append(section)
            visit(section.children, section)

    visit(document.sections, None)
    known = {s.id for s in order}
    wanted = {_continued_section(sid, known) for sid in returned} | sizes.keys() | rests.keys()
    # A short document, or a whole one returned (a fetch of a large page lists all of
    # it either way): every section, none hiding any.
    whole = len(wanted) >= len(order) and wanted.issuperset(known)
    if len(order) <= MAX_LISTED or whole:
        return _with_rests([(s, 0) for s in order], sizes, rests)
    depth: dict[int, int] = {}
    for section in order:
        parent = parents[id(section)]
        depth[id(section)] = 0 if parent is None else depth[id(parent)] + 1
    levels = sorted({depth[id(s)] for s in order})
    outline = levels[0]
    for level in levels:
        if sum(depth[id(s)] <= level for s in order) > MAX_LISTED:
            break
        outline = level
    listed: set[int] = set()
    for section in order:
        if depth[id(section)] <= outline or section.id in wanted:
            node: Section | None = section
            while node is not None and id(node) not in listed:
                listed.add(id(node))
                node = parents[id(node)]
    hidden: dict[int, int] = {}
    for section in order:
        if id(section) in listed:
            continue
        holder = parents[id(section)]
        while holder is not None and id(holder) not in listed:
            holder = parents[id(holder)]
        if holder is not None:
            hidden[id(holder)] = hidden.get(id(holder), 0) + 1
    return _with_rests([(s, hidden.get(id(s), 0)) for s in order if id(s) in listed], sizes, rests)


def _with_rests(
    listed: Sequence[tuple[Section, int]], sizes: Mapping[str, int], rests: Mapping[str, Omitted]
) -> list[AvailableSection]:
    """The listed sections (each with the number of sections it hides), a section cut
    followed by its continuation."""
    out: list[AvailableSection] = []
    for section, hidden in listed:
        out.append(
            AvailableSection(
                section.id, section.title, section.level, hidden, sizes.get(section.id, 0)
            )
        )
        rest = rests.get(section.id)
        if rest is not None:
            title = f"{section.title} (continued)".strip()
            out.append(AvailableSection(rest.id, title, section.level, chars=rest.chars))
    return out


def _continued_section(section_id: str, known: Collection[str]) -> str:
    """The section a returned id is: itself, or the one a continuation continues."""
    if section_id in known:
        return section_id
    parsed = folding.continued(section_id)
    return parsed[0] if parsed is not None else section_id


def section_index(document: Document) -> dict[str, Section]:
    """Section ids and their aliases (``dt`` anchors, ``answer-<acceptedId>``) -> section."""
    index: dict[str, Section] = {}
    for section in walk(document.sections):
        index.setdefault(section.id, section)
    for section in walk(document.sections):
        for anchor in section.anchors:
            index.setdefault(anchor, section)
    return index


class Asked(msgspec.Struct, frozen=True, gc=False):
    """Section ids as a fetch reads them: each one asked for as its section's own id
    (aliases resolved, a continuation as the section it continues), in the order asked,
    duplicates collapsed; and where each continuation asked for starts, by section id."""

    ids: list[str]
    starts: dict[str, int]


def resolve_asked(document: Document, requested: Sequence[str]) -> Asked:
    """The sections ``requested`` names (see :class:`Asked`); an id naming none is a
    ``section_not_found`` error listing the document's sections.

    A continuation names a section's text from a place on: ``<id>@<offset>`` (a fetch
    that cut the section lists it) or ``<id>@~<words>`` (search hints it, where the
    words are: :mod:`corpus_mcp.locating`; words not found start at the section's
    start). Asked for together with its section, a continuation says where the section
    starts (the earliest one, when several are asked for).
    """
    index = section_index(document)
    ids: list[str] = []
    starts: dict[str, int] = {}
    missing: list[str] = []
    for sid in dict.fromkeys(requested):
        section = index.get(sid)
        start = 0
        if section is None:
            continued = _continuation(index, sid)
            if continued is None:
                missing.append(sid)
                continue
            section, start = continued
        if start:
            starts[section.id] = min(starts.get(section.id, start), start)
        if section.id not in ids:
            ids.append(section.id)
    if missing:
        raise CorpusError(
            "section_not_found",
            f"no section {', '.join(repr(m) for m in missing)} in this document; "
            "ask for ids listed in available_sections",
            missing_sections=missing,
            available_sections=msgspec.to_builtins(available_sections(document)),
        )
    return Asked(ids=ids, starts=starts)


def _continuation(index: Mapping[str, Section], sid: str) -> tuple[Section, int] | None:
    """The section a continuation id names and the offset it starts at (0: the
    section's start); None when ``sid`` names no continuation of a section here."""
    base, mark, where = sid.rpartition(folding.CONTINUED)
    section = index.get(base) if mark else None
    if section is None:
        return None
    if where.startswith(locating.WORDS):
        return section, locating.locate(section.content, where[1:]) or 0
    parsed = folding.continued(sid)
    if parsed is None or not 0 < parsed[1] < len(section.content):
        return None
    return section, parsed[1]


def select_sections(document: Document, requested: Sequence[str]) -> list[Section]:
    """The requested sections (aliases and continuations resolved, :func:`resolve_asked`),
    each with its subsections, in document order, duplicates collapsed.

    A section whose subtree already holds another requested section carries it, except
    for API entries: a section asked for together with entries under it comes without
    its children, followed by what was asked for inside it. Asking for a heading and
    one entry under it (as search hints do) returns the heading's own text and that
    entry, not every entry under the heading.
    """
    index = section_index(document)
    wanted = {id(index[sid]) for sid in resolve_asked(document, requested).ids}
    chosen: list[Section] = []

    def visit(sections: list[Section]) -> None:
        for section in sections:
            if id(section) not in wanted:
                visit(section.children)
            elif any(
                inner.role == "entry" and id(inner) in wanted for inner in walk(section.children)
            ):
                chosen.append(msgspec.structs.replace(section, children=[]))
                visit(section.children)
            else:
                chosen.append(section)

    visit(document.sections)
    return chosen


# A Markdown link to a document or a section: label (escapes allowed), then the target
# (refs.encode and refs.anchor keep parentheses only balanced and one level deep:
# ``Ray_(film)``).
_TARGET = r"(?:[^()\s]|\([^()\s]*\))"
_LINK = re.compile(rf"\[((?:\\.|[^\]\\])*)\]\((corpus://{_TARGET}*|#{_TARGET}+)\)")
# A Markdown link to the web (its parentheses by the same rule), or a bare web address,
# which the Markdown writes as an autolink (``<https://...>``).
_WEB_LINK = re.compile(
    rf"\[(?P<label>(?:\\.|[^\]\\])*)\]\((?P<target>https?://{_TARGET}*)\)"
    r"|<(?P<address>https?://[^\s<>]+)>"
)
# Code in Markdown (a fenced block, an inline span): what looks like a link there is code.
_CODE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$|(`+)[^`\n]*?\2", re.M | re.S)


class WebLink(NamedTuple):
    """A web address a fetched text links to that leads into the corpus."""

    ref: str
    note: str | None = None
    """Said after the link's text ("Python 3.11 here": the corpus holds another version
    of the page than the link names)."""


def link_targets(sections: Sequence[FetchedSection]) -> Iterator[str]:
    """Where the sections' links to documents and sections lead: refs and ``#anchor``s,
    as written."""
    for section in sections:
        if "](" in section.content:
            yield from (match.group(2) for match in _LINK.finditer(section.content))


def link_paths(sections: Sequence[FetchedSection]) -> set[str]:
    """The entry paths the sections' ``corpus://`` links name."""
    return {_path(target) for target in link_targets(sections) if target.startswith(refs.SCHEME)}


def web_links(contents: Iterable[str]) -> set[str]:
    """The web addresses Markdown texts link to (links and autolinks; not inside code)."""
    return {address for content in contents for address in web_addresses(content)}


def web_addresses(content: str) -> list[str]:
    """The web addresses one Markdown text links to, in the order it does (not inside
    code)."""
    if "http" not in content:
        return []
    code = _code_ranges(content) if "`" in content or "~~~" in content else ()
    return [
        match.group("address") or match.group("target")
        for match in _WEB_LINK.finditer(content)
        if not _inside(match.start(), code)
    ]


def without_dead_links(
    sections: Sequence[FetchedSection],
    exists: Mapping[str, bool],
    anchors: Collection[str],
    respelled: Mapping[str, str] | None = None,
    web: Mapping[str, WebLink] | None = None,
) -> list[FetchedSection]:
    """The sections with every link an agent could not follow turned into its text: a
    ref to a path the archive lacks (``exists``: path -> found; scrapers leave some, such
    as DevDocs' ``license`` link to a page it skipped) or an ``#anchor`` no section holds.
    A ref to a path the archive stores under another one (``respelled``: path -> the
    stored one; a route of its page list, :meth:`Adapter.link_spellings`) links that one
    instead. A web address the corpus holds (``web``: address -> where it leads, see
    :mod:`corpus_mcp.webmap`) links its ref, a note after its text when it says one;
    every other web address stays as it is.
    """
    moved = respelled or {}

    def keep(match: re.Match[str]) -> str:
        target = match.group(2)
        if target.startswith("#"):
            alive = refs.anchor_of(target) in anchors
        else:
            path = _path(target)
            if path in moved:
                ref = _target(target)
                respelt = refs.encode(ref.library, moved[path], ref.fragment)
                return f"[{match.group(1)}]({respelt})"
            alive = exists.get(path, False)
        return match.group(0) if alive else match.group(1)

    def followed(content: str) -> str:
        if "](" in content:
            content = _LINK.sub(keep, content)
        if web and "http" in content:
            content = _led_into_the_corpus(content, web)
        return content

    return [
        msgspec.structs.replace(section, content=followed(section.content))
        if "](" in section.content or (web and "http" in section.content)
        else section
        for section in sections
    ]


def _led_into_the_corpus(content: str, web: Mapping[str, WebLink]) -> str:
    """``content`` with each web link (or bare address) ``web`` names made a link to its
    ref, the note after its text; code left as it is."""
    code: Sequence[tuple[int, int]] | None = None

    def lead(match: re.Match[str]) -> str:
        nonlocal code
        address = match.group("address")
        found = web.get(address or match.group("target"))
        if found is None:
            return match.group(0)
        if code is None:
            code = _code_ranges(content)
        if _inside(match.start(), code):
            return match.group(0)
        label = _escaped_label(address) if address else match.group("label")
        note = f" ({found.note})" if found.note else ""
        return f"[{label}{note}]({found.ref})"

    return _WEB_LINK.sub(lead, content)


def _code_ranges(content: str) -> list[tuple[int, int]]:
    """Where a Markdown text has code (fenced blocks, inline spans)."""
    return [match.span() for match in _CODE.finditer(content)]


def _inside(position: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in ranges)


_LABEL_ESCAPES = re.compile(r"([\\\[\]*_`])")


def _escaped_label(address: str) -> str:
    """A web address as a link's text (Markdown's emphasis and brackets escaped)."""
    return _LABEL_ESCAPES.sub(r"\\\1", address)


def _path(ref: str) -> str:
    """The entry path of a ref this server wrote."""
    return _target(ref).path


@functools.lru_cache(maxsize=4096)
def _target(ref: str) -> refs.Target:
    """A ref this server wrote, decoded (remembered: a large page's fetch decodes the
    same few hundred refs twice, every time)."""
    library = ref[len(refs.SCHEME) :].split("/", 1)[0]
    return refs.decode(ref, [library])
