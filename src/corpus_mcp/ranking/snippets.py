"""What a hit shows the agent: a snippet around the query's words."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.passages import LIST, PROSE, TABLE, passages
from corpus_mcp.ranking.terms import DocumentTerms, index_document
from corpus_mcp.ranking.text import (
    APOSTROPHES,
    TOKEN,
    stem_set,
    stems_of,
    term_in,
    term_stems,
    token_spans,
    topic_terms,
)

ELLIPSIS = "…"

#: How much a block kind's passage score counts (see :func:`_passage_score`).
_KIND_WEIGHT = {PROSE: 1.0, LIST: 0.8, TABLE: 0.5}


# -- snippets ---------------------------------------------------------------------------


def snippet(
    query: str,
    document: Document,
    max_chars: int = 300,
    within: str | None = None,
    terms: DocumentTerms | None = None,
) -> str:
    """A plain-text excerpt of ``document`` of at most ``max_chars`` characters around
    the query's terms (``terms``: the document's index, when search already has it).

    ``within`` (a section id, usually the best hint) is searched first: the snippet then
    shows the agent what the hinted section says. When no passage there names a query
    term, the whole document is searched.

    The passage naming the most query terms (those the title does not already name,
    when there are any) is chosen; at equal terms prose and lists beat tables, then the
    best :func:`_passage_score` wins (ties: document order); short passages are topped
    up with the following prose of the same section; long ones are cut to the window
    holding the most query words, at word boundaries, with ``…`` where text was cut.
    Without any matching passage, the lead's first prose (or the document's first
    prose) is used from its start.
    """
    indexed = terms if terms is not None else index_document(document)
    wanted = topic_terms(query)
    title_stems = stem_set(document.title)
    # Terms the title already names match everywhere in the document, so the others
    # decide (as for section hints), when there are any.
    focus = [term for term in wanted if not term_in(term, title_stems)] or wanted
    holding = {term: indexed.passages_with(term) for term in wanted}
    matching = sorted(frozenset[int]().union(*holding.values()))
    preferred = [i for i in matching if within is not None and _section(indexed, i).id == within]

    # Naming more of the query's terms wins; at equal terms, prose and lists win over
    # tables (infoboxes above all read as label/value debris), then the score decides
    # (computed only for the passages still in the running: it reads their words).
    def rank(index: int) -> tuple[int, bool]:
        focused = sum(index in holding[term] for term in focus)
        return (focused, indexed.passages[index].kind != TABLE)

    if not preferred and within is not None:
        named = _named_section(indexed, within, focus)
        if named is not None:
            # The hinted section is what the query names (an API entry titled by the
            # symbol asked for) but its text need not repeat the name: it is the snippet.
            return _window(_with_following_prose(indexed, named, max_chars, None), [], max_chars)
    pool = preferred or matching
    if not pool:
        return _fallback_snippet(indexed, max_chars)
    ranks = {index: rank(index) for index in pool}
    top = max(ranks.values())
    best = max(
        (i for i in pool if ranks[i] == top),
        key=lambda i: (_passage_score(indexed, i, wanted, holding), -i),
    )
    text = _with_following_prose(indexed, best, max_chars, _math_of(wanted))
    focus_stems = {root for term in focus for root in stems_of(term)}
    return _window(text, _hits(text, focus_stems), max_chars)


def _passage_score(
    indexed: DocumentTerms, index: int, wanted: Sequence[str], holding: dict[str, frozenset[int]]
) -> float:
    """``(3 * distinct query terms found + 0.25 * occurrences, at most 6)``, weighted by
    the block kind (prose 1, list 0.8, table 0.5: infobox rows lose to prose saying the
    same), plus 0.5 per query term in the section title and 0.25 for the lead.
    Distinct terms dominate: a passage naming every term beats one repeating a single
    term."""
    passage = indexed.passages[index]
    distinct = sum(index in holding[term] for term in wanted)
    occurrences = _occurrences(passage.text, {s for term in wanted for s in stems_of(term)})
    section = _section(indexed, index)
    title_stems = stem_set(section.title)
    title_bias = 0.5 * sum(term_in(term, title_stems) for term in wanted)
    lead_bias = 0.25 if section.id == "" else 0.0
    base = 3.0 * distinct + 0.25 * occurrences
    return base * _KIND_WEIGHT[passage.kind] + title_bias + lead_bias


def _section(indexed: DocumentTerms, index: int) -> Section:
    return indexed.sections[indexed.owners[index]].section


def _occurrences(text: str, stems: AbstractSet[str], most: int = 6) -> int:
    """How many words of ``text`` match the query stems, counted up to ``most`` (all a
    passage score uses): the words are read only until then."""
    found = 0
    for match in TOKEN.finditer(text.translate(APOSTROPHES)):
        if not stems.isdisjoint(stems_of(match.group().lower())):
            found += 1
            if found == most:
                break
    return found


def _hits(text: str, stems: AbstractSet[str]) -> list[tuple[int, int]]:
    """(start, end) of each word of ``text`` that matches one of the query stems."""
    return [(start, end) for start, end, word in token_spans(text) if not stems.isdisjoint(word)]


def _math_of(wanted: Sequence[str]) -> Callable[[str], bool]:
    """Inline TeX worth keeping in a snippet: formulas that name a query term."""
    stems = {root for term in wanted for root in stems_of(term)}
    return lambda tex: bool(stem_set(tex) & stems)


def _named_section(indexed: DocumentTerms, section_id: str, focus: Sequence[str]) -> int | None:
    """The first passage of the section ``section_id`` when its title holds a query term."""
    for section in indexed.sections:
        if section.section.id != section_id:
            continue
        if section.end > section.first and any(
            term_in(term, section.title_stems) or _trailing_part_in(term, section.title_stems)
            for term in focus
        ):
            return section.first
        return None
    return None


def _trailing_part_in(term: str, stems: AbstractSet[str]) -> bool:
    """Whether a dotted name's last part is in ``stems`` (``Flask.route`` titles the
    ``route(rule, **options)`` entry)."""
    _, parts = term_stems(term)
    return bool(parts) and parts[-1] in stems


def _fallback_snippet(indexed: DocumentTerms, max_chars: int) -> str:
    order = range(len(indexed.passages))
    prose = [i for i in order if indexed.passages[i].kind == PROSE]
    lead = [i for i in prose if _section(indexed, i).id == ""]
    chosen = (lead or prose or list(order))[:1]
    if not chosen:
        return ""
    return _window(_with_following_prose(indexed, chosen[0], max_chars, None), [], max_chars)


def _with_following_prose(
    indexed: DocumentTerms, index: int, max_chars: int, keep_math: Callable[[str], bool] | None
) -> str:
    """The passage, extended by the next prose passages of its section while shorter
    than two thirds of ``max_chars``; inline math the query names is kept (the index
    holds the passages without formulas)."""
    owner = indexed.owners[index]
    shown = list(indexed.passages)
    section = indexed.sections[owner]
    if keep_math is not None and "$" in section.section.content and not indexed.tex:
        with_math = passages(section.section.content, keep_math)
        if len(with_math) == section.end - section.first:  # block for block
            shown[section.first : section.end] = with_math
    text = shown[index].text
    for following in range(index + 1, section.end):
        if len(text) >= max_chars * 2 // 3:
            break
        if shown[following].kind == PROSE:
            text = f"{text} {shown[following].text}"
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
