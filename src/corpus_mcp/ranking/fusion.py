"""Federated ranking: reciprocal rank fusion, a lexical title rerank of near-ties,
and library diversity.

Ranks from different archives are not comparable, so :func:`fuse` merges every
(library, list) ranking by rank alone and then lets title coverage
(:func:`title_coverage`) order near-ties across libraries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

import msgspec

from corpus_mcp.ranking.text import (
    informative_terms,
    stem,
    stem_set,
    term_in,
    title_key,
    topic_terms,
)

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

#: The usual reciprocal-rank-fusion constant: damps the gap between the first ranks.
RRF_K = 60

#: Fused scores within this fraction of a tie group's leader count as tied (see :func:`fuse`).
#: With ``k = 60`` a 5% band spans about the first three ranks of one list.
TIE_RATIO = 0.05


# -- titles -----------------------------------------------------------------------------

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")


def is_exact_title(query: str, title: str) -> bool:
    """Whether ``title`` is the query itself, up to case, accents and punctuation."""
    key = title_key(query)
    return bool(key) and key == title_key(title)


def _is_near_exact_title(query: str, title: str) -> bool:
    """Exact once a trailing disambiguator is dropped ("Python (programming language)"),
    or the same set of topic terms in another order or form ("Class (Python)")."""
    key = title_key(query)
    if key and key == title_key(_DISAMBIGUATION.sub("", title)):
        return True
    query_stems = {stem(term) for term in topic_terms(query)}
    title_stems = {stem(term) for term in topic_terms(title)}
    return bool(query_stems) and query_stems == title_stems


def title_coverage(query: str, title: str) -> float:
    """How well ``title`` names what the query asks for, in [0, 1].

    ``0.6 * recall + 0.3 * precision + 0.1 * exactness`` where recall is the share of the
    query's topic terms (:func:`topic_terms`) found in the title, precision the share of the title's
    informative terms (a trailing "(...)" disambiguator left out) found in the query,
    and exactness 1 for an exact title (:func:`is_exact_title`), 0.5 for a near-exact
    one (:func:`_is_near_exact_title`), else 0. So "python" scores 1.0 against "Python",
    0.95 against "Python (programming language)", 0.75 against "Monty Python".
    """
    wanted = topic_terms(query)
    if not wanted:
        return 0.0
    title_stems = stem_set(title)
    recall = sum(term_in(term, title_stems) for term in wanted) / len(wanted)
    if recall == 0:
        return 0.0
    head = informative_terms(_DISAMBIGUATION.sub("", title)) or informative_terms(title)
    query_stems = stem_set(query)
    precision = sum(term_in(term, query_stems) for term in head) / len(head) if head else 0.0
    if is_exact_title(query, title):
        exactness = 1.0
    elif _is_near_exact_title(query, title):
        exactness = 0.5
    else:
        exactness = 0.0
    return round(0.6 * recall + 0.3 * precision + 0.1 * exactness, 6)


# -- fusion -----------------------------------------------------------------------------


def rrf(
    ranked_lists: Sequence[Sequence[K]],
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> dict[K, float]:
    """Reciprocal rank fusion: each item scores ``sum(weight / (k + rank))`` over the
    lists it appears in (rank 1-based, only its first appearance in a list counts).

    Items come out in order of first appearance (lists in the given order).
    """
    if k < 0:
        raise ValueError("k must be non-negative")
    if weights is not None and len(weights) != len(ranked_lists):
        raise ValueError("one weight per ranked list")
    scores: dict[K, float] = {}
    for index, ranked in enumerate(ranked_lists):
        weight = 1.0 if weights is None else weights[index]
        seen: set[K] = set()
        for rank, item in enumerate(ranked, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A search hit of one library's list, identified by ``(library, path)``.

    The caller fills ``library``, ``path``, ``title`` and, when it knows better than a
    title comparison, ``exact_title``; ``fragment`` is a section a redirect stub landed
    on. :func:`fuse` returns copies with ``score``, ``coverage``, ``exact_title`` and
    ``ranks`` (list name -> 1-based rank) filled.
    """

    library: str
    path: str
    title: str
    fragment: str | None = None
    exact_title: bool = False
    score: float = 0.0
    coverage: float = 0.0
    ranks: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.library, self.path)


def fuse(
    query: str,
    lists: Mapping[tuple[str, str], Sequence[Candidate]],
    *,
    weights: Mapping[tuple[str, str], float] | None = None,
    tie_ratio: float = TIE_RATIO,
    k: int = RRF_K,
) -> list[Candidate]:
    """One ranking over every ``(library, list_name) -> candidates`` list.

    1. RRF over all lists, each weighted by ``weights[key]`` (default 1: a list found
       by a heavily relaxed query says less than one found by the whole query); a
       candidate seen in several lists of its library adds up. An
       exact title (:func:`is_exact_title` or the caller's flag) counts as heading one
       more list, so an exact title that only the title index found (``2/(k+1)``) ties
       with another library's best full-text-and-title hit instead of losing to it.
    2. Base order: score, then title coverage (descending), library, path.
    3. Tie groups: from the best remaining candidate, every following one whose score is
       within ``tie_ratio`` of it (``score >= leader * (1 - tie_ratio)``). Inside a group
       exact titles come first, then libraries are interleaved by title coverage while
       each library keeps its own order (only cross-library order is lexical).

    The mapping's order does not matter: lists are read in sorted key order.
    """
    merged = _merge_candidates(query, lists, k, weights or {})
    ordered = sorted(merged, key=_base_order)
    out: list[Candidate] = []
    start = 0
    while start < len(ordered):
        floor = ordered[start].score * (1 - tie_ratio)
        end = start + 1
        while end < len(ordered) and ordered[end].score >= floor:
            end += 1
        out.extend(_rerank_group(ordered[start:end]))
        start = end
    return out


def _base_order(candidate: Candidate) -> tuple[float, float, str, str]:
    return (-candidate.score, -candidate.coverage, candidate.library, candidate.path)


def _lexical_order(candidate: Candidate) -> tuple[float, float, str, str]:
    return (-candidate.coverage, -candidate.score, candidate.library, candidate.path)


def _merge_candidates(
    query: str,
    lists: Mapping[tuple[str, str], Sequence[Candidate]],
    k: int,
    weights: Mapping[tuple[str, str], float],
) -> list[Candidate]:
    """One scored candidate per ``(library, path)``; its title, fragment and flag come
    from its best-ranked appearance, its coverage is the best over all its titles."""
    keys = sorted(lists)
    ranked_keys = [[candidate.key for candidate in lists[key]] for key in keys]
    scores = rrf(ranked_keys, k=k, weights=[weights.get(key, 1.0) for key in keys])
    best: dict[tuple[str, str], tuple[int, Candidate]] = {}
    ranks: dict[tuple[str, str], list[tuple[str, int]]] = {}
    coverage: dict[tuple[str, str], float] = {}
    exact: dict[tuple[str, str], bool] = {}
    for key in keys:
        list_name = key[1]
        seen: set[tuple[str, str]] = set()
        for rank, candidate in enumerate(lists[key], start=1):
            ident = candidate.key
            if ident in seen:
                continue
            seen.add(ident)
            ranks.setdefault(ident, []).append((list_name, rank))
            if ident not in best or rank < best[ident][0]:
                best[ident] = (rank, candidate)
            coverage[ident] = max(coverage.get(ident, 0.0), title_coverage(query, candidate.title))
            exact[ident] = (
                exact.get(ident, False)
                or candidate.exact_title
                or is_exact_title(query, candidate.title)
            )
    exact_bonus = 1.0 / (k + 1)
    return [
        msgspec.structs.replace(
            candidate,
            exact_title=exact[ident],
            score=scores[ident] + (exact_bonus if exact[ident] else 0.0),
            coverage=coverage[ident],
            ranks=tuple(ranks[ident]),
        )
        for ident, (_, candidate) in best.items()
    ]


def _rerank_group(group: Sequence[Candidate]) -> list[Candidate]:
    """Exact titles first (by coverage), then a merge of per-library queues that always
    takes the head with the best title coverage."""
    exact = sorted((c for c in group if c.exact_title), key=_lexical_order)
    queues: dict[str, list[Candidate]] = {}
    for candidate in group:
        if not candidate.exact_title:
            queues.setdefault(candidate.library, []).append(candidate)
    out = list(exact)
    while queues:
        head = min((queue[0] for queue in queues.values()), key=_lexical_order)
        queue = queues[head.library]
        queue.pop(0)
        if not queue:
            del queues[head.library]
        out.append(head)
    return out


def diversify(items: Sequence[T], library_of: Callable[[T], str], max_consecutive: int) -> list[T]:
    """``items`` reordered so that no more than ``max_consecutive`` in a row come from one
    library while another library still has items: when the run limit is hit, the next
    best item of another library goes first. Otherwise the order is kept (stable)."""
    if max_consecutive < 1:
        raise ValueError("max_consecutive must be at least 1")
    remaining = list(items)
    out: list[T] = []
    run_library: str | None = None
    run_length = 0
    while remaining:
        index = 0
        if run_length >= max_consecutive:
            index = next(
                (i for i, item in enumerate(remaining) if library_of(item) != run_library), 0
            )
        item = remaining.pop(index)
        library = library_of(item)
        run_length = run_length + 1 if library == run_library else 1
        run_library = library
        out.append(item)
    return out
