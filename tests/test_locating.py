"""Search hints a long section again from the part that matched, named by its first
words, when a fetch from the section's start would not reach it; fetch finds the words
in the section's Markdown and starts there (issue 30: hints that hold the answer)."""

from __future__ import annotations

from corpus_mcp import locating
from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.terms import index_document

FILLER = "\n\n".join(
    f"Paragraph {i} tells of nothing in particular at some length." for i in range(40)
)


def _document(deep: str, *, filler: str = FILLER) -> Document:
    return Document(
        path="functions",
        title="Functions",
        kind="documentation",
        sections=[
            Section(id="", title="", level=1, content="What this page holds."),
            Section(
                id="table",
                title="Processing functions",
                level=2,
                content=f"{filler}\n\n{deep}\n\nA last paragraph.",
            ),
        ],
    )


ROW = (
    "`jsonb_set` ( *target* `jsonb`, *path* `text[]` ) → `jsonb`; "
    "Returns target with the item replaced."
)


def test_a_deep_match_in_a_long_section_is_named_by_its_first_words() -> None:
    document = _document(ROW)
    terms = index_document(document)
    words = locating.matched_words("jsonb_set replace item", "Functions", terms, "table", 1_000)
    assert words == "jsonb_set"
    hints = locating.with_locators(
        "jsonb_set replace item", "Functions", terms, [("table", "Processing functions")], 1_000
    )
    assert hints == [
        ("table", "Processing functions"),
        ("table@~jsonb_set", "Processing functions"),
    ]
    # Fetch finds the words in the Markdown, marks and all, at the row's line.
    content = document.sections[1].content
    assert locating.locate(content, "jsonb_set") == content.index("`jsonb_set`")


def test_a_match_a_fetch_from_the_start_reaches_is_not_named() -> None:
    document = _document(ROW, filler="A short opening paragraph.")
    terms = index_document(document)
    assert locating.matched_words("jsonb_set", "Functions", terms, "table", 8_000) is None
    assert locating.with_locators("jsonb_set", "Functions", terms, [("table", "T")], 8_000) == [
        ("table", "T")
    ]


def test_an_early_match_in_a_long_section_is_not_named() -> None:
    document = Document(
        path="functions",
        title="Functions",
        kind="documentation",
        sections=[Section(id="table", title="T", level=2, content=f"{ROW}\n\n{FILLER}")],
    )
    terms = index_document(document)
    assert locating.matched_words("jsonb_set", "Functions", terms, "table", 1_000) is None


def test_a_part_whose_first_words_all_came_before_is_not_named() -> None:
    earlier = "The value is replaced by a copy of the path."
    deep = "The value is replaced by a copy of the path when the array grows."
    document = _document(deep, filler=f"{earlier}\n\n{FILLER}")
    terms = index_document(document)
    assert locating.matched_words("replaced copy array", "Functions", terms, "table", 1_000) is None


def test_as_many_words_as_tell_the_part_from_what_precedes_it() -> None:
    earlier = "The value is replaced in place."
    deep = "The value is replaced by a copy when the path names an array element."
    document = _document(deep, filler=f"{earlier}\n\n{FILLER}")
    terms = index_document(document)
    words = locating.matched_words("replaced copy array", "Functions", terms, "table", 1_000)
    assert words == "the value is replaced by"
    content = document.sections[1].content
    assert locating.locate(content, words) == content.index(deep)


def test_a_table_row_or_list_item_is_the_part_named() -> None:
    rows = "\n".join(f"| `f{i}` | does thing {i} |" for i in range(60))
    table = (
        f"| name | use |\n| --- | --- |\n{rows}\n| `split_part` | splits a string at a delimiter |"
    )
    document = _document(table, filler="Intro.")
    terms = index_document(document)
    words = locating.matched_words("split string delimiter", "Functions", terms, "table", 1_000)
    assert words == "split_part"
    content = document.sections[1].content
    assert locating.locate(content, words) == content.index("| `split_part`")


def test_words_no_line_holds_are_not_found() -> None:
    assert locating.locate("One line.\nAnother line.", "no such") is None
    assert locating.locate("One line.", "") is None
    # Words in a row across two lines are not a line's.
    assert locating.locate("ends with one\ntwo starts", "one two") is None


def test_no_words_for_a_section_the_query_does_not_match_or_that_is_not_there() -> None:
    terms = index_document(_document(ROW))
    assert locating.matched_words("zebra", "Functions", terms, "table", 1_000) is None
    assert locating.matched_words("jsonb_set", "Functions", terms, "missing", 1_000) is None
