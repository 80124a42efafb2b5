"""A Project Gutenberg book's HTML as a section tree (pure; the ``gutenberg`` adapter's).

gutenberg2zim stores each book as one page of Project Gutenberg's own HTML (its header
and footer stripped), hundreds of kilobytes long. Every chapter sits under a heading,
mostly ``div.chapter > h2``, with the anchor the book's table of contents links to inside
the heading (``<h2><a href="" id="chap50"></a>Chapter 50</h2>``) or, in older books, an
``<a name>`` just before it. Volumes and parts are headings a level above their chapters
(Emma: ``h2.volume``, then each chapter's ``h3``).

Every heading opens a section whose id is that anchor, so a ref ending in ``#chap50``
lands on chapter 50 and each chapter is fetched on its own, however long the book; the
other ids around a heading, and the ids inside a section's text (page-number anchors),
land on it too. Wrappers are unwrapped; the first ``h1`` names the book. A table of
contents is kept as a section of links (role ``reference``: fetched, never searched).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.entries import unique_id
from corpus_mcp.cleaning import Rendering, drop, has_class, make_element, visible_text
from corpus_mcp.document import Section

__all__ = ["book_sections"]

_HEADING_TAGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_WRAPPER_TAGS: Final = frozenset({"div", "section", "article", "main", "body", "header"})
_HEADING_XPATH: Final = ".//h1|.//h2|.//h3|.//h4|.//h5|.//h6"
_CONTENTS_TITLE: Final = re.compile(r"(?:table\s+of\s+)?contents?\W*", re.IGNORECASE)
_SLUG_JUNK: Final = re.compile(r"[^\w]+")
# PG marks the printed edition's page numbers in the margin (``<span class="pagenum">
# <a id="Page_12">[12]</a></span>``): their ids are anchors, their text no part of the book.
_PAGE_NUMBER_XPATH: Final = (
    ".//span[contains(concat(' ', normalize-space(@class), ' '), ' pagenum ')]"
)


@dataclass
class _Block:
    """One step of the flattened book: a heading, a content node, loose text or an id."""

    heading: HtmlElement | None = None
    in_contents: bool = False
    """The heading is inside the book's table of contents wrapper (``div.toc``)."""
    node: HtmlElement | None = None
    text: str | None = None
    anchor: str | None = None
    """An id with nothing of its own: a wrapper's, or an empty ``<a id|name>``."""


@dataclass
class _Draft:
    """A section being filled; its content nodes become its text at the end."""

    section: Section
    nodes: list[HtmlElement | str] = field(default_factory=list)


def book_sections(body: HtmlElement, lead_title: str, rendering: Rendering) -> list[Section]:
    """The book's sections: a lead (id ``""``) for what precedes the first heading (its
    first ``h1``, the book's title, dropped), then one section per heading, nested by
    level. ``body`` is consumed (its nodes are moved into the sections)."""
    title_heading = next(iter(_elements(body, ".//h1")), None)
    blocks: list[_Block] = []
    if title_heading is not None:
        if title_heading.get("id"):
            blocks.append(_Block(anchor=str(title_heading.get("id"))))
        title_heading.drop_tree()  # its tail stays in the lead
    blocks += _flatten(body, in_contents=False)
    return _build(blocks, lead_title, rendering)


def _elements(node: HtmlElement, xpath: str) -> list[HtmlElement]:
    return [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]


def _target_id(node: HtmlElement) -> str | None:
    """The id of an empty link target (``<a id="x"></a>``, ``<a name="x"></a>``,
    ``<span id="x"></span>``), None for anything with content of its own."""
    if node.tag not in {"a", "span"} or len(node) or (node.text or "").strip():
        return None
    if node.get("href"):
        return None
    name = (node.get("id") or node.get("name") or "").strip()
    return name or None


def _flatten(container: HtmlElement, *, in_contents: bool) -> Iterator[_Block]:
    """``container``'s children in order, every wrapper holding a heading unwrapped (its
    id an anchor where it starts), empty link targets as anchors."""
    if container.text and container.text.strip():
        yield _Block(text=container.text)
    for child in container:
        if not isinstance(child.tag, str):
            continue
        if child.tag in _HEADING_TAGS:
            yield _Block(heading=child, in_contents=in_contents)
        elif child.tag in _WRAPPER_TAGS and child.xpath(_HEADING_XPATH):
            if child.get("id"):
                yield _Block(anchor=str(child.get("id")))
            yield from _flatten(child, in_contents=in_contents or has_class(child, "toc"))
        elif (target := _target_id(child)) is not None:
            yield _Block(anchor=target)
        else:
            yield _Block(node=child)
            continue  # a moved node carries its own tail
        if child.tail and child.tail.strip():
            yield _Block(text=child.tail)


def _build(blocks: list[_Block], lead_title: str, rendering: Rendering) -> list[Section]:
    """Sections nested by heading level under the lead. Anchors waiting when a heading
    comes (nothing else between) are that heading's; otherwise the current section's."""
    lead = _Draft(Section(id="", title=lead_title, level=1))
    drafts = [lead]
    top: list[Section] = [lead.section]
    stack: list[Section] = []
    taken: set[str] = {""}
    current = lead
    waiting: list[str] = []
    for block in blocks:
        if block.anchor is not None:
            waiting.append(block.anchor)
            continue
        if block.heading is not None:
            current = _Draft(_new_section(block.heading, waiting, taken, block.in_contents))
            waiting = []
            drafts.append(current)
            while stack and stack[-1].level >= current.section.level:
                stack.pop()
            (stack[-1].children if stack else top).append(current.section)
            stack.append(current.section)
            continue
        _claim(current.section, waiting, taken)
        waiting = []
        current.nodes.append(block.node if block.node is not None else str(block.text))
    _claim(current.section, waiting, taken)
    for draft in drafts:
        _finish(draft, taken, rendering)
    return top


def _claim(section: Section, anchors: list[str], taken: set[str]) -> None:
    for anchor in anchors:
        if anchor not in taken:
            taken.add(anchor)
            section.anchors.append(anchor)


def _new_section(
    heading: HtmlElement, waiting: list[str], taken: set[str], in_contents: bool
) -> Section:
    """The section a heading opens, its id the anchor the book links to: the heading's
    own id, else the first id inside it, else one just before it; a slug of its text
    failing all of them. Every other of those ids lands on it too."""
    inner = [
        str(node.get("id") or node.get("name") or "").strip()
        for node in _elements(heading, ".//*[@id]|.//a[@name]")
    ]
    named = [i for i in (str(heading.get("id") or "").strip(), *inner, *waiting) if i]
    title = " ".join(visible_text(heading).split())
    free = [i for i in dict.fromkeys(named) if i not in taken]
    section_id = unique_id(free[0] if free else _slugify(title), taken)
    section = Section(id=section_id, title=title, level=int(str(heading.tag)[1]))
    _claim(section, free[1:], taken)
    if in_contents or _CONTENTS_TITLE.fullmatch(title):
        section.role = "reference"
    return section


def _slugify(text: str) -> str:
    return _SLUG_JUNK.sub("-", text.lower()).strip("-_") or "section"


def _finish(draft: _Draft, taken: set[str], rendering: Rendering) -> None:
    """The draft's nodes as the section's text; every id among them an anchor of it."""
    holder = make_element("div")
    for item in draft.nodes:
        if isinstance(item, str):
            _append_text(holder, item)
        else:
            holder.append(item)
    section = draft.section
    found = (
        str(n.get("id") or n.get("name") or "").strip()
        for n in _elements(holder, ".//*[@id]|.//a[@name]")
    )
    _claim(section, [anchor for anchor in found if anchor], taken)
    drop(holder, _PAGE_NUMBER_XPATH)
    empty = not len(holder) and not (holder.text or "").strip()
    section.content, section.passages = (
        rendering.nothing() if empty else rendering(holder, section.level)
    )


def _append_text(holder: HtmlElement, text: str) -> None:
    if len(holder):
        last = holder[-1]
        last.tail = (last.tail or "") + text
    else:
        holder.text = (holder.text or "") + text
