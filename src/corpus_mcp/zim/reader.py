"""Synchronous access to one ZIM archive: the only place that reads libzim.

Every method here blocks and holds the GIL for the whole libzim call (python-libzim
releases it only in the writer), so callers on the trio side go through
:mod:`corpus_mcp.zim.service`, which runs them in worker threads under a per-archive
limiter. Nothing here knows about HTML, MCP or ranking.

Threads: libzim's ``Archive`` is thread-safe, and so are the ``Entry`` and ``Item``
objects made from it (they share the archive through atomic ``shared_ptr`` counts);
each call makes its own and returns plain data. Its search objects are not: one
``Searcher`` and one ``SuggestionSearcher`` per reader are used under ``_searching``,
and every object a search makes (``Search``, its result sets and iterators, which hold
Xapian objects of libzim's own database of this archive) is made and destroyed under
that lock too, as :mod:`.xapian_pool` requires of our own Xapian objects: libzim's
lock covers its search calls but not those objects' destructors (DEVELOPERS.md,
"Native objects and threads").

Paths crossing this module's boundary are *normalised*: the old scheme's ``A/``
namespace and the 2018-era ``.html`` suffix are stripped, so an article has the same
path in an old ``A/`` archive and in a new-scheme one. :meth:`ZimReader.lookup` maps a
normalised path back to the stored entry.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import libzim
import msgspec
from libzim.reader import Archive
from libzim.search import Query, Searcher
from libzim.suggestion import SuggestionSearcher

from corpus_mcp.families import Family, recognise
from corpus_mcp.snapshots import snapshot_in_name
from corpus_mcp.zim.errors import (
    EntryNotFound,
    RedirectError,
    ZimError,
    ZimOpenError,
    normalise_path,
)
from corpus_mcp.zim.identity import ArchiveFile
from corpus_mcp.zim.index import NO_INDEXES, FulltextIndex, TitleIndex, open_indexes
from corpus_mcp.zim.probes import ArchiveProbe
from corpus_mcp.zim.xapian_pool import clear_frames

#: How many redirect hops are followed before giving up (mwoffliner never chains
#: more than two; anything deeper is a broken archive).
MAX_REDIRECT_HOPS = 16

_DATE = re.compile(r"^(\d{4}-\d{2})(?:-\d{2})?")


class ArchiveInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What an operator (``corpus-mcp validate``) and the server know of one archive."""

    file: str
    size: int
    uuid: str
    title: str
    name: str
    description: str | None = None
    snapshot: str | None
    language: str | None
    entry_count: int
    article_count: int
    scraper: str | None
    tags: tuple[str, ...]
    flavour: str | None
    family: Family
    """The scraper that made the archive (:mod:`corpus_mcp.families`)."""
    family_evidence: str
    """What showed the family: ``"Scraper 'ted2zim 3.2.1'"``, ``"entry _zim_static/wombat.js"``."""
    has_fulltext_index: bool
    has_title_index: bool
    new_namespace_scheme: bool
    main_path: str | None


class ResolvedEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A content entry reached from a path after following libzim redirects."""

    path: str
    """Normalised path of the final (non-redirect) entry."""
    title: str
    mimetype: str
    size: int
    redirected_from: str | None = None
    """Normalised path first asked for, when at least one redirect was followed."""


class EntryAt(msgspec.Struct, frozen=True, kw_only=True):
    """A user entry as :meth:`ZimReader.entries` walks them."""

    path: str
    """Normalised path."""
    title: str
    redirect: bool = False
    mimetype: str = ""
    """Content entries only (a redirect's target is resolved by whoever needs it)."""
    size: int = 0


class SearchPage(msgspec.Struct, frozen=True, kw_only=True):
    paths: list[str]
    estimated_total: int


class Suggestion(msgspec.Struct, frozen=True):
    path: str
    title: str


def snapshot_of(date: str | None, file: str) -> str | None:
    """``Date`` as ``YYYY-MM``, else the ``_YYYY-MM`` suffix of the file name."""
    if date and (m := _DATE.match(date.strip())):
        return m.group(1)
    in_name = snapshot_in_name(Path(file).name)
    return in_name.month if in_name else None


class ZimReader:
    """One open archive, safe to call from several threads at once (fan-out walkers
    and the service's threads do): entries are read through libzim's thread-safe
    ``Archive``, searches and suggestions one at a time under ``_searching``, the
    indexes read directly through their pools (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], *, direct_index: bool = True) -> None:
        """Open the archive; ``direct_index`` reads its Xapian indexes directly where
        the bindings and the archive allow it (see :mod:`.index`), else every search
        goes through libzim.

        ``handle`` keeps the file open with its identity (:mod:`.identity`); libzim and
        Xapian open that very file. A file that changes while it is being opened (a copy
        still in progress) is refused.
        """
        self.file = os.fspath(path)
        try:
            self.handle = ArchiveFile(self.file)
        except OSError as exc:
            raise ZimOpenError(exc.strerror or _reason(exc)) from exc
        try:
            self._open(direct_index)
        except BaseException:
            self.handle.close()
            raise

    def _open(self, direct_index: bool) -> None:
        source = self.handle.source
        try:
            self._archive: Any = Archive(source)
            self._metadata_keys = frozenset(self._archive.metadata_keys)
        except Exception as exc:  # libzim raises RuntimeError/OSError variants
            raise ZimOpenError(_reason(exc)) from exc
        self._searcher: Any = None
        self._suggester: Any = None
        # libzim's Searcher and SuggestionSearcher are not thread-safe; its Archive is.
        self._searching = threading.Lock()
        self.info = self._read_info()
        indexed = self.info.has_fulltext_index or self.info.has_title_index
        self.indexes = open_indexes(source) if direct_index and indexed else NO_INDEXES
        problem = self.handle.opened_as_held()
        if problem is not None:
            raise ZimOpenError(f"{problem.reason} while it was being opened")

    @property
    def fulltext_index(self) -> FulltextIndex | None:
        """The full-text index, read directly (None: use :meth:`fulltext`)."""
        return self.indexes.fulltext

    @property
    def title_index(self) -> TitleIndex | None:
        """The title index, read directly (None: use :meth:`suggest`)."""
        return self.indexes.title

    # -- metadata ---------------------------------------------------------------------

    def metadata(self, key: str) -> str | None:
        """The archive's ``key`` metadata as text, or None when the archive has none.

        Absence is read from the archive's list of keys, not from an exception: libzim
        raises the same RuntimeError for a missing key as for a corrupt one, and a corrupt
        archive must not pass for one without metadata (it raises :class:`ZimError`).
        """
        if key not in self._metadata_keys:
            return None
        try:
            value = self._archive.get_metadata(key)
        except (RuntimeError, OSError) as exc:  # what libzim's C++ exceptions become
            raise ZimError(f"metadata {key!r} is unreadable: {_reason(exc)}") from exc
        return bytes(value).decode("utf-8", "replace").strip()

    def _read_info(self) -> ArchiveInfo:
        a = self._archive
        try:
            scraper = self.metadata("Scraper")
            tags = tuple(t for t in (self.metadata("Tags") or "").split(";") if t)
            name = self.metadata("Name") or ""
            main_path: str | None = None
            if a.has_main_entry:
                main = a.main_entry
                hops = 0
                while main.is_redirect and hops < MAX_REDIRECT_HOPS:
                    main = main.get_redirect_entry()
                    hops += 1
                main_path = normalise_path(main.path)
            recognised = recognise(scraper=scraper, tags=tags, name=name, probe=ArchiveProbe(a))
            return ArchiveInfo(
                file=self.file,
                size=int(a.filesize),
                uuid=str(a.uuid),
                title=self.metadata("Title") or Path(self.file).stem,
                name=name,
                description=self.metadata("Description"),
                snapshot=snapshot_of(self.metadata("Date"), self.file),
                language=self.metadata("Language"),
                entry_count=int(a.all_entry_count),
                article_count=int(a.article_count),
                scraper=scraper,
                tags=tags,
                flavour=self.metadata("Flavour"),
                family=recognised.family,
                family_evidence=recognised.evidence,
                has_fulltext_index=bool(a.has_fulltext_index),
                has_title_index=bool(a.has_title_index),
                new_namespace_scheme=bool(a.has_new_namespace_scheme),
                main_path=main_path,
            )
        except ZimError as exc:
            raise ZimOpenError(exc.reason) from exc
        except Exception as exc:
            raise ZimOpenError(_reason(exc)) from exc

    def check(self) -> bool:
        """libzim's full integrity check (checksum, dirents, clusters, indexes).

        libzim answers False for the damage it looks for; an error it raises while
        reading is damage too, so it also fails the check. Anything else is a bug and
        propagates.
        """
        try:
            return bool(self._archive.check())
        except (RuntimeError, OSError):  # what libzim's C++ exceptions become
            return False

    # -- search -----------------------------------------------------------------------

    def fulltext(self, query: str, limit: int, offset: int = 0) -> SearchPage:
        """Ranked normalised paths for a Xapian query; empty when there is no index."""
        if not self.info.has_fulltext_index or limit <= 0:
            return SearchPage(paths=[], estimated_total=0)
        with self._searching:
            if self._searcher is None:
                self._searcher = Searcher(self._archive)
            try:
                paths, total = _searched(self._searcher, query, offset, limit)
            except Exception as exc:
                clear_frames(exc)  # the Search in them dies here, under the lock
                raise ZimError(f"full-text search failed: {_reason(exc)}") from exc
        return SearchPage(paths=[normalise_path(p) for p in paths], estimated_total=total)

    def document_frequency(self, word: str) -> int:
        """Roughly how many documents contain ``word``, from libzim's match estimate
        (for archives whose index is not read directly)."""
        if not self.info.has_fulltext_index:
            return 0
        return self.fulltext(word, 1).estimated_total

    def suggest(self, query: str, limit: int) -> list[Suggestion]:
        """Title-index suggestions (redirects included), normalised, in libzim's order."""
        if limit <= 0:
            return []
        variants = [query]
        if not self.info.has_title_index and query[:1].islower():
            # Without a title index libzim falls back to a case-sensitive prefix match
            # over titles, and titles (MediaWiki's always) start with a capital.
            variants.append(query[:1].upper() + query[1:])
        out: dict[str, Suggestion] = {}
        with self._searching:
            try:
                if self._suggester is None:
                    self._suggester = SuggestionSearcher(self._archive)
                for variant in variants:
                    for raw in _suggested(self._suggester, variant, limit):
                        path = normalise_path(raw)
                        if path not in out and len(out) < limit:
                            entry = self._archive.get_entry_by_path(raw)
                            out[path] = Suggestion(path, str(entry.title))
            except Exception as exc:
                clear_frames(exc)
                raise ZimError(f"title suggestion failed: {_reason(exc)}") from exc
        return list(out.values())

    # -- entries ----------------------------------------------------------------------

    def _entry(self, path: str) -> Any:
        a = self._archive
        candidates = [path]
        if not self.info.new_namespace_scheme:
            candidates += [f"A/{path}", f"A/{path}.html"]
        for candidate in candidates:
            try:
                if a.has_entry_by_path(candidate):
                    return a.get_entry_by_path(candidate)
            except Exception as exc:  # a corrupt dirent surfaces here, not at open
                raise ZimError(f"entry lookup failed: {_reason(exc)}") from exc
        raise EntryNotFound(f"no entry at {path!r}")

    def has_entry(self, path: str) -> bool:
        try:
            self._entry(path)
        except EntryNotFound:
            return False
        return True

    def resolve(self, path: str) -> ResolvedEntry:
        """Follow libzim redirects from ``path`` to a content entry."""
        entry = self._entry(path)
        seen = {normalise_path(entry.path)}
        hops = 0
        while entry.is_redirect:
            hops += 1
            if hops > MAX_REDIRECT_HOPS:
                raise RedirectError(
                    f"redirect chain from {path!r} is longer than {MAX_REDIRECT_HOPS}"
                )
            entry = entry.get_redirect_entry()
            norm = normalise_path(entry.path)
            if norm in seen:
                raise RedirectError(f"redirect loop from {path!r} at {norm!r}")
            seen.add(norm)
        item = entry.get_item()
        final = normalise_path(entry.path)
        return ResolvedEntry(
            path=final,
            title=str(entry.title),
            mimetype=str(item.mimetype),
            size=int(item.size),
            redirected_from=normalise_path(path) if hops else None,
        )

    def iter_entries(self) -> Iterator[tuple[str, str, bool]]:
        """Every user entry as ``(normalised path, title, is_redirect)``, in path order.

        For tools that walk a whole archive (junk checks, benchmarks); old-scheme
        archives yield their ``A/`` articles only, new-scheme ones the ``C/`` namespace.
        """
        a = self._archive
        for index in range(int(a.entry_count)):
            entry = a._get_entry_by_id(index)
            raw = str(entry.path)
            if not self.info.new_namespace_scheme and not raw.startswith("A/"):
                continue
            yield normalise_path(raw), str(entry.title), bool(entry.is_redirect)

    def entries(self, start: int, stop: int) -> Iterator[EntryAt]:
        """The user entries numbered ``start`` to ``stop`` (exclusive; numbers run from 0
        to ``info.entry_count``, in path order), each with what it is: a redirect, or
        content with its MIME type and size. Old-scheme archives yield their ``A/``
        articles only; an entry that cannot be read is skipped (the caller counts what
        it asked for, not what it got)."""
        a = self._archive
        for index in range(max(0, start), min(stop, int(a.entry_count))):
            try:
                entry = a._get_entry_by_id(index)
                raw = str(entry.path)
                if not self.info.new_namespace_scheme and not raw.startswith("A/"):
                    continue
                if entry.is_redirect:
                    yield EntryAt(path=normalise_path(raw), title=str(entry.title), redirect=True)
                    continue
                item = entry.get_item()
                yield EntryAt(
                    path=normalise_path(raw),
                    title=str(entry.title),
                    mimetype=str(item.mimetype),
                    size=int(item.size),
                )
            except Exception:  # a corrupt dirent: that entry is not indexed
                continue

    def content(self, path: str) -> bytes:
        """Bytes of the content entry at ``path`` (redirects followed)."""
        return self.read(path)[1]

    def read(self, path: str) -> tuple[ResolvedEntry, bytes]:
        """The content entry at ``path`` (redirects followed) and its bytes."""
        resolved = self.resolve(path)
        try:
            return resolved, bytes(self._entry(resolved.path).get_item().content)
        except ZimError:
            raise
        except Exception as exc:
            raise ZimError(f"reading {path!r} failed: {_reason(exc)}") from exc


def _searched(searcher: Any, query: str, offset: int, limit: int) -> tuple[list[str], int]:
    """One libzim full-text search: raw paths and the match estimate. Its ``Search``
    and result set die with this call, under the caller's lock."""
    search = searcher.search(Query().set_query(query))
    paths = [str(path) for path in search.getResults(offset, limit)]
    return paths, int(search.getEstimatedMatches())


def _suggested(suggester: Any, query: str, limit: int) -> list[str]:
    """libzim's title suggestions for ``query``: raw paths (its objects die here)."""
    return [str(path) for path in suggester.suggest(query).getResults(0, limit)]


def limit_cluster_cache(max_bytes: int) -> bool:
    """Bound libzim's cache of decompressed clusters (one per process, shared by every
    archive it has open; libzim 9's default is 16 MB) to ``max_bytes``; False where the
    bindings cannot (python-libzim before 3.6 kept a count of clusters per archive)."""
    setter = getattr(libzim, "set_cluster_cache_max_size", None)
    if setter is None:
        return False
    setter(max_bytes)
    return True


def cluster_cache_bytes() -> tuple[int, int] | None:
    """libzim's cluster cache: what it holds now and its bound, in bytes (None where the
    bindings do not say)."""
    current = getattr(libzim, "get_cluster_cache_current_size", None)
    limit = getattr(libzim, "get_cluster_cache_max_size", None)
    if current is None or limit is None:
        return None
    return int(current()), int(limit())


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())
