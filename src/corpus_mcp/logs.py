"""Log records on stderr, as text for people or as JSON for log shippers (``LOG_FORMAT``).

Text is one line per record: ``time LEVEL logger: message``. JSON is one object per line
with ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message`` (the same words as
the text line), plus the fields a record carries in ``extra={"fields": {...}}``, such as
a tool call's tool, outcome, duration and counts, so a shipper can index them without
parsing the message. Both formats say exactly the same things: ``LOG_QUERIES=false``
is applied where a record is made (the call fields hold no query or ref then, failures
are described by :mod:`corpus_mcp.redaction`), never by a formatter.

stdout stays free for the stdio transport's protocol and the CLI's answers.

With several serving processes (``WORKERS``) every record of a serving process names it:
``time LEVEL logger [process 2]: message`` as text, a ``process`` field in JSON
(:func:`tag_process`); the supervisor's records carry no process.
"""

from __future__ import annotations

import faulthandler
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Final

from corpus_mcp.config import LogFormat

FIELDS: Final = "fields"
"""The ``extra`` key whose mapping a JSON record carries as fields of its own."""
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
PROCESS_TEXT_FORMAT: Final = (
    "%(asctime)s %(levelname)s %(name)s [process %(process_number)s]: %(message)s"
)
PROCESS: Final = "process_number"
"""The record attribute naming the serving process a record comes from (set by
:func:`tag_process`)."""
_BASE_KEYS: Final = ("time", "level", "logger", "message", "process")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (newlines inside values are escaped)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        process = getattr(record, PROCESS, None)
        if process is not None:
            entry["process"] = process
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict):
            # A field never replaces one of the four every record has.
            entry.update((k, v) for k, v in fields.items() if k not in _BASE_KEYS)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    """Records at ``level`` and above to stderr in ``log_format``, unless logging is
    already set up (a host program, or pytest's capture)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    logging.basicConfig(level=level.upper(), handlers=[handler])


def report_fatal_signals() -> None:
    """From now on a fatal signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL: a crash in
    native code, libzim's or Xapian's) first writes the Python stack of every thread to
    the log's stream, then kills the process as it would have (a core dump where the
    limits allow one). The lines are plain text whatever LOG_FORMAT says: they are
    written from the signal handler, where nothing can be formatted.

    Called by every serving process (and stdio, and the supervisor) once its logging is
    set up; again in a forked process, it only points the reports at its stream.
    """
    try:
        faulthandler.enable(file=sys.stderr, all_threads=True)
    except (AttributeError, ValueError, OSError):  # a stderr without a descriptor
        faulthandler.enable(file=2, all_threads=True)


class _ProcessTag(logging.Filter):
    """Names the serving process on every record a handler writes."""

    def __init__(self, process: int) -> None:
        super().__init__()
        self.process = process

    def filter(self, record: logging.LogRecord) -> bool:
        setattr(record, PROCESS, self.process)
        return True


def tag_process(process: int, log_format: LogFormat) -> None:
    """From now on, every record this process writes names it as serving ``process``
    (the handlers were set up by the supervisor it was forked from)."""
    for handler in logging.getLogger().handlers:
        handler.filters = [f for f in handler.filters if not isinstance(f, _ProcessTag)]
        handler.addFilter(_ProcessTag(process))
        if log_format == "text":
            handler.setFormatter(logging.Formatter(PROCESS_TEXT_FORMAT))


def report_startup_failure(message: str, log_format: LogFormat) -> None:
    """The one line saying why a server could not start, in the log's format, on stderr
    (printed directly: logging may not be set up, and it must appear whatever the level)."""
    if log_format == "json":
        record = logging.makeLogRecord(
            {
                "name": "corpus_mcp",
                "levelno": logging.CRITICAL,
                "levelname": "CRITICAL",
                "msg": message,
            }
        )
        message = JsonFormatter().format(record)
    print(message, file=sys.stderr)
