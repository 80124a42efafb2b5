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
index). A Xapian ``Database`` is not thread-safe, so each index keeps a small pool:
a thread takes a database for one call and gives it back.

``xapian`` comes from the ``xapian-bindings-binary`` wheel (Linux only). Without it, or
for an archive whose index cannot be opened this way, :func:`open_indexes` returns
``None`` for that index and the caller searches through libzim.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any, Final, TypeVar

import msgspec

from corpus_mcp.zim.errors import ZimError, normalise_path
from corpus_mcp.zim.layout import locate_blob

try:  # the wheel exists for Linux only; elsewhere libzim's own search serves
    import xapian as _xapian
except ImportError:  # pragma: no cover - depends on the platform
    _xapian = None

xapian: Any = _xapian

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


class _Pool:
    """Databases of one index for threads to borrow, opened on demand."""

    def __init__(self, file: str, offset: int) -> None:
        self._file = file
        self._offset = offset
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.first = self.open()
        # Idle from the start: taking it from the queue is atomic, unlike a check of
        # ``first`` followed by clearing it, which let two threads take the same one.
        self._idle.put(self.first)

    def open(self) -> Any:
        fd = os.open(self._file, os.O_RDONLY)
        try:
            os.lseek(fd, self._offset, os.SEEK_SET)
            # Xapian takes the descriptor over and closes it with the database.
            return xapian.Database(fd)
        except BaseException:
            os.close(fd)
            raise

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Any]:
        try:
            database = self._idle.get_nowait()
        except queue.Empty:
            database = self.open()
        try:
            yield database
        finally:
            self._idle.put(database)


class _Stemmer:
    """A word's stem as the index's language makes it (accents removed, lower case)."""

    def __init__(self, language: str) -> None:
        self._stem = xapian.Stem(_STEMMERS.get(language.lower(), "none"))
        # A Stem keeps its working state in itself between calls, and threads calling
        # one at once get each other's stems: one thread at a time.
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
    the files open for good once a reload drops them.
    """

    def __init__(self, file: str, offset: int) -> None:
        self._pool = _Pool(file, offset)
        database = self._pool.first
        language = database.get_metadata("language").decode("utf-8", "replace").strip()
        self.language = language
        self.doc_count = int(database.get_doccount())
        self.average_length = float(database.get_avlength()) if self.doc_count else 0.0
        # Query words recur from search to search: each is stemmed once.
        self.stem = functools.lru_cache(maxsize=_STEM_CACHE)(_Stemmer(language))


class FulltextIndex(_Index):
    """A ZIM's full-text database: BM25 search with per-word evidence."""

    def word_frequency(self, word: Word) -> int:
        """How many documents contain every part of ``word`` (an upper bound for
        multi-part words: the rarest part's count)."""
        with self._pool.borrow() as database:
            return min(int(database.get_termfreq(self._term(part))) for part in word)

    def search(self, words: Sequence[Word], limit: int) -> list[IndexHit]:
        """The best ``limit`` documents for any of ``words`` (BM25; each word optional,
        a multi-part word counts where all its parts occur)."""
        if not words or limit <= 0:
            return []
        terms = [[self._term(part) for part in word] for word in words]
        subqueries = [
            xapian.Query(parts[0]) if len(parts) == 1 else xapian.Query(xapian.Query.OP_AND, parts)
            for parts in terms
        ]
        try:
            with self._pool.borrow() as database:
                enquire = xapian.Enquire(database)
                enquire.set_query(xapian.Query(xapian.Query.OP_OR, subqueries))
                enquire.set_weighting_scheme(xapian.BM25Weight())
                matches = [
                    (item.docid, float(item.weight), item.document)
                    for item in enquire.get_mset(0, limit)
                ]
                frequencies = _frequencies(database, [m[0] for m in matches], terms)
                # A Document reads its data and values through its database, lazily:
                # they are read before the database goes back to the pool.
                hits: list[IndexHit] = []
                for docid, weight, document in matches:
                    data = document.get_data().decode("utf-8", "replace")
                    hits.append(
                        IndexHit(
                            path=normalise_path(_without_namespace(data)),
                            title=document.get_value(_VALUE_TITLE).decode("utf-8", "replace"),
                            weight=weight,
                            length=_int(document.get_value(_VALUE_WORDCOUNT)),
                            frequencies=tuple(frequencies[docid]),
                        )
                    )
        except xapian.Error as exc:
            raise ZimError(f"full-text index search failed: {exc}") from exc
        return hits

    def _term(self, part: str) -> bytes:
        return self.stem(part).encode("utf-8")


class TitleIndex(_Index):
    """A ZIM's title database (titles of front articles and of redirects to them)."""

    def search(self, words: Sequence[str], limit: int) -> list[TitleHit]:
        """Titles holding any of ``words`` (raw or stemmed), best BM25 first."""
        if not words or limit <= 0:
            return []
        subqueries = []
        for word in words:
            folded = fold(word)
            subqueries.append(xapian.Query(folded.encode("utf-8")))
            subqueries.append(xapian.Query(b"Z" + self.stem(word).encode("utf-8")))
        try:
            with self._pool.borrow() as database:
                enquire = xapian.Enquire(database)
                enquire.set_query(xapian.Query(xapian.Query.OP_OR, subqueries))
                documents = [item.document for item in enquire.get_mset(0, limit)]
                # Read before the database goes back to the pool (documents are lazy).
                hits: list[TitleHit] = []
                for document in documents:
                    data = document.get_data().decode("utf-8", "replace")
                    target = document.get_value(_VALUE_TARGET).decode("utf-8", "replace")
                    hits.append(
                        TitleHit(
                            path=normalise_path(_without_namespace(data)),
                            title=document.get_value(_VALUE_TITLE).decode("utf-8", "replace"),
                            target=normalise_path(target) if target else None,
                        )
                    )
        except xapian.Error as exc:
            raise ZimError(f"title index search failed: {exc}") from exc
        return hits


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
