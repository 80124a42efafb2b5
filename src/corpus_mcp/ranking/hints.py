"""Section hints: the few sections of a document that answer the query.

An agent fetches the hinted sections instead of the whole page, so a hint must point
at the answer and nothing larger. Sections are treated like documents of a tiny
collection: a query word counts by its rarity in the corpus (the search's word weights)
times how well it tells this document's sections apart (a word every section uses
points at none), in the section's title first and in its own text (without its
subsections, which are hinted on their own). The lead competes like any section, so a
query answered by a page's summary hints ``""``; a query that only names the page hints
the lead too. A section whose title the query spells out counts most. Sections the
adapter marks as reference matter (citations, link lists) are never hinted, nor are
comments (their post is).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from corpus_mcp.document import Document, Section, thread_answer, walk
from corpus_mcp.ranking.evidence import Word, run_in
from corpus_mcp.ranking.terms import DocumentTerms, SectionTerms, index_document
from corpus_mcp.ranking.text import query_terms, stem_set, term_in, title_key, topic_terms

#: A section is hinted when its score reaches this and :data:`HINT_RELATIVE` of the
#: best section's score.
HINT_MIN = 0.15
HINT_RELATIVE = 0.4
#: How much a section's title counts against its text, and an exactly named section.
TITLE_SHARE = 0.5
EXACT_BONUS = 0.5
#: The lead summarises the page: at equal evidence it is the better answer.
LEAD_FACTOR = 1.3
#: Saturation of a word's count in a section's text: one use counts 0.6, three 0.82
#: (for a section of average length; longer ones need more uses).
_SATURATION = 0.67
_B = 0.5


def section_hints(
    query: str,
    document: Document,
    words: Sequence[Word] | None = None,
    limit: int = 3,
    terms: DocumentTerms | None = None,
) -> list[tuple[str, str]]:
    """``(id, title)`` of at most ``limit`` sections that answer the query, best first
    (ties in document order). ``words`` are the query's weighted words (each weighs 1
    when not given); ``terms`` the document's index, when search already has it."""
    if limit <= 0:
        return []
    indexed = terms if terms is not None else index_document(document)
    sections = indexed.sections
    if not sections:
        return []
    weighted = list(words) if words is not None else [Word(t, 1.0) for t in topic_terms(query)]
    if all(w.weight == 0 for w in weighted):  # no statistics: every word counts the same
        weighted = [Word(w.text, 1.0) for w in weighted]
    focus = _focus(weighted, document)
    if not focus:
        return []
    lead = sections[0].section if sections[0].section.id == "" else None
    if lead is not None and _names_only_the_page(weighted, document):
        return [(lead.id, _title(lead, document))]
    # Comments are read with their post: the post is what a hint names.
    scores = [
        0.0 if sections[i].section.role == "comments" else value
        for i, value in enumerate(_scores(query, focus, indexed))
    ]
    best = max(scores, default=0.0)
    if best <= 0:
        return []
    # The best section is hinted even when it matches weakly: fetching it (with the
    # document's table of sections) costs the agent far less than the whole page.
    floor = min(best, max(HINT_MIN, HINT_RELATIVE * best))
    ranked = sorted(
        (i for i, value in enumerate(scores) if value >= floor), key=lambda i: (-scores[i], i)
    )
    chosen: list[int] = []
    for i in ranked:
        # Fetching a section returns its subsections: never hint both.
        if any(_within(sections, i, j) or _within(sections, j, i) for j in chosen):
            continue
        chosen.append(i)
        if len(chosen) == limit:
            break
    return [(sections[i].section.id, _title(sections[i].section, document)) for i in chosen]


def _within(sections: Sequence[SectionTerms], index: int, ancestor: int) -> bool:
    return ancestor < index <= sections[ancestor].last


def _focus(words: Sequence[Word], document: Document) -> list[Word]:
    """The words that can tell sections apart: those the document title does not name
    (in "Ray Charles", "ray" matches everywhere and so nowhere) or, when the query only
    names the document, all of them."""
    title_stems = stem_set(document.title)
    focus = [w for w in words if w.weight > 0 and not term_in(w.text, title_stems)]
    return focus or [w for w in words if w.weight > 0]


def _title(section: Section, document: Document) -> str:
    """A hint's title: the lead has none of its own in some families; it is the page's."""
    return section.title or (document.title if section.id == "" else "")


def _names_only_the_page(words: Sequence[Word], document: Document) -> bool:
    """Whether every weighed word of the query is in the document's title or its page
    heading (DevDocs titles "Sequence Functions" the page headed "Sequence Manipulation
    Functions")."""
    title_stems = stem_set(document.title) | stem_set(document.metadata.get("heading", ""))
    return all(term_in(w.text, title_stems) for w in words if w.weight > 0)


def _scores(query: str, words: Sequence[Word], indexed: DocumentTerms) -> list[float]:
    sections = indexed.sections
    lengths = [s.length for s in sections]
    average = (sum(lengths) / len(lengths)) or 1.0
    per_word = [indexed.uses(w.text) for w in words]
    counts = [[used.get(i, 0) for used in per_word] for i in range(len(sections))]
    in_title = [[term_in(w.text, s.title_stems) for w in words] for s in sections]
    # A word counts by its corpus weight times how few of the sections use it.
    spread = [
        sum(1 for i in range(len(sections)) if counts[i][j] or in_title[i][j])
        for j in range(len(words))
    ]
    weights = [
        w.weight * math.log(1 + len(sections) / spread[j]) if spread[j] else 0.0
        for j, w in enumerate(words)
    ]
    total = sum(weights)
    if total <= 0:  # no section uses any of the words
        return [0.0 for _ in sections]
    query_key = title_key(query)
    terms = query_terms(query)
    scores: list[float] = []
    for i, section in enumerate(sections):
        title_part = sum(weights[j] for j in range(len(words)) if in_title[i][j]) / total
        norm = 1 - _B + _B * lengths[i] / average
        text_part = (
            sum(weights[j] * c / (c + _SATURATION * norm) for j, c in enumerate(counts[i]) if c)
            / total
        )
        title = section.section.title
        exact = 0.0
        if (
            section.title_stems
            and title_part > 0
            and (title_key(title) == query_key or run_in(query_terms(title), terms))
        ):
            exact = EXACT_BONUS
        value = TITLE_SHARE * title_part + (1 - TITLE_SHARE) * text_part + exact
        scores.append(value * LEAD_FACTOR if section.section.id == "" else value)
    return scores


def result_hints(
    query: str,
    document: Document,
    landing: str | None = None,
    words: Sequence[Word] | None = None,
    limit: int = 3,
    *,
    landing_answers: bool = False,
    terms: DocumentTerms | None = None,
) -> list[tuple[str, str]]:
    """The hints a search result shows: :func:`section_hints`, adjusted for how the
    document was found and what kind it is.

    - ``landing`` (a fragment redirect's section, an answer's ``a/<id>``, an API symbol's
      anchor) comes first. An anchor inside the lead is hinted by its own id, which
      ``fetch`` accepts. With ``landing_answers`` (the query is that redirect's title or
      that symbol) the landing is the whole answer and the only hint.
    - In a thread the answer is what a question-shaped query wants: the accepted answer
      (else the best-scored, first listed answer) comes first, after a landing.
    """
    landed = _landing(document, landing)
    if landed is not None and landing_answers:
        return _with_homes(document, [landed[0]])[:limit]
    hints = section_hints(query, document, words, limit, terms)
    if landed is not None:
        pick, owner = landed
        # Fetching the landing returns its whole section: no second hint for it.
        hints = [pick, *(h for h in hints if h[0] not in (pick[0], owner))]
    hints = _with_homes(document, hints)
    if document.kind == "thread":
        answer = thread_answer(document)
        if answer is not None:
            pick = (answer.id, answer.title)
            rest = [h for h in hints if h != pick]
            first = [h for h in rest[:1] if landed is not None and h == landed[0]]
            hints = [*first, pick, *(h for h in rest if h not in first)]
    return hints[:limit]


def _with_homes(document: Document, hints: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each API entry hinted is followed by the section it is an entry of (its heading),
    once: fetching both returns the heading's own text and that entry, so the agent
    reads the entry in its context (which class, which group of settings) and not the
    heading's other entries."""
    homes = _entry_homes(document)
    out: list[tuple[str, str]] = []
    for hint in hints:
        if hint not in out:
            out.append(hint)
        home = homes.get(hint[0])
        if home is not None and home not in out and all(h[0] != home[0] for h in hints):
            out.append(home)
    return out


def _entry_homes(document: Document) -> dict[str, tuple[str, str]]:
    """Entry id -> (id, title) of the nearest enclosing section that is not an entry."""
    homes: dict[str, tuple[str, str]] = {}

    def visit(sections: list[Section], home: tuple[str, str] | None) -> None:
        for section in sections:
            if section.role == "entry" and home is not None:
                homes[section.id] = home
                visit(section.children, home)
            else:
                visit(section.children, (section.id, _title(section, document)))

    visit(document.sections, None)
    return homes


def _landing(document: Document, landing: str | None) -> tuple[tuple[str, str], str] | None:
    """The hint for a landing anchor and the id of the section it lies in."""
    if not landing:
        return None
    section = _section_with_anchor(document, landing)
    if section is None or section.reference:
        return None
    pick = (landing, landing) if section.id == "" else (section.id, section.title)
    return pick, section.id


def _section_with_anchor(document: Document, anchor: str) -> Section | None:
    """The section whose id is ``anchor``, else the first one that lists it as an anchor."""
    sections = list(walk(document.sections))
    by_id = next((s for s in sections if s.id == anchor), None)
    return by_id or next((s for s in sections if anchor in s.anchors), None)
