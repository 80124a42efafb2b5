"""Words of queries and titles: tokens, stop and generic words, stems, title keys.

The shared vocabulary of the ranking package: :mod:`.query` builds index queries from
these tokens, :mod:`.fusion` compares query and titles with them, :mod:`.snippets`
finds query words in passages with them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

import Stemmer


def word_set(text: str) -> frozenset[str]:
    """A word list written as whitespace-separated text."""
    return frozenset(text.split())


#: English function words and question words: they carry no topic.
STOP_WORDS = word_set(
    """
    a about above across after again against all along also am among an and any are
    around as at be because been behind between beyond toward towards within without
    before being below both but by can cannot could did do does doing done down during
    each either else ever few for from further had has have having he her here hers him
    his how i if in into is it its itself just me might more most much must my myself
    neither no nor not of off on once only onto or other ought our ours out over own
    per please same shall she should so some such than that the their theirs them then
    there these they this those through thus to too under until up upon us very via was
    we were what whatever when whenever where whereas wherever whether which while who
    whom whose why will with would yet you your yours s t ll re ve d m
    i'm i've i'd you're it's that's what's there's isn't aren't doesn't don't didn't
    can't won't wouldn't shouldn't couldn't
    """
)

#: Words that survive stop-word removal but say little about the topic; relaxation
#: drops them before ordinary words.
GENERIC_WORDS = word_set(
    """
    use used uses using get gets getting got make makes making made work works working
    way ways best good better new need needs want wants like thing things example
    examples difference differences different vs versus first last pick picks picked
    run runs running ran happen happens happened mean means meaning find know possible
    correct right wrong proper properly simple easy easiest fast quick quickly help
    question problem issue something anything one two instead still even really actually
    many several various kind type types tell explain show
    """
)

# A token: a run of word characters, optionally joined to more by ``::``, ``.``, ``-`` or
# an apostrophe (``std::vector``, ``str.join``, ``x-ray``, ``don't``), optionally ending in
# ``++`` or ``#`` (``c++``, ``c#``). ``\w`` keeps underscores, so ``__init__`` is one token.
TOKEN = re.compile(r"\w+(?:(?:::|[.\-'])\w+)*(?:\+\+|#(?!\w))?")
JOINER = re.compile(r"::|[.\-]")
APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "‘": "'"})

# -- query terms ------------------------------------------------------------------------

_TEXT_CACHE = 16_384


def query_terms(query: str) -> list[str]:
    """Lower-cased word tokens of ``query`` in order, duplicates kept.

    Identifier-like tokens survive whole (``c++``, ``std::vector``, ``str.join``,
    ``__init__``, ``x-ray``); lone punctuation and pure-underscore runs are dropped.
    """
    return list(_tokens(query))


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _tokens(text: str) -> tuple[str, ...]:
    # Memoised: the query and the candidates' titles are tokenised again and again while
    # one search scores its candidates, and titles recur across searches.
    return tuple(
        match.group().lower()
        for match in TOKEN.finditer(text.translate(APOSTROPHES))
        if any(ch.isalnum() for ch in match.group())
    )


def informative_terms(query: str) -> list[str]:
    """Distinct query terms minus stop words, in order; all distinct terms when every
    term is a stop word (a query like "the who" still means something)."""
    terms = distinct(query_terms(query))
    kept = [term for term in terms if term not in STOP_WORDS]
    return kept or terms


def topic_terms(query: str) -> list[str]:
    """Informative terms without generic words ("use", "work", "difference") when any
    other term remains: what the query is about, for comparing with text."""
    kept = informative_terms(query)
    return [term for term in kept if term not in GENERIC_WORDS] or kept


def distinct(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# -- term matching ----------------------------------------------------------------------


# Snippets and hints stem every word of every candidate passage on each search; words
# repeat across documents and queries, so the stemmer is memoised (bounded).
_STEM_CACHE = 65_536
_SNOWBALL = Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=_STEM_CACHE)
def stem(word: str) -> str:
    """The Snowball (Porter2) English stem of a lower-case word: "methods"/"method",
    "charles's"/"charles", "classes"/"class", "running"/"run", "migrations"/"migrating".

    The same algorithm builds the English full-text indexes that libzim writes, so a
    word matches in a document's text exactly when it matches in the index.
    """
    return str(_SNOWBALL.stemWord(word))


@functools.lru_cache(maxsize=_STEM_CACHE)
def stems_of(term: str) -> tuple[str, ...]:
    """Stems a token can match by, distinct: its own and, for joined identifiers, its
    parts'; a noun in ``-age`` also by its verb's (``usage`` by "use", ``storage`` by
    "store"), which the stemmer keeps apart ("why isn't it using my index" asks for
    "Index Usage").

    A tuple, not a frozenset: this memo holds tens of thousands of them, and the cyclic
    collector stops tracking a tuple of strings (never a set), so a full collection does
    not walk them (measured after the kit's questions: 15-26 ms a full collection with
    frozensets, 7 ms without). They hold one to a few stems: looking through is as fast."""
    parts = [part for part in JOINER.split(term) if part]
    roots = [stem(term), *(stem(part) for part in parts)] if len(parts) > 1 else [stem(term)]
    if len(term) >= 5 and term.endswith("age") and term.isalpha():
        roots.append(stem(term[:-3] + "e"))
    return tuple(dict.fromkeys(roots))


@functools.lru_cache(maxsize=_STEM_CACHE)
def term_stems(term: str) -> tuple[str, tuple[str, ...]]:
    """A term's stem and, for a joined identifier (``unique_together``), its parts'
    stems (else none): what a query word is matched by, worked out once per word rather
    than once per section or passage it is compared with."""
    parts = [part for part in JOINER.split(term) if part]
    return stem(term), (tuple(stem(part) for part in parts) if len(parts) > 1 else ())


def term_in(term: str, stems: AbstractSet[str]) -> bool:
    """Whether ``term`` occurs among ``stems`` (a joined term needs all its parts)."""
    whole, parts = term_stems(term)
    return whole in stems or (bool(parts) and all(part in stems for part in parts))


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")


@functools.lru_cache(maxsize=_STEM_CACHE)
def stem_set(text: str) -> frozenset[str]:
    """Every stem the tokens of ``text`` can match by: what :func:`term_in` looks in.

    A camelCase name also matches by its words (``fs.readFile()`` by "read" and "file",
    ``URLSearchParams`` by "search" and "params"): APIs name themselves that way, and a
    question says the words.

    Memoised: passages and titles of cached documents are scored again on every search.
    """
    roots = {root for token in query_terms(text) for root in stems_of(token)}
    if _CASE_CHANGE.search(text):
        for word in TOKEN.findall(text):
            if _CASE_CHANGE.search(word):
                roots.update(stem(part.lower()) for part in _CAMEL.findall(word))
    return frozenset(roots)


def token_spans(text: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """``(start, end, stems)`` of every word of ``text``. Not memoised: only the one
    passage a snippet shows is spanned, and a passage's spans weigh ~30x its text."""
    return tuple(
        (*match.span(), stems_of(match.group().lower()))
        for match in TOKEN.finditer(text.translate(APOSTROPHES))
    )


# -- titles -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=_STEM_CACHE)
def title_key(text: str) -> str:
    """Case-, accent-, underscore- and punctuation-insensitive form of a title."""
    decomposed = unicodedata.normalize("NFKD", text.replace("_", " "))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join(re.sub(r"[^\w+#]+", " ", bare).replace("_", " ").split())
