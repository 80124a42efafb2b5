"""What a hit shows the agent: a snippet around the query's words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import msgspec

from corpus_mcp.document import Document, Section, content_sections
from corpus_mcp.ranking.passages import LIST, PROSE, TABLE, Passage, passages
from corpus_mcp.ranking.text import (
    stem_set,
    stems_of,
    term_in,
    token_spans,
    topic_terms,
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


def snippet(query: str, document: Document, max_chars: int = 300, within: str | None = None) -> str:
    """A plain-text excerpt of ``document`` of at most ``max_chars`` characters around
    the query's terms.

    ``within`` (a section id, usually the best hint) is searched first: the snippet then
    shows the agent what the hinted section says. When no passage there names a query
    term, the whole document is searched.

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

    sections = content_sections(document.sections)
    query_math = keep_math if any("$" in s.content for s in sections) else None

    scored: list[_Scored] = []
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

    def preference(s: _Scored) -> tuple[int, bool, float, int]:
        return (_terms_found(s.passage, focus), s.passage.kind != TABLE, s.score, -s.order)

    matching = [s for s in scored if s.score > 0]
    preferred = [s for s in matching if within is not None and s.section.id == within]
    best = max(preferred or matching, key=preference, default=None)
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
