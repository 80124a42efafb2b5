"""Golden Markdown for adapter tests: one rendering of a Document, one comparison.

A golden file shows everything an agent could get from a document: its header, then
each section with its id, level, anchors, role (unless plain text) and metadata, then its
content. ``UPDATE_GOLDEN=1 pytest tests/test_adapter_<family>.py`` rewrites the files;
read the diff as an agent would before committing it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from corpus_mcp.document import Document, walk

GOLDEN = Path(__file__).parent / "golden"

#: Raw HTML that must never reach an agent (an escaped ``\\<`` is text).
RAW_TAG = re.compile(r"(?<!\\)</?[a-z][a-z0-9-]*[ />]")


def without_code(markdown: str) -> str:
    """Markdown minus fenced blocks and code spans, where ``<int>`` is legitimate."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"(?ms)^```.*?^```", "", markdown))


def render(document: Document) -> str:
    """The whole document as one stable text."""
    lines = [f"# {document.title}", "", f"document: path={document.path} kind={document.kind}"]
    lines += [f"document.{key}: {value}" for key, value in sorted(document.metadata.items())]
    for section in walk(document.sections):
        details = [f"id={section.id!r}", f"level={section.level}"]
        if section.anchors:
            details.append(f"anchors={','.join(section.anchors)}")
        if section.role != "text":
            details.append(section.role)
        lines += ["", f"{'#' * (section.level + 1)} {section.title}".rstrip(), ""]
        lines.append("section: " + " ".join(details))
        lines += [f"meta.{key}: {value}" for key, value in (section.metadata or {}).items()]
        if section.content:
            lines += ["", section.content]
    return "\n".join(lines).rstrip() + "\n"


def check_golden(name: str, document: Document) -> None:
    """``document`` rendered must equal ``golden/<name>`` (rewritten with UPDATE_GOLDEN=1)."""
    path = GOLDEN / name
    text = render(document)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
