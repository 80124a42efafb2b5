"""Relevance cases that must never regress (``pinned = true`` in the case files).

The full evaluation with figures is ``scripts/relevance.py``; this pins what already
works: the expected document first and, where a section is expected, hinted.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from corpus_mcp import refs
from corpus_mcp.corpus import Corpus

from .conftest import NO_REAL_ARCHIVES, REAL_ARCHIVES_PRESENT

HERE = Path(__file__).parent


def _cases(file: str) -> list[dict[str, Any]]:
    cases = tomllib.loads((HERE / file).read_text("utf-8"))["case"]
    return [c for c in cases if c.get("pinned")]


# Cases on the real archives are always collected, and reported as skipped where the
# archives are absent, so a missing ../shared/zims never shrinks the suite silently.
_NEEDS_REAL = pytest.mark.skipif(not REAL_ARCHIVES_PRESENT, reason=NO_REAL_ARCHIVES)
PINNED = [pytest.param(c, id=c["query"]) for c in _cases("relevance_cases.toml")] + [
    pytest.param(c, id=c["query"], marks=_NEEDS_REAL) for c in _cases("relevance_real.toml")
]


@pytest.mark.parametrize("case", PINNED)
async def test_pinned_case_ranks_first_with_its_hint(corpus: Corpus, case: dict[str, Any]) -> None:
    out = await corpus.search(case["query"], 5)
    assert out.results, "no results"
    top = out.results[0]
    got = f"{top.library}/{refs.decode(top.ref, corpus.libraries)[1]}"
    wanted = {f"{case['library']}/{case['path']}", *case.get("alternatives", [])}
    assert got in wanted, [r.ref for r in out.results]
    if "section" in case:
        fetched = await corpus.fetch(refs.encode(case["library"], case["path"]), [case["section"]])
        right = {case["section"], fetched.sections[0].id}
        assert right & {h.id for h in top.relevant_sections}, top.relevant_sections
