"""Reciprocal rank fusion (the tie-breaker of evidence scores) and library diversity."""

from __future__ import annotations

import pytest

from corpus_mcp.ranking import diversify, rrf

# -- fusion -----------------------------------------------------------------------------


def test_rrf_sums_reciprocal_ranks() -> None:
    scores = rrf([["a", "b", "c"], ["b", "a", "d"]], k=1)
    assert scores == pytest.approx({"a": 1 / 2 + 1 / 3, "b": 1 / 3 + 1 / 2, "c": 1 / 4, "d": 1 / 4})
    assert list(scores) == ["a", "b", "c", "d"]


def test_rrf_weights_and_duplicates() -> None:
    scores = rrf([["a", "a", "b"], ["b"]], k=0, weights=[2.0, 0.5])
    assert scores == pytest.approx({"a": 2.0, "b": 2.0 / 3 + 0.5})
    with pytest.raises(ValueError, match="weight"):
        rrf([["a"]], weights=[1.0, 2.0])


def test_diversify_breaks_long_runs() -> None:
    items = [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("a", 4), ("c", 1)]
    assert diversify(items, lambda item: item[0], 2) == [
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("a", 3),
        ("a", 4),
        ("c", 1),
    ]


def test_diversify_alternates_with_limit_one_and_keeps_leftovers() -> None:
    items = ["a1", "a2", "a3", "a4", "b1", "b2"]
    assert diversify(items, lambda item: item[0], 1) == ["a1", "b1", "a2", "b2", "a3", "a4"]
    assert diversify(items, lambda item: item[0], 10) == items
    assert diversify([], lambda item: item, 1) == []
    with pytest.raises(ValueError, match="at least 1"):
        diversify(items, lambda item: item[0], 0)


def test_diversify_keeps_every_item() -> None:
    items = [f"{lib}{i}" for i in range(5) for lib in "aab"]
    assert sorted(diversify(items, lambda item: item[0], 2)) == sorted(items)
