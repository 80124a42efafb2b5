"""The iFixit adapter (``ifixit``) on single pages: ifixit2zim's guide and device templates
as the demo writes them (``corpus_mcp.demo.ifixit``), the real archive's pages where
../shared/zims/families holds it, pages of no known template, and its pure helpers."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.adapters.ifixit import PLACEHOLDERS, STEP_TITLE_CHARS, site_url, step_title
from corpus_mcp.config import ADAPTERS as CONFIG_ADAPTERS
from corpus_mcp.demo import ifixit as demo
from corpus_mcp.document import Document, walk
from corpus_mcp.families import adapter_for
from corpus_mcp.zim.reader import ZimReader

from .conftest import SHARED_ZIMS

ADAPTER = get_adapter("ifixit")
BATTERY, CLEANING = demo.GUIDES
REAL = SHARED_ZIMS / "families" / "ifixit_en_selection_2026-12.zim"


def _guide(guide: demo.Guide = BATTERY, *, view: bool = False) -> Document:
    return ADAPTER.parse(guide.path, guide.title, demo.guide_html(guide).encode(), "F", view=view)


def _text(document: Document) -> str:
    return "\n".join(f"{s.title}\n{s.content}" for s in walk(document.sections))


def _page(body: str) -> bytes:
    return f"<html><head><title>T</title></head><body>{body}</body></html>".encode()


def test_the_adapter_is_registered_for_its_family() -> None:
    assert ADAPTER.name == "ifixit"
    assert "ifixit" in CONFIG_ADAPTERS
    assert adapter_for("ifixit2zim", ("html", "ifixit")) == "ifixit"


def test_a_guide_is_its_facts_supplies_steps_and_conclusion() -> None:
    doc = _guide()
    assert doc.title == BATTERY.title
    assert [s.id for s in doc.sections] == [
        "", "introduction", "tools", "parts", "s118001", "s118002", "s118003", "conclusion",
    ]  # fmt: skip
    lead, intro, tools, parts, first, second, third, end = doc.sections
    assert lead.content == (
        "Written By: Ada Okafor\n\n"
        "- Difficulty: Moderate\n- Steps: 3\n- Time Required: 20 - 30 minutes"
    )
    assert intro.content.startswith("If your [Kindle Paperwhite 3](corpus://F/Device/")
    assert tools.content == "- iOpener\n- Plastic Opening Tools\n- Phillips #00 Screwdriver"
    assert parts.content == "- Kindle Paperwhite 3 Battery"
    assert first.title == "Step 1 — Heat the edge of the bezel with an iOpener for two minutes."
    assert first.content == (
        "- Heat the edge of the bezel with an iOpener for two minutes.\n"
        "- Slide an opening tool under the bezel at the bottom edge.\n"
        "  - Work the tool around the corners to free the bezel clips.\n"
        "- **Caution:** The display is glued to the bezel: never pry against the glass."
    )
    assert second.content.endswith("- **Note:** Keep the screws in order: they differ in length.")
    assert "**Reminder:** Charge the new battery" in third.content
    assert end.title == "Conclusion" and "reverse order" in end.content
    text = _text(doc)
    for gone in ("Qe4nV8tKbWs2LpXa", "bullet", "s258194", "Free Manuals", "Reputation"):
        assert gone not in text, gone
    assert "Thanks, worked first time" not in text  # comments are chrome


def test_a_guide_read_for_search_has_the_same_sections() -> None:
    view = _guide(view=True)
    assert [s.id for s in walk(view.sections)] == [s.id for s in walk(_guide().sections)]
    (caution,) = [
        p.text for s in walk(view.sections) for p in s.passages or () if "glued" in p.text
    ]
    assert "Caution: The display is glued" in caution


def test_a_guide_without_parts_tools_or_conclusion_lists_what_it_has() -> None:
    doc = _guide(CLEANING)
    assert [s.id for s in doc.sections] == ["", "introduction", "tools", "s118101", "conclusion"]
    bare = msgspec.structs.replace(CLEANING, tools=(), conclusion="")
    assert [s.id for s in _guide(bare).sections] == ["", "introduction", "s118101"]


def test_steps_without_ids_lines_or_plain_lines_still_get_unique_titled_sections() -> None:
    html = demo.guide_html(BATTERY)
    html = html.replace(' id="s118001"', "").replace(' id="s118003"', ' id="s118002"')
    doc = ADAPTER.parse(BATTERY.path, BATTERY.title, html.encode(), "F")
    steps = [s for s in doc.sections if s.title.startswith("Step")]
    assert [s.id for s in steps] == ["step-1", "s118002", "s118002-3"]
    cautious = demo.Step(id=9, image="x", lines=(demo.Line("Mind the glass.", icon="caution"),))
    empty = demo.Step(id=10, image="y", lines=(demo.Line(" "),))
    odd = msgspec.structs.replace(BATTERY, steps=(cautious, empty))
    first, second = [s for s in _guide(odd).sections if s.title.startswith("Step")]
    assert first.title == "Step 1 — Mind the glass."  # no plain line: the first one
    assert (second.id, second.title, second.content) == ("s10", "Step 2", "")


def test_a_deeper_line_first_and_back_up_two_levels_nest_as_written() -> None:
    lines = (
        demo.Line("a", level=1),
        demo.Line("a2", level=1),
        demo.Line("b"),
        demo.Line("c", level=1),
        demo.Line("d", level=2),
        demo.Line("e"),
    )
    odd = msgspec.structs.replace(BATTERY, steps=(demo.Step(id=1, image="i", lines=lines),))
    (step,) = [s for s in _guide(odd).sections if s.id == "s1"]
    assert step.content == "- a\n- a2\n- b\n  - c\n    - d\n- e"


def test_step_titles_are_cut_at_a_word() -> None:
    assert step_title("Step 4", "  Remove   the cover. ") == "Step 4 — Remove the cover."
    assert step_title("Step 4", "") == "Step 4"
    long = "Use a heat gun to soften the adhesive under the display, then slide a pick in slowly"
    cut = step_title("Step 1", long)
    assert cut == "Step 1 — Use a heat gun to soften the adhesive under the display, then slide a…"
    assert len(cut) <= len("Step 1 — ") + STEP_TITLE_CHARS + 1


def test_the_device_page_is_its_summary_guides_supplies_and_wiki() -> None:
    doc = ADAPTER.parse(demo.DEVICE_PATH, demo.DEVICE, demo.device_html().encode(), "F")
    assert doc.title == demo.DEVICE
    assert [s.id for s in doc.sections] == [
        "", "Section_Guides", "Section_replacement", "parts", "tools",
        "Section_Identification", "Section_Additional_Information",
    ]  # fmt: skip
    lead, featured, replacement, parts, tools, _, more = doc.sections
    assert lead.content.startswith("Repair guides for the Kindle Paperwhite 3")
    assert featured.content == (
        f"- [{BATTERY.title}](corpus://F/Guide/-/51500) — {BATTERY.summary}"
    )
    assert replacement.content == (
        "- [Battery](corpus://F/Guide/-/51500)\n- [Charging Port](corpus://F/Guide/-/51507)"
    )
    assert parts.content == "- Battery (1)"
    assert tools.content == (
        "These are some common tools used to work on this device.\n\n- Spudger"
    )
    # An external_content placeholder's URL is the web page it stands for.
    assert more.content == "- [Amazon device support](https://www.amazon.com/gp/help/customer)"
    assert "D1" not in _text(doc) and "101,392" not in _text(doc)


def test_other_pages_are_read_by_the_generic_adapter_without_image_ids() -> None:
    page = _page(
        '<div id="content"><h1>About iFixit</h1><p>We fix things.</p>'
        '<img src="../images/igi/Ab12Cd34Ef56Gh78.standard" alt="Ab12Cd34Ef56Gh78">'
        '<p><img src="../images/x.png" alt="A teardown of a phone"> Teardowns.</p>'
        '<div><a href="../Guide/-/9"><img src="../images/t.png" alt="Screen fix">'
        "<span>Screen fix</span></a></div>"
        '<p><a href="../home/not_scrapped?url=Device/Phone">Phones</a> and '
        '<a href="../Info/Repair_Manifesto">our manifesto</a>.</p></div>'
    )
    doc = ADAPTER.parse("Info/About", "About", page, "F")
    text = _text(doc)
    assert "Ab12Cd34Ef56Gh78" not in text
    assert "A teardown of a phone" in text  # a picture's real words stay
    assert "[Screen fix](corpus://F/Guide/-/9)" in text  # a thumbnail's alt said once
    assert "Phones and [our manifesto](corpus://F/Info/Repair_Manifesto)" in text


def test_a_page_without_a_body_is_read_too() -> None:
    doc = ADAPTER.parse("Info/x", "X", b"<p>Only a fragment.</p>", "F")
    assert "Only a fragment." in _text(doc)


def test_guides_devices_and_pages_are_documents_placeholders_and_files_are_not() -> None:
    for path in ("Guide/-/1", "Device/Sony WH-1000XM3", "Info/About", "home/home"):
        assert ADAPTER.is_content(path, "text/html; charset=utf-8"), path
        assert ADAPTER.serves(path), path
    for path in [*sorted(PLACEHOLDERS), "images/https/x/igi/a.standard", "assets/a.html"]:
        assert not ADAPTER.is_content(path, "text/html"), path
        assert not ADAPTER.serves(path), path
    assert not ADAPTER.is_content("Guide/-/1", "image/jpeg")


@pytest.mark.parametrize(
    ("path", "spellings"),
    [
        ("Device/Sony_WH-1000XM3", ("Device/Sony WH-1000XM3",)),
        ("Device/Sony WH-1000XM3", ("Device/Sony_WH-1000XM3",)),
        ("Info/Repair_Manifesto", ("Info/Repair Manifesto",)),
        ("Device/iPhone", ()),
        ("Guide/-/142207", ()),
        ("home/home", ()),
    ],
)
def test_titled_pages_have_their_other_spelling(path: str, spellings: tuple[str, ...]) -> None:
    assert ADAPTER.link_spellings(path) == spellings


@pytest.mark.parametrize(
    ("name", "path", "url"),
    [
        ("ifixit_en_selection", "Guide/-/142207", "https://www.ifixit.com/Guide/-/142207"),
        ("ifixit_fr_all", "Guide/-/9", "https://fr.ifixit.com/Guide/-/9"),
        ("ifixit_ja_all", "Device/Sony WH", "https://jp.ifixit.com/Device/Sony_WH"),
        ("ifixit_en_all", "Guide/Sony+Battery/7", "https://www.ifixit.com/Guide/Sony+Battery/7"),
        ("ifixit_en_all", "home/home", None),
        ("ifixit_xx_all", "Guide/-/1", None),
        ("ted_en_all", "Guide/-/1", None),
        ("ifixit_en", "Guide/-/1", None),
    ],
)
def test_the_source_is_the_page_on_ifixit(name: str, path: str, url: str | None) -> None:
    assert site_url(name, path) == url
    document = Document(path=path, title="t", kind="article", sections=[])
    assert ADAPTER.source_url(document, name) == url


# -- the real archive ---------------------------------------------------------------------------

real = pytest.mark.skipif(not REAL.is_file(), reason=f"the ifixit2zim archive is not at {REAL}")


@real
@pytest.mark.parametrize("path", ["Guide/-/142207", "Guide/-/142215"])
def test_real_guides_are_their_steps(path: str) -> None:
    reader = ZimReader(Path(REAL))
    html = reader.content(path)
    doc = ADAPTER.parse(path, "", html, "F")
    steps = [s for s in doc.sections if s.title.startswith("Step ")]
    assert len(steps) == 3
    assert all(re.fullmatch(r"s\d+", s.id) for s in steps)
    assert all(" — " in s.title for s in steps)
    text = _text(doc)
    assert "**Caution:**" in text
    assert not re.search(r"^[A-Za-z0-9]{16}$", text, re.MULTILINE)
    for chrome in ("Free Manuals", "101,392", "Reputation", "comments", "Member since"):
        assert chrome not in text


def test_a_guide_missing_most_of_its_markup_keeps_what_it_has() -> None:
    page = _page(
        '<h1 class="guide-title">Bare guide</h1><div class="guide-author"></div>'
        '<div class="details-item"><p class="item-title">Difficulty</p></div>'
        '<div class="details-item"><p class="item-title">Steps</p>'
        '<p class="item-value"> </p></div>'
        '<div class="introduction-container"><p>No heading here.</p></div>'
        '<div class="item-list-tools"><ul><li class="attachment-link"><span>Heat gun</span>'
        '</li><li class="attachment-link"> </li></ul></div>'
        '<div class="item-list-parts"><ul></ul></div>'
        '<ol><li class="step"><ul class="step-lines"><li class="level-x">A bare line</li>'
        '</ul></li></ol><div class="conclusionText"> </div>'
    )
    doc = ADAPTER.parse("Guide/-/5", "", page, "F")
    assert [(s.id, s.title) for s in doc.sections] == [
        ("", "Bare guide"),
        ("introduction", "Introduction"),
        ("tools", "Tools"),
        ("step-1", "Step 1 — A bare line"),
    ]
    assert doc.sections[0].content == ""
    assert doc.sections[2].content == "- Heat gun"


def test_a_device_missing_most_of_its_markup_keeps_what_it_has() -> None:
    page = _page(
        '<h1 class="banner-title">Bare device</h1>'
        '<div class="highlight-guides"><a class="entry" href="../Guide/-/1">'
        '<div class="entry-text"><h4>Unheaded</h4></div></a></div>'
        '<div class="blurbListWide"><h3>Other Guides</h3>'
        '<div class="cell"><a href="../Guide/-/2"> </a></div>'
        '<div class="cell"><a href="../Guide/-/3">Plain</a></div></div>'
        '<div id="Section_tools_and_parts"><h2> </h2><div></div><h2>Parts</h2></div>'
    )
    doc = ADAPTER.parse("Device/Bare", "", page, "F")
    assert [(s.id, s.content) for s in doc.sections] == [
        ("", ""),
        ("other-guides", "- [Plain](corpus://F/Guide/-/3)"),
    ]
