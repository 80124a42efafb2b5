"""Demo iFixit archive: what ifixit2zim 0.3.1 writes, one device and two guides.

Laid out as the real archive in ``../shared/zims/families`` is (its README), with
ifixit2zim's templates: guides at ``Guide/-/<id>`` (``guide.html``: the title, author and
facts in ``guide-intro``, the introduction in ``div.introduction-container``, tools and
parts as thumbnails linking ``home/unavailable_offline``, steps as ``li.step`` whose
``h2.step-title`` reads only "Step N" and links the constant ``#s258194``, the lines as
``ul.step-lines > li.level-N`` with ``bullet_<colour>`` and ``bullet-line-icon-caution``
classes, every picture's ``alt`` its image id, the conclusion, the author box, comments
and the footer of site statistics); the device at ``Device/<title>`` (its title with
spaces) while the guides link it as iFixit spells it (``Device/Kindle_Paperwhite_3``);
``home/home`` (the main page, ``Main-Page`` redirecting to it) and the six placeholder
pages; images under ``images/https/guide-images.cdn.ifixit.com/igi/``. No ``Scraper``
metadata, as ifixit2zim writes none.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Final
from urllib.parse import quote

import msgspec

from corpus_mcp.zim.writer import Page, Redirect, write_zim

FILE: Final = "ifixit/ifixit_en_selection_2026-12.zim"
MAIN_PATH: Final = "home/home"
DEVICE: Final = "Kindle Paperwhite 3"
DEVICE_PATH: Final = f"Device/{DEVICE}"
METADATA: Final = {
    "Title": "iFixit in English",
    "Description": "iFixit is the free repair guide for everything, written by everyone.",
    "Language": "eng",
    "Name": "ifixit_en_selection",
    "Creator": "iFixit",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Tags": "_category:iFixit;_videos:yes;_pictures:yes;iFixit",
}
PLACEHOLDERS: Final = (
    "not_scrapped",
    "external_content",
    "unavailable_offline",
    "not_yet_available",
    "missing",
    "error",
)
_IMAGES: Final = "images/https/guide-images.cdn.ifixit.com/igi"


class Line(msgspec.Struct, frozen=True):
    text: str
    """HTML of the line's paragraph."""
    level: int = 0
    colour: str = "black"
    icon: str = ""
    """``caution``, ``note`` or ``reminder``: an icon in place of the coloured bullet."""


class Step(msgspec.Struct, frozen=True):
    id: int
    image: str
    lines: tuple[Line, ...]


class Guide(msgspec.Struct, frozen=True):
    id: int
    title: str
    summary: str
    difficulty: str
    time: str
    introduction: str
    tools: tuple[str, ...]
    parts: tuple[str, ...]
    steps: tuple[Step, ...]
    conclusion: str

    @property
    def path(self) -> str:
        return f"Guide/-/{self.id}"


GUIDES: Final = (
    Guide(
        id=51500,
        title="Kindle Paperwhite 3 Battery Replacement",
        summary="Replace a worn battery of a Kindle Paperwhite 3.",
        difficulty="Moderate",
        time="20 - 30 minutes",
        introduction=(
            'If your <a href="../../Device/Kindle_Paperwhite_3">Kindle Paperwhite 3</a> '
            "lasts only a day on a charge, its battery is worn. The battery sits under the "
            "midframe, held by three screws."
        ),
        tools=("iOpener", "Plastic Opening Tools", "Phillips #00 Screwdriver"),
        parts=("Kindle Paperwhite 3 Battery",),
        steps=(
            Step(
                id=118001,
                image="Qe4nV8tKbWs2LpXa",
                lines=(
                    Line("Heat the edge of the bezel with an iOpener for two minutes."),
                    Line("Slide an opening tool under the bezel at the bottom edge."),
                    Line(
                        "Work the tool around the corners to free the bezel clips.",
                        level=1,
                    ),
                    Line(
                        "The display is glued to the bezel: never pry against the glass.",
                        icon="caution",
                    ),
                ),
            ),
            Step(
                id=118002,
                image="Zr7mC1yHdUo9FsBe",
                lines=(
                    Line("Remove the three 3.1 mm Phillips screws securing the battery."),
                    Line("Disconnect the battery cable from the logic board.", colour="red"),
                    Line("Keep the screws in order: they differ in length.", icon="note"),
                ),
            ),
            Step(
                id=118003,
                image="Hs3kP6wNxTa5GdVc",
                lines=(
                    Line("Lift the old battery out of its recess and set the new one in place."),
                    Line("Charge the new battery fully before first use.", icon="reminder"),
                ),
            ),
        ),
        conclusion="To reassemble your device, follow these instructions in reverse order.",
    ),
    Guide(
        id=51507,
        title="Kindle Paperwhite 3 Charging Port Cleaning",
        summary="Clean lint out of the charging port of a Kindle Paperwhite 3.",
        difficulty="Very easy",
        time="5 minutes",
        introduction=(
            "A Kindle that charges only at an angle usually has lint packed in its micro-USB "
            "port. Before replacing anything, follow the "
            '<a href="../../Guide/-/51500">battery guide</a> only if cleaning fails.'
        ),
        tools=("Spudger",),
        parts=(),
        steps=(
            Step(
                id=118101,
                image="Wd2jR5vLqYe8TnMs",
                lines=(
                    Line("Power the Kindle off and unplug the cable."),
                    Line("Scrape the lint out of the port with the pointed end of a spudger."),
                    Line(
                        "Do not use a metal pin: it can short the port's contacts.",
                        icon="caution",
                    ),
                ),
            ),
        ),
        conclusion="Plug the cable back in and check that the charging light comes on.",
    ),
)

_HEAD: Final = """<!DOCTYPE html>
<html dir="ltr" lang="fr"><head><title>{title}</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
<link type="text/css" href="{up}assets/guide-all.css" rel="stylesheet" as="style">
</head>
<body class="page-background-gradient fr responsive fullWidth user-guide">
<div id="background"><div id="page"><div id="main"><div id="mainBody">
"""
_FOOT: Final = """</div></div></div></div>
<footer class=""><div class="footer-container">
<div class="footer-row footer-stats footer-container-width">
<div class="footer-col-4"><p class="footer-stat">101,392</p><p>Free Manuals</p></div>
<div class="footer-col-4"><p class="footer-stat">253,810</p><p>Solutions</p></div>
<div class="footer-col-4"><p class="footer-stat">47,312</p><p>Devices</p></div>
</div>
<div class="footer-row centered copyright"><p>&copy;&nbsp;<time>2026</time> iFixit
&mdash; Creative Commons</p></div>
</div></footer>
</body></html>
"""


def _page(title: str, up: str, body: str) -> str:
    return _HEAD.format(title=escape(title), up=up) + body + _FOOT


def _detail(label: str, value: str) -> str:
    return (
        '<div class="details-item-container"><div class="details-item row">'
        f'<p class="item-title column"><i class="svg-icon"><svg viewBox="0 0 24 24">'
        f'<circle cx="12" cy="12" r="10"></circle></svg></i>{label}</p>'
        f'<p class="item-value column">{escape(value)}</p></div></div>'
    )


def _supplies(kind: str, names: tuple[str, ...]) -> str:
    items = "".join(
        '<li class="attachment-link"><div class="row attachment-container">'
        f'<a href="../../home/unavailable_offline?url=/products/{quote(name.lower())}">'
        f'<img src="../../{_IMAGES}/T{index}x{kind}.thumbnail" alt="" width="41"></a>'
        '<div class="column">'
        f'<a href="../../home/unavailable_offline?url=/products/{quote(name.lower())}">'
        f'<p itemprop="name" class="title">{escape(name)}</p></a></div></div></li>'
        for index, name in enumerate(names)
    )
    return (
        f'<div class="column one-half item-list-{kind}"><div class="item-list-header row">'
        f'<h3 class="column full-width">{kind.title()}</h3></div>'
        f'<ul class="item-list-featured attachment-link-list no-columns">{items}</ul></div>'
    )


def _line(line: Line) -> str:
    if line.icon:
        return (
            f'<li class="level-{line.level} bullet-line-icon-{line.icon}">'
            f'<div class="bullet bulletIcon ico-step-icon-{line.icon}"></div>'
            f'<p>{line.text}</p><div class="clearer"></div></li>'
        )
    return (
        f'<li class="level-{line.level}"><div class="fa fa-circle bullet bullet_{line.colour}">'
        f'</div><p>{line.text}</p><div class="clearer"></div></li>'
    )


def _step(number: int, step: Step) -> str:
    image = f"../../{_IMAGES}/{step.image}.standard"
    lines = "".join(_line(line) for line in step.lines)
    return (
        f'<li id="s{step.id}" class="step step-wrapper js-step">'
        '<div class="actionbar-portal"></div><div class="step"><div class="row">'
        '<div class="column four-fifths"><h2 class="step-title">'
        '<a class="fragment-link" itemprop="url" href="#s258194">'
        f'<strong class="stepValue">Step {number}</strong>'
        '<!-- TODO: Handle step title <span class="stepTitleTitle">Back Cover</span> -->'
        "</a></h2></div></div>"
        '<div class="row step-container"><div class="column stepMedia step-main-media">'
        f'<img id="step{number}-mainImage" alt="{step.image}" class="stepImage" src="{image}">'
        '</div><div class="column step-content"><div class="row step-thumbnails">'
        f'<div class="column step-thumbnail"><img alt="{step.image}" src="{image}"></div></div>'
        f'<div class="row step-lines-container"><ul class="step-lines">{lines}</ul></div>'
        "</div></div>"
        '<div class="js-comment-container"><div class="row divider comments-button-container">'
        '<button class="button add-comment-button js-show-comments">0 comments</button>'
        f'</div><div id="comments-step-{step.id}" class="row comments-container hide-comments">'
        '<div class="js-comments"></div></div></div></div></li>'
    )


def guide_html(guide: Guide) -> str:
    """A guide as ifixit2zim's ``guide.html`` renders it."""
    steps = "".join(_step(number, step) for number, step in enumerate(guide.steps, 1))
    parts = _supplies("parts", guide.parts) if guide.parts else ""
    body = (
        '<div id="contentFloat"><div id="content"><div class="wrapper articleContainer">'
        '<div id="guide-intro" class="guide-container guide-v2 container"><div>'
        '<div class="guide-all-metadata">'
        '<div class="guide-metadata guide-title-container guide-title-metadata">'
        f'<h1 class="guide-intro-title guide-title">{escape(guide.title)}</h1>'
        '<div class="guide-author guide-title-subtext">Written By: '
        '<a href="../../home/not_scrapped?url=User/77/Ada%20Okafor">Ada Okafor</a></div>'
        '<ul class="stats-container visible-desktop"><li class="comments-count">'
        'Comments: <span class="stats-value">0</span></li></ul></div>'
        '<div class="guide-metadata guide-main-image-container"><div class="guide-main-image">'
        f'<img src="../../{_IMAGES}/M{guide.id}.standard" alt="{escape(guide.title)}">'
        "</div></div>"
        '<div class="guide-metadata guide-details-container">'
        f"{_detail('Difficulty', guide.difficulty)}{_detail('Steps', str(len(guide.steps)))}"
        f"{_detail(' Time Required', guide.time)}</div></div>"
        '<div class="introduction-container"><h2>Introduction</h2>'
        f'<div itemprop="description"><p>{guide.introduction}</p></div></div></div></div>'
        '<div id="tools-and-parts" class="tools-and-parts"><div class="actionbar-portal"></div>'
        f'<div><div class="row item-list-container">{_supplies("tools", guide.tools)}{parts}'
        "</div></div></div>"
        f'<ol class="steps-container container"><section>{steps}</section></ol>'
        '<div id="conclusion" class="completion-container container"><div class="guide-complete">'
        '<div id="finishedConclusion"><div class="finish-line">'
        '<i class="fa fa-flag-checkered"></i> Conclusion</div>'
        f'<div class="conclusionText"><p>{escape(guide.conclusion)}</p></div></div></div></div>'
        '<div id="author-container"><div id="author" class="credit-author-team-container row">'
        '<div class="author-container"><h3><a class="fragment-link" href="#author">Author</a></h3>'
        '<div class="author-info column"><h4><a href="../../home/not_scrapped?url=User/77/Ada">'
        "Ada Okafor</a></h4><p>Member since: 03/04/19</p><p>5120 Reputation</p></div></div>"
        "</div></div>"
        '<div class="guide-comments-container container"><div class="column comments">'
        '<h3 class="js-comment-count">1 comments</h3><div id="comments" class="js-comments">'
        "<p>Thanks, worked first time.</p></div></div></div>"
        "</div></div></div>"
    )
    return _page(guide.title, "../../", body)


def device_html() -> str:
    """The device as ifixit2zim's ``category.html`` renders it."""
    featured, other = GUIDES
    cells = "".join(
        f'<div class="cell"><a href="../{guide.path}" class="title">'
        f'<img src="../{_IMAGES}/M{guide.id}.standard" alt="{name}" class="thumb">'
        f"<div class='title-text'><p>{name}</p></div></a></div>"
        for guide, name in ((featured, "Battery"), (other, "Charging Port"))
    )
    body = (
        '<div id="banner"><div id="banner-wrap"><div class="banner-content">'
        f'<div class="banner-small-photo"><img src="../{_IMAGES}/D1.standard" alt="{DEVICE}">'
        '</div><div class="banner-text">'
        f'<h1 class="banner-title" itemprop="headline">{DEVICE}</h1>'
        '<p class="banner-blurb"><span class="topicHeaderText">Repair guides for the Kindle '
        "Paperwhite 3, Amazon's 2015 e-reader with a 300 ppi display.</span></p>"
        "</div></div></div></div>"
        '<div id="topContent"><div class="highlight-guides">'
        '<h2 id="Section_Guides" class="blurbListTitle">Featured Guides</h2>'
        f'<div class="entry-container"><a href="../{featured.path}" class="entry">'
        f'<div class="thumbnail"><img src="../{_IMAGES}/M{featured.id}.standard" '
        f'alt="{featured.title}"></div><div class="entry-text"><h4>{featured.title}</h4>'
        f"<p>{featured.summary}</p></div></a></div></div>"
        '<div class="blurbListWide" data-type="replacement">'
        '<h3 id="Section_replacement" class="blurbListTitle">'
        '<a href="#Section_replacement">Replacement Guides</a></h3>'
        f'<div class="grid">{cells}</div></div></div>'
        '<div id="contentFloat"><div id="content"><div class="container articleContainer topic">'
        '<div id="Section_tools_and_parts" class="js-dynamic-toc-section"><h2>Parts</h2>'
        '<div id="deviceToolsList" class="row"><ul class="attachment-link-list two-columns">'
        '<li class="attachment-link"><div class="row attachment-container"><div class="column">'
        '<a href="../home/external_content?url=/Parts/Kindle_Paperwhite_3/Battery">'
        "<span>Battery</span> (1)</a></div></div></li></ul></div>"
        '<h2 class="tools-header">Tools</h2><div class="deviceToolsContainer">'
        "<p>These are some common tools used to work on this device.</p>"
        '<div class="deviceToolsList"><ul class="attachment-link-list two-columns">'
        '<li class="attachment-link"><div class="row attachment-container">'
        '<a href="../home/unavailable_offline?url=/products/spudger">'
        f'<img src="../{_IMAGES}/Tspudger.thumbnail" alt=""></a><div class="column">'
        '<a href="../home/unavailable_offline?url=/products/spudger"><p class="title">Spudger'
        "</p></a></div></div></li></ul></div></div></div>"
        '<div id="Wiki_Details"><div id="wikiRenderedText" class="wikiRenderedText">'
        '<h2 id="Section_Identification">Identification</h2><p>The Paperwhite 3 (model '
        "DP75SDI) has a 300 ppi display and a micro-USB port on its bottom edge.</p>"
        '<h2 id="Section_Additional_Information">Additional Information</h2><ul><li>'
        '<a href="../home/external_content?url=https%3A//www.amazon.com/gp/help/customer">'
        "Amazon device support</a></li></ul></div></div></div></div></div>"
    )
    return _page(DEVICE, "../", body)


def _home_html() -> str:
    body = (
        '<div id="contentFloat"><div id="content"><section id="home-page-top">'
        "<h1>Repair guides for every thing, written by everyone.</h1></section>"
        '<div class="page-content"><div class="section-divider"><p>Featured Categories</p>'
        '</div><a class="featured-category-item" href="../home/not_scrapped?url=Device/Tablet">'
        '<p class="featured-category-title">Tablet</p></a></div></div></div>'
    )
    return _page("iFixit in English", "../", body)


def _placeholder_html(name: str) -> str:
    body = (
        '<div id="contentFloat"><div id="content"><div class="container articleContainer wiki">'
        '<h1 class="pageTitle wikiTitle">Oups</h1><p class="summary">This content is '
        f"{name.replace('_', ' ')}.</p>"
        '<div id="wikiRenderedText">Original link: <span id="my_link"></span></div></div>'
        '<script src="../assets/not_here.js"></script></div></div>'
    )
    return _page("iFixit in English", "../", body)


def _asset(path: str, content: bytes, mimetype: str) -> Page:
    return Page(path=path, content=content, mimetype=mimetype, front=False, indexed=False)


def build(path: Path) -> Path:
    """Write the demo iFixit archive at ``path``."""
    pages = [
        Page(path=guide.path, title=guide.title, content=guide_html(guide)) for guide in GUIDES
    ]
    pages.append(Page(path=DEVICE_PATH, title=DEVICE, content=device_html()))
    pages.append(Page(path=MAIN_PATH, title="iFixit in English", content=_home_html()))
    pages += [
        Page(path=f"home/{name}", title="iFixit in English", content=_placeholder_html(name))
        for name in PLACEHOLDERS
    ]
    images = {step.image for guide in GUIDES for step in guide.steps}
    pages += [
        _asset(f"{_IMAGES}/{image}.standard", b"\xff\xd8\xff", "image/jpeg")
        for image in sorted(images)
    ]
    pages.append(_asset("assets/guide-all.css", b"body { margin: 0 }", "text/css"))
    pages.append(_asset("assets/not_here.js", b"/* link */", "text/javascript"))
    redirects = [Redirect(path="Main-Page", target=MAIN_PATH, title="Main-Page", front=False)]
    return write_zim(path, pages=pages, redirects=redirects, metadata=METADATA, main_path=MAIN_PATH)


__all__ = ["DEVICE_PATH", "FILE", "GUIDES", "MAIN_PATH", "build", "device_html", "guide_html"]
