"""From every library's hits to one list of candidates, scored on evidence (pure).

A library reports up to three lists: full-text hits (with their word frequencies when
its index is read directly), title-index hits and API-symbol matches. The same
document found by several lists becomes one candidate that keeps what each list knew:
the frequencies, every title it was found by, a symbol's strength, the section a stub
or symbol landed on. The query's words are weighted by their rarity over the whole
corpus (:func:`corpus_mcp.ranking.evidence.word_weights`) and every candidate is scored
the same way (:func:`corpus_mcp.ranking.evidence.score`); reciprocal rank fusion of the
lists only breaks ties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from corpus_mcp import ranking
from corpus_mcp.gather import Hit, LibraryHits
from corpus_mcp.ranking.evidence import Evidence, LibraryStats, Scored, Word, score, word_weights
from corpus_mcp.ranking.scope import Scope, names_scope

Key = tuple[str, str]
"""(library, normalised path)."""


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A document of one library with its evidence, its score and its fused rank."""

    library: str
    path: str
    hit: Hit
    """What the result needs later: the entry title, the section to land on."""
    evidence: Evidence
    scored: Scored
    prior: float
    """Reciprocal-rank fusion of the lists that found it (breaks ties)."""

    @property
    def key(self) -> Key:
        return (self.library, self.path)


def weigh_words(query: str, hits: Mapping[str, LibraryHits]) -> list[Word]:
    """The query's words, weighted by their rarity in every library that has statistics."""
    stats = [
        LibraryStats(h.doc_count, h.average_length, h.frequencies)
        for h in hits.values()
        if h.doc_count and len(h.frequencies) == len(ranking.query_words(query))
    ]
    return word_weights(ranking.query_words(query), stats)


def federate(
    query: str,
    hits: Mapping[str, LibraryHits],
    words: Sequence[Word],
    scopes: Mapping[str, Scope] | None = None,
) -> list[Candidate]:
    """Every library's candidates, best first. ``scopes`` are the words that name each
    library's subject (:mod:`corpus_mcp.ranking.scope`): a query naming one prefers that
    library, and another library's name is no evidence in a library's own text."""
    scopes = scopes or {}
    candidates: list[Candidate] = []
    for name in sorted(hits):
        found = hits[name]
        scoped = _scoped(query, name, scopes)
        priors = ranking.rrf([[h.path for h in group] for group in _lists(found)])
        for path, merged in _merge(found).items():
            evidence = msgspec.structs.replace(
                scoped,
                titles=tuple(merged.titles),
                frequencies=merged.frequencies,
                engine=merged.engine,
                length=merged.hit.length,
                average_length=found.average_length,
                symbol=merged.symbol,
                symbol_text=merged.named_by,
            )
            candidates.append(
                Candidate(
                    library=name,
                    path=path,
                    hit=merged.hit,
                    evidence=evidence,
                    scored=score(query, words, evidence),
                    prior=priors.get(path, 0.0),
                )
            )
    return order(candidates)


def linked(
    query: str,
    words: Sequence[Word],
    scopes: Mapping[str, Scope],
    *,
    library: str,
    hit: Hit,
    inbound: Sequence[str],
) -> Candidate:
    """A document no engine of its library proposed, which question threads of other
    libraries link to: its titles and theirs are all that is known of it until it is
    read (:mod:`corpus_mcp.inbound`)."""
    evidence = msgspec.structs.replace(
        _scoped(query, library, scopes), titles=(hit.title,), inbound=tuple(inbound)
    )
    return Candidate(
        library=library,
        path=hit.path,
        hit=hit,
        evidence=evidence,
        scored=score(query, words, evidence),
        prior=0.0,
    )


def _scoped(query: str, name: str, scopes: Mapping[str, Scope]) -> Evidence:
    """What the query says of library ``name``'s scope, as evidence of any of its pages:
    whether it names the library's subject, the words that do, and those naming others."""
    scope = scopes.get(name, Scope())
    elsewhere = frozenset().union(
        *(other.words for other_name, other in scopes.items() if other_name != name)
    )
    return Evidence(
        titles=(),
        scope=names_scope(query, scope) if name in scopes else False,
        scope_stems=scope.words,
        foreign_stems=elsewhere - scope.words,
    )


def rescore(
    query: str, words: Sequence[Word], candidate: Candidate, evidence: Evidence
) -> Candidate:
    """The candidate with new evidence (once its document has been read) and its score."""
    return msgspec.structs.replace(
        candidate, evidence=evidence, scored=score(query, words, evidence)
    )


#: A candidate scoring less than this share of the best one is no result: filler an agent
#: would read for nothing (see :func:`competitive`).
COMPETITIVE_SHARE = 0.7


def competitive(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates whose evidence is within reach of the best one's, in order.

    Within reach means :data:`COMPETITIVE_SHARE` of the best score, or of the best
    *textual* evidence (what a document's body, headings and passages say): a page the
    query names exactly (a title or redirect) scores far above every other, yet a page
    whose text answers as well as that page's is no filler. The diversity pass then
    reorders among these only: a library's next candidate goes up because it is nearly
    as good, never because it is another library's. Fewer results than the limit is
    then the right answer. A page that the answer of a result thread asking the question
    cites (:mod:`corpus_mcp.inbound`) is within reach too: the answer vouches for it, and
    it scores below that thread.
    """
    if not candidates:
        return []
    best_total = max(c.scored.total for c in candidates)
    best_text = max(_textual(c) for c in candidates)
    return [
        c
        for c in candidates
        if c.scored.total >= COMPETITIVE_SHARE * best_total
        or _textual(c) >= COMPETITIVE_SHARE * best_text
        or c.scored.inbound > 0
    ]


def _textual(candidate: Candidate) -> float:
    scored = candidate.scored
    return scored.body + scored.heading + scored.passage


def order(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Best score first; ties by fused rank, then library and path (never a preference
    for one library: the name only makes the order total)."""
    return sorted(candidates, key=lambda c: (-c.scored.total, -c.prior, c.path, c.library))


def _lists(found: LibraryHits) -> list[list[Hit]]:
    return [
        group for group in (found.fulltext, found.title, found.symbols, found.sections) if group
    ]


class _Merged(msgspec.Struct, kw_only=True):
    hit: Hit
    titles: list[str]
    frequencies: tuple[int, ...] | None = None
    engine: float | None = None
    """The section index's share (of a document its sections found)."""
    symbol: float = 0.0
    named_by: str = ""


def _merge(found: LibraryHits) -> dict[str, _Merged]:
    """path -> what every list knew of the document: the first hit (with the first
    known landing section), the titles it was found by (a redirect's title counts; a
    symbol's name does not, it is symbol evidence), its word frequencies, the strongest
    symbol match."""
    merged: dict[str, _Merged] = {}
    for group in _lists(found):
        for hit in group:
            titles = [hit.title] if hit.named_by else [t for t in (hit.title, hit.alias) if t]
            entry = merged.get(hit.path)
            if entry is None:
                entry = merged[hit.path] = _Merged(hit=hit, titles=[])
            elif entry.hit.section is None and hit.section is not None:
                # A later list (a stub, a symbol) knows where in the document to land.
                entry.hit = msgspec.structs.replace(entry.hit, section=hit.section)
            entry.titles += [t for t in titles if t not in entry.titles]
            if entry.frequencies is None:
                entry.frequencies = hit.frequencies
            if group is found.sections:
                entry.engine = hit.weight
            if hit.strength > entry.symbol:
                entry.symbol, entry.named_by = hit.strength, hit.named_by or ""
    return merged
