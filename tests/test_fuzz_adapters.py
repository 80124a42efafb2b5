"""Property-based fuzzing of the HTML adapters on random and mutated real pages.

Pages come from the demo archives (every family) and, where present, the real archives
in ../shared/zims. Mutations are what damaged or unusual archives contain: truncation,
deleted tags, attribute garbage, deep nesting, stray bytes. Adapters document no
errors (bytes in, a document out), so the property is: every input gives a
:class:`Document` that the fetch path (section index, budget, the wire) can serve.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_mcp import assemble, folding
from corpus_mcp.adapters import ADAPTERS, Adapter, Landing, get_adapter
from corpus_mcp.demo import DEMO_LIBRARIES, freecodecamp, gutenberg, ifixit, libretexts, ted, zimit
from corpus_mcp.document import Document, Kind, walk
from corpus_mcp.wire import FetchOutput
from corpus_mcp.zim.reader import ZimReader

from .conftest import REAL_LIBRARIES, SHARED_ZIMS

PAGES_PER_ARCHIVE = 25
MAX_PAGE_BYTES = 300_000
#: Parsing real pages costs milliseconds each: a quarter of the profile's examples.
PAGE_SETTINGS = settings(max_examples=max(20, settings().max_examples // 4))


class Page(msgspec.Struct, frozen=True):
    adapter: str
    path: str
    title: str
    html: bytes


def _sample(file: Path, adapter_name: str) -> list[Page]:
    """Up to :data:`PAGES_PER_ARCHIVE` content pages of one archive, spread over it."""
    reader = ZimReader(file)
    adapter = get_adapter(adapter_name)
    candidates = [
        (path, title)
        for path, title, is_redirect in reader.iter_entries()
        if not is_redirect and adapter.is_content(path, reader.resolve(path).mimetype)
    ]
    step = max(1, len(candidates) // PAGES_PER_ARCHIVE)
    pages = []
    for path, title in candidates[::step][:PAGES_PER_ARCHIVE]:
        html = reader.content(path)
        if len(html) <= MAX_PAGE_BYTES:
            pages.append(Page(adapter_name, path, title, html))
    return pages


@pytest.fixture(scope="module")
def pages(demo_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Page]:
    """Real pages of every family: the demo archives (the zimit crawl, the Gutenberg,
    iFixit, freeCodeCamp, LibreTexts and TED libraries beside them), plus ../shared/zims
    when present."""
    archives = [(demo_corpus.parent / path, adapter) for _, path, adapter in DEMO_LIBRARIES]
    archives.append((zimit.build(tmp_path_factory.mktemp("zimit") / "crawl.zim"), "html"))
    archives.append((gutenberg.build(tmp_path_factory.mktemp("gutenberg") / "g.zim"), "gutenberg"))
    archives.append((ifixit.build(tmp_path_factory.mktemp("ifixit") / "i.zim"), "ifixit"))
    archives.append((freecodecamp.build(tmp_path_factory.mktemp("fcc") / "f.zim"), "freecodecamp"))
    archives.append((libretexts.build(tmp_path_factory.mktemp("lt") / "l.zim"), "libretexts"))
    archives.append((ted.build(tmp_path_factory.mktemp("ted") / "ted.zim"), "ted"))
    if SHARED_ZIMS.is_dir():
        archives += [(SHARED_ZIMS / file, "mediawiki") for file in REAL_LIBRARIES.values()]
    collected = [page for file, adapter in archives for page in _sample(file, adapter)]
    assert {page.adapter for page in collected} == set(ADAPTERS)
    return collected


def check_document(document: Document, path: str) -> None:
    """What the fetch path relies on, then the fetch path itself on this document."""
    assert isinstance(document, Document)
    assert document.path == path
    assert document.kind in get_args(Kind)
    assert isinstance(document.title, str)
    for section in walk(document.sections):
        assert isinstance(section.id, str)
        assert isinstance(section.title, str)
        assert isinstance(section.content, str)
        assert section.level >= 1
    index = assemble.section_index(document)
    folded = folding.fold_document(document, budget=2_000)
    output = FetchOutput(
        ref="corpus://fuzz/page",
        library="fuzz",
        kind=document.kind,
        title=document.title,
        snapshot=None,
        sections=folded.sections,
        available_sections=assemble.available_sections(
            document, [s.id for s in folded.sections], folded.omitted
        ),
        truncated=folded.truncated,
    )
    msgspec.json.encode(output)
    # Within the budget (a quarter more when headings alone came before the first
    # text), and every top-level section returned, cut or listed (none lost).
    longest_title = max((len(s.title) for s in walk(document.sections)), default=0)
    assert sum(folding.own_size(s) for s in output.sections) <= 2_500 + longest_title
    shown = {s.id for s in output.sections} | {
        s.id if s.continues is None else s.continues for s in folded.omitted
    }
    assert {s.id for s in document.sections} <= shown
    listed = {s.id: s.chars for s in output.available_sections if s.chars}
    assert listed == {s.id: s.chars for s in folded.omitted}
    for section_id in list(index)[:3]:
        assert assemble.select_sections(document, [section_id])


def parse_checked(adapter: Adapter, path: str, title: str, html: bytes) -> None:
    check_document(adapter.parse(path, title, html, "Library"), path)
    landing = adapter.stub_landing(path, html)
    assert landing is None or isinstance(landing, Landing)


# -- mutations ------------------------------------------------------------------------

_TAG = re.compile(rb"<[^<>]{1,200}>")
NESTING_TAGS = [b"div", b"section", b"ul><li", b"table><tr><td", b"blockquote", b"span", b"b"]
garbage = st.binary(max_size=40) | st.sampled_from(
    [b'"', b"'", b"=", b"<", b">", b'class="mw-headline', b'id=""', b"\x00", b"\xff\xfe", b"&#0;"]
)


def _mutate(html: bytes, data: st.DataObject) -> bytes:
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        kind = data.draw(st.sampled_from(["truncate", "drop tag", "attribute", "nest", "splice"]))
        tags = list(_TAG.finditer(html))
        if kind == "truncate":
            html = html[: data.draw(st.integers(0, len(html)))]
        elif kind == "drop tag" and tags:
            tag = data.draw(st.sampled_from(tags))
            html = html[: tag.start()] + html[tag.end() :]
        elif kind == "attribute" and tags:
            tag = data.draw(st.sampled_from(tags))
            name_end = tag.start() + 1 + len(tag.group().split()[0]) - 1
            html = html[:name_end] + b" " + data.draw(garbage) + html[name_end:]
        elif kind == "nest":
            opening = data.draw(st.sampled_from(NESTING_TAGS))
            depth = data.draw(st.integers(1, 3000), label="depth")
            at = data.draw(st.integers(0, len(html)))
            closing = b"</" + opening.split(b">")[0] + b">"
            html = html[:at] + (b"<" + opening + b">") * depth + closing * depth + html[at:]
        else:
            at = data.draw(st.integers(0, len(html)))
            html = html[:at] + data.draw(garbage) + html[at:]
    return html


@PAGE_SETTINGS
@given(data=st.data())
def test_mutated_real_pages_parse_into_documents(pages: list[Page], data: st.DataObject) -> None:
    page = data.draw(st.sampled_from(pages), label="page")
    html = _mutate(page.html, data)
    parse_checked(get_adapter(page.adapter), page.path, page.title, html)


@PAGE_SETTINGS
@given(data=st.data())
def test_real_pages_under_another_familys_adapter(pages: list[Page], data: st.DataObject) -> None:
    """An operator naming the wrong adapter gets poor documents, never a failure."""
    page = data.draw(st.sampled_from(pages), label="page")
    adapter = data.draw(st.sampled_from(sorted(ADAPTERS)), label="adapter")
    parse_checked(get_adapter(adapter), page.path, page.title, page.html)


# -- random pages ---------------------------------------------------------------------

TAGS = [
    *["html", "body", "main", "div", "section", "article", "header", "footer", "nav", "aside"],
    *["p", "span", "a", "b", "i", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6"],
    *["ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td"],
    *["caption", "blockquote", "details", "summary", "figure", "figcaption", "img", "sup"],
    *["sub", "math", "annotation", "br", "hr", "script", "style"],
]
ATTRIBUTES = {
    "class": st.sampled_from(
        [
            "mw-parser-output",
            "mw-heading mw-heading2",
            "mw-headline",
            "reference",
            "navbox",
            "infobox",
            "hatnote",
            "_page",
            "question",
            "answer accepted-answer",
            "post-text",
            "s-prose js-post-body",
            "highlight",
            "section",
            # ifixit2zim's guide and device templates.
            "guide-title",
            "step",
            "step-lines",
            "level-1",
            "level-0 bullet-line-icon-caution",
            "stepValue",
            "details-item",
            "item-title",
            "item-value",
            "item-list-tools",
            "attachment-link",
            "title",
            "banner-title",
            "blurbListWide",
            "cell",
        ]
    )
    | st.text(max_size=12),
    "id": st.text(max_size=12),
    "href": st.sampled_from(["./Other", "#cite_note-1", "../x", "javascript:x"])
    | st.text(max_size=8),
    "data-lang": st.sampled_from(["python", "cpp", ""]),
    "colspan": st.sampled_from(["2", "0", "-1", "x", "99999999"]),
}
texts = st.text(max_size=20).map(lambda text: text.replace("<", "&lt;"))


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def render(tag: str, attributes: dict[str, str], inner: list[str]) -> str:
        shown = "".join(
            f' {name}="{value.replace(chr(34), "")}"' for name, value in attributes.items()
        )
        return f"<{tag}{shown}>{''.join(inner)}</{tag}>"

    return st.builds(
        render,
        st.sampled_from(TAGS),
        st.dictionaries(
            st.sampled_from(sorted(ATTRIBUTES)), st.text(max_size=1), max_size=3
        ).flatmap(
            lambda chosen: st.fixed_dictionaries({name: ATTRIBUTES[name] for name in chosen})
        ),
        st.lists(children, max_size=4),
    )


random_pages = st.recursive(texts, _element, max_leaves=40).map(
    lambda body: f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"
)


@given(adapter=st.sampled_from(sorted(ADAPTERS)), html=random_pages, path=st.text(max_size=30))
def test_random_pages_parse_into_documents(adapter: str, html: str, path: str) -> None:
    parse_checked(get_adapter(adapter), path, "Title", html.encode())


@given(adapter=st.sampled_from(sorted(ADAPTERS)), html=st.binary(max_size=500))
def test_random_bytes_parse_into_documents(adapter: str, html: bytes) -> None:
    parse_checked(get_adapter(adapter), "A/page", "Title", html)


@given(
    adapter=st.sampled_from(sorted(ADAPTERS)),
    opening=st.sampled_from(NESTING_TAGS),
    depth=st.integers(200, 20_000),
)
def test_deeply_nested_pages_parse_into_documents(adapter: str, opening: bytes, depth: int) -> None:
    inner = b"<h2 id='deep'>Deep</h2><p>text <code>x</code></p>"
    html = b"<html><body>" + (b"<" + opening + b">") * depth + inner + b"</body></html>"
    parse_checked(get_adapter(adapter), "A/deep", "Deep", html)


# -- devdocs' symbol index ------------------------------------------------------------

symbol_entries = st.fixed_dictionaries(
    {},
    optional={
        "name": st.text(max_size=20) | st.integers() | st.none(),
        "path": st.text(max_size=20) | st.integers() | st.none(),
        "type": st.text(max_size=10),
    },
)
json_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
navbars = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.lists(symbol_entries, max_size=6).map(lambda entries: json.dumps(entries).encode()),
    st.dictionaries(
        st.sampled_from(["entries", "types", "items"]), st.lists(symbol_entries, max_size=4)
    ).map(lambda value: json.dumps(value).encode()),
)


@given(adapter=st.sampled_from(sorted(ADAPTERS)), data=navbars)
def test_any_symbol_index_parses_into_landings(adapter: str, data: bytes) -> None:
    symbols = get_adapter(adapter).parse_symbols(data)
    assert all(isinstance(key, str) for key, _ in symbols)
    assert all(isinstance(landing, Landing) for _, landing in symbols)


@pytest.mark.parametrize("adapter", ["devdocs", "mediawiki"])
@pytest.mark.parametrize(
    "html", [b"\x01", b"a&#1;b", b"a&#xFFFE;b", b"<html><body>\x1b<p>x</p></body></html>"]
)
def test_characters_xml_refuses_do_not_break_an_adapter(adapter: str, html: bytes) -> None:
    check_document(get_adapter(adapter).parse("A/page", "Title", html, "Library"), "A/page")
