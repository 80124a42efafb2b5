"""Strict validation of tool arguments: the single place where agent input is checked.

The low-level MCP server does not validate ``arguments`` against the input schema, so
every call goes through here before the corpus sees it. msgspec checks the shape
(unknown keys, types, required fields, the schema's bounds; ``true`` is not an int);
the semantic rules the schema cannot express follow. Every failure is a
``CorpusError("invalid_arguments")`` whose message names the field and shows a
correct call, because its reader is an agent that will retry.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from corpus_mcp.config import Settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.ranking import MAX_QUERY_CHARS, normalise_query
from corpus_mcp.server.tools import FetchArgs, SearchArgs

_SEARCH_EXAMPLE = '{"query": "how to cancel a task in trio", "limit": 5}'
_FETCH_EXAMPLE = '{"ref": "<a ref from search, unchanged>", "sections": ["<section id>"]}'

ArgsT = TypeVar("ArgsT", SearchArgs, FetchArgs)


class SearchRequest(msgspec.Struct, frozen=True):
    """Validated ``search`` arguments, ready for ``Corpus.search``."""

    query: str
    limit: int


class FetchRequest(msgspec.Struct, frozen=True):
    """Validated ``fetch`` arguments, ready for ``Corpus.fetch``."""

    ref: str
    sections: list[str] | None


def _invalid(tool: str, problem: str, example: str) -> CorpusError:
    return CorpusError(
        "invalid_arguments", f"Invalid arguments for {tool}: {problem}. Example: {example}"
    )


def _convert(
    tool: str, arguments: Mapping[str, Any] | None, shape: type[ArgsT], example: str
) -> ArgsT:
    """``arguments`` as the tool's argument Struct, or ``invalid_arguments``."""
    try:
        return msgspec.convert(dict(arguments or {}), shape)
    except msgspec.ValidationError as exc:
        raise _invalid(tool, str(exc), example) from None


def validate_search(arguments: Mapping[str, Any] | None, settings: Settings) -> SearchRequest:
    """Check ``search`` arguments; a limit above ``search_max_limit`` is lowered to it."""
    args = _convert("search", arguments, SearchArgs, _SEARCH_EXAMPLE)
    # The corpus's own normalisation (control and format characters out, NFKC, whitespace
    # collapsed), without its length cut: an overlong query is an error, not a surprise.
    # The schema bounds the raw text; NFKC can make it longer (a ligature or an Arabic
    # honorific becomes several letters), so the normalised text is checked again.
    query = normalise_query(args.query, max_chars=sys.maxsize)
    if not query:
        raise _invalid("search", "`query` is empty; give some keywords", _SEARCH_EXAMPLE)
    if len(query) > MAX_QUERY_CHARS:
        raise _invalid(
            "search",
            f"`query` has {len(query)} characters once Unicode-normalised (NFKC), more "
            f"than {MAX_QUERY_CHARS}; use a few keywords instead of a passage",
            _SEARCH_EXAMPLE,
        )
    limit = settings.search_limit if args.limit is msgspec.UNSET else args.limit
    return SearchRequest(query=query, limit=min(limit, settings.search_max_limit))


def validate_fetch(arguments: Mapping[str, Any] | None) -> FetchRequest:
    """Check ``fetch`` arguments; an empty ``sections`` list means the whole document.

    Whether the ref is well formed and exists is the corpus's to say.
    """
    args = _convert("fetch", arguments, FetchArgs, _FETCH_EXAMPLE)
    sections = None if args.sections is msgspec.UNSET or not args.sections else args.sections
    return FetchRequest(ref=args.ref, sections=sections)
