"""Demo and fixture archives: one faithful ZIM per scraper family, plus a manifest.

The same archives serve the tests, ``make run`` (when no corpus is configured) and the
benchmarks, so their HTML follows ``zim-formats.md`` exactly; see the family modules.
``DEMO_LIBRARIES`` are the corpus the tests and benchmarks rank across (Wikipedia,
DevDocs, Stack Exchange); ``FAMILY_LIBRARIES`` add one archive of each other Kiwix
family (laid out as ``../shared/zims/families`` is) to what ``make run`` serves, so a
new user sees every kind of archive; their own tests build them one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from corpus_mcp.demo import (
    devdocs,
    freecodecamp,
    gutenberg,
    ifixit,
    libretexts,
    mdwiki,
    sotoki,
    ted,
    wikipedia,
    zimit,
)

#: (library name, path relative to the corpus root, adapter) for every demo archive; each
#: named as ``corpus-mcp init`` names it (:mod:`corpus_mcp.init.names`).
DEMO_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("Wikipedia", wikipedia.FILE, "mediawiki"),
    ("MDWiki", mdwiki.FILE, "mediawiki"),
    ("Python-Docs", devdocs.PYTHON_FILE, "devdocs"),
    ("Cpp-Docs", devdocs.CPP_FILE, "devdocs"),
    ("PostgreSQL-Docs", devdocs.POSTGRESQL_FILE, "devdocs"),
    ("StackOverflow", sotoki.SO_FILE, "stackexchange"),
    ("Math-SE", sotoki.MATH_FILE, "stackexchange"),
)
#: The other families' demo archives, as ``corpus-mcp init`` would name them.
FAMILY_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("Demo-3.11-Documentation", zimit.FILE, "html"),
    ("Project-Gutenberg-Library", gutenberg.FILE, "gutenberg"),
    ("freeCodeCamp-JavaScript", freecodecamp.FILE, "freecodecamp"),
    ("LibreTexts-Chemistry", libretexts.FILE, "libretexts"),
    ("TED", ted.FILE, "ted"),
    ("iFixit", ifixit.FILE, "ifixit"),
)

_BUILDERS: dict[str, Callable[[Path], Path]] = {
    wikipedia.FILE: wikipedia.build,
    mdwiki.FILE: mdwiki.build,
    devdocs.PYTHON_FILE: devdocs.build,
    devdocs.CPP_FILE: devdocs.build_cpp,
    devdocs.POSTGRESQL_FILE: devdocs.build_postgresql,
    sotoki.SO_FILE: sotoki.build,
    sotoki.MATH_FILE: sotoki.build_math,
    zimit.FILE: zimit.build,
    gutenberg.FILE: gutenberg.build,
    freecodecamp.FILE: freecodecamp.build,
    libretexts.FILE: libretexts.build,
    ted.FILE: ted.build,
    ifixit.FILE: ifixit.build,
}
"""The builder of each demo archive, by its path."""


def demo_libraries(*, families: bool = False) -> tuple[tuple[str, str, str], ...]:
    """The demo corpus's libraries, with the other families' archives or without."""
    return DEMO_LIBRARIES + FAMILY_LIBRARIES if families else DEMO_LIBRARIES


def manifest_text(*, families: bool = False) -> str:
    """``corpus.toml`` for the demo corpus (paths relative to its root)."""
    tables = [
        f'[[library]]\nname = "{name}"\npath = "{path}"\nadapter = "{adapter}"\nenabled = true\n'
        for name, path, adapter in demo_libraries(families=families)
    ]
    return "version = 1\n\n" + "\n".join(tables)


def build_demo_corpus(root: Path, *, families: bool = False) -> Path:
    """Write every demo archive under ``root`` plus ``root/corpus.toml``; return the manifest.

    ``families``: the other families' archives too (what ``make run`` serves). Rebuilding
    over an existing corpus replaces each archive atomically.
    """
    root.mkdir(parents=True, exist_ok=True)
    for _name, relative, _adapter in demo_libraries(families=families):
        _BUILDERS[relative](root / relative)
    manifest = root / "corpus.toml"
    manifest.write_text(manifest_text(families=families), encoding="utf-8")
    return manifest


__all__ = [
    "DEMO_LIBRARIES",
    "FAMILY_LIBRARIES",
    "build_demo_corpus",
    "demo_libraries",
    "manifest_text",
]
