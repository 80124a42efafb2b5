"""WebVTT subtitles read as a transcript: cues, the blocks and markup that are no text,
paragraphs, and files that are no WebVTT at all."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus_mcp.adapters.subtitles import (
    PARAGRAPH_CHARS,
    Cue,
    SubtitleError,
    paragraphs,
    read_cues,
    transcript,
)
from corpus_mcp.adapters.ted import TedAdapter
from corpus_mcp.demo import ted


def test_cues_keep_their_timings_and_text() -> None:
    data = (
        b"WEBVTT\n\n00:00:01.500 --> 00:00:04.000\nHello.\n\n01:02:03.004 --> 01:02:05.000\nBye.\n"
    )
    assert read_cues(data) == [Cue(1.5, 4.0, "Hello."), Cue(3723.004, 3725.0, "Bye.")]


def test_identifiers_settings_and_header_text_are_no_text() -> None:
    data = (
        b"WEBVTT - a title\nKind: captions\n\n"
        b"intro\n00:00:01.000 --> 00:00:02.000 align:start position:10%\nFirst line\nsecond line\n"
    )
    assert read_cues(data) == [Cue(1.0, 2.0, "First line second line")]


def test_note_style_and_region_blocks_are_skipped() -> None:
    data = (
        b"WEBVTT\n\nNOTE a comment\nover two lines\n\nSTYLE\n::cue { color: red }\n\n"
        b"REGION\nid:left\n\nNOTE\n\n00:00:01.000 --> 00:00:02.000\nSpoken.\n"
    )
    assert [cue.text for cue in read_cues(data)] == ["Spoken."]


def test_tags_are_stripped_and_references_decoded() -> None:
    data = (
        b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"
        b"<v Dr. Smith>Salt &amp; <c.yellow>pepper</c> <i>at</i> <00:00:01.500>once &lt;3\n"
    )
    assert read_cues(data)[0].text == "Salt & pepper at once <3"


def test_a_byte_order_mark_crlf_and_control_characters_are_tolerated() -> None:
    data = "\ufeffWEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\nOne\x00 two&#xFFFF;\x1f\r\n".encode()
    assert read_cues(data) == [Cue(1.0, 2.0, "One two")]


def test_malformed_cues_and_cues_without_text_are_skipped() -> None:
    data = (
        b"WEBVTT\n\n"
        b"00:00:01 --> 00:00:02\nNo milliseconds.\n\n"
        b"just an identifier\n\n"
        b"id\nnot a timing\nText.\n\n"
        b"00:00:03.000 --> 00:00:04.000\n<b></b>\n\n"
        b"00:00:05.000 --> 00:00:06.000\nKept.\n"
    )
    assert read_cues(data) == [Cue(5.0, 6.0, "Kept.")]


def test_a_timing_line_inside_a_block_starts_the_next_cue() -> None:
    # Cues written without the blank line between them, and a timing line with no text
    # before the next one (Hypothesis found it): "-->" never reaches a transcript.
    data = (
        b"WEBVTT\n\n"
        b"00:00:01.000 --> 00:00:02.000\nOne.\n00:00:02.000 --> 00:00:03.000\nTwo.\n"
        b"00:00:03.000 --> 00:00:04.000\n00:00:04.000 --> 00:00:05.000\n"
        b"not a timing --> at all\nDropped.\n00:00:06.000 --> 00:00:07.000\nThree.\n"
    )
    assert read_cues(data) == [
        Cue(1.0, 2.0, "One."),
        Cue(2.0, 3.0, "Two."),
        Cue(6.0, 7.0, "Three."),
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "no WEBVTT signature"),
        (b"00:00:01.000 --> 00:00:02.000\nNo header.\n", "no WEBVTT signature"),
        (b"WEBVTTX\n\n00:00:01.000 --> 00:00:02.000\nA.\n", "no WEBVTT signature"),
        (b"1\n00:00:01,000 --> 00:00:02,000\nAn SRT file.\n", "no WEBVTT signature"),
        (b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n\xff\xfe\n", "not UTF-8 text"),
    ],
)
def test_what_is_not_webvtt_is_refused(data: bytes, reason: str) -> None:
    with pytest.raises(SubtitleError, match=reason):
        transcript(data)


def test_a_header_alone_is_an_empty_transcript() -> None:
    assert transcript(b"WEBVTT\n") == []


def test_consecutive_cues_make_one_paragraph_until_a_pause() -> None:
    cues = [
        Cue(0.0, 1.0, "One,"),
        Cue(1.2, 2.0, "two."),
        Cue(5.0, 6.0, "After a pause."),
    ]
    assert paragraphs(cues) == ["One, two.", "After a pause."]


def test_a_long_paragraph_ends_at_a_sentence_end() -> None:
    words = "word " * (PARAGRAPH_CHARS // 5)
    cues = [
        Cue(0.0, 1.0, words.strip()),
        Cue(1.1, 2.0, "still going,"),
        Cue(2.1, 3.0, "now it ends.”"),
        Cue(3.1, 4.0, "A new paragraph."),
    ]
    found = paragraphs(cues)
    assert len(found) == 2
    assert found[0].endswith("still going, now it ends.”")
    assert found[1] == "A new paragraph."


def test_a_repeated_cue_is_said_once() -> None:
    cues = [Cue(0.0, 1.0, "Rolling."), Cue(1.0, 2.0, "Rolling."), Cue(2.0, 3.0, "On.")]
    assert paragraphs(cues) == ["Rolling. On."]
    assert paragraphs([]) == []


# -- any bytes ------------------------------------------------------------------------------

_LINES = st.sampled_from(
    [
        "WEBVTT",
        "",
        "NOTE x",
        "STYLE",
        "00:00:01.000 --> 00:00:02.000",
        "00:00:01.000 --> 00:00:00.500 align:end",
        "99:59:59.999 --> 100:00:00.000",
        "1",
        "<v A>text &amp; <c.x>more</c>",
        "&#0; &#xFFFF; <",
        "-->",
    ]
) | st.text(max_size=30)
_FILES = st.lists(_LINES, max_size=30).map(lambda lines: "\n".join(lines).encode()) | st.binary(
    max_size=300
)


@settings(max_examples=200)
@given(data=_FILES)
@example(data=b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n00:00:01.000 --> 00:00:02.000")
def test_any_bytes_are_a_transcript_or_refused(data: bytes) -> None:
    try:
        found = transcript(data)
    except SubtitleError:
        return
    assert all(paragraph and paragraph == paragraph.strip() for paragraph in found)
    assert all("\n" not in paragraph and "-->" not in paragraph for paragraph in found)


@settings(max_examples=50)
@given(english=_FILES, french=_FILES)
def test_a_talk_with_any_subtitle_files_parses(english: bytes, french: bytes) -> None:
    """Whatever its subtitle files hold, a talk is a document with its lead."""
    talk = ted.TALKS[0]
    companions = {
        ted.subtitle_path(talk, "en"): english,
        ted.subtitle_path(talk, "fr"): french,
    }
    page = ted.talk_page(talk).encode()
    for view in (False, True):
        document = TedAdapter().parse_with_companions(
            talk.slug, talk.title, page, "TED", companions, view=view
        )
        assert document.sections[0].id == ""
        assert [s.id for s in document.sections[1:]] in (
            [],
            ["transcript"],
            ["transcript-fr"],
            ["transcript", "transcript-fr"],
        )
