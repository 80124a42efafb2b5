"""What a library is about, and whether a query names it (pure).

"read a whole file into a string in node.js" names Node.js: the query should be steered
to the Node docs, and the word "node" should count for nothing in the Django or Git
pages that happen to use it ("the word 'postgres' in a Django heading put Django
first"). A library's *scope* is the words that name its subject, from its archive's
metadata: the configured name, ``Name`` (``devdocs_en_node``), ``Title`` (``Node.js 18
LTS Docs``) and ``Tags`` (``devdocs;node``: DevDocs' slug). Not the ``Description``:
it is a sentence about the library ("Questions and answers about the Git version
control system") whose ordinary words would steer any query that mentions "version".

Names made of symbols survive tokenisation (``C++``, ``C#``, ``node.js``, also as
``nodejs``). Short names (``C``, ``R``, ``Go``) are kept when they are the subject the
title opens with or a tag, but a query names them only where a reader would take them
for the name: written as the library writes it and in a scope position ("in C", "C
language", "with Go"), never as the letter or the verb.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

from corpus_mcp.ranking.text import STOP_WORDS, query_terms, stem, stems_of, word_set

#: Words of archive names and metadata that say how an archive was made or what kind of
#: library it is, not what it is about: never scope words.
ARCHIVE_VOCABULARY = word_set(
    """
    all maxi mini nopic novid nodet top com www org net io zim html docs doc documentation
    devdocs wiki stackexchange stack exchange lts en eng
    """
)
#: Words before or after a short name that make it a name ("in C", "C language").
_BEFORE = word_set("in with using for of on from to use via")
_AFTER = word_set(
    "language languages code program programs programming library libraries docs api "
    "apis standard compiler function functions syntax module modules package packages"
)
_SHORT_NAME = re.compile(r"[A-Za-z][A-Za-z+#]?[+#]*")
_PARTS = re.compile(r"[.\-]")


class Scope(msgspec.Struct, frozen=True, gc=False):
    """The words naming one library's subject."""

    stems: frozenset[str] = frozenset()
    """Stems of the words of three letters or more (and of names with symbols)."""
    short: frozenset[str] = frozenset()
    """Short names as the library writes them (``C``, ``Go``), matched only in a scope
    position."""

    @property
    def words(self) -> frozenset[str]:
        """Every stem a text may name this library by (for its own titles, where the
        name says nothing: "Flask" titles a page of the Flask docs)."""
        return self.stems | {stem(name.lower()) for name in self.short}


def library_scope(names: Iterable[str], subjects: Iterable[str]) -> Scope:
    """The scope of a library from its ``names`` (configured name, ``Name``, ``Title``,
    tags) and ``subjects`` (the title's first word and the tags: where a short name is
    the subject itself). Metadata starting with ``_`` (sotoki's ``_category:...``) is
    none of them."""
    stems: set[str] = set()
    for text in names:
        if text.startswith("_"):
            continue
        for term in query_terms(text.replace("_", " ")):
            if any(symbol in term for symbol in "+#"):
                stems.add(stem(term))
            parts = [p for p in _PARTS.split(term) if p]
            if len(parts) > 1 and all(p.isalpha() for p in parts):
                stems.add(stem("".join(parts)))  # node.js -> nodejs
            for part in parts:
                if len(part) >= 3 and not part.isdigit() and _meaningful(part):
                    stems.add(stem(part))
    short = {
        text
        for text in subjects
        if not text.startswith("_")
        and len(text.rstrip("+#")) <= 2
        and _SHORT_NAME.fullmatch(text)
        and text.lower() not in ARCHIVE_VOCABULARY
    }
    return Scope(stems=frozenset(stems), short=frozenset(short))


def _meaningful(part: str) -> bool:
    return part not in ARCHIVE_VOCABULARY and part not in STOP_WORDS


def names_scope(query: str, scope: Scope) -> bool:
    """Whether ``query`` names the library (see the module docstring)."""
    for term in query_terms(query):
        if not scope.stems.isdisjoint(stems_of(term)):
            return True
        if _PARTS.search(term) and stem("".join(_PARTS.split(term))) in scope.stems:
            return True  # node.js for a library named nodejs, and the other way round
    if not scope.short:
        return False
    raw = re.findall(r"[^\s,;:!?()\"']+", query)
    for index, token in enumerate(raw):
        name = token.rstrip(".")
        if name not in scope.short:
            continue
        before = raw[index - 1].lower() if index > 0 else ""
        after = raw[index + 1].lower().rstrip(".") if index + 1 < len(raw) else ""
        if any(symbol in name for symbol in "+#") or before in _BEFORE or after in _AFTER:
            return True
    return False
