"""Markdown passages, snippets and section hints on a hand-made document."""

from __future__ import annotations

from corpus_mcp.document import Document, Section
from corpus_mcp.ranking import (
    ELLIPSIS,
    flatten_inline,
    passages,
    result_hints,
    section_hints,
    snippet,
)

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
            Section(  # the adapter marks link lists as reference matter
                id="See_also",
                title="See also",
                level=2,
                role="reference",
                content="- Glaucoma and blindness: blind musicians who had glaucoma",
            ),
            Section(
                id="References",
                title="Sources cited",
                level=2,
                role="reference",
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
    assert section_hints("ray charles glaucoma blindness", document)[0] == (
        "Early_life",
        "Early life",
    )
    assert section_hints("Atlantic Records contract", document)[0] == (
        "Atlantic_Records",
        "Atlantic Records",
    )


def test_section_hints_leave_out_sections_far_behind_the_best() -> None:
    # Only the lead and Early life mention "blind"; Career does not come near them.
    hints = [h[0] for h in section_hints("blind from the age of seven", _document())]
    assert hints and set(hints) <= {"", "Early_life"}


def test_section_hints_prefer_the_section_titled_by_the_most_distinctive_word() -> None:
    document = _document()
    # "early" is also in the text of other sections; only one section is about "career".
    assert section_hints("early career", document)[0] == ("Career", "Career")
    assert section_hints("early life", document, limit=1) == [("Early_life", "Early life")]


def test_section_hints_point_at_the_lead_when_the_query_only_names_the_page() -> None:
    document = _document()
    assert section_hints("ray charles", document) == [("", "Ray Charles")]
    assert section_hints("soul genius", document)[0] == ("", "Ray Charles")


def test_section_hints_are_empty_for_unrelated_queries() -> None:
    document = _document()
    assert section_hints("quantum chromodynamics", document) == []
    assert section_hints("glaucoma", document, limit=0) == []


def test_section_hints_never_offer_reference_matter() -> None:
    document = _document()
    ids = {
        hint[0]
        for query in ("glaucoma", "blind", "soul genius", "journal", "blind musicians")
        for hint in section_hints(query, document)
    }
    assert ids
    assert not ids & {"See_also", "References"}


# -- result hints -----------------------------------------------------------------------


def _thread(accepted: bool) -> Document:
    answers = [
        Section(id="answer-7", title="Answer by A", level=2, content="Use a deque."),
        Section(id="answer-9", title="Answer by B", level=2, content="A list works too."),
    ]
    if accepted:
        answers[1] = Section(
            id="accepted-answer",
            title="Accepted answer by B",
            level=2,
            content="Use a list.",
            anchors=["answer-9"],
        )
    question = Section(id="question", title="Which container?", level=2, content="Q?")
    return Document(
        path="questions/1/x", title="Which container?", kind="thread", sections=[question, *answers]
    )


def test_a_thread_hints_its_accepted_answer_first() -> None:
    assert result_hints("which container should I use", _thread(accepted=True))[0] == (
        "accepted-answer",
        "Accepted answer by B",
    )


def test_a_thread_without_accepted_answer_hints_the_best_scored_one() -> None:
    assert result_hints("which container", _thread(accepted=False))[0] == (
        "answer-7",
        "Answer by A",
    )


def test_a_landing_section_comes_first_and_an_alias_resolves_to_its_section() -> None:
    thread = _thread(accepted=True)
    assert result_hints("container", thread, landing="answer-9")[0] == (
        "accepted-answer",
        "Accepted answer by B",
    )


def test_an_anchor_inside_the_lead_is_hinted_by_its_own_id() -> None:
    page = Document(
        path="library/functions",
        title="Functions",
        kind="documentation",
        sections=[
            Section(
                id="", title="Functions", level=1, content="super() ...", anchors=["abs", "super"]
            )
        ],
    )
    assert result_hints("super", page, landing="super") == [("super", "super")]


def test_an_unknown_landing_is_ignored() -> None:
    doc = _document()
    assert result_hints("ray charles early life", doc, landing="Nowhere") == section_hints(
        "ray charles early life", doc
    )


def _singer() -> Document:
    lead = (
        "**Elvis Aaron Presley** was an American singer and actor.\n\n"
        "**Elvis Presley**\n- Born: Elvis Aaron Presley; January 8, 1935\n"
        "- Spouse: Priscilla Presley\n- Branch: United States Army\n"
        "- Years of service: 1958–1960\n\n"
        "Drafted into military service in 1958, Presley relaunched his career two years later."
    )
    return Document(
        path="Elvis_Presley",
        title="Elvis Presley",
        kind="article",
        sections=[Section(id="", title="", level=1, content=lead)],
    )


def test_snippet_terms_of_the_title_do_not_pick_the_passage() -> None:
    # Every passage names "Elvis Presley"; "army" and "service" decide, and both are
    # only in the infobox, so the infobox wins, centred on them.
    text = snippet("Elvis Presley army service", _singer())
    assert "Branch: United States Army" in text
    assert "Years of service" in text


def test_snippet_prose_beats_an_infobox_naming_the_same_terms() -> None:
    # "service" is in both the infobox and the prose: at equal terms, prose wins.
    assert snippet("Elvis Presley service", _singer()).startswith("Drafted into military")
    assert snippet("Elvis Presley military service", _singer()).startswith("Drafted")


def test_a_landing_the_query_asks_for_is_the_only_hint() -> None:
    doc = _document()
    hints = result_hints("glaucoma", doc, landing="Early_life", landing_answers=True)
    assert hints == [("Early_life", "Early life")]
    wider = result_hints("atlantic", doc, landing="Early_life")
    assert wider[0] == ("Early_life", "Early life")
    assert ("Atlantic_Records", "Atlantic Records") in wider


def test_a_section_and_its_subsection_are_never_both_hinted() -> None:
    career = next(s for s in _document().sections if s.id == "Career")
    hints = {h[0] for h in section_hints("Atlantic Records Seattle hits", _document())}
    assert not {career.id, career.children[0].id} <= hints


def test_a_section_whose_title_the_query_spells_out_comes_first() -> None:
    document = Document(
        path="topics/migrations",
        title="Migrations",
        kind="documentation",
        sections=[
            Section(id="", title="Migrations", level=1, content="Migrations propagate changes."),
            Section(
                id="workflow",
                title="Workflow",
                level=2,
                content="Squash them, merge them, squash again: migrations squash well.",
            ),
            Section(
                id="squashing-migrations",
                title="Squashing migrations",
                level=2,
                content="Reduce many migrations to a few.",
            ),
        ],
    )
    assert section_hints("how does squashing migrations work", document)[0][0] == (
        "squashing-migrations"
    )


# -- math threads, comments and API entries ------------------------------------------------

MATH = Document(
    path="questions/1/basel",
    title="Why is the sum of reciprocal squares pi squared over six?",
    kind="thread",
    metadata={"tex": "true"},
    sections=[
        Section(
            id="question",
            title="Why is the sum of reciprocal squares pi squared over six?",
            level=2,
            content=(
                "Where does $\\pi^2/6$ come from when $n \\to \\infty$ and why is\n\n"
                "$$\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$$\n\nthe Basel result?"
            ),
            children=[
                Section(
                    id="comments-1",
                    title="Comments",
                    level=3,
                    role="comments",
                    content=(
                        "- (5) Look up the Basel problem and Parseval. — Euler Fan, 2010-07-20\n"
                        "- Parseval's identity gives it too. — Did, 2010-07-21"
                    ),
                )
            ],
        )
    ],
)


def test_a_math_thread_keeps_its_tex_in_passages_and_snippets() -> None:
    [first, display, last] = passages(MATH.sections[0].content, tex=True)
    assert first.text == "Where does $\\pi^2/6$ come from when $n \\to \\infty$ and why is"
    assert display.text == "$$\\sum_{n=1}^\\infty \\frac{1}{n^2} = \\frac{\\pi^2}{6}$$"
    assert last.text == "the Basel result?"
    shown = snippet("where does pi come from when n goes to infinity", MATH)
    assert "$\\pi^2/6$" in shown and "$n \\to \\infty$" in shown


def test_comments_are_searched_without_their_scores_and_bylines_and_never_hinted() -> None:
    shown = snippet("Parseval identity", MATH)
    assert "Parseval" in shown
    assert "—" not in shown and "Euler Fan" not in shown and "(5)" not in shown
    assert all(hint != "comments-1" for hint, _ in section_hints("Parseval identity", MATH))


def test_an_entry_named_by_the_query_is_its_own_snippet() -> None:
    page = Document(
        path="api",
        title="API",
        kind="documentation",
        sections=[
            Section(
                id="", title="API", level=1, content="Use the route decorator or add_url_rule."
            ),
            Section(
                id="flask.Flask.route",
                title="route(rule, **options)",
                level=2,
                role="entry",
                content="Decorate a view function to register it with the given URL rule.",
            ),
        ],
    )
    shown = snippet("Flask.route", page, within="flask.Flask.route")
    assert shown.startswith("Decorate a view function")
