"""Which embedded full-text engine the section index should use (issue 24, item 2):
Xapian (libzim's own, already a dependency), SQLite FTS5 (the standard library) and
tantivy (``tantivy`` on PyPI, optional), measured on the same records.

For each corpus (the development kit's archives, and one large archive):

1. every archive's section records are made once with the product's code (the build's
   worker reading content entries, the adapter's search-time view,
   :func:`corpus_mcp.sections.records.records`), kept in a msgpack file: extraction is
   timed apart from indexing (in ``--extract-processes`` processes; its single-process
   time is the sum of theirs);
2. each engine indexes them in this process (scripts/_engines.py says how each is made
   equivalent): records/s and pages/s of indexing alone and with extraction, CPU seconds,
   the size on disk once committed, merged and compacted, and its ratio to the archive;
3. the kit's questions (and, for the large archive, its Wikipedia questions and
   ``--title-queries`` questions made of titles) asked of every archive's index: the best
   40 sections, at most 3 per document, the stored data of each decoded. Warm p50/p95
   over ``--rounds`` rounds, the engines interleaved question by question; cold (the
   index's pages dropped from the page cache with ``posix_fadvise`` and the index
   opened again before each question; whether ``/proc/sys/vm/drop_caches`` may be
   written is tried once and reported);
4. the GIL: a pure-Python counter's speed while the query loop runs in another thread
   (and the other way round), against the counter alone;
5. several serving processes: 2 and 4 processes each open the same index and query it;
   their RSS and PSS (anonymous and file parts), the index's pages mapped in each, and
   the index's pages in the page cache: one copy shared, or one per process.

Usage:
    python scripts/bench_section_engines.py [--no-kit] [--archive ZIM --adapter NAME]
        [--limit-pages N] [--engines xapian,sqlite-fts5,tantivy] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import multiprocessing
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _engines import (
    ENGINE_NAMES,
    Engine,
    Searcher,
    clear_analysis_caches,
    engines,
    evict,
    mapped_bytes,
    new_meta,
    resident_bytes,
)
from _processes import sample

from corpus_mcp.adapters import get_adapter
from corpus_mcp.sections import build
from corpus_mcp.sections.analysis import Analyser, IndexQuery
from corpus_mcp.sections.records import SectionRecord, StoredSection
from corpus_mcp.sections.store import ShardWriter
from corpus_mcp.zim import ZimReader

ROOT = Path(__file__).resolve().parents[1]
#: The copy of src/ the processes a run starts import (see :func:`pin_source`).
PINNED: Final = "BENCH_SECTION_ENGINES_SRC"
KIT = ROOT.parent / "shared" / "eval-dev"
KIT_CORPUS = (
    Path(os.environ.get("CORPUS_DEV_CACHE", Path.home() / ".cache" / "corpus-dev")) / "corpus"
)
LIMIT: Final = 40
PER_DOCUMENT: Final = 3
GIL_REPEATS: Final = 3
WIKIPEDIA_LIBRARIES: Final = ("Wikipedia", "Wiki-Mini")


# -- corpora --------------------------------------------------------------------------


@dataclass(frozen=True)
class Archive:
    name: str
    file: Path
    adapter: str


@dataclass
class Corpus:
    label: str
    archives: list[Archive]
    queries: list[str]
    query_source: str
    limit_pages: int | None = None


def kit_corpus() -> Corpus:
    manifest = KIT_CORPUS / "corpus.toml"
    if not manifest.is_file():
        print("building the development kit (../shared/eval-dev/setup.sh) ...", flush=True)
        subprocess.run(["bash", str(KIT / "setup.sh")], check=True, capture_output=True)
    document = tomllib.loads(manifest.read_text("utf-8"))
    archives = [
        Archive(t["name"], KIT_CORPUS / t["path"], t["adapter"])
        for t in document["library"]
        if t.get("enabled", True)
    ]
    cases = tomllib.loads((KIT / "queries.toml").read_text("utf-8"))["case"]
    queries = list(dict.fromkeys(case["query"] for case in cases))
    return Corpus("kit", archives, queries, f"the kit's {len(queries)} questions")


def kit_wikipedia_queries() -> list[str]:
    cases = tomllib.loads((KIT / "queries.toml").read_text("utf-8"))["case"]
    return list(
        dict.fromkeys(
            case["query"]
            for case in cases
            if any(e.get("library") in WIKIPEDIA_LIBRARIES for e in case.get("expect", []))
        )
    )


# -- 1. extraction: the product's build worker, its shard replaced by a list ----------


class _Collected(ShardWriter):
    """What a build worker would have written, kept (no Xapian shard)."""

    def __init__(self) -> None:
        self.found: list[SectionRecord] = []

    def add(self, record: SectionRecord) -> None:
        self.found.append(record)

    def commit(self, chunk: int, pages: int, sections: int) -> None:
        pass

    def close(self) -> None:
        pass


class _Extractor(build._Worker):
    """:class:`corpus_mcp.sections.build._Worker` as the build runs it (its reader,
    adapter, names and ``chunk``), its records kept instead of written."""

    def __init__(self, job: build.BuildJob, scratch: Path) -> None:
        super().__init__(job, scratch, build.WorkerGuard(folder=scratch))
        self.writer.close()  # the empty shard it opened is not used
        self.collected = _Collected()
        self.writer = self.collected


class Chunk(msgspec.Struct, array_like=True):
    pages: int
    entries: int
    records: list[SectionRecord]


_CHUNK_ENCODER = msgspec.msgpack.Encoder()
_CHUNK_DECODER = msgspec.msgpack.Decoder(Chunk)
_FRAME = struct.Struct("<Q")
_EXTRACTORS: dict[str, _Extractor] = {}
Extraction = tuple[bytes, int, int, int, float, list[str]]


def _start_extractor(job: build.BuildJob, scratch: str) -> None:
    folder = Path(tempfile.mkdtemp(dir=scratch))
    _EXTRACTORS["this"] = _Extractor(job, folder)


def _extract_chunk(plan: tuple[int, int, int]) -> Extraction:
    """One chunk's records (encoded), its pages, sections and entries, the seconds it
    took, its pages' titles."""
    started = time.perf_counter()
    worker = _EXTRACTORS["this"]
    worker.collected.found = []
    done = worker.chunk(*plan)
    found = worker.collected.found
    titles = list(dict.fromkeys(r.stored.document_title for r in found))
    data = _CHUNK_ENCODER.encode(Chunk(done.pages, done.entries, found))
    return data, done.pages, len(found), done.entries, time.perf_counter() - started, titles


@dataclass
class Extracted:
    archive: Archive
    records_file: Path
    size: int
    uuid: str
    language: str | None
    adapter_version: int
    entries_total: int
    entries: int = 0
    pages: int = 0
    sections: int = 0
    seconds: float = 0.0
    """Single-process time (the workers' times summed)."""
    wall: float = 0.0
    titles: list[str] = field(default_factory=list)
    content_pages_estimate: int = 0
    """Pages the whole archive has, extrapolated when --limit-pages cut it short."""


def extract(archive: Archive, work: Path, processes: int, limit_pages: int | None) -> Extracted:
    reader = ZimReader(archive.file, direct_index=False)
    info = reader.info
    adapter = get_adapter(archive.adapter)
    del reader
    out = work / f"{archive.name}.records"
    found = Extracted(
        archive, out, info.size, info.uuid, info.language, adapter.version, info.entry_count
    )
    size = build.chunk_entries(info.entry_count, 1)
    plan = build._plan(info.entry_count, size)
    job = build.BuildJob(
        archive=archive.file, adapter=archive.adapter, folder=work, library=archive.name
    )
    scratch = work / "extract-scratch"
    scratch.mkdir(exist_ok=True)
    started = time.perf_counter()
    context = multiprocessing.get_context("fork")
    with out.open("wb") as sink:
        if processes <= 1 or len(plan) < 4:
            _start_extractor(job, str(scratch))
            results: Iterator[Extraction] = map(_extract_chunk, plan)
            _consume(found, results, sink, limit_pages)
        else:
            with context.Pool(processes, _start_extractor, (job, str(scratch))) as pool:
                _consume(found, pool.imap(_extract_chunk, plan), sink, limit_pages)
                pool.terminate()
    _EXTRACTORS.clear()
    found.wall = time.perf_counter() - started
    shutil.rmtree(scratch, ignore_errors=True)
    share = found.entries / info.entry_count if info.entry_count else 1.0
    found.content_pages_estimate = round(found.pages / share) if share else found.pages
    return found


def _consume(
    found: Extracted,
    results: Iterator[Extraction],
    sink: IO[bytes],
    limit_pages: int | None,
) -> None:
    last = time.monotonic()
    for data, pages, sections, entries, seconds, titles in results:
        sink.write(_FRAME.pack(len(data)))
        sink.write(data)
        found.pages += pages
        found.sections += sections
        found.entries += entries
        found.seconds += seconds
        found.titles += titles
        if time.monotonic() - last > 30:
            print(
                f"    {found.archive.name}: {found.pages:,} pages, {found.sections:,} "
                f"sections, {found.entries:,}/{found.entries_total:,} entries",
                flush=True,
            )
            last = time.monotonic()
        if limit_pages is not None and found.pages >= limit_pages:
            break


def read_chunks(file: Path) -> Iterator[bytes]:
    with file.open("rb") as source:
        while head := source.read(_FRAME.size):
            (length,) = _FRAME.unpack(head)
            yield source.read(length)


# -- 2. building ----------------------------------------------------------------------


def build_one(engine: Engine, extracted: Extracted, folder: Path) -> dict[str, Any]:
    """Index one archive's records with ``engine`` in ``folder``: the figures."""
    clear_analysis_caches()
    gc.collect()
    analyser = Analyser.for_language(extracted.language)
    meta = new_meta(
        extracted.uuid,
        extracted.size,
        extracted.archive.adapter,
        extracted.adapter_version,
        extracted.language,
    )
    folder.mkdir(parents=True)
    decode_wall = decode_cpu = index_wall = 0.0
    cpu0 = time.process_time()
    builder = engine.builder(folder, analyser, meta)
    for data in read_chunks(extracted.records_file):
        t0, c0 = time.perf_counter(), time.process_time()
        chunk = _CHUNK_DECODER.decode(data)
        t1, c1 = time.perf_counter(), time.process_time()
        decode_wall += t1 - t0
        decode_cpu += c1 - c0
        builder.add(chunk.pages, chunk.records)
        index_wall += time.perf_counter() - t1
        del chunk
    t0 = time.perf_counter()
    files = builder.finish()
    finish_wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0 - decode_cpu
    size = sum(f.stat().st_size for f in files)
    out: dict[str, Any] = {
        "archive": extracted.archive.name,
        "pages": extracted.pages,
        "sections": extracted.sections,
        "add_seconds": round(index_wall, 3),
        "finish_seconds": round(finish_wall, 3),
        "build_seconds": round(index_wall + finish_wall, 3),
        "cpu_seconds": round(cpu, 3),
        "decode_seconds": round(decode_wall, 3),
        "size": size,
        "files": len(files),
        "archive_size": extracted.size,
    }
    parts = engine.parts(folder)
    if parts:
        out["parts"] = parts
    segments = getattr(builder, "segments", None)
    if segments is not None:
        out["segments"] = segments
    return out


# -- 3. queries -----------------------------------------------------------------------


@dataclass
class Opened:
    """One engine's searchers over a corpus: one per archive, with its questions."""

    engine: Engine
    folders: list[Path]
    analysers: list[Analyser]
    searchers: list[Searcher] = field(default_factory=list)

    def open(self) -> float:
        started = time.perf_counter()
        self.searchers = [
            self.engine.open(folder, analyser)
            for folder, analyser in zip(self.folders, self.analysers, strict=True)
        ]
        return time.perf_counter() - started

    def close(self) -> None:
        for searcher in self.searchers:
            searcher.close()
        self.searchers = []
        gc.collect()

    def files(self) -> list[Path]:
        return [f for folder in self.folders for f in self.engine.files(folder)]

    def ask(self, questions: Sequence[IndexQuery]) -> list[list[StoredSection]]:
        return [
            searcher.search(question, LIMIT, PER_DOCUMENT)
            for searcher, question in zip(self.searchers, questions, strict=True)
        ]


def questions_for(queries: Sequence[str], analysers: Sequence[Analyser]) -> list[list[IndexQuery]]:
    """Each query as each archive's index is asked it (its language's analyser)."""
    return [[analyser.question(q) for analyser in analysers] for q in queries]


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _rotated(items: Sequence[Opened], by: int) -> list[Opened]:
    by %= len(items)
    return [*items[by:], *items[:by]]


def warm_latency(
    opened: Sequence[Opened], questions: Sequence[Sequence[IndexQuery]], rounds: int
) -> dict[str, dict[str, Any]]:
    """A warm-up round (its answers kept for agreement), then ``rounds`` timed rounds,
    the engines interleaved question by question (their order rotating)."""
    times: dict[str, list[float]] = {o.engine.name: [] for o in opened}
    answers: dict[str, list[list[list[StoredSection]]]] = {o.engine.name: [] for o in opened}
    for number, asked in enumerate(questions):
        for o in _rotated(opened, number):
            answers[o.engine.name].append(o.ask(asked))
    for round_ in range(rounds):
        for number, asked in enumerate(questions):
            for o in _rotated(opened, number + round_):
                started = time.perf_counter()
                o.ask(asked)
                times[o.engine.name].append(time.perf_counter() - started)
    reference = answers.get("xapian")
    out: dict[str, dict[str, Any]] = {}
    for o in opened:
        name = o.engine.name
        samples = times[name]
        hits = [sum(len(per) for per in a) for a in answers[name]]
        figures: dict[str, Any] = {
            "samples": len(samples),
            "p50_ms": round(1000 * _percentile(samples, 0.5), 3),
            "p95_ms": round(1000 * _percentile(samples, 0.95), 3),
            "mean_ms": round(1000 * statistics.fmean(samples), 3) if samples else None,
            "max_ms": round(1000 * max(samples), 3) if samples else None,
            "mean_hits": round(statistics.fmean(hits), 1) if hits else 0,
        }
        if reference is not None:
            figures["agree_top10_with_xapian"] = _agreement(answers[name], reference, 10)
            figures["agree_top40_with_xapian"] = _agreement(answers[name], reference, LIMIT)
        out[name] = figures
    return out


def _agreement(
    answers: Sequence[Sequence[Sequence[StoredSection]]],
    reference: Sequence[Sequence[Sequence[StoredSection]]],
    top: int,
) -> float | None:
    """Mean share of Xapian's ``top`` sections (per archive, per question) also in the
    engine's ``top``."""
    shares = []
    for asked, wanted in zip(answers, reference, strict=True):
        for got, expected in zip(asked, wanted, strict=True):
            keys = {(s.path, s.order) for s in expected[:top]}
            if keys:
                shares.append(len(keys & {(s.path, s.order) for s in got[:top]}) / len(keys))
    return round(statistics.fmean(shares), 3) if shares else None


DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def try_drop_caches() -> str:
    """``sync; echo 3 > /proc/sys/vm/drop_caches`` once: whether the machine allows it."""
    os.sync()
    try:
        DROP_CACHES.write_text("3\n")
    except OSError as exc:
        return f"refused ({exc.strerror or exc})"
    return "allowed (done once; the cold figures use per-file posix_fadvise instead)"


def cold_latency(
    opened: Sequence[Opened], questions: Sequence[Sequence[IndexQuery]]
) -> dict[str, dict[str, Any]]:
    """Before each question, for each engine in turn: its searchers closed, its files'
    pages dropped from the page cache, opened again (timed apart), the question asked."""
    times: dict[str, list[float]] = {o.engine.name: [] for o in opened}
    opens: dict[str, list[float]] = {o.engine.name: [] for o in opened}
    left: dict[str, list[int]] = {o.engine.name: [] for o in opened}
    for number, asked in enumerate(questions):
        for o in _rotated(opened, number):
            o.close()
            files = o.files()
            evict(files)
            left[o.engine.name].append(resident_bytes(files))
            opens[o.engine.name].append(o.open())
            started = time.perf_counter()
            o.ask(asked)
            times[o.engine.name].append(time.perf_counter() - started)
    return {
        name: {
            "samples": len(times[name]),
            "p50_ms": round(1000 * _percentile(times[name], 0.5), 3),
            "p95_ms": round(1000 * _percentile(times[name], 0.95), 3),
            "open_p50_ms": round(1000 * _percentile(opens[name], 0.5), 3),
            "resident_after_eviction_max": max(left[name], default=0),
        }
        for name in times
    }


# -- 4. the GIL -----------------------------------------------------------------------


def _schedstat() -> tuple[int, int]:
    """This thread's CPU time and time waiting for a CPU, in ns (/proc/thread-self)."""
    try:
        fields = Path("/proc/thread-self/schedstat").read_text().split()
    except OSError:
        return 0, 0
    return int(fields[0]), int(fields[1])


def _count_until(stop: threading.Event) -> tuple[float, float]:
    """A pure-Python counter's speed (counts per second) until ``stop`` is set, and the
    share of that time it ran or waited for a CPU (the rest it slept: waiting for the
    GIL), which the machine's other load does not change."""
    n = 0
    started = time.perf_counter()
    cpu0, waited0 = _schedstat()
    while not stop.is_set():
        for _ in range(1000):
            n += 1
    cpu1, waited1 = _schedstat()
    wall = time.perf_counter() - started
    return n / wall, min(1.0, (cpu1 - cpu0 + waited1 - waited0) / 1e9 / wall)


def _ask_all(o: Opened, questions: Sequence[Sequence[IndexQuery]]) -> float:
    started = time.perf_counter()
    for asked in questions:
        o.ask(asked)
    return time.perf_counter() - started


def _counter_thread() -> tuple[threading.Thread, threading.Event, list[tuple[float, float]]]:
    stop = threading.Event()
    speed: list[tuple[float, float]] = []
    thread = threading.Thread(target=lambda: speed.append(_count_until(stop)))
    thread.start()
    return thread, stop, speed


def _ask_timed(o: Opened, asked: Sequence[Sequence[IndexQuery]]) -> tuple[float, float]:
    """Seconds to answer ``asked``, and the share of them this thread was not waiting
    (for the GIL, or a lock): CPU time plus time waiting for a CPU, over wall time."""
    started = time.perf_counter()
    cpu0, waited0 = _schedstat()
    for question in asked:
        o.ask(question)
    cpu1, waited1 = _schedstat()
    wall = time.perf_counter() - started
    return wall, min(1.0, (cpu1 - cpu0 + waited1 - waited0) / 1e9 / wall)


def _two_threads(o: Opened, asked: Sequence[Sequence[IndexQuery]]) -> dict[str, Any]:
    """The same questions answered by one thread, then by two at once, each with
    searchers of its own (as the product's search threads have): how much of its time
    each thread was not waiting, and the throughput of two against one."""
    alone, alone_free = _ask_timed(o, asked)
    other = Opened(o.engine, o.folders, o.analysers)
    other.open()
    found: list[tuple[float, float]] = []
    thread = threading.Thread(target=lambda: found.append(_ask_timed(other, asked)))
    started = time.perf_counter()
    thread.start()
    mine = _ask_timed(o, asked)
    thread.join()
    both = time.perf_counter() - started
    other.close()
    return {
        "one_thread_not_waiting": round(alone_free, 3),
        "two_threads_not_waiting": round(statistics.fmean([mine[1], found[0][1]]), 3),
        "two_threads_throughput_over_one": round(2 * alone / both, 3),
    }


def gil_test(
    o: Opened, questions: Sequence[Sequence[IndexQuery]], seconds: float, mean_s: float
) -> dict[str, Any]:
    """A pure-Python counter while the engine answers the same questions in another
    thread (A: counter in a thread, questions in the main one; B: the other way round),
    ``GIL_REPEATS`` times (medians): the share of the time the counter was not waiting
    for the GIL (from the kernel's accounting of the thread: CPU time plus time waiting
    for a CPU, over wall time), and its speed against the counter alone for as long
    (which the machine's load also changes)."""
    count = max(3, min(len(questions), round(seconds / max(mean_s, 1e-4))))
    step = max(1, len(questions) // count)
    asked = list(questions[::step][:count])
    free_a, free_b, alone_free, kept_a, kept_b, slowed_a, slowed_b = [], [], [], [], [], [], []
    for _ in range(GIL_REPEATS):
        alone = _ask_all(o, asked)
        thread, stop, speed = _counter_thread()
        time.sleep(alone)
        stop.set()
        thread.join()
        thread_alone = speed[0][0]
        alone_free.append(speed[0][1])
        stop = threading.Event()
        timer = threading.Timer(alone, stop.set)
        timer.start()
        main_alone = _count_until(stop)[0]
        timer.join()
        thread, stop, speed = _counter_thread()
        took_a = _ask_all(o, asked)
        stop.set()
        thread.join()
        kept_a.append(speed[0][0] / thread_alone)
        free_a.append(speed[0][1])
        slowed_a.append(alone / took_a)
        took: list[float] = []
        stop = threading.Event()

        def answer(stop: threading.Event = stop, took: list[float] = took) -> None:
            took.append(_ask_all(o, asked))
            stop.set()

        thread = threading.Thread(target=answer)
        thread.start()
        rate, free = _count_until(stop)
        kept_b.append(rate / main_alone)
        free_b.append(free)
        thread.join()
        slowed_b.append(alone / took[0])
    pair = _two_threads(o, asked)
    return {
        **pair,
        "questions": len(asked),
        "repeats": GIL_REPEATS,
        "counter_not_waiting_gil_a": round(statistics.median(free_a), 3),
        "counter_not_waiting_gil_b": round(statistics.median(free_b), 3),
        "counter_not_waiting_alone": round(statistics.median(alone_free), 3),
        "counter_speed_kept_a": round(statistics.median(kept_a), 3),
        "counter_speed_kept_b": round(statistics.median(kept_b), 3),
        "queries_speed_kept_a": round(statistics.median(slowed_a), 3),
        "queries_speed_kept_b": round(statistics.median(slowed_b), 3),
    }


# -- 5. several processes -------------------------------------------------------------


def child(spec_file: Path) -> int:
    """A serving process: open the indexes, say ``opened`` and wait for a line; ask
    every question once, say ``ready``, ask them in turn for ``seconds``, print what it
    did, wait for stdin to close."""
    spec = json.loads(spec_file.read_text())
    analysers = [Analyser.for_language(x) for x in spec["languages"]]
    questions = questions_for(spec["queries"], analysers)
    o = None
    if spec["engine"] != "none":
        found, _ = engines([spec["engine"]])
        o = Opened(found[0], [Path(f) for f in spec["folders"]], analysers)
        o.open()
    print("opened", flush=True)
    sys.stdin.readline()
    done = 0
    started = time.perf_counter()
    if o is not None:
        for asked in questions:
            o.ask(asked)
        print("ready", flush=True)
        started = time.perf_counter()
        while time.perf_counter() - started < spec["seconds"]:
            o.ask(questions[done % len(questions)])
            done += 1
    else:
        print("ready", flush=True)
    seconds = time.perf_counter() - started
    print(json.dumps({"queries": done, "seconds": seconds}), flush=True)
    sys.stdin.read()
    return 0


@contextlib.contextmanager
def _children(
    spec: dict[str, Any], count: int, work: Path
) -> Iterator[list[subprocess.Popen[str]]]:
    spec_file = work / f"spec-{spec['engine']}-{count}.json"
    spec_file.write_text(json.dumps(spec))
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(spec_file)]
    started: list[subprocess.Popen[str]] = []
    try:
        for _ in range(count):
            started.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            )
        yield started
    finally:
        for process in started:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
        for process in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _read_line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"child {process.pid} ended early (exit {process.wait()})")
    return line.strip()


def _go(processes: Sequence[subprocess.Popen[str]], expect: str) -> None:
    for process in processes:
        if (said := _read_line(process)) != expect:
            raise RuntimeError(f"child {process.pid} said {said!r}, not {expect!r}")


def _tell(processes: Sequence[subprocess.Popen[str]]) -> None:
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def sharing(
    o: Opened,
    queries: Sequence[str],
    languages: Sequence[str | None],
    *,
    counts: Sequence[int],
    seconds: float,
    work: Path,
    baseline_anon: int,
) -> dict[str, Any]:
    """``count`` processes querying the same index: memory of each once opened and while
    querying, and the index's pages in the page cache (evicted first, so it holds what
    they read)."""
    files = o.files()
    index_size = sum(f.stat().st_size for f in files)
    spec = {
        "engine": o.engine.name,
        "folders": [str(f) for f in o.folders],
        "languages": list(languages),
        "queries": list(queries),
        "seconds": seconds,
    }
    out: dict[str, Any] = {"index_size": index_size, "mapped_engine": o.engine.mapped}
    for count in counts:
        evict(files)
        with _children(spec, count, work) as processes:
            _go(processes, "opened")
            opened_anon = [sample(p.pid).anonymous_bytes for p in processes]
            _tell(processes)
            _go(processes, "ready")
            time.sleep(min(1.5, seconds / 3))
            memory = []
            for process, before in zip(processes, opened_anon, strict=True):
                s = sample(process.pid)
                rss_map, pss_map = mapped_bytes(process.pid, files)
                memory.append(
                    {
                        "rss": s.rss_bytes,
                        "pss": s.pss_bytes,
                        "pss_anon": s.anonymous_bytes,
                        "pss_anon_opened": before,
                        "pss_file": s.file_bytes,
                        "index_mapped_rss": rss_map,
                        "index_mapped_pss": pss_map,
                    }
                )
            cached = resident_bytes(files)
            done = [json.loads(_read_line(p)) for p in processes]
        out[str(count)] = {
            "processes": memory,
            "index_in_page_cache": cached,
            "own_over_baseline_mean": round(
                statistics.fmean(m["pss_anon"] - baseline_anon for m in memory)
            ),
            "own_from_querying_mean": round(
                statistics.fmean(m["pss_anon"] - m["pss_anon_opened"] for m in memory)
            ),
            "queries_per_s_total": round(sum(d["queries"] / d["seconds"] for d in done), 2),
        }
    return out


def shares_one_copy(figures: dict[str, Any], counts: Sequence[int]) -> tuple[bool, str]:
    """One copy when the index's pages are in the page cache (read, or mapped and split
    between the processes' PSS) once, and what a process holds of its own after asking
    questions (its memory grown since it opened the index) is under a quarter of the
    index's pages in the page cache."""
    last = figures[str(counts[-1])]
    cached = last["index_in_page_cache"]
    grown = last["own_from_querying_mean"]
    own = last["own_over_baseline_mean"]
    mapped = statistics.fmean(p["index_mapped_pss"] for p in last["processes"])
    rss_mapped = statistics.fmean(p["index_mapped_rss"] for p in last["processes"])
    pss = statistics.fmean(p["pss"] for p in last["processes"])
    yes = grown < 0.25 * cached
    how = "mmap" if rss_mapped > 0 else "read/pread"
    text = (
        f"{'yes' if yes else 'no'} ({how}; {counts[-1]} processes: PSS {_mb(pss)} each, of "
        f"which the index mapped {_mb(mapped)} (RSS {_mb(rss_mapped)}); own memory "
        f"{_mb(own)} over an idle process, {_mb(grown)} grown by querying; index in the "
        f"page cache {_mb(cached)} of {_mb(figures['index_size'])})"
    )
    return yes, text


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f} MB"


# -- the run ------------------------------------------------------------------------


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run_corpus(
    corpus: Corpus, found: Sequence[Engine], args: argparse.Namespace, work: Path
) -> dict[str, Any]:
    result: dict[str, Any] = {"corpus": corpus.label, "load_start": _load()}
    print(f"\n== {corpus.label}: {len(corpus.archives)} archive(s), load {_load()}", flush=True)
    folder = work / corpus.label
    folder.mkdir()
    extracted = extract_corpus(corpus, args, folder, result)
    engines_out = build_corpus(found, extracted, folder, result["extraction"])
    languages = [e.language for e in extracted]
    opened = [
        Opened(
            engine,
            [folder / engine.name / e.archive.name for e in extracted],
            [Analyser.for_language(x) for x in languages],
        )
        for engine in found
    ]
    query_corpus(opened, corpus.queries, args, engines_out, result)
    if args.share_seconds:
        share_corpus(
            opened,
            corpus.queries,
            languages,
            args=args,
            folder=folder,
            engines_out=engines_out,
            result=result,
        )
    result["engines"] = engines_out
    result["load_end"] = _load()
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def extract_corpus(
    corpus: Corpus, args: argparse.Namespace, folder: Path, result: dict[str, Any]
) -> list[Extracted]:
    """Every archive's records, once; the questions made of titles for a large archive."""
    extracted = []
    for archive in corpus.archives:
        e = extract(archive, folder, args.extract_processes, corpus.limit_pages)
        extracted.append(e)
        print(
            f"  extracted {archive.name}: {e.pages:,} pages, {e.sections:,} sections in "
            f"{e.wall:.1f} s ({e.seconds:.1f} s single-process), load {_load()}",
            flush=True,
        )
    if corpus.label != "kit" and args.title_queries:
        titles = [t for e in extracted for t in e.titles]
        step = max(1, len(titles) // args.title_queries)
        picked = titles[::step][: args.title_queries]
        corpus.queries += [f"what is {t}" for t in picked]
        corpus.query_source += f" + {len(picked)} questions made of titles (every {step}th page)"
    result["queries"] = {"count": len(corpus.queries), "source": corpus.query_source}
    pages = sum(e.pages for e in extracted)
    seconds = sum(e.seconds for e in extracted)
    share = sum(e.entries for e in extracted) / max(1, sum(e.entries_total for e in extracted))
    result["extraction"] = {
        "archives": [
            {
                "name": e.archive.name,
                "file": str(e.archive.file),
                "archive_size": e.size,
                "entries_total": e.entries_total,
                "entries_read": e.entries,
                "pages": e.pages,
                "pages_in_archive_estimate": e.content_pages_estimate,
                "sections": e.sections,
                "seconds_single_process": round(e.seconds, 3),
                "wall_seconds": round(e.wall, 3),
            }
            for e in extracted
        ],
        "processes": args.extract_processes,
        "pages": pages,
        "sections": sum(e.sections for e in extracted),
        "seconds_single_process": round(seconds, 3),
        "pages_per_s_single_process": round(pages / seconds, 2) if seconds else None,
        "archive_size": sum(e.size for e in extracted),
        "share_of_archive_indexed": round(share, 4),
    }
    return extracted


def build_corpus(
    found: Sequence[Engine], extracted: Sequence[Extracted], folder: Path, summary: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Every engine's index of every archive, the engines interleaved archive by archive."""
    builds: dict[str, list[dict[str, Any]]] = {e.name: [] for e in found}
    for number, e in enumerate(extracted):
        for engine in [*found[number % len(found) :], *found[: number % len(found)]]:
            figures = build_one(engine, e, folder / engine.name / e.archive.name)
            builds[engine.name].append(figures)
            print(
                f"  built {engine.name} {e.archive.name}: {figures['build_seconds']:.1f} s, "
                f"{_mb(figures['size'])}, load {_load()}",
                flush=True,
            )
    pages, sections = summary["pages"], summary["sections"]
    extract_seconds = summary["seconds_single_process"]
    archive_size = summary["archive_size"]
    share = summary["share_of_archive_indexed"]
    out: dict[str, dict[str, Any]] = {}
    for engine in found:
        parts = builds[engine.name]
        seconds = sum(p["build_seconds"] for p in parts)
        size = sum(p["size"] for p in parts)
        out[engine.name] = {
            "note": engine.note,
            "build": {
                "seconds": round(seconds, 3),
                "add_seconds": round(sum(p["add_seconds"] for p in parts), 3),
                "finish_seconds": round(sum(p["finish_seconds"] for p in parts), 3),
                "cpu_seconds": round(sum(p["cpu_seconds"] for p in parts), 3),
                "records_per_s": round(sections / seconds, 1),
                "pages_per_s": round(pages / seconds, 1),
                "pages_per_s_with_extraction": round(pages / (seconds + extract_seconds), 1),
                "size": size,
                "size_over_archive": round(size / archive_size, 4),
                "size_over_archive_extrapolated": (
                    round(size / (archive_size * share), 4) if share < 1 else None
                ),
                "seconds_whole_archive_extrapolated": (
                    round(seconds / share, 1) if share < 1 else None
                ),
                "parts": _summed([p.get("parts", {}) for p in parts]),
                "per_archive": parts,
            },
        }
    return out


def _summed(found: Sequence[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for one in found:
        for key, value in one.items():
            out[key] = out.get(key, 0) + value
    return out


def query_corpus(
    opened: Sequence[Opened],
    queries: Sequence[str],
    args: argparse.Namespace,
    engines_out: dict[str, dict[str, Any]],
    result: dict[str, Any],
) -> None:
    """Warm and cold latency, and the GIL test."""
    questions = questions_for(queries, opened[0].analysers)
    for o in opened:
        o.open()
    print(f"  warm queries ({len(questions)} x {args.rounds} rounds), load {_load()}", flush=True)
    for name, figures in warm_latency(opened, questions, args.rounds).items():
        engines_out[name]["warm"] = figures
    if args.cold_queries:
        result["drop_caches"] = try_drop_caches()
        step = max(1, len(questions) // args.cold_queries)
        picked = questions[::step][: args.cold_queries]
        print(f"  cold queries ({len(picked)}), load {_load()}", flush=True)
        for name, figures in cold_latency(opened, picked).items():
            engines_out[name]["cold"] = figures
    if args.gil_seconds:
        print(f"  GIL, load {_load()}", flush=True)
        for o in opened:
            mean_s = engines_out[o.engine.name]["warm"]["mean_ms"] / 1000
            engines_out[o.engine.name]["gil"] = gil_test(o, questions, args.gil_seconds, mean_s)
    for o in opened:
        o.close()


def share_corpus(
    opened: Sequence[Opened],
    queries: Sequence[str],
    languages: Sequence[str | None],
    *,
    args: argparse.Namespace,
    folder: Path,
    engines_out: dict[str, dict[str, Any]],
    result: dict[str, Any],
) -> None:
    """Several processes on each engine's index (and one that opens none: the baseline)."""
    counts = [int(c) for c in args.processes.split(",")]
    print(f"  processes {counts}, load {_load()}", flush=True)
    spec = {"engine": "none", "folders": [], "languages": list(languages), "queries": []}
    with _children(spec, 1, folder) as processes:
        _go(processes, "opened")
        baseline = sample(processes[0].pid)
        _tell(processes)
        _go(processes, "ready")
        _read_line(processes[0])
    result["child_baseline"] = {"rss": baseline.rss_bytes, "pss_anon": baseline.anonymous_bytes}
    for o in opened:
        figures = sharing(
            o,
            queries,
            languages,
            counts=counts,
            seconds=args.share_seconds,
            work=folder,
            baseline_anon=baseline.anonymous_bytes,
        )
        yes, text = shares_one_copy(figures, counts)
        figures["one_copy"] = yes
        figures["summary"] = text
        engines_out[o.engine.name]["processes"] = figures


def table(result: dict[str, Any]) -> str:
    headers = (
        "engine",
        "rec/s",
        "pages/s",
        "+extract",
        "size",
        "/archive",
        "warm p50",
        "p95",
        "cold p50",
        "GIL free A/B/2q",
        "top10=xap",
    )
    rows = []
    for name, e in result["engines"].items():
        b = e["build"]
        warm = e.get("warm", {})
        cold = e.get("cold", {})
        gil = e.get("gil", {})
        ratio = f"{b['size_over_archive']:.3f}"
        rows.append(
            (
                name,
                f"{b['records_per_s']:,.0f}",
                f"{b['pages_per_s']:,.0f}",
                f"{b['pages_per_s_with_extraction']:,.0f}",
                _mb(b["size"]),
                ratio,
                f"{warm.get('p50_ms', float('nan')):.2f} ms",
                f"{warm.get('p95_ms', float('nan')):.2f} ms",
                f"{cold.get('p50_ms', float('nan')):.2f} ms" if cold else "-",
                f"{100 * gil['counter_not_waiting_gil_a']:.0f}%/"
                f"{100 * gil['counter_not_waiting_gil_b']:.0f}%/"
                f"{100 * gil['two_threads_not_waiting']:.0f}%"
                if gil
                else "-",
                f"{warm['agree_top10_with_xapian']:.2f}"
                if warm.get("agree_top10_with_xapian") is not None
                else "-",
            )
        )
    widths = [max(len(str(r[i])) for r in (headers, *rows)) for i in range(len(headers))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    for name, e in result["engines"].items():
        if "processes" in e:
            lines.append(f"  {name}: one copy shared by the processes: {e['processes']['summary']}")
    return "\n".join(lines)


def pin_source() -> Path | None:
    """A copy of ``src/`` for the processes this run starts (first on their
    ``PYTHONPATH``), checked to be what this process imported: the product changes
    while a run lasts (an index format raised mid-run made the serving processes refuse
    the indexes this one had built), and every process must run the same code."""
    if os.environ.get(PINNED):
        return None
    copy = Path(tempfile.mkdtemp(prefix="bench-engines-src-"))
    source = ROOT / "src" / "corpus_mcp"
    shutil.copytree(source, copy / "corpus_mcp", ignore=shutil.ignore_patterns("__pycache__"))
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.startswith("corpus_mcp") and file and Path(file).is_relative_to(source):
            copied = copy / "corpus_mcp" / Path(file).relative_to(source)
            if not copied.is_file() or copied.read_bytes() != Path(file).read_bytes():
                shutil.rmtree(copy)
                raise SystemExit(f"{file} changed while this run started: run it again")
    for name, module in list(sys.modules.items()):  # what this process imports later too
        if name.startswith("corpus_mcp") and hasattr(module, "__path__"):
            module.__path__ = [str(copy / Path(*name.split(".")))]
    path = [str(copy), *filter(None, [os.environ.get("PYTHONPATH")])]
    os.environ[PINNED] = str(copy)
    os.environ["PYTHONPATH"] = os.pathsep.join(path)
    return copy


def _code() -> dict[str, Any]:
    """Which product code the run measures: the commit, whether src/ differed from it
    when the copy was taken, and where it was imported from."""
    import corpus_mcp  # noqa: PLC0415

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return {
        "commit": git("rev-parse", "HEAD"),
        "src_changed_files": git("diff", "--name-only", "HEAD", "--", "src").split(),
        "imported_from": str(Path(corpus_mcp.__file__).parent),
        "children_import": os.environ.get(PINNED),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-pin", action="store_true", help="let the processes started import src/ as it is"
    )
    parser.add_argument("--no-kit", action="store_true", help="skip the development kit")
    parser.add_argument("--archive", type=Path, help="a large archive to measure as well")
    parser.add_argument("--adapter", default="mediawiki", help="its adapter")
    parser.add_argument("--limit-pages", type=int, help="index only its first N pages")
    parser.add_argument("--engines", default=",".join(ENGINE_NAMES))
    parser.add_argument("--rounds", type=int, default=3, help="timed warm rounds")
    parser.add_argument("--cold-queries", type=int, default=20)
    parser.add_argument("--gil-seconds", type=float, default=3.0)
    parser.add_argument("--share-seconds", type=float, default=6.0)
    parser.add_argument("--processes", default="2,4", help="serving processes to start")
    parser.add_argument("--title-queries", type=int, default=200)
    parser.add_argument("--extract-processes", type=int, default=2)
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the indexes built")
    parser.add_argument("--out", type=Path, help="write every figure as JSON")
    args = parser.parse_args(argv)
    if args.child is not None:
        return child(args.child)
    pinned = None if args.no_pin else pin_source()
    found, skipped = engines(args.engines.split(","))
    for line in skipped:
        print(f"skipped {line}", flush=True)
    corpora = [] if args.no_kit else [kit_corpus()]
    if args.archive is not None:
        archive = Archive(args.archive.stem, args.archive.resolve(), args.adapter)
        queries = kit_wikipedia_queries() if args.adapter == "mediawiki" else []
        source = f"the kit's {len(queries)} Wikipedia questions" if queries else "none"
        corpora.append(Corpus("large", [archive], queries, source, args.limit_pages))
    out: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "load_start": _load()},
        "argv": sys.argv,
        "code": _code(),
        "skipped": skipped,
        "limit": LIMIT,
        "per_document": PER_DOCUMENT,
        "corpora": [],
    }
    base = args.work or Path(tempfile.mkdtemp(prefix="bench-engines-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        for corpus in corpora:
            result = run_corpus(corpus, found, args, Path(tempfile.mkdtemp(dir=base)))
            out["corpora"].append(result)
            print(
                f"\n{corpus.label} ({result['queries']['source']}; load {result['load_start']}"
                f" -> {result['load_end']})"
            )
            print(table(result), flush=True)
            if args.out is not None:
                args.out.write_text(json.dumps(out, indent=1))
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        if pinned is not None:
            shutil.rmtree(pinned, ignore_errors=True)
    out["machine"]["load_end"] = _load()
    if args.out is not None:
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
