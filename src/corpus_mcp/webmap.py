"""The corpus as one web (pure): which documents a web address may lead to.

Each archive's :class:`~corpus_mcp.adapters.Site`, read once with its tables, says where
its pages are on the web as a few *mounts* (address prefix <-> path prefix). The map
indexes every library's mounts by host, so resolving a link is a dictionary look-up on
its host and a few string comparisons: no table of pages, whatever an archive's size
(English Wikipedia is one mount, ``en.wikipedia.org/wiki/``). What it answers is where
the page *would* be stored: each library whose site holds the address, best first, with
the paths its adapter names for it (:meth:`~corpus_mcp.adapters.Adapter.web_paths`),
routes of its page list followed; the archives say which of those they hold (fetch
asks them as it asks about the links inside an archive).

Libraries are ranked: a mount naming the link's very version first (a link to
``/3.11/`` is read in the 3.11 documentation, one to ``/3/`` in whichever version the
corpus holds, saying so); then the more specific mount (a documentation set's own
prefix before a crawl of its whole host); then the newer snapshot (two snapshots of one
site: the newer wins where it holds the page); then the manifest's order. Two
libraries whose sites share addresses are an :class:`Overlap`, which the corpus logs
once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, NamedTuple

from corpus_mcp.adapters import Adapter, PageList, Site
from corpus_mcp.addresses import Mount, is_version, parse_address, quick_host

__all__ = [
    "LibrarySite",
    "Overlap",
    "WebMap",
    "WebTarget",
    "describe_overlap",
    "first_held",
    "library_site",
    "version_note",
    "wanted_paths",
]

# Words a documentation archive's title ends with that are no part of its product's name.
_TITLE_TAIL: Final = frozenset({"documentation", "docs", "doc", "manual", "reference"})
_SNAPSHOT: Final = re.compile(r"(\d{4})-(\d{2})([a-z]?)")
_DIGITS: Final = re.compile(r"\d+(?:\.\d+)*")


class LibrarySite(NamedTuple):
    """One library's part of the map: its site and how its adapter reads addresses."""

    name: str
    site: Site
    routes: Mapping[str, str]
    """The page list's routes (a site path -> its document), followed from a candidate."""
    web_paths: Callable[[str], tuple[str, ...]]
    serves: Callable[[str], bool]
    snapshot: str | None
    """Which snapshot the archive is (:func:`corpus_mcp.snapshots.file_snapshot`): the
    newer one is tried first."""


class WebTarget(NamedTuple):
    """Where a web address may lead in one library."""

    library: str
    paths: tuple[str, ...]
    """Archive paths the page may be stored under, best first (the archive says which)."""
    fragment: str | None
    note: str | None
    """What a link's text adds when the library holds another version than the link
    names ("Python 3.11 here"); None for the very version."""


class Overlap(NamedTuple):
    """Two libraries whose sites share addresses (two snapshots of one site): links
    there lead to ``first`` where it holds the page, else to ``second``."""

    address: str
    first: str
    second: str
    first_snapshot: str | None = None
    second_snapshot: str | None = None


class _Entry(NamedTuple):
    segments: tuple[str, ...]
    mount: Mount
    library: LibrarySite
    order: int


def library_site(
    name: str, adapter: Adapter, site: Site, pages: PageList, snapshot: str | None
) -> LibrarySite:
    """A library's part of the map, from its adapter and the tables read from its archive."""
    return LibrarySite(name, site, pages.paths, adapter.web_paths, adapter.serves, snapshot)


class WebMap:
    """Every library's mounts by host (built once per corpus, and again when an archive
    is replaced: it holds no more than the mounts)."""

    def __init__(self, libraries: Sequence[LibrarySite] = ()) -> None:
        by_host: dict[str, list[_Entry]] = {}
        for order, library in enumerate(libraries):
            for mount in library.site.mounts:
                host, _, inner = mount.address.partition("/")
                parts = tuple(part for part in inner.split("/") if part)
                by_host.setdefault(host, []).append(_Entry(parts, mount, library, order))
        for entries in by_host.values():
            entries.sort(key=lambda entry: (-len(entry.segments), entry.order))
        self._by_host = by_host
        # What a text holding a link to one of these hosts holds whatever the link's
        # spelling (``en.m.wikipedia.org`` holds ``wikipedia.org``).
        self._domains = frozenset(".".join(host.split(".")[-2:]) for host in by_host)

    def mentioned(self, texts: Iterable[str]) -> bool:
        """Whether any of ``texts`` names a domain some library's pages come from: when
        none does (most fetched texts), none of their links leads into the corpus, told
        without reading them link by link."""
        return any(domain in text for text in texts for domain in self._domains)

    def resolve(self, url: str) -> tuple[WebTarget, ...]:
        """Where ``url`` may lead, best first (a library with several mounts holding the
        address comes once for each); ``()`` for an address no library's site holds
        (most web links: told from the host alone)."""
        host = quick_host(url)
        if host is None or host not in self._by_host:
            return ()
        address = parse_address(url)
        if address is None:
            return ()
        link = address.path.split("/") if address.path else []
        ranked: list[tuple[tuple[object, ...], _Entry, str, str | None]] = []
        for entry in self._by_host.get(address.host, ()):
            rank, matched = _rank(entry, link)
            if matched is not None:
                rest, held = matched
                ranked.append((rank, entry, rest, held))
        ranked.sort(key=lambda found: found[0])
        targets: list[WebTarget] = []
        for _, entry, rest, held in ranked:
            library = entry.library
            paths: list[str] = []
            for path in library.web_paths(rest):
                stored = library.routes.get(entry.mount.path + path, entry.mount.path + path)
                if stored and stored not in paths and library.serves(stored):
                    paths.append(stored)
            if paths:
                note = version_note(library.site.title, held) if held else None
                target = WebTarget(library.name, tuple(paths), address.fragment, note)
                if target not in targets:  # two mounts of a crawl name the same paths
                    targets.append(target)
        return tuple(targets)

    def overlaps(self) -> tuple[Overlap, ...]:
        """Pairs of libraries whose sites share addresses (versions aside), one each,
        the one links try first named first."""
        found: dict[frozenset[str], Overlap] = {}
        for entries in self._by_host.values():
            for i, one in enumerate(entries):
                for other in entries[i + 1 :]:
                    pair = frozenset({one.library.name, other.library.name})
                    if len(pair) < 2 or pair in found or not _shared(one, other):
                        continue
                    longer = one if len(one.segments) >= len(other.segments) else other
                    address = list(longer.segments)
                    first, second = sorted((one, other), key=lambda e: _rank(e, address)[0])
                    found[pair] = Overlap(
                        longer.mount.address,
                        first.library.name,
                        second.library.name,
                        first.library.snapshot,
                        second.library.snapshot,
                    )
        return tuple(found.values())


def wanted_paths(resolved: Iterable[Sequence[WebTarget]]) -> dict[str, set[str]]:
    """The paths to ask each library about, for the targets of several addresses."""
    wanted: dict[str, set[str]] = {}
    for targets in resolved:
        for target in targets:
            wanted.setdefault(target.library, set()).update(target.paths)
    return wanted


def first_held(
    targets: Sequence[WebTarget], held: Mapping[str, Mapping[str, bool]]
) -> tuple[WebTarget, str] | None:
    """The first target (in the map's order) whose library holds one of its paths
    (``held``: library -> path -> stored; a library absent leads nowhere), and that path."""
    for target in targets:
        stored = held.get(target.library)
        if stored is None:
            continue
        path = next((path for path in target.paths if stored.get(path)), None)
        if path is not None:
            return target, path
    return None


def _rank(
    entry: _Entry, link: list[str]
) -> tuple[tuple[object, ...], tuple[str, str | None] | None]:
    """Where a link under a mount stands among the others (the very version first, then
    the more specific mount, the newer snapshot, the manifest's order), and what
    :func:`_under` says of it."""
    matched = _under(entry.segments, link)
    held = matched[1] if matched is not None else None
    rank = (held is not None, -len(entry.segments), _newest_first(entry.library.snapshot))
    return (*rank, entry.order), matched


def _under(mount: tuple[str, ...], link: list[str]) -> tuple[str, str | None] | None:
    """The rest of a link's path under a mount's path, and the mount's version segment
    where the link names another version (``3`` for ``3.11``, ``latest``); None when
    the link is not under the mount."""
    if len(link) < len(mount):
        return None
    held: str | None = None
    for ours, theirs in zip(mount, link, strict=False):
        if ours == theirs:
            continue
        if is_version(ours) and is_version(theirs):
            if ours.lower() != theirs.lower():
                held = ours
            continue
        return None
    return "/".join(link[len(mount) :]), held


def _shared(one: _Entry, other: _Entry) -> bool:
    """Whether two mounts of one host hold common addresses (versions aside)."""
    length = min(len(one.segments), len(other.segments))
    return all(
        a == b or (is_version(a) and is_version(b))
        for a, b in zip(one.segments[:length], other.segments[:length], strict=True)
    )


def _newest_first(snapshot: str | None) -> tuple[int, ...]:
    """A sort key putting newer snapshots first (``2026-05a``, a rebuild, after
    ``2026-05``), undated ones last."""
    found = _SNAPSHOT.match(snapshot or "")
    if found is None:
        return (1,)
    rebuild = ord(found.group(3)) if found.group(3) else 0
    return (0, -int(found.group(1)), -int(found.group(2)), -rebuild)


def describe_overlap(overlap: Overlap) -> str:
    """What the log and ``validate`` say of an :class:`Overlap`."""
    return (
        f"web addresses: libraries {overlap.first} (snapshot "
        f"{overlap.first_snapshot or 'undated'}) and {overlap.second} (snapshot "
        f"{overlap.second_snapshot or 'undated'}) both hold pages of {overlap.address}: a "
        f"link there leads to {overlap.first} where it holds the page, else to {overlap.second}"
    )


def version_note(title: str, held: str) -> str:
    """What a link's text adds when the corpus holds version ``held`` of the page it
    names: the archive's title without "documentation" ("Python 3.11 here"), with the
    version added when the title does not say it ("Flask 2.2.x here")."""
    words = title.split()
    while words and words[-1].lower() in _TITLE_TAIL:
        words.pop()
    label = " ".join(words)
    number = _DIGITS.match(held.lstrip("vV"))
    if not label:
        return f"{held} here"
    if number is not None and number.group() in label:
        return f"{label} here"
    return f"{label} {held} here"
