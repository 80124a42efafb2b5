"""Federation of per-library hits (pure): weighted relaxation lists, aliases, landings."""

from __future__ import annotations

from corpus_mcp.federate import federate
from corpus_mcp.gather import Hit, LibraryHits


def _hits(
    fulltext: list[Hit], title: list[Hit] | None = None, symbols: list[Hit] | None = None
) -> LibraryHits:
    return LibraryHits(fulltext=fulltext, title=title or [], queries_tried=1, symbols=symbols or [])


def test_a_library_matching_only_a_relaxed_remnant_ranks_below_a_full_match() -> None:
    query = "first line medicine for type 2 diabetes"
    full = "first line medicine type 2 diabetes"
    hits = {
        "albums": _hits([Hit(path="Song", title="Song", query="medicine 2")]),
        "medicine": _hits([Hit(path="Metformin", title="Metformin", query=full)]),
    }
    ordered, _ = federate(query, hits, max_consecutive=2)
    assert [c.library for c in ordered] == ["medicine", "albums"]


def test_equal_relaxation_levels_keep_fusion_order_deterministic() -> None:
    hits = {
        "b": _hits([Hit(path="X", title="Trio", query="trio")]),
        "a": _hits([Hit(path="Y", title="Trio", query="trio")]),
    }
    first, _ = federate("trio", hits, 2)
    again, _ = federate("trio", dict(reversed(list(hits.items()))), 2)
    assert [c.key for c in first] == [c.key for c in again] == [("a", "Y"), ("b", "X")]


def test_a_redirect_alias_counts_as_the_title_and_the_first_hit_is_kept() -> None:
    target = Hit(path="Ray_Charles", title="Ray Charles", alias="Charles, Ray")
    hits = {
        "music": _hits([], title=[target]),
        "other": _hits([Hit(path="Charles_River", title="Charles River", query="charles ray")]),
    }
    ordered, found = federate("Charles, Ray", hits, 2)
    assert ordered[0].key == ("music", "Ray_Charles")
    assert ordered[0].exact_title
    assert found[("music", "Ray_Charles")].title == "Ray Charles"  # parse with the entry title


def test_a_symbol_match_wins_and_carries_its_anchor() -> None:
    symbol = Hit(path="library/functions", title="Functions", alias="super", section="super")
    page = Hit(path="library/functions", title="Functions", query="super")
    hits = {
        "devdocs": _hits([page], symbols=[symbol]),
        "forum": _hits(
            [
                Hit(path=f"questions/{i}/x", title=f"Using super {i}", query="super")
                for i in range(5)
            ]
        ),
    }
    ordered, found = federate("super", hits, 2)
    assert ordered[0].key == ("devdocs", "library/functions")
    assert found[ordered[0].key].section == "super"
