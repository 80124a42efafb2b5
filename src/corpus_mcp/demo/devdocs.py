"""Demo DevDocs archives (devdocs2zim v0.2.1): Python 3.13, C++ and PostgreSQL 16.

Each documentation lives under ``data/devdocs/<slug>/`` as DevDocs itself stores it:
``docset.json`` (the docset, its date and the index of pages: path, title, symbol type)
and ``db/<path>.html``, the page HTML after DevDocs' filters. Python pages have Sphinx's
shape (``section[id]`` wrappers, ``dt[id]`` API anchors, the unwrapped local TOC list);
C++ pages have cppreference's (``hN[id]``); PostgreSQL pages DocBook's, as DevDocs
cleans them (``div.sect2[id]`` wrappers, ``dl.variablelist > dt[id]`` settings). Titles
follow devdocs2zim's rule (the last index entry that opens the page, else its first
entry with a fragment), so several differ from the page's ``<h1>``: ``Functions``,
``std::stoll``, ``Config: maintenance_work_mem``.

The pages hold the shapes the real archives show: class entries with their methods
nested (``threading.Thread``), an entry whose description follows the list (Django's
style, ``asyncio.gather``), a heading naming its one entry (``cache()``), terms sharing a
description (the rich comparison methods), a signature too long for a title
(``subprocess.run``), links to other pages, inside the page and to pages DevDocs left
out (absolute), and the empty tables DevDocs leaves behind.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from corpus_mcp.demo import _data
from corpus_mcp.demo._devdocs import DocPage, DocSet, docset_entries, metadata
from corpus_mcp.zim.writer import write_zim

PYTHON_FILE = "devdocs/devdocs_en_python_2026-05.zim"
CPP_FILE = "devdocs/devdocs_en_cpp_2026-04.zim"
POSTGRESQL_FILE = "devdocs/devdocs_en_postgresql_2026-04.zim"


class Docset(msgspec.Struct, frozen=True):
    """``docset.json``: the documentation, its scrape date and its index of pages."""

    docset: DocSet
    date: str
    pages: list[tuple[str, str, str]]
    """(db path, title, symbol type) per page, in index order. The title is
    devdocs2zim's: the last index entry that opens the page."""


def _build(slug: str, path: Path) -> Path:
    found = _data.load(f"devdocs/{slug}/docset.json", Docset)
    pages = [
        DocPage(path, title, type_, _data.text(f"devdocs/{slug}/db/{path}.html"))
        for path, title, type_ in found.pages
    ]
    return write_zim(
        path,
        pages=docset_entries(found.docset, pages),
        metadata=metadata(found.docset, found.date),
        main_path="index",
    )


def build(path: Path) -> Path:
    """Write the demo DevDocs Python archive at ``path``."""
    return _build("python", path)


def build_cpp(path: Path) -> Path:
    """Write the demo DevDocs C++ archive at ``path``."""
    return _build("cpp", path)


def build_postgresql(path: Path) -> Path:
    """Write the demo DevDocs PostgreSQL archive at ``path``."""
    return _build("postgresql", path)
