"""The two tools in a terminal: ``corpus-mcp search`` and ``corpus-mcp fetch``.

They open the corpus as ``serve`` does and call the tools through
:meth:`corpus_mcp.server.ToolHandlers.run`, the code path of every MCP call, so the
argument validation, the output and the error payloads are the agent's. ``--json``
prints the tool's JSON exactly (the text an MCP client gets); otherwise search prints
a table with the snippets and section hints below it, and fetch prints the document
as Markdown with each section's id, the id ``--section`` takes.

Exit codes: 0 ok (an empty search too), 1 the tool answered with an error (the
message goes to stderr; with ``--json`` the error payload also goes to stdout) or the
corpus cannot be opened, 2 invalid settings, manifest or usage.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

import msgspec
import trio

from corpus_mcp.config import Manifest, Settings
from corpus_mcp.console import render_table, shorten
from corpus_mcp.corpus import open_corpus
from corpus_mcp.logs import configure_logging
from corpus_mcp.server import ToolError, ToolHandlers
from corpus_mcp.wire import FetchOutput, SearchOutput
from corpus_mcp.zim import OpenFailure

EXIT_OK = 0
EXIT_FAILED = 1

TITLE_COLUMN_CHARS = 60
"""Titles longer than this are shortened in the search table (the blocks below have
them whole)."""


@dataclass(frozen=True)
class Answer:
    """A tool's answer: its output, or the error payload an agent would get."""

    output: SearchOutput | FetchOutput | None = None
    error: dict[str, Any] | None = None


async def call_tool(
    settings: Settings, manifest: Manifest, tool: str, arguments: Mapping[str, Any]
) -> Answer:
    """Open the corpus, make one tool call as an MCP client would, close the corpus."""
    async with open_corpus(settings, manifest) as corpus:
        handlers = ToolHandlers(corpus, settings)
        try:
            output = await handlers.run(tool, arguments)
        except ToolError as exc:
            return Answer(error=exc.payload)
    return Answer(output=output)


def tool_json(value: msgspec.Struct | dict[str, Any]) -> str:
    """The JSON text an MCP client gets for this output or error payload."""
    return msgspec.json.encode(msgspec.to_builtins(value)).decode()


def render_search(output: SearchOutput) -> str:
    """A results table, then each result's ref, snippet and section hints."""
    if not output.results:
        lines = [f"no results for {output.query!r}; try fewer or different words"]
    else:
        rows = [
            [
                str(rank),
                shorten(result.title, TITLE_COLUMN_CHARS),
                result.library,
                result.kind,
                result.snapshot or "-",
            ]
            for rank, result in enumerate(output.results, start=1)
        ]
        headers = ["#", "title", "library", "kind", "snapshot"]
        lines = [render_table(headers, rows)]
        for rank, result in enumerate(output.results, start=1):
            lines += ["", f"[{rank}] {result.ref}", f"    {result.snippet}"]
            if result.relevant_sections:
                hints = ", ".join(f"{_typed(s.id)} ({s.title})" for s in result.relevant_sections)
                lines.append(f"    sections: {hints}")
    if output.partial:
        lines += ["", f"partial: no answer from {', '.join(output.unavailable_libraries)}"]
    return "\n".join(lines)


def _metadata_line(metadata: Mapping[str, object]) -> str:
    def shown(value: object) -> str:
        if isinstance(value, list):
            return ", ".join(map(str, value))
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    return "*" + " · ".join(f"{key}: {shown(value)}" for key, value in metadata.items()) + "*"


def _typed(section_id: str) -> str:
    """A section id as one types it after ``--section``: the lead's, empty, quoted."""
    return section_id or '""'


def render_fetch(output: FetchOutput) -> str:
    """The document as Markdown: a title, where it comes from, then its sections.

    Headings carry the section id as ``{#id}``; the lead section (id ``""``) has none,
    and the list of other sections names it ``""``, as ``--section ""`` asks for it.
    """
    snapshot = f" · snapshot {output.snapshot}" if output.snapshot else ""
    lines = [f"# {output.title}", "", f"{output.ref} · {output.library} · {output.kind}{snapshot}"]
    if isinstance(output.source_url, str):
        lines.append(f"source: {output.source_url}")
    for section in output.sections:
        lines.append("")
        if section.id or section.title:
            marker = f" {{#{section.id}}}" if section.id else ""
            lines += [f"{'#' * max(section.level, 2)} {section.title}{marker}", ""]
        if section.metadata:
            lines += [_metadata_line(section.metadata), ""]
        lines.append(section.content)
    returned = {section.id for section in output.sections}
    others = [section for section in output.available_sections if section.id not in returned]
    if others:
        lines += ["", "---", "other sections (--section ID):"]
        lines += [
            f"- {'  ' * max(s.level - 2, 0)}{_typed(s.id)} ({s.title})"
            + (f" {s.chars:,} chars, left out for size" if s.chars else "")
            + (f" +{s.unlisted} under it" if s.unlisted else "")
            for s in others
        ]
    return "\n".join(lines)


def run_tool_command(
    settings: Settings,
    manifest: Manifest,
    tool: str,
    arguments: Mapping[str, Any],
    *,
    as_json: bool,
    verbose: bool,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """``corpus-mcp search|fetch``: one call, printed; the exit code."""
    configure_logging(settings.log_level if verbose else "warning", settings.log_format)
    try:
        answer = trio.run(call_tool, settings, manifest, tool, arguments)
    except OpenFailure as exc:
        print(f"corpus-mcp {tool}: {exc}", file=err)
        return EXIT_FAILED
    if answer.error is not None:
        if as_json:
            print(tool_json(answer.error), file=out)
        print(f"corpus-mcp {tool}: {answer.error['error']}: {answer.error['message']}", file=err)
        return EXIT_FAILED
    assert answer.output is not None
    if as_json:
        print(tool_json(answer.output), file=out)
    elif isinstance(answer.output, SearchOutput):
        print(render_search(answer.output), file=out)
    else:
        print(render_fetch(answer.output), file=out)
    return EXIT_OK


def search_arguments(query: str, limit: int | None) -> dict[str, Any]:
    """The ``search`` tool's arguments from the command line (no limit: the default)."""
    return {"query": query} | ({} if limit is None else {"limit": limit})


def fetch_arguments(ref: str, sections: list[str] | None) -> dict[str, Any]:
    """The ``fetch`` tool's arguments from the command line (no --section: all)."""
    return {"ref": ref} | ({} if sections is None else {"sections": sections})
