"""Fetch assembly: section selection, aliases and collapsing (the budget: test_folding.py)."""

from __future__ import annotations

import pytest

from corpus_mcp import assemble
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.folding import Omitted


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


# -- continuations: a section's text from a place on ------------------------------------


def _long_doc() -> Document:
    text = (
        "The first paragraph.\n\n"
        "A second one, with a [link](corpus://wiki/Elsewhere) in it.\n\n"
        "| name | meaning |\n| --- | --- |\n| `jsonb_set` | replaces a *value* |\n\n"
        "The last paragraph."
    )
    return Document(
        path="p",
        title="P",
        kind="documentation",
        sections=[
            Section(id="", title="", level=1, content="Lead."),
            Section(id="long", title="Long", level=2, content=text, anchors=["alias"]),
        ],
    )


def test_a_continuation_asks_for_a_section_from_an_offset() -> None:
    document = _long_doc()
    offset = document.sections[1].content.index("A second")
    asked = assemble.resolve_asked(document, [f"long@{offset}"])
    assert (asked.ids, asked.starts) == (["long"], {"long": offset})
    # By an alias of its section too; an offset outside the text, or not a number, is
    # no section.
    assert assemble.resolve_asked(document, [f"alias@{offset}"]).starts == {"long": offset}
    for wrong in ("long@0", "long@100000", "long@x", "long@07", "nowhere@3"):
        with pytest.raises(CorpusError) as info:
            assemble.resolve_asked(document, [wrong])
        assert info.value.payload()["missing_sections"] == [wrong]


def test_a_continuation_named_by_words_starts_at_the_line_holding_them() -> None:
    document = _long_doc()
    content = document.sections[1].content
    # Read as search reads the view: no link target, no code or emphasis marks.
    row = assemble.resolve_asked(document, ["long@~jsonb_set replaces a value"])
    assert row.starts == {"long": content.index("| `jsonb_set`")}
    linked = assemble.resolve_asked(document, ["long@~with a link in"])
    assert linked.starts == {"long": content.index("A second")}
    # Words the text does not hold: the section from its start.
    assert assemble.resolve_asked(document, ["long@~no such words"]).starts == {}


def test_a_continuation_asked_with_its_section_says_where_it_starts() -> None:
    document = _long_doc()
    offset = document.sections[1].content.index("The last")
    asked = assemble.resolve_asked(document, ["long", f"long@{offset}", ""])
    assert (asked.ids, asked.starts) == (["long", ""], {"long": offset})
    earlier = document.sections[1].content.index("A second")
    both = assemble.resolve_asked(document, [f"long@{offset}", f"long@{earlier}"])
    assert both.starts == {"long": earlier}


def test_a_continuation_is_listed_after_its_section() -> None:
    document = _long_doc()
    listed = assemble.available_sections(
        document, [""], [Omitted(id="long@22", chars=120, continues="long")]
    )
    assert [(s.id, s.title, s.chars) for s in listed] == [
        ("", "", 0),
        ("long", "Long", 0),
        ("long@22", "Long (continued)", 120),
    ]
