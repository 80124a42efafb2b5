"""The ref codec: round trips for every awkward path (properties over arbitrary Unicode),
the readable form in any script, refs written before still accepted, and every way a
ref can be invalid."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from corpus_mcp import assemble, refs
from corpus_mcp.errors import CorpusError
from corpus_mcp.ranking.passages import flatten_inline
from corpus_mcp.wire import FetchedSection

LIBRARIES = ("Wikipedia", "Python-Docs", "StackOverflow")
_OLD_SAFE = "/:@!$&'()*+,;=-._~"
"""What the encoder before IRI refs kept: every other character was percent-encoded."""


def old_ref(library: str, path: str, fragment: str | None = None) -> str:
    """A ref as the server wrote it before IRI refs (an agent may still hold one)."""
    ref = f"corpus://{library}/{quote(path, safe=_OLD_SAFE)}"
    return f"{ref}#{quote(fragment, safe=_OLD_SAFE)}" if fragment else ref


def fully_escaped(text: str) -> str:
    """``text`` with every byte percent-encoded, slashes too."""
    return "".join(f"%{byte:02X}" for byte in text.encode("utf-8"))


# Every path python-libzim can name (its paths are UTF-8, decoded strictly, and a dirent's
# path ends at NUL), less the ones decode refuses on purpose ('.' and '..' segments, a
# leading '/').
_CHARACTERS = st.characters(codec="utf-8", exclude_characters="\x00")
paths = st.text(_CHARACTERS, min_size=1).filter(
    lambda path: not path.startswith("/") and not {".", ".."} & set(path.split("/"))
)
fragments = st.text(_CHARACTERS, min_size=1)
# Text of every script as titles hold it: letters and digits, with marks on them.
_SHOWN = st.characters(categories=("L", "N")).filter(lambda c: c not in refs._INVISIBLE)
_MARKED = st.characters(categories=("L", "N", "Mn", "Mc")).filter(
    lambda c: c not in refs._INVISIBLE
)
words = st.builds(
    lambda first, rest: unicodedata.normalize("NFC", first + rest), _SHOWN, st.text(_MARKED)
)


@given(paths, st.none() | fragments)
@example("100%41", None)
@example("e\u0301t\u00e9", "Caf\u0065\u0301")
@example("Ray_(film)", "Sm:)")
@example("x\u200b\u0307", None)
def test_every_path_and_fragment_round_trips(path: str, fragment: str | None) -> None:
    ref = refs.encode("Wikipedia", path, fragment)
    assert refs.decode(ref, LIBRARIES) == ("Wikipedia", path, fragment)


@given(paths, st.none() | fragments)
def test_a_ref_survives_nfc_normalisation_unchanged(path: str, fragment: str | None) -> None:
    """Whatever normalises text to NFC on the way (many pipelines do) leaves a ref as it
    is, so it still names the exact bytes of a path that is not in NFC."""
    ref = refs.encode("Wikipedia", path, fragment)
    assert unicodedata.normalize("NFC", ref) == ref


@given(paths, st.none() | fragments)
def test_refs_written_before_still_name_the_same_target(path: str, fragment: str | None) -> None:
    """The fully percent-encoded refs of earlier answers, and any other spelling of the
    same path, decode to what the new ref decodes to."""
    expected = ("Wikipedia", path, fragment)
    spelt = f"corpus://wikipedia/{fully_escaped(path)}"
    if fragment:
        spelt += f"#{fully_escaped(fragment)}"
    for ref in (old_ref("Wikipedia", path, fragment), spelt):
        if len(ref) > refs.MAX_REF_CHARS:
            # Escaping every character can pass the length any ref may have: refused
            # alike, old or new, saying why.
            with pytest.raises(CorpusError, match="longer than"):
                refs.decode(ref, LIBRARIES)
        else:
            assert refs.decode(ref, LIBRARIES) == expected


@given(paths, st.none() | fragments)
def test_a_ref_holds_nothing_that_breaks_or_hides(path: str, fragment: str | None) -> None:
    ref = refs.encode("Wikipedia", path, fragment)
    assert ref.count("#") == (1 if fragment else 0)
    assert not any(char.isspace() for char in ref)
    hidden = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"}
    assert not any(unicodedata.category(char) in hidden for char in ref)
    assert not (refs._LOOKALIKES | refs._INVISIBLE) & set(ref)
    assert not set('"<>\\^`{|}[]?') & set(ref)
    # Every % opens an escape: a literal one is itself escaped.
    assert re.fullmatch(r"(?:[^%]|%[0-9A-F]{2})*", ref)


@given(paths, st.none() | fragments)
def test_a_ref_is_read_whole_as_a_markdown_link(path: str, fragment: str | None) -> None:
    """Fetched text links with the same refs; the link patterns read them back whole,
    and an anchor link to the same document names its section."""
    ref = refs.encode("Wikipedia", path, fragment)
    section = FetchedSection(id="", title="", level=1, content=f"See [the page]({ref}) now.")
    assert assemble.link_paths([section]) == {path}
    assert flatten_inline(section.content) == "See the page now."
    if fragment:
        link = refs.anchor(fragment)
        assert refs.anchor_of(link) == fragment
        inside = FetchedSection(id="", title="", level=1, content=f"[there]({link})")
        assert assemble.without_dead_links([inside], {}, {fragment}) == [inside]


@given(words, words)
def test_letters_digits_and_marks_of_every_script_stay_as_they_are(first: str, second: str) -> None:
    path = f"{first}_{second}/{second}"
    assert refs.encode("Wikipedia", path, first) == f"corpus://Wikipedia/{path}#{first}"


@pytest.mark.parametrize(
    ("path", "ref"),
    [
        ("Італьянская_кухня", "corpus://Wikibooks/Італьянская_кухня"),
        ("Ray_(film)", "corpus://Wikibooks/Ray_(film)"),
        ("Category:Blues/x", "corpus://Wikibooks/Category:Blues/x"),
        ("日本語/ページ", "corpus://Wikibooks/日本語/ページ"),
        ("ノルウェー", "corpus://Wikibooks/ノルウェー"),
        ("हिन्दी_भाषा", "corpus://Wikibooks/हिन्दी_भाषा"),
        ("اللغة_العربية", "corpus://Wikibooks/اللغة_العربية"),
        ("Tiếng_Việt", "corpus://Wikibooks/Tiếng_Việt"),
        ("한국어", "corpus://Wikibooks/한국어"),
        ("a b#c?d%e", "corpus://Wikibooks/a%20b%23c%3Fd%25e"),
        ("100%41", "corpus://Wikibooks/100%2541"),
        # Bidi and zero-width characters: two refs would look alike.
        ("abc\u202edef", "corpus://Wikibooks/abc%E2%80%AEdef"),
        ("زبان\u200cها", "corpus://Wikibooks/زبان%E2%80%8Cها"),
        ("a\u00a0b\u3000c", "corpus://Wikibooks/a%C2%A0b%E3%80%80c"),
        # Separators' lookalikes; letters that look like one stay.
        ("AC\u2215DC", "corpus://Wikibooks/AC%E2%88%95DC"),
        ("1\u20442", "corpus://Wikibooks/1%E2%81%842"),
        ("a\uff0fb\uff03c\uff05", "corpus://Wikibooks/a%EF%BC%8Fb%EF%BC%83c%EF%BC%85"),
        ("なぜ？", "corpus://Wikibooks/なぜ？"),
        # Variation selectors render as nothing; a mark on an escape or a slash is escaped.
        ("\u2764\ufe0f", "corpus://Wikibooks/\u2764%EF%B8%8F"),
        ("a/\u0301b", "corpus://Wikibooks/a/%CC%81b"),
        # Unbalanced or nested parentheses would end a Markdown link early.
        ("Smiley_:)", "corpus://Wikibooks/Smiley_:%29"),
        ("a_(b_(c))", "corpus://Wikibooks/a_%28b_%28c%29%29"),
        ("(a)_(b)", "corpus://Wikibooks/(a)_(b)"),
    ],
)
def test_a_ref_keeps_every_script_and_escapes_only_what_confuses(path: str, ref: str) -> None:
    assert refs.encode("Wikibooks", path) == ref
    assert refs.decode(ref, ["Wikibooks"]).path == path


def test_a_path_not_in_nfc_shows_its_composing_characters_escaped() -> None:
    decomposed = unicodedata.normalize("NFD", "Café_Noël")
    ref = refs.encode("Wikipedia", f"{decomposed}/été")
    # Only the segment that is not NFC; its letters stay, its marks are escapes.
    assert ref == "corpus://Wikipedia/Cafe%CC%81_Noe%CC%88l/été"
    assert refs.decode(unicodedata.normalize("NFC", ref), LIBRARIES).path == f"{decomposed}/été"
    # NFC would replace the Angstrom sign and compose the jamo with the syllable before it.
    assert refs.encode("Wikipedia", "\u212b_A\u030a") == "corpus://Wikipedia/%E2%84%AB_A%CC%8A"
    assert refs.encode("Wikipedia", "\uac00\u11a8") == "corpus://Wikipedia/\uac00%E1%86%A8"


def test_the_nfc_rule_covers_every_character_that_composes_or_reorders() -> None:
    """What the NFC rule of the codec rests on, checked against the running Python's
    Unicode data: every character that NFC may attach to the one before it (the second
    of a canonical pair, a non-starter) is a mark or a Hangul vowel or final consonant,
    all escaped in a segment that is not in NFC; and every character Python's regular
    expressions take for whitespace is escaped."""
    seconds = set()
    for code in range(0x110000):
        char = chr(code)
        decomposition = unicodedata.decomposition(char)
        if unicodedata.combining(char):
            assert refs._composes(char, unicodedata.category(char)), hex(code)
        if decomposition and not decomposition.startswith("<"):
            parts = [chr(int(part, 16)) for part in decomposition.split()]
            if len(parts) == 2 and unicodedata.normalize("NFC", "".join(parts)) == char:
                seconds.add(parts[1])
        if char.isspace():
            assert refs.encode("W", f"a{char}b") != f"corpus://W/a{char}b", hex(code)
    jamo = {chr(c) for c in [*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)]}
    assert all(refs._composes(char, unicodedata.category(char)) for char in seconds | jamo)


def test_a_link_to_a_section_of_the_same_document_is_spelt_as_a_ref_spells_it() -> None:
    assert refs.anchor("Ранняе_жыццё") == "#Ранняе_жыццё"
    assert refs.anchor("Life_–_1950s") == "#Life_–_1950s"
    assert refs.anchor("a b%") == "#a%20b%25"
    assert refs.anchor_of("#a%20b%25") == "a b%"
    assert refs.anchor_of("#bad%FF") == "bad\ufffd"


@pytest.mark.parametrize(
    "fragment",
    [
        "flask.Flask.route",
        "answer-1012",
        "1031",
        "Early_life",
        "a b#c",
        "Kö/ln",
        "Біяграфія_–_ранні_гады",
        "Carrera_(1950–1960)",
        ".D0.91.D1.96",
    ],
)
def test_a_fragment_names_an_anchor_and_round_trips(fragment: str) -> None:
    ref = refs.encode("Python-Docs", "library/functions", fragment)
    assert ref.count("#") == 1
    assert refs.decode(ref, LIBRARIES) == ("Python-Docs", "library/functions", fragment)


def test_a_section_id_in_another_script_stays_readable_in_a_ref() -> None:
    ref = refs.encode("Wikipedia", "Рэй_Чарльз", "Біяграфія_–_ранні_гады")
    assert ref == "corpus://Wikipedia/Рэй_Чарльз#Біяграфія_–_ранні_гады"


def test_library_matches_case_insensitively_and_returns_configured_spelling() -> None:
    assert refs.decode("corpus://WIKIPEDIA/X", LIBRARIES) == ("Wikipedia", "X", None)
    assert refs.decode("corpus://python-docs/X", LIBRARIES) == ("Python-Docs", "X", None)


def test_a_hash_in_a_path_is_not_a_fragment_and_an_empty_fragment_is_none() -> None:
    assert refs.decode(refs.encode("Wikipedia", "C#"), LIBRARIES) == ("Wikipedia", "C#", None)
    assert refs.decode("corpus://Wikipedia/X#", LIBRARIES) == ("Wikipedia", "X", None)
    assert refs.decode("corpus://Wikipedia/X#Early_life", LIBRARIES).fragment == "Early_life"


def test_an_escaped_control_character_round_trips_but_a_raw_one_is_refused() -> None:
    """An archive may store any character but NUL in a path; a ref spells controls as
    escapes, and a raw one in a ref is garbage, not a path."""
    ref = refs.encode("Wikipedia", "tab\there")
    assert ref == "corpus://Wikipedia/tab%09here"
    assert refs.decode(ref, LIBRARIES).path == "tab\there"


@pytest.mark.parametrize(
    ("ref", "needle"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("http://Wikipedia/Ray_Charles", "start with"),
        ("zim://Wikipedia/A/Ray_Charles", "start with"),
        ("Ray_Charles", "start with"),
        ("corpus://nowhere/Ray_Charles", "unknown library 'nowhere'"),
        ("corpus://Wikipedia", "no document path"),
        ("corpus://Wikipedia/", "no document path"),
        ("corpus://Wikipedia/../etc/passwd", "'..'"),
        ("corpus://Wikipedia/a/../../b", "'..'"),
        ("corpus://Wikipedia/%2E%2E/secret", "'..'"),
        ("corpus://Wikipedia/./x", "'.'"),
        ("corpus://Wikipedia//etc/passwd", "start with '/'"),
        ("corpus://Wikipedia/%2Fetc", "start with '/'"),
        ("corpus://Wikipedia/Ray\nCharles", "control characters"),
        ("corpus://Wikipedia/Ray\ud800", "control characters"),
        ("corpus://Wikipedia/Ray%00Charles", "path contains a NUL character"),
        ("corpus://Wikipedia/%ff%fe", "not UTF-8"),
        ("corpus://Wikipedia/%ED%A0%80", "not UTF-8"),
        ("corpus://Wikipedia/X#%ff", "anchor has percent-escapes that are not UTF-8"),
        ("corpus://Wikipedia/X#a%00b", "anchor contains a NUL character"),
        ("corpus://Wikipedia/#Early_life", "no document path"),
        ("corpus://Wikipedia/" + "x" * 3000, "longer than"),
    ],
)
def test_invalid_refs_are_rejected_with_a_reason(ref: str, needle: str) -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode(ref, LIBRARIES)
    assert info.value.code == "invalid_ref"
    assert needle in info.value.message


def test_a_lone_surrogate_is_escaped_not_a_crash() -> None:
    """No archive path holds one (libzim's are UTF-8); encoding one still gives a ref,
    which decode refuses as not UTF-8."""
    ref = refs.encode("Wikipedia", "a\ud800")
    assert ref == "corpus://Wikipedia/a%ED%A0%80"
    with pytest.raises(CorpusError, match="not UTF-8"):
        refs.decode(ref, LIBRARIES)


def test_unknown_library_lists_the_known_ones() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode("corpus://nowhere/x", LIBRARIES)
    assert "Python-Docs, StackOverflow, Wikipedia" in info.value.message


def test_disabled_library_is_invalid_and_says_so() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode("corpus://mdwiki/Asthma", LIBRARIES, disabled=("MDWiki",))
    assert info.value.code == "invalid_ref"
    assert "not enabled" in info.value.message


def test_non_string_ref_is_invalid() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode(42, LIBRARIES)
    assert info.value.code == "invalid_ref"
