"""Shared test fixtures: the real archives in ../shared/zims and the demo corpus."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from corpus_mcp.config import Settings, load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES, build_demo_corpus

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


@pytest.fixture(scope="session")
def demo_files(demo_corpus: Path) -> dict[str, Path]:
    """Each demo archive by library name."""
    return {name: demo_corpus.parent / relative for name, relative, _ in DEMO_LIBRARIES}


#: The real archives as libraries of the "full" test corpus (name -> file in SHARED_ZIMS).
REAL_LIBRARIES = {
    "rc2018": "wikipedia_en_ray_charles_novid_2018-10.zim",
    "rc2020": "wikipedia_en_ray_charles_mini_2020-03.zim",
    "wp100": "wikipedia_en_100_mini_2022-10.zim",
    "wikibooks_be": "wikibooks_be_all_nopic_2017-02.zim",
}


@pytest.fixture(scope="session")
def full_corpus(demo_corpus: Path) -> Path:
    """The demo corpus plus, where ../shared/zims exists, copies of the real archives
    (a manifest may not point outside its root) and one disabled library.

    Returns the manifest path (``full.toml`` next to the demo's ``corpus.toml``).
    """
    root = demo_corpus.parent
    libraries = [(name, path, adapter, True) for name, path, adapter in DEMO_LIBRARIES]
    if SHARED_ZIMS.is_dir():
        for name, file in REAL_LIBRARIES.items():
            target = root / "real" / file
            target.parent.mkdir(exist_ok=True)
            if not target.exists():
                shutil.copyfile(SHARED_ZIMS / file, target)
            libraries.append((name, f"real/{file}", "mediawiki", True))
    libraries.append(("retired", "retired/gone.zim", "mediawiki", False))
    lines = ["version = 1"]
    for name, path, adapter, enabled in libraries:
        lines += [
            "[[library]]",
            f'name = "{name}"',
            f'path = "{path}"',
            f'adapter = "{adapter}"',
            f"enabled = {str(enabled).lower()}",
        ]
    manifest = root / "full.toml"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


def settings_for(manifest: Path, **env: str) -> Settings:
    """Settings for a corpus at ``manifest`` (its folder is CORPUS_ROOT)."""
    return load_settings(
        {"CORPUS_ROOT": str(manifest.parent), "CORPUS_CONFIG": str(manifest), **env}
    )


@pytest.fixture
async def corpus(full_corpus: Path) -> AsyncIterator[Corpus]:
    """The full test corpus, opened (default settings)."""
    settings = settings_for(full_corpus)
    async with open_corpus(settings, load_manifest(full_corpus, full_corpus.parent)) as opened:
        yield opened
