"""The two tools as an agent sees them: names, titles, descriptions, schemas, annotations.

The input schemas come from the msgspec argument Structs below and the output schemas
from :mod:`corpus_mcp.wire`, so what is advertised and what is validated or returned
cannot drift apart. The descriptions are the only manual the agent gets: they explain
the search -> fetch workflow, that refs are opaque, and what each error code asks the
agent to do next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import mcp_types as types
import msgspec

from corpus_mcp.ranking import MAX_QUERY_CHARS
from corpus_mcp.refs import MAX_REF_CHARS
from corpus_mcp.wire import FetchOutput, SearchOutput

SEARCH = "search"
FETCH = "fetch"
TOOL_NAMES = (SEARCH, FETCH)

MAX_SECTIONS = 64
MAX_SECTION_ID_CHARS = 512

Query = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description=(
            "What you are looking for: keywords or a short natural-language question, "
            "e.g. 'python asyncio cancel task' or 'symptoms of scurvy'."
        ),
    ),
]
Limit = Annotated[int, msgspec.Meta(ge=1)]
Ref = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_REF_CHARS,
        description="A `ref` exactly as returned by `search` (or by a previous `fetch`).",
    ),
]
SectionId = Annotated[str, msgspec.Meta(max_length=MAX_SECTION_ID_CHARS)]
SectionIds = Annotated[
    list[SectionId],
    msgspec.Meta(
        max_length=MAX_SECTIONS,
        description=(
            "Section ids to return, from `relevant_sections` of a search result or "
            "`available_sections` of a fetch. Omit (or pass []) for the whole document."
        ),
    ),
]


class SearchArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``search``; ``limit`` is UNSET when the agent left it out.

    UNSET rather than None keeps ``null`` out of the schema and rejects it on input.
    """

    query: Query
    limit: Limit | msgspec.UnsetType = msgspec.UNSET


class FetchArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``fetch``; ``sections`` is UNSET when the agent left it out."""

    ref: Ref
    sections: SectionIds | msgspec.UnsetType = msgspec.UNSET


ERROR_HELP = """\
Errors come back as a result with isError=true whose text is a JSON object \
{"error": CODE, "message": ...}: read the message, it says what to do.
- invalid_arguments: an argument is missing, of the wrong type or too long; fix it and retry.
- invalid_ref: the ref is malformed or names a library this server does not serve; use a \
ref from a search result, unchanged.
- not_found: there is no document at that ref (or it is not a document); search again.
- section_not_found: a section id is not in this document; retry with ids from \
`relevant_sections` or `available_sections`, or without `sections`.
- library_unavailable: that library's archive is being replaced or was damaged on the \
server; retry after `retry_after` seconds, or use results from the other libraries.
- busy: the server is overloaded and did not search; retry after `retry_after` seconds.
- internal_error: the server failed; retry once, then try a different query or ref."""


def _search_description(libraries: Sequence[str], default_limit: int, max_limit: int) -> str:
    served = ", ".join(libraries) if libraries else "none"
    return f"""\
Search offline reference libraries (encyclopedia articles, software documentation, \
Q&A threads) and get the best matching documents. Libraries served: {served}.

Use this FIRST. Each result has a `ref`, the `library` and `kind` of the document, its \
`title`, a `snippet`, and `relevant_sections` (id and title of the sections that best \
match the query). Then call `fetch` with the `ref`, and with `sections` set to one or \
more of those ids to read only the relevant parts (cheaper), or without `sections` to \
read the whole document.

`limit` defaults to {default_limit}; values above {max_limit} are lowered to {max_limit}. \
`partial: true` means some libraries did not answer (too slow, or temporarily \
unavailable) and are listed in `unavailable_libraries`; the results from the others are \
still valid. If nothing \
relevant comes back, rephrase with different or fewer keywords.

{ERROR_HELP}"""


def _fetch_description(max_fetch_chars: int) -> str:
    return f"""\
Read a document found by `search`, as Markdown split into sections.

`ref` must be a ref returned by `search` (or by `fetch`), passed back exactly as it \
was: refs are opaque identifiers, do not build or edit them. Give `sections` (ids \
from a search result's `relevant_sections` or from `available_sections`) to get only \
those sections; leave it out to get the whole document.

The answer has `sections` (id, title, level, content), `available_sections` (every \
section of the document, so you can ask for more later) and `truncated`: true when the \
content was cut to fit the budget of {max_fetch_chars} characters; then fetch the \
remaining sections by id.

{ERROR_HELP}"""


def _object_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON schema of ``struct`` with the root inlined.

    msgspec puts the root behind ``$ref``; MCP clients of the handshake era require
    ``"type": "object"`` at the top level.
    """
    schema = msgspec.json.schema(struct)
    definitions: dict[str, Any] = schema.pop("$defs", {})
    root: dict[str, Any] = definitions.pop(schema["$ref"].rsplit("/", 1)[-1])
    root.pop("title", None)
    root.pop("description", None)  # the Struct's docstring is for developers
    if definitions:
        root["$defs"] = definitions
    return root


def search_input_schema(default_limit: int, max_limit: int) -> dict[str, Any]:
    """``SearchArgs``' schema, with the server's default and maximum limit spelled out."""
    schema = _object_schema(SearchArgs)
    schema["properties"]["limit"].update(
        default=default_limit,
        description=(
            f"How many results to return (default {default_limit}; "
            f"values above {max_limit} are lowered to {max_limit})."
        ),
    )
    return schema


def fetch_input_schema() -> dict[str, Any]:
    """``FetchArgs``' schema."""
    return _object_schema(FetchArgs)


def _annotations(title: str) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        title=title,
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    )


def build_tools(
    libraries: Sequence[str], *, default_limit: int, max_limit: int, max_fetch_chars: int
) -> list[types.Tool]:
    """The two tool definitions ``tools/list`` answers, for this corpus and settings."""
    search_title = "Search the offline libraries"
    fetch_title = "Read a document or some of its sections"
    return [
        types.Tool(
            name=SEARCH,
            title=search_title,
            description=_search_description(libraries, default_limit, max_limit),
            input_schema=search_input_schema(default_limit, max_limit),
            output_schema=_object_schema(SearchOutput),
            annotations=_annotations(search_title),
        ),
        types.Tool(
            name=FETCH,
            title=fetch_title,
            description=_fetch_description(max_fetch_chars),
            input_schema=fetch_input_schema(),
            output_schema=_object_schema(FetchOutput),
            annotations=_annotations(fetch_title),
        ),
    ]
