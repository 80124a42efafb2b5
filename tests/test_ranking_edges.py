"""Edges of evidence scoring and section hints: empty queries, weightless words,
documents without sections, titles that are only markup."""

from __future__ import annotations

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.evidence import Evidence, Word, clean_title, score
from corpus_mcp.ranking.hints import section_hints
from corpus_mcp.ranking.terms import index_document


def test_a_query_without_weighted_words_scores_only_titles_and_scope() -> None:
    evidence = Evidence(titles=("Trio",), frequencies=(3,), length=10, scope=True)
    scored = score("trio", [Word("trio", 0.0)], evidence)
    assert scored.body == 0
    assert scored.exact > 0 and scored.scope > 0


def test_markup_only_titles_count_nothing_and_markup_is_cleaned() -> None:
    assert clean_title("<i>Ray</i> (film)") == "Ray (film)"
    scored = score("ray", [Word("ray", 1.0)], Evidence(titles=("<br/>",)))
    assert (scored.title, scored.contained, scored.exact) == (0, 0, 0)


def test_a_document_without_sections_has_no_hints() -> None:
    empty = Document(path="x", title="X", kind="article", sections=[])
    assert section_hints("anything", empty) == []


def test_words_that_weigh_nothing_still_find_sections_by_count() -> None:
    document = Document(
        path="x",
        title="X",
        kind="documentation",
        sections=[
            Section(id="", title="X", level=1, content="Intro."),
            Section(id="alpha", title="Alpha", level=2, content="Beta gamma."),
        ],
    )
    # With no corpus statistics every word counts the same.
    assert section_hints("beta", document, [Word("beta", 0.0)])[0][0] == "alpha"


def test_the_index_of_a_document_covers_nested_subtrees() -> None:
    document = Document(
        path="x",
        title="X",
        kind="article",
        sections=[
            Section(id="", title="", level=1, content="Lead."),
            Section(
                id="a",
                title="A",
                level=2,
                content="One.",
                children=[
                    Section(
                        id="b",
                        title="B",
                        level=3,
                        content="Two.",
                        children=[Section(id="c", title="C", level=4, content="Three.")],
                    )
                ],
            ),
            Section(id="d", title="D", level=2, content="Four."),
        ],
    )
    terms = index_document(document)
    by_id = {s.section.id: s for s in terms.sections}
    assert (by_id["a"].last, by_id["b"].last, by_id["c"].last, by_id["d"].last) == (3, 3, 3, 4)
    # "a" in a title holds every passage below it: One, Two, Three.
    assert terms.passages_holding("a") == frozenset({1, 2, 3})
