"""Demo Stack Exchange archives (sotoki v3.1.1): Stack Overflow and Mathematics.

Each site is one file, ``data/stackexchange/<site>.json`` (users and threads, post
bodies and comments as the site's HTML, links as the site writes them; ``_sotoki``
rewrites them as sotoki does). Threads overlap the other demo archives on purpose
(super() and the MRO, vector vs list, asyncio vs threads, regex, git, std::stoi, Euler's
identity, the Basel sum). In several threads the accepted answer is not the highest
scored, as on the real sites. Math posts keep their TeX raw (``$…$``, ``$$…$$``,
``\\(…\\)``); one Stack Overflow thread contains dollar-delimited TeX too.

What the real archives show and these reproduce: an answer with headings of its own and
links of every kind (to another thread, to an answer of the same thread and of another,
to a user and a tag page, to the web) in the blocking-call thread (43241221), comments
with links, "Linked" sidebars, edits by the owner and by others, and a question closed
as a duplicate (26853, of 38987) whose only trace is a comment.
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
