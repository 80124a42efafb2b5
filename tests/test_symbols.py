"""The symbol table of a documentation library: full names, trailing parts, strengths."""

from __future__ import annotations

import random

import pytest

from corpus_mcp.adapters.base import Landing
from corpus_mcp.symbols import (
    MAX_PER_KEY,
    QUALIFIED_FACTOR,
    TAIL_FACTOR,
    Symbol,
    SymbolMatch,
    SymbolTable,
    build_table,
)


def symbol(name: str, path: str = "page", section: str | None = None) -> Symbol:
    return Symbol(name=name, path=path, section=section or name, title=path)


SELECT_RELATED = symbol("db.models.query.QuerySet.select_related", "ref/models/querysets")
PUSH_BACK = symbol("std::vector::push_back", "cpp/container/vector/push_back")
FLASK_JSON = symbol("flask.json", "api")
JSON = symbol("json", "library/json")
JSON_RESPONSE = symbol("django.http.JsonResponse", "ref/request-response")
SUPER = symbol("super()", "library/functions")
TABLE = SymbolTable([SELECT_RELATED, PUSH_BACK, FLASK_JSON, JSON, JSON_RESPONSE, SUPER])


def found(text: str, table: SymbolTable = TABLE) -> list[tuple[Symbol, float]]:
    return [(m.symbol, m.strength) for m in table.lookup([(text, 1.0)])]


# -- full names and tails -----------------------------------------------------------------


def test_full_name_finds_its_symbol_at_full_strength() -> None:
    assert found("db.models.query.QuerySet.select_related") == [(SELECT_RELATED, 1.0)]
    assert found("std::vector::push_back") == [(PUSH_BACK, 1.0)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("QuerySet.select_related", SELECT_RELATED),
        ("query.QuerySet.select_related", SELECT_RELATED),
        ("select_related", SELECT_RELATED),  # snake_case is code-shaped
        ("select_related()", SELECT_RELATED),
        ("vector::push_back", PUSH_BACK),
        ("push_back", PUSH_BACK),
        ("JsonResponse", JSON_RESPONSE),  # camelCase is code-shaped
        ("http.JsonResponse", JSON_RESPONSE),
    ],
)
def test_code_shaped_trailing_part_finds_the_symbol_at_tail_strength(
    text: str, expected: Symbol
) -> None:
    assert found(text) == [(expected, TAIL_FACTOR)]


def test_lookup_ignores_case_spaces_and_a_call() -> None:
    assert found("QUERYSET.Select_Related") == [(SELECT_RELATED, TAIL_FACTOR)]
    assert found("super") == found("super()") == [(SUPER, 1.0)]
    assert found("  Std::Vector::Push_Back  ") == [(PUSH_BACK, 1.0)]


def test_plain_word_finds_full_names_never_tails() -> None:
    assert found("json") == [(JSON, 1.0)]  # not flask.json
    assert found("JSON") == [(JSON, 1.0)]  # an acronym is a plain word too
    assert found("vector") == []  # not std::vector::push_back


def test_code_shaped_text_finds_a_full_name_and_the_tails_it_ends() -> None:
    table = SymbolTable([JSON, FLASK_JSON, symbol("json.loads", "library/json")])
    assert found("flask.json", table) == [(FLASK_JSON, 1.0)]
    assert found("json.loads", table) == [(symbol("json.loads", "library/json"), 1.0)]


def test_a_partial_or_middle_part_is_no_tail() -> None:
    assert found("related") == []
    assert found("QuerySet") == []  # camelCase, but no symbol ends in it
    assert found("query.QuerySet") == []
    assert found("back") == []


def test_code_naming_nothing_as_written_finds_its_trailing_part_less_surely() -> None:
    """``df.merge`` and ``pd.read_csv`` call through a variable or an alias: what the
    query writes names no symbol, its trailing part does (never when the whole text
    names one: then its tails would be noise)."""
    qualified = round(QUALIFIED_FACTOR * TAIL_FACTOR, 9)

    def rounded(text: str, table: SymbolTable = TABLE) -> list[tuple[Symbol, float]]:
        return [(symbol, round(strength, 9)) for symbol, strength in found(text, table)]

    assert rounded("Set.select_related") == [(SELECT_RELATED, qualified)]
    assert rounded("qs.select_related()") == [(SELECT_RELATED, qualified)]
    table = SymbolTable([JSON, FLASK_JSON])
    assert found("flask.json", table) == [(FLASK_JSON, 1.0)]  # named as written: no tails
    assert rounded("app.json", table) == [(JSON, QUALIFIED_FACTOR), (FLASK_JSON, qualified)]


def test_tail_needs_whole_parts_at_separators() -> None:
    table = SymbolTable([symbol("a.b::c")])
    assert found("b::c", table) == [(symbol("a.b::c"), TAIL_FACTOR)]
    assert found("c", table) == []  # a one-letter plain word: full names only
    assert found("c()", table) == [(symbol("a.b::c"), TAIL_FACTOR)]


# -- several symbols for a name -----------------------------------------------------------


def test_symbols_sharing_a_name_are_all_kept() -> None:
    first, second = symbol("Model.save", "ref/models"), symbol("Model.save", "topics/db")
    table = SymbolTable([first, second])
    assert found("Model.save", table) == [(first, 1.0), (second, 1.0)]
    assert found("save()", table) == [(first, TAIL_FACTOR), (second, TAIL_FACTOR)]
    assert len(table) == 2


def test_symbols_kept_per_name_are_bounded() -> None:
    many = [symbol("Model.save", f"page{i:02}") for i in range(MAX_PER_KEY + 3)]
    table = SymbolTable(many)
    assert found("Model.save", table) == [(s, 1.0) for s in many[:MAX_PER_KEY]]
    assert len(table) == MAX_PER_KEY


def test_symbols_kept_per_tail_are_bounded() -> None:
    many = [symbol(f"module{i:02}.save", f"page{i:02}") for i in range(MAX_PER_KEY + 3)]
    table = SymbolTable(many)
    assert found("save()", table) == [(s, TAIL_FACTOR) for s in many[:MAX_PER_KEY]]
    assert len(table) == len(many)  # each full name is its own key


def test_the_same_symbol_twice_is_kept_once() -> None:
    assert len(SymbolTable([JSON, JSON])) == 1
    assert found("json", SymbolTable([JSON, JSON])) == [(JSON, 1.0)]


def test_same_name_in_two_sections_of_a_page_is_two_symbols() -> None:
    upper, lower = symbol("super", "library/functions", "Super"), symbol("super")
    assert len(SymbolTable([upper, lower])) == 2


# -- strengths ----------------------------------------------------------------------------


def test_strength_scales_with_the_candidates() -> None:
    [match] = TABLE.lookup([("vector::push_back", 0.5)])
    assert match == SymbolMatch(
        symbol=PUSH_BACK, strength=0.5 * TAIL_FACTOR, named_by="vector::push_back"
    )


def test_a_symbol_found_several_ways_keeps_its_best_strength() -> None:
    matches = TABLE.lookup([("push_back", 1.0), ("std::vector::push_back", 0.9)])
    assert [(m.symbol, m.strength, m.named_by) for m in matches] == [
        (PUSH_BACK, 0.9, "std::vector::push_back")  # 0.9 full beats 0.8 tail
    ]
    matches = TABLE.lookup([("push_back", 1.0), ("std::vector::push_back", 0.5)])
    assert [(m.strength, m.named_by) for m in matches] == [(TAIL_FACTOR, "push_back")]


def test_matches_come_strongest_first_then_by_name_and_path() -> None:
    table = SymbolTable(
        [
            symbol("b.save", "p2"),
            symbol("a.save", "p3"),
            symbol("save", "p9"),
            symbol("a.save", "p1"),
        ]
    )
    matches = table.lookup([("save()", 1.0)])
    assert [(m.symbol.name, m.symbol.path, m.strength) for m in matches] == [
        ("save", "p9", 1.0),
        ("a.save", "p1", TAIL_FACTOR),
        ("a.save", "p3", TAIL_FACTOR),
        ("b.save", "p2", TAIL_FACTOR),
    ]


def test_text_naming_nothing_finds_nothing() -> None:
    assert TABLE.lookup([]) == []
    assert found("no.such.symbol") == []
    assert found("") == []


# -- determinism --------------------------------------------------------------------------


def test_lookups_do_not_depend_on_the_order_symbols_arrive_in() -> None:
    """Within the bound per name: 24 names, each tail shared by at most 6 of them."""
    symbols = [
        symbol(f"pkg{a}.mod{b}.func{c}", f"page{a}{b}{c}")
        for a in range(2)
        for b in range(3)
        for c in range(4)
    ]
    queries = [("func1()", 1.0), ("mod2.func3", 0.7), ("pkg0.mod0.func0", 1.0), ("json", 1.0)]
    expected = SymbolTable(symbols).lookup(queries)
    assert len(expected) == 6 + 2 + 1
    rng = random.Random(7)
    for _ in range(20):
        shuffled = symbols[:]
        rng.shuffle(shuffled)
        table = SymbolTable(shuffled)
        assert table.lookup(queries) == expected
        assert table.symbols() == SymbolTable(symbols).symbols()


def test_the_same_lookup_twice_gives_the_same_matches() -> None:
    queries = [("save()", 1.0), ("json", 0.5), ("vector::push_back", 1.0)]
    assert TABLE.lookup(queries) == TABLE.lookup(queries)


def test_symbols_are_listed_by_name() -> None:
    names = [s.name for s in TABLE.symbols()]
    assert names == sorted(names, key=str.casefold)


# -- build_table ----------------------------------------------------------------------------


def test_build_table_keeps_symbols_whose_page_has_a_title() -> None:
    landings = [
        ("json.loads", Landing("library/json", "json.loads")),
        ("gone.func", Landing("library/gone", "gone.func")),
        ("untitled", Landing("library/untitled", None)),
    ]
    titles = {"library/json": "json", "library/untitled": None}
    table = build_table(landings, titles)
    assert table.symbols() == [
        Symbol(name="json.loads", path="library/json", section="json.loads", title="json")
    ]
