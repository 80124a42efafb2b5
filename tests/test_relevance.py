"""Relevance cases that must never regress (``pinned = true`` in the case files).

The full evaluation with figures is ``scripts/relevance.py``; this pins what already
works: the expected document first and, where a section is expected, hinted.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from corpus_mcp import refs
from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES

HERE = Path(__file__).parent
SHARED_ZIMS = HERE.parents[1] / "shared" / "zims"
REAL = {
    "rc2018": "wikipedia_en_ray_charles_novid_2018-10.zim",
    "rc2020": "wikipedia_en_ray_charles_mini_2020-03.zim",
    "wp100": "wikipedia_en_100_mini_2022-10.zim",
    "wikibooks_be": "wikibooks_be_all_nopic_2017-02.zim",
}


def _cases(file: str) -> list[dict[str, Any]]:
    cases = tomllib.loads((HERE / file).read_text("utf-8"))["case"]
    return [c for c in cases if c.get("pinned")]


PINNED = [pytest.param(c, id=c["query"]) for c in _cases("relevance_cases.toml")]
if SHARED_ZIMS.is_dir():
    PINNED += [pytest.param(c, id=c["query"]) for c in _cases("relevance_real.toml")]


@pytest.fixture(scope="module")
def manifest(demo_corpus: Path) -> Path:
    """The demo corpus plus, where present, copies of the real archives."""
    root = demo_corpus.parent
    lines = ["version = 1"]
    libraries = list(DEMO_LIBRARIES)
    if SHARED_ZIMS.is_dir():
        for name, file in REAL.items():
            target = root / "real" / file
            target.parent.mkdir(exist_ok=True)
            if not target.exists():
                shutil.copyfile(SHARED_ZIMS / file, target)
            libraries.append((name, f"real/{file}", "mediawiki"))
    for name, path, adapter in libraries:
        lines += ["[[library]]", f'name = "{name}"', f'path = "{path}"', f'adapter = "{adapter}"']
    out = root / "relevance.toml"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture
async def corpus(manifest: Path) -> AsyncIterator[Corpus]:
    settings = load_settings({"CORPUS_ROOT": str(manifest.parent), "CORPUS_CONFIG": str(manifest)})
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as opened:
        yield opened


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
