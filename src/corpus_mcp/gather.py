"""Per-archive work that runs inside one worker thread: landing on entries, collecting hits.

Everything here is synchronous and talks to a :class:`~corpus_mcp.zim.ZimReader` plus a
pure adapter. The corpus manager runs each function as a single
``ArchiveService.run`` call, so one search costs one thread hop per library instead of
one per libzim call, and the per-archive lock is taken once. ``checkpoint`` is called
between libzim calls so that a worker whose caller timed out stops early.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from corpus_mcp import ranking
from corpus_mcp.adapters import Adapter
from corpus_mcp.zim import RedirectError, ZimError, ZimReader

#: HTML items at most this large are checked for being redirect stubs
#: (mwoffliner's html_redirect template is a few hundred bytes).
STUB_MAX_BYTES = 2048
#: Stubs pointing at stubs: more than this is a broken archive.
MAX_STUB_HOPS = 4


class Landed(msgspec.Struct, frozen=True, kw_only=True):
    """Where a path ends after libzim redirects and HTML redirect stubs."""

    path: str
    title: str
    mimetype: str
    section: str | None = None


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    title: str
    alias: str | None = None
    """The matched redirect title, for title-index hits that came through a redirect."""
    section: str | None = None
    query: str | None = None
    """The (relaxed) full-text query that found it; None for title-index hits."""


class LibraryHits(msgspec.Struct, frozen=True, kw_only=True):
    fulltext: list[Hit]
    title: list[Hit]
    queries_tried: int
    symbols: list[Hit] = msgspec.field(default_factory=list)
    """An exact API-symbol match (devdocs), when the query names one."""


def land(reader: ZimReader, adapter: Adapter, path: str) -> Landed:
    """Follow libzim redirects and HTML stubs from ``path`` to a content entry.

    A section carried by a fragment stub wins over the one a path implies
    (sotoki's ``a/<id>``), which applies only when no stub was involved.
    """
    requested = path
    section: str | None = None
    for _ in range(MAX_STUB_HOPS + 1):
        entry = reader.resolve(path)
        if entry.mimetype.startswith("text/html") and entry.size <= STUB_MAX_BYTES:
            stub = adapter.stub_landing(entry.path, reader.content(entry.path))
            if stub is not None:
                path, section = stub.path, stub.section or section
                continue
        if section is None:
            section = adapter.section_for_path(requested)
        return Landed(path=entry.path, title=entry.title, mimetype=entry.mimetype, section=section)
    raise RedirectError(f"more than {MAX_STUB_HOPS} redirect stubs from {requested!r}")


def load_symbols(reader: ZimReader, adapter: Adapter) -> dict[str, Hit]:
    """The adapter's symbol index of this archive, as ready-made hits (read once at startup).

    Symbols whose page is missing from the archive are left out; each hit carries the
    page's entry title, the symbol as its alias and the anchor as its section.
    """
    if adapter.symbol_index is None or not reader.has_entry(adapter.symbol_index):
        return {}
    symbols = adapter.parse_symbols(reader.content(adapter.symbol_index))
    titles: dict[str, str | None] = {}
    hits: dict[str, Hit] = {}
    for key, landing in sorted(symbols.items()):
        if landing.path not in titles:
            try:
                titles[landing.path] = reader.resolve(landing.path).title
            except ZimError:
                titles[landing.path] = None
        title = titles[landing.path]
        if title is not None:
            hits[key] = Hit(path=landing.path, title=title, alias=key, section=landing.section)
    return hits


def collect_hits(
    reader: ZimReader,
    adapter: Adapter,
    query: str,
    want: int,
    *,
    enough: int,
    checkpoint: Callable[[], None] = lambda: None,
) -> LibraryHits:
    """Full-text and title hits for ``query``, landed, filtered and deduplicated.

    Each index search asks for ``want`` hits. The full query goes first; relaxed forms
    follow only while fewer than ``enough`` documents have been found (libzim ANDs every
    term, so a long question often matches nothing as written). Archives without a
    full-text index answer from titles only.
    """
    fulltext: list[Hit] = []
    seen: set[str] = set()
    tried = 0
    if reader.info.has_fulltext_index:
        for relaxed in ranking.relaxations(query):
            checkpoint()
            tried += 1
            page = reader.fulltext(relaxed, want)
            for raw in page.paths:
                checkpoint()
                hit = _content_hit(reader, adapter, raw)
                if hit is not None and hit.path not in seen:
                    seen.add(hit.path)
                    fulltext.append(msgspec.structs.replace(hit, query=relaxed))
            if len(fulltext) >= enough:
                break
    checkpoint()
    titled: list[Hit] = []
    seen_titles: set[str] = set()
    for suggestion in reader.suggest(ranking.title_query(query), want):
        checkpoint()
        hit = _content_hit(reader, adapter, suggestion.path, alias=suggestion.title)
        if hit is not None and hit.path not in seen_titles:
            seen_titles.add(hit.path)
            titled.append(hit)
    return LibraryHits(fulltext=fulltext, title=titled, queries_tried=tried)


def _content_hit(
    reader: ZimReader, adapter: Adapter, raw: str, alias: str | None = None
) -> Hit | None:
    """The landed document of a raw hit, or None for non-documents and broken entries.

    ``alias`` is the title the title index matched (a redirect's own title, such as
    "Charles, Ray"); ranking may judge the title match on it instead of the target's.
    """
    try:
        landed = land(reader, adapter, raw)
    except ZimError:  # a dangling or looping entry is not a result, never an error
        return None
    if not adapter.is_content(landed.path, landed.mimetype):
        return None
    if adapter.main_page_is_navigation and landed.path == reader.info.main_path:
        return None
    return Hit(path=landed.path, title=landed.title, alias=alias, section=landed.section)
