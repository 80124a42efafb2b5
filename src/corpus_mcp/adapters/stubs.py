"""HTML redirect stubs: a small page whose ``<meta http-equiv=refresh>`` sends the reader
elsewhere (mwoffliner's fragment redirects, a crawled site's moved pages), and where it
lands (pure)."""

from __future__ import annotations

import posixpath
import re
from typing import Final
from urllib.parse import unquote

from corpus_mcp.adapters.base import Landing
from corpus_mcp.cleaning import parse_html

__all__ = ["STUB_MAX_BYTES", "refresh_landing"]

#: Larger pages are read as pages: a stub is a few hundred bytes.
STUB_MAX_BYTES: Final = 8192
# A quoted URL runs to the last quote of the attribute: mwoffliner does not escape a quote
# inside it (``URL='./Talkin'_Blues#Death'``).
_REFRESH_URL: Final = re.compile(
    r"""url\s*=\s*(?:(?P<quote>['"])(?P<quoted>.*)(?P=quote)|(?P<bare>[^\s'"]*))""",
    re.IGNORECASE,
)


def refresh_landing(path: str, html: bytes, *, web: bool = False) -> Landing | None:
    """Where the stub at ``path`` sends the reader, or None when ``html`` is no stub.

    ``web``: a refresh to an absolute ``http(s)`` URL is no landing in the archive (a
    crawl's redirect off the site); without it such a URL is read as a path, as
    mwoffliner never writes one.
    """
    if len(html) > STUB_MAX_BYTES:
        return None
    lowered = html.lower()
    if b"http-equiv" not in lowered or b"refresh" not in lowered:
        return None
    root = parse_html(html)
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        match = _REFRESH_URL.search(meta.get("content") or "")
        url = (match.group("quoted") or match.group("bare") or "").strip() if match else ""
        if web and url[:8].lower().startswith(("http://", "https://", "//")):
            return None
        if url:
            return _resolve_landing(path, url)
    return None


def _resolve_landing(stub_path: str, url: str) -> Landing:
    target, _, fragment = url.partition("#")
    target = unquote(target.split("?", 1)[0])
    base = posixpath.dirname(stub_path)
    if target:
        joined = posixpath.normpath(posixpath.join("/" + base, target)).lstrip("/")
    else:
        joined = stub_path
    section = unquote(fragment).replace(" ", "_") if fragment else None
    return Landing(path=joined, section=section or None)
