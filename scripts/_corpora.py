"""Corpora for the benchmark and relevance scripts: the demo fixtures, the real archives
in ../shared/zims, and (for the search benchmark) generated large archives.

Everything is built or copied under one root with a manifest, exactly as an operator
would lay it out, so the scripts exercise the real configuration path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus_mcp.config import Manifest, Settings, load_manifest, load_settings
from corpus_mcp.demo import DEMO_LIBRARIES, build_demo_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED_ZIMS = ROOT.parent / "shared" / "zims"
CACHE = ROOT / ".bench"

#: The real archives, as (library name, file name, adapter).
REAL_LIBRARIES = (
    ("rc2018", "wikipedia_en_ray_charles_novid_2018-10.zim", "mediawiki"),
    ("rc2020", "wikipedia_en_ray_charles_mini_2020-03.zim", "mediawiki"),
    ("wp100", "wikipedia_en_100_mini_2022-10.zim", "mediawiki"),
    ("wikibooks_be", "wikibooks_be_all_nopic_2017-02.zim", "mediawiki"),
)


def corpus_root(*, real: bool = True, extra: tuple[tuple[str, str, str], ...] = ()) -> Path:
    """Build (once) a corpus root with the demo archives, the real ones and ``extra``.

    ``extra`` entries are (name, path relative to the root, adapter) of archives the
    caller has already written under the root. Returns the manifest path.
    """
    root = CACHE / "corpus"
    if not (root / "corpus.toml").is_file():
        build_demo_corpus(root)
    libraries: list[tuple[str, str, str]] = list(DEMO_LIBRARIES)
    if real and SHARED_ZIMS.is_dir():
        for name, file, adapter in REAL_LIBRARIES:
            target = root / "real" / file
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(SHARED_ZIMS / file, target)
            libraries.append((name, f"real/{file}", adapter))
    libraries.extend(extra)
    manifest = root / "bench.toml"
    lines = ["version = 1", ""]
    for name, path, adapter in libraries:
        lines += [
            "[[library]]",
            f'name = "{name}"',
            f'path = "{path}"',
            f'adapter = "{adapter}"',
            "",
        ]
    manifest.write_text("\n".join(lines), encoding="utf-8")
    return manifest


def settings_for(manifest: Path, **overrides: str) -> tuple[Settings, Manifest]:
    env = {"CORPUS_ROOT": str(manifest.parent), "CORPUS_CONFIG": str(manifest), **overrides}
    return load_settings(env), load_manifest(manifest, manifest.parent)
