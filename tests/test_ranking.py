"""Pure ranking functions on hand-made data, plus relaxations run against real libzim."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking import (
    ELLIPSIS,
    MAX_QUERY_CHARS,
    STOP_WORDS,
    Candidate,
    diversify,
    flatten_inline,
    fuse,
    is_exact_title,
    normalise_query,
    passages,
    query_terms,
    relaxations,
    rrf,
    section_hints,
    snippet,
    title_coverage,
    title_query,
)
from corpus_mcp.zim import ZimReader

NASTY_QUERIES = [
    "ray AND charles",
    "ray OR",
    "AND",
    "NOT ray",
    "ray AND NOT",
    '"georgia on my mind',
    '""',
    "(ray charles",
    ")",
    "title:ray",
    "title:(ray charles)",
    "-ray +charles",
    "+",
    "-",
    "ray*",
    "*",
    "ray NEAR charles XOR ADJ/3 soul",
    "c++ std::vector str.join __init__",
    "a..b 1..10",
    "ray \\ charles $x$ {y} [z] ~w ^v",
    "what's the Ray Charles' song \u201cHit the Road\u201d?",
    "how did ray charles lose his sight",
    "georgia_on_my_mind",
    "the who",
    "\u0440\u044d\u0439 \u0447\u0430\u0440\u043b\u044c\u0437 \u6b4c\u624b",
]

# -- query text -------------------------------------------------------------------------


def test_normalise_query_strips_controls_and_collapses_whitespace() -> None:
    raw = "  ray\x00\u200b charles \t\n  soul\u00a0music\x7f "
    assert normalise_query(raw) == "ray charles soul music"


def test_normalise_query_folds_full_width_letters() -> None:
    assert normalise_query("\uff52\uff41\uff59 charles") == "ray charles"


def test_normalise_query_cuts_at_a_word_boundary() -> None:
    text = " ".join(["soul"] * 200)
    cut = normalise_query(text, max_chars=22)
    assert cut == "soul soul soul soul"
    assert len(normalise_query(text)) <= MAX_QUERY_CHARS
    assert normalise_query(text).split() == ["soul"] * 100


def test_normalise_query_hard_cuts_one_giant_word() -> None:
    assert normalise_query("x" * 600) == "x" * MAX_QUERY_CHARS


def test_query_terms_keep_identifiers_whole() -> None:
    query = "How do I use std::vector::push_back in C++ and str.join() or __init__?"
    assert query_terms(query) == [
        "how",
        "do",
        "i",
        "use",
        "std::vector::push_back",
        "in",
        "c++",
        "and",
        "str.join",
        "or",
        "__init__",
    ]


def test_query_terms_are_unicode_aware_and_drop_punctuation() -> None:
    assert query_terms("Café — naïve X-ray, don’t *** ___ Ünïcödé") == [
        "café",
        "naïve",
        "x-ray",
        "don't",
        "ünïcödé",
    ]


def test_stop_words_cover_question_words() -> None:
    assert {"how", "what", "why", "does", "which", "the", "a"} <= STOP_WORDS


# -- relaxations ------------------------------------------------------------------------


def test_relaxations_of_a_natural_language_question() -> None:
    steps = relaxations("how does python pick which parent method runs first")
    assert steps == [
        "how does python pick which parent method runs first",
        "python pick parent method runs first",
        "python pick parent method first",
        "python parent method first",
        "python parent method",
        "python parent",
    ]


def test_relaxations_are_distinct_non_empty_and_shrinking() -> None:
    steps = relaxations("What is the difference between a list and a tuple in Python?")
    assert steps[0] == "what is the difference between a list and a tuple in python"
    assert steps[1] == "difference list tuple python"
    assert steps[-1] == "tuple python"
    assert len(steps) == len(set(steps))
    sizes = [len(step.split()) for step in steps]
    assert sizes == sorted(sizes, reverse=True)


def test_relaxations_of_long_queries_stay_few() -> None:
    query = " ".join(f"word{i}" for i in range(60))
    steps = relaxations(query)
    assert [len(step.split()) for step in steps] == [60, 6, 5, 4, 3, 2]
    assert steps[1] == "word10 word11 word12 word13 word14 word15"


def test_relaxations_edge_cases() -> None:
    assert relaxations("***") == []
    assert relaxations("") == []
    assert relaxations("the who") == ["the who"]
    assert relaxations("python") == ["python"]
    assert relaxations("georgia_on_my_mind") == ["georgia_on_my_mind", "georgia mind"]


@pytest.mark.parametrize("query", NASTY_QUERIES)
def test_relaxations_neutralise_xapian_syntax(query: str) -> None:
    for step in [*relaxations(query), title_query(query)]:
        if not step:
            continue
        assert step == step.strip() and "  " not in step
        assert not re.search(r"[\"()*:\\$\[\]{}~^/.-]", step), step
        for word in step.split():
            assert word == word.lower(), step
            assert word[0] not in "+-", step
            assert word.rstrip("+#")[-1:].isalnum() or word.endswith("_"), step


def test_title_query_keeps_the_topic() -> None:
    assert title_query("How does Python pick which parent method runs first?") == (
        "python parent method"
    )
    assert title_query("Ray Charles") == "ray charles"
    assert title_query("the who") == "the who"
    assert title_query("???") == ""


def test_relaxations_run_safely_through_libzim(shared_zims: Path) -> None:
    reader = ZimReader(shared_zims / "wikipedia_en_ray_charles_mini_2020-03.zim")
    found_something = set()
    for query in NASTY_QUERIES:
        for step in relaxations(query):
            if reader.fulltext(step, 5).paths:
                found_something.add(query)
        if title := title_query(query):
            reader.suggest(title, 5)
    assert {"ray AND charles", "NOT ray", "(ray charles", "-ray +charles"} <= found_something


# -- fusion -----------------------------------------------------------------------------


def test_rrf_sums_reciprocal_ranks() -> None:
    scores = rrf([["a", "b", "c"], ["b", "a", "d"]], k=1)
    assert scores == pytest.approx({"a": 1 / 2 + 1 / 3, "b": 1 / 3 + 1 / 2, "c": 1 / 4, "d": 1 / 4})
    assert list(scores) == ["a", "b", "c", "d"]


def test_rrf_weights_and_duplicates() -> None:
    scores = rrf([["a", "a", "b"], ["b"]], k=0, weights=[2.0, 0.5])
    assert scores == pytest.approx({"a": 2.0, "b": 2.0 / 3 + 0.5})
    with pytest.raises(ValueError, match="weight"):
        rrf([["a"]], weights=[1.0, 2.0])


def _c(library: str, path: str, title: str | None = None) -> Candidate:
    return Candidate(library=library, path=path, title=title or path.replace("_", " "))


def _keys(candidates: list[Candidate]) -> list[tuple[str, str]]:
    return [(c.library, c.path) for c in candidates]


def test_exact_title_from_title_index_beats_a_long_fulltext_list() -> None:
    lists = {
        ("devdocs", "fulltext"): [_c("devdocs", f"python/page{i}", f"Page {i}") for i in range(20)],
        ("devdocs", "title"): [_c("devdocs", "python/page0", "Page 0")],
        ("wikipedia", "title"): [
            _c("wikipedia", "Pythonidae"),
            _c("wikipedia", "Python_(programming_language)"),
            _c("wikipedia", "Python"),
        ],
    }
    fused = fuse("Python", lists)
    assert _keys(fused)[:2] == [("wikipedia", "Python"), ("devdocs", "python/page0")]
    top = fused[0]
    assert top.exact_title and top.coverage == 1.0 and top.ranks == (("title", 3),)


def test_fuse_merges_lists_of_one_library() -> None:
    lists = {
        ("wiki", "fulltext"): [_c("wiki", "A"), _c("wiki", "B")],
        ("wiki", "title"): [_c("wiki", "B"), _c("wiki", "C")],
    }
    fused = fuse("zzz", lists, k=1)
    assert _keys(fused) == [("wiki", "B"), ("wiki", "A"), ("wiki", "C")]
    assert fused[0].score == pytest.approx(1 / 3 + 1 / 2)
    assert fused[0].ranks == (("fulltext", 2), ("title", 1))


def test_near_ties_across_libraries_are_reranked_by_title_coverage() -> None:
    lists = {
        ("a", "fulltext"): [_c("a", "Foo"), _c("a", "Ray_Charles")],
        ("b", "fulltext"): [_c("b", "Ray_Charles_discography")],
    }
    fused = fuse("ray charles discography", lists)
    # b's hit names the query; a keeps its own order (Foo before its Ray Charles).
    assert _keys(fused) == [("b", "Ray_Charles_discography"), ("a", "Foo"), ("a", "Ray_Charles")]


def test_clear_score_gaps_are_not_reranked() -> None:
    lists = {
        ("a", "fulltext"): [_c("a", f"Filler_{i}") for i in range(9)]
        + [_c("a", "Soul_music_in_the_1960s")],
        ("b", "fulltext"): [_c("b", "Unrelated")],
    }
    fused = fuse("soul music", lists, tie_ratio=0.05)
    assert _keys(fused)[0] in {("a", "Filler_0"), ("b", "Unrelated")}
    assert _keys(fused)[-1] == ("a", "Soul_music_in_the_1960s")


def test_full_ties_break_by_library_then_path() -> None:
    lists = {
        ("zeta", "fulltext"): [_c("zeta", "x")],
        ("alpha", "fulltext"): [_c("alpha", "y")],
        ("mid", "fulltext"): [_c("mid", "b"), _c("mid", "a")],
    }
    assert _keys(fuse("nothing", lists, tie_ratio=0.0)) == [
        ("alpha", "y"),
        ("mid", "b"),
        ("zeta", "x"),
        ("mid", "a"),
    ]


def test_fuse_is_independent_of_mapping_order() -> None:
    rng = random.Random(7)
    libraries = ["wiki", "docs", "stack"]
    lists: dict[tuple[str, str], list[Candidate]] = {}
    for library in libraries:
        for name in ("fulltext", "title"):
            paths = [f"p{rng.randrange(12)}" for _ in range(8)]
            lists[(library, name)] = [_c(library, p, f"Soul {p}") for p in dict.fromkeys(paths)]
    expected = fuse("soul p3", lists)
    for _ in range(10):
        keys = list(lists)
        rng.shuffle(keys)
        assert fuse("soul p3", {key: lists[key] for key in keys}) == expected


def test_diversify_breaks_long_runs() -> None:
    items = [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("a", 4), ("c", 1)]
    assert diversify(items, lambda item: item[0], 2) == [
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("a", 3),
        ("a", 4),
        ("c", 1),
    ]


def test_diversify_alternates_with_limit_one_and_keeps_leftovers() -> None:
    items = ["a1", "a2", "a3", "a4", "b1", "b2"]
    assert diversify(items, lambda item: item[0], 1) == ["a1", "b1", "a2", "b2", "a3", "a4"]
    assert diversify(items, lambda item: item[0], 10) == items
    assert diversify([], lambda item: item, 1) == []
    with pytest.raises(ValueError, match="at least 1"):
        diversify(items, lambda item: item[0], 0)


def test_diversify_is_deterministic() -> None:
    items = [f"{lib}{i}" for i in range(5) for lib in "aab"]
    first = diversify(items, lambda item: item[0], 2)
    assert all(diversify(items, lambda item: item[0], 2) == first for _ in range(5))
    assert sorted(first) == sorted(items)


# -- title coverage ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "title", "expected"),
    [
        ("python", "Python", 1.0),
        ("Python", "python", 1.0),
        ("python", "Python (programming language)", 0.95),
        ("python", "Monty Python", 0.75),
        ("ray charles", "Ray Charles discography", 0.8),
        ("ray charles discography", "Ray Charles", 0.6 * 2 / 3 + 0.3),
        ("python", "Ray Charles", 0.0),
        ("str.join", "str.join()", 1.0),
        ("how do python classes work", "Class (Python)", 0.95),
        ("how to use python", "Python", 0.95),
        ("***", "Python", 0.0),
    ],
)
def test_title_coverage(query: str, title: str, expected: float) -> None:
    assert title_coverage(query, title) == pytest.approx(expected)


def test_exact_title_ignores_case_accents_and_punctuation() -> None:
    assert is_exact_title("cafe society", "Café Society")
    assert is_exact_title("georgia on my mind", "Georgia_On_My_Mind")
    assert not is_exact_title("python", "Python (programming language)")
    assert not is_exact_title("", "")


# -- snippets and hints -----------------------------------------------------------------

LEAD = (
    "![portrait](../I/ray.jpg)\n\n"
    "| Born | September 23, 1930, Albany, Georgia |\n| --- | --- |\n"
    "| Genres | Soul, rhythm and blues, gospel |\n\n"
    "**Ray Charles Robinson** (September 23, 1930 – June 10, 2004) was an American "
    "singer, songwriter and pianist[1]. He is often referred to as *The Genius*. "
    "Charles was blind from the age of seven, and he pioneered the soul music genre "
    "during the 1950s by combining blues, jazz, rhythm and blues, and gospel styles "
    "into the music he recorded for [Atlantic Records](Atlantic_Records)."
)
EARLY_LIFE = (
    "Ray Charles Robinson was the son of Bailey Robinson, a laborer, and Aretha Williams. "
    "The family moved to Greenville, Florida, when he was an infant. He showed a musical "
    "curiosity at an early age at Wylie Pitman's Red Wing Cafe, where Pitman played boogie "
    "woogie on an old upright piano and taught him to play. Charles started to lose his "
    "sight at the age of five and he went completely blind by the age of seven, apparently "
    "as a result of glaucoma, for which no treatment was available in the rural South at "
    "the time. He attended school at the Florida School for the Deaf and the Blind in St. "
    "Augustine from 1937 to 1945, where he developed his musical talent and learned to "
    "read braille music. During this time he performed on the radio and at school concerts."
)
CAREER = (
    "Charles moved to Seattle in 1947, where he soon recorded his first hits.\n\n"
    "```python\nglaucoma = True\n```\n\n"
    "$$\\int_0^1 x\\,dx$$\n\n"
    "- Single: *Confession Blues* (1949)\n- Album: **The Great Ray Charles** (1957)"
)


def _document() -> Document:
    return Document(
        path="Ray_Charles",
        title="Ray Charles",
        kind="article",
        sections=[
            Section(id="", title="Ray Charles", level=1, content=LEAD),
            Section(id="Early_life", title="Early life", level=2, content=EARLY_LIFE),
            Section(
                id="Career",
                title="Career",
                level=2,
                content=CAREER,
                children=[
                    Section(
                        id="Atlantic_Records",
                        title="Atlantic Records",
                        level=3,
                        content="In 1952 Atlantic Records bought his contract; his "
                        "Atlantic recordings of 1954 mixed gospel and rhythm and blues.",
                    )
                ],
            ),
            Section(
                id="See_also",
                title="See also",
                level=2,
                content="- Glaucoma and blindness: blind musicians who had glaucoma",
            ),
            Section(
                id="References",
                title="Sources cited",
                level=2,
                reference=True,
                content="1. Glaucoma glaucoma glaucoma blind blindness, *Journal*, 1990.",
            ),
        ],
    )


def _plain_text(document: Document) -> str:
    return " ".join(
        passage.text
        for section in [
            *document.sections,
            *(child for section in document.sections for child in section.children),
        ]
        for passage in passages(section.content)
    )


def _assert_clean_cut(text: str, document: Document, max_chars: int = 300) -> str:
    """The snippet is short, free of Markdown debris, and cut at whole words of the
    document's plain text."""
    assert 0 < len(text) <= max_chars
    for debris in ("|", "**", "#", "```", "$", "](", "![", "[1]"):
        assert debris not in text, (debris, text)
    body = text.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
    plain = _plain_text(document)
    at = plain.find(body)
    assert at >= 0, text
    assert at == 0 or plain[at - 1] == " "
    after = plain[at + len(body) : at + len(body) + 1]
    assert after in {"", " ", ",", ";", ":"}
    return body


def test_flatten_inline_keeps_code_and_drops_markup() -> None:
    markdown = (
        "Use [`str.join()`](#str.join) on `x[0]`, **not** *this*[1] "
        r"\_\_init\_\_ $\alpha$ <sup>2</sup> ![i](a.png) "
        '[Python](Python_(language) "t").'
    )
    assert flatten_inline(markdown) == "Use str.join() on x[0], not this __init__ 2 Python."
    assert flatten_inline(r"area $\pi r^2$", keep_math=lambda tex: "pi" in tex) == r"area \pi r^2"


def test_passages_classify_blocks() -> None:
    markdown = (
        "# Head\n\n| a | b |\n|---|---|\n| c | d |\n\n- one\n- two\n\n```\ncode\n```\n\nText."
    )
    assert [(p.kind, p.text) for p in passages(markdown)] == [
        ("table", "a, b; c, d"),
        ("list", "one; two"),
        ("prose", "Text."),
    ]


def test_snippet_is_centred_on_the_query_terms() -> None:
    document = _document()
    text = snippet("glaucoma treatment", document)
    body = _assert_clean_cut(text, document)
    assert "glaucoma" in body and "treatment" in body
    assert 200 <= len(text) <= 300
    assert text.endswith(ELLIPSIS)
    assert text.startswith(ELLIPSIS + "Charles started to lose his sight")


def test_snippet_respects_max_chars() -> None:
    document = _document()
    for limit in (80, 150, 300, 500):
        text = snippet("braille music radio", document, max_chars=limit)
        assert len(text) <= limit
        assert "braille" in text


def test_snippet_prefers_prose_over_infobox_rows() -> None:
    document = _document()
    text = snippet("gospel rhythm", document)
    _assert_clean_cut(text, document)
    assert "Genres" not in text
    assert "gospel" in text


def test_snippet_prefers_passages_naming_every_term() -> None:
    document = _document()
    text = snippet("Confession Blues", document)
    assert text == "Single: Confession Blues (1949); Album: The Great Ray Charles (1957)"


def test_snippet_falls_back_to_the_lead_prose() -> None:
    document = _document()
    text = snippet("quantum chromodynamics", document)
    assert text.startswith("Ray Charles Robinson (September 23, 1930 – June 10, 2004) was")
    assert len(text) <= 300 and text.endswith(ELLIPSIS)
    _assert_clean_cut(text, document)


def test_snippet_skips_code_math_and_reference_sections() -> None:
    document = _document()
    text = snippet("glaucoma", document)
    assert "glaucoma" in text and "Journal" not in text and "= True" not in text
    assert "int_0" not in snippet("int dx", document)


def test_snippet_of_a_short_document_is_whole() -> None:
    document = Document(
        path="x",
        title="X",
        kind="documentation",
        sections=[Section(id="", title="X", level=1, content="Returns the `len` of **x**.")],
    )
    assert snippet("len", document) == "Returns the len of x."
    empty = Document(path="y", title="Y", kind="article", sections=[])
    assert snippet("len", empty) == ""


def test_section_hints_find_matching_sections() -> None:
    document = _document()
    assert section_hints("ray charles glaucoma blindness", document) == [
        ("Early_life", "Early life")
    ]
    assert section_hints("Atlantic Records contract", document)[0] == (
        "Atlantic_Records",
        "Atlantic Records",
    )


def test_section_hints_weigh_titles_over_content() -> None:
    document = _document()
    hints = section_hints("early career", document)
    assert hints == [("Early_life", "Early life"), ("Career", "Career")]
    assert section_hints("early career", document, limit=1) == [("Early_life", "Early life")]


def test_section_hints_are_empty_for_unrelated_or_whole_document_queries() -> None:
    document = _document()
    assert section_hints("quantum chromodynamics", document) == []
    assert section_hints("ray charles", document) == []
    assert section_hints("the", document) == []
    assert section_hints("glaucoma", document, limit=0) == []


def test_section_hints_never_offer_references_or_the_lead() -> None:
    document = _document()
    ids = {
        hint[0]
        for query in ("glaucoma", "blind", "soul genius")
        for hint in section_hints(query, document)
    }
    assert not ids & {"", "See_also", "References"}
