"""Shared test fixtures: the real archives in ../shared/zims and the demo corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_mcp.demo import build_demo_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED_ZIMS = ROOT.parent / "shared" / "zims"


@pytest.fixture(scope="session")
def shared_zims() -> Path:
    """The folder of real scraper-made archives; tests using it skip where it is absent."""
    if not (SHARED_ZIMS / "wikipedia_en_100_mini_2022-10.zim").is_file():
        pytest.skip(f"real archives not present at {SHARED_ZIMS}")
    return SHARED_ZIMS


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus (every family's fixture archive), built once per session.

    Returns the manifest path; the archives sit next to it under their relative paths.
    """
    return build_demo_corpus(tmp_path_factory.mktemp("demo-corpus"))
