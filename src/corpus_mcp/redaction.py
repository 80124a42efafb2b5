"""What a log line may say about a failure, as ``LOG_QUERIES`` allows.

Exception messages routinely carry what an agent asked: libzim and adapter errors name
the document path (``reading 'A/Ray_Charles' failed: ...``), a ``KeyError`` is the key
itself, a parse error quotes the query. With ``LOG_QUERIES=false`` a failure is
therefore logged by its type and its code location only; the traceback's frames stay,
since they show source lines, never run-time values.
"""

from __future__ import annotations

import logging
import traceback

WITHHELD = "details withheld: LOG_QUERIES=false"


def describe(exc: BaseException, *, log_queries: bool) -> str:
    """One line saying what failed: the operator-facing reason where the error has one."""
    if not log_queries:
        return f"{type(exc).__name__} ({WITHHELD})"
    reason = getattr(exc, "reason", None)
    return str(reason) if reason else f"{type(exc).__name__}: {exc}"


def log_failure(
    logger: logging.Logger, exc: BaseException, log_queries: bool, message: str, *args: object
) -> None:
    """Log ``message`` at ERROR with the traceback of ``exc``, as ``LOG_QUERIES`` allows.

    With ``log_queries`` off, every exception's message line in the traceback (causes
    and groups included) is replaced by its type and :data:`WITHHELD`.
    """
    if log_queries:
        logger.error(message, *args, exc_info=exc)
    else:
        withheld = "".join(_withheld_lines(exc, set())).rstrip()
        logger.error(message + "\n%s", *args, withheld)


def _withheld_lines(exc: BaseException, seen: set[int]) -> list[str]:
    """``traceback.format_exception`` with messages withheld (cycles guarded)."""
    seen.add(id(exc))
    lines: list[str] = []
    if exc.__cause__ is not None and id(exc.__cause__) not in seen:
        lines += _withheld_lines(exc.__cause__, seen)
        lines.append("\nThe above exception was the direct cause of the following exception:\n\n")
    elif (
        exc.__context__ is not None
        and not exc.__suppress_context__
        and id(exc.__context__) not in seen
    ):
        lines += _withheld_lines(exc.__context__, seen)
        lines.append("\nDuring handling of the above exception, another exception occurred:\n\n")
    if exc.__traceback__ is not None:
        lines.append("Traceback (most recent call last):\n")
        lines += traceback.format_tb(exc.__traceback__)
    lines.append(f"{type(exc).__module__}.{type(exc).__qualname__} ({WITHHELD})\n")
    if isinstance(exc, BaseExceptionGroup):
        for number, inner in enumerate(exc.exceptions, start=1):
            lines.append(f"+-- sub-exception {number} --\n")
            lines += _withheld_lines(inner, seen)
    return lines
