"""Query text for the archives' indexes: cleaning, relaxations and the title query.

Xapian facts this module relies on (libzim's QueryParser, AND by default, checked on
the shared archives): upper-case ``AND OR NOT XOR NEAR ADJ`` are operators, quotes,
brackets, ``+``/``-`` prefixes, ``*`` and ``name:`` prefixes are syntax; lower-case
words are plain terms. Old (2018) indexes find nothing for hyphen-, dot- or
colon-joined words, so joined identifiers are sent as separate words.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from corpus_mcp.ranking.text import (
    GENERIC_WORDS,
    JOINER,
    STOP_WORDS,
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


def relaxations(query: str) -> list[str]:
    """Xapian query strings to try in order while an archive returns too few hits.

    1. every term of the query (syntax neutralised, see the module docstring);
    2. the distinct terms without stop words (then, if some are snake_case, with those
       split into words: a pasted ``georgia_on_my_mind`` is not an indexed term);
    3. fewer and fewer terms, dropping the least informative first (see
       :func:`_informativeness`), starting from at most :data:`MAX_RELAXED_TERMS` and
       ending at :data:`MIN_RELAXED_TERMS` terms.

    Terms keep their query order in every string. Strings are never empty and never
    repeated; a query without any word gives ``[]``.
    """
    terms = query_terms(query)
    if not terms:
        return []
    variants = [_xapian_string(terms)]
    kept = informative_terms(query)
    variants.append(_xapian_string(kept))
    variants.append(_xapian_string([w for term in kept for w in _split_snake(term)]))
    by_value = sorted(range(len(kept)), key=lambda i: _informativeness(kept[i], i), reverse=True)
    # A query made only of stop words ("the who") is its own topic: never shortened.
    only_stop_words = all(term in STOP_WORDS for term in kept)
    floor = len(kept) if only_stop_words else min(MIN_RELAXED_TERMS, len(kept))
    for count in range(min(len(kept) - 1, MAX_RELAXED_TERMS), floor - 1, -1):
        chosen = sorted(by_value[:count])
        variants.append(_xapian_string([kept[i] for i in chosen]))
    return distinct(v for v in variants if v)


def relaxation_weight(query: str, relaxed: str) -> float:
    """How much a relaxed query string still asks what ``query`` asks, in (0, 1]: the
    share of the query's informative words it keeps (at least 0.1).

    Fusion weighs an archive's hits by it, so a library that matched only a
    two-word remnant of a long question does not rank level with one that matched
    the whole question.
    """
    wanted = {word for term in informative_terms(query) for word in _xapian_words(term)}
    if not wanted:
        return 1.0
    kept = set(relaxed.split())
    return max(len(wanted & kept) / len(wanted), 0.1)


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
