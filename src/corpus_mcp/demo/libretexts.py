"""Demo LibreTexts archive: mindtouch2zim 0.1.1's layout, a small chemistry book.

Laid out as the real archive in ``../shared/zims/families`` is (its README): each page's
body is MindTouch HTML inside ``content/page_content_<id>.json`` (``{"htmlBody": ...}``,
untitled, outside the full-text index); its front article is an empty stub
``index/page_<id>`` titled by the page, whose text reaches the full-text index through
IndexData and whose ``meta refresh`` opens the Vue.js reader ``index.html`` (the main
page) at the page's path; ``content/shared.json`` lists the pages. The markup is
LibreTexts': ``div.mt-section`` with ``h2.editable``, learning-objectives and example
boxes, ``\\( \\)`` / ``\\[ \\]`` / ``\\ce{}`` TeX with ``\\PageIndex``, a table, a figure
whose image is a webp under ``@api/deki/files``, a video iframe, the editor's script
templates, links as the reader's ``#/`` routes. The text is written for this demo.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from corpus_mcp.zim.writer import Page, write_zim

FILE = "libretexts/libretexts.org_en_chem_2026-12.zim"
MAIN_PATH = "index.html"
BOOK = "Bookshelves/Demo/Offline_Chemistry_(Demo)"
METADATA = {
    "Title": "LibreTexts Chemistry",
    "Description": "Chemistry textbooks from LibreTexts, offline",
    "Language": "eng",
    "Name": "libretexts.org_en_chem",
    "Creator": "LibreTexts",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Scraper": "mindtouch2zim v0.1.1",
    "Tags": "libretexts;chemistry",
}


class LibrePage(NamedTuple):
    id: str
    title: str
    route: str
    html: str
    text: str
    """What mindtouch2zim gives the full-text index for the page (its IndexData)."""

    @property
    def path(self) -> str:
        return f"content/page_content_{self.id}.json"

    @property
    def stub_path(self) -> str:
        return f"index/page_{self.id}"


def _route(route: str) -> str:
    return "#/" + quote(route, safe="/")


_SCRIPT = '<p class="mt-script-comment">{}</p><pre class="script">template({})</pre>'
_IMAGE = "content/chem.libretexts.org/@api/deki/files/7001/phases.webp?revision=2"

PAGES = (
    LibrePage(
        "500100",
        "Offline Chemistry (Demo)",
        BOOK,
        "<p>This demo book shows how a LibreTexts textbook reads offline: chapters, sections,"
        " worked examples and a glossary.</p>"
        + _SCRIPT.format("Cross Library Transclusion", "'CrossTransclude/Web'"),
        "This demo book shows how a LibreTexts textbook reads offline.",
    ),
    LibrePage(
        "500110",
        "1: Matter",
        f"{BOOK}/01:_Matter",
        _SCRIPT.format("Dynamic Listing of Subpages", "'MindTouch/IDF3/Views/Topic_hierarchy'"),
        "",
    ),
    LibrePage(
        "500111",
        "1.1: States of Matter",
        f"{BOOK}/01:_Matter/1.01:_States_of_Matter",
        '<div class="mt-contentreuse-widget" data-page="" data-show="false"></div>'
        '<div class="box-learning-objectives"><p class="boxtitle">Learning Objectives</p>'
        "<ul><li>Name the three common states of matter.</li>"
        "<li>Relate a phase change to the energy it takes.</li></ul></div>"
        "<p>Matter around us is usually a solid, a liquid or a gas, and a substance changes"
        " state when it gains or loses energy.</p>"
        '<div class="mt-section" id="section_1"><span id="Solids_Liquids_and_Gases"></span>'
        '<h2 class="editable">Solids, Liquids and Gases</h2>'
        "<p>In a solid the particles keep fixed places; in a liquid they slide past each other;"
        " in a gas they fly apart. Water, \\(\\ce{H2O}\\), is all three between"
        " \\(0\\,^{\\circ}\\text{C}\\) and \\(100\\,^{\\circ}\\text{C}\\).</p>"
        "<table><caption>Table \\(\\PageIndex{1}\\): Properties of the states</caption>"
        "<thead><tr><th>State</th><th>Shape</th><th>Volume</th></tr></thead>"
        "<tbody><tr><td>Solid</td><td>fixed</td><td>fixed</td></tr>"
        "<tr><td>Liquid</td><td>of its container</td><td>fixed</td></tr>"
        "<tr><td>Gas</td><td>of its container</td><td>of its container</td></tr></tbody></table>"
        f'<figure class="figure"><img alt="Particles in the three states" src="{quote(_IMAGE)}"/>'
        "<figcaption>Figure \\(\\PageIndex{1}\\): Particles in a solid, a liquid and a gas."
        "</figcaption></figure></div>"
        '<div class="mt-section" id="section_2"><span id="Melting_Heat"></span>'
        '<h2 class="editable">Melting Heat</h2>'
        '<div class="box-example"><p class="boxtitle">Example \\(\\PageIndex{1}\\): Melting ice</p>'
        "<p>How much heat melts \\(18\\,\\text{g}\\) of ice?</p>"
        "<p>\\[ q = n\\,\\Delta H_\\text{fus} = 1.00\\,\\text{mol} \\times 6.01\\,\\text{kJ/mol}"
        " = 6.01\\,\\text{kJ} \\]</p></div>"
        '<iframe src="https://www.youtube.com/embed/demo" title="Phase changes"></iframe>'
        f'<p>Density is next, in <a href="{_route(f"{BOOK}/01:_Matter/1.02:_Density")}"'
        ' title="1.2: Density">1.2: Density</a>.</p></div>',
        "Matter around us is usually a solid, a liquid or a gas, and a substance changes"
        " state when it gains or loses energy. In a solid the particles keep fixed places;"
        " in a liquid they slide past each other; in a gas they fly apart."
        " How much heat melts 18 g of ice?",
    ),
    LibrePage(
        "500112",
        "1.2: Density",
        f"{BOOK}/01:_Matter/1.02:_Density",
        '<div class="mt-section" id="section_1"><span id="Mass_per_Volume"></span>'
        '<h2 class="editable">Mass per Volume</h2>'
        "<p>Density is the mass of a sample divided by its volume,"
        " \\(d = \\dfrac{m}{V}\\); a floating cork is less dense than water.</p>"
        f'<p>Melting ice takes heat (<a href="{_route(f"{BOOK}/01:_Matter/1.01:_States_of_Matter")}'
        '?anchor=Melting_Heat">Melting Heat</a>); mixtures come in'
        f' <a href="{_route(f"{BOOK}/02:_Mixtures")}">a chapter not in this archive</a>.</p>'
        "</div>",
        "Density is the mass of a sample divided by its volume; a floating cork is less"
        " dense than water.",
    ),
    LibrePage(
        "500191",
        "Glossary",
        f"{BOOK}/zz:_Back_Matter/20:_Glossary",
        "<dl><dt>phase change</dt><dd>A substance passing from one state of matter to"
        " another.</dd><dt>density</dt><dd>Mass per unit volume.</dd></dl>",
        "phase change A substance passing from one state of matter to another."
        " density Mass per unit volume.",
    ),
)

_READER = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>LibreTexts Chemistry</title>
    <script type="module" crossorigin src="./assets/index.js"></script>
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
"""


def _stub(page: LibrePage) -> str:
    return (
        f"<html><head><title>{page.title}</title>"
        f'<meta http-equiv="refresh" content="0;URL=\'../index.html#/{page.route}\'" />'
        "</head><body></body></html>"
    )


def _asset(path: str, mimetype: str, content: str | bytes) -> Page:
    return Page(path=path, content=content, mimetype=mimetype, front=False, indexed=False)


def _pages() -> list[Page]:
    shared = {
        "logoPath": "content/logo.png",
        "rootPagePath": BOOK,
        "libraryOnlineUrl": "https://chem.libretexts.org",
        "pages": [{"id": p.id, "title": p.title, "path": p.route} for p in PAGES],
    }
    pages = [
        Page(path=MAIN_PATH, content=_READER, index_text=""),
        _asset("assets/index.js", "text/javascript", "console.log('reader');"),
        _asset("content/shared.json", "application/json", json.dumps(shared)),
        _asset("content/config.json", "application/json", '{"secondaryColor":"#FFFFFF"}'),
        _asset(_IMAGE, "image/webp", b"RIFF\x1a\x00\x00\x00WEBPVP8 demo"),
    ]
    for page in PAGES:
        pages.append(_asset(page.path, "application/json", json.dumps({"htmlBody": page.html})))
        pages.append(
            Page(
                path=page.stub_path,
                title=page.title,
                content=_stub(page),
                index_text=page.text,
            )
        )
    return pages


def build(path: Path) -> Path:
    """Write the demo LibreTexts archive at ``path``."""
    return write_zim(path, pages=_pages(), metadata=METADATA, main_path=MAIN_PATH)


__all__ = ["BOOK", "FILE", "MAIN_PATH", "PAGES", "build"]
