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


def normalise_path(raw: str) -> str:
    """The stable, scheme-independent form of a stored entry path: the old scheme's
    ``A/`` namespace and the 2018-era ``.html`` suffix stripped."""
    if raw.startswith("A/"):
        raw = raw[2:]
        if raw.endswith(".html"):
            raw = raw[:-5]
    return raw
