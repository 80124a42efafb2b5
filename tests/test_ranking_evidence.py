"""Evidence scoring (pure): word weights from the whole corpus, and what each kind of
evidence promises about a candidate."""

from __future__ import annotations

import pytest

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.evidence import (
    Evidence,
    LibraryStats,
    Word,
    idf,
    read_evidence,
    score,
    word_weights,
)
from corpus_mcp.ranking.terms import index_document
from corpus_mcp.ranking.text import stem


def test_word_weights_sum_frequencies_over_libraries_as_one_index() -> None:
    words = word_weights(
        ["python", "glaucoma"],
        [LibraryStats(100, 50.0, (90, 1)), LibraryStats(100, 50.0, (10, 3))],
    )
    assert words == [Word("python", idf(100, 200)), Word("glaucoma", idf(4, 200))]
    assert words[1].weight > 5 * words[0].weight


def test_a_word_no_indexed_document_has_weighs_the_most() -> None:
    # It finds nothing in the indexes, but a title-only library's document may have it.
    [seen, unseen] = word_weights(["song", "conner"], [LibraryStats(10, 5.0, (4, 0))])
    assert unseen.weight == idf(0, 10) > seen.weight > 0


def test_without_statistics_every_word_weighs_one() -> None:
    assert word_weights(["a", "b"], []) == [Word("a", 1.0), Word("b", 1.0)]


WORDS = [Word("seven", 3.0), Word("spanish", 3.0), Word("angels", 3.0), Word("ray", 0.5)]
QUERY = "who sang Seven Spanish Angels with Ray"


def test_a_title_spelled_out_in_the_question_counts_by_the_weight_of_its_words() -> None:
    song = score(QUERY, WORDS, Evidence(titles=("Seven Spanish Angels",)))
    singer = score(QUERY, WORDS, Evidence(titles=("Ray",)))
    assert song.contained > singer.contained > 0
    assert song.total > singer.total


def test_a_disambiguated_title_is_contained_only_when_its_qualifier_is_named() -> None:
    words = [Word("crying", 2.0), Word("time", 1.0), Word("recorded", 1.0)]
    query = "who first recorded Crying Time"
    song = score(query, words, Evidence(titles=("Crying Time (song)",)))
    album = score(query, words, Evidence(titles=("Crying Time (album)",)))
    assert album.contained == 0
    assert song.contained == 0  # "song" is not named either
    named = score(
        query + " the song", [*words, Word("song", 1.0)], Evidence(titles=("Crying Time (song)",))
    )
    assert named.contained > 0


def test_an_exact_title_scores_most() -> None:
    exact = score("Crying Time", WORDS, Evidence(titles=("crying time",)))
    assert exact.exact > 0
    other = score("Crying Time", WORDS, Evidence(titles=("Crying Time (album)",)))
    assert other.exact == 0


def test_the_library_scope_word_is_no_title_evidence_of_its_own_pages() -> None:
    words = [Word("flask", 2.0), Word("templates", 2.0)]
    scope = frozenset({stem("flask")})
    page = score("flask templates", words, Evidence(titles=("flask",), scope_stems=scope))
    assert page.title == 0
    templating = score("flask templates", words, Evidence(titles=("Templates",), scope_stems=scope))
    assert templating.title > 0


def test_body_evidence_rewards_coverage_of_rare_words() -> None:
    words = [Word("common", 0.2), Word("rare", 3.0)]
    rare = score("common rare", words, Evidence(titles=(), frequencies=(0, 2), length=100))
    common = score("common rare", words, Evidence(titles=(), frequencies=(9, 0), length=100))
    assert rare.body > common.body > 0


def test_a_symbol_counts_by_the_share_of_the_question_it_is() -> None:
    alone = score("render_template", [Word("render_template", 3.0)], _symbol("render_template"))
    words = [Word("render_template", 3.0), Word("available", 1.0), Word("templates", 2.0)]
    passing = score(
        "available to all templates without render_template", words, _symbol("render_template")
    )
    # half the question's weight: a quarter of the evidence
    assert alone.symbol == pytest.approx(4 * passing.symbol)
    assert passing.symbol > 0


def _symbol(text: str) -> Evidence:
    return Evidence(titles=("api",), symbol=1.0, symbol_text=text)


def _api_page() -> Document:
    return Document(
        path="api",
        title="flask",
        kind="documentation",
        metadata={"heading": "API"},
        sections=[
            Section(id="", title="API", level=1, content="Intro."),
            Section(
                id="sessions",
                title="Sessions",
                level=2,
                content="Cookies are signed.",
                children=[Section(id="interface", title="Interface", level=3, content="Save it.")],
            ),
            Section(
                id="refs",
                title="References",
                level=2,
                role="reference",
                content="Cookies interface save.",
            ),
        ],
    )


def _read(words: list[Word], evidence: Evidence | None = None) -> Evidence:
    page = _api_page()
    return read_evidence(
        evidence or Evidence(titles=("flask",), frequencies=(1,) * len(words)),
        page,
        index_document(page),
        words,
    )


def test_read_evidence_adds_the_page_heading_as_a_title() -> None:
    assert _read([Word("api", 1.0)]).titles == ("flask", "API")


def test_the_best_heading_is_the_share_one_section_title_holds() -> None:
    evidence = _read([Word("sessions", 2.0), Word("interface", 1.0), Word("other", 1.0)])
    assert evidence.heading == pytest.approx(2 / 4)


def test_a_passage_holds_its_text_and_its_sections_titles() -> None:
    # "Save it." under Interface under Sessions holds all three words.
    evidence = _read([Word("sessions", 1.0), Word("interface", 1.0), Word("save", 1.0)])
    assert evidence.passage == pytest.approx(1.0)
    assert evidence.text_share is None  # the index described the candidate


def test_reference_matter_is_no_evidence() -> None:
    evidence = _read([Word("cookies", 1.0), Word("save", 1.0), Word("references", 1.0)])
    assert evidence.passage == pytest.approx(1 / 3)


def test_read_evidence_gives_a_text_share_to_candidates_no_index_described() -> None:
    document = Document(
        path="x",
        title="X",
        kind="article",
        sections=[Section(id="", title="", level=1, content="Directed by Bruce Conner.")],
    )
    words = [Word("bruce", 1.0), Word("conner", 1.0)]
    evidence = read_evidence(Evidence(titles=("X",)), document, index_document(document), words)
    assert evidence.text_share == pytest.approx(1.0)
    assert score("bruce conner", words, evidence).body == pytest.approx(0.5)
