"""A document's words as search reads them: its sections' passages, and where each word a
query asks about occurs, looked up when first asked and remembered.

Search looks at a candidate document several times per query (rescoring on its best
passage and headings, the section hints, the snippet), and the same documents come up
query after query. Tokenising every passage of a page into a full index up front cost as
much as reading the page, and most of it was never asked for: a query touches a handful
of words. So a document keeps its passages (and their lower-cased text), and the
occurrences of a word's stem are found when a query first needs them: a substring test
(in C) picks the few passages that can hold the word, only those are tokenised, and the
result is kept for the next query that asks for the same word.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.passages import Passage, passages
from corpus_mcp.ranking.text import APOSTROPHES, TOKEN, stem_set, stems_of, term_stems

#: How many leading letters of a stem pick the passages that may hold it: stems are
#: nearly always prefixes of their words ("run" of "running"), except where the stemmer
#: turns a final "y" into "i" ("happi" of "happy") or a verb's "e" goes ("us" of
#: "usage", which stems_of folds onto "use"): the probe stops before those.
_PROBE = 4

Occurrences = tuple[tuple[int, int], ...]
"""(passage index, uses of the stem in it) for every passage that uses it, in order."""


class SectionTerms(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One content section: its titles' stems and the extent of its own text."""

    section: Section
    parent: int
    """Index of the enclosing content section, -1 for a top-level one."""
    title_stems: frozenset[str]
    context: frozenset[str]
    """Stems of its title and of its parents' titles."""
    length: int
    """Words in its own text."""
    first: int
    """Its passages are ``passages[first:end]``; its subtree's, ``[first:subtree_end]``."""
    end: int
    last: int = -1
    """Index of its last descendant section (itself when it has none)."""
    subtree_end: int = -1


class DocumentTerms(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A parsed document's content sections and passages, and the occurrences of the
    words queries asked about (see the module docstring).

    Reference matter (citations, link lists) is left out, as ranking never uses it.
    """

    sections: tuple[SectionTerms, ...]
    passages: tuple[Passage, ...]
    lowered: tuple[str, ...]
    """Each passage's text lower-cased, apostrophes made plain (what words are read in)."""
    owners: tuple[int, ...]
    """For each passage, the index of its section."""
    title_postings: dict[str, tuple[int, ...]]
    """Stem -> the sections whose title uses it."""
    size: int
    """Approximate memory, in bytes (for the byte-bounded cache)."""
    tex: bool = False
    """Its passages keep every formula (see :func:`is_tex`)."""
    found: dict[str, Occurrences] = msgspec.field(default_factory=dict)
    """Stem -> its occurrences, for the stems queries have asked about so far."""

    def occurrences(self, root: str) -> Occurrences:
        """Where the passages use a stem (found once, then remembered; two ranking
        threads may both find it first, which costs time, never correctness)."""
        known = self.found.get(root)
        if known is not None:
            return known
        probe = root[:_PROBE].rstrip("ie") or root[:1]
        hits: list[tuple[int, int]] = []
        for index, text in enumerate(self.lowered):
            if probe in text:
                uses = sum(n for word, n in _words(text) if root in stems_of(word))
                if uses:
                    hits.append((index, uses))
        occurrences = tuple(hits)
        self.found[root] = occurrences
        return occurrences

    def find(self, words: Iterable[str]) -> None:
        """Find the occurrences of every stem ``words`` can be matched by (whole and
        parts) at once: each passage that may hold one is tokenised once, where finding
        them one stem at a time tokenised it once per stem. For documents read for one
        question (from a section index), whose memo starts empty every time."""
        wanted: dict[str, str] = {}
        for word in words:
            whole, parts = term_stems(word)
            for root in (whole, *parts):
                if root not in self.found and root not in wanted:
                    wanted[root] = root[:_PROBE].rstrip("ie") or root[:1]
        if not wanted:
            return
        hits: dict[str, list[tuple[int, int]]] = {root: [] for root in wanted}
        probes = set(wanted.values())
        for index, text in enumerate(self.lowered):
            if not any(probe in text for probe in probes):
                continue
            uses: dict[str, int] = {}
            for word, n in _words(text):
                for root in stems_of(word):
                    if root in wanted:
                        uses[root] = uses.get(root, 0) + n
            for root, n in uses.items():
                hits[root].append((index, n))
        for root, found in hits.items():
            self.found[root] = tuple(found)

    def passages_with(self, word: str) -> frozenset[int]:
        """The passages that use ``word`` (a joined word: whole, or all of its parts)."""
        whole, parts = term_stems(word)
        found = {index for index, _ in self.occurrences(whole)}
        if parts:
            common = {index for index, _ in self.occurrences(parts[0])}
            for part in parts[1:]:
                common &= {index for index, _ in self.occurrences(part)}
            found |= common
        return frozenset(found)

    def sections_titled(self, word: str) -> frozenset[int]:
        """The sections whose title uses ``word``."""
        whole, parts = term_stems(word)
        found = set(self.title_postings.get(whole, ()))
        if parts:
            common = set(self.title_postings.get(parts[0], ()))
            for part in parts[1:]:
                common &= set(self.title_postings.get(part, ()))
            found |= common
        return frozenset(found)

    def passages_holding(self, word: str) -> frozenset[int]:
        """The passages whose text or whose section's (and parents') titles use
        ``word``; a joined word may have its parts in either ("unique_together" in the
        text under a "Meta options" heading holds ``Meta.unique_together``)."""

        def held(root: str) -> set[int]:
            found = {index for index, _ in self.occurrences(root)}
            for index in self.title_postings.get(root, ()):
                section = self.sections[index]
                found.update(range(section.first, section.subtree_end))
            return found

        whole, parts = term_stems(word)
        found = held(whole)
        if parts:
            common = held(parts[0])
            for part in parts[1:]:
                common &= held(part)
            found |= common
        return frozenset(found)

    def uses(self, word: str) -> dict[int, int]:
        """Section index -> how often its own text uses ``word``, for the sections that
        do; a joined word counts its parts too (where ``Meta.unique_together`` is
        documented, the text says ``unique_together``)."""

        def count(root: str) -> Counter[int]:
            counts: Counter[int] = Counter()
            for index, n in self.occurrences(root):
                counts[self.owners[index]] += n
            return counts

        whole, parts = term_stems(word)
        found = count(whole)
        if parts:
            joined: Counter[int] = Counter()
            for part in parts:
                joined.update(count(part))
            return {i: max(found.get(i, 0), n) for i, n in (found | joined).items()}
        return dict(found)

    def holds(self, word: str) -> bool:
        """Whether the document's text or a section title uses ``word`` (a joined word:
        whole, or every part)."""
        whole, parts = term_stems(word)

        def has(root: str) -> bool:
            return bool(self.occurrences(root)) or root in self.title_postings

        return has(whole) or (bool(parts) and all(has(part) for part in parts))


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> tuple[tuple[str, int], ...]:
    """A passage's words and their uses (lower-cased text in), remembered: documents read
    for search from a section index are new objects every question, but their passages'
    texts recur (the same sections of the same pages), and counting their words was most
    of what reading them cost. A tuple of pairs: the collector does not track it."""
    return tuple(Counter(TOKEN.findall(text)).items())


_COMMENT_LINE = re.compile(r"^(\s*[-*+]\s+)(?:\(-?\d+\)\s+)?(.*?)(?:\s+—\s+[^—\n]*)?$", re.M)


def is_tex(document: Document) -> bool:
    """Whether formulas are the document's content (a math site's thread): ranking and
    snippets keep its TeX, delimiters included."""
    return document.metadata.get("tex") == "true"


def section_passages(section: Section, tex: bool) -> tuple[Passage, ...]:
    """A section's passages as ranking reads them: the adapter's own, read for search;
    from its Markdown otherwise, comments without their score and byline (``- (3) text —
    Author, date`` is ``text``: who wrote it is not what it says)."""
    if section.passages is not None:
        return section.passages
    content = section.content
    if section.role == "comments":
        content = _COMMENT_LINE.sub(r"\1\2", content)
    return passages(content, tex=tex)


def index_document(document: Document) -> DocumentTerms:
    """The document's sections and passages, ready for queries (see the module
    docstring)."""
    tex = is_tex(document)
    sections: list[SectionTerms] = []
    all_passages: list[Passage] = []
    owners: list[int] = []

    def visit(nodes: Sequence[Section], parent: int, context: frozenset[str]) -> None:
        for node in nodes:
            if node.reference:
                continue
            title_stems = stem_set(node.title) if node.id else frozenset()
            own = section_passages(node, tex)
            index = len(sections)
            first = len(all_passages)
            all_passages.extend(own)
            owners.extend([index] * len(own))
            sections.append(
                SectionTerms(
                    section=node,
                    parent=parent,
                    title_stems=title_stems,
                    context=context | title_stems,
                    length=sum(len(passage.text.split()) for passage in own),
                    first=first,
                    end=len(all_passages),
                )
            )
            visit(node.children, index, context | title_stems)

    visit(document.sections, -1, frozenset())
    # Pre-order: a section's subtree runs to the section before the next one that is
    # not its descendant.
    for index in reversed(range(len(sections))):
        section = sections[index]
        last = index
        while last + 1 < len(sections) and _descends(sections, last + 1, index):
            last = sections[last + 1].last
        sections[index] = msgspec.structs.replace(
            section, last=last, subtree_end=sections[last].end
        )
    titles: dict[str, list[int]] = {}
    for index, section in enumerate(sections):
        for root in section.title_stems:
            titles.setdefault(root, []).append(index)
    lowered = tuple(p.text.translate(APOSTROPHES).lower() for p in all_passages)
    return DocumentTerms(
        sections=tuple(sections),
        passages=tuple(all_passages),
        lowered=lowered,
        owners=tuple(owners),
        title_postings={root: tuple(found) for root, found in titles.items()},
        size=_size(all_passages, sections),
        tex=tex,
    )


def _descends(sections: Sequence[SectionTerms], index: int, ancestor: int) -> bool:
    parent = sections[index].parent
    while parent > ancestor:
        parent = sections[parent].parent
    return parent == ancestor


def _size(all_passages: Iterable[Passage], sections: Sequence[SectionTerms]) -> int:
    """Rough bytes held: passage text twice (as written and lower-cased), sections, and
    room for the occurrences queries will add."""
    text = sum(240 + 2 * len(p.text) for p in all_passages)
    return text + sum(300 for _ in sections)
