"""The Xapian databases inside a ZIM, searched directly: BM25 over OR queries, term
statistics, and the title index.

libzim's ``Searcher`` ANDs every word and reports neither scores nor term statistics,
and python-libzim holds the GIL while it searches. The databases themselves are plain
Xapian *glass* files stored as uncompressed blobs (:mod:`.layout` finds them), so they
can be opened from an offset of the ZIM file and queried the way a ranker needs: every
word optional, weighted by how rare it is, with the score, length and per-word
frequencies of each match, and with the GIL released during the search.

Terms are produced as libzim's indexer produces them: accents removed, lower case,
stemmed with the Snowball stemmer of the index's ``language`` (every word stemmed, no
prefix, in the full-text index; ``Z``-prefixed stems plus raw words in the title
index). A Xapian ``Database`` is not thread-safe, nor is anything made from it, so each
index keeps a :class:`~corpus_mcp.zim.xapian_pool.DatabasePool`: a thread borrows a
database for one call, every Xapian object of that call is made and destroyed inside
the borrow, and only plain data (hits, counts) comes out (that module says why: issue
23's segfault).

``xapian`` comes from the ``xapian-bindings-binary`` wheel (Linux only). Without it, or
for an archive whose index cannot be opened this way, :func:`open_indexes` returns
``None`` for that index and the caller searches through libzim.
"""

from __future__ import annotations

import functools
import os
import threading
import unicodedata
from collections.abc import Sequence
from functools import partial
from typing import Any, Final, TypeVar

import msgspec

from corpus_mcp.zim import xapian_pool
from corpus_mcp.zim.errors import ZimError, normalise_path
from corpus_mcp.zim.layout import locate_blob
from corpus_mcp.zim.xapian_pool import DatabasePool, open_database_at

xapian: Any = xapian_pool.xapian

#: Where each index lives: (namespace, path) in new archives, then the 2018 layout.
FULLTEXT_LOCATIONS: Final = (("X", "fulltext/xapian"), ("Z", "/fulltextIndex/xapian"))
TITLE_LOCATIONS: Final = (("X", "title/xapian"),)

#: ISO 639-3 (ZIM ``Language`` / index ``language``) -> Xapian stemmer, for every
#: language Xapian 1.4 stems. libzim picks the stemmer from the same code.
_STEMMERS: Final = {
    "ara": "arabic", "hye": "armenian", "arm": "armenian", "eus": "basque",
    "baq": "basque", "cat": "catalan", "dan": "danish", "nld": "dutch", "dut": "dutch",
    "eng": "english", "fin": "finnish", "fra": "french", "fre": "french",
    "deu": "german", "ger": "german", "hun": "hungarian", "ind": "indonesian",
    "gle": "irish", "ita": "italian", "lit": "lithuanian", "nep": "nepali",
    "nor": "norwegian", "nob": "norwegian", "nno": "norwegian", "por": "portuguese",
    "ron": "romanian", "rum": "romanian", "rus": "russian", "spa": "spanish",
    "swe": "swedish", "tam": "tamil", "tur": "turkish",
}  # fmt: skip
_VALUE_TITLE, _VALUE_WORDCOUNT, _VALUE_TARGET = 0, 1, 1
_STEM_CACHE = 4096


def available() -> bool:
    """Whether the Xapian bindings are installed."""
    return xapian is not None


Word = tuple[str, ...]
"""One query word as the parts that must all occur (``("str", "join")`` for
``str.join``); a plain word is a 1-tuple."""


class IndexHit(msgspec.Struct, frozen=True, kw_only=True):
    """One full-text match: the entry, its BM25 weight in this archive, its length in
    words and, per query word, how often the document uses it (0: absent)."""

    path: str
    title: str
    weight: float
    length: int
    frequencies: tuple[int, ...]


class TitleHit(msgspec.Struct, frozen=True, kw_only=True):
    """One title-index match: the entry (maybe a redirect), its title and, when the
    index records it, the path the entry redirects to."""

    path: str
    title: str
    target: str | None


class _Stemmer:
    """A word's stem as the index's language makes it (accents removed, lower case)."""

    def __init__(self, language: str) -> None:
        self._stem = xapian.Stem(_STEMMERS.get(language.lower(), "none"))
        # A Stem keeps its working state in itself between calls, and threads calling
        # one at once get each other's stems: one thread at a time. It refers to no
        # database and is never copied (a copy would share its reference-counted
        # internals), so the lock is all it needs (see .xapian_pool).
        self._lock = threading.Lock()

    def __call__(self, word: str) -> str:
        folded = fold(word)
        with self._lock:
            return str(self._stem(folded).decode("utf-8"))


class _Index:
    """What both indexes share: the pool, the stemmer, term making.

    Nothing here refers back to the index (no reference cycle), so its databases close
    the moment the last reference to it goes: the server freezes what it opened at
    startup out of the cyclic collector's sight (``gc.freeze``), where a cycle would keep
    the files open for good once a reload drops them. The pool is the only holder of the
    databases: nothing here keeps one aside (issue 23: a database kept as ``first`` was
    one other threads borrowed).
    """

    def __init__(self, file: str, offset: int, *, pool_size: int | None = None) -> None:
        self._pool = DatabasePool(partial(open_database_at, file, offset), size=pool_size)
        language, self.doc_count, self.average_length = self._pool.run(_statistics)
        self.language = language
        # Query words recur from search to search: each is stemmed once.
        self.stem = functools.lru_cache(maxsize=_STEM_CACHE)(_Stemmer(language))

    @property
    def databases_opened(self) -> int:
        """How many databases the pool has opened (one per thread searching at once)."""
        return self._pool.opened


class FulltextIndex(_Index):
    """A ZIM's full-text database: BM25 search with per-word evidence."""

    def word_frequency(self, word: Word) -> int:
        """How many documents contain every part of ``word`` (an upper bound for
        multi-part words: the rarest part's count)."""
        terms = tuple(self._term(part) for part in word)
        try:
            return self._pool.run(partial(_rarest_frequency, terms))
        except xapian.Error as exc:
            raise ZimError(f"full-text index statistics failed: {exc}") from exc

    def search(self, words: Sequence[Word], limit: int) -> list[IndexHit]:
        """The best ``limit`` documents for any of ``words`` (BM25; each word optional,
        a multi-part word counts where all its parts occur)."""
        if not words or limit <= 0:
            return []
        terms = tuple(tuple(self._term(part) for part in word) for word in words)
        try:
            return self._pool.run(partial(_fulltext_hits, terms, limit))
        except xapian.Error as exc:
            raise ZimError(f"full-text index search failed: {exc}") from exc

    def _term(self, part: str) -> bytes:
        return self.stem(part).encode("utf-8")


class TitleIndex(_Index):
    """A ZIM's title database (titles of front articles and of redirects to them)."""

    def search(self, words: Sequence[str], limit: int) -> list[TitleHit]:
        """Titles holding any of ``words`` (raw or stemmed), best BM25 first."""
        if not words or limit <= 0:
            return []
        terms: list[bytes] = []
        for word in words:
            terms.append(fold(word).encode("utf-8"))
            terms.append(b"Z" + self.stem(word).encode("utf-8"))
        try:
            return self._pool.run(partial(_title_hits, tuple(terms), limit))
        except xapian.Error as exc:
            raise ZimError(f"title index search failed: {exc}") from exc


# -- inside a borrow (DatabasePool.run): every Xapian object below is made and dies here --


def _statistics(database: Any) -> tuple[str, int, float]:
    """The index's language, document count and average document length."""
    language = database.get_metadata("language").decode("utf-8", "replace").strip()
    doc_count = int(database.get_doccount())
    return language, doc_count, float(database.get_avlength()) if doc_count else 0.0


def _rarest_frequency(terms: Sequence[bytes], database: Any) -> int:
    return min(int(database.get_termfreq(term)) for term in terms)


def _fulltext_hits(terms: Sequence[Sequence[bytes]], limit: int, database: Any) -> list[IndexHit]:
    subqueries = [
        xapian.Query(parts[0]) if len(parts) == 1 else xapian.Query(xapian.Query.OP_AND, parts)
        for parts in terms
    ]
    enquire = xapian.Enquire(database)
    enquire.set_query(xapian.Query(xapian.Query.OP_OR, subqueries))
    enquire.set_weighting_scheme(xapian.BM25Weight())
    # A Document reads its data and values through its database, lazily: each is read
    # here, into plain data, and dropped with the item.
    found = [
        (int(item.docid), float(item.weight), *_fields(item.document))
        for item in enquire.get_mset(0, limit)
    ]
    frequencies = _frequencies(database, [docid for docid, *_ in found], terms)
    return [
        IndexHit(
            path=path,
            title=title,
            weight=weight,
            length=_int(length),
            frequencies=tuple(frequencies[docid]),
        )
        for docid, weight, path, title, length in found
    ]


def _title_hits(terms: Sequence[bytes], limit: int, database: Any) -> list[TitleHit]:
    enquire = xapian.Enquire(database)
    enquire.set_query(xapian.Query(xapian.Query.OP_OR, [xapian.Query(t) for t in terms]))
    hits: list[TitleHit] = []
    for item in enquire.get_mset(0, limit):
        path, title, target = _fields(item.document, _VALUE_TARGET)
        hits.append(
            TitleHit(
                path=path,
                title=title,
                target=normalise_path(target.decode("utf-8", "replace")) if target else None,
            )
        )
    return hits


def _fields(document: Any, value: int = _VALUE_WORDCOUNT) -> tuple[str, str, bytes]:
    """A document's normalised path, its title and its value ``value`` (raw)."""
    data = document.get_data().decode("utf-8", "replace")
    title = document.get_value(_VALUE_TITLE).decode("utf-8", "replace")
    return normalise_path(_without_namespace(data)), title, bytes(document.get_value(value))


IndexT = TypeVar("IndexT", bound=_Index)


class Indexes(msgspec.Struct, frozen=True):
    fulltext: FulltextIndex | None
    title: TitleIndex | None


NO_INDEXES: Final = Indexes(None, None)


def open_indexes(file: str) -> Indexes:
    """The archive's full-text and title databases that can be read directly."""
    if xapian is None:
        return NO_INDEXES
    fulltext = _open(file, FULLTEXT_LOCATIONS, FulltextIndex)
    title = _open(file, TITLE_LOCATIONS, TitleIndex)
    return Indexes(fulltext, title)


def _open(file: str, locations: Sequence[tuple[str, str]], kind: type[IndexT]) -> IndexT | None:
    try:
        fd = os.open(file, os.O_RDONLY)
    except OSError:
        return None
    try:
        found = next((loc for ns, path in locations if (loc := locate_blob(fd, ns, path))), None)
    finally:
        os.close(fd)
    if found is None or found.size == 0:
        return None
    try:
        return kind(file, found.offset)
    except (xapian.Error, OSError):  # not a database after all: libzim's search serves
        return None


def fold(word: str) -> str:
    """A word as libzim indexes it: accents removed, lower case."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def _frequencies(
    database: Any, docids: Sequence[int], terms: Sequence[Sequence[bytes]]
) -> dict[int, list[int]]:
    """Per document, how often each word occurs (the rarest part's count for
    multi-part words), read from the posting lists: the index keeps no term lists."""
    ordered = sorted(docids)
    out = {docid: [0] * len(terms) for docid in docids}
    for position, parts in enumerate(terms):
        counts: dict[int, int] | None = None
        for part in parts:
            found = _postings(database, part, ordered)
            counts = (
                found if counts is None else {d: min(c, found.get(d, 0)) for d, c in counts.items()}
            )
        for docid, count in (counts or {}).items():
            out[docid][position] = count
    return out


def _postings(database: Any, term: bytes, ordered: Sequence[int]) -> dict[int, int]:
    """``docid -> wdf`` of ``term`` for the (sorted) documents that contain it."""
    found: dict[int, int] = {}
    if not ordered or not database.term_exists(term):
        return found
    postings = database.postlist(term)
    for docid in ordered:
        try:
            item = postings.skip_to(docid)  # the first posting at or after docid
        except StopIteration:
            break
        if item.docid == docid:
            found[docid] = int(item.wdf)
    return found


def _without_namespace(data: str) -> str:
    """``C/path`` -> ``path``; old archives' ``A/path`` is normalised by the caller."""
    if data.startswith("C/"):
        return data[2:]
    return data


def _int(raw: bytes) -> int:
    try:
        return int(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return 0
