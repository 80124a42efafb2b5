"""Three embedded full-text engines over the same section records, for
``bench_section_engines.py`` (issue 24): Xapian as the product writes and reads it
(:mod:`corpus_mcp.sections.store`), SQLite FTS5 (the standard library) and tantivy
(``pip install tantivy``, optional).

Every engine gets the records the product's adapters make, and the terms the product's
:class:`~corpus_mcp.sections.analysis.Analyser` makes of them, so that only the engine
differs:

- fields ``body``, ``titles``, ``headings``, ``names`` hold the analysed terms (each term
  repeated as often as it occurs: a term's frequency is what BM25 reads), and ``idents``
  each identifier key whole (:func:`~corpus_mcp.sections.analysis.identifier_keys`);
- a question is every word optional in every field, with :data:`FIELD_WEIGHTS`, a joined
  word whole or by all its parts, identifiers weighted by :data:`IDENTIFIER_WEIGHT`;
- the best ``limit`` sections, at most ``per_document`` of one document, with what is
  stored of each (:class:`~corpus_mcp.sections.records.StoredSection`) decoded.

Where an engine cannot do what Xapian does, what it does instead is said in its class.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import importlib
import mmap
import os
import shutil
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Protocol

import msgspec

from corpus_mcp.sections import analysis
from corpus_mcp.sections.analysis import (
    BODY,
    HEADINGS,
    NAMES,
    TITLES,
    Analyser,
    IndexQuery,
    identifier_keys,
)
from corpus_mcp.sections.records import SectionRecord, StoredSection
from corpus_mcp.sections.store import (
    FIELD_WEIGHTS,
    IDENTIFIER_WEIGHT,
    INDEX_FORMAT,
    IndexMeta,
    SectionIndex,
    ShardWriter,
    publish,
)

ENCODER: Final = msgspec.msgpack.Encoder()
STORED: Final = msgspec.msgpack.Decoder(StoredSection)

#: The product's fields by the names the other engines give them.
COLUMNS: Final = {BODY: "body", TITLES: "titles", HEADINGS: "headings", NAMES: "names"}
WEIGHTS: Final = {COLUMNS[prefix]: weight for prefix, weight in FIELD_WEIGHTS.items()}


def clear_analysis_caches() -> None:
    """Forget the memoised stems and token terms, so that each engine's build pays for
    its own analysis (the first one would otherwise warm them for the others)."""
    analysis._token_terms.cache_clear()
    analysis._stem.cache_clear()


def field_terms(analyser: Analyser, record: SectionRecord) -> dict[str, dict[str, int]]:
    """Each field's terms and their frequencies, as :class:`ShardWriter` makes them."""
    return {
        "body": analyser.term_counts(record.body),
        "titles": analyser.term_counts(record.titles),
        "headings": analyser.term_counts(record.headings),
        "names": analyser.term_counts(" ".join(record.names)),
    }


def repeated(counts: dict[str, int]) -> str:
    """Terms joined by spaces, each as often as it occurs."""
    return " ".join(" ".join([term] * uses) if uses > 1 else term for term, uses in counts.items())


def ident_keys(record: SectionRecord) -> list[str]:
    return list(dict.fromkeys(key for name in record.names for key in identifier_keys(name)))


class Documents:
    """A number for each document path (what results are collapsed by) and for each of
    its records (a redirect's record lands on its target's document, wherever it comes)."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.records: list[int] = []

    def number(self, path: str) -> tuple[int, int]:
        """The document's number and the record's number within it."""
        document = self.numbers.setdefault(path, len(self.numbers))
        if document == len(self.records):
            self.records.append(0)
        self.records[document] += 1
        return document, self.records[document] - 1


class Builder(Protocol):
    def add(self, pages: int, found: Sequence[SectionRecord]) -> None: ...

    def finish(self) -> list[Path]:
        """Commit, merge, compact: the index as it would be served, and its files."""
        ...


class Searcher(Protocol):
    def search(self, query: IndexQuery, limit: int, per_document: int) -> list[StoredSection]: ...

    def close(self) -> None: ...


class Engine(Protocol):
    name: str
    note: str
    mapped: bool
    """Whether it reads its files through mmap (else pread/read)."""

    def builder(self, folder: Path, analyser: Analyser, meta: IndexMeta) -> Builder: ...

    def open(self, folder: Path, analyser: Analyser) -> Searcher: ...

    def files(self, folder: Path) -> list[Path]: ...

    def parts(self, folder: Path) -> dict[str, int]:
        """Bytes on disk by what they hold, where the engine says."""
        ...


# -- Xapian: the product's own writer, publish and SectionIndex ------------------------


class XapianEngine:
    name = "xapian"
    note = (
        "the product's ShardWriter (a commit per chunk), publish (compact, one file), "
        "SectionIndex.search"
    )
    mapped = False

    def builder(self, folder: Path, analyser: Analyser, meta: IndexMeta) -> Builder:
        return _XapianBuilder(folder, analyser, meta)

    def open(self, folder: Path, analyser: Analyser) -> Searcher:
        return _XapianSearcher(SectionIndex.open(folder / "index.xapian"))

    def files(self, folder: Path) -> list[Path]:
        return [folder / "index.xapian"]

    def parts(self, folder: Path) -> dict[str, int]:
        return {}


class _XapianBuilder:
    def __init__(self, folder: Path, analyser: Analyser, meta: IndexMeta) -> None:
        self.folder = folder
        self.meta = meta
        self.writer = ShardWriter(folder / "shard", analyser)
        self.chunk = self.pages = self.sections = 0

    def add(self, pages: int, found: Sequence[SectionRecord]) -> None:
        for record in found:
            self.writer.add(record)
        self.writer.commit(self.chunk, pages, len(found))
        self.chunk += 1
        self.pages += pages
        self.sections += len(found)

    def finish(self) -> list[Path]:
        self.writer.close()
        meta = msgspec.structs.replace(self.meta, documents=self.pages, sections=self.sections)
        out = self.folder / "index.xapian"
        publish([self.folder / "shard"], meta, self.folder / "publish", out)
        shutil.rmtree(self.folder / "shard")
        shutil.rmtree(self.folder / "publish")
        return [out]


class _XapianSearcher:
    def __init__(self, index: SectionIndex) -> None:
        self.index: SectionIndex | None = index

    def search(self, query: IndexQuery, limit: int, per_document: int) -> list[StoredSection]:
        assert self.index is not None
        return [hit.section for hit in self.index.search(query, limit, per_document)]

    def close(self) -> None:
        self.index = None  # the pool's databases close with it
        gc.collect()


# -- SQLite FTS5 ----------------------------------------------------------------------

#: Characters unicode61 must keep inside a token (the product's terms: ``std::vec``,
#: ``c++``, ``c#``, ``read_csv``, ``it's``, ``node.js``, ``utf-8``); letters and digits are
#: token characters already.
FTS_TOKENCHARS: Final = ":.-'+#_"
FTS_TOKENIZE: Final = (
    f"unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS.replace(chr(39), chr(39) * 2)}'"
)
#: Sections of one document are numbered under it in the rowid: ``document << 20 | n``.
DOCUMENT_SHIFT: Final = 20


def fts_token(key: str) -> str:
    """An identifier key as one FTS5 token: itself when unicode61 keeps it whole, else a
    digest (a key with a space or other punctuation: ``vec!``, ``operator<<``)."""
    if key and all(ch.isalnum() or ch in FTS_TOKENCHARS for ch in key):
        return key
    return "h" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_match(query: IndexQuery) -> str:
    """The FTS5 expression: every word optional in the four fields (a joined word whole
    or by all its parts), every identifier key in ``idents``."""
    words = []
    for word in query.words:
        text = _quoted(word.whole)
        if word.parts:
            text = f"({text} OR ({' AND '.join(_quoted(p) for p in word.parts)}))"
        words.append(text)
    parts = []
    if words:
        parts.append("{body titles headings names} : (" + " OR ".join(words) + ")")
    if query.identifiers:
        keys = dict.fromkeys(fts_token(key) for key, _ in query.identifiers)
        parts.append("idents : (" + " OR ".join(_quoted(k) for k in keys) + ")")
    return " OR ".join(parts)


class Fts5Engine:
    name = "sqlite-fts5"
    note = (
        "contentless FTS5 (detail=full: detail=column/none give bm25() no term frequencies "
        "and no column filters), terms pre-analysed, unicode61 with the terms' punctuation "
        "as token characters; bm25() column weights 1,1,2,2 and 6 for idents (a key's "
        "strength, 0.8 for a tail, cannot be given per term); stored data zlib-compressed "
        "in a rowid table; collapse by a window function over every match; VACUUM after "
        "'optimize'"
    )
    mapped = False

    def builder(self, folder: Path, analyser: Analyser, meta: IndexMeta) -> Builder:
        return _FtsBuilder(folder / "index.sqlite", analyser)

    def open(self, folder: Path, analyser: Analyser) -> Searcher:
        return _FtsSearcher(folder / "index.sqlite")

    def files(self, folder: Path) -> list[Path]:
        return [folder / "index.sqlite"]

    def parts(self, folder: Path) -> dict[str, int]:
        """The stored sections' table against the full-text index's (dbstat)."""
        db = sqlite3.connect(folder / "index.sqlite")
        try:
            rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
        finally:
            db.close()
        stored = sum(size for name, size in rows if name == "stored")
        return {"stored": stored, "index": sum(size for _, size in rows) - stored}


class _FtsBuilder:
    def __init__(self, file: Path, analyser: Analyser) -> None:
        self.file = file
        self.analyser = analyser
        self.db = sqlite3.connect(file, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute("PRAGMA cache_size=-65536")
        self.db.execute(
            "CREATE VIRTUAL TABLE sections USING fts5(body, titles, headings, names, idents, "
            f"content='', tokenize=\"{FTS_TOKENIZE}\")"
        )
        self.db.execute("CREATE TABLE stored (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        self.db.execute("BEGIN")
        self.documents = Documents()

    def add(self, pages: int, found: Sequence[SectionRecord]) -> None:
        rows = []
        stored = []
        for record in found:
            document, section = self.documents.number(record.stored.path)
            assert section < 1 << DOCUMENT_SHIFT
            rowid = document << DOCUMENT_SHIFT | section
            terms = field_terms(self.analyser, record)
            rows.append(
                (
                    rowid,
                    repeated(terms["body"]),
                    repeated(terms["titles"]),
                    repeated(terms["headings"]),
                    repeated(terms["names"]),
                    " ".join(fts_token(k) for k in ident_keys(record)),
                )
            )
            stored.append((rowid, zlib.compress(ENCODER.encode(record.stored))))
        self.db.executemany(
            "INSERT INTO sections (rowid, body, titles, headings, names, idents) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        self.db.executemany("INSERT INTO stored (id, data) VALUES (?, ?)", stored)

    def finish(self) -> list[Path]:
        self.db.execute("COMMIT")
        self.db.execute("INSERT INTO sections (sections) VALUES ('optimize')")
        self.db.execute("VACUUM")
        self.db.close()
        return [self.file]


_FTS_SEARCH: Final = f"""
WITH hits AS (
  SELECT rowid AS id, bm25(sections, {WEIGHTS["body"]}, {WEIGHTS["titles"]},
    {WEIGHTS["headings"]}, {WEIGHTS["names"]}, {IDENTIFIER_WEIGHT}) AS score
  FROM sections WHERE sections MATCH ?1
), ranked AS (
  SELECT id, score, row_number() OVER (PARTITION BY id >> {DOCUMENT_SHIFT} ORDER BY score) AS n
  FROM hits
), top AS (
  SELECT id, score FROM ranked WHERE n <= ?2 ORDER BY score LIMIT ?3
)
SELECT stored.data FROM top JOIN stored ON stored.id = top.id ORDER BY top.score
"""


class _FtsSearcher:
    def __init__(self, file: Path) -> None:
        # check_same_thread off: the GIL test runs the loop in another thread (one at a time).
        self.db: sqlite3.Connection | None = sqlite3.connect(
            f"file:{file}?mode=ro", uri=True, check_same_thread=False
        )

    def search(self, query: IndexQuery, limit: int, per_document: int) -> list[StoredSection]:
        assert self.db is not None
        if limit <= 0 or not (query.words or query.identifiers):
            return []
        rows = self.db.execute(_FTS_SEARCH, (fts_match(query), per_document, limit)).fetchall()
        return [STORED.decode(zlib.decompress(data)) for (data,) in rows]

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
        self.db = None


# -- tantivy --------------------------------------------------------------------------


def load_tantivy() -> Any:
    """The ``tantivy`` module, or None when it is not installed."""
    try:
        return importlib.import_module("tantivy")
    except ImportError:
        return None


TANTIVY_INSTALL: Final = ".venv/bin/pip install tantivy  (only for this measurement)"
#: How many hits more than asked for are fetched to collapse them by document in Python.
TANTIVY_OVERFETCH: Final = 4


class TantivyEngine:
    name = "tantivy"
    note = (
        "tantivy-py: fields of pre-analysed terms (whitespace tokenizer, freq: no "
        "positions), idents raw (one term per key), doc number as a u64 fast field, "
        "stored data as bytes (tantivy's compressed doc store); one writer thread "
        "(128 MB heap), commit then wait_merging_threads; no collapse in the Python "
        "binding: 4x the hits fetched, collapsed by the fast field, more fetched when short"
    )
    mapped = True

    def __init__(self, module: Any) -> None:
        self.tantivy = module

    def schema(self) -> Any:
        t = self.tantivy
        builder = t.SchemaBuilder()
        for column in COLUMNS.values():
            builder.add_text_field(
                column, stored=False, tokenizer_name="terms", index_option="freq"
            )
        builder.add_text_field("idents", stored=False, tokenizer_name="raw", index_option="freq")
        builder.add_unsigned_field("doc", stored=False, indexed=True, fast=True)
        builder.add_bytes_field("data", stored=True)
        return builder.build()

    def builder(self, folder: Path, analyser: Analyser, meta: IndexMeta) -> Builder:
        return _TantivyBuilder(self, folder / "tantivy", analyser)

    def open(self, folder: Path, analyser: Analyser) -> Searcher:
        return _TantivySearcher(self.tantivy, folder / "tantivy")

    def files(self, folder: Path) -> list[Path]:
        return sorted(p for p in (folder / "tantivy").iterdir() if p.is_file())

    def parts(self, folder: Path) -> dict[str, int]:
        """Bytes by file kind: ``store`` the stored data, ``idx`` postings, ``term``
        dictionaries, ``fast``, ``fieldnorm``..."""
        out: dict[str, int] = {}
        for file in self.files(folder):
            kind = file.suffix.lstrip(".") or file.name
            out[kind] = out.get(kind, 0) + file.stat().st_size
        return out


class _TantivyBuilder:
    def __init__(self, engine: TantivyEngine, folder: Path, analyser: Analyser) -> None:
        t = engine.tantivy
        self.t = t
        folder.mkdir(parents=True)
        self.index = t.Index(engine.schema(), path=str(folder))
        self.index.register_tokenizer(
            "terms", t.TextAnalyzerBuilder(t.Tokenizer.whitespace()).build()
        )
        self.writer = self.index.writer(heap_size=128_000_000, num_threads=1)
        self.analyser = analyser
        self.documents = Documents()
        self.folder = folder

    def add(self, pages: int, found: Sequence[SectionRecord]) -> None:
        for record in found:
            number, _ = self.documents.number(record.stored.path)
            document = self.t.Document()
            for column, counts in field_terms(self.analyser, record).items():
                if counts:
                    document.add_text(column, repeated(counts))
            for key in ident_keys(record):
                document.add_text("idents", key)
            document.add_unsigned("doc", number)
            document.add_bytes("data", ENCODER.encode(record.stored))
            self.writer.add_document(document)

    def finish(self) -> list[Path]:
        self.writer.commit()
        self.writer.wait_merging_threads()
        del self.writer
        self.index.reload()
        self.segments = int(self.index.searcher().num_segments)
        del self.index
        gc.collect()
        return sorted(p for p in self.folder.iterdir() if p.is_file())


class _TantivySearcher:
    def __init__(self, t: Any, folder: Path) -> None:
        self.t = t
        self.index: Any = t.Index.open(str(folder))
        self.searcher: Any = self.index.searcher()
        self.schema = self.index.schema

    def _query(self, query: IndexQuery) -> Any:
        t = self.t
        should = t.Occur.Should

        def term(column: str, value: str) -> Any:
            return t.Query.term_query(self.schema, column, value, index_option="freq")

        clauses = []
        for word in query.words:
            for column, weight in WEIGHTS.items():
                q = term(column, word.whole)
                if word.parts:
                    every = t.Query.boolean_query(
                        [(t.Occur.Must, term(column, p)) for p in word.parts]
                    )
                    q = t.Query.boolean_query([(should, q), (should, every)])
                clauses.append((should, t.Query.boost_query(q, weight)))
        for key, strength in query.identifiers:
            clauses.append(
                (should, t.Query.boost_query(term("idents", key), IDENTIFIER_WEIGHT * strength))
            )
        return t.Query.boolean_query(clauses)

    def search(self, query: IndexQuery, limit: int, per_document: int) -> list[StoredSection]:
        if limit <= 0 or not (query.words or query.identifiers):
            return []
        q = self._query(query)
        fetch = limit * TANTIVY_OVERFETCH
        while True:
            hits = self.searcher.search(q, limit=fetch, count=False).hits
            addresses = [address for _, address in hits]
            documents = self.searcher.fast_field_values("doc", addresses)
            kept = []
            seen: dict[int, int] = {}
            for address, document in zip(addresses, documents, strict=True):
                if seen.get(document, 0) < per_document:
                    seen[document] = seen.get(document, 0) + 1
                    kept.append(address)
                    if len(kept) == limit:
                        break
            if len(kept) == limit or len(hits) < fetch:
                break
            fetch *= 4
        return [STORED.decode(self.searcher.doc(a).get_first("data")) for a in kept]

    def close(self) -> None:
        self.searcher = None
        self.index = None
        gc.collect()


def engines(names: Sequence[str]) -> tuple[list[Engine], list[str]]:
    """The engines asked for, and what was left out and why."""
    found: list[Engine] = []
    skipped: list[str] = []
    for name in names:
        if name == "xapian":
            found.append(XapianEngine())
        elif name == "sqlite-fts5":
            found.append(Fts5Engine())
        elif name == "tantivy":
            module = load_tantivy()
            if module is None:
                skipped.append(f"tantivy: not installed; {TANTIVY_INSTALL}")
            else:
                found.append(TantivyEngine(module))
        else:
            raise SystemExit(f"unknown engine {name!r}: xapian, sqlite-fts5, tantivy")
    return found, skipped


ENGINE_NAMES: Final = ("xapian", "sqlite-fts5", "tantivy")


def new_meta(uuid: str, size: int, adapter: str, version: int, language: str | None) -> IndexMeta:
    return IndexMeta(
        format=INDEX_FORMAT,
        archive_uuid=uuid,
        archive_size=size,
        adapter=adapter,
        adapter_version=version,
        language=language,
        documents=0,
        sections=0,
        built="",
        seconds=0.0,
    )


# -- the page cache and /proc ---------------------------------------------------------


def evict(files: Sequence[Path]) -> None:
    """Drop the files' clean pages from the page cache (pages mapped by a process stay)."""
    for file in files:
        fd = os.open(file, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


_PAGE: Final = mmap.PAGESIZE


def resident_bytes(files: Sequence[Path]) -> int:
    """Bytes of the files in the page cache: ``mincore`` over a private mapping of each
    (pages never written are the page cache's own)."""
    libc = ctypes.CDLL(None, use_errno=True)
    total = 0
    for file in files:
        size = file.stat().st_size
        if size == 0:
            continue
        with file.open("rb") as handle:
            mapping = mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_COPY)
            pages = (size + _PAGE - 1) // _PAGE
            vector = (ctypes.c_ubyte * pages)()
            anchor = ctypes.c_char.from_buffer(mapping)
            try:
                done = libc.mincore(
                    ctypes.c_void_p(ctypes.addressof(anchor)), ctypes.c_size_t(size), vector
                )
                if done != 0:
                    raise OSError(ctypes.get_errno(), "mincore")
                total += sum(v & 1 for v in bytes(vector)) * _PAGE
            finally:
                del anchor
                mapping.close()
    return min(total, sum(f.stat().st_size for f in files))


def mapped_bytes(pid: int, files: Sequence[Path]) -> tuple[int, int]:
    """(Rss, Pss) of ``pid``'s mappings of ``files`` (/proc/PID/smaps), in bytes."""
    wanted = {str(f) for f in files}
    rss = pss = 0
    current = False
    try:
        lines = Path(f"/proc/{pid}/smaps").read_text().splitlines()
    except OSError:
        return 0, 0
    for line in lines:
        head = line.split(maxsplit=5)
        if len(head) >= 5 and "-" in head[0] and not head[0].endswith(":"):
            current = len(head) == 6 and head[5] in wanted
        elif current and head and head[0] in ("Rss:", "Pss:"):
            value = int(head[1]) * 1024
            if head[0] == "Rss:":
                rss += value
            else:
                pss += value
    return rss, pss
