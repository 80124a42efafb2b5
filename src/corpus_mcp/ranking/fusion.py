"""Rank fusion and library diversity.

Ranks from different lists are not comparable scores, so :func:`rrf` merges lists by
rank alone; the evidence score (:mod:`.evidence`) decides the order, and fusion only
breaks its ties. :func:`diversify` keeps one library from filling a whole page.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

#: The usual reciprocal-rank-fusion constant: damps the gap between the first ranks.
RRF_K = 60


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
