"""A fetch fills its answer in order up to the budget: a whole document in document
order, sections asked for first (their own text, in the order asked) and then their
subsections; it stops at the first section that does not fit and lists the rest; it is
never empty while what was asked for holds text; a section larger than the budget is
cut where a block closes, its rest a continuation; nothing lost on the way."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hypothesis import given
from hypothesis import strategies as st

from corpus_mcp import cutting
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.folding import (
    EMPTY,
    Folded,
    Omitted,
    continuation_id,
    continued,
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


def _heading(sid: str, level: int, *children: Section) -> Section:
    """A section with a title and no text of its own."""
    return Section(id=sid, title=sid.title(), level=level, children=[*children])


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


def _article() -> Document:
    """An article whose "career" has no text of its own and five subsections."""
    periods = [
        _section(f"p{i}", 3, size) for i, size in enumerate((3_000, 2_000, 5_000, 2_000, 4_000))
    ]
    return Document(
        path="a",
        title="A",
        kind="article",
        sections=[
            _section("", 1, 1_500),
            _section("early", 2, 2_500),
            _heading("career", 2, *periods),
            _section("legacy", 2, 1_000),
        ],
    )


def _ids(folded: Folded) -> list[str]:
    return [s.id for s in folded.sections]


def _omitted(folded: Folded) -> list[tuple[str, int]]:
    return [(s.id, s.chars) for s in folded.omitted]


def _roots(document: Document, *ids: str) -> list[Section]:
    by_id = {s.id: s for s in walk(document.sections)}
    return [by_id[i] for i in ids]


def _size(folded: Folded) -> int:
    return sum(own_size(s) for s in folded.sections)


# -- a whole document --------------------------------------------------------------------


def test_a_document_within_the_budget_comes_whole() -> None:
    page = _class_page()
    folded = fold_document(page, budget=10_000)
    assert _ids(folded) == [s.id for s in walk(page.sections)]
    assert folded.omitted == [] and folded.truncated is False
    assert [s.content for s in folded.sections] == [s.content for s in walk(page.sections)]


def test_a_document_over_the_budget_is_filled_in_order_and_the_rest_listed() -> None:
    folded = fold_document(_class_page(), budget=1_000)
    # The lead (200), "objects" (100), then Cls (1,000) would pass the budget: the fill
    # stops there, and Cls (with its methods) and func are listed with their sizes.
    assert _ids(folded) == ["", "objects"]
    assert folded.omitted == [Omitted(id="Cls", chars=2_800), Omitted(id="func", chars=400)]
    assert folded.truncated is True


def test_a_document_fills_the_sections_that_fit_before_the_first_that_does_not() -> None:
    folded = fold_document(_article(), budget=8_000)
    # lead 1,500 + early 2,500 + career's heading and its first period (3,000): 7,006;
    # the second period (2,000) would pass 8,000.
    assert _ids(folded) == ["", "early", "career", "p0"]
    assert _omitted(folded) == [
        ("p1", 2_000),
        ("p2", 5_000),
        ("p3", 2_000),
        ("p4", 4_000),
        ("legacy", 1_000),
    ]


def test_a_heading_left_without_its_text_and_subsections_goes_back_to_the_list() -> None:
    folded = fold_document(_article(), budget=4_500)
    # lead and early fill 4,000; career's heading fits but its first period does not:
    # a bare heading would tell nothing, so career is listed whole instead.
    assert _ids(folded) == ["", "early"]
    assert _omitted(folded) == [("career", 6 + 16_000), ("legacy", 1_000)]


def test_an_empty_document_is_an_empty_answer() -> None:
    empty = Document(path="p", title="P", kind="article", sections=[])
    assert fold_document(empty, budget=10) == Folded(sections=[], omitted=[])


def test_a_document_with_no_text_says_so() -> None:
    bare = Document(path="p", title="P", kind="article", sections=[_heading("a", 2)])
    [only] = fold_document(bare, budget=100).sections
    assert only.content == EMPTY


# -- sections asked for ------------------------------------------------------------------


def test_a_section_asked_for_with_no_text_brings_its_first_subsections_that_fit() -> None:
    page = _article()
    folded = fold_sections(_roots(page, "career"), ["career"], budget=8_000)
    # The Ray Charles case of issue 30: "Career" has no text of its own; its first two
    # periods (3,000 + 2,000) come, the third (5,000) would pass the budget.
    assert _ids(folded) == ["career", "p0", "p1"]
    assert _omitted(folded) == [("p2", 5_000), ("p3", 2_000), ("p4", 4_000)]
    assert folded.truncated


def test_a_section_within_the_budget_comes_with_its_subsections() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "Cls"), ["Cls"], budget=2_800)
    assert _ids(folded) == ["Cls", *(f"Cls.m{i}" for i in range(6))]
    assert folded.omitted == []


def test_a_section_over_the_budget_brings_its_first_subsections() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "Cls"), ["Cls"], budget=2_000)
    assert _ids(folded) == ["Cls", "Cls.m0", "Cls.m1", "Cls.m2"]
    assert _omitted(folded) == [(f"Cls.m{i}", 300) for i in (3, 4, 5)]


def test_sections_asked_for_come_first_in_the_order_asked() -> None:
    page = _class_page()
    roots = _roots(page, "Cls", "func")
    # Both own texts first (func 400, Cls 1,000), then Cls's methods while they fit.
    folded = fold_sections(roots, ["func", "Cls"], budget=2_000)
    assert _ids(folded) == ["Cls", "Cls.m0", "Cls.m1", "func"]  # document order
    assert _omitted(folded) == [(f"Cls.m{i}", 300) for i in (2, 3, 4, 5)]


def test_a_subsection_asked_for_comes_before_its_parent_s_others() -> None:
    page = _class_page()
    # "objects" and one method inside it asked for: the method's text comes with the
    # parent's, then the parent's other subsections in document order while they fit.
    folded = fold_sections(_roots(page, "objects"), ["objects", "Cls.m4"], budget=1_500)
    assert _ids(folded) == ["objects", "Cls", "Cls.m4"]
    assert _omitted(folded) == [
        *((f"Cls.m{i}", 300) for i in (0, 1, 2, 3, 5)),
        ("func", 400),
    ]


def test_a_section_asked_for_is_cut_to_what_is_left_when_a_quarter_of_the_budget_is() -> None:
    paragraphs = "\n\n".join(f"Paragraph {i} says something." for i in range(100))
    first = _section("first", 2, 1_000)
    second = Section(id="second", title="Second", level=2, content=paragraphs)
    folded = fold_sections([first, second], ["first", "second"], budget=2_000)
    assert _ids(folded) == ["first", "second"]
    kept = folded.sections[1].content
    assert kept.startswith("Paragraph 0 says") and kept.endswith("something.")
    assert _size(folded) <= 2_000
    [rest] = folded.omitted
    assert rest.continues == "second" and rest.id == continuation_id("second", len(kept) + 2)


def test_sections_asked_for_inside_others_come_once_in_document_order() -> None:
    page = _class_page()
    folded = fold_sections(_roots(page, "objects"), ["Cls.m4", "objects", "Cls"], budget=10_000)
    assert _ids(folded) == [s.id for s in walk(_roots(page, "objects"))]
    assert folded.omitted == []


def test_after_a_section_asked_for_is_cut_the_others_asked_for_are_listed() -> None:
    long = _long("long")
    folded = fold_sections([long, _section("c", 2, 100)], ["long", "c"], budget=1_000)
    assert _ids(folded) == ["long"]
    [rest, listed] = folded.omitted
    assert rest.continues == "long" and listed == Omitted(id="c", chars=100)


def test_a_continuation_asked_for_that_does_not_fit_is_listed_as_asked() -> None:
    long = _long("long")
    offset = cutting.cut(long.content, 1_000).rest_at
    first = _section("a", 2, 1_900)
    folded = fold_sections([first, long], ["a", "long"], budget=2_000, starts={"long": offset})
    assert _ids(folded) == ["a"]
    [listed] = folded.omitted
    assert listed.id == continuation_id("long", offset) and listed.continues is None
    assert listed.chars == len(long.title) + len(long.content) - offset


def test_a_text_after_headings_that_used_the_budget_still_comes() -> None:
    # The headings (a 900-character title) leave 100 characters; the first text, 150,
    # comes anyway: never less than a quarter of the budget for it.
    heading = Section(id="h", title="H" * 900, level=2, children=[_section("t", 3, 150)])
    folded = fold_sections([heading], ["h"], budget=1_000)
    assert _ids(folded) == ["h", "t"]
    assert folded.sections[1].content == heading.children[0].content
    assert folded.omitted == []


def test_a_section_asked_for_that_does_not_fit_is_listed_and_the_others_still_come() -> None:
    sections = [_section("a", 2, 1_800), _section("b", 2, 1_500), _section("c", 2, 100)]
    folded = fold_sections(sections, ["a", "b", "c"], budget=2_000)
    assert _ids(folded) == ["a", "c"]
    assert _omitted(folded) == [("b", 1_500)]


def test_an_asked_section_with_no_text_at_all_says_so() -> None:
    empty = _heading("see-also", 2, _heading("inner", 3))
    folded = fold_sections([empty], ["see-also"], budget=1_000)
    assert [(s.id, s.content) for s in folded.sections] == [("see-also", EMPTY), ("inner", "")]
    assert not folded.truncated


def test_metadata_goes_with_its_section() -> None:
    post = Section(id="question", title="Q", level=2, content="Why?", metadata={"score": 3})
    folded = fold_sections([post], ["question"], budget=100)
    assert folded.sections[0].metadata == {"score": 3}


# -- a section larger than the budget: cut, and continued ---------------------------------


def _long(sid: str = "long", paragraphs: int = 60) -> Section:
    text = "\n\n".join(f"Paragraph {i}. " + "Word " * 30 for i in range(paragraphs))
    return Section(id=sid, title="Long", level=2, content=text.replace(" \n", "\n").strip())


def test_a_section_larger_than_the_budget_is_cut_where_a_paragraph_ends() -> None:
    long = _long()
    folded = fold_sections([long], ["long"], budget=1_000)
    [kept] = folded.sections
    assert _size(folded) <= 1_000
    assert long.content.startswith(kept.content)
    assert long.content[len(kept.content) :].startswith("\n\nParagraph")
    [rest] = folded.omitted
    section_id, offset = continued(rest.id) or ("", 0)
    assert (section_id, rest.continues) == ("long", "long")
    assert long.content[offset:].startswith("Paragraph")
    assert rest.chars == len(long.title) + len(long.content) - offset


def test_following_the_continuations_reads_the_whole_section_once() -> None:
    long = _long()
    document = Document(path="p", title="P", kind="article", sections=[long])
    read: list[str] = []
    folded = fold_document(document, budget=900)
    while True:
        read += [s.content for s in folded.sections]
        if not folded.omitted:
            break
        [rest] = folded.omitted
        section_id, offset = continued(rest.id) or ("", 0)
        folded = fold_sections([long], [section_id], budget=900, starts={section_id: offset})
        assert _ids(folded) == [rest.id]
    assert "\n\n".join(read) == long.content


def test_a_continuation_carries_the_section_s_subsections() -> None:
    long = _long()
    long.children = [_section("after", 3, 300)]
    offset = cutting.cut(long.content, 1_000).rest_at
    tail = len(long.content) - offset
    folded = fold_sections([long], ["long"], budget=tail + 400, starts={"long": offset})
    assert _ids(folded) == [continuation_id("long", offset), "after"]
    assert folded.sections[0].content == long.content[offset:]


def test_a_document_whose_first_section_is_too_large_is_never_empty() -> None:
    big = _long("")
    big.children = [Section(id="x", title="X", level=2, content="after")]
    document = Document(path="p", title="P", kind="article", sections=[big])
    folded = fold_document(document, budget=1_000)
    [kept] = folded.sections
    assert kept.content and len(kept.content) <= 1_000
    # The rest of the lead (its subsection with it) is one continuation.
    [rest] = folded.omitted
    assert rest.continues == "" and rest.id.startswith("@")


# -- properties: nothing lost, never empty -------------------------------------------------


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0, prefix: str = "s") -> list[Section]:
    count = draw(st.integers(min_value=1 if depth == 0 else 0, max_value=4 if depth < 3 else 0))
    return [
        Section(
            id=f"{prefix}{i}",
            title=f"T{i}",
            level=depth + 1,
            content=draw(st.sampled_from(["", "y" * draw(st.integers(1, 400)), _prose(draw)])),
            children=draw(_trees(depth + 1, f"{prefix}{i}.")),
        )
        for i in range(count)
    ]


def _prose(draw: st.DrawFn) -> str:
    return "\n\n".join(
        "A sentence. " * draw(st.integers(1, 20)) for _ in range(draw(st.integers(1, 8)))
    )


def _under(section: Section) -> Iterator[str]:
    return (s.id for s in walk([section]))


def _check(sections: Sequence[Section], folded: Folded, budget: int) -> None:
    by_id = {s.id: s for s in walk(list(sections))}
    returned = {continued(s.id)[0] if s.id not in by_id else s.id for s in folded.sections}  # type: ignore[index]
    listed = [
        sid
        for omitted in folded.omitted
        for sid in _under(by_id[omitted.continues if omitted.continues is not None else omitted.id])
        if omitted.continues is None or sid != omitted.continues
    ]
    everything = {s.id for s in walk(list(sections))}
    assert returned | set(listed) == everything
    longest_title = max(len(s.title) for s in by_id.values())
    # The note an answer empty in the archive carries is the server's, not the archive's
    # text: a budget smaller than the note (the setting allows any) still gets it whole.
    note = len(EMPTY) if any(s.content == EMPTY for s in folded.sections) else 0
    assert _size(folded) <= budget + budget // 4 + longest_title + note
    if any(s.content.strip() for s in by_id.values()):
        assert any(s.content.strip() for s in folded.sections), "never empty"


@given(_trees(), st.integers(min_value=50, max_value=3_000))
def test_a_whole_document_returns_or_lists_every_section(
    sections: list[Section], budget: int
) -> None:
    document = Document(path="p", title="P", kind="article", sections=sections)
    folded = fold_document(document, budget=budget)
    _check(sections, folded, budget)
    for omitted in folded.omitted:
        if omitted.continues is None:
            node = next(s for s in walk(sections) if s.id == omitted.id)
            assert omitted.chars == sum(own_size(s) for s in walk([node]))


@given(_trees(), st.integers(min_value=50, max_value=3_000), st.data())
def test_sections_asked_for_are_never_an_empty_answer(
    sections: list[Section], budget: int, data: st.DataObject
) -> None:
    everything = list(walk(sections))
    root = data.draw(st.sampled_from(everything))
    folded = fold_sections([root], [root.id], budget=budget)
    _check([root], folded, budget)
    assert folded.sections, "the section asked for, at least"


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
            AvailableSection("Cls@812", "class Cls (continued)", 3, chars=2_000),
            AvailableSection("Cls.m0", "m0()", 4, chars=1_234),
        ],
    )
    text = render_fetch(out)
    assert text.endswith(
        "---\nother sections (--section ID):\n"
        "-   Cls@812 (class Cls (continued)) 2,000 chars, left out for size\n"
        "-     Cls.m0 (m0()) 1,234 chars, left out for size"
    )
