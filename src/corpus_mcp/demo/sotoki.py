"""Demo Stack Exchange archives (sotoki v3.0.2): Stack Overflow and Mathematics.

Each site is one file, ``data/stackexchange/<site>.json`` (users and threads, post
bodies as the site's HTML). Threads overlap the other demo archives on purpose (super()
and the MRO, vector vs list, asyncio vs threads, regex, git, std::stoi, Euler's
identity, the Basel sum). In several threads the accepted answer is not the highest
scored, as on the real sites. Math posts keep their TeX raw (``$…$``, ``$$…$$``,
``\\(…\\)``); one Stack Overflow thread contains dollar-delimited TeX too.
"""

from __future__ import annotations

from pathlib import Path

from corpus_mcp.demo import _data
from corpus_mcp.demo._sotoki import Site, metadata, site_entries
from corpus_mcp.zim.writer import write_zim

SO_FILE = "stackexchange/stackoverflow.com_en_demo_2026-05.zim"
MATH_FILE = "stackexchange/math.stackexchange.com_en_demo_2026-03.zim"

STACKOVERFLOW = _data.load("stackexchange/stackoverflow.json", Site)
MATH = _data.load("stackexchange/math.json", Site)
SO_THREADS = tuple(STACKOVERFLOW.threads)
MATH_THREADS = tuple(MATH.threads)


def _write(site: Site, path: Path) -> Path:
    pages, redirects = site_entries(site)
    return write_zim(
        path, pages=pages, redirects=redirects, metadata=metadata(site), main_path="questions"
    )


def build(path: Path) -> Path:
    """Write the demo Stack Overflow archive at ``path``."""
    return _write(STACKOVERFLOW, path)


def build_math(path: Path) -> Path:
    """Write the demo Mathematics Stack Exchange archive at ``path``."""
    return _write(MATH, path)
