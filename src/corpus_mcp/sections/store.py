"""The section index on disk: a Xapian database, written in shards, published as one file.

Why Xapian (DEVELOPERS.md has the measurements against SQLite FTS5 and tantivy): it is
libzim's own engine and already a dependency; its queries skip documents that cannot
reach the top (an OR of common words over millions of sections stays fast where FTS5
scores every match); it releases the GIL while it searches; it reads its files with
``pread``, so the serving processes share one copy in the page cache; shards written by
several processes merge into one compact single-file database (``compact``), and a
commit is atomic, metadata included, which is what resuming a killed build relies on.

One Xapian document per section (:class:`~corpus_mcp.sections.records.SectionRecord`):

- terms by field (:mod:`corpus_mcp.sections.analysis`): its text unprefixed, ``S`` the
  document's titles, ``H`` its heading path, ``N`` the words of the identifiers naming it,
  ``X`` those identifiers whole and by their tails;
- ``Q<path>`` (its document) and ``K`` (a key section: the lead, a thread's accepted
  answer), boolean;
- value 0, its document's path: results are collapsed by it (a few sections per page);
- data: the :class:`~corpus_mcp.sections.records.StoredSection`, msgpack (Xapian
  compresses it).

Every read goes through :class:`corpus_mcp.zim.xapian_pool.DatabasePool`: no Xapian object
outlives its thread's borrow of the database; raw bytes leave it, decoded outside.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from corpus_mcp.sections.analysis import (
    BODY,
    FIELDS,
    HEADINGS,
    IDENTIFIERS,
    MAX_TERM_BYTES,
    NAMES,
    TITLES,
    Analyser,
    IndexQuery,
    identifier_keys,
)
from corpus_mcp.sections.records import SectionRecord, StoredSection
from corpus_mcp.zim.xapian_pool import DatabasePool, xapian

#: The shape of what is stored: fields, terms, records. A file of another format is
#: stale and rebuilt, never read.
INDEX_FORMAT: Final = 4
#: The metadata key holding :class:`IndexMeta` (JSON).
META_KEY: Final = "corpus-mcp"
#: A shard's metadata: which chunks it holds (a bitmap), and their pages and sections.
CHUNKS_KEY: Final = "corpus-mcp:chunks"
COUNTS_KEY: Final = "corpus-mcp:counts"
PATH_PREFIX: Final = "Q"
KEY_TERM: Final = b"K"
_PATH_SLOT: Final = 0
#: What a match reports of a section without its stored data: its document's title, its
#: id and, for a redirect's record, the redirect's title, joined by :data:`_UNIT`.
_FOUND_SLOT: Final = 1
_UNIT: Final = "\x1f"

#: How much a match in each field counts (a word in a heading says more than in text).
FIELD_WEIGHTS: Final = {BODY: 1.0, TITLES: 1.0, HEADINGS: 2.0, NAMES: 2.0}
#: How much an identifier named exactly counts, times how surely the question names it.
IDENTIFIER_WEIGHT: Final = 6.0


class IndexMeta(msgspec.Struct, frozen=True, kw_only=True):
    """What a published index says of itself (its metadata)."""

    format: int
    archive_uuid: str
    archive_size: int
    adapter: str
    adapter_version: int
    language: str | None
    documents: int
    sections: int
    built: str
    """When it was published (ISO 8601, UTC)."""
    seconds: float
    """How long the build took, all runs together."""


class IndexUnreadable(Exception):
    """An index file that cannot be used: not a database, cut short, damaged, or of
    another format. The message says which."""


class Found(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A section (or a redirect's record) found, as the match reports it (its values,
    not its stored data)."""

    weight: float
    path: str
    title: str
    """Its document's title."""
    section: str
    """The section's id ("": the lead; a redirect: where it lands)."""
    redirect: str = ""
    """A redirect's record: the redirect's title."""


class IndexAnswer(msgspec.Struct, frozen=True, gc=False):
    """What one question found in one index (see :meth:`SectionIndex.ask`): plain data."""

    found: list[Found] = msgspec.field(default_factory=list)
    """Every section (or redirect) found, best first."""
    max_weight: float = 0.0
    """The weight no section can exceed for this question (0: nothing matched)."""


class SectionHit(msgspec.Struct, frozen=True, gc=False):
    """A section found for a question: the engine's weight and what is stored of it."""

    weight: float
    section: StoredSection


_DECODER = msgspec.msgpack.Decoder(StoredSection)
_ENCODER = msgspec.msgpack.Encoder()


# -- writing ----------------------------------------------------------------------------


class ShardDone(msgspec.Struct, frozen=True):
    """What a shard holds: its chunks, and the pages and sections they had."""

    chunks: frozenset[int]
    pages: int
    sections: int


class ShardWriter:
    """One build process's shard: records added, then committed with the chunk done.

    A commit is atomic, the shard's record of its chunks included (metadata: a bitmap
    of chunk numbers and the pages and sections they held): a shard killed part-way
    holds exactly the chunks it says, and a later run does only the others. Each chunk
    is a transaction: Xapian commits what a database holds when it is closed or
    destroyed, but cancels an open transaction, so a worker ending part-way through a
    chunk (an exception, an interpreter exiting) leaves none of its records behind.
    """

    def __init__(self, path: Path, analyser: Analyser) -> None:
        self._db: Any = xapian.WritableDatabase(
            str(path), xapian.DB_CREATE_OR_OPEN | xapian.DB_NO_TERMLIST
        )
        self._analyser = analyser
        done = _shard_done(self._db)
        self._chunks = bytearray(_bitmap(done.chunks))
        self._pages = done.pages
        self._sections = done.sections
        self._db.begin_transaction()

    def add(self, record: SectionRecord) -> None:
        document = xapian.Document()
        analyser = self._analyser
        for prefix, text in (
            (BODY, record.body),
            (TITLES, record.titles),
            (HEADINGS, record.headings),
            (NAMES, " ".join(record.names)),
        ):
            for term, uses in analyser.term_counts(text, stop_words=prefix != BODY).items():
                document.add_term((prefix + term).encode(), uses)
        for name in record.names:
            for key in identifier_keys(name):
                document.add_term((IDENTIFIERS + key).encode())
        stored = record.stored
        path = (PATH_PREFIX + stored.path).encode()
        if len(path) <= MAX_TERM_BYTES:
            document.add_boolean_term(path)
        if stored.key:
            document.add_boolean_term(KEY_TERM)
        document.add_value(_PATH_SLOT, stored.path.encode())
        reported = (stored.document_title, stored.id, stored.redirect or "")
        document.add_value(_FOUND_SLOT, _UNIT.join(reported).encode())
        document.set_data(_ENCODER.encode(stored))
        self._db.add_document(document)

    def commit(self, chunk: int, pages: int, sections: int) -> None:
        """Make what was added durable, with the chunk marked done (and what it held)."""
        byte, bit = divmod(chunk, 8)
        if byte >= len(self._chunks):
            self._chunks.extend(bytes(byte + 1 - len(self._chunks)))
        self._chunks[byte] |= 1 << bit
        self._pages += pages
        self._sections += sections
        self._db.set_metadata(CHUNKS_KEY, bytes(self._chunks))
        self._db.set_metadata(COUNTS_KEY, f"{self._pages} {self._sections}")
        self._db.commit_transaction()
        self._db.begin_transaction()

    def close(self) -> None:
        """Uncommitted records are dropped (a chunk is committed whole or not at all)."""
        self._db.close()


def shard_held(shard: Path) -> bool:
    """Whether a process holds the shard open for writing now (its write lock)."""
    try:
        database: Any = xapian.WritableDatabase(str(shard), xapian.DB_OPEN)
    except xapian.DatabaseLockError:
        return True
    except xapian.Error:
        return False
    database.close()
    return False


def shard_done(shard: Path) -> ShardDone:
    """What a shard holds (an unreadable shard holds nothing: its chunks are done
    again, and it is left out of the index)."""
    try:
        database: Any = xapian.Database(str(shard))
    except xapian.Error:
        return _NOTHING
    try:
        return _shard_done(database)
    except xapian.Error:
        return _NOTHING
    finally:
        database.close()


_NOTHING: Final = ShardDone(frozenset(), 0, 0)


def _shard_done(database: Any) -> ShardDone:
    bitmap = bytes(database.get_metadata(CHUNKS_KEY))
    counts = bytes(database.get_metadata(COUNTS_KEY)).decode("ascii", "replace").split()
    if len(counts) != 2 or not all(c.isdigit() for c in counts):
        return _NOTHING
    chunks = frozenset(
        8 * byte + bit for byte, value in enumerate(bitmap) for bit in range(8) if value >> bit & 1
    )
    return ShardDone(chunks, int(counts[0]), int(counts[1]))


def _bitmap(chunks: frozenset[int]) -> bytes:
    out = bytearray((max(chunks) // 8 + 1) if chunks else 0)
    for chunk in chunks:
        out[chunk // 8] |= 1 << (chunk % 8)
    return bytes(out)


def publish(shards: Sequence[Path], meta: IndexMeta, scratch: Path, out: Path) -> None:
    """Merge the shards into one compact file at ``out``, with ``meta``, atomically:
    written beside it under another name, synced, then renamed over."""
    scratch.mkdir(parents=True, exist_ok=True)
    stamp = scratch / "meta.glass"
    writer: Any = xapian.WritableDatabase(str(stamp), xapian.DB_CREATE_OR_OVERWRITE)
    writer.set_metadata(META_KEY, msgspec.json.encode(meta).decode())
    writer.commit()
    writer.close()
    merged: Any = xapian.Database(str(stamp))
    for shard in shards:
        merged.add_database(xapian.Database(str(shard)))
    partial = out.with_name(out.name + ".part")
    partial.unlink(missing_ok=True)
    merged.compact(str(partial), xapian.DBCOMPACT_SINGLE_FILE)
    merged.close()
    with partial.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, out)
    _sync_folder(out.parent)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_meta(file: Path) -> IndexMeta:
    """An index file's own description (:class:`IndexUnreadable` when it has none)."""
    try:
        database: Any = xapian.Database(str(file))
    except (xapian.Error, OSError) as exc:
        raise IndexUnreadable(f"not a readable index ({_reason(exc)})") from None
    try:
        raw = database.get_metadata(META_KEY)
    except xapian.Error as exc:
        raise IndexUnreadable(f"its metadata cannot be read ({_reason(exc)})") from None
    finally:
        database.close()
    try:
        return msgspec.json.decode(raw, type=IndexMeta)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise IndexUnreadable("its metadata is not a corpus-mcp section index's") from None


# -- reading ----------------------------------------------------------------------------


class SectionIndex:
    """A published index, searched from threads (each borrows a database of its own)."""

    def __init__(self, file: Path, meta: IndexMeta, analyser: Analyser) -> None:
        self.file = file
        self.meta = meta
        self.analyser = analyser
        self._pool = DatabasePool(lambda: _open(file))
        self.size = file.stat().st_size
        """Bytes of the file opened."""

    @classmethod
    def open(cls, file: Path) -> SectionIndex:
        """Open an index file (:class:`IndexUnreadable` when it cannot serve)."""
        meta = read_meta(file)
        if meta.format != INDEX_FORMAT:
            raise IndexUnreadable(f"format {meta.format}, this version reads {INDEX_FORMAT}")
        try:
            return cls(file, meta, Analyser.for_language(meta.language))
        except (xapian.Error, OSError) as exc:
            raise IndexUnreadable(f"not a readable index ({_reason(exc)})") from None

    def search(self, query: IndexQuery, limit: int, per_document: int) -> list[SectionHit]:
        """The best ``limit`` sections for a question, at most ``per_document`` of one
        document, best first."""
        if limit <= 0 or not (query.words or query.identifiers):
            return []

        def run(database: Any) -> list[tuple[float, bytes]]:
            enquire = xapian.Enquire(database)
            enquire.set_query(_question(query))
            enquire.set_collapse_key(_PATH_SLOT, per_document)
            return _stored(enquire.get_mset(0, limit))

        return [SectionHit(w, _decoded(data)) for w, data in self._read(run)]

    def ask(self, query: IndexQuery, *, limit: int, per_document: int) -> IndexAnswer:
        """The best ``limit`` sections for a question (at most ``per_document`` of one
        document), as the match reports them (their values: no stored data is read),
        and the weight no section can exceed for this question."""
        if limit <= 0 or not (query.words or query.identifiers):
            return IndexAnswer()

        def run(database: Any) -> IndexAnswer:
            enquire = xapian.Enquire(database)
            enquire.set_query(_question(query))
            enquire.set_collapse_key(_PATH_SLOT, per_document)
            mset = enquire.get_mset(0, limit)
            found: list[Found] = []
            # The iterator's own calls, not the bindings' MSetItem (which asks for seven
            # things of each hit, and they cost more than the match on a small index).
            at, end = mset._begin(), mset._end()
            while at != end:
                title, section, redirect = _reported(at.get_document().get_value(_FOUND_SLOT))
                path = bytes(at.get_collapse_key()).decode("utf-8", "replace")
                found.append(Found(float(at.get_weight()), path, title, section, redirect))
                next(at)
            best = float(mset.get_max_possible())
            del at, end, mset, enquire
            return IndexAnswer(found=found, max_weight=best)

        answer: IndexAnswer = self._read(run)
        return answer

    def sections_of(
        self, query: IndexQuery, paths: Sequence[str], per_document: int
    ) -> dict[str, list[SectionHit]]:
        """For each document, its sections the question matches best (at most
        ``per_document``, best first) and then its key sections (weight 0)."""
        wanted = [
            t
            for p in dict.fromkeys(paths)
            if len(t := (PATH_PREFIX + p).encode()) <= MAX_TERM_BYTES
        ]
        if not wanted:
            return {}

        def run(database: Any) -> tuple[list[tuple[float, bytes]], list[bytes]]:
            documents = xapian.Query(xapian.Query.OP_OR, [xapian.Query(t) for t in wanted])
            matched: list[tuple[float, bytes]] = []
            if query.words or query.identifiers:
                enquire = xapian.Enquire(database)
                enquire.set_query(xapian.Query(xapian.Query.OP_FILTER, _question(query), documents))
                enquire.set_collapse_key(_PATH_SLOT, per_document)
                limit = per_document * len(wanted)
                matched = _stored(enquire.get_mset(0, limit))
                del enquire
            keys = xapian.Enquire(database)
            keys.set_query(xapian.Query(xapian.Query.OP_AND, [xapian.Query(KEY_TERM), documents]))
            keyed = [data for _, data in _stored(keys.get_mset(0, 4 * len(wanted)))]
            return matched, keyed

        matched, keyed = self._read(run)
        out: dict[str, list[SectionHit]] = {}
        seen: set[tuple[str, int]] = set()
        for weight, data in matched:
            section = _decoded(data)
            seen.add((section.path, section.order))
            out.setdefault(section.path, []).append(SectionHit(weight, section))
        for data in keyed:
            section = _decoded(data)
            if (section.path, section.order) not in seen:
                out.setdefault(section.path, []).append(SectionHit(0.0, section))
        return out

    def _read(self, fn: Any) -> Any:
        try:
            return self._pool.run(fn)
        except xapian.Error as exc:
            raise IndexUnreadable(f"reading it failed ({_reason(exc)})") from None


def _stored(mset: Any) -> list[tuple[float, bytes]]:
    """(weight, stored data) of each hit (inside the borrow: the MSet dies with it)."""
    out: list[tuple[float, bytes]] = []
    at, end = mset._begin(), mset._end()
    while at != end:
        out.append((float(at.get_weight()), bytes(at.get_document().get_data())))
        next(at)
    return out


def _reported(value: bytes) -> tuple[str, str, str]:
    """(document title, section id, redirect title) from a section's found value."""
    parts = bytes(value).decode("utf-8", "replace").split(_UNIT)
    if len(parts) != 3:
        raise IndexUnreadable("a section's reported values are damaged")
    return parts[0], parts[1], parts[2]


def _decoded(data: bytes) -> StoredSection:
    """A hit's stored section; damaged bytes mean a damaged index."""
    try:
        return _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise IndexUnreadable(f"a stored section is damaged ({exc})") from None


def _open(file: Path) -> Any:
    return xapian.Database(str(file))


def _question(query: IndexQuery) -> Any:
    """The Xapian query: every word optional, looked for in every field (each field
    weighted), a joined word whole or by all its parts; identifiers named exactly.

    One OR of terms per field, not one query object per term and field: building the
    query object by object from Python cost more than matching it on a small index."""
    Query = xapian.Query
    subqueries = []
    for prefix, weight in FIELD_WEIGHTS.items():
        field = Query(Query.OP_OR, [(prefix + word.whole).encode() for word in query.words])
        joined = [
            Query(Query.OP_AND, [(prefix + part).encode() for part in word.parts])
            for word in query.words
            if word.parts
        ]
        if joined:
            field = Query(Query.OP_OR, [field, *joined])
        subqueries.append(Query(Query.OP_SCALE_WEIGHT, field, weight))
    for key, strength in query.identifiers:
        term = (IDENTIFIERS + key).encode()
        if len(term) <= MAX_TERM_BYTES:
            subqueries.append(
                Query(Query.OP_SCALE_WEIGHT, Query(term), IDENTIFIER_WEIGHT * strength)
            )
    return Query(Query.OP_OR, subqueries)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


__all__ = [
    "FIELDS",
    "INDEX_FORMAT",
    "Found",
    "IndexAnswer",
    "IndexMeta",
    "IndexUnreadable",
    "SectionHit",
    "SectionIndex",
    "ShardDone",
    "ShardWriter",
    "publish",
    "read_meta",
    "shard_done",
    "shard_held",
]
