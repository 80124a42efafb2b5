"""The ``corpus://<Library>/<path>[#<anchor>]`` codec: the only place that knows a ref's
syntax.

A ref names a library (as configured, never a file or a namespace) and a normalised
entry path, so it survives the operator replacing an archive with a newer snapshot of
the same library. The path is percent-encoded where needed so that every ZIM path
round-trips (spaces, ``#``, ``?``, ``%``, non-ASCII); ``/`` and the characters common in
titles (``:``, ``(``, ``)``, ``,``, ``'``) stay readable. A literal ``#`` therefore only
ever opens the fragment: the anchor of a section inside the document, which links in
fetched documents carry (``corpus://Flask/api/index#flask.Flask.route``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import quote, unquote

from corpus_mcp.errors import CorpusError

SCHEME = "corpus://"
MAX_REF_CHARS = 2048
_SAFE = "/:@!$&'()*+,;=-._~"


class Target(NamedTuple):
    """What a ref names: a library, an entry path in it, maybe a section anchor."""

    library: str
    path: str
    fragment: str | None = None


def encode(library: str, path: str, fragment: str | None = None) -> str:
    """The ref of an entry (``path`` is a normalised ZIM path), or of an anchor in it."""
    ref = f"{SCHEME}{library}/{quote(path, safe=_SAFE)}"
    return f"{ref}#{quote(fragment, safe=_SAFE)}" if fragment else ref


def decode(ref: object, enabled: Iterable[str], disabled: Iterable[str] = ()) -> Target:
    """What a ref names, or ``CorpusError("invalid_ref")`` saying what is wrong.

    The library is matched case-insensitively (names are unique that way) and returned
    in its configured spelling. An empty fragment (``...#``) is no fragment.
    """
    if not isinstance(ref, str) or not ref.strip():
        raise _invalid("the ref is empty; pass a ref exactly as search returned it")
    if len(ref) > MAX_REF_CHARS:
        raise _invalid(f"the ref is longer than {MAX_REF_CHARS} characters")
    if _has_control(ref):
        raise _invalid("the ref contains control characters")
    if not ref.startswith(SCHEME):
        raise _invalid(
            f"refs start with {SCHEME!r} (e.g. 'corpus://wikipedia/Ray_Charles'); "
            "pass a ref exactly as search returned it"
        )
    body, _, raw_fragment = ref[len(SCHEME) :].partition("#")
    library_part, sep, raw_path = body.partition("/")
    names = {name.lower(): name for name in enabled}
    library = names.get(library_part.lower())
    if library is None:
        if library_part.lower() in {name.lower() for name in disabled}:
            raise _invalid(f"library {library_part!r} is not enabled on this server")
        known = ", ".join(sorted(names.values()))
        raise _invalid(f"unknown library {library_part!r}; libraries: {known}")
    if not sep or not raw_path:
        raise _invalid(f"the ref names library {library!r} but no document path")
    path = _unquoted(raw_path, "path")
    segments = path.split("/")
    if any(segment in {".", ".."} for segment in segments) or path.startswith("/"):
        raise _invalid("the ref's path may not contain '.' or '..' segments or start with '/'")
    return Target(library, path, _unquoted(raw_fragment, "anchor") or None)


def _unquoted(raw: str, part: str) -> str:
    try:
        text = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise _invalid(f"the ref's {part} has percent-escapes that are not UTF-8") from None
    if _has_control(text):
        raise _invalid(f"the ref's {part} contains control characters")
    return text


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in {"Cc", "Cs"} for ch in text)


def _invalid(message: str) -> CorpusError:
    return CorpusError("invalid_ref", message)
