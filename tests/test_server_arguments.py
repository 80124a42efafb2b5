"""Argument validation of the two tools: every rejection is ``invalid_arguments``."""

from __future__ import annotations

from typing import Any

import pytest

from corpus_mcp.config import Settings, load_settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.ranking import MAX_QUERY_CHARS
from corpus_mcp.server.arguments import (
    FetchRequest,
    SearchRequest,
    validate_fetch,
    validate_search,
)


@pytest.fixture
def settings() -> Settings:
    return load_settings({"SEARCH_LIMIT": "5", "SEARCH_MAX_LIMIT": "10"})


def _search_error(arguments: Any, settings: Settings) -> str:
    with pytest.raises(CorpusError) as caught:
        validate_search(arguments, settings)
    assert caught.value.code == "invalid_arguments"
    return caught.value.message


def _fetch_error(arguments: Any) -> str:
    with pytest.raises(CorpusError) as caught:
        validate_fetch(arguments)
    assert caught.value.code == "invalid_arguments"
    return caught.value.message


def test_search_defaults_the_limit(settings: Settings) -> None:
    assert validate_search({"query": "trio"}, settings) == SearchRequest("trio", 5)


def test_search_keeps_a_limit_within_bounds(settings: Settings) -> None:
    assert validate_search({"query": "trio", "limit": 1}, settings).limit == 1
    assert validate_search({"query": "trio", "limit": 10}, settings).limit == 10


def test_search_clamps_a_limit_above_the_maximum(settings: Settings) -> None:
    assert validate_search({"query": "trio", "limit": 500}, settings).limit == 10
    assert validate_search({"query": "trio", "limit": 10**30}, settings).limit == 10


def test_search_strips_control_characters(settings: Settings) -> None:
    request = validate_search({"query": "\x00 cancel\ttask\x7f\n"}, settings)
    assert request.query == "cancel task"
    assert validate_search({"query": "a\x1b[31mb \u200b"}, settings).query == "a[31mb"
    with pytest.raises(CorpusError, match="empty"):
        validate_search({"query": "\u200b\x00 \ufeff"}, settings)


@pytest.mark.parametrize(
    ("arguments", "mentions"),
    [
        ({}, "`query`"),
        (None, "`query`"),
        ({"query": 42}, "$.query"),
        ({"query": None}, "$.query"),
        ({"query": ["a"]}, "$.query"),
        ({"query": ""}, "$.query"),
        ({"query": "   "}, "empty"),
        ({"query": "\x00\x01\n\t"}, "empty"),
        ({"query": "x" * (MAX_QUERY_CHARS + 1)}, "$.query"),
        ({"query": "trio", "limit": 0}, "$.limit"),
        ({"query": "trio", "limit": -3}, "$.limit"),
        ({"query": "trio", "limit": True}, "$.limit"),
        ({"query": "trio", "limit": 2.5}, "$.limit"),
        ({"query": "trio", "limit": "3"}, "$.limit"),
        ({"query": "trio", "limit": None}, "$.limit"),
        ({"query": "trio", "page": 2}, "`page`"),
    ],
)
def test_search_rejects(arguments: Any, mentions: str, settings: Settings) -> None:
    message = _search_error(arguments, settings)
    assert mentions in message
    assert message.startswith("Invalid arguments for search")
    assert '"query"' in message  # shows a correct call


def test_search_accepts_a_query_of_exactly_the_limit(settings: Settings) -> None:
    assert validate_search({"query": "x" * MAX_QUERY_CHARS}, settings).query == "x" * 500


def test_search_rejects_a_query_that_nfkc_makes_longer_than_the_limit(
    settings: Settings,
) -> None:
    # 99 characters pass the schema's maxLength; NFKC spells out each U+FDFA (an Arabic
    # ligature) as 18 characters, so the normalised query has 949.
    with pytest.raises(CorpusError) as info:
        validate_search({"query": " ".join(["\ufdfa"] * 50)}, settings)
    assert info.value.code == "invalid_arguments"
    assert "has 949 characters once Unicode-normalised (NFKC), more than 500" in (
        info.value.message
    )


def test_fetch_accepts_a_ref_alone() -> None:
    assert validate_fetch({"ref": "corpus://wiki/Trio"}) == FetchRequest("corpus://wiki/Trio", None)


def test_fetch_passes_section_ids_unchanged() -> None:
    request = validate_fetch({"ref": "corpus://wiki/Trio", "sections": ["History", "s 2"]})
    assert request.sections == ["History", "s 2"]


def test_fetch_treats_an_empty_section_list_as_the_whole_document() -> None:
    assert validate_fetch({"ref": "corpus://wiki/Trio", "sections": []}).sections is None


def test_fetch_accepts_the_limits_exactly() -> None:
    request = validate_fetch({"ref": "r" * 2048, "sections": ["s" * 512] * 64})
    assert request.sections is not None
    assert len(request.sections) == 64


@pytest.mark.parametrize(
    ("arguments", "mentions"),
    [
        ({}, "`ref`"),
        ({"ref": 7}, "$.ref"),
        ({"ref": ""}, "$.ref"),
        ({"ref": "r" * 2049}, "$.ref"),
        ({"ref": "corpus://wiki/Trio", "sections": "History"}, "$.sections"),
        ({"ref": "corpus://wiki/Trio", "sections": [1]}, "$.sections[0]"),
        ({"ref": "corpus://wiki/Trio", "sections": None}, "$.sections"),
        ({"ref": "corpus://wiki/Trio", "sections": ["s"] * 65}, "$.sections"),
        ({"ref": "corpus://wiki/Trio", "sections": ["s" * 513]}, "$.sections[0]"),
        ({"ref": "corpus://wiki/Trio", "section": ["History"]}, "`section`"),
    ],
)
def test_fetch_rejects(arguments: Any, mentions: str) -> None:
    message = _fetch_error(arguments)
    assert mentions in message
    assert message.startswith("Invalid arguments for fetch")
