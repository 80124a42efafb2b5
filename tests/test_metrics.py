"""``/metrics``: a real scrape of a real server after real MCP calls, parsed with the
official client's parsers; the corpus's failure counts under the fan-out's test doubles;
readiness while draining.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
import trio
import trio.testing
from mcp import Client
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families

from corpus_mcp import metrics
from corpus_mcp.config import load_settings
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.sections.catalog import IndexState
from corpus_mcp.server import ToolError, ToolHandlers
from corpus_mcp.server.app import build_app
from corpus_mcp.wire import FetchOutput, SearchOutput
from corpus_mcp.zim import ResolvedEntry

from .mcp_helpers import error_payload, structured
from .server_process import running_server
from .test_corpus_fanout import TIMEOUT, FakeReader, Fixture, _in_background, _stall
from .test_server_stdio import call

QUERY = "C3 linearization multiple inheritance"
FAULT_SERVER = Path(__file__).with_name("fault_server.py")
#: No library of the demo corpus comes near this on any machine: every search answers
#: from every library, so the counts below are exact.
PATIENT = {"SEARCH_TIMEOUT": "120"}

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(text: str) -> Samples:
    """Every sample of a Prometheus text exposition, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(found: Samples, name: str, **labels: str) -> float:
    return found[(name, tuple(sorted(labels.items())))]


def scrape(port: int, **headers: str) -> httpx.Response:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        return http.get("/metrics", headers=headers)


async def test_a_scrape_after_real_calls_counts_them(demo_corpus: Path, tmp_path: Path) -> None:
    with running_server(demo_corpus, tmp_path / "stderr.log", env=PATIENT) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        async with Client(url) as client:
            found = structured(await client.call_tool("search", {"query": QUERY, "limit": 5}))
            again = structured(await client.call_tool("search", {"query": QUERY, "limit": 5}))
            assert again == found  # the remembered answer
            hit = next(r for r in found["results"] if r["relevant_sections"])
            section = hit["relevant_sections"][0]["id"]
            structured(await client.call_tool("fetch", {"ref": hit["ref"], "sections": [section]}))
            errors = [
                ("search", {"query": "  "}),
                ("fetch", {"ref": "https://example.org/C3"}),
                ("fetch", {"ref": f"corpus://{hit['library']}/No_such_document_here"}),
                ("fetch", {"ref": hit["ref"], "sections": ["no-such-section"]}),
            ]
            codes = [error_payload(await client.call_tool(*call))["error"] for call in errors]
        assert codes == ["invalid_arguments", "invalid_ref", "not_found", "section_not_found"]
        response = scrape(server.port)
        head = httpx.head(f"http://127.0.0.1:{server.port}/metrics", timeout=60)
        post = httpx.post(f"http://127.0.0.1:{server.port}/metrics", timeout=60)
        foreign = scrape(server.port, host="evil.example")

    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert (head.status_code, head.content) == (200, b"")
    assert (post.status_code, foreign.status_code) == (405, 421)
    found_samples = samples(response.text)
    calls = {
        (tool, outcome): value(
            found_samples, "corpus_mcp_tool_calls_total", tool=tool, outcome=outcome
        )
        for tool in metrics.TOOLS
        for outcome in metrics.OUTCOMES
    }
    assert {key: count for key, count in calls.items() if count} == {
        ("search", "ok"): 2,
        ("search", "invalid_arguments"): 1,
        ("fetch", "ok"): 1,
        ("fetch", "invalid_ref"): 1,
        ("fetch", "not_found"): 1,
        ("fetch", "section_not_found"): 1,
    }
    assert value(found_samples, "corpus_mcp_tool_call_seconds_count", tool="search") == 3
    assert value(found_samples, "corpus_mcp_tool_call_seconds_count", tool="fetch") == 4
    names = [name for name, _, _ in DEMO_LIBRARIES]
    for library in names:  # the first search asked every library once; the second, none
        assert value(found_samples, "corpus_mcp_library_search_seconds_count", library=library) == 1
        assert value(found_samples, "corpus_mcp_library_stuck", library=library) == 0
        for kind in metrics.FAILURE_KINDS:
            count = value(
                found_samples, "corpus_mcp_library_failures_total", library=library, kind=kind
            )
            assert count == 0
    assert value(found_samples, "corpus_mcp_partial_answers_total") == 0
    assert value(found_samples, "corpus_mcp_libraries") == len(names)
    assert value(found_samples, "corpus_mcp_open_archives") == len(names)
    assert value(found_samples, "corpus_mcp_corpus_generation") == 1
    assert value(found_samples, "corpus_mcp_corpus_generations_draining") == 0
    for outcome in metrics.RELOAD_OUTCOMES:
        assert value(found_samples, "corpus_mcp_reloads_total", outcome=outcome) == 0
    documents = {"cache": "documents"}
    assert 0 < value(found_samples, "corpus_mcp_cache_bytes", **documents) <= 64_000_000
    assert value(found_samples, "corpus_mcp_cache_limit_bytes", **documents) == 64_000_000
    assert value(found_samples, "corpus_mcp_cache_entries", **documents) > 0
    answers = {"cache": "answers"}
    assert value(found_samples, "corpus_mcp_cache_hits_total", **answers) >= 1
    hits = value(found_samples, "corpus_mcp_cache_hits_total", **answers)
    misses = value(found_samples, "corpus_mcp_cache_misses_total", **answers)
    assert value(found_samples, "corpus_mcp_cache_hit_ratio", **answers) == hits / (hits + misses)
    assert value(found_samples, "process_open_fds") > len(names)
    # The loop's lag is measured ten times a second from the start: some samples by now.
    assert value(found_samples, "corpus_mcp_event_loop_lag_seconds_count") > 0
    assert value(found_samples, "corpus_mcp_event_loop_lag_seconds_sum") >= 0


def test_openmetrics_is_served_to_a_scraper_that_asks_for_it(
    demo_corpus: Path, tmp_path: Path
) -> None:
    with running_server(demo_corpus, tmp_path / "stderr.log") as server:
        accept = "application/openmetrics-text; version=1.0.0,text/plain;q=0.5"
        response = scrape(server.port, accept=accept)
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")
    parsed = openmetrics_families(response.text)  # type: ignore[no-untyped-call]
    families = {family.name: family for family in parsed}
    assert families["corpus_mcp_tool_calls"].type == "counter"
    assert families["corpus_mcp_tool_call_seconds"].type == "histogram"
    assert families["corpus_mcp_open_archives"].samples[0].value == len(DEMO_LIBRARIES)


def test_partial_answers_and_failures_of_a_real_server_are_counted(
    wikipedia_only: Path, tmp_path: Path
) -> None:
    manifest = wikipedia_only
    argv = [sys.executable, str(FAULT_SERVER)]  # reading any document's bytes fails
    with running_server(manifest, tmp_path / "stderr.log", env=PATIENT, argv=argv) as server:
        base = f"http://127.0.0.1:{server.port}"
        headers = {"accept": "application/json", "content-type": "application/json"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            found = http.post("/mcp", json=call(1, "search", {"query": QUERY})).json()
            fetched = http.post(
                "/mcp", json=call(2, "fetch", {"ref": "corpus://Wikipedia/C3_linearization"})
            ).json()
        response = scrape(server.port)
    assert found["result"]["structuredContent"]["partial"] is True
    assert fetched["result"]["isError"] is True
    found_samples = samples(response.text)
    assert value(found_samples, "corpus_mcp_partial_answers_total") == 1
    read_errors = value(
        found_samples, "corpus_mcp_library_failures_total", library="Wikipedia", kind="read_error"
    )
    assert read_errors >= 1
    assert value(found_samples, "corpus_mcp_tool_calls_total", tool="search", outcome="ok") == 1
    internal = {"tool": "fetch", "outcome": "internal_error"}
    assert value(found_samples, "corpus_mcp_tool_calls_total", **internal) == 1


# -- what the corpus reports, under the fan-out's test doubles --------------------------


def _sample(name: str, **labels: str) -> float:
    found = metrics.REGISTRY.get_sample_value(name, labels)
    return found or 0.0


def _failures(library: str, kind: str) -> float:
    return _sample("corpus_mcp_library_failures_total", library=library, kind=kind)


async def test_failures_are_counted_by_library_and_kind(
    mock_clock: trio.testing.MockClock,
) -> None:
    names = ("m-good", "m-raise", "m-unreadable")
    before = {
        "searched": _sample("corpus_mcp_library_search_seconds_count", library="m-good"),
        "raised": _failures("m-raise", "raised"),
        "read_error": _failures("m-unreadable", "read_error"),
    }
    fixture = Fixture(
        FakeReader(names[0]),
        FakeReader(names[1], mode="raise"),
        FakeReader(names[2], mode="unreadable"),
    )
    out = await fixture.corpus.search("trio", 5)
    assert out.unavailable_libraries == ["m-raise", "m-unreadable"]
    after = {
        "searched": _sample("corpus_mcp_library_search_seconds_count", library="m-good"),
        "raised": _failures("m-raise", "raised"),
        "read_error": _failures("m-unreadable", "read_error"),
    }
    assert after["searched"] - before["searched"] == 1  # its index search, timed
    assert after["raised"] - before["raised"] == 1  # once per search
    assert after["read_error"] - before["read_error"] >= 1  # once per document read


class _SlowRead(FakeReader):
    """Its index answers; reading a document blocks. ``reading`` is set once a read has
    begun (``entered`` is set by the index search already)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, mode="slow-read")
        self.reading = trio.Event()

    def read(self, path: str) -> tuple[ResolvedEntry, bytes]:
        trio.from_thread.run_sync(self.reading.set)
        return super().read(path)


async def test_timeouts_are_counted_by_library_and_kind(
    mock_clock: trio.testing.MockClock,
) -> None:
    stalled_before = _failures("m-slow", "stalled")
    late_read_before = _failures("m-slow-read", "read_timeout")
    slow = FakeReader("m-slow", mode="slow")
    fixture = Fixture(slow, FakeReader("m-fast"))
    try:
        async with trio.open_nursery() as nursery:
            done = _in_background(nursery, lambda: fixture.corpus.search("trio", 5))
            await slow.entered.wait()
            await _stall(mock_clock)
        assert done[0].unavailable_libraries == ["m-slow"]
    finally:
        slow.release.set()
    slow_read = _SlowRead("m-slow-read")
    reading = Fixture(slow_read)
    try:
        async with trio.open_nursery() as nursery:
            done = _in_background(nursery, lambda: reading.corpus.search("trio", 5))
            await slow_read.reading.wait()
            await trio.testing.wait_all_tasks_blocked()
            mock_clock.jump(TIMEOUT)
        assert done[0].unavailable_libraries == ["m-slow-read"]
    finally:
        slow_read.release.set()
    assert _failures("m-slow", "stalled") - stalled_before == 1
    assert _failures("m-slow-read", "read_timeout") - late_read_before >= 1  # per document


async def test_tool_handlers_count_outcomes_and_partial_answers(
    mock_clock: trio.testing.MockClock,
) -> None:
    fixture = Fixture(FakeReader("h-good"), FakeReader("h-broken", mode="raise"))
    handlers = ToolHandlers(fixture.corpus, load_settings({}))
    ok_before = _sample("corpus_mcp_tool_calls_total", tool="search", outcome="ok")
    partial_before = _sample("corpus_mcp_partial_answers_total")
    invalid_before = _sample(
        "corpus_mcp_tool_calls_total", tool="search", outcome="invalid_arguments"
    )
    output = await handlers.run("search", {"query": "trio"})
    assert isinstance(output, SearchOutput)
    assert output.partial is True
    with pytest.raises(ToolError):
        await handlers.run("search", {"query": ""})
    assert _sample("corpus_mcp_tool_calls_total", tool="search", outcome="ok") - ok_before == 1
    assert _sample("corpus_mcp_partial_answers_total") - partial_before == 1
    invalid = _sample("corpus_mcp_tool_calls_total", tool="search", outcome="invalid_arguments")
    assert invalid - invalid_before == 1


class _ExplodingCorpus:
    libraries = ("wiki",)

    async def search(self, query: str, limit: int) -> SearchOutput:
        raise RuntimeError("simulated bug")

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        raise RuntimeError("simulated bug")

    def index_states(self) -> dict[str, IndexState]:
        return {}


async def test_an_internal_error_is_counted_as_such() -> None:
    handlers = ToolHandlers(_ExplodingCorpus(), load_settings({}))
    before = _sample("corpus_mcp_tool_calls_total", tool="fetch", outcome="internal_error")
    with pytest.raises(ToolError):
        await handlers.run("fetch", {"ref": "corpus://wiki/Page"})
    after = _sample("corpus_mcp_tool_calls_total", tool="fetch", outcome="internal_error")
    assert after - before == 1


def test_the_corpus_figures_come_from_the_latest_provider() -> None:
    def figures(generation: int) -> metrics.CorpusFigures:
        cache = metrics.CacheFigures(bytes=10, limit=100, entries=1, hits=0, misses=0)
        return metrics.CorpusFigures(
            generation=generation,
            loaded_at=0.0,
            draining=0,
            libraries=("a",),
            open_archives=1,
            stuck=("a",),
            caches=dict.fromkeys(metrics.CACHES, cache),
        )

    def generation() -> float | None:
        return metrics.REGISTRY.get_sample_value("corpus_mcp_corpus_generation")

    outside = generation()
    with metrics.watching(lambda: figures(7)):
        assert generation() == 7
        with metrics.watching(lambda: figures(8)):
            assert generation() == 8
            stuck = metrics.REGISTRY.get_sample_value("corpus_mcp_library_stuck", {"library": "a"})
            assert stuck == 1
            ratio = metrics.REGISTRY.get_sample_value(
                "corpus_mcp_cache_hit_ratio", {"cache": "hits"}
            )
            assert ratio == 0  # no lookup yet
        assert generation() == 7
    assert generation() == outside


# -- readiness -------------------------------------------------------------------------


class _Corpus:
    libraries = ("wiki", "docs")

    async def search(self, query: str, limit: int) -> SearchOutput:
        return SearchOutput(query=query, results=[])

    async def fetch(self, ref: str, sections: list[str] | None) -> FetchOutput:
        raise NotImplementedError

    def index_states(self) -> dict[str, IndexState]:
        return {"wiki": IndexState(state="ready", sections=12), "docs": IndexState(state="missing")}


async def test_readiness_fails_while_draining_and_liveness_does_not() -> None:
    app = build_app(_Corpus(), load_settings({}), port=8000)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        assert (await http.get("/readyz")).json() == {
            "status": "ok",
            "libraries": 2,
            "indexes": {"wiki": "ready (12 sections)", "docs": "missing"},
        }
        app.start_draining()
        ready = await http.get("/readyz")
        alive = await http.get("/healthz")
        head = await http.head("/readyz")
    assert (ready.status_code, ready.json()) == (503, {"status": "draining", "libraries": 2})
    assert ready.headers["connection"] == "close"
    assert (alive.status_code, alive.json()) == (200, {"status": "ok", "libraries": 2})
    assert (head.status_code, head.content) == (503, b"")
