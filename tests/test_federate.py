"""Federation of per-library hits (pure): one evidence score for every library's
candidates, word weights from the whole corpus, aliases, symbols, scope, landings."""

from __future__ import annotations

import msgspec

from corpus_mcp.federate import competitive, federate, weigh_words
from corpus_mcp.gather import Hit, LibraryHits
from corpus_mcp.ranking.scope import Scope
from corpus_mcp.ranking.text import stem


def _hits(
    fulltext: list[Hit],
    title: list[Hit] | None = None,
    symbols: list[Hit] | None = None,
    *,
    doc_count: int = 0,
    frequencies: tuple[int, ...] = (),
) -> LibraryHits:
    return LibraryHits(
        fulltext=fulltext,
        title=title or [],
        queries_tried=1,
        symbols=symbols or [],
        doc_count=doc_count,
        average_length=100.0,
        frequencies=frequencies,
    )


def _ranked(query: str, hits: dict[str, LibraryHits], **scopes: Scope) -> list[tuple[str, str]]:
    return [c.key for c in federate(query, hits, weigh_words(query, hits), scopes)]


def test_a_word_rare_in_the_whole_corpus_outweighs_a_common_one() -> None:
    # "python glaucoma": every document of both libraries says "python", few "glaucoma".
    query = "python glaucoma"
    hits = {
        "code": _hits(
            [Hit(path="Py", title="Snakes", length=100, frequencies=(9, 0))],
            doc_count=100,
            frequencies=(90, 0),
        ),
        "health": _hits(
            [Hit(path="Eye", title="Eyes", length=100, frequencies=(0, 3))],
            doc_count=100,
            frequencies=(5, 2),
        ),
    }
    assert _ranked(query, hits) == [("health", "Eye"), ("code", "Py")]


def test_a_tie_is_decided_by_path_never_by_the_library_name() -> None:
    hits = {
        "a": _hits(
            [Hit(path="Zebra", title="Trio", length=100, frequencies=(2,))],
            doc_count=10,
            frequencies=(2,),
        ),
        "b": _hits(
            [Hit(path="Aardvark", title="Trio", length=100, frequencies=(2,))],
            doc_count=10,
            frequencies=(2,),
        ),
    }
    reversed_hits = dict(reversed(list(hits.items())))
    assert (
        _ranked("trio", hits)
        == _ranked("trio", reversed_hits)
        == [
            ("b", "Aardvark"),
            ("a", "Zebra"),
        ]
    )


def test_a_redirect_alias_counts_as_a_title_and_the_entry_title_is_kept() -> None:
    target = Hit(path="Ray_Charles", title="Ray Charles", alias="Charles, Ray")
    hits = {
        "music": _hits([], title=[target]),
        "other": _hits([Hit(path="Charles_River", title="Charles River")]),
    }
    [best, *_] = federate("Charles, Ray", hits, weigh_words("Charles, Ray", hits))
    assert best.key == ("music", "Ray_Charles")
    assert best.scored.exact > 0
    assert best.hit.title == "Ray Charles"  # the document is parsed with its entry title


def test_a_symbol_the_query_names_wins_and_carries_its_anchor() -> None:
    symbol = Hit(
        path="library/functions",
        title="Built-in Functions",
        alias="super",
        section="super",
        strength=1.0,
        named_by="super",
    )
    forum = [Hit(path=f"questions/{i}/x", title=f"Using super {i}") for i in range(5)]
    hits = {"devdocs": _hits([], symbols=[symbol]), "forum": _hits(forum)}
    [best, *_] = federate("super", hits, weigh_words("super", hits))
    assert best.key == ("devdocs", "library/functions")
    assert best.hit.section == "super"


def test_a_symbol_mentioned_in_passing_counts_by_its_share_of_the_question() -> None:
    symbol = Hit(path="api", title="api", alias="flask.render_template", strength=0.8)
    query = "make a value available to every template without passing it to render_template"
    alone = federate(
        "render_template",
        {"docs": _hits([], symbols=[_named(symbol, "render_template")])},
        weigh_words("render_template", {}),
    )
    passing = federate(
        query,
        {"docs": _hits([], symbols=[_named(symbol, "render_template")])},
        weigh_words(query, {}),
    )
    assert alone[0].scored.symbol > 4 * passing[0].scored.symbol > 0


def test_the_library_a_query_names_is_preferred_and_its_name_is_no_title_evidence() -> None:
    query = "flask templates"
    hits = {
        "flask": _hits([Hit(path="templating", title="Templates")]),
        "django": _hits([Hit(path="topics/templates", title="Templates")]),
    }
    scopes = {
        "flask": Scope(stems=frozenset({stem("flask")})),
        "django": Scope(stems=frozenset({stem("django")})),
    }
    assert _ranked(query, hits, **scopes)[0] == ("flask", "templating")
    # A page titled after the library ("flask", DevDocs' name for its API page) does not
    # match the query by that word.
    api = {"flask": _hits([Hit(path="api", title="flask")])}
    [candidate] = federate(query, api, weigh_words(query, api), scopes)
    assert candidate.scored.title == 0


def test_a_title_spelled_out_in_a_question_ranks_its_document_first() -> None:
    query = "which gospel song was I Got a Woman based on"
    # Document frequencies of gospel, song, got, woman, based in a music archive.
    hits = {
        "wiki": _hits(
            [],
            title=[
                Hit(path="Gospel_music", title="Gospel music"),
                Hit(path="I_Got_a_Woman", title="I Got a Woman"),
                Hit(path="Woman_(song)", title="Woman (song)"),
            ],
            doc_count=100,
            frequencies=(10, 60, 5, 8, 30),
        )
    }
    ranked = federate(query, hits, weigh_words(query, hits))
    assert ranked[0].key == ("wiki", "I_Got_a_Woman")
    assert ranked[0].scored.contained > 0
    # "Woman (song)" is held by the query too, but its qualifier "song" is named: it is
    # contained; a one-word run weighs less than the whole title.
    woman = next(c for c in ranked if c.path == "Woman_(song)")
    assert woman.scored.contained < ranked[0].scored.contained


def _named(hit: Hit, text: str) -> Hit:
    return msgspec.structs.replace(hit, named_by=text)


def test_another_library_s_name_is_no_evidence_in_a_library_s_pages() -> None:
    # "postgres" in a Django heading says the question is about PostgreSQL.
    query = "postgres nulls last"
    hits = {
        "django": _hits(
            [Hit(path="expressions", title="Query Expressions", length=100, frequencies=(3, 2, 2))],
            doc_count=100,
            frequencies=(5, 4, 30),
        ),
        "pg": _hits(
            [Hit(path="queries-order", title="Sorting Rows", length=100, frequencies=(2, 1, 1))],
            doc_count=100,
            frequencies=(90, 3, 20),
        ),
    }
    scopes = {
        "django": Scope(stems=frozenset({stem("django")})),
        "pg": Scope(stems=frozenset({stem("postgres"), stem("postgresql")})),
    }
    assert _ranked(query, hits, **scopes)[0] == ("pg", "queries-order")
    [django] = [
        c for c in federate(query, hits, weigh_words(query, hits), scopes) if c.library == "django"
    ]
    assert django.evidence.foreign_stems == frozenset({stem("postgres"), stem("postgresql")})
    assert not django.evidence.scope


def test_a_candidate_far_below_the_best_is_no_result() -> None:
    query = "ray charles piano"
    hits = {
        "wiki": _hits(
            [
                Hit(path="Ray_Charles", title="Ray Charles", length=100, frequencies=(9, 9, 4)),
                Hit(
                    path="Charles_Darwin", title="Charles Darwin", length=100, frequencies=(0, 3, 0)
                ),
            ],
            doc_count=100,
            frequencies=(3, 10, 8),
        )
    }
    ranked = federate(query, hits, weigh_words(query, hits))
    assert [c.path for c in competitive(ranked)] == ["Ray_Charles"]
    assert competitive([]) == []
