"""``LOG_FORMAT``: JSON records from a real server, ``LOG_QUERIES=false`` honoured in them,
and the formatter's guarantees (one line, the four keys kept, exceptions included)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from corpus_mcp.logs import FIELDS, JsonFormatter, report_startup_failure

from .server_process import CORPUS_MCP, free_port, running_server, server_environment
from .test_server_stdio import call

FAULT_SERVER = Path(__file__).with_name("fault_server.py")
QUERY = "C3 linearization zebra"
REF = "corpus://Wikipedia/C3_linearization"
BASE_KEYS = {"time", "level", "logger", "message"}


def _records(stderr: str) -> list[dict[str, Any]]:
    """Every line of a JSON log, parsed (a line that is not one object fails the test)."""
    records = []
    for line in stderr.splitlines():
        record = json.loads(line)
        assert isinstance(record, dict), line
        assert set(record) >= BASE_KEYS, line
        records.append(record)
    return records


def _serve_three_calls(manifest: Path, log: Path, env: dict[str, str], argv: list[str]) -> str:
    """A search, a fetch and a fetch of an unknown library; the server's whole stderr."""
    with running_server(manifest, log, env=env, argv=argv) as server:
        headers = {"accept": "application/json", "content-type": "application/json"}
        base = f"http://127.0.0.1:{server.port}"
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            http.post("/mcp", json=call(1, "search", {"query": QUERY, "limit": 3}))
            http.post("/mcp", json=call(2, "fetch", {"ref": REF}))
            http.post("/mcp", json=call(3, "fetch", {"ref": "corpus://nolib/Zebra"}))
        assert server.stop() == 0
    return server.stderr


@pytest.mark.parametrize("log_queries", [False, True])
def test_json_records_carry_the_call_fields_as_log_queries_allows(
    wikipedia_only: Path, tmp_path: Path, log_queries: bool
) -> None:
    env = {"LOG_FORMAT": "json", "LOG_QUERIES": str(log_queries).lower()}
    stderr = _serve_three_calls(
        wikipedia_only, tmp_path / "stderr.log", env, [str(CORPUS_MCP), "serve"]
    )
    records = _records(stderr)
    calls = [record for record in records if "tool" in record]
    assert [(c["tool"], c["outcome"]) for c in calls] == [
        ("search", "ok"),
        ("fetch", "ok"),
        ("fetch", "invalid_ref"),
    ]
    search, fetch, refused = calls
    assert search["logger"] == "corpus_mcp.server"
    assert search["level"] == "INFO"
    assert search["message"].startswith("tool=search outcome=ok ms=")
    assert isinstance(search["ms"], float)
    assert (search["limit"], search["unavailable"]) == (3, 0)
    assert search["results"] >= 1
    assert fetch["library"] == "Wikipedia"
    assert records[-1]["message"] == "stopped"
    assert records[0]["time"].endswith("+00:00")
    if log_queries:
        assert search["query"] == QUERY
        assert fetch["ref"] == REF
    else:
        assert "query" not in search
        assert "ref" not in fetch and "ref" not in refused
        for secret in ("zebra", "C3_linearization", "nolib/Zebra"):
            assert secret not in stderr


def test_json_records_of_internal_errors_keep_queries_out(
    wikipedia_only: Path, tmp_path: Path
) -> None:
    env = {"LOG_FORMAT": "json", "LOG_QUERIES": "false"}
    argv = [sys.executable, str(FAULT_SERVER)]  # reading any document's bytes fails
    stderr = _serve_three_calls(wikipedia_only, tmp_path / "stderr.log", env, argv)
    records = _records(stderr)
    [failure] = [r for r in records if r["level"] == "ERROR"]
    assert failure["message"].startswith("tool=fetch failed")
    assert "ZimError (details withheld: LOG_QUERIES=false)" in failure["message"]
    assert "exception" not in failure  # the redacted traceback is the message
    for secret in ("zebra", "C3_linearization", "linearization"):
        assert secret not in stderr


def test_a_startup_failure_is_one_json_record(unopenable_corpus: Path, tmp_path: Path) -> None:
    env = server_environment(unopenable_corpus, free_port(), LOG_FORMAT="json")
    command = [str(CORPUS_MCP), "serve"]
    result = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 1
    records = _records(result.stderr)
    assert records[-1]["level"] == "CRITICAL"
    assert records[-1]["message"].startswith(
        "corpus-mcp: cannot open the corpus: library 'brokenlib'"
    )


def test_the_text_format_is_the_default(wikipedia_only: Path, tmp_path: Path) -> None:
    stderr = _serve_three_calls(
        wikipedia_only, tmp_path / "stderr.log", {}, [str(CORPUS_MCP), "serve"]
    )
    [line] = [line for line in stderr.splitlines() if "tool=search" in line]
    assert " INFO corpus_mcp.server: tool=search outcome=ok ms=" in line
    assert not line.startswith("{")


# -- the formatter ----------------------------------------------------------------------


def _record(message: str, **extra: Any) -> logging.LogRecord:
    return logging.makeLogRecord(
        {"name": "corpus_mcp.test", "levelno": 20, "levelname": "INFO", "msg": message, **extra}
    )


def test_fields_never_replace_the_four_keys_and_values_stay_on_one_line() -> None:
    fields = {"message": "forged", "level": "DEBUG", "tool": "search", "note": "two\nlines"}
    line = JsonFormatter().format(_record("first\nsecond", **{FIELDS: fields}))
    assert "\n" not in line
    record = json.loads(line)
    assert (record["message"], record["level"]) == ("first\nsecond", "INFO")
    assert (record["tool"], record["note"]) == ("search", "two\nlines")


def _boom() -> None:
    raise ValueError("boom")


def test_an_exception_is_carried_as_its_formatted_traceback() -> None:
    try:
        _boom()
    except ValueError:
        exc_info = sys.exc_info()
    record = json.loads(JsonFormatter().format(_record("failed", exc_info=exc_info)))
    assert record["exception"].startswith("Traceback (most recent call last):")
    assert record["exception"].endswith("ValueError: boom")


def test_a_startup_failure_is_printed_in_the_log_format(capsys: pytest.CaptureFixture[str]) -> None:
    report_startup_failure("corpus-mcp: cannot listen", "text")
    report_startup_failure("corpus-mcp: cannot listen", "json")
    text, structured = capsys.readouterr().err.splitlines()
    assert text == "corpus-mcp: cannot listen"
    record = json.loads(structured)
    assert (record["level"], record["logger"]) == ("CRITICAL", "corpus_mcp")
    assert record["message"] == "corpus-mcp: cannot listen"
