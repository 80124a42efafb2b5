"""A section larger than a fetch answer is cut where a block closes (a paragraph, a
list, a table, a fenced code block), else at a line, else at a sentence's end; a word
break or a hard cut only for one sentence larger than the room. A fence cut inside is
closed in the head and opened again in the rest, which starts at an offset of the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from corpus_mcp.cutting import Cut, cut, rest

PARAGRAPHS = "\n\n".join(f"Paragraph {i} says one thing. Then another." for i in range(8))


def test_a_text_that_fits_comes_whole() -> None:
    assert cut("Short text.", 100) == Cut(head="Short text.", rest_at=11)


def test_a_cut_ends_where_a_paragraph_ends() -> None:
    piece = cut(PARAGRAPHS, 150)
    assert piece.head == "\n\n".join(PARAGRAPHS.split("\n\n")[:3])
    assert PARAGRAPHS[piece.rest_at :].startswith("Paragraph 3 says")
    assert rest(PARAGRAPHS, piece.rest_at) == PARAGRAPHS[piece.rest_at :]


def test_a_list_is_cut_between_its_items_when_no_block_ends_in_the_second_half() -> None:
    text = "Intro.\n\n" + "\n".join(f"- item {i} of the list" for i in range(20))
    piece = cut(text, 120)
    assert piece.head.endswith("of the list") and len(piece.head) <= 120
    assert text[piece.rest_at :].startswith("- item ")


def test_one_long_paragraph_is_cut_at_a_sentence_end_never_after_an_abbreviation() -> None:
    text = " ".join(["Eat fruit, e.g. apples and pears."] * 10)
    piece = cut(text, 100)
    assert piece.head.endswith("pears.")
    assert not piece.head.endswith("e.g.")
    assert text[piece.rest_at :].startswith("Eat fruit")


def test_one_sentence_larger_than_the_room_is_cut_at_a_word_then_anywhere() -> None:
    words = "word " * 40
    piece = cut(words.strip(), 23)
    assert piece.head == "word word word word"
    assert cut("x" * 50, 10) == Cut(head="x" * 10, rest_at=10)


def test_a_fence_cut_inside_is_closed_and_opened_again() -> None:
    code = "\n".join(f"x = {i}  # one line of the example" for i in range(12))
    text = f"Before the code.\n\n```python\n{code}\n```\n\nAfter the code."
    piece = cut(text, 150)
    assert piece.head.startswith("Before the code.\n\n```python\nx = 0")
    assert piece.head.endswith("\n```") and len(piece.head) <= 150
    continued = rest(text, piece.rest_at)
    assert continued is not None and continued.startswith("```python\nx = ")
    # Cut again from there: the head opens with the fence, the rest is outside it.
    second = cut(text, 1_000, piece.rest_at)
    assert second.head == continued
    assert second.rest_at == len(text)


def test_a_rest_never_starts_at_a_fence_s_closing_line() -> None:
    text = "Text before.\n\n```\ncode line one\ncode line two\n```\nText after, long enough."
    for room in range(20, len(text)):
        piece = cut(text, room)
        if piece.rest_at < len(text):
            assert not text[piece.rest_at :].startswith("```\nText"), room


def test_a_cut_from_an_offset_starts_there() -> None:
    first = cut(PARAGRAPHS, 150)
    second = cut(PARAGRAPHS, 150, first.rest_at)
    assert second.head.startswith("Paragraph 3 says")
    assert second.rest_at > first.rest_at


def test_a_rest_is_only_inside_the_text() -> None:
    assert rest("abc def", 0) is None
    assert rest("abc def", 7) is None
    assert rest("abc def", 4) == "def"


@given(
    st.lists(
        st.lists(
            st.sampled_from(["Word", "word.", "more", "text,", "end."]), min_size=1, max_size=40
        ).map(" ".join),
        min_size=1,
        max_size=12,
    ).map("\n\n".join),
    st.integers(min_value=8, max_value=400),
)
def test_cutting_again_and_again_reads_the_whole_text_once(text: str, room: int) -> None:
    start, heads = 0, []
    while start < len(text):
        piece = cut(text, room, start)
        assert piece.head and len(piece.head) <= room
        assert text[start:].startswith(piece.head)
        assert not text[start + len(piece.head) : piece.rest_at].strip()
        assert piece.rest_at > start
        heads.append(piece.head)
        start = piece.rest_at
    assert "".join(heads).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace(
        "\n", ""
    )
