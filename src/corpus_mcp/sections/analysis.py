"""Words as the section index stores them, and as a question asks for them (pure).

One tokeniser serves both sides, so a word matches in the index exactly when it would
match in the text: tokens as ranking reads them (:data:`corpus_mcp.ranking.text.TOKEN`:
``std::vec::Vec``, ``read_csv``, ``c++`` stay whole), lower-cased and stemmed with the
archive language's Snowball stemmer. An identifier is also found by the words it is made
of, because a question says the words and the page writes only the identifier:

- joined by ``.``, ``::``, ``-`` or ``_``: ``pandas.DataFrame.dropna`` by ``pandas``,
  ``dataframe``, ``dropna``; ``DEFAULT_AUTO_FIELD`` by ``default``, ``auto``, ``field``;
- camelCase and PascalCase: ``readFileSync`` by ``read``, ``file``, ``sync``;
- a noun in ``-age`` by its verb too (``usage`` by "use"), as ranking does.

Each term is tagged with the field it was found in (:data:`FIELDS`): the section's own
text, the document's titles, the section's heading path, the words of the identifiers that
name the section, and each identifier whole with its trailing parts
(``std::vec::vec::retain``, ``vec::vec::retain``, ``vec::retain``, ``retain``), which
only a question naming it in code form looks up.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

import msgspec
import Stemmer

from corpus_mcp.adapters import symbol_key
from corpus_mcp.languages import stemmer_name
from corpus_mcp.ranking.query import is_identifier, query_words, symbol_candidates
from corpus_mcp.ranking.text import APOSTROPHES, STOP_WORDS, TOKEN

#: Field prefixes (Xapian's convention: upper-case letters before the term).
BODY: Final = ""
"""The section's own text (not its subsections')."""
TITLES: Final = "S"
"""The document's titles: its entry title and its page heading."""
HEADINGS: Final = "H"
"""The section's title and the titles of the sections it is in."""
NAMES: Final = "N"
"""The words of the identifiers naming the section: API entries, DevDocs index names,
a thread's tags."""
IDENTIFIERS: Final = "X"
"""Each identifier naming the section, whole (case-folded), and its trailing parts."""
FIELDS: Final = (BODY, TITLES, HEADINGS, NAMES)
"""The fields a question's words are looked for in."""

#: Xapian refuses terms longer than 245 bytes; a longer token is no word anyone types.
MAX_TERM_BYTES: Final = 240
#: Identifiers of more parts than this are not split into every tail.
MAX_TAILS: Final = 6

_PARTS = re.compile(r"::|[.\-_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_TAIL_SEPARATOR = re.compile(r"(::|\.)")


@functools.lru_cache(maxsize=8)
def _stemmer(algorithm: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(algorithm)


@functools.lru_cache(maxsize=131_072)
def _stem(algorithm: str | None, word: str) -> str:
    """A lower-case word's stem (module level, not a bound method's cache: an analyser
    in the cache would be a reference cycle the frozen collector never sees)."""
    if algorithm is None:
        return word
    return str(_stemmer(algorithm).stemWord(word))


class Analyser(msgspec.Struct, frozen=True):
    """The terms of one index: its archive's language decides the stemmer."""

    algorithm: str | None
    """The Snowball stemmer's name (None: words are kept whole)."""

    @classmethod
    def for_language(cls, language: str | None) -> Analyser:
        return cls(stemmer_name(language))

    def stem(self, word: str) -> str:
        return _stem(self.algorithm, word)

    def token_terms(self, token: str) -> tuple[str, ...]:
        """The terms one token is indexed by: its stem, its parts' stems, the stems of
        its camelCase words (see the module docstring). ``token`` keeps its case."""
        return _token_terms(self.algorithm, token)

    def term_counts(self, text: str, *, stop_words: bool = True) -> dict[str, int]:
        """How often each term occurs in ``text`` (a token's terms once per use); without
        ``stop_words``, the language's stop words are left out (English: a question's
        informative words are never stop words, and their postings were a third of a
        text field's).

        Tokens are counted first (in C), then each distinct one is turned into terms
        (memoised): a page's text repeats its words, and turning them one by one was
        most of what indexing a page cost."""
        counts: dict[str, int] = {}
        algorithm = self.algorithm
        skipped = STOP_WORDS if not stop_words and algorithm == "english" else frozenset()
        for token, uses in Counter(TOKEN.findall(text.translate(APOSTROPHES))).items():
            if skipped and token.lower() in skipped:
                continue
            for term in _token_terms(algorithm, token):
                counts[term] = counts.get(term, 0) + uses
        return counts

    def word(self, word: str) -> QueryWord:
        """A question's word as the index is asked for it: the whole word, or all of
        its parts (``str.join``: ``str`` and ``join``)."""
        whole = self.stem(word.lower())
        parts = tuple(
            dict.fromkeys(self.stem(p.lower()) for p in _PARTS.split(word) if p and p != word)
        )
        return QueryWord(text=word, whole=whole, parts=parts if len(parts) > 1 else ())

    def question(self, query: str) -> IndexQuery:
        """What the index is asked for a question: its informative words (as ranking
        weighs them) and the identifiers it may name, each with how surely it does."""
        return IndexQuery(
            words=tuple(self.word(w) for w in query_words(query)),
            identifiers=identifiers_named(query),
        )


@functools.lru_cache(maxsize=131_072)
def _token_terms(algorithm: str | None, token: str) -> tuple[str, ...]:
    if not any(ch.isalnum() for ch in token):  # a run of underscores is no word
        return ()
    lowered = token.lower()
    terms = [_stem(algorithm, lowered)]
    parts = [part for part in _PARTS.split(token) if part]
    if len(parts) > 1:
        terms += [_stem(algorithm, part.lower()) for part in parts]
    for part in parts or (token,):
        if _CASE_CHANGE.search(part):
            terms += [_stem(algorithm, w.lower()) for w in _CAMEL.findall(part)]
    if len(lowered) >= 5 and lowered.endswith("age") and lowered.isalpha():
        terms.append(_stem(algorithm, lowered[:-3] + "e"))
    return tuple(t for t in dict.fromkeys(terms) if t and len(t.encode()) <= MAX_TERM_BYTES)


class QueryWord(msgspec.Struct, frozen=True, gc=False):
    """One word of a question as the index is asked for it."""

    text: str
    """The word as the question writes it (lower case)."""
    whole: str
    """Its stem."""
    parts: tuple[str, ...] = ()
    """For a joined word, its parts' stems, which must all occur; else none."""


class IndexQuery(msgspec.Struct, frozen=True, gc=False):
    """A question as the index is asked it."""

    words: tuple[QueryWord, ...]
    identifiers: tuple[tuple[str, float], ...] = ()
    """Identifier keys (case-folded) the question may name, with how surely it does."""


def identifier_keys(name: str) -> tuple[str, ...]:
    """An identifier's keys: whole (as :func:`corpus_mcp.adapters.symbol_key` folds it)
    and each trailing run of its ``.``/``::`` parts, longest first."""
    key = symbol_key(name)
    if not key:
        return ()
    pieces = _TAIL_SEPARATOR.split(key)
    tails = ["".join(pieces[i:]) for i in range(2, len(pieces), 2) if pieces[i]]
    keys = [key, *tails[:MAX_TAILS]]
    return tuple(k for k in dict.fromkeys(keys) if len(k.encode()) < MAX_TERM_BYTES)


#: How surely a question names an identifier by a trailing part of one it writes
#: (``pd.read_csv`` for ``read_csv``: ``pd`` is how code refers to pandas).
TAIL_STRENGTH: Final = 0.8


def identifiers_named(query: str) -> tuple[tuple[str, float], ...]:
    """The identifier keys a question may name: the strings ranking takes for API
    symbols (:func:`corpus_mcp.ranking.query.symbol_candidates`) that look like code or
    are one word, and the trailing parts of the code-shaped ones (the qualifier a
    question writes is often an alias: ``pd.``, ``df.``, ``self.``)."""
    found: dict[str, float] = {}

    def add(key: str, strength: float) -> None:
        if key and found.get(key, 0.0) < strength:
            found[key] = strength

    for text, strength in symbol_candidates(query):
        if " " in text.strip():
            continue
        keys = identifier_keys(text)
        if not keys:
            continue
        add(keys[0], strength)
        if is_identifier(text):
            for tail in keys[1:]:
                add(tail, strength * TAIL_STRENGTH)
    return tuple(found.items())


def names_of(texts: Iterable[str]) -> list[str]:
    """Distinct non-empty names, in order."""
    return [name for name in dict.fromkeys(t.strip() for t in texts) if name]


def joined(texts: Sequence[str]) -> str:
    """Several short texts read as one field (a space keeps words apart)."""
    return " ".join(t for t in texts if t)
