"""cleaning: HTML subtree -> Markdown, the rules every family adapter relies on."""

from __future__ import annotations

import pytest

from corpus_mcp.cleaning import (
    classes,
    drop,
    has_class,
    parse_html,
    to_markdown,
    visible_text,
    xpath_has_class,
)


def md(html: str, *, tex: bool = False) -> str:
    body = parse_html(html.encode()).find("body")
    assert body is not None
    return to_markdown(body, tex=tex)


def math_span(
    tex: str, *, display: bool = False, annotation: bool = True, alttext: bool = True
) -> str:
    kind = "display" if display else "inline"
    note = f'<annotation encoding="application/x-tex">{tex}</annotation>' if annotation else ""
    alt = f' alttext="{tex}"' if alttext else ""
    return (
        '<span class="mwe-math-element">'
        f'<span class="mwe-math-mathml-{kind}" style="display: none;">'
        f"<math{alt}><semantics><mrow><mi>x</mi></mrow>{note}</semantics></math></span>"
        f'<img class="mwe-math-fallback-image-{kind}" alt="{tex}" src="./_assets_/m.svg"></span>'
    )


# -- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b"\x00\xff\xfe",
        b"<!DOCTYPE html>",
        b"\xef\xbb\xbf<p>bom</p>",
        b"<?xml version='1.0' encoding='utf-8'?><p>x</p>",
        b"<p>caf\xe9</p>",
        b"<<<>>>",
    ],
)
def test_parse_html_never_raises(data: bytes) -> None:
    root = parse_html(data)
    assert root.tag == "html"
    assert isinstance(to_markdown(root), str)


def test_parse_html_reads_utf8_without_a_charset() -> None:
    root = parse_html("<p>Беларуская мова — café</p>".encode())
    assert visible_text(root) == "Беларуская мова — café"


# -- junk ------------------------------------------------------------------------------------


def test_generic_junk_is_skipped() -> None:
    html = """
    <script>var x = 1;</script><style>.a{}</style><noscript>enable js</noscript>
    <p>Kept<sup class="reference"><a href="#c1">[1]</a></sup> text<sup>[note 2]</sup><span
    class="mw-ref"><a><span class="mw-reflink-text">[3]</span></a></span><sup><a
    class="reference-link" href="#c">[4]</a></sup>.<span class="mw-editsection">[edit]</span>
    <span style="display:none">hidden</span><span hidden>also hidden</span></p>
    <p class="mw-empty-elt"></p><p><br></p><div><span></span></div>
    <!-- a comment -->
    """
    assert md(html) == "Kept text."


def test_links_keep_text_and_images_keep_caption_or_alt_only() -> None:
    html = """<p>See <a href="https://example.org/x">the site</a> and <a href="./Page#Frag">Page</a>
    <img src="./_assets_/flag.png" alt="Flag of France"> here.</p>
    <figure><a href="./File:X.jpg"><img src="./_assets_/x.jpg" alt="alt text"></a>
    <figcaption>The caption</figcaption></figure>
    <figure><img src="./_assets_/y.jpg" alt="Only alt"></figure>
    <div class="thumb"><div class="thumbinner"><img src="z.jpg" alt="">
    <div class="thumbcaption">Old caption</div></div></div>"""
    out = md(html)
    assert out == (
        "See the site and Page Flag of France here.\n\n"
        "Image: The caption\n\nImage: Only alt\n\nImage: Old caption"
    )
    assert "http" not in out and "_assets_" not in out


# -- escaping --------------------------------------------------------------------------------


def test_escaping_is_minimal_but_faithful() -> None:
    html = """<p>snake_case and my_var stay; _under_ and *stars* and `tick` are escaped;
    5 * 3 stays; a &lt;div&gt; tag is text.</p><p># not a heading</p><p>1. not a list</p>
    <p>- not an item</p><p>&gt; not a quote</p>"""
    assert md(html) == (
        "snake_case and my_var stay; \\_under\\_ and \\*stars\\* and \\`tick\\` are escaped; "
        "5 * 3 stays; a \\<div> tag is text.\n\n\\# not a heading\n\n1\\. not a list\n\n"
        "\\- not an item\n\n\\> not a quote"
    )


def test_inline_formatting() -> None:
    html = (
        "<p><b>bold </b>then <i>italic</i>, <s>gone</s>, x<sup>2</sup>, 1<sup>st</sup>, "
        "H<sub>2</sub>O</p>"
    )
    assert md(html) == "**bold** then *italic*, ~~gone~~, x^2, 1st, H2O"


def test_line_breaks_and_whitespace() -> None:
    html = "<p>  one\n  two<br>three  <br/>  four  </p><p>\u00a0</p><div>loose <b>text</b></div>"
    assert md(html) == "one two\nthree\nfour\n\nloose **text**"


# -- math ------------------------------------------------------------------------------------


def test_math_prefers_annotation_and_strips_displaystyle() -> None:
    span = math_span("{\\displaystyle a_{1}*b^{2}}")
    html = f"<p>Let {span} be.</p>"
    assert md(html) == "Let $a_{1}*b^{2}$ be."


def test_math_falls_back_to_alttext_then_image_alt() -> None:
    alttext_only = math_span("{\\displaystyle x_1}", annotation=False)
    image_only = math_span("{\\displaystyle y_2}", annotation=False, alttext=False)
    bare_img = '<img class="mwe-math-fallback-image-inline" alt="{\\textstyle z_3}" src="z.svg">'
    assert md(f"<p>{alttext_only} {image_only} {bare_img}</p>") == "$x_1$ $y_2$ $z_3$"


def test_display_math_is_double_dollar() -> None:
    span = math_span("{\\displaystyle \\sum _{i=1}^{n}i}", display=True)
    html = f"<dl><dd>{span}</dd></dl>"
    assert md(html) == "$$\\sum _{i=1}^{n}i$$"


def test_math_in_table_cell_is_not_escaped() -> None:
    span = math_span("a_b*c")
    html = f"<table><tr><th>f</th><th>g</th></tr><tr><td>{span}</td><td>x</td></tr></table>"
    assert "| $a_b*c$ | x |" in md(html)


# -- code ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "language"),
    [
        (
            '<div class="mw-highlight mw-highlight-lang-python">'
            '<pre><span class="k">def</span> f(): pass</pre></div>',
            "python",
        ),
        ('<pre data-language="ruby">def f(): pass</pre>', "ruby"),
        ('<pre class="lang-js prettyprint">def f(): pass</pre>', "js"),
        ('<pre><code class="language-rust">def f(): pass</code></pre>', "rust"),
        (
            '<div class="highlight-c notranslate"><div class="highlight">'
            "<pre>def f(): pass</pre></div></div>",
            "c",
        ),
        ("<pre>def f(): pass</pre>", ""),
    ],
)
def test_code_block_language(html: str, language: str) -> None:
    assert md(html) == f"```{language}\ndef f(): pass\n```"


def test_code_block_keeps_indentation_and_blank_lines_and_fences_safely() -> None:
    html = "<pre>if x:\n\n\n    y = `a` * 2   \n```\n</pre>"
    assert md(html) == "````\nif x:\n\n\n    y = `a` * 2\n```\n````"


def test_inline_code_is_verbatim() -> None:
    html = "<p>Use <code>a_b*c</code>, <kbd>Ctrl</kbd> and <code>x `y`</code>.</p>"
    assert md(html) == "Use `a_b*c`, `Ctrl` and `` x `y` ``."


# -- tables ----------------------------------------------------------------------------------


def test_table_pipes_colspan_rowspan() -> None:
    html = """<table><caption>Data</caption>
    <tr><th>A</th><th>B|x</th><th>C</th></tr>
    <tr><td colspan="2">wide</td><td>c</td></tr>
    <tr><td rowspan="2">r</td><td>1</td><td>2</td></tr>
    <tr><td>3</td><td>4</td></tr>
    <tr><td>only</td></tr></table>"""
    assert md(html) == (
        "**Data**\n\n| A | B\\|x | C |\n|---|---|---|\n| wide | | c |\n| r | 1 | 2 |\n"
        "| r | 3 | 4 |\n| only | | |"
    )


def test_infobox_becomes_compact_list() -> None:
    html = """<table class="infobox vcard"><tbody>
    <tr><th colspan="2">Ray Charles</th></tr>
    <tr><td colspan="2"><img alt="" src="x.jpg"><div>Charles in 1968</div></td></tr>
    <tr><th colspan="2">Background information</th></tr>
    <tr><th>Born</th><td>September 23, 1930<br>Albany, Georgia</td></tr>
    <tr><th>Genres</th><td><div class="hlist"><ul><li>R&amp;B</li><li>soul</li></ul></div></td></tr>
    </tbody></table>"""
    assert md(html) == (
        "**Ray Charles**\n- Charles in 1968\n\n**Background information**\n"
        "- Born: September 23, 1930; Albany, Georgia\n- Genres: R&B; soul"
    )


def test_layout_table_with_one_column_is_unwrapped() -> None:
    html = "<table><tr><td><p>First</p></td></tr><tr><td>Second</td></tr></table>"
    assert md(html) == "First\n\nSecond"


# -- lists, definitions, quotes --------------------------------------------------------------


def test_nested_lists_and_start() -> None:
    html = """<ul><li>one<ul><li>nested <i>it</i></li></ul></li><li><p>two</p>
    <pre>code</pre></li><li></li></ul><ol start="3"><li>x</li><li>y</li></ol>"""
    assert md(html) == ("- one\n  - nested *it*\n- two\n\n  ```\n  code\n  ```\n\n3. x\n4. y")


def test_definition_list() -> None:
    html = "<dl><dt>term</dt><dd>definition</dd><dt>other</dt><dd><p>a</p><p>b</p></dd></dl>"
    assert md(html) == "**term**\n\ndefinition\n\n**other**\n\na\n\nb"


def test_consecutive_terms_share_their_description() -> None:
    html = "<dl><dt>-a</dt><dt>--all</dt><dd>Stage all.</dd><dt>-p</dt><dd>Patch.</dd></dl>"
    assert md(html) == "**-a**\n**--all**\n\nStage all.\n\n**-p**\n\nPatch."


def test_admonitions_and_block_quotes() -> None:
    html = """<div class="admonition warning"><p class="admonition-title">Warning</p>
    <p>Be careful.</p><p>Really.</p></div><div class="note">A note.</div>
    <blockquote><p>Quoted <b>text</b></p></blockquote>"""
    assert md(html) == (
        "> **Warning:** Be careful.\n>\n> Really.\n\n> **Note:** A note.\n\n> Quoted **text**"
    )


def test_headings_in_content() -> None:
    assert md("<h2>Title <span class='mw-editsection'>edit</span></h2><p>x</p>") == "## Title\n\nx"


# -- TeX mode (Stack Exchange math sites) ----------------------------------------------------


def test_tex_mode_preserves_raw_delimited_tex() -> None:
    html = (
        "<p>Price $5 and $x_1*y$ and $$\\sum_{i} a_i$$ and \\(a*b\\) and \\[c_d\\] "
        "text_with *star*</p>"
    )
    assert md(html, tex=True) == (
        "Price $5 and $x_1*y$ and $$\\sum_{i} a_i$$ and \\(a*b\\) and \\[c_d\\] "
        "text_with \\*star\\*"
    )
    assert "\\_{i}" in md(html)


def test_tex_mode_keeps_multiline_display_math() -> None:
    html = "<p>$$\n\\begin{aligned}\na &amp;= b \\\\\nc &amp;= d\n\\end{aligned}\n$$</p>"
    assert md(html, tex=True) == "$$\n\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}\n$$"


# -- output shape ----------------------------------------------------------------------------


def test_output_is_normalised() -> None:
    html = "<div>\n\n<p>a  </p>\n\n\n<p></p><p>b\t</p><ul><li> c </li></ul>  </div>"
    assert md(html) == "a\n\nb\n\n- c"


def test_to_markdown_of_a_single_element_and_visible_text() -> None:
    root = parse_html(
        b"<div><p id='p'>Hello <b>world</b><sup class='reference'>[1]</sup></p></div>"
    )
    paragraph = root.xpath("//p")[0]
    assert to_markdown(paragraph) == "Hello **world**"
    assert visible_text(root) == "Hello world"


# -- helpers ---------------------------------------------------------------------------------


def test_class_helpers_and_drop() -> None:
    root = parse_html(b"<div><p class='a  b'>x</p>tail<span class='b'>y</span>after</div>")
    paragraph = root.xpath("//p")[0]
    assert classes(paragraph) == frozenset({"a", "b"})
    assert has_class(paragraph, "b") and not has_class(paragraph, "c")
    assert drop(root, f".//*[{xpath_has_class('b')}]") == 2
    assert visible_text(root) == "tailafter"
