"""The two tools as an agent sees them: names, titles, descriptions, schemas, annotations.

The input schemas come from the msgspec argument Structs below and the output schemas
from :mod:`corpus_mcp.wire`, so what is advertised and what is validated or returned
cannot drift apart. Every request of an agent carries this list, so it is kept small:
the descriptions say the search -> fetch workflow, that refs are passed as given, what a
fetch answer holds, and the error contract once, briefly (each error's message says what
to do next), and the schemas are exact but compact (:func:`_compact`): 2,999 characters
as sent (the JSON-RPC response) for the eleven libraries of the development kit, where
the list was 6,987 with every error code spelled out twice.
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
    ),
]
Limit = Annotated[int, msgspec.Meta(ge=1)]
Ref = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_REF_CHARS,
    ),
]
SectionId = Annotated[str, msgspec.Meta(max_length=MAX_SECTION_ID_CHARS)]
SectionIds = Annotated[
    list[SectionId],
    msgspec.Meta(
        max_length=MAX_SECTIONS,
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


ERROR_HELP = "Errors: isError, JSON {error, message}: do as it says."


def _search_description(libraries: Sequence[str], max_limit: int) -> str:
    served = ", ".join(libraries) if libraries else "none"
    return (
        f"Search offline libraries: {served}. Then `fetch` a result's `ref` with its "
        f"`relevant_sections` ids as `sections`. Under `limit` (max {max_limit}) results: "
        f"no other was close. {ERROR_HELP}"
    )


def _fetch_description(fetch_budget_chars: int) -> str:
    return (
        "A document as Markdown sections. `ref`: as given (`#anchor`: its section). "
        "`sections`: ids from search or `available_sections`; none: all. Up to "
        f"{fetch_budget_chars} chars in order; the rest listed with `chars`: fetch those "
        "next. Links are refs; `#id`: a section here. Errors: as search."
    )


def _object_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON schema of ``struct``, compacted (see :func:`_compact`) with its
    definitions inlined: the root is an object, as clients of the handshake era require."""
    schema = msgspec.json.schema(struct)
    definitions: dict[str, Any] = schema.pop("$defs", {})
    root: dict[str, Any] = _compact(_inline(schema, definitions))
    return root


def _inline(schema: Any, definitions: dict[str, Any]) -> Any:
    """``schema`` with every ``$ref`` replaced by the definition it names (the wire
    shapes have no recursion)."""
    if isinstance(schema, list):
        return [_inline(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if set(schema) == {"$ref"}:
        return _inline(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    return {key: _inline(value, definitions) for key, value in schema.items()}


def _compact(schema: Any) -> Any:
    """The same schema in fewer characters (every agent request carries the tool list):
    ``anyOf`` of types as one ``type`` list (their keywords merged: ``items`` applies to
    arrays only, ``additionalProperties`` to objects only); no struct titles or
    docstrings (they are for developers), no defaults (a field with a default is simply
    not required)."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "default"):
            continue
        if key == "description" and schema.get("type") == "object":
            continue
        if key == "properties":
            out[key] = {name: _compact(item) for name, item in value.items()}
        else:
            out[key] = _compact(value)
    variants = out.get("anyOf")
    if isinstance(variants, list) and _mergeable(variants):
        out.pop("anyOf")
        out["type"] = [v["type"] for v in variants]
        for variant in variants:
            out.update({k: v for k, v in variant.items() if k != "type"})
    return out


def _mergeable(variants: list[Any]) -> bool:
    """Whether ``anyOf`` variants can be one ``type`` list without changing what they
    accept: each names one type, and each keyword besides ``type`` applies to one type
    only and appears in one variant only."""
    scoped = {"items": "array", "additionalProperties": "object", "enum": None}
    seen: set[str] = set()
    for variant in variants:
        if not isinstance(variant, dict) or not isinstance(variant.get("type"), str):
            return False
        for key in variant:
            if key == "type":
                continue
            if scoped.get(key) != variant["type"] or key in seen:
                return False
            seen.add(key)
    return True


def search_input_schema(default_limit: int, max_limit: int) -> dict[str, Any]:
    """``SearchArgs``' schema, with the server's default and maximum limit spelled out."""
    schema = _object_schema(SearchArgs)
    schema["properties"]["limit"]["default"] = default_limit
    return schema


def fetch_input_schema() -> dict[str, Any]:
    """``FetchArgs``' schema."""
    return _object_schema(FetchArgs)


def _annotations() -> types.ToolAnnotations:
    # The tool's own title names it; the annotations say it only reads, from a closed
    # world. The destructive and idempotent hints mean something only for a tool that
    # writes (MCP: "meaningful only when readOnlyHint == false"): a reader leaves them out.
    return types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def build_tools(
    libraries: Sequence[str], *, default_limit: int, max_limit: int, fetch_budget_chars: int
) -> list[types.Tool]:
    """The two tool definitions ``tools/list`` answers, for this corpus and settings."""
    search_title = "Search libraries"
    fetch_title = "Read a document"
    return [
        types.Tool(
            name=SEARCH,
            title=search_title,
            description=_search_description(libraries, max_limit),
            input_schema=search_input_schema(default_limit, max_limit),
            output_schema=_object_schema(SearchOutput),
            annotations=_annotations(),
        ),
        types.Tool(
            name=FETCH,
            title=fetch_title,
            description=_fetch_description(fetch_budget_chars),
            input_schema=fetch_input_schema(),
            output_schema=_object_schema(FetchOutput),
            annotations=_annotations(),
        ),
    ]
