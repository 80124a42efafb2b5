"""A library stuck inside its archive, under concurrent searches, in a real server.

``hanging_server.py`` serves the demo corpus with the Wikipedia archive made to hang on
demand (its index calls or its reads), the way a stalled disk would: it is hung by its
switch, not by the machine's speed, and stays hung until the test releases it. Every
search must still answer, ``partial`` and naming that library alone; a search arriving
once it is known stuck leaves it out at once (counted ``stuck``, not given up again);
bursts of searches must not pile up threads; and once the archive answers again, so does
the library.

Nothing here is timed. The healthy libraries get a deadline (:data:`SEARCH_TIMEOUT`)
they cannot miss on a loaded machine, so that only the hung one is ever left out; it is
given up by the server's own rules (a share of that deadline), which the figures of
``make bench`` (section 6) measure, not these tests.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from corpus_mcp.demo import wikipedia

from .server_process import ServerProcess, running_server
from .test_server_stdio import call

HANGING_SERVER = Path(__file__).with_name("hanging_server.py")
SEARCH_TIMEOUT = 12.0
"""A search's deadline. The hung library's index work is given up after two of its
quarters (``searching.STALL_SHARE``); a burst of searches that met it before that still has
the other half for the healthy libraries, on one walker thread (SEARCH_WORKERS=2, one
held by the hung call): far more than their few milliseconds each, however busy the
machine. A hung read is given up at the deadline itself."""
SEARCH_WORKERS = 2
GUARD = 120.0
"""Hang guard for every wait: a failsafe, far above anything the server is configured
to take."""
AGENTS = 16
BURSTS = 3
THREAD_ALLOWANCE = 3 * SEARCH_WORKERS + 2
"""Threads searches may add at most: walkers, archive and CPU workers (each pool is
SEARCH_WORKERS wide) and the one left inside the stuck archive, never one per search."""
QUERY = "C3 linearization"
"""A question the demo Wikipedia answers."""
#: How the server counts giving a hung library up (failure kinds): its index work, or
#: reading its entries in it (landing on redirects), stalled; a document read past the
#: deadline.
GIVEN_UP = ("stalled", "late", "read_timeout")


def _threads(server: ServerProcess) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def _call(port: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool call on its own connection: the JSON-RPC result."""
    message = call(1, tool, arguments)
    headers = {"content-type": "application/json", "accept": "application/json"}
    with httpx.Client(timeout=GUARD) as http:
        answer = http.post(f"http://127.0.0.1:{port}/mcp", json=message, headers=headers)
    result: dict[str, Any] = answer.json()["result"]
    return result


def _search(port: int, query: str) -> dict[str, Any]:
    """One search on its own connection: the structured content."""
    result = _call(port, "search", {"query": query})
    assert not result.get("isError"), result
    content: dict[str, Any] = result["structuredContent"]
    assert content == json.loads(result["content"][0]["text"])
    return content


def _fetch_error(port: int, ref: str) -> dict[str, Any]:
    """The structured error a fetch of ``ref`` answers."""
    result = _call(port, "fetch", {"ref": ref})
    assert result.get("isError"), result
    error: dict[str, Any] = json.loads(result["content"][0]["text"])
    return error


def _failures(port: int, *kinds: str) -> float:
    """corpus_mcp_library_failures_total for the stuck library, summed over ``kinds``."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=GUARD).text
    families = text_string_to_metric_families(text)
    return sum(
        sample.value
        for family in families
        for sample in family.samples
        if sample.name == "corpus_mcp_library_failures_total"
        and sample.labels["library"] == "Wikipedia"
        and sample.labels["kind"] in kinds
    )


def _burst(port: int, burst: int) -> list[dict[str, Any]]:
    """AGENTS searches at once, each a question not asked before (trailing marks change
    the string, so no remembered answer serves it, not the words)."""
    queries = [f"{QUERY} {'?' * (burst * AGENTS + n + 1)}" for n in range(AGENTS)]
    with ThreadPoolExecutor(AGENTS) as pool:
        return list(pool.map(lambda query: _search(port, query), queries))


@pytest.fixture
def control(tmp_path: Path) -> Path:
    return tmp_path / "hang"


@pytest.fixture
def hanging(demo_corpus: Path, control: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {
        "HANG_ARCHIVE": Path(wikipedia.FILE).name,
        "HANG_CONTROL": str(control),
        "SEARCH_TIMEOUT": str(SEARCH_TIMEOUT),
        "SEARCH_WORKERS": str(SEARCH_WORKERS),
        # Every search of a burst computed at once: what is measured is the fan-out
        # around the stuck library, not load shedding (tests/test_load_shedding.py).
        "MAX_SEARCHES": str(AGENTS),
    }
    argv = [sys.executable, str(HANGING_SERVER)]
    with running_server(demo_corpus, tmp_path / "stderr.log", env=env, argv=argv) as server:
        yield server


def _recovers(port: int) -> None:
    """Searches answer whole again once the archive does (within the hang guard)."""
    deadline = time.monotonic() + GUARD
    attempt = 0
    while True:
        attempt += 1
        content = _search(port, f"{QUERY} {'!' * attempt}")
        if not content["partial"]:
            assert any(r["library"] == "Wikipedia" for r in content["results"]), content
            return
        assert time.monotonic() < deadline, f"the library never came back: {content}"
        time.sleep(0.2)


def _only_it_left_out(content: dict[str, Any]) -> None:
    """The answer is partial, names the stuck library alone, holds nothing of it and
    holds the other libraries' results."""
    assert content["partial"] is True, content
    assert content["unavailable_libraries"] == ["Wikipedia"], content
    assert all(r["library"] != "Wikipedia" for r in content["results"]), content
    assert content["results"], content


@pytest.mark.parametrize("mode", ["index", "read"])
def test_a_stuck_library_is_left_out_of_every_search_and_piles_up_no_threads(
    hanging: ServerProcess, control: Path, mode: str
) -> None:
    control.write_text(mode)  # before any search: nothing of the archive is cached
    # Searches arriving together, before any of them has given the library up: at most
    # one walker goes inside it, the others answer from the other libraries.
    for content in _burst(hanging.port, 0):
        _only_it_left_out(content)
    given_up = _failures(hanging.port, *GIVEN_UP)
    assert given_up >= 1
    stuck = _failures(hanging.port, "stuck")
    # From now on it is known stuck: left out at once, one search at a time or many.
    for attempt in range(3):
        _only_it_left_out(_search(hanging.port, f"{QUERY} {'.' * (attempt + 1)}"))
    before = _threads(hanging)
    counts = []
    for burst in range(1, BURSTS + 1):
        for content in _burst(hanging.port, burst):
            _only_it_left_out(content)
        counts.append(_threads(hanging))
    assert max(counts) <= before + THREAD_ALLOWANCE, (before, counts)
    assert _failures(hanging.port, *GIVEN_UP) == given_up  # none waited on it again
    assert _failures(hanging.port, "stuck") >= stuck + 3 + BURSTS * AGENTS
    control.write_text("")
    _recovers(hanging.port)
    log = hanging.stderr
    assert "Traceback" not in log, log


def test_a_read_given_up_keeps_its_library_out_until_it_returns(
    hanging: ServerProcess, control: Path
) -> None:
    """A fetch whose read hangs answers library_unavailable at its deadline; from then on,
    until that read returns, fetches and searches leave the library out without waiting
    on it (no second read times out), and then it answers again."""
    control.write_text("read")
    ref = "corpus://Wikipedia/Git"
    first = _fetch_error(hanging.port, ref)
    assert first["error"] == "library_unavailable", first
    assert "longer than the search timeout" in first["message"], first
    assert first["retry_after"] == SEARCH_TIMEOUT, first
    timed_out = _failures(hanging.port, "read_timeout")
    assert timed_out == 1
    again = _fetch_error(hanging.port, "corpus://Wikipedia/Linked_list")
    assert again["error"] == "library_unavailable", again
    assert "an earlier call is still inside it" in again["message"], again
    for attempt in range(3):
        _only_it_left_out(_search(hanging.port, f"{QUERY} {'.' * (attempt + 1)}"))
    assert _failures(hanging.port, "read_timeout") == timed_out  # none waited on it
    assert _failures(hanging.port, "stuck") >= 3
    control.write_text("")
    _recovers(hanging.port)
    fetched = _call(hanging.port, "fetch", {"ref": ref})
    assert not fetched.get("isError"), fetched
    assert fetched["structuredContent"]["title"] == "Git"
