"""Web addresses as the sites use them (pure; a leaf).

A web link in a fetched document may name a page another archive of the corpus holds
(:mod:`corpus_mcp.webmap`). Two links name the same page when they differ only in what
the sites ignore: the scheme (``http``/``https``), ``www.``, a mobile host
(``en.m.wikipedia.org``), a default port, user information, percent-encoding, dot
segments and doubled slashes; a wiki's script form of an article
(``/w/index.php?title=NTFS``) is its article address (``/wiki/NTFS``). Whether
``/tutorial/`` is ``tutorial/index.html`` and
whether a page's address ends in ``.html`` is each site's own convention: the archive's
adapter names the paths an address may be stored under
(:meth:`~corpus_mcp.adapters.Adapter.web_paths`), and the archive says which it holds.

Where an archive's pages are on the web is a :class:`Mount`: the pages under one
address prefix are the archive's paths under one path prefix. Mounts are learnt from
what the archive says of a page or two (:func:`mount_of`: a page's path and its source
URL); a documentation version in a mount's address (``3.11``, ``2.2.x``, ``stable``) is
a version the corpus holds, which a link naming another version of the same page
(``/3/``, ``/dev/``, ``/en/latest/``) is led to (:func:`is_version`).
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

__all__ = [
    "Address",
    "Mount",
    "is_version",
    "mount_of",
    "normal_host",
    "parse_address",
    "quick_host",
    "segments",
]

_SCHEMES: Final = ("http://", "https://", "//")
_DEFAULT_PORTS: Final = (":80", ":443")
# Labels a site's mobile host adds (``en.m.wikipedia.org``, ``mobile.twitter.com``).
_MOBILE_LABELS: Final = frozenset({"m", "mobile"})
# A version as documentation sites put one in their paths: 3, 3.11, 3.11.2, 2.2.x, v1.2.
_VERSION: Final = re.compile(r"v?\d+(?:\.\d+)*(?:\.x)?", re.IGNORECASE)
# The names documentation sites give a moving version.
_VERSION_ALIASES: Final = frozenset(
    {"stable", "latest", "dev", "devel", "current", "main", "master", "nightly", "release"}
)
# What a stored page may be called where its address names a folder.
_INDEX_NAMES: Final = frozenset({"", "index", "index.html", "index.htm"})
_PAGE_SUFFIXES: Final = (".html", ".htm")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
# MediaWiki's script path and article path as the Wikimedia sites (and the wikis that
# copy their layout) set them: ``/w/index.php?title=T`` shows what ``/wiki/T`` does.
_WIKI_SCRIPT: Final = "w/index.php"
_WIKI_ARTICLES: Final = "wiki/"
# What a script address may say besides its title and still show the current article:
# the default action, and not following a redirect (the archive lands on it anyway).
_WIKI_VIEW: Final = {"action": ["view"], "redirect": ["no"]}


class Address(NamedTuple):
    """A web address as the sites compare them."""

    host: str
    """Lower case, without ``www.``, a mobile label, a default port or user information."""
    path: str
    """Percent-decoded, without its leading ``/``, dot segments resolved, slashes single;
    a trailing ``/`` kept (it says the address names a folder); ``""`` for the root."""
    fragment: str | None
    """Percent-decoded; None when empty or absent."""
    raw_host: str
    """The host as written, lower case (a crawl stores its pages under it)."""

    @property
    def key(self) -> str:
        """``host/path``: what mounts are compared with."""
        return f"{self.host}/{self.path}"


class Mount(msgspec.Struct, frozen=True, gc=False):
    """Some of an archive's pages on the web: the page at ``address`` + *rest* is stored
    at ``path`` + one of the paths the adapter names for *rest*."""

    address: str
    """A normalised address prefix ending in ``/``: ``en.wikipedia.org/wiki/``,
    ``docs.python.org/3.11/``, ``unix.stackexchange.com/``."""
    path: str = ""
    """The archive path prefix its pages are stored under (``""``, or a crawl's
    ``docs.python.org/3.11/``)."""


def quick_host(url: str) -> str | None:
    """The host of an ``http(s)://`` or ``//`` URL, normalised, from string operations
    alone (most web links lead to no archive, and this is all it takes to tell); None
    for anything else."""
    lowered = url[:8].lower()
    for scheme in _SCHEMES:
        if lowered.startswith(scheme):
            rest = url[len(scheme) :]
            break
    else:
        return None
    end = len(rest)
    for stop in "/?#":
        found = rest.find(stop)
        if 0 <= found < end:
            end = found
    return normal_host(rest[:end])


def normal_host(host: str) -> str:
    """``WWW.Example.org:443`` -> ``example.org``; ``en.m.wikipedia.org`` ->
    ``en.wikipedia.org``."""
    host = host.rpartition("@")[2].strip().lower()
    for port in _DEFAULT_PORTS:
        if host.endswith(port):
            host = host[: -len(port)]
    host = host.rstrip(".")
    labels = host.split(".")
    if labels[0] == "www" and len(labels) > 2:
        labels = labels[1:]
    if len(labels) > 2:
        kept = [label for label in labels[:-2] if label not in _MOBILE_LABELS]
        labels = [*kept, *labels[-2:]]
    return ".".join(labels)


def parse_address(url: str) -> Address | None:
    """The address of an ``http(s)://`` (or scheme-relative ``//``) URL, normalised;
    None for another scheme, a malformed URL or one holding control characters."""
    if quick_host(url) is None or _CONTROL.search(url):
        return None
    if url.startswith("//"):
        url = "https:" + url
    try:
        parts = urlsplit(url)
        raw_host = parts.netloc.rpartition("@")[2].lower()
    except ValueError:  # a malformed IPv6 host
        return None
    host = normal_host(parts.netloc)
    if not host:
        return None
    path = _clean_path(unquote(parts.path, errors="replace"))
    if path == _WIKI_SCRIPT:
        path = _clean_path(_wiki_article(parts.query) or path)
    fragment = unquote(parts.fragment, errors="replace").strip() or None
    if _CONTROL.search(path) or (fragment is not None and _CONTROL.search(fragment)):
        return None
    for port in _DEFAULT_PORTS:
        if raw_host.endswith(port):
            raw_host = raw_host[: -len(port)]
    return Address(host=host, path=path, fragment=fragment, raw_host=raw_host)


def _wiki_article(query: str) -> str | None:
    """The article path a wiki's script address shows (``title=NTFS`` ->
    ``wiki/NTFS``), or None when it shows something else: an old revision, a diff, an
    edit form, a history."""
    fields = parse_qs(query, keep_blank_values=True)
    title = fields.pop("title", [""])
    if len(title) != 1 or not title[0].strip():
        return None
    if any(_WIKI_VIEW.get(name) != value for name, value in fields.items()):
        return None
    return _WIKI_ARTICLES + title[0].strip()


def _clean_path(path: str) -> str:
    """A decoded URL path without its leading ``/``, ``.`` and ``..`` resolved (never
    above the root), empty segments dropped, a trailing ``/`` kept."""
    folder = path.endswith(("/", "/.", "/.."))
    kept: list[str] = []
    for segment in path.split("/"):
        if segment in {"", "."}:
            continue
        if segment == "..":
            if kept:
                kept.pop()
            continue
        kept.append(segment)
    cleaned = "/".join(kept)
    return cleaned + "/" if folder and cleaned else cleaned


def segments(path: str) -> list[str]:
    """A path's segments; a folder's trailing ``/`` as a last empty segment."""
    return path.split("/") if path else []


def is_version(segment: str) -> bool:
    """Whether a path segment names a documentation version: ``3``, ``3.11``,
    ``2.2.x``, ``v1.2``, or a moving one (``stable``, ``latest``, ``dev``...)."""
    return segment.lower() in _VERSION_ALIASES or _VERSION.fullmatch(segment) is not None


def mount_of(path: str, url: str) -> tuple[Mount, ...]:
    """Where the pages of an archive storing the page at ``url`` under ``path`` are on
    the web, learnt from that one page: the address and path prefixes left once their
    common ending is taken off.

    Their last segments may differ as sites make them: ``functions`` is
    ``functions.html``, ``quickstart/index`` is ``quickstart/``, a crawl's
    ``docs.python.org/3.11/`` is ``3.11/``. A version segment at the start of the common
    part stays in both prefixes (the version is where the archive's pages are). A crawl
    storing pages under the host they were read from (warc2zim) also gets the whole
    host. Nothing (``()``) when the two share no ending.
    """
    address = parse_address(url)
    if address is None:
        return ()
    stored = path.split("/")
    web = address.path.split("/") if address.path else [""]
    if not _same_page(stored[-1], web[-1]):
        return ()
    i, j = len(stored) - 2, len(web) - 2
    while i >= 0 and j >= 0 and stored[i] == web[j]:
        i, j = i - 1, j - 1
    # stored[: i + 1] and web[: j + 1] are the prefixes; the common part follows them.
    while i + 1 < len(stored) - 1 and j + 1 < len(web) - 1 and is_version(web[j + 1]):
        i, j = i + 1, j + 1
    path_prefix = "".join(f"{segment}/" for segment in stored[: i + 1])
    web_prefix = "".join(f"{segment}/" for segment in web[: j + 1])
    host_in_path = f"{address.raw_host}/"
    if path_prefix.startswith(host_in_path):
        # A crawl: the stored path is the address itself, under the host as written.
        inner = path_prefix[len(host_in_path) :]
        mounts = [Mount(f"{address.host}/{web_prefix}", path_prefix)]
        if inner == web_prefix and web_prefix:
            mounts.append(Mount(f"{address.host}/", host_in_path))
        return tuple(mounts)
    return (Mount(f"{address.host}/{web_prefix}", path_prefix),)


def _same_page(stored: str, web: str) -> bool:
    """Whether the last segment of a stored path and of its address name one page:
    equal, the address adding ``.html``, or a folder's address and its index page."""
    if stored == web:
        return True
    if any(web == stored + suffix for suffix in _PAGE_SUFFIXES):
        return True
    return web == "" and stored in _INDEX_NAMES
