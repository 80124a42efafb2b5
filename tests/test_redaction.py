"""What logs may say about a failure: everything with LOG_QUERIES on, no message off."""

from __future__ import annotations

import logging

import pytest

from corpus_mcp.redaction import WITHHELD, describe, log_failure
from corpus_mcp.zim import ZimError

SECRET = "A/Ray_Charles"


def _lookup() -> None:
    raise KeyError(SECRET)


def _read() -> None:
    try:
        _lookup()
    except KeyError as cause:
        raise ZimError(f"reading {SECRET!r} failed: cluster") from cause


def _failure() -> Exception:
    """A chained failure whose every message names the document, as real ones do."""
    try:
        _read()
    except ZimError as exc:
        return exc
    raise AssertionError("_read always fails")


def test_describe_gives_the_reason_or_only_the_type() -> None:
    failure = _failure()
    assert describe(failure, log_queries=True) == f"reading {SECRET!r} failed: cluster"
    assert describe(ValueError("bad 'x'"), log_queries=True) == "ValueError: bad 'x'"
    assert describe(failure, log_queries=False) == f"ZimError ({WITHHELD})"


def test_log_failure_keeps_the_traceback_when_queries_may_be_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log_failure(logging.getLogger("test.redaction"), _failure(), True, "tool=%s failed", "fetch")
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
    assert SECRET in caplog.text


def test_log_failure_withholds_every_message_of_the_chain(
    caplog: pytest.LogCaptureFixture,
) -> None:
    group = ExceptionGroup("two", [_failure(), RuntimeError(f"again {SECRET}")])
    for failure in (_failure(), group):
        log_failure(logging.getLogger("test.redaction"), failure, False, "tool=%s failed", "x")
    assert SECRET not in caplog.text
    assert all(record.exc_info is None for record in caplog.records)
    text = caplog.text
    assert "Traceback (most recent call last)" in text  # where it failed stays known
    assert f"KeyError ({WITHHELD})" in text
    assert f"corpus_mcp.zim.errors.ZimError ({WITHHELD})" in text
    assert "direct cause of the following exception" in text
    assert f"RuntimeError ({WITHHELD})" in text  # inside the group
