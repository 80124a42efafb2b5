"""Demo and fixture archives: one faithful ZIM per scraper family, plus a manifest.

The same archives serve the tests, ``make run`` (when no corpus is configured) and the
benchmarks, so their HTML follows ``zim-formats.md`` exactly; see the family modules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from corpus_mcp.demo import devdocs, mdwiki, sotoki, wikipedia

#: (library name, path relative to the corpus root, adapter) for every demo archive.
DEMO_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("wikipedia", wikipedia.FILE, "mediawiki"),
    ("mdwiki", mdwiki.FILE, "mediawiki"),
    ("devdocs_python", devdocs.PYTHON_FILE, "devdocs"),
    ("devdocs_cpp", devdocs.CPP_FILE, "devdocs"),
    ("devdocs_postgresql", devdocs.POSTGRESQL_FILE, "devdocs"),
    ("stackoverflow", sotoki.SO_FILE, "stackexchange"),
    ("math", sotoki.MATH_FILE, "stackexchange"),
)

_BUILDERS: dict[str, Callable[[Path], Path]] = {
    "wikipedia": wikipedia.build,
    "mdwiki": mdwiki.build,
    "devdocs_python": devdocs.build,
    "devdocs_cpp": devdocs.build_cpp,
    "devdocs_postgresql": devdocs.build_postgresql,
    "stackoverflow": sotoki.build,
    "math": sotoki.build_math,
}


def manifest_text() -> str:
    """``corpus.toml`` for the demo corpus (paths relative to its root)."""
    tables = [
        f'[[library]]\nname = "{name}"\npath = "{path}"\nadapter = "{adapter}"\nenabled = true\n'
        for name, path, adapter in DEMO_LIBRARIES
    ]
    return "version = 1\n\n" + "\n".join(tables)


def build_demo_corpus(root: Path) -> Path:
    """Write every demo archive under ``root`` plus ``root/corpus.toml``; return the manifest.

    Rebuilding over an existing corpus replaces each archive atomically.
    """
    root.mkdir(parents=True, exist_ok=True)
    for name, relative, _adapter in DEMO_LIBRARIES:
        _BUILDERS[name](root / relative)
    manifest = root / "corpus.toml"
    manifest.write_text(manifest_text(), encoding="utf-8")
    return manifest


__all__ = ["DEMO_LIBRARIES", "build_demo_corpus", "manifest_text"]
