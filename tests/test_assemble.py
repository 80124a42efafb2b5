"""Fetch assembly: section selection, aliases and collapsing (the budget: test_folding.py)."""

from __future__ import annotations

import pytest

from corpus_mcp import assemble
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.errors import CorpusError


def _doc() -> Document:
    return Document(
        path="Ray_Charles",
        title="Ray Charles",
        kind="article",
        sections=[
            Section(id="", title="", level=1, content="Lead paragraph."),
            Section(
                id="Early_life",
                title="Early life",
                level=2,
                content="Born in Albany.",
                children=[
                    Section(id="Childhood", title="Childhood", level=3, content="Lost sight."),
                    Section(
                        id="School",
                        title="School",
                        level=3,
                        content="Learned Braille.",
                        anchors=["braille"],
                    ),
                ],
            ),
            Section(id="Career", title="Career", level=2, content="Atlantic years."),
            Section(
                id="References", title="References", level=2, content="1. A book.", role="reference"
            ),
        ],
    )


def test_available_sections_are_in_document_order_lead_first() -> None:
    ids = [s.id for s in assemble.available_sections(_doc())]
    assert ids == ["", "Early_life", "Childhood", "School", "Career", "References"]


def test_selected_sections_come_with_their_subtrees_in_document_order() -> None:
    roots = assemble.select_sections(_doc(), ["Career", "Early_life"])
    flat = walk(roots)
    assert [s.id for s in flat] == ["Early_life", "Childhood", "School", "Career"]


def test_duplicates_and_nested_repeats_collapse() -> None:
    roots = assemble.select_sections(_doc(), ["School", "Early_life", "School", "Early_life"])
    assert [s.id for s in walk(roots)] == ["Early_life", "Childhood", "School"]


def test_an_anchor_alias_lands_on_its_section() -> None:
    roots = assemble.select_sections(_doc(), ["braille"])
    assert [s.id for s in roots] == ["School"]


def test_the_lead_is_fetchable_by_empty_id() -> None:
    roots = assemble.select_sections(_doc(), [""])
    assert [s.content for s in roots] == ["Lead paragraph."]


def test_missing_sections_are_reported_with_what_is_available() -> None:
    with pytest.raises(CorpusError) as info:
        assemble.select_sections(_doc(), ["Career", "Death", "Legacy", "Death"])
    payload = info.value.payload()
    assert payload["error"] == "section_not_found"
    assert payload["missing_sections"] == ["Death", "Legacy"]
    assert [s["id"] for s in payload["available_sections"]] == [
        "",
        "Early_life",
        "Childhood",
        "School",
        "Career",
        "References",
    ]
