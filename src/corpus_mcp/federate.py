"""From every library's hits to one ordered list of candidates (pure).

Each library contributes one list per full-text query it ran (weighted by how much of
the question that query kept), its title-index list and its API-symbol match; fusion
and the diversity pass live in :mod:`corpus_mcp.ranking`. The first hit seen for each
document is kept, because it carries what the result needs later: the entry title to
parse with and the section a redirect stub or symbol landed on (taken from whichever
list knew it).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from corpus_mcp import ranking
from corpus_mcp.gather import Hit, LibraryHits

Key = tuple[str, str]
"""(library, normalised path)."""


def federate(
    query: str, hits: Mapping[str, LibraryHits], max_consecutive: int
) -> tuple[list[ranking.Candidate], dict[Key, Hit]]:
    """Candidates best first (libraries interleaved), and the hit behind each."""
    lists: dict[Key, list[ranking.Candidate]] = {}
    weights: dict[Key, float] = {}
    found: dict[Key, Hit] = {}
    for name in sorted(hits):
        for list_name, group in _groups(hits[name]).items():
            key = (name, list_name)
            if group[0].query is not None:
                weights[key] = ranking.relaxation_weight(query, group[0].query)
            lists[key] = [
                ranking.Candidate(library=name, path=h.path, title=_ranking_title(query, h))
                for h in group
            ]
            for h in group:
                seen = found.setdefault((name, h.path), h)
                if seen.section is None and h.section is not None:
                    # A later list (a stub, a symbol) knows where in the document to land.
                    found[(name, h.path)] = msgspec.structs.replace(seen, section=h.section)
    fused = ranking.fuse(query, lists, weights=weights)
    return ranking.diversify(fused, lambda c: c.library, max_consecutive), found


def _groups(found: LibraryHits) -> dict[str, list[Hit]]:
    """The library's ranked lists by name; the full-text hits split by the query that
    found them, in the order the queries were tried."""
    groups: dict[str, list[Hit]] = {}
    for hit in found.fulltext:
        groups.setdefault(f"fulltext:{hit.query}", []).append(hit)
    if found.title:
        groups["title"] = found.title
    if found.symbols:
        groups["symbol"] = found.symbols
    return groups


def _ranking_title(query: str, hit: Hit) -> str:
    """The title ranking should judge: the matched redirect title or symbol when it
    names the query better than the target's own title ("Charles, Ray", "str.join")."""
    if hit.alias and ranking.title_coverage(query, hit.alias) > ranking.title_coverage(
        query, hit.title
    ):
        return hit.alias
    return hit.title
