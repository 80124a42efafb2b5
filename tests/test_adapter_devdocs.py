"""The devdocs adapter on hand-written pages that follow devdocs2zim's templates (§2.2, §2.3)."""
# ruff: noqa: E501  (fixture HTML keeps the scrapers' own long lines: whitespace there is significant)

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.adapters.base import Landing
from corpus_mcp.adapters.devdocs import DevDocsAdapter
from corpus_mcp.assemble import select_sections
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.gather import load_symbols
from corpus_mcp.zim.reader import ZimReader

from .golden_docs import RAW_TAG, check_golden, without_code

NAVBAR_V02 = (
    '<devdocs-navbar current="{current}" prefix="{prefix}" '
    'listing-src="{prefix}navbar.json"></devdocs-navbar>'
)
SIDEBAR_V01 = """
<section class="_sidebar"><div class="_list">
  <a class="_list-item" href="{prefix}index">SIDEBARWORD Python</a>
  <details><summary>Built-in Functions</summary><div class="_list">
    <a class="_list-item _list-hover" href="{prefix}library/functions#abs">abs()</a>
  </div></details>
</div></section>"""


def devdocs_page(content: str, *, path: str, title: str, v01: bool = False) -> bytes:
    """A page as devdocs2zim's ``page.html`` template writes it (v0.2 navbar or v0.1 sidebar)."""
    prefix = "../" * path.count("/")
    nav = (SIDEBAR_V01 if v01 else NAVBAR_V02).format(current=path, prefix=prefix)
    return f"""<html class="_theme-default">
<head>
  <meta charset="utf-8"><title>{title}</title>
  <link rel="preload" href="{prefix}assets/index.js" as="script">
  <link rel="stylesheet" href="{prefix}application.css">
</head>
<body>
 <div class="_app">
  {nav}
  <div class="_container"><main class="_content">
    <div class="_page _python">{content}</div>
  </main></div>
 </div>
 <script src="{prefix}assets/index.js"></script>
</body></html>""".encode()


ATTRIBUTION = """<div class="_attribution"><p class="_attribution-p">
  &copy; 2001&ndash;2024 Python Software Foundation<br>Licensed under the PSF License.<br>
  <a href="https://docs.python.org/3.12/library/functions.html" class="_attribution-link">
  https://docs.python.org/3.12/library/functions.html</a></p></div>"""

# Modern Sphinx as DevDocs' python filters leave it: nested section[id] wrappers, ids on the
# wrapper rather than the heading, dt[id] API anchors, a bare local TOC, index targets.
PYTHON_FUNCTIONS = f"""
<section id="built-in-functions">
<h1>Built-in Functions</h1>
<p>The Python interpreter has a number of functions and types built into it that are
always available. They are listed here in alphabetical order.</p>
<ul class="simple">
<li><a class="reference internal" href="#abs"><code>abs()</code></a></li>
<li><a class="reference internal" href="#all"><code>all()</code></a></li>
<li><a class="reference internal" href="#notes-on-builtins">Notes on built-ins</a></li>
</ul>
<dl class="py function">
<dt class="sig sig-object py" id="abs"><span class="sig-name descname">abs</span><span class="sig-paren">(</span><em class="sig-param">x</em><span class="sig-paren">)</span></dt>
<dd><p>Return the absolute value of a number. The argument may be an integer, a
floating-point number, or an object implementing <code>__abs__()</code>.</p></dd>
</dl>
<span class="target" id="index-0"></span>
<dl class="py function">
<dt class="sig sig-object py" id="all"><span class="sig-name descname">all</span><span class="sig-paren">(</span><em class="sig-param">iterable</em><span class="sig-paren">)</span></dt>
<dd><p>Return <code>True</code> if all elements of the <em>iterable</em> are true. Equivalent to:</p>
<pre data-language="python">def all(iterable):
    for element in iterable:
        if not element:
            return False
    return True</pre></dd>
</dl>
<section id="notes-on-builtins">
<h2>Notes on built-ins<a class="headerlink" href="#notes-on-builtins" title="Link to this heading">¶</a></h2>
<p>Built-ins live in the <a href="builtins"><code>builtins</code></a> module.</p>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Shadowing a built-in name is legal but confusing.</p></div>
<section id="numeric-types">
<h3>Numeric types</h3>
<table class="docutils"><thead><tr><th>Operation</th><th>Result</th></tr></thead>
<tbody><tr><td><code>x // y</code></td><td>floored quotient</td></tr>
<tr><td><code>abs(x)</code></td><td>absolute value</td></tr></tbody></table>
<dl class="py method">
<dt class="sig sig-object py" id="int.bit_length"><span class="sig-prename descclassname">int.</span><span class="sig-name descname">bit_length</span><span class="sig-paren">()</span></dt>
<dd><p>Return the number of bits necessary to represent an integer in binary.</p></dd>
</dl>
</section>
</section>
<section id="string-methods">
<h2 id="str-methods">String methods</h2>
<dl class="py method">
<dt class="sig sig-object py" id="str.join"><span class="sig-prename descclassname">str.</span><span class="sig-name descname">join</span><span class="sig-paren">(</span><em class="sig-param">iterable</em><span class="sig-paren">)</span></dt>
<dd><p>Return a string which is the concatenation of the strings in <em>iterable</em>.</p>
<pre data-language="pycon">&gt;&gt;&gt; ", ".join(["a", "b"])
'a, b'</pre></dd>
</dl>
</section>
<h2>Further reading</h2>
<p>See <a href="../reference/datamodel#special-method-names">Special method names</a>.</p>
</section>
{ATTRIBUTION}"""

# A doc whose ids sit on the headings (MDN-like), with DevDocs' leftover navigation bits.
MDN_ARRAY = """
<h1 id="array-prototype-map">Array.prototype.map()</h1>
<nav class="_toc"><a href="#syntax">Syntax</a></nav>
<p class="_links"><a class="_links-link" href="https://github.com/x/y">Source</a></p>
<p>The <code>map()</code> method creates a new array populated with the results.</p>
<h2 id="syntax">Syntax</h2>
<div class="_pre-heading">Try it</div>
<pre data-language="javascript">map(callbackFn)
map(callbackFn, thisArg)</pre>
<h3 id="parameters">Parameters</h3>
<dl><dt id="callbackfn"><code>callbackFn</code></dt><dd><p>A function to execute.</p></dd></dl>
<h2 id="syntax">Syntax</h2>
<p>A second heading with a duplicate id.</p>
<div class="_attribution"><p class="_attribution-p">&copy; 2005&ndash;2024 MDN contributors.<br>
<a href="https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/map" class="_attribution-link">MDN</a></p></div>"""

MISSING_PAGE = (
    "<h2>This documentation is missing.</h2>"
    "<p>This is an error with the openZIM DevDocs scraper, not your ZIM reader e.g. "
    'Kiwix. Please <a href="https://github.com/openzim/devdocs/issues">'
    "file an issue with the scraper</a>.</p>"
)


@pytest.fixture(scope="module")
def adapter() -> DevDocsAdapter:
    return DevDocsAdapter()


@pytest.fixture(scope="module")
def functions_page(adapter: DevDocsAdapter) -> Document:
    html = devdocs_page(PYTHON_FUNCTIONS, path="library/functions", title="Functions")
    return adapter.parse("library/functions", "Functions", html, "Library")


def by_id(document: Document) -> dict[str, Section]:
    return {section.id: section for section in walk(document.sections)}


def test_python_functions_golden(functions_page: Document) -> None:
    check_golden("devdocs/library-functions.md", functions_page)


def test_document_identity_and_metadata(functions_page: Document) -> None:
    assert functions_page.title == "Functions"
    assert functions_page.kind == "documentation"
    assert functions_page.metadata == {
        "heading": "Built-in Functions",
        "source_url": "https://docs.python.org/3.12/library/functions.html",
    }


def test_section_tree_and_ids(functions_page: Document) -> None:
    outline = [(s.id, s.level, s.title, s.role) for s in walk(functions_page.sections)]
    assert outline == [
        ("", 1, "Built-in Functions", "text"),
        ("abs", 2, "abs(x)", "entry"),
        ("all", 2, "all(iterable)", "entry"),
        ("notes-on-builtins", 2, "Notes on built-ins", "text"),
        ("numeric-types", 3, "Numeric types", "text"),
        ("int.bit_length", 4, "int.bit_length()", "entry"),
        ("str-methods", 2, "String methods", "text"),
        ("str.join", 3, "str.join(iterable)", "entry"),
        ("further-reading", 2, "Further reading", "text"),
    ]
    assert [s.id for s in functions_page.sections] == [
        "",
        "notes-on-builtins",
        "str-methods",
        "further-reading",
    ]
    assert [s.id for s in functions_page.sections[1].children] == ["numeric-types"]
    assert [s.id for s in functions_page.sections[0].children] == ["abs", "all"]


def test_api_entries_are_sections_of_their_own(functions_page: Document) -> None:
    sections = by_id(functions_page)
    assert sections[""].anchors == ["built-in-functions"]
    assert sections["numeric-types"].anchors == []
    assert sections["str-methods"].anchors == ["string-methods"]
    assert sections["abs"].content.startswith("Return the absolute value of a number.")
    assert "all(" not in sections["abs"].content, "an entry holds only itself"
    every_anchor = [a for s in walk(functions_page.sections) for a in s.anchors]
    assert "index-0" not in every_anchor
    assert len(every_anchor) == len(set(every_anchor))


def test_content_is_clean_markdown(functions_page: Document) -> None:
    sections = by_id(functions_page)
    lead = sections[""].content
    assert "always available" in lead
    assert "```python\ndef all(iterable):" in sections["all"].content
    assert "* [" not in lead and "- [" not in lead, "the local TOC list is dropped"
    assert "Notes on built-ins" not in lead
    assert "```pycon" in sections["str.join"].content
    everything = "\n".join(s.content for s in walk(functions_page.sections))
    for junk in ("¶", "Python Software Foundation", "_attribution", "<", "SIDEBARWORD"):
        assert junk not in everything
    assert "Shadowing a built-in name" in sections["notes-on-builtins"].content
    assert "floored quotient" in sections["numeric-types"].content
    assert "bit_length" not in sections["numeric-types"].content
    assert "bit_length" not in sections["notes-on-builtins"].content


def test_v01_sidebar_and_v02_navbar_give_the_same_document(adapter: DevDocsAdapter) -> None:
    v02 = devdocs_page(PYTHON_FUNCTIONS, path="library/functions", title="Functions")
    v01 = devdocs_page(PYTHON_FUNCTIONS, path="library/functions", title="Functions", v01=True)
    assert b"SIDEBARWORD" in v01
    parsed = [
        adapter.parse("library/functions", "Functions", html, "Library") for html in (v01, v02)
    ]
    assert parsed[0] == parsed[1]


def test_heading_ids_slugs_and_duplicates(adapter: DevDocsAdapter) -> None:
    html = devdocs_page(MDN_ARRAY, path="global_objects/array/map", title="Array.prototype.map()")
    document = adapter.parse("global_objects/array/map", "Array.prototype.map()", html, "Library")
    outline = [(s.id, s.level) for s in walk(document.sections)]
    assert outline == [
        ("", 1),
        ("syntax", 2),
        ("parameters", 3),
        ("callbackfn", 4),
        ("syntax-2", 2),
    ]
    sections = by_id(document)
    assert sections["parameters"].anchors == []
    assert sections["callbackfn"].title == "callbackFn"
    assert sections["callbackfn"].content == "A function to execute."
    assert sections[""].anchors == ["array-prototype-map"]
    assert "```javascript\nmap(callbackFn)" in sections["syntax"].content
    everything = "\n".join(s.content for s in walk(document.sections))
    for junk in ("Try it", "Source", "MDN contributors"):
        assert junk not in everything
    assert sections[""].content.startswith("The `map()` method")
    assert document.metadata["source_url"].startswith("https://developer.mozilla.org/")


def test_irregular_heading_levels_and_wrapper_ids(adapter: DevDocsAdapter) -> None:
    content = """<h1>Page</h1><p>Lead.</p>
<h3>Deep first</h3><p>Under a skipped level.</p>
<div class="section" id="moved"><p>Wrapper text first.</p><h2>Second</h2><p>Body.</p></div>
loose tail text
<h2>Third</h2><h4>Fourth</h4><p>Deepest.</p>"""
    document = adapter.parse("x", "X", devdocs_page(content, path="x", title="X"), "Library")
    assert [(s.id, s.level) for s in document.sections] == [
        ("", 1),
        ("deep-first", 3),
        ("second", 2),
        ("third", 2),
    ]
    sections = by_id(document)
    assert sections["deep-first"].anchors == ["moved"], "the wrapper starts inside 'Deep first'"
    assert sections["deep-first"].content == "Under a skipped level.\n\nWrapper text first."
    assert sections["second"].content == "Body.\n\nloose tail text"
    assert [c.id for c in sections["third"].children] == ["fourth"]
    assert sections["fourth"].content == "Deepest."


def test_rustdoc_methods_are_sections_by_their_anchor(adapter: DevDocsAdapter) -> None:
    """DevDocs' Rust pages keep each method's ``summary > section#method.X > h4`` (the
    ``details`` unwrapped), with the floated source link and the notable-traits tooltip:
    each method is a section whose id is its navbar anchor, its docblock its text."""
    method = (
        '<summary><section id="method.{name}" class="method has-srclink"><span class="rightside">'
        '<a class="srclink" href="https://doc.rust-lang.org/src/x.rs.html#1">source</a></span>'
        '<h4 class="code-header">pub fn {name}(&amp;mut self)</h4></section>'
        '<span class="notable-traits"><span class="docblock">Notable traits for Vec</span></span>'
        '</summary><div class="docblock"><p>{text}</p><h5 id="examples-{name}">Examples</h5>'
        "<p>Example of {name}.</p></div>"
    )
    content = (
        "<h1>Struct std::vec::Vec</h1><p>A growable array.</p>"
        '<h2 id="implementations">Implementations</h2><div id="implementations-list">'
        '<summary><section id="impl" class="impl has-srclink"><span class="rightside"></span>'
        '<h3 class="code-header in-band">impl&lt;T&gt; Vec&lt;T&gt;</h3></section></summary>'
        '<div class="impl-items">'
        + method.format(name="retain", text="Retains only the elements specified.")
        + method.format(name="push", text="Appends an element.")
        + "</div></div>"
    )
    html = devdocs_page(content, path="std/vec/struct.vec", title="std::vec::Vec")
    document = adapter.parse("std/vec/struct.vec", "std::vec::Vec", html, "Library")
    sections = by_id(document)
    assert [c.id for c in sections["impl"].children] == ["method.retain", "method.push"]
    retain = sections["method.retain"]
    assert retain.title == "pub fn retain(&mut self)"
    assert retain.content == "Retains only the elements specified."
    assert [c.id for c in retain.children] == ["examples-retain"]
    text = "\n".join(s.content for s in walk(document.sections))
    assert "source" not in text and "Notable traits" not in text


def test_title_naming_a_symbol_keeps_the_h1_as_heading(adapter: DevDocsAdapter) -> None:
    html = devdocs_page(
        "<h1>std::stoi, std::stol, std::stoll</h1><p>Parse.</p>", path="x", title="t"
    )
    document = adapter.parse("string/basic_string/stol", "std::stoll", html, "Library")
    assert document.title == "std::stoll"
    assert document.metadata["heading"] == "std::stoi, std::stol, std::stoll"
    assert document.sections[0].title == "std::stoi, std::stol, std::stoll"


# A reference page devdocs2zim titles after one of its entries (Flask's API page is
# "_AppCtxGlobals", after flask.ctx._AppCtxGlobals; PostgreSQL's "Config: <setting>").
API_PAGE = """
<section id="api"><h1>API</h1><p>This part covers all the interfaces.</p>
<dl class="py class">
<dt class="sig sig-object py" id="flask.ctx._AppCtxGlobals"><em class="property">class </em><span class="sig-prename descclassname">flask.ctx.</span><span class="sig-name descname">_AppCtxGlobals</span></dt>
<dd><p>A plain object.</p>
<dl class="py method">
<dt class="sig sig-object py" id="flask.ctx._AppCtxGlobals.get"><span class="sig-name descname">get</span><span class="sig-paren">(</span><em class="sig-param">name</em><span class="sig-paren">)</span></dt>
<dd><p>Get an attribute by name.</p></dd></dl></dd></dl>
<dl class="variablelist"><dt id="GUC-WORK-MEM"><code>work_mem</code> (<code>integer</code>)</dt>
<dd><p>Sets the base maximum amount of memory.</p></dd></dl>
</section>
"""


@pytest.mark.parametrize(
    "title",
    ["_AppCtxGlobals", "flask.ctx._AppCtxGlobals", "get()", "Config: work_mem", "work_mem"],
)
def test_a_page_titled_after_one_of_its_entries_is_titled_by_its_heading(
    adapter: DevDocsAdapter, title: str
) -> None:
    html = devdocs_page(API_PAGE, path="api/index", title=title)
    for view in (False, True):  # search shows the same title fetch does
        document = adapter.parse("api/index", title, html, "Library", view=view)
        assert document.title == "API"
        assert document.metadata["heading"] == "API"


@pytest.mark.parametrize("title", ["Interfaces", "ctx", "GET", "Config: shared_buffers"])
def test_a_title_naming_no_entry_of_the_page_stays(adapter: DevDocsAdapter, title: str) -> None:
    # Names are compared as written: "GET" is not the method get (nor "abc" the class ABC).
    html = devdocs_page(API_PAGE, path="api/index", title=title)
    assert adapter.parse("api/index", title, html, "Library").title == title


def test_missing_page_is_marked_and_empty(adapter: DevDocsAdapter) -> None:
    html = devdocs_page(MISSING_PAGE, path="library/gone", title="gone()")
    document = adapter.parse("library/gone", "gone()", html, "Library")
    assert document.metadata == {"missing": "true"}
    assert [(s.id, s.content, s.children) for s in document.sections] == [("", "", [])]
    assert document.title == "gone()"


def test_index_page_is_content_not_navigation(adapter: DevDocsAdapter) -> None:
    html = devdocs_page(
        '<h1>Python</h1><p>Welcome.</p><ul><li><a href="library/functions">Built-ins</a></li></ul>',
        path="index",
        title="Python 3.12 Documentation",
    )
    document = adapter.parse("index", "Python 3.12 Documentation", html, "Library")
    assert adapter.main_page_is_navigation is False
    assert document.title == "Python 3.12 Documentation"
    assert "Built-ins" in document.sections[0].content, "child-page lists are not local TOCs"


@pytest.mark.parametrize(
    ("path", "mimetype", "expected"),
    [
        ("index", "text/html", True),
        ("library/functions", "text/html; charset=utf-8", True),
        ("licenses.txt", "text/plain", False),
        ("licenses.txt", "text/html", False),
        ("navbar.json", "application/json", False),
        ("application.css", "text/css", False),
        ("assets/index.js", "application/javascript", False),
        ("assets/index.html", "text/html", False),
    ],
)
def test_is_content(adapter: DevDocsAdapter, path: str, mimetype: str, expected: bool) -> None:
    assert adapter.is_content(path, mimetype) is expected


def test_no_redirects_and_no_path_sections(adapter: DevDocsAdapter) -> None:
    assert adapter.name == "devdocs"
    assert adapter.stub_landing("library/functions", b"<html></html>") is None
    assert adapter.section_for_path("library/functions") is None


def test_registry_gives_this_adapter() -> None:
    adapter: Adapter = get_adapter("devdocs")
    assert isinstance(adapter, DevDocsAdapter)


def navbar_targets(reader: ZimReader) -> list[tuple[str, str]]:
    """Every ``(page, fragment)`` the archive's navbar.json points at."""
    navbar = json.loads(reader.content("navbar.json"))
    hrefs = [entry["href"] for group in navbar["children"] for entry in group["children"]]
    splits = (str(href).partition("#") for href in hrefs)
    return [(page, fragment) for page, _, fragment in splits if fragment]


@pytest.mark.parametrize("library", ["Python-Docs", "Cpp-Docs", "PostgreSQL-Docs"])
def test_every_demo_page_parses_cleanly(
    adapter: DevDocsAdapter, demo_archives: dict[str, Path], library: str
) -> None:
    reader = ZimReader(demo_archives[library])
    documents: dict[str, Document] = {}
    for path, title, is_redirect in reader.iter_entries():
        assert not is_redirect, "devdocs2zim writes no redirects"
        if not adapter.is_content(path, reader.resolve(path).mimetype):
            continue
        documents[path] = adapter.parse(path, title, reader.content(path), "Library")
    assert "index" in documents
    assert not {"navbar.json", "licenses.txt", "application.css"} & documents.keys()
    for document in documents.values():
        assert document.title and document.sections[0].id == ""
        assert document.metadata.get("source_url", "").startswith("http")
        text = "\n".join(s.content for s in walk(document.sections))
        assert RAW_TAG.search(without_code(text)) is None, document.path
        assert "_attribution" not in text and "¶" not in text
        ids = [i for s in walk(document.sections) for i in [s.id, *s.anchors]]
        assert len(ids) == len(set(ids)), document.path
    for page, fragment in navbar_targets(reader):
        landing = {i for s in walk(documents[page].sections) for i in [s.id, *s.anchors]}
        assert fragment in landing, f"{page}#{fragment}"


def test_navbar_symbols_map_names_to_pages_and_anchors(adapter: DevDocsAdapter) -> None:
    navbar = {
        "name": "Python",
        "children": [
            {
                "name": "Built-in Functions",
                "children": [
                    {"name": "Functions", "href": "library/functions"},
                    {"name": "super()", "href": "library/functions#super"},
                    {"name": "Super", "href": "library/other#Super"},
                ],
            },
            {
                "name": "Types",
                "children": [{"name": "str.join", "href": "library/stdtypes#str.join"}],
            },
        ],
    }
    symbols = adapter.parse_symbols(json.dumps(navbar).encode())
    assert symbols == [
        ("functions", Landing("library/functions", None)),
        ("super", Landing("library/functions", "super")),
        # A name documented twice keeps both places: ranking decides between them.
        ("super", Landing("library/other", "Super")),
        ("str.join", Landing("library/stdtypes", "str.join")),
    ]


def test_navbar_symbols_of_malformed_data_are_empty(adapter: DevDocsAdapter) -> None:
    assert adapter.parse_symbols(b"not json") == []
    assert adapter.parse_symbols(b'{"children": [{"name": 3, "href": null}]}') == []


def test_demo_symbols_all_land_on_a_page_and_a_reachable_anchor(
    adapter: DevDocsAdapter, demo_archives: dict[str, Path]
) -> None:
    reader = ZimReader(demo_archives["Python-Docs"])
    table = load_symbols(reader, adapter)
    [join] = [m.symbol for m in table.lookup([("str.join", 1.0)])]
    assert (join.path, join.section, join.title) == (
        "library/stdtypes",
        "str.join",
        "Built-in Types",
    )
    for symbol in table.symbols():
        document = adapter.parse(symbol.path, symbol.title, reader.content(symbol.path), "Library")
        if symbol.section:
            reachable = {s.id for s in walk(document.sections)} | {
                a for s in walk(document.sections) for a in s.anchors
            }
            assert symbol.section in reachable, symbol.name


SPHINX_PAGE = """<html><body><main class="_content"><div class="_page">
<h1>Classes</h1><p>Intro.</p>
<section id="a-word"><span id="tut-a"></span><h2>A word</h2><p>Text a.</p>
<section id="slots"><span id="label-target"></span><span id="other"></span><h3>Slots</h3>
<p>Slot text.</p></section></section>
<span id="lone"></span><h2>Unwrapped</h2><p>U.</p>
<section id="wrapper"><h2 id="own">Own</h2><p>X.</p></section>
</div></main></body></html>"""


def test_sphinx_label_targets_give_headings_their_real_anchors(adapter: DevDocsAdapter) -> None:
    document = adapter.parse("tutorial/classes", "Classes", SPHINX_PAGE.encode(), "Library")
    sections = {s.id: s for s in walk(document.sections)}
    # The wrapper's id names the section even behind empty label spans, whose ids are
    # aliases; a lone label before an unwrapped heading names it; a heading's own id
    # wins over its wrapper's, which becomes an alias.
    assert list(sections) == ["", "a-word", "slots", "lone", "own"]
    assert sections["a-word"].anchors == ["tut-a"]
    assert sections["slots"].anchors == ["label-target", "other"]
    assert sections["own"].anchors == ["wrapper"]
    assert sections["slots"].content == "Slot text."
    assert "label" not in sections["a-word"].content


def test_fetch_by_any_sphinx_anchor_returns_its_section(adapter: DevDocsAdapter) -> None:
    document = adapter.parse("tutorial/classes", "Classes", SPHINX_PAGE.encode(), "Library")
    for anchor, section in [("tut-a", "a-word"), ("label-target", "slots"), ("wrapper", "own")]:
        [chosen] = select_sections(document, [anchor])
        assert chosen.id == section
