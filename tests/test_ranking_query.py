"""Query cleaning, terms, relaxations and the title query; relaxations also run
against real libzim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corpus_mcp.ranking import (
    MAX_QUERY_CHARS,
    STOP_WORDS,
    index_parts,
    normalise_query,
    query_terms,
    query_words,
    relaxations,
    symbol_candidates,
    title_ngrams,
    title_query,
)
from corpus_mcp.ranking.query import (
    MAX_TITLE_LOOKUPS,
    SYMBOL_JOINED,
    SYMBOL_TOKEN,
    SYMBOL_WHOLE,
    is_identifier,
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
        "python",
    ]


def test_relaxations_are_distinct_non_empty_and_shrinking() -> None:
    steps = relaxations("What is the difference between a list and a tuple in Python?")
    assert steps[0] == "what is the difference between a list and a tuple in python"
    assert steps[1] == "difference list tuple python"
    assert steps[-2:] == ["tuple python", "python"]
    assert len(steps) == len(set(steps))
    sizes = [len(step.split()) for step in steps]
    assert sizes == sorted(sizes, reverse=True)


def test_relaxations_of_long_queries_stay_few() -> None:
    query = " ".join(f"word{i}" for i in range(60))
    steps = relaxations(query)
    assert [len(step.split()) for step in steps] == [60, 6, 5, 4, 3, 2, 1]
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


def test_short_numbers_are_dropped_before_topic_words() -> None:
    steps = relaxations("first line medicine for type 2 diabetes")
    assert "first line medicine type diabetes" in steps  # "2" goes first
    assert steps[-2:] == ["medicine diabetes", "medicine"]


# -- words for the indexes and API symbols -----------------------------------------------


def test_index_parts_split_joined_identifiers_but_keep_what_xapian_keeps_whole() -> None:
    assert index_parts("str.join") == ("str", "join")
    assert index_parts("std::vector") == ("std", "vector")
    assert index_parts("select_related") == ("select_related",)
    assert index_parts("c++") == ("c++",)
    assert index_parts("0.1") == ("0.1",)


def test_query_words_leave_out_stop_and_question_words() -> None:
    assert query_words("what does get_or_create return in Django?") == [
        "get_or_create",
        "return",
        "django",
    ]
    assert query_words("The Who") == ["the", "who"]  # nothing else: they are the topic


def test_symbol_candidates_rank_the_whole_query_identifiers_and_joined_words() -> None:
    found = dict(symbol_candidates("how do I use select related with a ForeignKey"))
    assert found["ForeignKey"] == SYMBOL_TOKEN
    assert found["select_related"] == SYMBOL_JOINED
    assert "how do I use select related with a ForeignKey" not in found  # too long
    whole = dict(symbol_candidates("the DEBUG setting"))
    assert whole["DEBUG setting"] == whole["the DEBUG setting"] == SYMBOL_WHOLE


def test_capitalised_words_are_not_identifiers_by_themselves() -> None:
    assert is_identifier("QuerySet.filter")
    assert is_identifier("JsonResponse")
    assert is_identifier("push_back()")
    assert not is_identifier("JSON")
    assert not is_identifier("Django")
    assert not is_identifier("42")


def test_title_ngrams_prefer_capitalised_runs() -> None:
    runs = title_ngrams("which gospel song was I Got a Woman based on")
    assert runs[0] == "I Got a Woman"
    assert len(runs) <= MAX_TITLE_LOOKUPS


def test_relaxations_with_frequencies_drop_absent_then_common_words_first() -> None:
    frequencies = {"ray": 120, "charles": 118, "glaucoma": 2, "xyzzy": 0}
    steps = relaxations("ray charles glaucoma xyzzy", frequencies)
    assert steps[-1] == "glaucoma"
    assert "ray charles glaucoma" in steps  # the word no document has goes first
    assert all("xyzzy" not in step for step in steps[3:])
