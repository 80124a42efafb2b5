"""API entries as sections (adapters.entries) and what fetch does with many of them."""

from __future__ import annotations

from corpus_mcp import assemble
from corpus_mcp.adapters.entries import ENTRY_TITLE_CHARS, split_entries
from corpus_mcp.cleaning import Rendering, parse_html, to_markdown
from corpus_mcp.document import Document, Section, walk


def _split(html: str, heading: str = "", level: int = 2) -> tuple[str, list[Section]]:
    holder = parse_html(f"<div>{html}</div>".encode()).find(".//div")
    assert holder is not None
    taken: set[str] = set()
    entries = split_entries(holder, level, taken, Rendering(), heading)
    return to_markdown(holder), entries


def test_a_described_entry_is_a_section_and_the_text_between_stays() -> None:
    rest, entries = _split(
        '<p>Intro.</p><dl class="py function"><dt id="abs"><code>abs(x)</code></dt>'
        "<dd><p>Absolute value.</p></dd></dl><p>Between.</p>"
        '<dl class="py function"><dt id="all"><code>all(iterable)</code></dt>'
        "<dd><p>All true.</p></dd></dl>"
    )
    assert rest == "Intro.\n\nBetween."
    assert [(e.id, e.title, e.level, e.role, e.content) for e in entries] == [
        ("abs", "abs(x)", 3, "entry", "Absolute value."),
        ("all", "all(iterable)", 3, "entry", "All true."),
    ]


def test_nested_entries_are_children_and_their_ids_are_taken() -> None:
    _, [klass] = _split(
        '<dl class="py class"><dt id="m.C"><code>class m.C(a)</code></dt><dd><p>A class.</p>'
        '<dl class="py method"><dt id="m.C.run"><code>run()</code></dt><dd><p>Runs.</p>'
        '<span id="inner-target"></span></dd></dl></dd></dl>'
    )
    assert (klass.id, klass.content) == ("m.C", "A class.")
    [method] = klass.children
    assert (method.id, method.level, method.content, method.anchors) == (
        "m.C.run",
        4,
        "Runs.",
        ["inner-target"],
    )


def test_an_entry_without_description_stays_as_a_signature_line() -> None:
    rest, entries = _split(
        '<dl class="py method"><dt id="q.select_related"><code>select_related(*fields)</code>'
        "</dt></dl><p>Returns a QuerySet.</p>"
    )
    assert entries == []
    assert rest == "**`select_related(*fields)`**\n\nReturns a QuerySet."


def test_the_entry_a_heading_names_is_that_section() -> None:
    rest, entries = _split(
        '<dl class="py class"><dt id="django.db.models.CharField"><code>class CharField()</code>'
        '</dt><dd><p>A string field.</p><dl class="py attribute"><dt id="django.db.models.'
        'CharField.max_length"><code>max_length</code></dt><dd><p>The most.</p></dd></dl>'
        "</dd></dl>",
        heading="CharField",
    )
    assert "A string field." in rest
    assert [(e.id, e.level) for e in entries] == [("django.db.models.CharField.max_length", 3)]


def test_terms_sharing_a_description_are_one_entry_with_every_signature() -> None:
    long_signature = "f(" + ", ".join(f"argument_{n}=None" for n in range(12)) + ")"
    _, [entry, indexed] = _split(
        f'<dl><dt id="GUC-A"><code>a</code></dt><dt id="GUC-B"><code>{long_signature}</code>'
        '</dt><dd><p>Both.</p></dd><dt id="index-3">x y</dt><dd>An index target.</dd></dl>'
    )
    # Sphinx's general-index targets are no entry ids: that term gets one made from it.
    assert (indexed.id, indexed.content) == ("x-y", "An index target.")
    assert entry.id == "GUC-A" and entry.anchors == ["GUC-B"]
    assert entry.content.startswith("`a`\n\n`f(argument_0=None")
    assert entry.content.endswith("Both.")
    _, [long] = _split(f'<dl><dt id="f"><code>{long_signature}</code></dt><dd>Long.</dd></dl>')
    assert len(long.title) <= ENTRY_TITLE_CHARS and long.title.endswith("…")
    assert long.content.startswith(f"`{long_signature}`")


def _page(entries: int) -> Document:
    members = [
        Section(id=f"e{n}", title=f"e{n}()", level=3, content="x", role="entry")
        for n in range(entries)
    ]
    return Document(
        path="api",
        title="API",
        kind="documentation",
        sections=[
            Section(id="", title="API", level=1),
            Section(id="a", title="A", level=2, children=members[: entries // 2]),
            Section(id="b", title="B", level=2, children=members[entries // 2 :]),
        ],
    )


def test_a_long_document_lists_its_outline_and_what_was_returned() -> None:
    few = _page(10)
    assert len(assemble.available_sections(few)) == 13
    many = _page(2 * assemble.MAX_LISTED + 2)
    half = assemble.MAX_LISTED + 1
    outline = assemble.available_sections(many)
    assert [(s.id, s.unlisted) for s in outline] == [("", 0), ("a", half), ("b", half)]
    listed = assemble.available_sections(many, ["e1"])
    assert [(s.id, s.unlisted) for s in listed] == [
        ("", 0),
        ("a", half - 1),
        ("e1", 0),
        ("b", half),
    ]
    # A document of headings only gets the same outline (Node's fs page: 274 sections).
    nested = Document(
        path="fs",
        title="File system",
        kind="documentation",
        sections=[
            Section(
                id=f"h{n}",
                title=f"H{n}",
                level=2,
                children=[Section(id=f"h{n}.{m}", title="x", level=3) for m in range(30)],
            )
            for n in range(5)
        ],
    )
    shown = assemble.available_sections(nested, ["h3.7"])
    assert [s.id for s in shown] == ["h0", "h1", "h2", "h3", "h3.7", "h4"]
    assert [s.unlisted for s in shown] == [30, 30, 30, 29, 0, 30]


def test_an_entry_asked_for_with_its_heading_comes_without_its_neighbours() -> None:
    page = _page(6)
    chosen = assemble.select_sections(page, ["a", "e1"])
    assert [(s.id, [c.id for c in s.children]) for s in chosen] == [("a", []), ("e1", [])]
    assert [s.id for s in assemble.select_sections(page, ["a"])[0].children] == ["e0", "e1", "e2"]
    assert [s.id for s in walk(page.sections)].count("e1") == 1


def test_terms_without_ids_in_a_list_of_entries_get_ids_made_from_them() -> None:
    _, entries = _split(
        "<dl><dt><code>\\C [ title ]</code></dt><dd><p>Sets the title.</p></dd>"
        '<dt id="APP-COPY"><code>\\copy</code></dt><dd><p>Copies.</p></dd>'
        "<dt><code>--follow</code></dt><dd><p>Follows renames.</p></dd>"
        "<dt><code>--follow</code></dt><dd><p>Again.</p></dd></dl>"
    )
    assert [e.id for e in entries] == ["C-title", "APP-COPY", "--follow", "--follow-2"]
    rest, none = _split("<dl><dt>-a</dt><dd>All.</dd><dt>-b</dt><dd>Both.</dd></dl>")
    assert none == [] and "**-a**" in rest  # a list without any id stays text
