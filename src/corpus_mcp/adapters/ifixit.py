"""ifixit2zim archives (iFixit): repair guides as their steps, devices as their guides.

What ifixit2zim 0.3.1 writes (``../shared/zims/families/README.md``): guides at
``Guide/-/<id>``, devices at ``Device/<title>``, the home page ``home/home`` and six
placeholder pages (``home/not_scrapped``, ``external_content``, ``unavailable_offline``,
``not_yet_available``, ``missing``, ``error``) that every link to something left out
leads to, with the original URL in a ``?url=`` query. Its templates hide the content in
site markup the generic adapter cannot read well:

- a guide's steps are ``li.step`` whose ``h2.step-title`` reads only "Step N" (the
  template drops the step's own title) and links a constant ``#s258194``; the step text is
  ``ul.step-lines > li.level-N``, the level its nesting, a ``bullet-line-icon-caution``
  (``note``, ``reminder``) class its only sign of a warning, ``bullet_<colour>`` a coloured
  dot; every picture is an ``img`` whose ``alt`` is the image's id;
- the guide's facts (difficulty, steps, time) are label/value paragraph pairs, its tools
  and parts lists of thumbnails and links to ``home/unavailable_offline``;
- the author box, the comments and a footer of site statistics are chrome.

So a page of those templates is rewritten into plain HTML first (a title, the facts as a
list, the introduction, tools, parts, one ``h2`` per step titled "Step 3 — " and its first
line, with its own ``s<id>`` anchor, the lines nested as iFixit nests them, cautions,
notes and reminders marked in words, the conclusion), which the generic adapter
(:class:`~corpus_mcp.adapters.html.HtmlAdapter`) then reads as any page. Links to the
placeholder pages are text (an ``external_content`` link to the web keeps its web URL);
the placeholders are never documents. ifixit2zim writes a page's link to a device with
iFixit's URL spelling (``Device/Sony_WH-1000XM3``) while it may store the device under its
title (``Device/Sony WH-1000XM3``): :meth:`IfixitAdapter.link_spellings` names the other
spelling, which fetch uses when the one written is not stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice
from typing import Final
from urllib.parse import parse_qs, quote, urlsplit

import lxml.html
from lxml.html import HtmlElement

from corpus_mcp.adapters.base import Site, SiteFacts
from corpus_mcp.adapters.html import HtmlAdapter
from corpus_mcp.addresses import Mount, normal_host
from corpus_mcp.cleaning import (
    make_element,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document

__all__ = ["IfixitAdapter", "site_url", "step_title"]

PLACEHOLDERS: Final = frozenset(
    f"home/{name}"
    for name in (
        "not_scrapped",
        "external_content",
        "unavailable_offline",
        "not_yet_available",
        "missing",
        "error",
    )
)
"""The pages ifixit2zim links to in place of what it did not (or could not) keep."""
_EXTERNAL: Final = "home/external_content"
_ASSET_PREFIXES: Final = ("assets/", "images/")
# The paths whose last part is a title iFixit spells with underscores in its URLs.
_TITLED_PREFIXES: Final = ("Device/", "Info/", "Topic/")
# ``bullet-line-icon-caution`` on the line, or ``ico-step-icon-caution`` on its icon.
_LINE_MARKER: Final = re.compile(r"\b(?:bullet-line-icon|ico-step-icon)-(\w+)")
_MARKER_WORDS: Final = {"caution": "Caution", "note": "Note", "reminder": "Reminder"}
_LEVEL: Final = re.compile(r"\blevel-(\d+)\b")
#: A step's title is "Step N — " and its first line, cut at a word within this many
#: characters (a heading, not the line again: the line follows in full).
STEP_TITLE_CHARS: Final = 72
# iFixit's sites by language (ifixit2zim's constants.URLS); the archive's Name
# ``ifixit_<lang>_<selection>`` says which one it read.
_SITES: Final = {
    "en": "https://www.ifixit.com",
    "fr": "https://fr.ifixit.com",
    "pt": "https://pt.ifixit.com",
    "de": "https://de.ifixit.com",
    "ru": "https://ru.ifixit.com",
    "ko": "https://ko.ifixit.com",
    "zh": "https://zh.ifixit.com",
    "nl": "https://nl.ifixit.com",
    "ja": "https://jp.ifixit.com",
    "tr": "https://tr.ifixit.com",
    "es": "https://es.ifixit.com",
    "it": "https://it.ifixit.com",
}
_SOURCED_PREFIXES: Final = ("Guide/", "Device/", "Info/", "Topic/")
# iFixit's address of a guide: ``Guide/<its title, slugged>/<id>`` (ifixit2zim stores
# ``Guide/-/<id>``, an address iFixit also answers).
_WEB_GUIDE: Final = re.compile(r"Guide/[^/]+/(\d+)/?")


class IfixitAdapter(HtmlAdapter):
    """The ``ifixit`` family: guides as steps, devices as their guides and wiki."""

    name = "ifixit"
    version = 1
    main_page_is_navigation = True
    """``home/home`` lists the categories (links to ``home/not_scrapped`` mostly)."""
    redirect_stubs = False
    """ifixit2zim's redirects (``Main-Page``) are libzim redirects."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """Guides, devices and the other pages; not the placeholders, images or assets."""
        if mimetype.split(";", 1)[0].strip().lower() != "text/html":
            return False
        return path not in PLACEHOLDERS and not path.startswith(_ASSET_PREFIXES)

    def serves(self, path: str) -> bool:
        return self.is_content(path, "text/html")

    def link_spellings(self, path: str) -> tuple[str, ...]:
        """``Device/Sony_WH-1000XM3`` <-> ``Device/Sony WH-1000XM3``: the other spelling
        of a titled page, tried when the one a link names is not stored."""
        if not path.startswith(_TITLED_PREFIXES):
            return ()
        kind, _, name = path.partition("/")
        other = name.replace("_", " ") if "_" in name else name.replace(" ", "_")
        return (f"{kind}/{other}",) if other != name else ()

    site_samples = False
    """The archive's Name says its site."""

    def web_site(self, facts: SiteFacts) -> Site:
        """iFixit's site of the archive's language (Name ``ifixit_<lang>_...``)."""
        site = site_url(facts.name, "Guide/")
        if site is None:
            return Site(title=facts.title)
        host = normal_host(urlsplit(site).netloc)
        return Site(mounts=(Mount(f"{host}/"),), title=facts.title)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """A guide by its id whatever its address's title; a device, topic or info page
        in both spellings iFixit's links and ifixit2zim's paths use."""
        guide = _WEB_GUIDE.fullmatch(rest)
        if guide is not None:
            return (f"Guide/-/{guide.group(1)}",)
        path = rest.rstrip("/")
        if not path.startswith(_SOURCED_PREFIXES):
            return ()
        return (path, *self.link_spellings(path))

    def source_url(self, document: Document, archive_name: str) -> str | None:
        """The page on iFixit: ``https://www.ifixit.com/Guide/-/142207``, the site of the
        archive's language, the path as ifixit2zim stores it (iFixit's own URL path)."""
        return document.metadata.get("source_url") or site_url(archive_name, document.path)

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """A guide's steps, a device's guides and wiki, any other page as it is; each
        rewritten into plain HTML the generic adapter reads."""
        root = parse_html(html)
        body = root.find("body")  # a child of the root: replaced there
        rewritten = None if body is None else _rewritten(body)
        if body is not None and rewritten is not None:
            root.replace(body, rewritten)
        else:
            _drop_image_ids(root)
        return super().parse(path, title, lxml.html.tostring(root), library, view=view)


def _rewritten(body: HtmlElement) -> HtmlElement | None:
    """The page as plain HTML if it is a guide or a device of ifixit2zim's templates."""
    guide = _guide(body)
    return guide if guide is not None else _device(body)


def site_url(archive_name: str, path: str) -> str | None:
    """``https://www.ifixit.com/<path>`` for a guide or device of an archive named
    ``ifixit_en_...``; None for another archive or page."""
    parts = archive_name.strip().lower().split("_")
    site = _SITES.get(parts[1]) if len(parts) > 2 and parts[0] == "ifixit" else None
    if site is None or not path.startswith(_SOURCED_PREFIXES):
        return None
    if path.startswith(_TITLED_PREFIXES):
        path = path.replace(" ", "_")
    return f"{site}/{quote(path, safe='/-_.~+')}"


def step_title(number: str, first_line: str) -> str:
    """``"Step 1 — Hold the ear cup with the pad facing you."``; a long line cut at a
    word within :data:`STEP_TITLE_CHARS`, with an ellipsis."""
    line = " ".join(first_line.split())
    if not line:
        return number
    if len(line) > STEP_TITLE_CHARS:
        cut = line[:STEP_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:.")
        line = f"{cut}…"
    return f"{number} — {line}"


# -- building the plain page ------------------------------------------------------------


def _first(node: HtmlElement, xpath: str) -> HtmlElement | None:
    found = [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]
    return found[0] if found else None


def _all(node: HtmlElement, xpath: str) -> list[HtmlElement]:
    return [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]


def _class(name: str) -> str:
    return xpath_has_class(name)


def _element(tag: str, text: str = "", **attributes: str) -> HtmlElement:
    element = make_element(tag)
    if text:
        element.text = text
    for key, value in attributes.items():
        element.set(key, value)
    return element


def _heading(tag: str, text: str, anchor: str) -> HtmlElement:
    return _element(tag, text, id=anchor)


def _moved(parent: HtmlElement, children: Iterable[HtmlElement]) -> HtmlElement:
    """``parent`` with ``children`` appended (moved from where they were)."""
    for child in children:
        parent.append(child)
    return parent


def _content_of(node: HtmlElement) -> HtmlElement:
    """A ``div`` holding ``node``'s content (its text and children, moved), its
    picture ids gone."""
    holder = make_element("div")
    holder.text = node.text
    for child in list(node):
        holder.append(child)
    _drop_image_ids(holder)
    return holder


def _drop_image_ids(node: HtmlElement) -> None:
    """Pictures whose text is no text: an ``alt`` that is empty, the image's own id
    (``alt="nB7cYpQ2xTqW5eLm"`` for ``igi/nB7cYpQ2xTqW5eLm.standard``) or the words
    beside it (a thumbnail titled as its link)."""
    for img in list(node.iter("img")):
        alt = " ".join((img.get("alt") or "").split())
        stem = (img.get("src") or "").rsplit("/", 1)[-1].split(".", 1)[0]
        if not alt or alt == stem or _repeats_neighbour(img, alt):
            img.drop_tree()


def _repeats_neighbour(img: HtmlElement, alt: str) -> bool:
    """Whether the words around ``img`` (its parent's or grandparent's: a thumbnail in its
    link, beside its caption) hold its ``alt``."""
    said = alt.casefold()
    return any(
        said in " ".join(holder.text_content().split()).casefold()
        for holder in islice(img.iterancestors(), 2)
    )


def _link(anchor: HtmlElement | None, text: str) -> HtmlElement:
    """A link with ``text`` to where ``anchor`` leads (text alone without one): a link
    to ``home/external_content?url=https://...`` leads to that web page."""
    if anchor is None or not anchor.get("href"):
        return _element("span", text)
    return _element("a", text, href=_external_target(anchor.get("href") or ""))


def _external_target(href: str) -> str:
    parts = urlsplit(href)
    if not parts.path.endswith(_EXTERNAL):
        return href
    url = parse_qs(parts.query).get("url", [""])[0]
    return url if url.lower().startswith(("http://", "https://")) else href


def _repair_links(node: HtmlElement) -> None:
    for anchor in _all(node, ".//a[@href]"):
        anchor.set("href", _external_target(anchor.get("href") or ""))


def _list(items: Iterable[HtmlElement]) -> HtmlElement | None:
    made = _moved(make_element("ul"), (_moved(make_element("li"), [item]) for item in items))
    return made if len(made) else None


# -- a guide ------------------------------------------------------------------------------


def _guide(body: HtmlElement) -> HtmlElement | None:
    """A guide page as plain HTML, or None if ``body`` is no guide of this template."""
    steps = _all(body, f".//li[{_class('step')}]")
    title = _first(body, f".//h1[{_class('guide-title')}]")
    if title is None or not steps:
        return None
    page = _element("body")
    page.append(_element("h1", visible_text(title)))
    author = _first(body, f".//*[{_class('guide-author')}]")
    if author is not None and visible_text(author):
        page.append(_element("p", visible_text(author)))
    facts = _list(_facts(body))
    if facts is not None:
        page.append(facts)
    intro = _first(body, f".//*[{_class('introduction-container')}]")
    if intro is not None:
        heading = _first(intro, "./h2")
        label = ""
        if heading is not None:
            label = visible_text(heading)
            heading.drop_tree()
        page.append(_heading("h2", label or "Introduction", "introduction"))
        page.append(_content_of(intro))
    for kind, anchor in (("tools", "tools"), ("parts", "parts")):
        page.extend(_supplies(body, kind, anchor))
    seen: set[str] = set()
    for number, step in enumerate(steps, 1):
        page.extend(_step(step, number, seen))
    conclusion = _first(body, f".//*[{_class('conclusionText')}]")
    if conclusion is not None and visible_text(conclusion):
        page.append(_heading("h2", "Conclusion", "conclusion"))
        page.append(_content_of(conclusion))
    _repair_links(page)
    return page


def _facts(body: HtmlElement) -> Iterable[HtmlElement]:
    """ "Difficulty: Very easy", "Steps: 3", "Time Required: 5 - 10 minutes"."""
    for item in _all(body, f".//*[{_class('details-item')}]"):
        label = _first(item, f".//*[{_class('item-title')}]")
        value = _first(item, f".//*[{_class('item-value')}]")
        if label is None or value is None:
            continue
        said, worth = visible_text(label), visible_text(value)
        if said and worth:
            yield _element("span", f"{said}: {worth}")


def _supplies(body: HtmlElement, kind: str, anchor: str) -> list[HtmlElement]:
    """The guide's tools (or parts) as a heading and a plain list of their names."""
    box = _first(body, f".//*[{_class(f'item-list-{kind}')}]")
    if box is None:
        return []
    header = _first(box, ".//h3")
    names: list[HtmlElement] = []
    for item in _all(box, f".//li[{_class('attachment-link')}]"):
        name = _first(item, f".//*[{_class('title')}]")
        text = visible_text(name) if name is not None else visible_text(item)
        if text:
            names.append(_link(_first(name, "ancestor::a[1]") if name is not None else None, text))
    listed = _list(names)
    if listed is None:
        return []
    label = visible_text(header) if header is not None else ""
    return [_heading("h2", label or kind.title(), anchor), listed]


def _step(step: HtmlElement, number: int, seen: set[str]) -> list[HtmlElement]:
    """One step: an ``h2`` with the step's id and title, then its lines nested."""
    value = _first(step, f".//*[{_class('stepValue')}]")
    label = (visible_text(value) if value is not None else "") or f"Step {number}"
    anchor = step.get("id") or f"step-{number}"
    if anchor in seen:
        anchor = f"{anchor}-{number}"
    seen.add(anchor)
    read = (_line(line) for line in _all(step, f".//ul[{_class('step-lines')}]/li"))
    lines = [line for line in read if line is not None]
    plain = next((text for _, kind, text, _ in lines if kind is None), "")
    first = plain or (lines[0][2] if lines else "")
    made: list[HtmlElement] = [_heading("h2", step_title(label, first), anchor)]
    nested = _nested([(level, item) for level, _, _, item in lines])
    if nested is not None:
        made.append(nested)
    return made


def _line(line: HtmlElement) -> tuple[int, str | None, str, HtmlElement] | None:
    """A step line: its level, its marker (caution, note, reminder), its text and an
    ``li`` of its content with the marker in words."""
    level_found = _LEVEL.search(line.get("class") or "")
    level = int(level_found.group(1)) if level_found else 0
    marker: str | None = None
    for holder in (line, *line.iterchildren("div")):
        found = _LINE_MARKER.search(holder.get("class") or "")
        if found and found.group(1) in _MARKER_WORDS:
            marker = found.group(1)
            break
    for decoration in [
        *_all(line, f"./div[{_class('bullet')}]"),
        *_all(line, f"./div[{_class('clearer')}]"),
    ]:
        decoration.drop_tree()
    item = _content_of(line)
    item.tag = "li"
    text = visible_text(item)
    if not text:
        return None
    if marker is not None:
        words = _element("strong", f"{_MARKER_WORDS[marker]}:")
        leading = len(item) and item[0].tag == "p" and not (item.text or "").strip()
        target = item[0] if leading else item
        words.tail = " " + (target.text or "").lstrip()
        target.text = None
        target.insert(0, words)
    return level, marker, text, item


def _nested(items: list[tuple[int, HtmlElement]]) -> HtmlElement | None:
    """``li.level-N`` lines as nested lists: a deeper line goes under the line above."""
    if not items:
        return None
    top = make_element("ul")
    # (level, the list at that level) from the outermost in; a line deeper than the
    # one above opens a list inside it (in the list it is in when it has none above).
    stack: list[tuple[int, HtmlElement]] = [(min(level for level, _ in items), top)]
    for level, item in items:
        while len(stack) > 1 and level < stack[-1][0]:
            stack.pop()
        if level > stack[-1][0]:
            holder = stack[-1][1]
            if len(holder):
                inner = make_element("ul")
                holder[-1].append(inner)
                holder = inner
            stack.append((level, holder))
        stack[-1][1].append(item)
    return top


# -- a device -----------------------------------------------------------------------------


def _device(body: HtmlElement) -> HtmlElement | None:
    """A device page as plain HTML: its summary, its guides as links, its parts and tools,
    its wiki text; None if ``body`` is no device page of this template."""
    title = _first(body, f".//h1[{_class('banner-title')}]")
    if title is None:
        return None
    page = _element("body")
    page.append(_element("h1", visible_text(title)))
    blurb = _first(body, f".//*[{_class('banner-blurb')}]")
    if blurb is not None and visible_text(blurb):
        page.append(_element("p", visible_text(blurb)))
    featured = _first(body, f".//*[{_class('highlight-guides')}]")
    if featured is not None:
        page.extend(_guide_list(featured, f".//a[{_class('entry')}]"))
    for group in _all(body, f".//*[{_class('blurbListWide')}]"):
        page.extend(_guide_list(group, f".//*[{_class('cell')}]//a[@href]"))
    supplies = _first(body, ".//*[@id='Section_tools_and_parts']")
    if supplies is not None:
        page.extend(_device_supplies(supplies))
    wiki = _first(body, ".//*[@id='wikiRenderedText']")
    if wiki is not None:
        page.append(_content_of(wiki))
    _repair_links(page)
    return page


def _guide_list(group: HtmlElement, links: str) -> list[HtmlElement]:
    """A heading of the device page and its guides, each a link titled by the guide,
    followed by its summary when the page gives one."""
    heading = _first(group, ".//h2|.//h3")
    items: list[HtmlElement] = []
    for link in _all(group, links):
        name = _first(link, f".//h4|.//*[{_class('title-text')}]")
        text = visible_text(name) if name is not None else visible_text(link)
        if not text:
            continue
        item = _link(link, text)
        summary = _first(link, f".//*[{_class('entry-text')}]/p")
        if summary is not None and visible_text(summary):
            item.tail = f" — {visible_text(summary)}"
        items.append(item)
    listed = _list(items)
    if heading is None or listed is None:
        return []
    label = visible_text(heading)
    anchor = heading.get("id") or label.lower().replace(" ", "-")
    return [_heading("h2", label, anchor), listed]


def _device_supplies(box: HtmlElement) -> list[HtmlElement]:
    """The device's parts and tools: each heading, its words, a plain list of names."""
    made: list[HtmlElement] = []
    for heading in _all(box, ".//h2"):
        label = visible_text(heading)
        block = heading.getnext()
        if not label or block is None:
            continue
        anchor = label.lower().replace(" ", "-")
        made.append(_heading("h2", label, anchor))
        made.extend(_element("p", visible_text(p)) for p in _all(block, "./p") if visible_text(p))
        names = []
        for item in _all(block, f".//li[{_class('attachment-link')}]"):
            text = visible_text(item)
            if text:
                names.append(_link(_first(item, ".//a[@href]"), text))
        listed = _list(names)
        if listed is not None:
            made.append(listed)
    return made
