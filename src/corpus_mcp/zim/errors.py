"""Errors of the ZIM service and the one path rule every part of it shares."""

from __future__ import annotations


class ZimError(Exception):
    """Base of every error this package raises; ``reason`` is safe to show an operator."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ZimOpenError(ZimError):
    """The archive could not be opened (missing, unreadable, corrupt)."""


class EntryNotFound(ZimError):
    """No entry at that path."""


class RedirectError(ZimError):
    """A redirect chain loops or is deeper than the reader's hop limit."""


class ArchiveUnavailable(ZimError):
    """A library's archive file changed or went away under the server.

    Its reader is retired (never touched again) and the library is left out until a
    sound file is back at its path. ``reason`` names what happened ("archive file
    truncated", "... deleted"...) and never a path, so an agent may be told it.
    """

    def __init__(self, library: str, reason: str) -> None:
        super().__init__(reason)
        self.library = library

    def __str__(self) -> str:
        return f"library {self.library!r} is unavailable: {self.reason}"


def normalise_path(raw: str) -> str:
    """The stable, scheme-independent form of a stored entry path: the old scheme's
    ``A/`` namespace and the 2018-era ``.html`` suffix stripped."""
    if raw.startswith("A/"):
        raw = raw[2:]
        if raw.endswith(".html"):
            raw = raw[:-5]
    return raw
