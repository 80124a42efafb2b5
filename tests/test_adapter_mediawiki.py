"""MediaWikiAdapter against real mwoffliner archives and hand-written samples of every layout.

Golden files hold the full rendered document; regenerate them with
``UPDATE_GOLDEN=1 pytest tests/test_adapter_mediawiki.py`` and review the diff as an agent
would read it (no citation markers, navbox text, tags or footers).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corpus_mcp.adapters.base import Landing
from corpus_mcp.adapters.mediawiki import MediaWikiAdapter
from corpus_mcp.cleaning import parse_html
from corpus_mcp.document import Document, walk
from corpus_mcp.zim.reader import ZimReader

from .golden_docs import check_golden, render

ADAPTER = MediaWikiAdapter()

FLAT_ACTIONPARSE = """<!DOCTYPE html>
<html class="client-nojs" lang="en" dir="ltr">
<head><meta charset="UTF-8"><title>Quicksort</title>
<link rel="stylesheet" href="./_mw_/skins.vector.styles.css"><script src="./_res_/script.js"></script></head>
<body class="skin-vector page-Quicksort">
<main id="content" class="mw-body">
 <header class="mw-body-header"><h1 id="firstHeading" class="firstHeading"><span class="mw-page-title-main">Quicksort</span></h1></header>
 <div id="bodyContent" class="vector-body">
  <div id="contentSub"><div id="mw-content-subtitle">&lt; Sorting</div></div>
  <div id="mw-content-text" class="mw-body-content" lang="en" dir="ltr">
   <div class="mw-content-ltr mw-parser-output" lang="en" dir="ltr">
    <style data-mw-deduplicate="TemplateStyles:r1">.mw-parser-output .hatnote{font-style:italic}</style>
    <div role="note" class="hatnote navigation-not-searchable">For the film, see <a href="./Quicksort_(film)">Quicksort (film)</a>.</div>
    <meta property="mw:PageProp/toc">
    <table class="infobox"><tbody>
     <tr><th colspan="2" class="infobox-above">Quicksort</th></tr>
     <tr><th scope="row" class="infobox-label">Class</th><td class="infobox-data"><a href="./Sorting_algorithm">Sorting algorithm</a></td></tr>
     <tr><th scope="row" class="infobox-label">Worst-case performance</th><td class="infobox-data"><span class="mwe-math-element"><span class="mwe-math-mathml-inline mwe-math-mathml-a11y" style="display: none;"><math alttext="{\\displaystyle O(n^{2})}"><semantics><mrow><mi>O</mi></mrow><annotation encoding="application/x-tex">{\\displaystyle O(n^{2})}</annotation></semantics></math></span><img src="./_assets_/x.svg" class="mwe-math-fallback-image-inline" alt="{\\displaystyle O(n^{2})}"></span></td></tr>
    </tbody></table>
    <p><b>Quicksort</b> is an efficient, general-purpose <a href="./Sorting_algorithm">sorting algorithm</a>.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1"><span class="cite-bracket">[</span>1<span class="cite-bracket">]</span></a></sup> It was developed by <a href="./Tony_Hoare">Tony Hoare</a> in 1959.<sup class="reference"><a href="#cite_note-2">[2]</a></sup></p>
    <p class="mw-empty-elt"></p>
    <div class="mw-heading mw-heading2"><h2 id="History">History</h2><span class="mw-editsection">[<a href="#">edit</a>]</span></div>
    <p>The algorithm was developed in 1959 while Hoare was a visiting student at <a href="./Moscow_State_University">Moscow State University</a>.</p>
    <figure typeof="mw:File/Thumb"><a href="./File:Hoare.jpg" class="mw-file-description"><img src="./_assets_/hoare.jpg" class="mw-file-element" alt=""></a><figcaption>Tony Hoare in 2011</figcaption></figure>
    <div class="mw-heading mw-heading2"><h2 id="Algorithm">Algorithm</h2></div>
    <p>Quicksort is a <i>divide-and-conquer</i> algorithm. The recurrence is</p>
    <dl><dd><span class="mwe-math-element"><span class="mwe-math-mathml-display"><math display="block" alttext="{\\displaystyle T(n)=2T(n/2)+O(n)}"><semantics><mrow></mrow><annotation encoding="application/x-tex">{\\displaystyle T(n)=2T(n/2)+O(n)}</annotation></semantics></math></span><img class="mwe-math-fallback-image-display" alt="{\\displaystyle T(n)=2T(n/2)+O(n)}" src="./_assets_/y.svg"></span></dd></dl>
    <div class="mw-heading mw-heading3"><h3 id="Lomuto_partition_scheme">Lomuto partition scheme</h3></div>
    <div class="mw-highlight mw-highlight-lang-python mw-content-ltr" dir="ltr"><pre><span></span><span class="k">def</span> <span class="nf">partition</span><span class="p">(</span><span class="n">a</span><span class="p">,</span> <span class="n">lo</span><span class="p">,</span> <span class="n">hi</span><span class="p">):</span>
    <span class="n">pivot</span> <span class="o">=</span> <span class="n">a</span><span class="p">[</span><span class="n">hi</span><span class="p">]</span>
    <span class="k">return</span> <span class="n">pivot</span>
</pre></div>
    <p>Call it with <code>partition(a, 0, len(a) - 1)</code>; the variable <code>my_pivot</code> is local.</p>
    <div class="mw-heading mw-heading4"><h4 id="Complexity">Complexity</h4></div>
    <table class="wikitable"><tbody>
     <tr><th>Case</th><th>Time</th><th>Notes</th></tr>
     <tr><td>Best</td><td><span class="mwe-math-element"><math alttext="{\\displaystyle O(n\\log n)}"></math></span></td><td>balanced | split</td></tr>
     <tr><td>Worst</td><td>O(n²)</td><td>sorted input</td></tr>
     <tr><td colspan="3">Average is close to best.</td></tr>
    </tbody></table>
    <div class="mw-heading mw-heading3"><h3 id="Hoare_partition_scheme">Hoare partition scheme</h3></div>
    <p>Uses two indices.<sup class="reference"><a href="#cite_note-1">[1]</a></sup></p>
    <div class="mw-heading mw-heading2"><h2 id="References">References</h2></div>
    <style data-mw-deduplicate="TemplateStyles:r2">.mw-parser-output .reflist{margin-bottom:0.5em}</style>
    <div class="reflist"><div class="mw-references-wrap"><ol class="references">
     <li id="cite_note-1"><span class="mw-cite-backlink"><b><a href="#cite_ref-1">^</a></b></span> <span class="reference-text"><cite class="citation book">Hoare, C. A. R. (1962). "Quicksort". <i>The Computer Journal</i>. <b>5</b> (1): 10–16.</cite></span></li>
     <li id="cite_note-2"><span class="mw-cite-backlink"><b><a href="#cite_ref-2">^</a></b></span> <span class="reference-text">Skiena, Steven (2008). <i>The Algorithm Design Manual</i>. Springer. p. 129.</span></li>
    </ol></div></div>
    <div role="navigation" class="navbox" aria-labelledby="Sorting"><table class="nowraplinks navbox-inner"><tbody><tr><th class="navbox-title">Sorting algorithms</th></tr><tr><td class="navbox-list"><ul><li><a href="./Merge_sort">Merge sort</a></li><li><a href="./Heapsort">Heapsort</a></li></ul></td></tr></tbody></table></div>
   </div>
   <div id="catlinks" class="catlinks"><div class="mw-normal-catlinks">Categories: <ul><li>Sorting algorithms</li></ul></div></div>
   <!--htdig_noindex--><div><div class="zim-footer">This article is issued from <a href="https://en.wikipedia.org/wiki/Quicksort">Wikipedia</a>. The text is licensed under Creative Commons.</div></div><!--/htdig_noindex-->
  </div>
 </div>
</main>
</body></html>
"""  # noqa: E501

PARSOID_SECTIONS = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Tea</title></head>
<body><div id="content"><h1 id="firstHeading" class="firstHeading">Tea</h1>
<div id="mw-content-text"><div class="mw-parser-output">
<section data-mw-section-id="0"><p><b>Tea</b> is an aromatic beverage.<sup class="mw-ref reference" typeof="mw:Extension/ref"><a href="#cite_note-1"><span class="mw-reflink-text"><span class="cite-bracket">[</span>1<span class="cite-bracket">]</span></span></a></sup></p>
<section data-mw-section-id="-1"><div class="navbox" role="navigation">Tea navigation: Green · Black</div><p>Folded pseudo-section text.</p></section>
</section>
<section data-mw-section-id="1"><div class="mw-heading mw-heading2"><h2 id="Etymology">Etymology</h2></div>
<p>The word comes from Min Chinese.</p>
<section data-mw-section-id="2"><div class="mw-heading mw-heading3"><h3 id="Cha">Cha</h3></div><p>Via Portuguese.</p>
<section data-mw-section-id="-2"><p>More about cha.</p></section>
</section>
</section>
<section data-mw-section-id="3"><div class="mw-heading mw-heading2"><h2 id="Etymology_2">Etymology</h2></div><p>A second heading with the same text.</p></section>
<section data-mw-section-id="4"><div class="mw-heading mw-heading2"><h2 id="Notes">Notes</h2></div>
<div class="mw-references-wrap"><ol class="mw-references references"><li id="cite_note-1"><span class="mw-cite-backlink"><a href="#cite_ref-1">↑</a></span> <span class="mw-reference-text reference-text">Heiss, Mary Lou (2007). <i>The Story of Tea</i>.</span></li></ol></div>
</section>
</div></div></div></body></html>
"""  # noqa: E501

PCS = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Mount Everest</title></head>
<body><div id="mw-mf-viewport"><div id="content"><div id="bodyContent" class="content mw-parser-output">
<div id="mw-content-text">
<section data-mw-section-id="0"><div class="pcs-edit-section-header v2"><h1 class="pcs-edit-section-title">Mount Everest</h1></div>
<div class="pcs-collapse-table-container"><div class="pcs-collapse-table-collapsed-container"><strong>Quick facts</strong>: Elevation, Coordinates</div>
<div class="pcs-collapse-table-content"><table class="infobox"><tbody><tr><th>Elevation</th><td>8,849 m</td></tr><tr><th>Range</th><td>Himalayas</td></tr></tbody></table></div>
<div class="pcs-collapse-table-collapsed-bottom">Close</div></div>
<p><b>Mount Everest</b> is Earth's highest mountain.<sup><a class="reference-link" href="#cite_note-1">[1]</a></sup></p></section>
<section data-mw-section-id="1"><div class="pcs-edit-section-header v2"><h2 id="Name" class="pcs-edit-section-title">Name</h2><span class="pcs-edit-section-link-container"><a class="pcs-edit-section-link"></a></span></div>
<p>Named after George Everest.</p>
<section data-mw-section-id="2"><div class="pcs-edit-section-header v2"><h3 id="Tibetan_name" class="pcs-edit-section-title">Tibetan name</h3></div><p>Chomolungma.</p></section>
</section>
<section data-mw-section-id="3"><div class="pcs-edit-section-header v2"><h2 id="References" class="pcs-edit-section-title">References</h2></div>
<div class="reflist"><ol class="references"><li id="cite_note-1"><span class="reference-text">Survey of Nepal, 2020.</span></li></ol></div></section>
</div></div></div></div></body></html>
"""  # noqa: E501

MOBILE_DETAILS = """<!DOCTYPE html><html><head><meta charset="UTF-8"><title>Ant</title></head>
<body class="mediawiki"><div id="content" class="mw-body"><div id="bodyContent" class="content mw-parser-output">
<div id="mw-content-text" style="direction: ltr;">
<h1 class="section-heading" data-section-id="0"><span class="mw-headline" id="title_0">Ant</span></h1>
<div id="mf-section-0" class="mf-section-0"><p><b>Ants</b> are eusocial insects.<span class="mw-ref" id="cite_ref-1"><a href="#cite_note-1"><span class="mw-reflink-text">[1]</span></a></span></p></div>
<details data-level="2" open=""><summary class="section-heading"><h2 id="Etymology">Etymology</h2></summary>
<p>From Old English <i>ǣmette</i>.</p>
<details data-level="3"><summary class="section-heading"><h3 id="Old_English">Old English</h3></summary><p>Related to emmet.</p></details>
</details>
<details data-level="2"><summary class="section-heading"><h2 id="Taxonomy">Taxonomy</h2></summary><ul><li>Formicidae<ul><li>Formicinae</li></ul></li></ul></details>
<details data-level="2"><summary class="section-heading"><h2 id="References">References</h2></summary>
<div class="mw-references-wrap"><ol class="mw-references references"><li id="cite_note-1"><span class="mw-linkback-text">↑ </span><span class="mw-reference-text">Hölldobler &amp; Wilson (1990).</span></li></ol></div></details>
</div>
<!--htdig_noindex--><div><div style="clear:both">This article is issued from <a href="https://en.wikipedia.org">Wikipedia</a>.</div></div><!--/htdig_noindex-->
</div></div></body></html>
"""  # noqa: E501

SAMPLES = {
    "flat_actionparse": (FLAT_ACTIONPARSE, "Quicksort"),
    "parsoid_sections": (PARSOID_SECTIONS, "Tea"),
    "pcs": (PCS, "Mount Everest"),
    "mobile_details": (MOBILE_DETAILS, "Ant"),
}

REAL = {
    "ray_charles_2018": ("wikipedia_en_ray_charles_novid_2018-10.zim", "Ray_Charles"),
    "ray_charles_2020_mini": ("wikipedia_en_ray_charles_mini_2020-03.zim", "Ray_Charles"),
    "african_americans_2022_mini": ("wikipedia_en_100_mini_2022-10.zim", "African_Americans"),
    "be_wikibooks_cpp_2017": ("wikibooks_be_all_nopic_2017-02.zim", "Дапаможнік_па_C++"),
}

# Markup that must never reach an agent: real HTML tags (escaped ``\<x>`` text is fine).
HTML_TAG = re.compile(
    r"(?<!\\)</?(?:a|abbr|b|br|div|span|p|table|tr|td|th|ul|ol|li|img|sup|sub|i|em|strong|"
    r"section|details|summary|figure|figcaption|style|script|link|meta|math|annotation|h[1-6])"
    r"\b[^>]*>",
    re.IGNORECASE,
)
# A citation marker leaks as "text.[1]" or "text [a]"; "a[100]" (code in prose) is no marker.
CITATION_MARKER = re.compile(
    r"(?<![\w\[])\[(?:\d{1,3}|[a-z])\](?!\()|\[(?:note \d{1,3}|citation needed)\]"
)


CODE_OR_MATH = re.compile(r"^(`{3,}).*?^\1$|`[^`\n]+`|\$\$.+?\$\$|\$[^$\n]+\$", re.M | re.S)


def bracketed_prose(html: bytes) -> str:
    """The page's text outside citation elements: where a ``[12]`` is legitimately prose."""
    root = parse_html(html)
    for el in root.xpath(
        "//sup | //*[contains(@class, 'mw-ref')] | //*[contains(@class, 'reference')]"
    ):
        el.drop_tree()
    return " ".join(root.itertext())


def navbox_runs(html: bytes) -> list[tuple[str, ...]]:
    """Three consecutive link texts from each navbox/sidebar list of the source page."""
    root = parse_html(html)
    runs: list[tuple[str, ...]] = []
    boxes = root.xpath("//*[contains(@class, 'navbox') or contains(@class, 'sidebar')]")
    for box in boxes:
        for items in box.xpath(".//ul"):
            texts = [" ".join(li.text_content().split()) for li in items.xpath("./li")]
            texts = [t for t in texts if len(t) > 2]
            if len(texts) >= 3:
                runs.append(tuple(texts[:3]))
    return runs


LINK_TARGET = re.compile(r"\]\(([^)\s]*)")


def assert_clean(doc: Document, source_prose: str = "") -> None:
    for section in walk(doc.sections):
        text = CODE_OR_MATH.sub("", section.content)
        where = f"{doc.path}#{section.id}"
        assert not HTML_TAG.search(text), (where, HTML_TAG.search(text))
        for marker in CITATION_MARKER.finditer(text):
            assert marker.group(0) in source_prose, (where, marker.group(0))
        assert "This article is issued from" not in text, where
        for target in LINK_TARGET.findall(text):
            # A link leads to a document the server serves, a section, or the web.
            assert target.startswith(("corpus://Library/", "#", "https://", "http://")), (
                where,
                target,
            )
        assert not re.search(r"[ \t]$", section.content, re.MULTILINE), where
        assert "\n\n\n" not in section.content, where


def parse_sample(case: str) -> Document:
    html, title = SAMPLES[case]
    return ADAPTER.parse(case, title, html.encode(), "Library")


# -- goldens ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(SAMPLES))
def test_sample_golden(case: str) -> None:
    doc = parse_sample(case)
    assert_clean(doc)
    check_golden(f"mediawiki/{case}.md", doc)


@pytest.mark.parametrize("case", sorted(REAL))
def test_real_archive_golden(case: str, shared_zims: Path) -> None:
    file, path = REAL[case]
    reader = ZimReader(shared_zims / file)
    entry = reader.resolve(path)
    doc = ADAPTER.parse(entry.path, entry.title, reader.content(path), "Library")
    assert_clean(doc)
    check_golden(f"mediawiki/{case}.md", doc)


# -- layouts ---------------------------------------------------------------------------------


def ids(doc: Document) -> list[str]:
    return [section.id for section in walk(doc.sections)]


def test_flat_layout_tree_and_junk() -> None:
    doc = parse_sample("flat_actionparse")
    assert doc.title == "Quicksort"
    assert doc.kind == "article"
    top = doc.sections
    assert [(s.id, s.level) for s in top] == [
        ("", 1),
        ("History", 2),
        ("Algorithm", 2),
        ("References", 2),
    ]
    algorithm = top[2]
    assert [c.id for c in algorithm.children] == [
        "Lomuto_partition_scheme",
        "Hoare_partition_scheme",
    ]
    assert algorithm.children[0].children[0].id == "Complexity"
    assert algorithm.children[0].children[0].level == 4
    everything = render(doc)
    for junk in (
        "Sorting algorithms",
        "Merge sort",
        "For the film",
        "Categories",
        "< Sorting",
        "font-style",
        "edit",
        "issued from",
    ):
        assert junk not in everything
    assert top[3].reference and "Hoare, C. A. R. (1962)" in top[3].content
    assert not any(s.reference for s in walk(doc.sections) if s.id != "References")


def test_bare_text_between_blocks_is_rendered_once() -> None:
    html = (
        b'<html><body><div id="mw-content-text"><div class="mw-parser-output">'
        b'<table class="infobox"><tr><th>Specialty</th><td>Endocrinology</td></tr></table>'
        b"<b>Diabetes mellitus</b>, commonly known as <b>diabetes</b>, is a disease."
        b'<p>Second paragraph.</p><div class="mw-heading mw-heading2"><h2 id="Types">Types</h2>'
        b"</div>Loose text <i>after</i> a heading.<p>Body.</p></div></div></body></html>"
    )
    doc = MediaWikiAdapter().parse("Diabetes", "Diabetes", html, "Library")
    lead = doc.sections[0].content
    assert lead.count("commonly known as") == 1
    assert "**Diabetes mellitus**, commonly known as **diabetes**, is a disease." in lead
    assert doc.sections[1].content.count("Loose text") == 1


def test_parsoid_negative_sections_fold_into_parent() -> None:
    doc = parse_sample("parsoid_sections")
    assert ids(doc) == ["", "Etymology", "Cha", "Etymology_2", "Notes"]
    assert "Folded pseudo-section text." in doc.sections[0].content
    assert "More about cha." in doc.sections[1].children[0].content
    assert "Tea navigation" not in render(doc)
    assert doc.sections[-1].reference


def test_pcs_layout_drops_collapse_chrome_and_title_heading() -> None:
    doc = parse_sample("pcs")
    assert ids(doc) == ["", "Name", "Tibetan_name", "References"]
    lead = doc.sections[0].content
    assert "Quick facts" not in lead and "Close" not in lead
    assert "- Elevation: 8,849 m" in lead
    assert doc.title == "Mount Everest"


def test_mobile_details_layout() -> None:
    doc = parse_sample("mobile_details")
    assert ids(doc) == ["", "Etymology", "Old_English", "Taxonomy", "References"]
    assert doc.sections[1].children[0].level == 3
    assert "title_0" not in ids(doc)
    assert "issued from" not in render(doc)


def test_2018_section_heading_layout(shared_zims: Path) -> None:
    reader = ZimReader(shared_zims / "wikipedia_en_ray_charles_novid_2018-10.zim")
    doc = ADAPTER.parse("Ray_Charles", "Ray Charles", reader.content("Ray_Charles"), "Library")
    career = next(s for s in doc.sections if s.id == "Career")
    assert career.children[0].id.startswith("1945–1952")
    # Citations, and the links out of the article: fetchable, never hinted.
    assert {s.id for s in walk(doc.sections) if s.reference} == {
        "Notes",
        "References",
        "Bibliography",
        "External_links",
    }


def test_bare_headings_and_mw_headline_spans() -> None:
    html = """<html><body><div id="mw-content-text"><div class="mw-parser-output">
    <p>Lead.</p><h2><span class="mw-headline" id="Old_style">Old style</span></h2><p>A.</p>
    <h3 id="Bare">Bare</h3><p>B.</p><h1>Top level</h1><h2 id="Under">Under</h2><p>C.</p>
    </div></div></body></html>"""
    doc = ADAPTER.parse("X", "X", html.encode(), "Library")
    assert [(s.id, s.level) for s in doc.sections] == [("", 1), ("Old_style", 2), ("Top_level", 1)]
    assert doc.sections[1].children[0].id == "Bare"
    assert doc.sections[2].children[0].id == "Under"


def test_section_ids_are_verbatim_unique_and_stable() -> None:
    html = """<html><body><div id="mw-content-text"><div class="mw-parser-output">
    <div class="mw-heading mw-heading2"><h2 id="Caf.C3.A9">Café</h2></div><p>x</p>
    <div class="mw-heading mw-heading2"><h2 id="Dup">Dup</h2></div><p>y</p>
    <div class="mw-heading mw-heading2"><h2 id="Dup">Dup</h2></div><p>z</p>
    <div class="mw-heading mw-heading2"><h2 id="Dup_2">Dup 2</h2></div>
    </div></div></body></html>"""
    first = ADAPTER.parse("X", "X", html.encode(), "Library")
    assert ids(first) == ["", "Caf.C3.A9", "Dup", "Dup_3", "Dup_2"]
    second = ADAPTER.parse("X", "X", html.encode(), "Library")
    assert render(first) == render(second)


def test_reference_list_under_ordinary_heading_is_dropped() -> None:
    html = """<html><body><div id="mw-content-text"><div class="mw-parser-output">
    <div class="mw-heading mw-heading2"><h2 id="History">History</h2></div><p>Text.</p>
    <div class="mw-references-wrap"><ol class="references"><li>Cite one.</li></ol></div>
    <div class="mw-heading mw-heading2"><h2 id="Further">Further</h2></div>
    <div class="reflist"><ol class="references"><li>Cite two.</li></ol></div>
    </div></div></body></html>"""
    doc = ADAPTER.parse("X", "X", html.encode(), "Library")
    history, further = doc.sections[1], doc.sections[2]
    assert history.content == "Text." and not history.reference
    assert further.reference and further.content == "1. Cite two."


def test_title_fallbacks() -> None:
    content = b'<div id="mw-content-text"><p>x</p></div>'
    hidden = (
        b'<html><head><title>T</title></head><body><h1 id="firstHeading" style="display: none;">'
        b"Main</h1>" + content + b"</body></html>"
    )
    assert ADAPTER.parse("Main_Page", "Entry title", hidden, "Library").title == "Entry title"
    display = (
        b'<html><body><h1 id="firstHeading"><i>Nature</i> (journal)</h1>'
        + content
        + b"</body></html>"
    )
    assert (
        ADAPTER.parse("Nature_(journal)", "Nature (journal)", display, "Library").title
        == "Nature (journal)"
    )
    bare = b"<html><head><title>From title tag</title></head><body><p>x</p></body></html>"
    assert ADAPTER.parse("P", "", bare, "Library").title == "From title tag"


def test_list_main_pages_are_marked_navigation(shared_zims: Path) -> None:
    for file, path in (
        ("wikipedia_en_100_mini_2022-10.zim", "index"),
        ("wikipedia_en_ray_charles_novid_2018-10.zim", "index.htm"),
    ):
        reader = ZimReader(shared_zims / file)
        doc = ADAPTER.parse(path, "", reader.content(path), "Library")
        assert doc.metadata["navigation"] == "true"
        assert doc.kind == "article"
    reader = ZimReader(shared_zims / "wikipedia_en_100_mini_2022-10.zim")
    article = ADAPTER.parse("Ant", "Ant", reader.content("Ant"), "Library")
    assert "navigation" not in article.metadata
    page_list = (
        b'<html><body class="page-list-home"><ul id="list"><li><a href="A">A</a></li></ul>'
        b"</body></html>"
    )
    assert ADAPTER.parse("index", "", page_list, "Library").metadata["navigation"] == "true"


def test_empty_and_junk_input_never_raises() -> None:
    for data in (b"", b"\x00\xff garbage", b"<html>", b"<p>just a paragraph</p>"):
        doc = ADAPTER.parse("P", "P", data, "Library")
        assert doc.sections[0].id == ""


# -- paths and stubs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "mimetype", "expected"),
    [
        ("Ray_Charles", "text/html", True),
        ("Foo/Bar", "text/html; charset=utf-8", True),
        ("Category:Sorting", "text/html", True),
        ("_assets_/a.png", "image/png", False),
        ("_res_/script.js", "application/javascript", False),
        ("_mw_/skin.css", "text/html", False),
        ("_mathjax_/x.html", "text/html", False),
        ("_categories_partials_/x", "text/html", False),
        ("I/m/Ray.jpg", "image/jpeg", False),
        ("-/s/style.css", "text/css", False),
        ("M/Title", "text/plain", False),
        ("X/fulltext/xapian", "application/octet-stream", False),
        ("Page", "application/pdf", False),
    ],
)
def test_is_content(path: str, mimetype: str, expected: bool) -> None:
    assert ADAPTER.is_content(path, mimetype) is expected


def stub(url: str) -> bytes:
    return (
        '<!DOCTYPE html><html><head><meta charset="UTF-8"><title>Stub</title>'
        f'<meta http-equiv="refresh" content="0;URL=\'{url}\'"></head>'
        f'<body><a href="{url}">Stub</a></body></html>'
    ).encode()


@pytest.mark.parametrize(
    ("path", "url", "landing"),
    [
        ("Ray_Charles_Robinson", "./Ray_Charles#Early_life", Landing("Ray_Charles", "Early_life")),
        ("Alias", "./Caf%C3%A9#Les%20d%C3%A9buts", Landing("Café", "Les_débuts")),
        ("Foo/Alias", "../Target#Frag", Landing("Target", "Frag")),
        ("Foo/Bar/Alias", "../Sub/Page#A b", Landing("Foo/Sub/Page", "A_b")),
        ("Foo/Alias", "./Sibling", Landing("Foo/Sibling", None)),
        ("Alias", "./Some%2FSubpage#", Landing("Some/Subpage", None)),
        ("Alias", "#Local", Landing("Alias", "Local")),
        # mwoffliner leaves a quote inside the quoted URL as it is
        ("Alias", "./Talkin'_Blues#Death", Landing("Talkin'_Blues", "Death")),
    ],
)
def test_stub_landing(path: str, url: str, landing: Landing) -> None:
    assert ADAPTER.stub_landing(path, stub(url)) == landing


def test_stub_landing_reads_an_unquoted_url() -> None:
    page = b'<html><head><meta http-equiv="refresh" content="0; url=./Target#Part"></head></html>'
    assert ADAPTER.stub_landing("Alias", page) == Landing("Target", "Part")


def test_stub_landing_ignores_real_pages() -> None:
    page = (
        b'<html><head><meta http-equiv="refresh" content="0;URL=\'./X\'"></head>'
        b'<body><div id="mw-content-text"><p>x</p></div></body></html>'
    )
    assert ADAPTER.stub_landing("P", page) is None
    assert ADAPTER.stub_landing("P", b"<html><body><p>small page</p></body></html>") is None
    assert ADAPTER.stub_landing("P", stub("./X") + b"<!--" + b"x" * 9000 + b"-->") is None
    assert ADAPTER.section_for_path("Anything") is None


# -- every article of every real archive -----------------------------------------------------


def test_no_junk_in_any_real_article(shared_zims: Path) -> None:
    parsed = 0
    for file in sorted(shared_zims.glob("*.zim")):
        reader = ZimReader(file)
        for path, title, is_redirect in reader.iter_entries():
            if is_redirect:
                continue
            entry = reader.resolve(path)
            if not ADAPTER.is_content(entry.path, entry.mimetype):
                continue
            html = reader.content(entry.path)
            doc = ADAPTER.parse(entry.path, title, html, "Library")
            if doc.metadata.get("navigation"):
                continue
            assert doc.title, entry.path
            assert_clean(doc, bracketed_prose(html))
            section_ids = ids(doc)
            assert len(section_ids) == len(set(section_ids)), entry.path
            text = render(doc)
            for run in navbox_runs(html):
                assert "; ".join(run) not in text, (entry.path, run)
                assert "\n- ".join(run) not in text, (entry.path, run)
            assert "Part of a series on" not in text, entry.path
            parsed += 1
    assert parsed > 300
