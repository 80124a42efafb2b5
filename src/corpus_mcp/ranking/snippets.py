"""What a hit shows the agent: a snippet around the query's words and the sections
that clearly match it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import msgspec

from corpus_mcp.document import Document, Section, walk
from corpus_mcp.ranking.passages import LIST, PROSE, TABLE, Passage, passages
from corpus_mcp.ranking.text import (
    STOP_WORDS,
    stem_set,
    stems_of,
    term_in,
    title_key,
    token_spans,
    topic_terms,
)

#: Section titles that hold citations and link lists: never offered as hints.
REFERENCE_TITLES = frozenset(
    {
        "references",
        "notes",
        "citations",
        "sources",
        "bibliography",
        "external links",
        "further reading",
        "see also",
        "footnotes",
        "notes and references",
        "references and notes",
        "works cited",
        "explanatory notes",
        "general references",
        "cited sources",
    }
)

ELLIPSIS = "…"

#: How much a block kind's passage score counts (see :func:`_passage_score`).
_KIND_WEIGHT = {PROSE: 1.0, LIST: 0.8, TABLE: 0.5}


# -- snippets ---------------------------------------------------------------------------


class _Scored(msgspec.Struct, frozen=True):
    score: float
    order: int
    section: Section
    passage: Passage


def _content_sections(document: Document) -> list[Section]:
    """Sections in document order, reference sections (and their subsections) left out."""
    out: list[Section] = []

    def visit(sections: Sequence[Section]) -> None:
        for section in sections:
            if section.reference or title_key(section.title) in REFERENCE_TITLES:
                continue
            out.append(section)
            visit(section.children)

    visit(document.sections)
    return out


def _hits(text: str, stems: AbstractSet[str]) -> list[tuple[int, int]]:
    """(start, end) of each word of ``text`` that matches one of the query stems."""
    return [(start, end) for start, end, word in token_spans(text) if word & stems]


def _terms_found(passage: Passage, terms: Sequence[str]) -> int:
    stems = stem_set(passage.text)
    return sum(term_in(term, stems) for term in terms)


def _passage_score(passage: Passage, section: Section, terms: Sequence[str]) -> float:
    """``(3 * distinct query terms found + 0.25 * occurrences, at most 6)``, weighted by
    the block kind (prose 1, list 0.8, table 0.5: infobox rows lose to prose saying the
    same), plus 0.5 per query term in the section title and 0.25 for the lead. 0 when no
    term occurs. Distinct terms dominate: a passage naming every term beats one
    repeating a single term."""
    text_stems = stem_set(passage.text)
    distinct = sum(term_in(term, text_stems) for term in terms)
    if not distinct:
        return 0.0
    occurrences = len(_hits(passage.text, {s for term in terms for s in stems_of(term)}))
    title_stems = stem_set(section.title)
    title_bias = 0.5 * sum(term_in(term, title_stems) for term in terms)
    lead_bias = 0.25 if section.id == "" else 0.0
    base = 3.0 * distinct + 0.25 * min(occurrences, 6)
    return base * _KIND_WEIGHT[passage.kind] + title_bias + lead_bias


def snippet(query: str, document: Document, max_chars: int = 300) -> str:
    """A plain-text excerpt of ``document`` of at most ``max_chars`` characters around
    the query's terms.

    The passage naming the most query terms (those the title does not already name,
    when there are any) is chosen; at equal terms prose and lists beat tables, then the
    best :func:`_passage_score` wins (ties: document order);
    short passages are topped up with the following prose of the same section; long
    ones are cut to the window holding the most query words, at word boundaries, with
    ``…`` where text was cut. Without any matching passage, the lead's first prose (or
    the document's first prose) is used from its start.
    """
    terms = topic_terms(query)
    stems = {stem for term in terms for stem in stems_of(term)}

    def keep_math(tex: str) -> bool:
        return bool(stem_set(tex) & stems)

    query_math = keep_math if any("$" in s.content for s in _content_sections(document)) else None

    scored: list[_Scored] = []
    sections = _content_sections(document)
    for section in sections:
        for passage in passages(section.content, query_math):
            score = _passage_score(passage, section, terms) if terms else 0.0
            scored.append(_Scored(score, len(scored), section, passage))
    # Naming more of the query's terms wins; at equal terms, prose and lists win over
    # tables (infoboxes above all read as label/value debris), then the score decides.
    # Terms the title already names match everywhere in the document, so the others
    # decide (as for section hints), when there are any.
    title_stems = stem_set(document.title)
    focus = [term for term in terms if not term_in(term, title_stems)] or terms
    best = max(
        (s for s in scored if s.score > 0),
        key=lambda s: (
            _terms_found(s.passage, focus),
            s.passage.kind != TABLE,
            s.score,
            -s.order,
        ),
        default=None,
    )
    if best is None:
        return _fallback_snippet(scored, max_chars)
    text = _with_following_prose(best, scored, max_chars)
    focus_stems = {stem for term in focus for stem in stems_of(term)}
    return _window(text, _hits(text, focus_stems), max_chars)


def _fallback_snippet(scored: Sequence[_Scored], max_chars: int) -> str:
    prose = [s for s in scored if s.passage.kind == PROSE]
    lead = [s for s in prose if s.section.id == ""]
    chosen = (lead or prose or list(scored))[:1]
    if not chosen:
        return ""
    return _window(_with_following_prose(chosen[0], scored, max_chars), [], max_chars)


def _with_following_prose(best: _Scored, scored: Sequence[_Scored], max_chars: int) -> str:
    """The passage, extended by the next prose passages of its section while shorter
    than two thirds of ``max_chars``."""
    text = best.passage.text
    for following in scored[best.order + 1 :]:
        if len(text) >= max_chars * 2 // 3 or following.section is not best.section:
            break
        if following.passage.kind == PROSE:
            text = f"{text} {following.passage.text}"
    return text


def _window(text: str, hits: Sequence[tuple[int, int]], max_chars: int) -> str:
    """At most ``max_chars`` of ``text`` covering the densest run of ``hits`` (or its
    start), cut at whole words, with ``…`` marking each cut."""
    if len(text) <= max_chars:
        return text
    budget = max(1, max_chars - 2 * len(ELLIPSIS))
    start = 0
    if hits:
        start = _window_start(text, _densest_start(hits, int(budget * 0.6)), budget)
    start = _word_start(text, min(start, len(text) - budget))
    end = _word_end(text, start, min(len(text), start + budget))
    body = text[start:end].strip().rstrip(",;:")
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    return f"{prefix}{body}{suffix}"


def _densest_start(hits: Sequence[tuple[int, int]], span: int) -> int:
    """Offset of the hit that opens the run with the most hits within ``span`` chars."""
    best_start, best_count = hits[0][0], 0
    for index, (start, _) in enumerate(hits):
        count = sum(1 for other, _ in hits[index:] if other - start <= span)
        if count > best_count:
            best_start, best_count = start, count
    return best_start


def _window_start(text: str, anchor: int, budget: int) -> int:
    """Where a window showing the hit at ``anchor`` begins: the text start when the hit
    is within half the budget from it, else the start of the hit's sentence when that is
    that close, else a quarter budget before the hit."""
    earliest = anchor - budget // 2
    if earliest <= 0:
        return 0
    boundaries = re.finditer(r"[.!?]\s+(?=[A-Z0-9\"'“(])", text[earliest:anchor])
    sentence = max((match.end() for match in boundaries), default=None)
    if sentence is not None:
        return earliest + sentence
    return anchor - budget // 4


def _word_start(text: str, index: int) -> int:
    """``index`` moved forward to the start of a word, unless the word is so long
    (over 40 chars) that cutting it is better than losing it."""
    if index <= 0 or text[index - 1].isspace():
        return max(index, 0)
    space = text.find(" ", index, index + 40)
    return index if space < 0 else space + 1


def _word_end(text: str, start: int, index: int) -> int:
    """``index`` moved back to the end of a word, never before ``start``."""
    if index >= len(text) or text[index].isspace():
        return index
    space = text.rfind(" ", start, index)
    return index if space <= start else space


# -- section hints ----------------------------------------------------------------------

#: A section is hinted only when its hint score (see :func:`_hint_score`) reaches this.
HINT_THRESHOLD = 0.5


def section_hints(query: str, document: Document, limit: int = 3) -> list[tuple[str, str]]:
    """``(id, title)`` of at most ``limit`` sections that clearly match the query, best
    first (ties in document order).

    Only terms the document title does not already cover can single out a section (in
    "Ray Charles", "ray charles" matches everywhere and so nowhere). The lead, sections
    marked ``reference`` or titled like References/Notes/See also, and their
    subsections, are never hinted.
    """
    title_stems = stem_set(document.title)
    terms = [
        term
        for term in topic_terms(query)
        if term not in STOP_WORDS and not term_in(term, title_stems)
    ]
    if not terms or limit <= 0:
        return []
    scored: list[tuple[float, int, Section]] = []
    for order, section in enumerate(_content_sections(document)):
        if section.id == "":
            continue
        score = _hint_score(terms, section)
        if score >= HINT_THRESHOLD:
            scored.append((-score, order, section))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [(section.id, section.title) for _, _, section in scored[:limit]]


def _hint_score(terms: Sequence[str], section: Section) -> float:
    """Mean over the terms of: 1 when the section title has it, else 0.5 when the
    section's own text uses it and 0.75 when it does so at least twice. A title naming
    half the terms, or a text using every term, reaches :data:`HINT_THRESHOLD`."""
    title_stems = stem_set(section.title)
    text = " ".join(p.text for p in passages(section.content))
    total = 0.0
    for term in terms:
        if term_in(term, title_stems):
            total += 1.0
        else:
            occurrences = len(_hits(text, stems_of(term)))
            total += 0.0 if occurrences == 0 else 0.5 if occurrences == 1 else 0.75
    return total / len(terms)


def result_hints(
    query: str, document: Document, landing: str | None = None, limit: int = 3
) -> list[tuple[str, str]]:
    """The hints a search result shows: :func:`section_hints`, adjusted for how the
    document was found and what kind it is.

    - ``landing`` (a fragment redirect's section, an answer's ``a/<id>``, an API symbol's
      anchor) comes first. An anchor inside the lead is hinted by its own id, which
      ``fetch`` accepts, since the lead itself is never a hint.
    - In a thread the answer is what a question-shaped query wants: the accepted answer
      (else the best-scored, first listed answer) comes first unless an answer is
      already hinted.
    """
    hints = section_hints(query, document, limit)
    if landing:
        section = _section_with_anchor(document, landing)
        if section is not None and not section.reference:
            pick = (landing, landing) if section.id == "" else (section.id, section.title)
            hints = [pick, *(h for h in hints if h[0] != pick[0])]
    if document.kind == "thread" and not any(
        h[0].startswith(("answer", "accepted")) for h in hints
    ):
        answer = next(
            (s for s in walk(document.sections) if s.id == "accepted-answer"),
            next((s for s in walk(document.sections) if s.id.startswith("answer-")), None),
        )
        if answer is not None:
            hints = [(answer.id, answer.title), *hints]
    return hints[:limit]


def _section_with_anchor(document: Document, anchor: str) -> Section | None:
    """The section whose id is ``anchor``, else the first one that lists it as an anchor."""
    sections = list(walk(document.sections))
    by_id = next((s for s in sections if s.id == anchor), None)
    return by_id or next((s for s in sections if anchor in s.anchors), None)
