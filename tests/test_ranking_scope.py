"""A library's scope: the words that name it, and when a query names them."""

from __future__ import annotations

import pytest

from corpus_mcp.ranking.scope import Scope, library_scope, names_scope
from corpus_mcp.ranking.text import stem


def _scope(title: str, *tags: str, name: str = "Lib") -> Scope:
    return library_scope([name, "devdocs_en_x", title, *tags], [*title.split()[:1], *tags])


def test_a_scope_comes_from_names_titles_and_tags_without_archive_vocabulary() -> None:
    scope = _scope("Node.js 18 LTS Docs", "devdocs", "node", name="Node-Docs")
    assert {stem("node"), stem("nodejs")} <= scope.stems
    assert not {stem(w) for w in ("docs", "devdocs", "lts", "18", "js")} & scope.stems
    # sotoki's machine tags are none of them
    assert library_scope(["_category:stack_exchange"], ["_category:stack_exchange"]) == Scope()


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("read a whole file into a string in node.js", True),
        ("read a file in nodejs", True),
        ("Node event loop", True),
        ("a binary tree node", True),  # the word is the name: ranking decides the rest
        ("read a file", False),
    ],
)
def test_a_query_names_a_library_by_its_words(query: str, named: bool) -> None:
    assert names_scope(query, _scope("Node.js 18 LTS Docs", "node")) is named


@pytest.mark.parametrize(
    ("title", "query", "named"),
    [
        ("C Docs", "how to free memory in C", True),
        ("C Docs", "C language pointers", True),
        ("C Docs", "what does grade c mean", False),  # a letter, not the language
        ("C Docs", "section C of the form", False),
        ("C++ Docs", "C++ templates", True),
        ("C++ Docs", "c templates", False),
        ("C# Docs", "generics in C#", True),
        ("R Docs", "plot a histogram in R", True),
        ("R Docs", "press r to reload", False),
        ("Go Docs", "channels with Go", True),
        ("Go Docs", "go to the next page", False),
    ],
)
def test_short_names_and_names_with_symbols_survive(title: str, query: str, named: bool) -> None:
    assert names_scope(query, _scope(title, title.split(maxsplit=1)[0].lower())) is named


def test_a_description_is_no_scope() -> None:
    # "Questions and answers about the Git version control system" is not passed in:
    # its ordinary words would steer any query mentioning "version".
    scope = library_scope(
        ["Git-SE", "git.stackexchange.com_en_all", "Git Stack Exchange", "git"], ["Git", "git"]
    )
    assert stem("git") in scope.stems
    assert not {stem("version"), stem("question")} & scope.stems
    assert not names_scope("which version of the file", scope)
