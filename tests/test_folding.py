"""Fetch answers the size of the question: a section with its subsections within the
budget, else its own text and the list of them; a whole document, else its lead and the
list of its sections; the hard cap; nothing lost on the way."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from corpus_mcp.document import Document, Section, walk
from corpus_mcp.folding import (
    Folded,
    Omitted,
    cut_text,
    fold_document,
    fold_sections,
    own_size,
)
from corpus_mcp.terminal import render_fetch
from corpus_mcp.wire import AvailableSection, FetchedSection, FetchOutput


def _section(sid: str, level: int, chars: int, *children: Section) -> Section:
    """A section whose title and content together are ``chars`` long."""
    title = sid.title() if sid else ""
    return Section(
        id=sid, title=title, level=level, content="x" * (chars - len(title)), children=[*children]
    )


def _class_page() -> Document:
    """A reference page: a lead, a class with six methods, a function."""
    methods = [_section(f"Cls.m{i}", 4, 300) for i in range(6)]
    return Document(
        path="api",
        title="API",
        kind="documentation",
        sections=[
            _section("", 1, 200),
            _section(
                "objects", 2, 100, _section("Cls", 3, 1_000, *methods), _section("func", 3, 400)
            ),
        ],
    )


def _ids(folded: Folded) -> list[str]:
    return [s.id for s in folded.sections]


def _omitted(folded: Folded) -> list[tuple[str, int]]:
    return [(s.id, s.chars) for s in folded.omitted]


def _roots(document: Document, *ids: str) -> list[Section]:
    by_id = {s.id: s for s in walk(document.sections)}
    return [by_id[i] for i in ids]


def test_a_document_within_the_budget_comes_whole() -> None:
    page = _class_page()
    folded = fold_document(page, budget=10_000, cap=100_000)
    assert _ids(folded) == [s.id for s in walk(page.sections)]
    assert folded.omitted == [] and folded.cut is False
    assert [s.content for s in folded.sections] == [s.content for s in walk(page.sections)]


def test_a_document_over_the_budget_is_its_lead_and_the_list_of_its_sections() -> None:
    folded = fold_document(_class_page(), budget=1_000, cap=100_000)
    assert _ids(folded) == [""]
    # The size listed is the section's with its subsections: 100 + 1,000 + 6 x 300 + 400.
    assert folded.omitted == [Omitted(id="objects", chars=3_300)]
    assert folded.cut is False


def test_an_empty_document_is_an_empty_answer() -> None:
    empty = Document(path="p", title="P", kind="article", sections=[])
    assert fold_document(empty, budget=10, cap=10) == Folded(sections=[], omitted=[])


def test_a_section_over_the_budget_is_its_own_text_and_the_list_of_its_subsections() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "Cls"), asked=["Cls"], budget=2_000, cap=100_000)
    assert _ids(folded) == ["Cls"]
    assert folded.sections[0].content == _roots(page, "Cls")[0].content
    assert _omitted(folded) == [(f"Cls.m{i}", 300) for i in range(6)]


def test_a_section_within_the_budget_comes_with_its_subsections() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "Cls"), asked=["Cls"], budget=2_800, cap=100_000)
    assert _ids(folded) == ["Cls", *(f"Cls.m{i}" for i in range(6))]
    assert folded.omitted == []


def test_a_subsection_asked_for_comes_inside_its_folded_section() -> None:
    page = _class_page()
    # "objects" is over the budget; Cls.m4 is asked for: it comes, with the sections it
    # is in (their own text), and every other subsection is listed.
    folded = fold_sections(
        _roots(page, "objects"), asked=["objects", "Cls.m4"], budget=1_500, cap=100_000
    )
    assert _ids(folded) == ["objects", "Cls", "Cls.m4"]
    assert _omitted(folded) == [
        *((f"Cls.m{i}", 300) for i in (0, 1, 2, 3, 5)),
        ("func", 400),
    ]


def test_sections_asked_together_share_the_budget() -> None:
    page = _class_page()
    roots = _roots(page, "func", "Cls")
    folded = fold_sections(roots, asked=["func", "Cls"], budget=2_000, cap=100_000)
    # func (400) fits whole; Cls (2,800 with its methods) no longer does: its own text.
    assert _ids(folded) == ["func", "Cls"]
    assert [s.id for s in folded.omitted] == [f"Cls.m{i}" for i in range(6)]


def test_a_leaf_over_the_budget_comes_whole_within_the_cap() -> None:
    leaf = _section("long", 2, 9_000)
    folded = fold_sections([leaf], asked=["long"], budget=8_000, cap=100_000)
    assert _ids(folded) == ["long"] and folded.omitted == [] and folded.cut is False


def test_the_cap_bounds_the_budget() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "Cls"), asked=["Cls"], budget=50_000, cap=2_000)
    assert _ids(folded) == ["Cls"]
    assert len(folded.omitted) == 6


def test_a_section_the_cap_has_no_room_for_is_listed_not_lost() -> None:
    sections = [_section(f"s{i}", 2, 600) for i in range(4)]
    folded = fold_sections(sections, asked=[s.id for s in sections], budget=1_000, cap=1_500)
    assert _ids(folded) == ["s0", "s1"]
    assert _omitted(folded) == [("s2", 600), ("s3", 600)]
    assert sum(own_size(s) for s in folded.sections) <= 1_500
    assert folded.cut is False


def test_an_oversized_first_section_is_cut_at_a_paragraph_boundary() -> None:
    paragraphs = [(f"Paragraph {i} " + "word " * 30).strip() for i in range(20)]
    big = Section(
        id="",
        title="",
        level=1,
        content="\n\n".join(paragraphs),
        children=[Section(id="x", title="X", level=2, content="after")],
    )
    document = Document(path="p", title="P", kind="article", sections=[big])
    folded = fold_document(document, budget=1_000, cap=1_000)
    assert folded.cut is True
    [kept] = folded.sections
    assert len(kept.content) <= 1_000
    assert kept.content.endswith("word")  # a whole paragraph, cut at its end
    assert big.content[len(kept.content) :].startswith("\n\n")
    assert _omitted(folded) == [("x", 6)]  # its subsection stays reachable


def test_metadata_goes_with_its_section() -> None:
    post = Section(id="question", title="Q", level=2, content="Why?", metadata={"score": 3})
    folded = fold_sections([post], asked=["question"], budget=100, cap=100)
    assert folded.sections[0].metadata == {"score": 3}


def test_cut_text_falls_back_to_a_line_then_a_word_then_a_hard_cut() -> None:
    assert cut_text("short", 10) == "short"
    assert cut_text("first line\nsecond line", 15) == "first line"
    assert cut_text("one two three four", 12) == "one two"
    assert cut_text("x" * 50, 10) == "x" * 10


# -- nothing lost: every section returned, or under exactly one listed section ------------


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0, prefix: str = "s") -> list[Section]:
    count = draw(st.integers(min_value=1 if depth == 0 else 0, max_value=4 if depth < 3 else 0))
    return [
        Section(
            id=f"{prefix}{i}",
            title=f"T{i}",
            level=depth + 1,
            content="y" * draw(st.integers(min_value=0, max_value=400)),
            children=draw(_trees(depth + 1, f"{prefix}{i}.")),
        )
        for i in range(count)
    ]


def _under(section: Section) -> Iterator[str]:
    return (s.id for s in walk([section]))


@given(_trees(), st.integers(min_value=50, max_value=3_000), st.integers(min_value=1, max_value=4))
def test_every_section_is_returned_or_listed_once(
    sections: list[Section], budget: int, cap_factor: int
) -> None:
    document = Document(path="p", title="P", kind="article", sections=sections)
    folded = fold_document(document, budget=budget, cap=budget * cap_factor)
    by_id = {s.id: s for s in walk(sections)}
    returned = [s.id for s in folded.sections]
    listed = [sid for omitted in folded.omitted for sid in _under(by_id[omitted.id])]
    everything = [s.id for s in walk(sections)]
    assert sorted(returned + listed) == sorted(everything)
    for omitted in folded.omitted:
        assert omitted.chars == sum(own_size(s) for s in walk([by_id[omitted.id]]))
    assert sum(own_size(s) for s in folded.sections) <= budget * cap_factor
    assert returned, "an answer always holds something"


# -- as the terminal shows it ------------------------------------------------------------


def _output(sections: list[FetchedSection], listed: list[AvailableSection]) -> FetchOutput:
    return FetchOutput(
        ref="corpus://docs/api",
        library="docs",
        kind="documentation",
        title="API",
        snapshot=None,
        sections=sections,
        available_sections=listed,
        truncated=True,
    )


def test_the_terminal_lists_what_was_left_out_with_its_size() -> None:
    out = _output(
        [FetchedSection(id="Cls", title="class Cls", level=3, content="A class.")],
        [
            AvailableSection("Cls", "class Cls", 3),
            AvailableSection("Cls.m0", "m0()", 4, chars=1_234),
        ],
    )
    text = render_fetch(out)
    assert text.endswith(
        "---\nother sections (--section ID):\n-     Cls.m0 (m0()) 1,234 chars, left out for size"
    )


def test_the_terminal_says_when_the_one_section_returned_was_cut() -> None:
    out = _output(
        [FetchedSection(id="long", title="Long", level=2, content="Text.")],
        [AvailableSection("long", "Long", 2), AvailableSection("next", "Next", 2)],
    )
    assert "cut to the largest answer; other sections (--section ID):\n- next (Next)" in (
        render_fetch(out)
    )
