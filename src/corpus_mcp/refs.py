"""The ``corpus://<Library>/<path>[#<anchor>]`` codec: the only place that knows a ref's
syntax.

A ref names a library (as configured, never a file or a namespace) and a normalised
entry path, so it survives the operator replacing an archive with a newer snapshot of
the same library. A literal ``#`` only ever opens the fragment: the anchor of a section
inside the document, which links in fetched documents carry
(``corpus://Flask-Docs/api/index#flask.Flask.route``); a link to a section of the same
document is the fragment alone (:func:`anchor`).

Refs are IRIs (RFC 3987): every letter, digit and mark of any script stays as it is, so
``corpus://Wikibooks/Італьянская_кухня`` costs the title's own characters, where
percent-encoding every non-ASCII character cost six for a Cyrillic letter and nine for
a Chinese one. A character is written as its UTF-8 percent-escapes only where it would
break a ref or make two refs look alike:

- ASCII as RFC 3986 has it: ``%`` (the escape itself, so a path holding ``%41`` stays
  itself), ``#`` (it opens the fragment), ``?``, the space, ``"<>\\^`{|}[]`` and the
  controls; ``/``, ``:``, ``@``, ``!$&'*+,;=`` and ``-._~`` stay readable.
- Whitespace and separators of every script (Zs, Zl, Zp), controls and format
  characters (Cc, Cf): bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E,
  U+200F, U+061C) reorder what is shown, zero-width ones (U+200B-U+200D, U+2060, U+FEFF,
  the soft hyphen) show nothing, so either way two different refs would read the same.
  A Persian title's zero-width non-joiner pays nine characters for that.
- What renders as nothing without being a format character (Unicode's
  Default_Ignorable_Code_Point: the combining grapheme joiner, variation selectors,
  Hangul fillers, Mongolian free variation selectors, Khmer's inherent vowels) and
  U+2800 BRAILLE PATTERN BLANK, for the same reason.
- Code points that are no text: surrogates (Cs; no archive path holds one, since libzim's
  paths are UTF-8), private use (Co; the cleaner's own markers are private-use
  characters), noncharacters and code points unassigned in the running Python's Unicode
  (Cn).
- Lookalikes of the three characters that give a ref its structure: ``/`` (the library,
  the path's segments), ``#`` (the anchor) and ``%`` (an escape). That is the
  punctuation and symbols Unicode's confusables.txt maps to ``/`` (U+1735, U+2041,
  U+2044 FRACTION SLASH, U+2215 DIVISION SLASH, U+2571, U+27CB, U+29F8 BIG SOLIDUS,
  U+2F03, U+31D3, U+1D23A) and the compatibility forms of all three (U+FF0F FULLWIDTH
  SOLIDUS, U+FF03 and U+FE5F number signs, U+FF05 and U+FE6A percent signs): shown, a
  person could not tell ``a∕b`` from ``a/b``, nor an agent keep them apart. Letters
  confusables.txt maps to ``/`` stay (Katakana ノ, the ideograph 丿, Coptic Ⳇ): they
  are text of their script, and Japanese titles are full of ノ. Lookalikes of ``?`` stay
  too: ``?`` opens nothing in a ref, and the fullwidth question mark is ordinary
  punctuation in Chinese and Japanese titles.
- A combining mark that would not sit on a letter, digit, mark or symbol shown before
  it (at the start of a segment, after ``/``, ``_`` or an escape): it would be drawn on
  that neighbour, and after an escape it could even compose with the escape's last hex
  digit under NFC (``B`` + U+0307 is ``Ḃ``).
- Parentheses, unless those of the path (or of the anchor) are balanced and not nested
  (``Ray_(film)`` stays): a fetched document's Markdown link must hold the ref whole
  (CommonMark ends a link's destination at an unbalanced parenthesis, and the server's
  own link patterns read one level).
- NFC. A path is bytes in the archive, and a ref must name exactly those bytes even
  after something on the way normalises the text to NFC, as many text pipelines do. A
  path segment already in NFC shows as it is (normalising changes nothing). A segment
  that is not (a decomposed ``é``, ``e`` + U+0301, as some crawled sites' paths are) shows
  escaped every character NFC would compose, reorder or replace: its combining marks,
  Hangul's conjoining vowels and final consonants, characters NFC maps to others (U+212B
  ANGSTROM SIGN, CJK compatibility ideographs). So every ref is itself in NFC, and
  decodes to exactly the path.

Decoding percent-decodes (UTF-8) whatever is escaped, so every spelling of a path names
it: this form, the fully percent-encoded form refs had before (every non-ASCII character
escaped), or anything between. Paths are matched exactly (case and normalisation
count); the library's name ignores case.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import unquote

from corpus_mcp.errors import CorpusError

SCHEME = "corpus://"
MAX_REF_CHARS = 2048

_ASCII_KEPT = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/:@!$&'()*+,;=-._~"
)
_PLAIN = re.compile(r"[A-Za-z0-9/:@!$&'()*+,;=\-._~]*")
"""ASCII the codec writes as it is (parentheses if balanced: nothing else to decide)."""
_ESCAPED_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"})
_SLASH_LOOKALIKES = "\u1735\u2041\u2044\u2215\u2571\u27cb\u29f8\u2f03\u31d3\U0001d23a"
"""The punctuation and symbols confusables.txt maps to ``/``."""
_COMPATIBILITY_FORMS = "\uff0f\uff03\ufe5f\uff05\ufe6a"
"""Fullwidth and small ``/``, ``#``, ``%`` (NFKC makes them the ASCII ones)."""
_LOOKALIKES = frozenset(_SLASH_LOOKALIKES + _COMPATIBILITY_FORMS)
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""Default_Ignorable_Code_Point outside Cf and Cn, and the blank Braille pattern."""
_MARK_BASES = frozenset("LNMS")
"""The general categories (first letter) a kept combining mark may sit on."""


class Target(NamedTuple):
    """What a ref names: a library, an entry path in it, maybe a section anchor."""

    library: str
    path: str
    fragment: str | None = None


@functools.lru_cache(maxsize=8192)
def encode(library: str, path: str, fragment: str | None = None) -> str:
    """The ref of an entry (``path`` is a normalised ZIM path), or of an anchor in it
    (remembered: a fetched page links to the same documents as its neighbours)."""
    ref = f"{SCHEME}{library}/{_escaped(path)}"
    return f"{ref}#{_escaped(fragment)}" if fragment else ref


def anchor(fragment: str) -> str:
    """The link to a section of the same document: ``#`` and the anchor spelt as a ref
    spells it, so it may be appended to that document's ref."""
    return f"#{_escaped(fragment)}"


def anchor_of(link: str) -> str:
    """The anchor a same-document link (:func:`anchor`, ``#...``) names; a malformed
    escape stands for a character no anchor holds."""
    return unquote(link.removeprefix("#"), errors="replace")


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
        raise _invalid("the ref contains control characters; pass it as search returned it")
    if not ref.startswith(SCHEME):
        raise _invalid(
            f"refs start with {SCHEME!r} (e.g. 'corpus://Wikipedia/Ray_Charles'); "
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
    path = _unescaped(raw_path, "path")
    segments = path.split("/")
    if any(segment in {".", ".."} for segment in segments) or path.startswith("/"):
        raise _invalid("the ref's path may not contain '.' or '..' segments or start with '/'")
    return Target(library, path, _unescaped(raw_fragment, "anchor") or None)


def _escaped(text: str) -> str:
    """``text`` (a path or an anchor) as a ref spells it (see the module's text)."""
    parentheses = flat_parentheses(text)
    if parentheses and _PLAIN.fullmatch(text):
        return text
    return "/".join(_escaped_segment(segment, parentheses) for segment in text.split("/"))


def _escaped_segment(segment: str, parentheses: bool) -> str:
    composing = not unicodedata.is_normalized("NFC", segment)
    spelt: list[str] = []
    base = False  # whether the last character was kept and a mark may sit on it
    for char in segment:
        if char.isascii():
            kept = char in _ASCII_KEPT and (parentheses or char not in "()")
            category = unicodedata.category(char)
        else:
            category = unicodedata.category(char)
            kept = not (
                category in _ESCAPED_CATEGORIES
                or char in _LOOKALIKES
                or char in _INVISIBLE
                or (category[0] == "M" and not base)
                or (composing and _composes(char, category))
            )
        spelt.append(char if kept else _percent(char))
        base = kept and category[0] in _MARK_BASES
    return "".join(spelt)


def _composes(char: str, category: str) -> bool:
    """Whether NFC may compose, reorder or replace ``char`` (non-ASCII): a mark, a
    Hangul vowel or final consonant (composed with what precedes it), or a character
    NFC maps to another."""
    return (
        category[0] == "M"
        or "\u1161" <= char <= "\u1175"
        or "\u11a8" <= char <= "\u11c2"
        or unicodedata.normalize("NFC", char) != char
    )


def flat_parentheses(text: str) -> bool:
    """Whether every ``(`` in ``text`` is closed before the next one opens: parentheses a
    Markdown link's destination, and the server's own link patterns, read whole."""
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if depth not in (0, 1):
            return False
    return depth == 0


def _percent(char: str) -> str:
    # surrogatepass: a lone surrogate (no path holds one) is escaped, not a crash.
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))


def _unescaped(raw: str, part: str) -> str:
    try:
        text = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise _invalid(f"the ref's {part} has percent-escapes that are not UTF-8") from None
    if "\x00" in text:
        raise _invalid(f"the ref's {part} contains a NUL character, which no archive holds")
    return text


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in {"Cc", "Cs"} for ch in text)


def _invalid(message: str) -> CorpusError:
    return CorpusError("invalid_ref", message)
