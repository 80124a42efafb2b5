"""What serving processes share (the board) and what a scrape of several shows.

The board is read across processes by forked children; here one process plays both
sides (the mapping behaves the same), and a forked child checks the sharing itself.
"""

from __future__ import annotations

import logging
import os
import warnings

import pytest
from prometheus_client.parser import text_string_to_metric_families

from corpus_mcp import metrics
from corpus_mcp.logs import PROCESS_TEXT_FORMAT, JsonFormatter, tag_process
from corpus_mcp.server import board as board_module
from corpus_mcp.server.board import NOT_ACCEPTING, Board, SnapshotTooLarge


def test_readiness_pids_and_connections() -> None:
    board = Board(3)
    assert not board.all_ready
    board.all_ready = True
    assert board.all_ready
    board.set_pid(2, 4321)
    assert (board.pid(1), board.pid(2)) == (0, 4321)
    # A process counts only once it accepts; a starting or draining one is left out.
    assert board.fewest_connections(besides=1) is None
    board.set_connections(2, 5)
    board.set_connections(3, 7)
    assert board.fewest_connections(besides=1) == 5
    assert board.fewest_connections(besides=2) == 7
    board.set_connections(2, NOT_ACCEPTING)
    assert board.fewest_connections(besides=1) == 7
    board.set_pid(3, 99)  # a new process in that place: it accepts nothing yet
    assert board.fewest_connections(besides=1) is None
    assert (board.connections(2), board.connections(3)) == (None, None)


def test_calls_in_flight_by_process_and_tool() -> None:
    board = Board(2)
    assert board.calls(1) == board.calls(2) == {"search": 0, "fetch": 0}
    board.set_calls(1, "search", 3)
    board.set_calls(2, "fetch", 1)
    board.set_calls(2, "search", 2)
    assert board.calls(1) == {"search": 3, "fetch": 0}
    assert board.calls(2) == {"search": 2, "fetch": 1}
    board.set_pid(2, 1234)  # its replacement: nothing in flight yet
    assert board.calls(2) == {"search": 0, "fetch": 0} and board.calls(1)["search"] == 3


def test_snapshots_round_trip_and_clear() -> None:
    board = Board(2)
    assert (board.snapshot(1), board.taken(1)) == (b"", 0)
    board.publish(1, b"first", 10)
    board.publish(1, b"second, longer", 20)
    assert (board.snapshot(1), board.taken(1)) == (b"second, longer", 20)
    board.want(30)
    assert board.wanted == 30
    board.clear(1)
    assert (board.snapshot(1), board.taken(1)) == (b"", 0)


def test_a_snapshot_being_written_is_never_read_torn() -> None:
    board = Board(1)
    board.publish(1, b"whole", 1)
    assert board.snapshot(1) == b"whole"
    # Caught half-written (odd sequence), or its bytes not matching its CRC: the last
    # whole snapshot is shown instead.
    base = board._snapshots + board_module.SNAPSHOT_BYTES
    board_module._SNAPSHOT.pack_into(board._map, base, 7, 2, 5, 0)
    assert board.snapshot(1) == b"whole"
    board_module._SNAPSHOT.pack_into(board._map, base, 8, 2, 5, 12345)
    assert board.snapshot(1) == b"whole"
    assert Board(1).snapshot(1) == b""  # nothing whole ever read: nothing shown


def test_a_snapshot_too_large_is_refused() -> None:
    board = Board(1)
    with pytest.raises(SnapshotTooLarge, match="bytes of metrics"):
        board.publish(1, b"x" * board_module.SNAPSHOT_BYTES, 1)


def test_a_forked_process_writes_what_its_parent_reads() -> None:
    board = Board(2)
    with warnings.catch_warnings():
        # Python 3.12+ warns when this (test) process has threads left by earlier tests;
        # the child only writes to the mapping and exits, touching no lock.
        warnings.filterwarnings(
            "ignore", r".*use of fork\(\) may lead to deadlocks", DeprecationWarning
        )
        pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: measured from the next frame on)
        _child(board)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert (board.snapshot(2), board.pid(2), board.fewest_connections(besides=1)) == (
        b"from the child",
        os.getpid(),
        3,
    )
    assert board.calls(2) == {"search": 2, "fetch": 0}  # what it had when it exited


def _child(board: Board) -> None:
    try:
        board.publish(2, b"from the child", 1)
        board.set_pid(2, os.getppid())
        board.set_connections(2, 3)
        board.set_calls(2, "search", 2)
    finally:
        os._exit(0)


# -- a scrape of several processes -------------------------------------------------------


def _samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text.decode())
        for sample in family.samples
    }


def test_every_process_series_is_labelled_with_its_process() -> None:
    metrics.tool_called("search", "ok", 0.01)
    other = metrics.snapshot()  # another process, here the same registry
    supervisor = metrics.supervisor_snapshot(2, 1, {1: 0, 2: 3})
    text, content_type = metrics.merged_exposition(None, 1, [(None, supervisor), (2, other)])
    assert content_type.startswith("text/plain")
    found = _samples(text)
    key = (("outcome", "ok"), ("process", "1"), ("tool", "search"))
    assert found[("corpus_mcp_tool_calls_total", key)] >= 1
    assert ("corpus_mcp_tool_calls_total", (*key[:1], ("process", "2"), key[2])) in found
    assert found[("corpus_mcp_processes", ())] == 2
    assert found[("corpus_mcp_processes_ready", ())] == 1
    assert found[("corpus_mcp_process_restarts_total", (("process", "2"),))] == 3
    lag = [labels for name, labels in found if name == "corpus_mcp_event_loop_lag_seconds_count"]
    assert sorted(lag) == [(("process", "1"),), (("process", "2"),)]


def test_a_merged_scrape_is_valid_openmetrics_and_skips_what_it_cannot_read() -> None:
    accept = "application/openmetrics-text; version=1.0.0"
    text, content_type = metrics.merged_exposition(accept, 1, [(2, b""), (3, b"\xc1 not it")])
    assert content_type.startswith("application/openmetrics-text")
    assert text.endswith(b"# EOF\n")
    assert b'process="2"' not in text and b'process="3"' not in text


def test_records_of_a_serving_process_name_it() -> None:
    handler = logging.StreamHandler()
    logger = logging.getLogger()
    kept = logger.handlers[:]  # pytest's own, which must stay as they are
    logger.handlers = [handler]
    try:
        tag_process(2, "text")
        tag_process(2, "text")  # once is enough: no second tag
        assert handler.formatter is not None
        assert handler.formatter._fmt == PROCESS_TEXT_FORMAT
        assert len(handler.filters) == 1
        record = logging.makeLogRecord({"name": "corpus_mcp.x", "msg": "hello", "levelno": 20})
        handler.filter(record)
        assert handler.format(record).endswith("corpus_mcp.x [process 2]: hello")
        assert '"process": 2' in JsonFormatter().format(record)
    finally:
        logger.handlers = kept
