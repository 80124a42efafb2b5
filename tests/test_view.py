"""A page read for search (its view: passages straight from lxml, no Markdown) says what
the page read for fetch says, so that search ranks the same whatever was read first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_mcp import refs
from corpus_mcp.adapters import get_adapter
from corpus_mcp.cleaning import parse_html, to_markdown, to_passages
from corpus_mcp.cleaning.plain import prepare
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.document import LIST, PROSE, TABLE, Document, Passage, Section, walk
from corpus_mcp.ranking.passages import passages
from corpus_mcp.ranking.terms import section_passages
from corpus_mcp.ranking.text import stem_set
from corpus_mcp.zim import ZimReader
from tests.conftest import settings_for


def _documents(demo_archives: dict[str, Path]) -> Iterator[tuple[str, str, str, bytes]]:
    for name, _relative, adapter in DEMO_LIBRARIES:
        reader = ZimReader(demo_archives[name])
        family = get_adapter(adapter)
        for path, title, is_redirect in reader.iter_entries():
            if is_redirect:
                continue
            entry = reader.resolve(path)
            if family.is_content(entry.path, entry.mimetype):
                yield adapter, entry.path, title, reader.content(entry.path)


def _outline(document: Document) -> list[tuple[str, str, int, str, tuple[str, ...]]]:
    return [(s.id, s.title, s.level, s.role, tuple(s.anchors)) for s in walk(document.sections)]


def _stems(section: Section, tex: bool) -> frozenset[str]:
    return stem_set(" ".join(p.text for p in section_passages(section, tex)))


def test_every_demo_page_s_view_has_its_sections_and_their_words(
    demo_archives: dict[str, Path],
) -> None:
    compared = 0
    for adapter, path, title, html in _documents(demo_archives):
        family = get_adapter(adapter)
        whole = family.parse(path, title, html, "Lib")
        view = family.parse(path, title, html, "Lib", view=True)
        assert view.view and not whole.view
        assert _outline(view) == _outline(whole), path
        assert (view.title, view.kind, view.metadata) == (whole.title, whole.kind, whole.metadata)
        tex = whole.metadata.get("tex") == "true"
        for seen, shown in zip(walk(view.sections), walk(whole.sections), strict=True):
            assert seen.content == "" and seen.passages is not None
            words, written = _stems(seen, tex), _stems(shown, tex)
            # Every word the fetched page's text holds, and few more: the Markdown side
            # reads "$x^2$" on a site without math as a formula and drops it.
            assert written <= words, (path, seen.id, written - words)
            assert len(words - written) <= len(words) / 3, (path, seen.id, words - written)
            compared += 1
    assert compared > 200


def test_prepare_takes_junk_and_formulas_out_and_spaces_blocks() -> None:
    html = (
        b"<div><p>Ray<sup class='reference'>[1]</sup> sang<span style='display:none'>x</span>"
        b"</p><ul><li>one</li><li>two<br>lines</li></ul>"
        b"<p>Area <span class='mwe-math-element'><math><mi>x</mi></math></span> here.</p>"
        b"<table><tr><th>Born</th><td>1930</td></tr><tr><th>Died</th><td>2004</td></tr></table>"
        b"<dl><dt>term</dt><dd><p>meaning</p></dd></dl><pre>code()</pre><h3>Heading</h3></div>"
    )
    root = parse_html(html)
    node = root.find(".//div")
    assert node is not None
    prepare(node, html)
    assert to_passages(node) == (
        Passage(PROSE, "Ray sang"),
        Passage(LIST, "one; two lines"),
        Passage(PROSE, "Area here."),
        Passage(TABLE, "Born: 1930; Died: 2004"),
        Passage(PROSE, "term"),
        Passage(PROSE, "meaning"),
    )
    # The Markdown of the same page reads the same words, block for block (a line
    # break inside an item splits it there).
    whole = parse_html(html).find(".//div")
    assert whole is not None
    written = passages(to_markdown(whole))
    assert [(p.kind, p.text.replace(";", "")) for p in written] == [
        (p.kind, p.text.replace(";", "")) for p in to_passages(node)
    ]


def test_a_math_site_keeps_its_tex_in_the_view() -> None:
    html = b"<div><p>Why is $\\sum_{n=1}^\\infty 1/n^2 = \\pi^2/6$?</p></div>"
    node = parse_html(html).find(".//div")
    assert node is not None
    prepare(node, html, tex=True)
    assert to_passages(node)[0].text == "Why is $\\sum_{n=1}^\\infty 1/n^2 = \\pi^2/6$?"


@pytest.mark.parametrize("query", ["python asyncio cancel task", "ray charles piano", "mro"])
async def test_search_answers_the_same_whatever_was_read_first(
    full_corpus: Path, query: str
) -> None:
    settings = settings_for(full_corpus)
    manifest = load_manifest(full_corpus, full_corpus.parent)
    async with open_corpus(settings, manifest) as first:
        searched = await first.search(query, 5)
    async with open_corpus(settings, manifest) as second:
        for result in searched.results:
            await second.fetch(result.ref, None)  # whole documents in the cache first
        again = await second.search(query, 5)
        assert again == searched
        # And the fetch after the search is whole, served from the same cache entry.
        for result in searched.results:
            fetched = await second.fetch(result.ref, None)
            assert any(s.content for s in fetched.sections)
            assert refs.decode(fetched.ref, second.libraries).path
