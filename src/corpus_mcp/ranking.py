"""Query handling, federated ranking, snippets and section hints: pure functions.

Nothing here touches trio, libzim or I/O. The corpus manager

1. cleans the agent's text with :func:`normalise_query`;
2. asks each archive's full-text index for :func:`relaxations` in turn while too few
   hits come back, and its title index for :func:`title_query`;
3. merges every (library, list) ranking with :func:`fuse` (reciprocal rank fusion, then
   a lexical title rerank of near-ties, because ranks from different archives are not
   comparable) and spreads libraries with :func:`diversify`;
4. describes each hit with :func:`snippet` and :func:`section_hints`.

Xapian facts this module relies on (libzim's QueryParser, AND by default, checked on
the shared archives): upper-case ``AND OR NOT XOR NEAR ADJ`` are operators, quotes,
brackets, ``+``/``-`` prefixes, ``*`` and ``name:`` prefixes are syntax; lower-case
words are plain terms. Old (2018) indexes find nothing for hyphen-, dot- or
colon-joined words, so joined identifiers are sent as separate words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import msgspec

from corpus_mcp.document import Document, Section

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")

#: Longest query the tools accept, in characters, after normalisation.
MAX_QUERY_CHARS = 500

#: The usual reciprocal-rank-fusion constant: damps the gap between the first ranks.
RRF_K = 60

#: Fused scores within this fraction of a tie group's leader count as tied (see :func:`fuse`).
#: With ``k = 60`` a 5% band spans about the first three ranks of one list.
TIE_RATIO = 0.05

#: The fewest terms a relaxation keeps (when the query has that many informative ones).
MIN_RELAXED_TERMS = 2
#: Relaxations beyond "no stop words" start from at most this many terms, so a long
#: question costs a handful of index searches, not one per word.
MAX_RELAXED_TERMS = 6
#: The title index is prefix-matched with AND: more than a few terms never matches.
MAX_TITLE_TERMS = 3


def _word_set(text: str) -> frozenset[str]:
    """A word list written as whitespace-separated text."""
    return frozenset(text.split())


#: English function words and question words: they carry no topic.
STOP_WORDS = _word_set(
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
GENERIC_WORDS = _word_set(
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

#: Section titles that hold citations and link lists: never offered as hints.
REFERENCE_TITLES = frozenset(
    {
        "references",
        "notes",
        "citations",
        "sources",
        "bibliography",
        "external links",
        "further reading",
        "see also",
        "footnotes",
        "notes and references",
        "references and notes",
        "works cited",
        "explanatory notes",
        "general references",
        "cited sources",
    }
)

ELLIPSIS = "…"

# A token: a run of word characters, optionally joined to more by ``::``, ``.``, ``-`` or
# an apostrophe (``std::vector``, ``str.join``, ``x-ray``, ``don't``), optionally ending in
# ``++`` or ``#`` (``c++``, ``c#``). ``\w`` keeps underscores, so ``__init__`` is one token.
_TOKEN = re.compile(r"\w+(?:(?:::|[.\-'])\w+)*(?:\+\+|#(?!\w))?")
_JOINER = re.compile(r"::|[.\-]")
_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "‘": "'"})

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


def query_terms(query: str) -> list[str]:
    """Lower-cased word tokens of ``query`` in order, duplicates kept.

    Identifier-like tokens survive whole (``c++``, ``std::vector``, ``str.join``,
    ``__init__``, ``x-ray``); lone punctuation and pure-underscore runs are dropped.
    """
    text = query.translate(_APOSTROPHES)
    return [
        match.group().lower()
        for match in _TOKEN.finditer(text)
        if any(ch.isalnum() for ch in match.group())
    ]


def informative_terms(query: str) -> list[str]:
    """Distinct query terms minus stop words, in order; all distinct terms when every
    term is a stop word (a query like "the who" still means something)."""
    terms = _distinct(query_terms(query))
    kept = [term for term in terms if term not in STOP_WORDS]
    return kept or terms


def topic_terms(query: str) -> list[str]:
    """Informative terms without generic words ("use", "work", "difference") when any
    other term remains: what the query is about, for comparing with text."""
    kept = informative_terms(query)
    return [term for term in kept if term not in GENERIC_WORDS] or kept


def _distinct(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _xapian_words(term: str) -> list[str]:
    """A token as plain Xapian words: joined identifiers split into their parts
    (``std::vector`` -> ``std vector``); ``c++``/``c#``/apostrophes are kept, Xapian
    reads those as one term. Lower case keeps ``and``/``or``/``not`` from being
    operators."""
    return [part for part in _JOINER.split(term) if part]


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
    elif term in GENERIC_WORDS:
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
    floor = min(MIN_RELAXED_TERMS, len(kept))
    for count in range(min(len(kept) - 1, MAX_RELAXED_TERMS), floor - 1, -1):
        chosen = sorted(by_value[:count])
        variants.append(_xapian_string([kept[i] for i in chosen]))
    return _distinct(v for v in variants if v)


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


# -- term matching ----------------------------------------------------------------------


def _stem(word: str) -> str:
    """A light English suffix stripper, enough to match "methods"/"method",
    "charles's"/"charles", "classes"/"class", "running"/"run" on both sides of a
    comparison, "blindness"/"blind". Not linguistics: both sides only need to agree."""
    if word.endswith("'s"):
        word = word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(?:ss|x|z|ch|sh)es$", word):
        return word[:-2]
    if word.endswith("ness") and len(word) > 6:
        return word[:-4]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            return word[:-1] if word[-1] == word[-2] and word[-1] not in "ls" else word
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _stems(term: str) -> set[str]:
    """Stems a token can match by: its own and, for joined identifiers, its parts'."""
    out = {_stem(term)}
    parts = [part for part in _JOINER.split(term) if part]
    if len(parts) > 1:
        out.update(_stem(part) for part in parts)
    return out


def _term_in(term: str, stems: set[str]) -> bool:
    """Whether ``term`` occurs among ``stems`` (a joined term needs all its parts)."""
    if _stem(term) in stems:
        return True
    parts = [part for part in _JOINER.split(term) if part]
    return len(parts) > 1 and all(_stem(part) in stems for part in parts)


def _stem_set(text: str) -> set[str]:
    return {stem for token in query_terms(text) for stem in _stems(token)}


# -- titles -----------------------------------------------------------------------------

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")


def _title_key(text: str) -> str:
    """Case-, accent-, underscore- and punctuation-insensitive form of a title."""
    decomposed = unicodedata.normalize("NFKD", text.replace("_", " "))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join(re.sub(r"[^\w+#]+", " ", bare).replace("_", " ").split())


def is_exact_title(query: str, title: str) -> bool:
    """Whether ``title`` is the query itself, up to case, accents and punctuation."""
    key = _title_key(query)
    return bool(key) and key == _title_key(title)


def _is_near_exact_title(query: str, title: str) -> bool:
    """Exact once a trailing disambiguator is dropped ("Python (programming language)"),
    or the same set of topic terms in another order or form ("Class (Python)")."""
    key = _title_key(query)
    if key and key == _title_key(_DISAMBIGUATION.sub("", title)):
        return True
    query_stems = {_stem(term) for term in topic_terms(query)}
    title_stems = {_stem(term) for term in topic_terms(title)}
    return bool(query_stems) and query_stems == title_stems


def title_coverage(query: str, title: str) -> float:
    """How well ``title`` names what the query asks for, in [0, 1].

    ``0.6 * recall + 0.3 * precision + 0.1 * exactness`` where recall is the share of the
    query's topic terms (:func:`topic_terms`) found in the title, precision the share of the title's
    informative terms (a trailing "(...)" disambiguator left out) found in the query,
    and exactness 1 for an exact title (:func:`is_exact_title`), 0.5 for a near-exact
    one (:func:`_is_near_exact_title`), else 0. So "python" scores 1.0 against "Python",
    0.95 against "Python (programming language)", 0.75 against "Monty Python".
    """
    wanted = topic_terms(query)
    if not wanted:
        return 0.0
    title_stems = _stem_set(title)
    recall = sum(_term_in(term, title_stems) for term in wanted) / len(wanted)
    if recall == 0:
        return 0.0
    head = informative_terms(_DISAMBIGUATION.sub("", title)) or informative_terms(title)
    query_stems = _stem_set(query)
    precision = sum(_term_in(term, query_stems) for term in head) / len(head) if head else 0.0
    if is_exact_title(query, title):
        exactness = 1.0
    elif _is_near_exact_title(query, title):
        exactness = 0.5
    else:
        exactness = 0.0
    return round(0.6 * recall + 0.3 * precision + 0.1 * exactness, 6)


# -- fusion -----------------------------------------------------------------------------


def rrf(
    ranked_lists: Sequence[Sequence[K]],
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> dict[K, float]:
    """Reciprocal rank fusion: each item scores ``sum(weight / (k + rank))`` over the
    lists it appears in (rank 1-based, only its first appearance in a list counts).

    Items come out in order of first appearance (lists in the given order).
    """
    if k < 0:
        raise ValueError("k must be non-negative")
    if weights is not None and len(weights) != len(ranked_lists):
        raise ValueError("one weight per ranked list")
    scores: dict[K, float] = {}
    for index, ranked in enumerate(ranked_lists):
        weight = 1.0 if weights is None else weights[index]
        seen: set[K] = set()
        for rank, item in enumerate(ranked, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A search hit of one library's list, identified by ``(library, path)``.

    The caller fills ``library``, ``path``, ``title`` and, when it knows better than a
    title comparison, ``exact_title``; ``fragment`` is a section a redirect stub landed
    on. :func:`fuse` returns copies with ``score``, ``coverage``, ``exact_title`` and
    ``ranks`` (list name -> 1-based rank) filled.
    """

    library: str
    path: str
    title: str
    fragment: str | None = None
    exact_title: bool = False
    score: float = 0.0
    coverage: float = 0.0
    ranks: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.library, self.path)


def fuse(
    query: str,
    lists: Mapping[tuple[str, str], Sequence[Candidate]],
    *,
    tie_ratio: float = TIE_RATIO,
    k: int = RRF_K,
) -> list[Candidate]:
    """One ranking over every ``(library, list_name) -> candidates`` list.

    1. RRF over all lists; a candidate seen in several lists of its library adds up. An
       exact title (:func:`is_exact_title` or the caller's flag) counts as heading one
       more list, so an exact title that only the title index found (``2/(k+1)``) ties
       with another library's best full-text-and-title hit instead of losing to it.
    2. Base order: score, then title coverage (descending), library, path.
    3. Tie groups: from the best remaining candidate, every following one whose score is
       within ``tie_ratio`` of it (``score >= leader * (1 - tie_ratio)``). Inside a group
       exact titles come first, then libraries are interleaved by title coverage while
       each library keeps its own order (only cross-library order is lexical).

    The mapping's order does not matter: lists are read in sorted key order.
    """
    merged = _merge_candidates(query, lists, k)
    ordered = sorted(merged, key=_base_order)
    out: list[Candidate] = []
    start = 0
    while start < len(ordered):
        floor = ordered[start].score * (1 - tie_ratio)
        end = start + 1
        while end < len(ordered) and ordered[end].score >= floor:
            end += 1
        out.extend(_rerank_group(ordered[start:end]))
        start = end
    return out


def _base_order(candidate: Candidate) -> tuple[float, float, str, str]:
    return (-candidate.score, -candidate.coverage, candidate.library, candidate.path)


def _lexical_order(candidate: Candidate) -> tuple[float, float, str, str]:
    return (-candidate.coverage, -candidate.score, candidate.library, candidate.path)


def _merge_candidates(
    query: str, lists: Mapping[tuple[str, str], Sequence[Candidate]], k: int
) -> list[Candidate]:
    """One scored candidate per ``(library, path)``; its title, fragment and flag come
    from its best-ranked appearance, its coverage is the best over all its titles."""
    keys = sorted(lists)
    ranked_keys = [[candidate.key for candidate in lists[key]] for key in keys]
    scores = rrf(ranked_keys, k=k)
    best: dict[tuple[str, str], tuple[int, Candidate]] = {}
    ranks: dict[tuple[str, str], list[tuple[str, int]]] = {}
    coverage: dict[tuple[str, str], float] = {}
    exact: dict[tuple[str, str], bool] = {}
    for key in keys:
        list_name = key[1]
        seen: set[tuple[str, str]] = set()
        for rank, candidate in enumerate(lists[key], start=1):
            ident = candidate.key
            if ident in seen:
                continue
            seen.add(ident)
            ranks.setdefault(ident, []).append((list_name, rank))
            if ident not in best or rank < best[ident][0]:
                best[ident] = (rank, candidate)
            coverage[ident] = max(coverage.get(ident, 0.0), title_coverage(query, candidate.title))
            exact[ident] = (
                exact.get(ident, False)
                or candidate.exact_title
                or is_exact_title(query, candidate.title)
            )
    exact_bonus = 1.0 / (k + 1)
    return [
        msgspec.structs.replace(
            candidate,
            exact_title=exact[ident],
            score=scores[ident] + (exact_bonus if exact[ident] else 0.0),
            coverage=coverage[ident],
            ranks=tuple(ranks[ident]),
        )
        for ident, (_, candidate) in best.items()
    ]


def _rerank_group(group: Sequence[Candidate]) -> list[Candidate]:
    """Exact titles first (by coverage), then a merge of per-library queues that always
    takes the head with the best title coverage."""
    exact = sorted((c for c in group if c.exact_title), key=_lexical_order)
    queues: dict[str, list[Candidate]] = {}
    for candidate in group:
        if not candidate.exact_title:
            queues.setdefault(candidate.library, []).append(candidate)
    out = list(exact)
    while queues:
        head = min((queue[0] for queue in queues.values()), key=_lexical_order)
        queue = queues[head.library]
        queue.pop(0)
        if not queue:
            del queues[head.library]
        out.append(head)
    return out


def diversify(items: Sequence[T], library_of: Callable[[T], str], max_consecutive: int) -> list[T]:
    """``items`` reordered so that no more than ``max_consecutive`` in a row come from one
    library while another library still has items: when the run limit is hit, the next
    best item of another library goes first. Otherwise the order is kept (stable)."""
    if max_consecutive < 1:
        raise ValueError("max_consecutive must be at least 1")
    remaining = list(items)
    out: list[T] = []
    run_library: str | None = None
    run_length = 0
    while remaining:
        index = 0
        if run_length >= max_consecutive:
            index = next(
                (i for i, item in enumerate(remaining) if library_of(item) != run_library), 0
            )
        item = remaining.pop(index)
        library = library_of(item)
        run_length = run_length + 1 if library == run_library else 1
        run_library = library
        out.append(item)
    return out


# -- Markdown to plain text -------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_LINE = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^[\s|:\-+]+$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_QUOTE = re.compile(r"^\s*>\s?")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])")
_IMAGE = re.compile(r"!\[[^\]]*\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_CITATION = re.compile(r"\[(?:\d+|[a-z]|[a-z]?\s?\d+|note \d+|nb \d+|citation needed)\]", re.I)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"(?<!\\)\*\*(?=\S)(.+?)(?<=\S)(?<!\\)\*\*")
_EMPHASIS = re.compile(r"(?<![\\\w*])\*(?=\S)(.+?)(?<=\S)(?<!\\)\*(?![\w*])")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_CODE_OPEN, _CODE_CLOSE = "\ue000", "\ue001"
_STASHED = re.compile(f"{_CODE_OPEN}(\\d+){_CODE_CLOSE}")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~$<])")

PROSE, LIST, TABLE = "prose", "list", "table"
_KIND_WEIGHT = {PROSE: 1.0, LIST: 0.8, TABLE: 0.5}


class Passage(msgspec.Struct, frozen=True):
    """One Markdown block of a section, flattened to plain text."""

    kind: str
    text: str


def flatten_inline(markdown: str, keep_math: Callable[[str], bool] = lambda _: False) -> str:
    """One line of Markdown as plain text: links to their text, images, citation marks,
    HTML tags and emphasis markers gone, code spans unwrapped (their text untouched),
    escapes undone. Inline ``$...$`` math is dropped unless ``keep_math`` accepts its TeX."""
    codes: list[str] = []

    def stash(match: re.Match[str]) -> str:
        codes.append(match.group(2).strip())
        return f"{_CODE_OPEN}{len(codes) - 1}{_CODE_CLOSE}"

    text = _CODE_SPAN.sub(stash, markdown)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _CITATION.sub("", text)
    text = _HTML_TAG.sub("", text)
    text = _INLINE_MATH.sub(lambda m: m.group(1) if keep_math(m.group(1)) else "", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _ESCAPE.sub(r"\1", text)
    text = re.sub(r"\s+([,.;:!?)])", r"\1", " ".join(text.split()))
    text = re.sub(r"\(\s*\)", "", text).strip()
    return _STASHED.sub(lambda m: codes[int(m.group(1))], text)


def passages(markdown: str, keep_math: Callable[[str], bool] = lambda _: False) -> list[Passage]:
    """The blocks of a section's Markdown as plain-text passages.

    Code fences, display math, headings and rules are left out (never snippet
    material); tables become ``cell, cell; cell, cell`` without pipes; list items become
    one list passage per block.
    """
    out: list[Passage] = []
    for block in _blocks(_DISPLAY_MATH.sub("\n\n", markdown)):
        lines = [line for line in block if not _HEADING.match(line) and not _RULE.match(line)]
        if not lines:
            continue
        if sum(bool(_TABLE_LINE.match(line)) for line in lines) * 2 >= len(lines):
            text = _flatten_table(lines, keep_math)
            kind = TABLE
        elif sum(bool(_LIST_ITEM.match(line)) for line in lines) * 2 >= len(lines):
            items = (flatten_inline(_LIST_ITEM.sub("", line), keep_math) for line in lines)
            text = "; ".join(item.rstrip(";") for item in items if item)
            kind = LIST
        else:
            text = flatten_inline(" ".join(_QUOTE.sub("", line) for line in lines), keep_math)
            kind = PROSE
        if text:
            out.append(Passage(kind, text))
    return out


def _blocks(markdown: str) -> list[list[str]]:
    """Blank-line separated blocks, fenced code blocks dropped whole."""
    blocks: list[list[str]] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1) == fence:
                fence = None
            continue
        if opener:
            fence = opener.group(1)
        if opener or not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        current.append(line)
    if current:
        blocks.append(current)
    return blocks


def _flatten_table(lines: Sequence[str], keep_math: Callable[[str], bool]) -> str:
    rows: list[str] = []
    for line in lines:
        if _TABLE_RULE.match(line):
            continue
        cells = [flatten_inline(cell, keep_math) for cell in line.strip().strip("|").split("|")]
        row = ", ".join(cell for cell in cells if cell)
        if row:
            rows.append(row)
    return "; ".join(rows)


# -- snippets ---------------------------------------------------------------------------


class _Scored(msgspec.Struct, frozen=True):
    score: float
    order: int
    section: Section
    passage: Passage


def _content_sections(document: Document) -> list[Section]:
    """Sections in document order, reference sections (and their subsections) left out."""
    out: list[Section] = []

    def visit(sections: Sequence[Section]) -> None:
        for section in sections:
            if section.reference or _title_key(section.title) in REFERENCE_TITLES:
                continue
            out.append(section)
            visit(section.children)

    visit(document.sections)
    return out


def _hits(text: str, stems: set[str]) -> list[tuple[int, int]]:
    """(start, end) of each word of ``text`` that matches one of the query stems."""
    spans: list[tuple[int, int]] = []
    for match in _TOKEN.finditer(text.translate(_APOSTROPHES)):
        token = match.group().lower()
        if _stems(token) & stems:
            spans.append(match.span())
    return spans


def _passage_score(passage: Passage, section: Section, terms: Sequence[str]) -> float:
    """``(3 * distinct query terms found + 0.25 * occurrences, at most 6)``, weighted by
    the block kind (prose 1, list 0.8, table 0.5: infobox rows lose to prose saying the
    same), plus 0.5 per query term in the section title and 0.25 for the lead. 0 when no
    term occurs. Distinct terms dominate: a passage naming every term beats one
    repeating a single term."""
    text_stems = _stem_set(passage.text)
    distinct = sum(_term_in(term, text_stems) for term in terms)
    if not distinct:
        return 0.0
    occurrences = len(_hits(passage.text, {s for term in terms for s in _stems(term)}))
    title_stems = _stem_set(section.title)
    title_bias = 0.5 * sum(_term_in(term, title_stems) for term in terms)
    lead_bias = 0.25 if section.id == "" else 0.0
    base = 3.0 * distinct + 0.25 * min(occurrences, 6)
    return base * _KIND_WEIGHT[passage.kind] + title_bias + lead_bias


def snippet(query: str, document: Document, max_chars: int = 300) -> str:
    """A plain-text excerpt of ``document`` of at most ``max_chars`` characters around
    the query's terms.

    The passage with the best :func:`_passage_score` is chosen (ties: document order);
    short passages are topped up with the following prose of the same section; long
    ones are cut to the window holding the most query words, at word boundaries, with
    ``…`` where text was cut. Without any matching passage, the lead's first prose (or
    the document's first prose) is used from its start.
    """
    terms = topic_terms(query)
    stems = {stem for term in terms for stem in _stems(term)}

    def keep_math(tex: str) -> bool:
        return bool(_stem_set(tex) & stems)

    scored: list[_Scored] = []
    sections = _content_sections(document)
    for section in sections:
        for passage in passages(section.content, keep_math):
            score = _passage_score(passage, section, terms) if terms else 0.0
            scored.append(_Scored(score, len(scored), section, passage))
    best = max((s for s in scored if s.score > 0), key=lambda s: (s.score, -s.order), default=None)
    if best is None:
        return _fallback_snippet(scored, max_chars)
    text = _with_following_prose(best, scored, max_chars)
    return _window(text, _hits(text, stems), max_chars)


def _fallback_snippet(scored: Sequence[_Scored], max_chars: int) -> str:
    prose = [s for s in scored if s.passage.kind == PROSE]
    lead = [s for s in prose if s.section.id == ""]
    chosen = (lead or prose or list(scored))[:1]
    if not chosen:
        return ""
    return _window(_with_following_prose(chosen[0], scored, max_chars), [], max_chars)


def _with_following_prose(best: _Scored, scored: Sequence[_Scored], max_chars: int) -> str:
    """The passage, extended by the next prose passages of its section while shorter
    than two thirds of ``max_chars``."""
    text = best.passage.text
    for following in scored[best.order + 1 :]:
        if len(text) >= max_chars * 2 // 3 or following.section is not best.section:
            break
        if following.passage.kind == PROSE:
            text = f"{text} {following.passage.text}"
    return text


def _window(text: str, hits: Sequence[tuple[int, int]], max_chars: int) -> str:
    """At most ``max_chars`` of ``text`` covering the densest run of ``hits`` (or its
    start), cut at whole words, with ``…`` marking each cut."""
    if len(text) <= max_chars:
        return text
    budget = max(1, max_chars - 2 * len(ELLIPSIS))
    start = 0
    if hits:
        start = _window_start(text, _densest_start(hits, int(budget * 0.6)), budget)
    start = _word_start(text, min(start, len(text) - budget))
    end = _word_end(text, start, min(len(text), start + budget))
    body = text[start:end].strip().rstrip(",;:")
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    return f"{prefix}{body}{suffix}"


def _densest_start(hits: Sequence[tuple[int, int]], span: int) -> int:
    """Offset of the hit that opens the run with the most hits within ``span`` chars."""
    best_start, best_count = hits[0][0], 0
    for index, (start, _) in enumerate(hits):
        count = sum(1 for other, _ in hits[index:] if other - start <= span)
        if count > best_count:
            best_start, best_count = start, count
    return best_start


def _window_start(text: str, anchor: int, budget: int) -> int:
    """Where a window showing the hit at ``anchor`` begins: the text start when the hit
    is within half the budget from it, else the start of the hit's sentence when that is
    that close, else a quarter budget before the hit."""
    earliest = anchor - budget // 2
    if earliest <= 0:
        return 0
    boundaries = re.finditer(r"[.!?]\s+(?=[A-Z0-9\"'“(])", text[earliest:anchor])
    sentence = max((match.end() for match in boundaries), default=None)
    if sentence is not None:
        return earliest + sentence
    return anchor - budget // 4


def _word_start(text: str, index: int) -> int:
    """``index`` moved forward to the start of a word, unless the word is so long
    (over 40 chars) that cutting it is better than losing it."""
    if index <= 0 or text[index - 1].isspace():
        return max(index, 0)
    space = text.find(" ", index, index + 40)
    return index if space < 0 else space + 1


def _word_end(text: str, start: int, index: int) -> int:
    """``index`` moved back to the end of a word, never before ``start``."""
    if index >= len(text) or text[index].isspace():
        return index
    space = text.rfind(" ", start, index)
    return index if space <= start else space


# -- section hints ----------------------------------------------------------------------

#: A section is hinted only when its hint score (see :func:`_hint_score`) reaches this.
HINT_THRESHOLD = 0.5


def section_hints(query: str, document: Document, limit: int = 3) -> list[tuple[str, str]]:
    """``(id, title)`` of at most ``limit`` sections that clearly match the query, best
    first (ties in document order).

    Only terms the document title does not already cover can single out a section (in
    "Ray Charles", "ray charles" matches everywhere and so nowhere). The lead, sections
    marked ``reference`` or titled like References/Notes/See also, and their
    subsections, are never hinted.
    """
    title_stems = _stem_set(document.title)
    terms = [
        term
        for term in topic_terms(query)
        if term not in STOP_WORDS and not _term_in(term, title_stems)
    ]
    if not terms or limit <= 0:
        return []
    scored: list[tuple[float, int, Section]] = []
    for order, section in enumerate(_content_sections(document)):
        if section.id == "":
            continue
        score = _hint_score(terms, section)
        if score >= HINT_THRESHOLD:
            scored.append((-score, order, section))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [(section.id, section.title) for _, _, section in scored[:limit]]


def _hint_score(terms: Sequence[str], section: Section) -> float:
    """Mean over the terms of: 1 when the section title has it, else 0.5 when the
    section's own text uses it and 0.75 when it does so at least twice. A title naming
    half the terms, or a text using every term, reaches :data:`HINT_THRESHOLD`."""
    title_stems = _stem_set(section.title)
    text = " ".join(p.text for p in passages(section.content))
    total = 0.0
    for term in terms:
        if _term_in(term, title_stems):
            total += 1.0
        else:
            occurrences = len(_hits(text, _stems(term)))
            total += 0.0 if occurrences == 0 else 0.5 if occurrences == 1 else 0.75
    return total / len(terms)
