"""Rescoring on evidence: one score per candidate, computed the same way in every library.

Engines rank within one archive, and their scores (BM25 over that archive's statistics,
or libzim's bare order) do not compare across archives. So every candidate is scored
again here from what it says about the query:

- **word weights** come from the whole corpus, as if its archives were one index: a
  word's document frequency summed over every library that reports one
  (:func:`word_weights`). Rare words count, stop words never reach this point, and a word
  no document contains weighs nothing;
- **body**: BM25 of the document with those weights (per-word frequencies and length as
  its archive's index reports them), normalised to [0, 1] by the best score any document
  could reach, times its rarity-weighted coverage;
- **title**: rarity-weighted share of the query in the best of the document's titles
  (entry title, page heading, the redirect or symbol that found it) and the share of that
  title's words the query holds; a title spelled out inside the query (a song asked about
  in a question) counts by the weight of its words; an exact title counts most;
- **headings**: the best-matching section title, when the document has been read;
- **symbol**: an exact API symbol the query names;
- **scope**: the query names what the library is about (from the library's metadata);
- **inbound**: what another archive asks of the page: the title of a result thread
  asking the question whose answer cites the page (:mod:`corpus_mcp.inbound`), matched
  like a title but never as the page's own name (no exact-title or question bonus);
- **question**: a question (a question mark, a question word first) finds question
  threads: a thread's title match counts again, as the question it is. On the
  development kit this turned two "how do I ..." cases towards the thread that asks them,
  and no other.

Everything is deterministic: ties fall to the engine's own order, then path, never to a
library's name or position in the manifest.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence

import msgspec

from corpus_mcp.document import Document, walk
from corpus_mcp.ranking.terms import DocumentTerms
from corpus_mcp.ranking.text import (
    STOP_WORDS,
    distinct,
    query_terms,
    stem,
    stem_set,
    stems_of,
    term_in,
    title_key,
    word_set,
)

#: BM25's term-frequency saturation and length normalisation (Xapian's defaults).
K1 = 1.2
B = 0.75

#: How much each kind of evidence counts in :func:`score`.
WEIGHT_BODY = 1.0
WEIGHT_TITLE = 1.5
WEIGHT_CONTAINED = 0.8
WEIGHT_EXACT = 0.8
WEIGHT_HEADING = 0.6
WEIGHT_PASSAGE = 0.5
WEIGHT_SECTION = 0.0
#: A section index's share of the best weight, as body evidence.
ENGINE_BODY = 1.0
WEIGHT_SYMBOL = 2.5
WEIGHT_SCOPE = 0.25
WEIGHT_QUESTION = 1.0
WEIGHT_INBOUND = 0.5

_DISAMBIGUATOR = re.compile(r"\s*\(([^()]*)\)\s*$")
_TAG = re.compile(r"<[^>]*>")


class Word(msgspec.Struct, frozen=True):
    """A query word as the corpus weighs it: its text and its weight (IDF)."""

    text: str
    weight: float


class LibraryStats(msgspec.Struct, frozen=True):
    """One library's full-text statistics for the query's words."""

    doc_count: int
    average_length: float
    frequencies: tuple[int, ...]
    """Documents containing each query word, aligned with the query's words."""


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """What is known of one candidate before (and after) its text is read."""

    titles: tuple[str, ...]
    """Entry title first, then alternatives (heading, redirect, symbol)."""
    frequencies: tuple[int, ...] | None = None
    """How often the document uses each query word (None: unknown)."""
    engine: float | None = None
    """Found by a section index: its best section's weight as a share of the most a
    section could weigh for the question (None: not found that way); body evidence when
    the page's own index said nothing of it."""
    length: int = 0
    average_length: float = 0.0
    symbol: float = 0.0
    """Strength of an API-symbol match (0: none)."""
    symbol_text: str = ""
    """The query text that names the symbol: it counts by the share of the query it is."""
    scope: bool = False
    """The query names what the candidate's library is about."""
    scope_stems: frozenset[str] = frozenset()
    """Stems of the words naming the library's subject: in its own titles they say
    nothing ("Flask" titles a page of the Flask docs)."""
    foreign_stems: frozenset[str] = frozenset()
    """Stems of the words naming other libraries: no evidence here at all ("postgres"
    in a Django heading says the question is about PostgreSQL, not this page)."""
    heading: float = 0.0
    """Once read: the share of the query's weight the best section title holds."""
    passage: float = 0.0
    """Once read: the share the best passage holds, with its section's titles."""
    section: float = 0.0
    """Once read: the best section's BM25 (its own text, its heading path counting as
    a use), with the corpus's word weights, normalised like ``body``."""
    text_share: float | None = None
    """Once read, for candidates no index described: the share the whole text holds."""
    thread: bool = False
    """Once read: the document is a question thread (its title a question)."""
    inbound: tuple[str, ...] = ()
    """Titles of question threads of other libraries whose answers link to the document."""

    @property
    def named_by(self) -> tuple[str, ...]:
        """Every title the document goes by: its own, and those others give it."""
        return (*self.titles, *self.inbound)


class Scored(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of a candidate's score (kept for tests and debugging)."""

    total: float
    body: float = 0.0
    title: float = 0.0
    contained: float = 0.0
    exact: float = 0.0
    heading: float = 0.0
    passage: float = 0.0
    section: float = 0.0
    symbol: float = 0.0
    scope: float = 0.0
    question: float = 0.0
    inbound: float = 0.0


def idf(frequency: int, doc_count: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1.0 + (doc_count - frequency + 0.5) / (frequency + 0.5))


def word_weights(words: Sequence[str], libraries: Iterable[LibraryStats]) -> list[Word]:
    """Each query word weighted by its rarity in the whole corpus.

    Document frequencies and counts are summed over every library that has full-text
    statistics, so weights are those of one merged index. Without any statistics every
    word weighs 1. A word no indexed document contains weighs the most a word can: it
    finds nothing in the indexes, but a document of a library without statistics (a
    title-only archive) that has it is all the more likely the answer.
    """
    stats = [lib for lib in libraries if lib.doc_count > 0]
    if not stats:
        return [Word(w, 1.0) for w in words]
    total = sum(lib.doc_count for lib in stats)
    out: list[Word] = []
    for position, word in enumerate(words):
        frequency = sum(lib.frequencies[position] for lib in stats)
        out.append(Word(word, idf(frequency, total)))
    return out


def clean_title(title: str) -> str:
    """A title as text: markup some archives keep in titles removed."""
    return " ".join(_TAG.sub("", title).split())


def score(query: str, words: Sequence[Word], evidence: Evidence) -> Scored:
    """The candidate's evidence as one number (see the module docstring)."""
    # Another library's name counts as a word this page cannot cover: matched by
    # nothing, still part of the question (taking it out of the totals would raise the
    # score of every page without it).
    total_weight = sum(w.weight for w in words)
    topical_total = sum(w.weight for w in _topical(words, evidence))
    words = _here(words, evidence)
    body = _body(words, evidence, total_weight)
    title, contained, exact = _titles(
        query, _topical(words, evidence), evidence.titles, topical_total
    )
    symbol = evidence.symbol * _share(words, _whole(evidence.symbol_text), total_weight) ** 2
    inbound = max(
        (
            _title_match(_topical(words, evidence), query_terms(query), title, topical_total)
            for title in map(clean_title, evidence.inbound)
        ),
        default=0.0,
    )
    parts = {
        "body": WEIGHT_BODY * body,
        "title": WEIGHT_TITLE * title,
        "contained": WEIGHT_CONTAINED * contained,
        "exact": WEIGHT_EXACT * exact,
        "heading": WEIGHT_HEADING * evidence.heading,
        "passage": WEIGHT_PASSAGE * evidence.passage,
        "section": WEIGHT_SECTION * evidence.section,
        "symbol": WEIGHT_SYMBOL * symbol,
        "scope": WEIGHT_SCOPE * float(evidence.scope),
        "question": WEIGHT_QUESTION * title * float(evidence.thread and _asks(query)),
        "inbound": WEIGHT_INBOUND * inbound,
    }
    return Scored(total=round(sum(parts.values()), 9), **parts)


@functools.lru_cache(maxsize=4096)
def _whole(text: str) -> frozenset[str]:
    """The stems of ``text``'s tokens taken whole: a question's words that name a symbol
    are its name, not words that share a stem with one of its parts ("templates" beside
    ``render_template``)."""
    return frozenset(stem(token) for token in query_terms(text))


def _here(words: Sequence[Word], evidence: Evidence) -> list[Word]:
    """The query's words as this candidate's library weighs them: another library's
    name weighs nothing (kept in place: index frequencies are aligned with the words)."""
    if not evidence.foreign_stems:
        return list(words)
    return [Word(w.text, 0.0) if _names(w, evidence.foreign_stems) else w for w in words]


def _topical(words: Sequence[Word], evidence: Evidence) -> list[Word]:
    """The words that can say what a page of this library is about: not its own name."""
    return [w for w in words if not _names(w, evidence.scope_stems)] or list(words)


def _names(word: Word, stems: frozenset[str]) -> bool:
    """Whether the word (or a part of it: ``node.js``) is one of ``stems``."""
    return bool(stems) and not stems.isdisjoint(stems_of(word.text))


def _body(words: Sequence[Word], evidence: Evidence, total_weight: float) -> float:
    """Normalised BM25 times rarity-weighted coverage, from index frequencies or text."""
    if total_weight <= 0:
        return 0.0
    if evidence.frequencies is not None:
        norm = 1.0
        if evidence.average_length > 0:
            norm = 1 - B + B * evidence.length / evidence.average_length
        bm25 = 0.0
        covered = 0.0
        for word, frequency in zip(words, evidence.frequencies, strict=True):
            if frequency:
                bm25 += word.weight * frequency * (K1 + 1) / (frequency + K1 * norm)
                covered += word.weight
        return (bm25 / ((K1 + 1) * total_weight)) * (covered / total_weight)
    if evidence.engine is not None and evidence.text_share is None:
        # Found by its sections only: its best one as the section index weighs it.
        return ENGINE_BODY * evidence.engine
    if evidence.text_share is not None:
        # Read but not indexed: coverage alone, at half the saturation BM25 would give.
        return 0.5 * evidence.text_share * evidence.text_share
    return 0.0


def _share(words: Sequence[Word], stems: frozenset[str], total_weight: float) -> float:
    if total_weight <= 0:
        return 0.0
    return sum(w.weight for w in words if term_in(w.text, stems)) / total_weight


def _titles(
    query: str, words: Sequence[Word], titles: Sequence[str], total_weight: float
) -> tuple[float, float, float]:
    """(title, contained, exact) evidence of the best title."""
    best = (0.0, 0.0, 0.0)
    query_key = title_key(query)
    terms = query_terms(query)
    for raw in titles:
        title = clean_title(raw)
        if not title:
            continue
        exact = 1.0 if title_key(title) == query_key else 0.0
        match = _title_match(words, terms, title, total_weight)
        contained = _contained(words, terms, title, total_weight)
        candidate = (match, contained, exact)
        if sum(candidate) > sum(best):
            best = candidate
    return best


def _title_match(
    words: Sequence[Word], terms: Sequence[str], title: str, total_weight: float
) -> float:
    """``recall * (0.5 + 0.5 * precision)``: the rarity-weighted share of the query the
    title names, discounted when the title is mostly about something else."""
    recall = _share(words, stem_set(title), total_weight)
    if recall == 0:
        return 0.0
    head = _DISAMBIGUATOR.sub("", title) or title
    title_words = [t for t in distinct(query_terms(head)) if t not in STOP_WORDS]
    if not title_words:
        return recall
    query_stems = frozenset(stem(t) for t in terms)
    precision = sum(term_in(t, query_stems) for t in title_words) / len(title_words)
    return recall * (0.5 + 0.5 * precision)


def _contained(
    words: Sequence[Word], terms: Sequence[str], title: str, total_weight: float
) -> float:
    """The weight of a title that the query spells out word for word, in order (its
    disambiguator, if any, only has to be named somewhere in the query).

    "who first recorded Night Time Is the Right Time" holds the title "Night Time Is the
    Right Time"; so does the bare word "ray" hold the title "Ray". The share of the
    query's weight the title's words carry tells the two apart.
    """
    match = _DISAMBIGUATOR.search(title)
    head = title[: match.start()] if match else title
    head_terms = query_terms(head)
    if not head_terms or not run_in(head_terms, terms):
        return 0.0
    if match:
        qualifier = [t for t in query_terms(match.group(1)) if t not in STOP_WORDS]
        query_stems = frozenset(stem(t) for t in terms)
        if qualifier and not any(term_in(t, query_stems) for t in qualifier):
            # "Crying Time (album)" is not what a question about the song names.
            return 0.0
    if total_weight <= 0:
        return 1.0
    head_stems = stem_set(head)
    if match:
        head_stems = head_stems | stem_set(match.group(1))
    return _share(words, head_stems, total_weight)


def run_in(needle: Sequence[str], haystack: Sequence[str]) -> bool:
    """Whether ``needle`` occurs as consecutive items of ``haystack`` (stems compared)."""
    wanted = _stems(tuple(needle))
    have = _stems(tuple(haystack))
    width = len(wanted)
    return any(have[i : i + width] == wanted for i in range(len(have) - width + 1))


@functools.lru_cache(maxsize=4096)
def _stems(terms: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(stem(t) for t in terms)


def read_evidence(
    evidence: Evidence, document: Document, terms: DocumentTerms, words: Sequence[Word]
) -> Evidence:
    """``evidence`` completed from the document: its own title and page heading as
    further titles; the share of the query's weight its best section title holds; the
    share its best passage holds, counting its section's and parents' titles (a long
    reference page mentions everything somewhere; the page that answers has one passage
    that does); and, for candidates no index described, the share its whole text holds."""
    titles = distinct([*evidence.titles, document.title, document.metadata.get("heading", "")])
    total = sum(w.weight for w in words)
    # The words naming the library say nothing in its own headings and passages, as
    # in its titles ("flask" in every class signature of the Flask API page), nor do
    # other libraries' names.
    topical_total = sum(w.weight for w in _topical(words, evidence))
    topical = _topical(_here(words, evidence), evidence)
    heading = passage = section = 0.0
    text_share = evidence.text_share
    if total > 0 and topical_total > 0:
        heading = _best_heading(terms, topical) / topical_total
        passage = _best_passage(terms, topical) / topical_total
        section = _best_section(terms, topical) / topical_total
        if evidence.frequencies is None:
            text_share = sum(w.weight for w in words if terms.holds(w.text)) / total
    return msgspec.structs.replace(
        evidence,
        titles=tuple(t for t in titles if t),
        heading=heading,
        passage=passage,
        section=section,
        text_share=text_share,
        thread=document.kind == "thread",
    )


def _best_heading(terms: DocumentTerms, words: Sequence[Word]) -> float:
    """The most query weight one section title holds."""
    held: dict[int, float] = {}
    for word in words:
        for index in terms.sections_titled(word.text):
            held[index] = held.get(index, 0.0) + word.weight
    return max(held.values(), default=0.0)


#: Words in a section of average length, and how much a word in its heading path (not
#: its text) counts against one use in its text.
SECTION_AVERAGE_WORDS = 120
HEADING_USE = 0.8


def _best_section(terms: DocumentTerms, words: Sequence[Word]) -> float:
    """The most query weight one section holds, BM25-saturated: each word by its uses
    in the section's own text (length-normalised), or as a use when its title or a
    parent's names the word."""
    if not terms.sections:
        return 0.0
    uses = [terms.uses(word.text) for word in words]
    best = 0.0
    for index, section in enumerate(terms.sections):
        if section.section.role == "comments":
            continue
        norm = 1 - B + B * section.length / SECTION_AVERAGE_WORDS
        held = 0.0
        for word, used in zip(words, uses, strict=True):
            count = used.get(index, 0)
            if count:
                held += word.weight * count / (count + K1 * norm)
            elif term_in(word.text, section.context):
                held += word.weight * HEADING_USE
        best = max(best, held)
    return best


def _best_passage(terms: DocumentTerms, words: Sequence[Word]) -> float:
    """The most query weight one passage holds (its text plus its section's and parents'
    titles), or one section title alone (a section without text)."""
    held: dict[int, float] = {}
    for word in words:
        for index in terms.passages_holding(word.text):
            held[index] = held.get(index, 0.0) + word.weight
    return max(max(held.values(), default=0.0), _best_heading(terms, words))


def mentioned(
    words: Sequence[Word], document: Document, terms: DocumentTerms, titles: Iterable[str]
) -> bool:
    """Whether the cleaned document names any word the query weighs: in its text, its
    section titles, or a title it was found by (a redirect's, a symbol's).

    The archives' full-text indexes hold page chrome too (sotoki indexes the navigation,
    user cards and sidebars of every page, devdocs2zim the attribution line): a page
    matched only there says nothing about the query and is no result. Reference matter
    (citations) is no part of ``terms`` but is the document's text, so it is looked at
    last.
    """
    weighed = [w for w in words if w.weight > 0] or list(words)
    if not weighed:
        return True
    title_stems = stem_set(" ".join((document.title, *titles)))
    if any(terms.holds(w.text) or term_in(w.text, title_stems) for w in weighed):
        return True
    references = " ".join(
        s.content or " ".join(p.text for p in s.passages or ())
        for s in walk(document.sections)
        if s.reference
    )
    return bool(references) and any(term_in(w.text, stem_set(references)) for w in weighed)


_ASKING = word_set("how what why where when which who can could does do should is are will would")


def _asks(query: str) -> bool:
    """Whether the query is a question (a question mark, or a question word first)."""
    words = query.strip().split()
    return query.rstrip().endswith("?") or (bool(words) and words[0].lower() in _ASKING)
