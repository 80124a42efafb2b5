"""Where a question matched inside a long section, named so that fetch starts there.

Search hints sections; fetching a hinted section fills the answer from its start, and a
section larger than the answer is cut. When the part that matched (a paragraph, a table
row, a list item) lies past what one answer holds, the hint alone would not deliver it.
So search hints that section twice: its id, then ``<id>@~<words>``, a continuation named
by the first words of the part that matched (as many as make them the first such words
in the section). Fetch finds those words in the section's Markdown (:func:`locate`) and
serves the section from the line they are on; asked for with the section itself, the
continuation says where to start.

The words are read the same way on both sides (lower-cased tokens of the plain text:
links, emphasis and code marks gone), from the view's passages at search time and from
the Markdown's lines at fetch time, which say the same words (tests/test_view.py).
Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpus_mcp.document import LIST, TABLE
from corpus_mcp.folding import CONTINUED
from corpus_mcp.ranking.passages import flatten_inline
from corpus_mcp.ranking.terms import DocumentTerms
from corpus_mcp.ranking.text import APOSTROPHES, TOKEN, stem_set, stems_of, term_in, topic_terms

#: Between a continuation's ``@`` and the words that name where it starts.
WORDS = "~"
#: The most words a locator holds; fewer when fewer tell the part from what precedes it.
MAX_WORDS = 8
#: What of a section a fetch from its start surely holds: this share of the answer's
#: budget, in the plain text measured here (its Markdown, with links, is longer). A
#: part beyond it is named.
REACH = 0.75
#: How much of the part that matched must be within reach for it to count as reached.
SEEN = 200


def with_locators(
    query: str,
    title: str,
    terms: DocumentTerms,
    hints: Sequence[tuple[str, str]],
    budget: int,
) -> list[tuple[str, str]]:
    """``hints`` (id, title) of a document titled ``title``, each followed by its
    continuation at the part that matched the query when a fetch from the section's
    start would not reach it."""
    out: list[tuple[str, str]] = []
    for sid, heading in hints:
        out.append((sid, heading))
        words = matched_words(query, title, terms, sid, budget)
        if words is not None:
            out.append((f"{sid}{CONTINUED}{WORDS}{words}", heading))
    return out


def matched_words(
    query: str, title: str, terms: DocumentTerms, section_id: str, budget: int
) -> str | None:
    """The words naming where in section ``section_id`` the query matched best (the
    paragraph, row or item naming most of its words the document ``title`` does not),
    when a fetch of the section from its start would not reach it (:data:`REACH`);
    else None. Only a long section's passages that use a query word are read."""
    owner = next((i for i, s in enumerate(terms.sections) if s.section.id == section_id), None)
    if owner is None:
        return None
    span = range(terms.sections[owner].first, terms.sections[owner].end)
    reach = REACH * budget
    starts: dict[int, int] = {}  # passage -> the characters of the section before it
    before = 0
    for index in span:
        starts[index] = before
        before += len(terms.passages[index].text) + 2
    if before <= reach:
        return None
    titled = stem_set(title)
    wanted = topic_terms(query)
    focus = [t for t in wanted if not term_in(t, titled)] or wanted
    roots = {root for t in focus for root in stems_of(t)}
    using = sorted(frozenset[int]().union(*(terms.passages_with(t) for t in focus)))
    best: tuple[int, int, int] | None = None  # passage, unit, characters before it
    best_rank = (0, 0)
    for index in (i for i in using if i in starts):
        offset = starts[index]
        for number, unit in enumerate(_units(terms, index)):
            named = sum(term_in(t, stem_set(unit)) for t in focus)
            if named:
                uses = sum(not roots.isdisjoint(stems_of(w)) for w in _words(unit))
                if (named, uses) > best_rank:
                    best, best_rank = (index, number, offset), (named, uses)
            offset += len(unit) + 2
    if best is None:
        return None
    index, number, offset = best
    units = _units(terms, index)
    if offset + min(len(units[number]), SEEN) <= reach:
        return None
    words = _words(units[number])
    # What precedes the part in the section, where its first word occurs at all.
    earlier = [
        terms.passages[i].text for i in span if i < index and words and words[0] in terms.lowered[i]
    ]
    return _first_words(words, [*earlier, *units[:number]])


def _units(terms: DocumentTerms, index: int) -> list[str]:
    """A passage's parts: a table's rows, a list's items, a paragraph whole."""
    passage = terms.passages[index]
    return passage.text.split("; ") if passage.kind in (LIST, TABLE) else [passage.text]


def _first_words(words: Sequence[str], earlier: Sequence[str]) -> str | None:
    """The fewest first ``words`` of a part (up to :data:`MAX_WORDS`) that no earlier
    text holds in a row: the first line holding them is the part's."""
    seen = [_words(text) for text in earlier]
    for count in range(1, min(len(words), MAX_WORDS) + 1):
        run = words[:count]
        if not any(_holds(tokens, run) for tokens in seen):
            return " ".join(run)
    return None


def locate(markdown: str, words: str) -> int | None:
    """The offset of the first line of ``markdown`` whose text holds ``words`` in a row
    (read as :func:`matched_words` reads them), None when no line does."""
    wanted = words.split()
    if not wanted:
        return None
    start = 0
    for line in markdown.split("\n"):
        if _holds(_words(flatten_inline(line)), wanted):
            return start
        start += len(line) + 1
    return None


def _words(text: str) -> list[str]:
    """Lower-cased word tokens in order (as ranking reads them; not memoised: these are
    whole passages and lines, read once)."""
    return [
        match.group().lower()
        for match in TOKEN.finditer(text.translate(APOSTROPHES))
        if any(ch.isalnum() for ch in match.group())
    ]


def _holds(tokens: Sequence[str], run: Sequence[str]) -> bool:
    width = len(run)
    return any(list(tokens[i : i + width]) == list(run) for i in range(len(tokens) - width + 1))
