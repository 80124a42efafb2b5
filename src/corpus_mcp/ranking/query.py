"""Query text for the archives' indexes: cleaning, relaxations and the title query.

Xapian facts this module relies on (libzim's QueryParser, AND by default, checked on
the shared archives): upper-case ``AND OR NOT XOR NEAR ADJ`` are operators, quotes,
brackets, ``+``/``-`` prefixes, ``*`` and ``name:`` prefixes are syntax; lower-case
words are plain terms. Old (2018) indexes find nothing for hyphen-, dot- or
colon-joined words, so joined identifiers are sent as separate words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence

from corpus_mcp.ranking.text import (
    APOSTROPHES,
    GENERIC_WORDS,
    JOINER,
    STOP_WORDS,
    TOKEN,
    distinct,
    informative_terms,
    query_terms,
    topic_terms,
)

#: Longest query the tools accept, in characters, after normalisation.
MAX_QUERY_CHARS = 500

#: The fewest terms a relaxation keeps: the last resort is the single most informative
#: term (fusion weighs such hits by :func:`relaxation_weight`, so they rank low).
MIN_RELAXED_TERMS = 1
#: Relaxations beyond "no stop words" start from at most this many terms, so a long
#: question costs a handful of index searches, not one per word.
MAX_RELAXED_TERMS = 6
#: The title index is prefix-matched with AND: more than a few terms never matches.
MAX_TITLE_TERMS = 3


# -- query text -------------------------------------------------------------------------


def normalise_query(raw: str, max_chars: int = MAX_QUERY_CHARS) -> str:
    """The agent's text with control and format characters removed, NFKC-folded,
    whitespace collapsed, cut to ``max_chars`` at a word boundary.

    NFKC turns full-width letters and ligatures into the forms archives index. Empty,
    blank and oversized input is the caller's to reject; this only cleans.
    """
    text = unicodedata.normalize("NFKC", raw)
    text = "".join(" " if ch.isspace() else ch for ch in text if _is_visible(ch))
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars + 1]
    boundary = cut.rfind(" ")
    return (cut[:boundary] if boundary > 0 else text[:max_chars]).rstrip()


def _is_visible(ch: str) -> bool:
    """Whitespace is kept (as a separator); other control/format/unassigned chars go."""
    return ch.isspace() or unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn"}


def _xapian_words(term: str) -> list[str]:
    """A token as plain Xapian words: joined identifiers split into their parts
    (``std::vector`` -> ``std vector``); ``c++``/``c#``/apostrophes are kept, Xapian
    reads those as one term. Lower case keeps ``and``/``or``/``not`` from being
    operators."""
    return [part for part in JOINER.split(term) if part]


def _split_snake(term: str) -> list[str]:
    """Words of a snake_case term; other terms (``__init__`` included) unchanged."""
    words = [word for word in term.strip("_").split("_") if word]
    if len(words) < 2:
        return [term]
    return [word for word in words if word not in STOP_WORDS] or words


def _xapian_string(terms: Sequence[str]) -> str:
    return " ".join(word for term in terms for word in _xapian_words(term))


def _informativeness(term: str, position: int) -> tuple[int, int, int]:
    """Sort key, least informative first: stop word < generic word < ordinary word <
    identifier-like (digits, joiners, ``_``, ``++``, ``#``); then shorter words; then
    later words (the topic usually comes first in a question)."""
    if term in STOP_WORDS:
        tier = 0
    elif term in GENERIC_WORDS or (term.isdigit() and len(term) < 3):
        # A short number ("type 2 diabetes") only means something next to its words.
        tier = 1
    elif any(ch.isdigit() or not (ch.isalpha() or ch == "'") for ch in term):
        tier = 3
    else:
        tier = 2
    return (tier, len(term), -position)


def relaxations(query: str, frequencies: Mapping[str, int] | None = None) -> list[str]:
    """Xapian query strings to try in order while an archive returns too few hits
    (for libzim's search, which ANDs every word).

    1. every term of the query (syntax neutralised, see the module docstring);
    2. the distinct terms without stop words (then, if some are snake_case, with those
       split into words: a pasted ``georgia_on_my_mind`` is not an indexed term);
    3. fewer and fewer terms, dropping the least informative first, starting from at
       most :data:`MAX_RELAXED_TERMS` and ending at :data:`MIN_RELAXED_TERMS` terms.

    With ``frequencies`` (term -> documents containing it), words no document contains
    go first (they can only make an AND match nothing), then the most frequent ones;
    without, :func:`_informativeness` guesses from the words' shape. Terms keep their
    query order in every string. Strings are never empty and never repeated; a query
    without any word gives ``[]``.
    """
    terms = query_terms(query)
    if not terms:
        return []
    variants = [_xapian_string(terms)]
    kept = informative_terms(query)
    variants.append(_xapian_string(kept))
    variants.append(_xapian_string([w for term in kept for w in _split_snake(term)]))
    if frequencies:

        def value(i: int) -> tuple[int, int, int, int]:
            found = frequencies.get(kept[i], 0)
            shape = _informativeness(kept[i], i)
            return (int(found > 0), -found, shape[0], -i)

        by_value = sorted(range(len(kept)), key=value, reverse=True)
    else:
        by_value = sorted(
            range(len(kept)), key=lambda i: _informativeness(kept[i], i), reverse=True
        )
    # A query made only of stop words ("the who") is its own topic: never shortened.
    only_stop_words = all(term in STOP_WORDS for term in kept)
    floor = len(kept) if only_stop_words else min(MIN_RELAXED_TERMS, len(kept))
    for count in range(min(len(kept) - 1, MAX_RELAXED_TERMS), floor - 1, -1):
        chosen = sorted(by_value[:count])
        variants.append(_xapian_string([kept[i] for i in chosen]))
    return distinct(v for v in variants if v)


def title_query(query: str) -> str:
    """The string for the title (suggestion) index: the most informative terms, generic
    words left out when others remain, at most :data:`MAX_TITLE_TERMS`, in query order,
    syntax neutralised.

    Suggestions AND their terms and prefix-match the last one, so question words and a
    long tail would only stop titles from matching. ``""`` when the query has no word.
    """
    kept = topic_terms(query)
    by_value = sorted(range(len(kept)), key=lambda i: _informativeness(kept[i], i), reverse=True)
    chosen = sorted(by_value[:MAX_TITLE_TERMS])
    return _xapian_string([kept[i] for i in chosen])


# -- words for the indexes --------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)+")


def query_words(query: str) -> list[str]:
    """The words the query is scored by: its distinct informative terms, in order
    (stop and question words left out unless the query has nothing else)."""
    return informative_terms(query)


def index_parts(word: str) -> tuple[str, ...]:
    """A word as a full-text index stores it: joined identifiers as their parts, all of
    which must occur (``str.join`` -> ``str``, ``join``; Xapian splits at ``.``, ``::``
    and ``-``); snake_case, ``c++`` and dotted numbers stay whole, as Xapian keeps them."""
    if _NUMBER.fullmatch(word):
        return (word,)
    parts = tuple(part for part in _xapian_words(word) if part)
    return parts or (word,)


def title_words(query: str) -> list[str]:
    """Words to look the query up by in a title index: its informative words' parts."""
    return distinct(part for word in query_words(query) for part in index_parts(word))


#: The longest run of query words tried as an embedded title (libzim fallback).
MAX_TITLE_NGRAM = 5
#: At most this many embedded-title lookups per query and archive (libzim fallback).
MAX_TITLE_LOOKUPS = 8


def title_ngrams(query: str) -> list[str]:
    """Runs of query words that could be a title spelled out inside the question, for
    title indexes that can only be prefix-searched (libzim's suggestions), best first.

    A run starts at a capitalised word or one that is not a stop word, ends at a word
    that is not a stop word, and holds at most :data:`MAX_TITLE_NGRAM` words. Runs with
    more capitalised words come first (a question spells titles capitalised more often
    than not), then those ending at a capitalised word, then longer ones; at most
    :data:`MAX_TITLE_LOOKUPS`.
    """
    tokens = [m.group() for m in TOKEN.finditer(query.translate(APOSTROPHES))]
    lowered = [t.lower() for t in tokens]
    runs: list[tuple[tuple[int, int, int, int], str]] = []
    for start, first in enumerate(tokens):
        if lowered[start] in STOP_WORDS and not first[:1].isupper():
            continue
        for end in range(start + 1, min(start + MAX_TITLE_NGRAM, len(tokens)) + 1):
            if lowered[end - 1] in STOP_WORDS:
                continue
            run = tokens[start:end]
            capitals = sum(1 for t in run if t[:1].isupper())
            # Lower-case words after the last capital ("... Woman based") are the
            # question resuming, not the title.
            tail = next((i for i, t in enumerate(reversed(run)) if t[:1].isupper()), len(run))
            runs.append(((-capitals, tail, -len(run), start), " ".join(run)))
    runs.sort()
    return distinct(text for _, text in runs)[:MAX_TITLE_LOOKUPS]


# -- API symbols ------------------------------------------------------------------------

#: Strengths of the ways a query can name an API symbol (see :func:`symbol_candidates`).
SYMBOL_WHOLE = 1.0
SYMBOL_TOKEN = 0.8
SYMBOL_JOINED = 0.6
#: The whole query is tried as a symbol name when it has at most this many words.
SYMBOL_WHOLE_WORDS = 4
_SYMBOL_JOINERS = ("_", ".", "::")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")


def symbol_candidates(query: str) -> list[tuple[str, float]]:
    """See :func:`_symbol_candidates` (memoised: every library asks for the same query)."""
    return list(_symbol_candidates(query))


@functools.lru_cache(maxsize=1024)
def _symbol_candidates(query: str) -> tuple[tuple[str, float], ...]:
    """Strings of the query that may name an API symbol, with how surely they do.

    - the whole query, when short (``Flask.route``, ``JsonResponse``, ``the DEBUG``
      without its leading article): :data:`SYMBOL_WHOLE`;
    - each identifier-shaped token (``select_related()``, ``std::vector``,
      ``QuerySet.filter``, ``JsonResponse``, ``ALLOWED_HOSTS``): :data:`SYMBOL_TOKEN`;
    - two or three adjacent words joined as code would join them (``select related`` ->
      ``select_related``, ``str join`` -> ``str.join``): :data:`SYMBOL_JOINED`.

    Case is kept; the symbol index folds it. Each string appears once, at its best.
    """
    text = query.strip().strip("?!.`'\"“”")
    tokens = [m.group() for m in _SYMBOL_TOKEN.finditer(text)]
    out: dict[str, float] = {}

    def add(candidate: str, strength: float) -> None:
        if candidate and out.get(candidate, 0.0) < strength:
            out[candidate] = strength

    if 0 < len(tokens) <= SYMBOL_WHOLE_WORDS:
        whole = " ".join(tokens)
        add(whole, SYMBOL_WHOLE)
        if len(tokens) > 1 and tokens[0].lower() in STOP_WORDS:
            add(" ".join(tokens[1:]), SYMBOL_WHOLE)
    for token in tokens:
        if is_identifier(token):
            add(token, SYMBOL_TOKEN)
    words = [t for t in tokens if t.isalnum() or "_" in t]
    for width in (2, 3):
        for start in range(len(words) - width + 1):
            run = words[start : start + width]
            if any(w.lower() in STOP_WORDS for w in run):
                continue
            for joiner in _SYMBOL_JOINERS:
                add(joiner.join(run), SYMBOL_JOINED)
    return tuple(out.items())


# A code-ish token: words joined by ``.``, ``::`` or ``->``, optionally ending in ``()``.
_SYMBOL_TOKEN = re.compile(r"[\w~]+(?:(?:::|\.|->)[\w~]+)*(?:\(\))?|[^\s\w]+\w*")


@functools.lru_cache(maxsize=16_384)
def is_identifier(token: str) -> bool:
    """Whether a token is shaped like code rather than like a word: joined by ``.``,
    ``::`` or ``_``, called (``()``), or camelCase (``JsonResponse``). All-capital words
    (``JSON``, ``HTTP``) are usually acronyms, so they do not count by themselves."""
    word = token.removesuffix("()")
    if not any(ch.isalpha() for ch in word):
        return False
    if token.endswith("()") or "_" in word.strip("_") or "." in word or "::" in word:
        return True
    return bool(_CAMEL.search(word)) and not word.isupper()
