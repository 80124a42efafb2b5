"""The ref codec: round trips for every awkward path, and every way a ref can be invalid."""

from __future__ import annotations

import pytest

from corpus_mcp import refs
from corpus_mcp.errors import CorpusError

LIBRARIES = ("wikipedia", "devdocs_python", "stackoverflow")


@pytest.mark.parametrize(
    "path",
    [
        "Ray_Charles",
        "Ray_(film)",
        "Charles,_Ray",
        "C++",
        "Category:Blues",
        "Foo/Bar/Baz",
        "library/functions",
        "questions/11/how-does-super-work",
        "a/1234",
        "with space",
        "hash#inside",
        "question?mark",
        "percent%20literal",
        "100%",
        "Beyoncé",
        "Першая_старонка",
        "日本語/ページ",
        "emoji_🎹",
        "tilde~and'quote",
    ],
)
def test_every_path_round_trips(path: str) -> None:
    ref = refs.encode("wikipedia", path)
    assert ref.startswith("corpus://wikipedia/")
    assert refs.decode(ref, LIBRARIES) == ("wikipedia", path, None)


def test_refs_stay_readable_for_common_titles() -> None:
    assert refs.encode("wikipedia", "Ray_(film)") == "corpus://wikipedia/Ray_(film)"
    assert refs.encode("wikipedia", "Category:Blues/x") == "corpus://wikipedia/Category:Blues/x"
    assert refs.encode("wikipedia", "a b#c?d%e") == "corpus://wikipedia/a%20b%23c%3Fd%25e"


def test_library_matches_case_insensitively_and_returns_configured_spelling() -> None:
    assert refs.decode("corpus://WikiPedia/X", LIBRARIES) == ("wikipedia", "X", None)


@pytest.mark.parametrize(
    "fragment", ["flask.Flask.route", "answer-1012", "1031", "Early_life", "a b#c", "Kö/ln"]
)
def test_a_fragment_names_an_anchor_and_round_trips(fragment: str) -> None:
    ref = refs.encode("devdocs_python", "library/functions", fragment)
    assert ref.count("#") == 1
    assert refs.decode(ref, LIBRARIES) == ("devdocs_python", "library/functions", fragment)


def test_a_hash_in_a_path_is_not_a_fragment_and_an_empty_fragment_is_none() -> None:
    assert refs.decode(refs.encode("wikipedia", "C#"), LIBRARIES) == ("wikipedia", "C#", None)
    assert refs.decode("corpus://wikipedia/X#", LIBRARIES) == ("wikipedia", "X", None)
    assert refs.decode("corpus://wikipedia/X#Early_life", LIBRARIES).fragment == "Early_life"


@pytest.mark.parametrize(
    ("ref", "needle"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("http://wikipedia/Ray_Charles", "start with"),
        ("zim://wikipedia/A/Ray_Charles", "start with"),
        ("Ray_Charles", "start with"),
        ("corpus://nowhere/Ray_Charles", "unknown library 'nowhere'"),
        ("corpus://wikipedia", "no document path"),
        ("corpus://wikipedia/", "no document path"),
        ("corpus://wikipedia/../etc/passwd", "'..'"),
        ("corpus://wikipedia/a/../../b", "'..'"),
        ("corpus://wikipedia/%2E%2E/secret", "'..'"),
        ("corpus://wikipedia/./x", "'.'"),
        ("corpus://wikipedia//etc/passwd", "start with '/'"),
        ("corpus://wikipedia/%2Fetc", "start with '/'"),
        ("corpus://wikipedia/Ray\nCharles", "control characters"),
        ("corpus://wikipedia/Ray%00Charles", "control characters"),
        ("corpus://wikipedia/%ff%fe", "not UTF-8"),
        ("corpus://wikipedia/X#%ff", "anchor has percent-escapes that are not UTF-8"),
        ("corpus://wikipedia/X#a%00b", "anchor contains control characters"),
        ("corpus://wikipedia/#Early_life", "no document path"),
        ("corpus://wikipedia/" + "x" * 3000, "longer than"),
    ],
)
def test_invalid_refs_are_rejected_with_a_reason(ref: str, needle: str) -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode(ref, LIBRARIES)
    assert info.value.code == "invalid_ref"
    assert needle in info.value.message


def test_unknown_library_lists_the_known_ones() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode("corpus://nowhere/x", LIBRARIES)
    assert "devdocs_python, stackoverflow, wikipedia" in info.value.message


def test_disabled_library_is_invalid_and_says_so() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode("corpus://mdwiki/Asthma", LIBRARIES, disabled=("MDWiki",))
    assert info.value.code == "invalid_ref"
    assert "not enabled" in info.value.message


def test_non_string_ref_is_invalid() -> None:
    with pytest.raises(CorpusError) as info:
        refs.decode(42, LIBRARIES)
    assert info.value.code == "invalid_ref"
