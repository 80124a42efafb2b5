"""Where a link in a document leads, as the agent sees it (pure).

An archive's links are relative URLs between its entries (``../api/index#flask.Flask``),
links to the web, and links into pages the server does not serve (user and tag pages,
assets). The agent can only follow the first kind through ``fetch``, so each becomes:

- a ``corpus://`` ref of the document it names, its fragment kept (``fetch`` lands on the
  section holding that anchor), when the family serves that path as a document;
- ``#anchor`` when it stays inside the same document (fetch that section of the ref the
  agent already has: much shorter than the ref repeated on every cross-reference);
- the URL itself for the web (``http``, ``https``, ``ftp``, ``mailto``);
- None (the text alone) for everything else.

Nothing here checks that an entry exists: the scrapers write relative links only to
entries they stored (mwoffliner, devdocs2zim and sotoki all turn links to what they left
out into web links or plain text), and ``fetch`` answers ``not_found`` for any that is not.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from urllib.parse import quote, unquote

from lxml.html import HtmlElement

from corpus_mcp import refs
from corpus_mcp.zim.errors import normalise_path

_WEB_SCHEMES = ("http://", "https://", "ftp://", "mailto:")
# Characters a web URL keeps as they are (what browsers do not escape).
_URL_SAFE = ":/?#[]@!$&'()*+,;=%~-._"


class LinkResolver:
    """The :data:`~corpus_mcp.cleaning.inline.LinkTarget` of one document.

    ``serves(path)`` says whether a path is a document (or a redirect to one) of this
    family; ``rewrite`` repairs a family's broken hrefs before they are resolved;
    ``wanted`` decides which links keep their target at all (a family where every noun
    is a link keeps only those that carry meaning).
    """

    def __init__(
        self,
        library: str,
        page: str,
        *,
        serves: Callable[[str], bool],
        rewrite: Callable[[str], str] | None = None,
        wanted: Callable[[HtmlElement], bool] | None = None,
    ) -> None:
        self._library = library
        self._page = page
        self._base = posixpath.dirname(page)
        self._serves = serves
        self._rewrite = rewrite
        self._wanted = wanted

    def __call__(self, anchor: HtmlElement) -> str | None:
        href = (anchor.get("href") or "").strip()
        if not href or (self._wanted is not None and not self._wanted(anchor)):
            return None
        if self._rewrite is not None:
            href = self._rewrite(href)
        return self.target(href)

    def target(self, href: str) -> str | None:
        """What ``href`` (as written in this document) leads to, or None."""
        lowered = href[:8].lower()
        if lowered.startswith("//"):
            return web_url("https:" + href)
        if lowered.startswith(_WEB_SCHEMES):
            return web_url(href)
        if ":" in href.split("/", 1)[0].split("#", 1)[0] and not href.startswith("#"):
            return None  # javascript:, data:, tel:, or a scheme no agent can follow
        raw_path, _, raw_fragment = href.partition("#")
        fragment = unquote(raw_fragment).strip() or None
        raw_path = raw_path.split("?", 1)[0]
        if not raw_path:
            return refs.anchor(fragment) if fragment else None
        # A site-absolute path is taken from the archive's root (a reader would need
        # the site itself; fetch turns it back into text if no entry is there).
        base = "" if raw_path.startswith("/") else self._base
        joined = posixpath.normpath(posixpath.join(base, unquote(raw_path).lstrip("/")))
        if joined in {".", ""} or joined.startswith("../") or joined == "..":
            return None  # above the archive's root
        path = normalise_path(joined)
        if path == self._page:
            return refs.anchor(fragment) if fragment else None
        if not self._serves(path):
            return None
        return refs.encode(self._library, path, fragment)


def web_url(url: str) -> str:
    """A web URL with what a Markdown link cannot hold escaped (spaces, quotes...)."""
    return quote(url, safe=_URL_SAFE)
