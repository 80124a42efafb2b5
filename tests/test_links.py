"""Links in documents: where each href leads (adapters.links), how it is rendered
(cleaning), and which links fetch keeps (assemble)."""

from __future__ import annotations

import pytest
from lxml.html import HtmlElement

from corpus_mcp import assemble
from corpus_mcp.adapters.links import LinkResolver
from corpus_mcp.cleaning import make_element, parse_html, to_markdown
from corpus_mcp.wire import FetchedSection


def _anchor(href: str) -> HtmlElement:
    anchor = make_element("a")
    anchor.set("href", href)
    return anchor


def _resolver(page: str = "library/functions") -> LinkResolver:
    return LinkResolver(
        "Docs", page, serves=lambda path: not path.startswith(("users/", "assets/"))
    )


@pytest.mark.parametrize(
    ("href", "target"),
    [
        ("stdtypes#str.join", "corpus://Docs/library/stdtypes#str.join"),
        ("../reference/datamodel", "corpus://Docs/reference/datamodel"),
        ("../reference/data%20model#a%20b", "corpus://Docs/reference/data%20model#a%20b"),
        ("#abs", "#abs"),
        ("functions#abs", "#abs"),  # the page itself, by its own path
        ("functions", None),  # the page itself, no anchor: nothing to follow
        ("#", None),
        ("", None),
        ("https://docs.python.org/3/", "https://docs.python.org/3/"),
        ("http://example.org/a b", "http://example.org/a%20b"),
        ("//en.wikipedia.org/wiki/X", "https://en.wikipedia.org/wiki/X"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        ("javascript:alert(1)", None),
        ("data:text/plain,x", None),
        ("../../../outside", None),  # above the archive's root
        ("/reference/datamodel", "corpus://Docs/reference/datamodel"),  # from the root
        ("../users/4/someone", None),  # a page the family does not serve
        ("stdtypes?highlight=x#str.join", "corpus://Docs/library/stdtypes#str.join"),
    ],
)
def test_a_link_leads_to_a_ref_an_anchor_a_url_or_nowhere(href: str, target: str | None) -> None:
    assert _resolver()(_anchor(href)) == target


def test_old_scheme_paths_and_repairs_are_the_family_s() -> None:
    repaired = LinkResolver(
        "SE",
        "questions/1/slug",
        serves=lambda path: path.startswith(("questions/", "a/")),
        rewrite=lambda href: href.removeprefix("//:None/"),
    )
    assert repaired(_anchor("//:None/../../a/1031#1031")) == "corpus://SE/a/1031#1031"
    assert repaired(_anchor("//:None/../../questions/3/x")) == "corpus://SE/questions/3/x"
    old_scheme = LinkResolver(
        "Wiki", "Ray_Charles", serves=lambda path: True, rewrite=lambda h: h.removesuffix(".html")
    )
    assert old_scheme(_anchor("Ray_(film).html")) == "corpus://Wiki/Ray_(film)"


def test_a_link_is_rendered_inline_with_its_text() -> None:
    html = (
        b"<div><p>See <a href='x'><code>x()</code></a>, <a href='y'>why [not]</a>, "
        b"<a href='https://a.org/'>https://a.org/</a> and <a href='z'> </a>.</p></div>"
    )
    node = parse_html(html).find(".//div")
    assert node is not None
    targets = {
        "x": "corpus://L/p#x",
        "y": "corpus://L/Ray_(film)",
        "https://a.org/": "https://a.org/",
    }
    markdown = to_markdown(node, links=lambda a: targets.get(str(a.get("href"))))
    # A bare web address is an autolink: one copy of it, marked as a link (fetch may
    # lead it into the corpus).
    assert markdown == (
        "See [`x()`](corpus://L/p#x), [why \\[not\\]](corpus://L/Ray_(film)), "
        "<https://a.org/> and ."
    )


def test_a_destination_markdown_cannot_read_back_is_escaped() -> None:
    node = parse_html(b"<div><a href='q'>t</a></div>").find(".//div")
    assert node is not None
    assert to_markdown(node, links=lambda a: "corpus://L/a)b c") == "[t](corpus://L/a%29b%20c)"


def test_without_links_the_text_alone_remains() -> None:
    node = parse_html(b"<div><p>See <a href='x'>this</a>.</p></div>").find(".//div")
    assert node is not None
    assert to_markdown(node) == "See this."


def test_fetch_keeps_only_links_it_can_follow() -> None:
    section = FetchedSection(
        id="s",
        title="S",
        level=2,
        content=(
            "[gone](corpus://L/license#x) [here](corpus://L/api/index#y) [in page](#known) "
            "[lost](#missing) [web](https://a.org/) [nested (parens)](corpus://L/Ray_(film))"
        ),
    )
    assert assemble.link_paths([section]) == {"license", "api/index", "Ray_(film)"}
    exists = {"license": False, "api/index": True, "Ray_(film)": True}
    [kept] = assemble.without_dead_links([section], exists, {"known"})
    assert kept.content == (
        "gone [here](corpus://L/api/index#y) [in page](#known) lost [web](https://a.org/) "
        "[nested (parens)](corpus://L/Ray_(film))"
    )


def test_fetch_links_a_missing_path_to_its_stored_spelling() -> None:
    """A scraper's link in one spelling to a page stored in another (ifixit2zim's
    ``Device/Sony_WH-1000XM3`` for ``Device/Sony WH-1000XM3``) leads to the stored one,
    its fragment and label kept; a missing path with no stored spelling is text."""
    section = FetchedSection(
        id="s",
        title="S",
        level=2,
        content=(
            "[the \\*device\\*](corpus://L/Device/Sony_WH-1000XM3#Section_Parts) "
            "[gone](corpus://L/Device/Gone_Away) [kept](corpus://L/Guide/-/1)"
        ),
    )
    exists = {"Device/Sony_WH-1000XM3": False, "Device/Gone_Away": False, "Guide/-/1": True}
    respelled = {"Device/Sony_WH-1000XM3": "Device/Sony WH-1000XM3"}
    [kept] = assemble.without_dead_links([section], exists, (), respelled)
    assert kept.content == (
        "[the \\*device\\*](corpus://L/Device/Sony%20WH-1000XM3#Section_Parts) "
        "gone [kept](corpus://L/Guide/-/1)"
    )
