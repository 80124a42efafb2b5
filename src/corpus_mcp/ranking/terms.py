"""A document's words, indexed once: which passages use each stem, how often each section
uses it.

Search looks at a candidate document several times per query (rescoring on its best
passage and headings, the section hints, the snippet), and the same documents come up
query after query. Scanning their text each time is a tokenising pass over every
passage per query; instead a document is tokenised once, when search first reads it,
into this index (cached beside the parsed document), and a query then touches only the
postings of its own few words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.passages import Passage, passages
from corpus_mcp.ranking.text import APOSTROPHES, TOKEN, stem_set, stems_of, term_stems


class SectionTerms(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One content section: its titles' stems and what its own text (without its
    subsections) uses."""

    section: Section
    parent: int
    """Index of the enclosing content section, -1 for a top-level one."""
    title_stems: frozenset[str]
    context: frozenset[str]
    """Stems of its title and of its parents' titles."""
    counts: dict[str, int]
    """Stem -> uses in its own text."""
    length: int
    """Words in its own text."""
    first: int
    """Its passages are ``passages[first:end]``; its subtree's, ``[first:subtree_end]``."""
    end: int
    last: int = -1
    """Index of its last descendant section (itself when it has none)."""
    subtree_end: int = -1


class DocumentTerms(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A parsed document's content sections and passages with their words indexed.

    Reference matter (citations, link lists) is left out, as ranking never uses it.
    """

    sections: tuple[SectionTerms, ...]
    passages: tuple[Passage, ...]
    owners: tuple[int, ...]
    """For each passage, the index of its section."""
    postings: dict[str, tuple[int, ...]]
    """Stem -> the passages that use it, in order."""
    title_postings: dict[str, tuple[int, ...]]
    """Stem -> the sections whose title uses it."""
    stems: frozenset[str]
    """Every stem of the document's content."""
    size: int
    """Approximate memory, in bytes (for the byte-bounded cache)."""
    tex: bool = False
    """Its passages keep every formula (see :func:`is_tex`)."""

    def passages_with(self, word: str) -> frozenset[int]:
        """The passages that use ``word`` (a joined word: whole, or all of its parts)."""
        return _lookup(self.postings, word)

    def sections_titled(self, word: str) -> frozenset[int]:
        """The sections whose title uses ``word``."""
        return _lookup(self.title_postings, word)

    def passages_holding(self, word: str) -> frozenset[int]:
        """The passages whose text or whose section's (and parents') titles use
        ``word``; a joined word may have its parts in either ("unique_together" in the
        text under a "Meta options" heading holds ``Meta.unique_together``)."""

        def held(root: str) -> set[int]:
            found = set(self.postings.get(root, ()))
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


def uses(counts: dict[str, int], word: str) -> int:
    """How often a section's text uses ``word``; a joined word counts its parts too
    (where ``Meta.unique_together`` is documented, the text says ``unique_together``)."""
    whole, parts = term_stems(word)
    found = counts.get(whole, 0)
    if parts:
        return max(found, sum(counts.get(part, 0) for part in parts))
    return found


_COMMENT_LINE = re.compile(r"^(\s*[-*+]\s+)(?:\(-?\d+\)\s+)?(.*?)(?:\s+—\s+[^—\n]*)?$", re.M)


def is_tex(document: Document) -> bool:
    """Whether formulas are the document's content (a math site's thread): ranking and
    snippets keep its TeX, delimiters included."""
    return document.metadata.get("tex") == "true"


def section_passages(section: Section, tex: bool) -> tuple[Passage, ...]:
    """A section's passages as ranking reads them: comments without their score and
    byline (``- (3) text — Author, date`` is ``text``: who wrote it is not what it says)."""
    content = section.content
    if section.role == "comments":
        content = _COMMENT_LINE.sub(r"\1\2", content)
    return passages(content, tex=tex)


def index_document(document: Document) -> DocumentTerms:
    """Tokenise the document's content once (see the module docstring)."""
    tex = is_tex(document)
    sections: list[SectionTerms] = []
    all_passages: list[Passage] = []
    owners: list[int] = []
    postings: dict[str, list[int]] = {}

    def visit(nodes: Sequence[Section], parent: int, context: frozenset[str]) -> None:
        for node in nodes:
            if node.reference:
                continue
            title_stems = stem_set(node.title) if node.id else frozenset()
            own = section_passages(node, tex)
            index = len(sections)
            first = len(all_passages)
            counts: dict[str, int] = {}
            length = 0
            for passage in own:
                seen: set[str] = set()
                # Count the words first (in C), then stem each distinct one once.
                words = Counter(TOKEN.findall(passage.text.translate(APOSTROPHES).lower()))
                for word, uses_ in words.items():
                    length += uses_
                    for root in stems_of(word):
                        counts[root] = counts.get(root, 0) + uses_
                        seen.add(root)
                for root in seen:
                    postings.setdefault(root, []).append(len(all_passages))
                all_passages.append(passage)
                owners.append(index)
            sections.append(
                SectionTerms(
                    section=node,
                    parent=parent,
                    title_stems=title_stems,
                    context=context | title_stems,
                    counts=counts,
                    length=length,
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
    frozen = {root: tuple(found) for root, found in postings.items()}
    return DocumentTerms(
        sections=tuple(sections),
        passages=tuple(all_passages),
        owners=tuple(owners),
        postings=frozen,
        title_postings={root: tuple(found) for root, found in titles.items()},
        stems=frozenset(frozen).union(titles),
        size=_size(all_passages, frozen, sections),
        tex=tex,
    )


def _descends(sections: Sequence[SectionTerms], index: int, ancestor: int) -> bool:
    parent = sections[index].parent
    while parent > ancestor:
        parent = sections[parent].parent
    return parent == ancestor


def _lookup(postings: dict[str, tuple[int, ...]], word: str) -> frozenset[int]:
    """Postings of ``word``: of its stem, or of all its parts for a joined word."""
    whole, parts = term_stems(word)
    found = set(postings.get(whole, ()))
    if parts:
        common = set(postings.get(parts[0], ()))
        for part in parts[1:]:
            common &= set(postings.get(part, ()))
        found |= common
    return frozenset(found)


def _size(
    all_passages: Iterable[Passage],
    postings: dict[str, tuple[int, ...]],
    sections: Sequence[SectionTerms],
) -> int:
    """Rough bytes held: passage text, the postings, the per-section counts."""
    text = sum(120 + len(p.text) for p in all_passages)
    index = sum(80 + len(root) + 8 * len(found) for root, found in postings.items())
    counts = sum(200 + 100 * len(s.counts) for s in sections)
    return text + index + counts
