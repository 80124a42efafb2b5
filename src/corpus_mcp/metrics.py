"""Prometheus metrics: what the server does (calls, latencies, failures, reloads) and what
it holds (caches, open archives, stuck libraries), exposed at ``/metrics``.

The corpus and the server report events through the few functions below and never
touch a metric object, so the search code stays about search. What the served corpus
*holds* is not updated on any call path at all: the live corpus registers a provider
(:func:`watching`) that a scrape reads.

One registry per process, with the official client's process and Python collectors
(descriptors, memory, CPU, garbage collection) beside ours. Label values are tool
names, outcomes, library names from the manifest and fixed kinds: never a query, a
ref or a path, so ``LOG_QUERIES=false`` needs nothing here.

With several serving processes (``WORKERS``), each keeps its own registry and also
publishes it as a :func:`snapshot` once a second; the process answering ``/metrics``
shows every process's series, each labelled ``process`` (:func:`merged_exposition`),
plus the supervisor's own (:func:`supervisor_snapshot`). Series are per process rather
than summed: counters stay monotonic per series when a process is replaced (Prometheus
treats the replacement's start as a counter reset), and a sum is one ``sum without
(process)`` away while a sum cannot be taken apart again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Final, ParamSpec, TypeVar, get_args

import msgspec
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from corpus_mcp.errors import ErrorCode

P = ParamSpec("P")
T = TypeVar("T")

TOOLS: Final = ("search", "fetch")
OUTCOMES: Final = ("ok", *get_args(ErrorCode), "internal_error")
"""A tool call's outcome: ``ok``, an error code an agent can cause, or ``internal_error``."""
FAILURE_KINDS: Final = ("raised", "stalled", "stuck", "late", "read_error", "read_timeout")
"""Why a library failed a search: its index search raised, stalled, was still stuck in
an earlier search, or was not reached before the deadline (corpus_mcp.fanout; once per
search); or reading one of its results failed or timed out (once per document). All but
``raised`` and ``read_error`` are timeouts; each leaves the answer ``partial``."""
RELOAD_OUTCOMES: Final = (
    "swapped",
    "unchanged",
    "invalid_manifest",
    "archive_failed",
    "internal_error",
)
"""A reload's outcome: a new corpus serves; nothing had changed; or it failed (the old
corpus keeps serving) on the manifest, on an archive, or on a bug."""
CACHES: Final = ("documents", "hits", "answers", "fetches")

#: From a remembered answer (about a millisecond) to the longest search deadlines.
SECONDS_BUCKETS: Final = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)

# No ``*_created`` series: one per labelled counter would double what a scrape carries
# for a start time that process_start_time_seconds already gives.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY: Final = CollectorRegistry()
for _collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
    # The client's own collectors, already registered in its default registry: registered
    # here too, so that one registry holds everything /metrics shows.
    REGISTRY.register(_collector)

_CALLS = Counter(
    "corpus_mcp_tool_calls",
    "Tool calls by tool and outcome (ok, or the error code the caller got).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
_CALL_SECONDS = Histogram(
    "corpus_mcp_tool_call_seconds",
    "Time to answer a tool call, whatever its outcome.",
    ["tool"],
    buckets=SECONDS_BUCKETS,
    registry=REGISTRY,
)
_IN_FLIGHT = Gauge(
    "corpus_mcp_tool_calls_in_flight",
    "Tool calls being answered now, by tool.",
    ["tool"],
    registry=REGISTRY,
)
_PARTIAL = Counter(
    "corpus_mcp_partial_answers",
    "Searches answered without some libraries (partial: true).",
    registry=REGISTRY,
)
_LIBRARY_SECONDS = Histogram(
    "corpus_mcp_library_search_seconds",
    "One library's index work for one search (answers remembered from an earlier "
    "search are not counted).",
    ["library"],
    buckets=SECONDS_BUCKETS,
    registry=REGISTRY,
)
_LIBRARY_FAILURES = Counter(
    "corpus_mcp_library_failures",
    "A library's failures during searches, by kind: raised, stalled, stuck, late (its "
    "index search, once per search) or read_error, read_timeout (reading a result, once "
    "per document).",
    ["library", "kind"],
    registry=REGISTRY,
)
_RELOADS = Counter(
    "corpus_mcp_reloads",
    "Corpus reloads (SIGHUP) by outcome; on a failure the previous corpus keeps serving.",
    ["outcome"],
    registry=REGISTRY,
)
_LOOP_LAG = Histogram(
    "corpus_mcp_event_loop_lag_seconds",
    "How late the event loop ran a task that asked to wake up (measured ten times a "
    "second): the time any call waits for the loop before its own work starts.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)
for _tool in TOOLS:
    _CALL_SECONDS.labels(_tool)
    _IN_FLIGHT.labels(_tool)
    for _outcome in OUTCOMES:
        _CALLS.labels(_tool, _outcome)
for _outcome in RELOAD_OUTCOMES:
    _RELOADS.labels(_outcome)


# -- events ---------------------------------------------------------------------------


def tool_calls_in_flight(tool: str, change: int) -> None:
    """A call of ``tool`` began (+1) or ended (-1), however it ended."""
    _IN_FLIGHT.labels(tool).inc(change)


def tool_called(tool: str, outcome: str, seconds: float) -> None:
    """One tool call ended with ``outcome`` (see :data:`OUTCOMES`) after ``seconds``."""
    _CALLS.labels(tool, outcome).inc()
    _CALL_SECONDS.labels(tool).observe(seconds)


def loop_lagged(seconds: float) -> None:
    _LOOP_LAG.observe(seconds)


def partial_answer() -> None:
    """A search was answered without some of its libraries."""
    _PARTIAL.inc()


def timed_search(library: str, run: Callable[P, T]) -> Callable[P, T]:
    """``run`` (one library's index work for a search), timed when it returns.

    Safe in any thread. A call that raises is not observed: it is counted by
    :func:`library_failed` instead.
    """

    def timed(*args: P.args, **kwargs: P.kwargs) -> T:
        started = time.perf_counter()
        value = run(*args, **kwargs)
        _LIBRARY_SECONDS.labels(library).observe(time.perf_counter() - started)
        return value

    return timed


def library_failed(library: str, kind: str) -> None:
    """A library failed a search (``kind``: see :data:`FAILURE_KINDS`)."""
    _LIBRARY_FAILURES.labels(library, kind).inc()


def libraries_served(libraries: Iterable[str]) -> None:
    """These libraries are now served: their series start at 0, so that a rate over
    them is defined before their first event."""
    for library in libraries:
        _LIBRARY_SECONDS.labels(library)
        for kind in FAILURE_KINDS:
            _LIBRARY_FAILURES.labels(library, kind)


def reloaded(outcome: str) -> None:
    """A reload ended with ``outcome`` (see :data:`RELOAD_OUTCOMES`)."""
    _RELOADS.labels(outcome).inc()


# -- what the served corpus holds, read at scrape time ---------------------------------


class CacheFigures(msgspec.Struct, frozen=True, kw_only=True):
    """One cache: what it holds now and its lookups since the process started."""

    bytes: int
    limit: int
    entries: int
    hits: int
    misses: int


class IndexFigures(msgspec.Struct, frozen=True, kw_only=True):
    """One library's section index (see :mod:`corpus_mcp.sections`)."""

    state: str
    progress: float = 0.0
    """While building: the share of the archive's entries read."""
    sections: int = 0
    bytes: int = 0


#: The states a library's section index can be in (``corpus_mcp_section_index_state``).
INDEX_STATES: Final = ("off", "missing", "building", "ready", "stale", "failed")


class CorpusFigures(msgspec.Struct, frozen=True, kw_only=True):
    """The served corpus at one moment (see :class:`corpus_mcp.live.LiveCorpus`)."""

    generation: int
    """1 at startup, one more after every reload that swapped the corpus."""
    loaded_at: float
    """When the serving generation was opened (Unix time)."""
    draining: int
    """Older generations still finishing calls."""
    libraries: tuple[str, ...]
    open_archives: int
    """Archives held open by every generation alive (a file shared by two counts once)."""
    stuck: tuple[str, ...]
    caches: dict[str, CacheFigures]
    indexes: dict[str, IndexFigures] = msgspec.field(default_factory=dict)


class _CorpusCollector:
    """Turns the latest provider's :class:`CorpusFigures` into metrics on each scrape."""

    def __init__(self) -> None:
        self.providers: list[Callable[[], CorpusFigures]] = []

    def collect(self) -> Iterator[Metric]:
        if not self.providers:
            return
        figures = self.providers[-1]()
        yield _gauge(
            "corpus_mcp_corpus_generation",
            "The corpus generation serving calls (1 at startup, +1 per swap).",
            figures.generation,
        )
        yield _gauge(
            "corpus_mcp_corpus_loaded_timestamp_seconds",
            "When the serving corpus generation was opened.",
            figures.loaded_at,
        )
        yield _gauge(
            "corpus_mcp_corpus_generations_draining",
            "Older corpus generations still finishing calls in flight.",
            figures.draining,
        )
        yield _gauge("corpus_mcp_libraries", "Libraries served.", len(figures.libraries))
        yield _gauge(
            "corpus_mcp_open_archives",
            "ZIM archives open (every generation alive).",
            figures.open_archives,
        )
        stuck = GaugeMetricFamily(
            "corpus_mcp_library_stuck",
            "1 while an abandoned index call is still inside the library (searches leave it out).",
            labels=["library"],
        )
        for library in figures.libraries:
            stuck.add_metric([library], 1.0 if library in figures.stuck else 0.0)
        yield stuck
        yield from _cache_metrics(figures.caches)
        yield from _index_metrics(figures.indexes)


def _index_metrics(indexes: dict[str, IndexFigures]) -> Iterator[Metric]:
    state = GaugeMetricFamily(
        "corpus_mcp_section_index_state",
        "1 for the state a library's section index is in (off, missing, building, ready, "
        "stale, failed), 0 for the others.",
        labels=["library", "state"],
    )
    progress = GaugeMetricFamily(
        "corpus_mcp_section_index_build_progress",
        "While a library's section index is built: the share of its archive read (0-1).",
        labels=["library"],
    )
    sections = GaugeMetricFamily(
        "corpus_mcp_section_index_sections",
        "Sections in a library's ready section index.",
        labels=["library"],
    )
    held = GaugeMetricFamily(
        "corpus_mcp_section_index_bytes",
        "Size of a library's ready section index file.",
        labels=["library"],
    )
    for library, figures in sorted(indexes.items()):
        for name in INDEX_STATES:
            state.add_metric([library, name], 1.0 if figures.state == name else 0.0)
        progress.add_metric([library], figures.progress)
        sections.add_metric([library], float(figures.sections))
        held.add_metric([library], float(figures.bytes))
    yield from (state, progress, sections, held)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _cache_metrics(caches: dict[str, CacheFigures]) -> Iterator[Metric]:
    held = GaugeMetricFamily(
        "corpus_mcp_cache_bytes", "Approximate bytes a cache holds.", labels=["cache"]
    )
    limit = GaugeMetricFamily(
        "corpus_mcp_cache_limit_bytes", "The bytes a cache may hold.", labels=["cache"]
    )
    entries = GaugeMetricFamily(
        "corpus_mcp_cache_entries", "Entries a cache holds.", labels=["cache"]
    )
    hits = CounterMetricFamily(
        "corpus_mcp_cache_hits", "Cache lookups that found an entry.", labels=["cache"]
    )
    misses = CounterMetricFamily(
        "corpus_mcp_cache_misses", "Cache lookups that found none.", labels=["cache"]
    )
    ratio = GaugeMetricFamily(
        "corpus_mcp_cache_hit_ratio",
        "Hits over lookups since the process started (0 before the first lookup); "
        "for a recent ratio use rate() of the hits and misses counters.",
        labels=["cache"],
    )
    for name, cache in caches.items():
        held.add_metric([name], cache.bytes)
        limit.add_metric([name], cache.limit)
        entries.add_metric([name], cache.entries)
        hits.add_metric([name], cache.hits)
        misses.add_metric([name], cache.misses)
        lookups = cache.hits + cache.misses
        ratio.add_metric([name], cache.hits / lookups if lookups else 0.0)
    yield from (held, limit, entries, hits, misses, ratio)


_CORPUS = _CorpusCollector()
REGISTRY.register(_CORPUS)


@contextmanager
def watching(provider: Callable[[], CorpusFigures]) -> Iterator[None]:
    """Scrapes read the corpus figures from ``provider`` while inside (the latest one
    entered wins, so a test running two servers in one process sees the newer one)."""
    _CORPUS.providers.append(provider)
    try:
        yield
    finally:
        _CORPUS.providers.remove(provider)


def exposition(accept: str | None) -> tuple[bytes, str]:
    """Every metric, encoded as ``accept`` prefers (Prometheus text or OpenMetrics), and
    the response's content type."""
    encode, content_type = choose_encoder(accept or "")
    return encode(REGISTRY), content_type


# -- several serving processes ---------------------------------------------------------

PROCESS_LABEL: Final = "process"
"""The label naming the serving process (1 to WORKERS) of a series."""


class _Family(msgspec.Struct, array_like=True, frozen=True):
    """One metric family as a snapshot carries it (what a scrape would show of it)."""

    name: str
    kind: str
    documentation: str
    unit: str
    samples: list[tuple[str, dict[str, str], float]]


_SNAPSHOTS = msgspec.msgpack.Decoder(list[_Family])
# msgpack rather than JSON: it keeps inf and NaN (histogram sums, ratios) as they are.
_ENCODER = msgspec.msgpack.Encoder()


def _families(collector: Collector) -> list[_Family]:
    return [
        _Family(
            metric.name,
            metric.type,
            metric.documentation,
            metric.unit,
            [(sample.name, dict(sample.labels), float(sample.value)) for sample in metric.samples],
        )
        for metric in collector.collect()
    ]


def snapshot() -> bytes:
    """This process's metrics, as another process shows them (:func:`merged_exposition`)."""
    return _ENCODER.encode(_families(REGISTRY))


def supervisor_snapshot(processes: int, ready: int, restarts: dict[int, int]) -> bytes:
    """The supervisor's own series: serving processes configured and ready, and how
    often each was started again after it had exited."""
    configured = _Family(
        "corpus_mcp_processes",
        "gauge",
        "Serving processes configured (WORKERS).",
        "",
        [("corpus_mcp_processes", {}, float(processes))],
    )
    serving = _Family(
        "corpus_mcp_processes_ready",
        "gauge",
        "Serving processes that have opened their corpus and accept calls.",
        "",
        [("corpus_mcp_processes_ready", {}, float(ready))],
    )
    restarted = _Family(
        "corpus_mcp_process_restarts",
        "counter",
        "Serving processes started again after one exited (crashed, killed, or stopped "
        "by someone other than the supervisor).",
        "",
        [
            ("corpus_mcp_process_restarts_total", {PROCESS_LABEL: str(process)}, float(count))
            for process, count in sorted(restarts.items())
        ],
    )
    return _ENCODER.encode([configured, serving, restarted])


class _Merged:
    """Every process's families as one registry would collect them: each family once,
    with the samples of every process that has it (labelled with the process)."""

    def __init__(self, families: dict[str, Metric]) -> None:
        self._families = families

    def collect(self) -> Iterator[Metric]:
        yield from self._families.values()


def merged_exposition(
    accept: str | None, process: int, others: Iterable[tuple[int | None, bytes]]
) -> tuple[bytes, str]:
    """:func:`exposition` for serving process ``process`` among several: its own series
    as they are now and ``others``' snapshots, each series labelled with its process
    (``None``: the supervisor's snapshot, whose series carry the labels they have)."""
    merged: dict[str, Metric] = {}

    def add(families: Iterable[_Family], label: int | None) -> None:
        for family in families:
            metric = merged.get(family.name)
            if metric is None:
                metric = Metric(family.name, family.documentation, family.kind, family.unit)
                merged[family.name] = metric
            for name, labels, value in family.samples:
                named = labels if label is None else {**labels, PROCESS_LABEL: str(label)}
                metric.add_sample(name, named, value)

    add(_families(REGISTRY), process)
    for label, payload in others:
        if payload:
            try:
                add(_SNAPSHOTS.decode(payload), label)
            except msgspec.DecodeError:  # a board of another version: nothing to show
                continue
    encode, content_type = choose_encoder(accept or "")
    return encode(_Merged(merged)), content_type
