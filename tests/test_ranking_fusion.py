"""Reciprocal rank fusion, the title rerank of near-ties, diversity and title coverage
on hand-made candidates."""

from __future__ import annotations

import random

import pytest

from corpus_mcp.ranking import (
    Candidate,
    diversify,
    fuse,
    is_exact_title,
    rrf,
    title_coverage,
)

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


def _c(library: str, path: str, title: str | None = None) -> Candidate:
    return Candidate(library=library, path=path, title=title or path.replace("_", " "))


def _keys(candidates: list[Candidate]) -> list[tuple[str, str]]:
    return [(c.library, c.path) for c in candidates]


def test_exact_title_from_title_index_beats_a_long_fulltext_list() -> None:
    lists = {
        ("devdocs", "fulltext"): [_c("devdocs", f"python/page{i}", f"Page {i}") for i in range(20)],
        ("devdocs", "title"): [_c("devdocs", "python/page0", "Page 0")],
        ("wikipedia", "title"): [
            _c("wikipedia", "Pythonidae"),
            _c("wikipedia", "Python_(programming_language)"),
            _c("wikipedia", "Python"),
        ],
    }
    fused = fuse("Python", lists)
    assert _keys(fused)[:2] == [("wikipedia", "Python"), ("devdocs", "python/page0")]
    top = fused[0]
    assert top.exact_title and top.coverage == 1.0 and top.ranks == (("title", 3),)


def test_fuse_merges_lists_of_one_library() -> None:
    lists = {
        ("wiki", "fulltext"): [_c("wiki", "A"), _c("wiki", "B")],
        ("wiki", "title"): [_c("wiki", "B"), _c("wiki", "C")],
    }
    fused = fuse("zzz", lists, k=1)
    assert _keys(fused) == [("wiki", "B"), ("wiki", "A"), ("wiki", "C")]
    assert fused[0].score == pytest.approx(1 / 3 + 1 / 2)
    assert fused[0].ranks == (("fulltext", 2), ("title", 1))


def test_near_ties_across_libraries_are_reranked_by_title_coverage() -> None:
    lists = {
        ("a", "fulltext"): [_c("a", "Foo"), _c("a", "Ray_Charles")],
        ("b", "fulltext"): [_c("b", "Ray_Charles_discography")],
    }
    fused = fuse("ray charles discography", lists)
    # b's hit names the query; a keeps its own order (Foo before its Ray Charles).
    assert _keys(fused) == [("b", "Ray_Charles_discography"), ("a", "Foo"), ("a", "Ray_Charles")]


def test_clear_score_gaps_are_not_reranked() -> None:
    lists = {
        ("a", "fulltext"): [_c("a", f"Filler_{i}") for i in range(9)]
        + [_c("a", "Soul_music_in_the_1960s")],
        ("b", "fulltext"): [_c("b", "Unrelated")],
    }
    fused = fuse("soul music", lists, tie_ratio=0.05)
    assert _keys(fused)[0] in {("a", "Filler_0"), ("b", "Unrelated")}
    assert _keys(fused)[-1] == ("a", "Soul_music_in_the_1960s")


def test_full_ties_break_by_library_then_path() -> None:
    lists = {
        ("zeta", "fulltext"): [_c("zeta", "x")],
        ("alpha", "fulltext"): [_c("alpha", "y")],
        ("mid", "fulltext"): [_c("mid", "b"), _c("mid", "a")],
    }
    assert _keys(fuse("nothing", lists, tie_ratio=0.0)) == [
        ("alpha", "y"),
        ("mid", "b"),
        ("zeta", "x"),
        ("mid", "a"),
    ]


def test_fuse_is_independent_of_mapping_order() -> None:
    rng = random.Random(7)
    libraries = ["wiki", "docs", "stack"]
    lists: dict[tuple[str, str], list[Candidate]] = {}
    for library in libraries:
        for name in ("fulltext", "title"):
            paths = [f"p{rng.randrange(12)}" for _ in range(8)]
            lists[(library, name)] = [_c(library, p, f"Soul {p}") for p in dict.fromkeys(paths)]
    expected = fuse("soul p3", lists)
    for _ in range(10):
        keys = list(lists)
        rng.shuffle(keys)
        assert fuse("soul p3", {key: lists[key] for key in keys}) == expected


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


# -- title coverage ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "title", "expected"),
    [
        ("python", "Python", 1.0),
        ("Python", "python", 1.0),
        ("python", "Python (programming language)", 0.95),
        ("python", "Monty Python", 0.75),
        ("ray charles", "Ray Charles discography", 0.8),
        ("ray charles discography", "Ray Charles", 0.6 * 2 / 3 + 0.3),
        ("python", "Ray Charles", 0.0),
        ("str.join", "str.join()", 1.0),
        ("how do python classes work", "Class (Python)", 0.95),
        ("how to use python", "Python", 0.95),
        ("***", "Python", 0.0),
    ],
)
def test_title_coverage(query: str, title: str, expected: float) -> None:
    assert title_coverage(query, title) == pytest.approx(expected)


def test_exact_title_ignores_case_accents_and_punctuation() -> None:
    assert is_exact_title("cafe society", "Café Society")
    assert is_exact_title("georgia on my mind", "Georgia_On_My_Mind")
    assert not is_exact_title("python", "Python (programming language)")
    assert not is_exact_title("", "")
