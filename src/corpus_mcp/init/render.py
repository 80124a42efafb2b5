"""The manifest ``init`` writes: TOML with a comment over each library (pure).

The comment says what the archive is (title, language, snapshot, size, entries,
whether it has a full-text index, the scraper) so the operator can edit names and
choose what to enable without opening anything; the header says which CORPUS_ROOT
the paths are relative to and how to serve the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from corpus_mcp.console import human_size
from corpus_mcp.families import LABELS
from corpus_mcp.init.plan import Entry
from corpus_mcp.init.sources import Skipped

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (control characters escaped, Unicode kept)."""
    escaped = "".join(
        _TOML_ESCAPES.get(char) or (f"\\u{ord(char):04x}" if _CONTROL.match(char) else char)
        for char in text
    )
    return f'"{escaped}"'


def _comment_text(text: str) -> str:
    """``text`` safe on a comment line: no line breaks or other control characters."""
    return " ".join(_CONTROL.sub(" ", text).split())


def describe(entry: Entry) -> list[str]:
    """The comment lines over one library."""
    info = entry.info
    facts = [
        info.language or "language unknown",
        f"snapshot {info.snapshot or 'unknown'}",
        human_size(info.size),
        f"{info.entry_count:,} entries",
        f"full-text index: {'yes' if info.has_fulltext_index else 'no'}",
    ]
    lines = [f"{info.title} ({', '.join(facts)})"]
    lines.append(f"scraper: {info.scraper or 'unknown'}; Name: {info.name or 'none'}")
    lines.append(
        f"family: {LABELS[info.family]}, recognised from {info.family_evidence}; "
        f"adapter {entry.adapter}"
        if info.family != "html"
        else f"family: other HTML, {info.family_evidence}; adapter {entry.adapter}"
    )
    if entry.disabled_because:
        lines.append(f"disabled: {entry.disabled_because}")
    return ["# " + _comment_text(line) for line in lines]


def render_manifest(
    entries: Sequence[Entry], skipped: Sequence[Skipped], *, root: Path, origin: str
) -> str:
    """The whole ``corpus.toml``: header, every library, what was left out."""
    enabled = sum(entry.enabled for entry in entries)
    header = [
        f"corpus-mcp library manifest, written by `corpus-mcp init` from the {origin}.",
        f"{len(entries)} libraries, {enabled} enabled. Every path is relative to CORPUS_ROOT,",
        f"which must be {root}",
        "Edit freely: a name appears in refs (corpus://<name>/<path>); enabled = false keeps",
        "a library listed but never opened; `corpus-mcp validate` checks the result.",
    ]
    lines = ["# " + _comment_text(line) for line in header]
    if skipped:
        lines += ["#", "# Left out:"]
        lines += ["#   " + _comment_text(f"{s.path}: {s.reason}") for s in skipped]
    lines += ["", "version = 1"]
    for entry in entries:
        lines += ["", *describe(entry), "[[library]]"]
        lines += [
            f"name = {toml_string(entry.name)}",
            f"path = {toml_string(entry.path)}",
            f"adapter = {toml_string(entry.adapter)}",
            f"enabled = {'true' if entry.enabled else 'false'}",
        ]
    return "\n".join(lines) + "\n"
