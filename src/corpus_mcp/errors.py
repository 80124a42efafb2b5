"""Domain errors: what an agent can get wrong, or must wait out, as structured tool results."""

from __future__ import annotations

from typing import Any, Literal

ErrorCode = Literal[
    "invalid_ref",
    "not_found",
    "section_not_found",
    "invalid_arguments",
    "library_unavailable",
    "busy",
]


class CorpusError(Exception):
    """A bad input from the agent, or what it can retry: a library it cannot use for now
    (``library_unavailable``), an overloaded server (``busy``). ``payload()`` is the JSON
    the tool returns.

    Messages say what was wrong and what to do instead; they never carry file paths,
    tracebacks or libzim wording.
    """

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = details

    def payload(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}
