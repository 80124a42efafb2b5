"""A page's headings as a section tree (pure; shared by the adapters of HTML pages).

A page is walked in document order (:func:`flatten`), every wrapper element that holds a
heading unwrapped, into blocks: headings, content nodes, loose text and ids. Nested
Sphinx ``section[id]`` wrappers disappear this way, and their ids go to the heading that
opens them. :func:`build_sections` nests the headings by level under a lead section (id
``""``) for the text before them; each section's API entries (``dt[id]``) become sections
of their own (:mod:`corpus_mcp.adapters.entries`), and every id inside a section is one of
its anchors, so a fragment lands on the section holding it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.entries import INDEX_TARGET_ID, split_entries, unique_id
from corpus_mcp.cleaning import Rendering, make_element, visible_text
from corpus_mcp.document import Section

__all__ = ["WRAPPER_TAGS", "Block", "build_sections", "elements", "flatten", "without_local_toc"]

HEADING_TAGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block wrappers that are unwrapped when they hold a heading; a heading inside a table or
# a definition list stays part of that content.
# rustdoc's ``summary`` holds a method's ``section[id] > h4`` (DevDocs unwraps the
# ``details`` around it but keeps the ``summary``): unwrapped too, so a method is a section.
WRAPPER_TAGS: Final = frozenset(
    {"section", "div", "article", "main", "header", "body", "aside", "summary", "details"}
)
_SLUG_JUNK: Final = re.compile(r"[^\w]+")


def elements(node: HtmlElement, xpath: str) -> list[HtmlElement]:
    """The elements an XPath selects below ``node`` (lxml's stubs type any result)."""
    return [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]


def _is_heading(node: HtmlElement) -> bool:
    return isinstance(node.tag, str) and node.tag in HEADING_TAGS


def _contains_heading(node: HtmlElement) -> bool:
    return bool(node.xpath(".//h1|.//h2|.//h3|.//h4|.//h5|.//h6"))


def _slugify(text: str) -> str:
    return _SLUG_JUNK.sub("-", text.lower()).strip("-_") or "section"


@dataclass
class Block:
    """One step of the flattened page: a heading, a content node, loose text or an id."""

    heading: HtmlElement | None = None
    heading_id: str | None = None
    aliases: tuple[str, ...] = ()
    """Ids of the empty link targets just before the heading (Sphinx labels)."""
    node: HtmlElement | None = None
    text: str | None = None
    anchor: str | None = None


@dataclass
class _Draft:
    """A section being filled; its content nodes become Markdown at the end."""

    section: Section
    nodes: list[HtmlElement | str] = field(default_factory=list)


def flatten(
    container: HtmlElement,
    container_id: str | None = None,
    *,
    wrappers: frozenset[str] = WRAPPER_TAGS,
) -> Iterator[Block]:
    """Walk ``container`` in order, unwrapping every wrapper element that holds a heading.

    Nested Sphinx ``section[id]`` wrappers disappear this way. Real Sphinx output puts
    empty link targets before the heading (``<section id="slots"><span id="label">
    </span><h3>``): such targets are skipped when asking whether the heading opens the
    wrapper, and become aliases of the heading's section. A wrapper's id goes to the
    heading that opens it; otherwise it becomes an anchor of the section in force where
    the wrapper starts.
    """
    children = [child for child in container if isinstance(child.tag, str)]
    targets: list[HtmlElement] = []
    if not (container.text or "").strip():
        for child in children:
            if not _is_empty_target(child):
                break
            targets.append(child)
    opener = children[len(targets)] if len(children) > len(targets) else None
    heading_first = opener is not None and _is_heading(opener)
    if container_id and not heading_first:
        yield Block(anchor=container_id)
    if container.text and container.text.strip():
        yield Block(text=container.text)
    leading = {id(t) for t in targets} if heading_first else set()
    pending = [str(t.get("id")) for t in targets] if heading_first else []
    for child in container:
        if not isinstance(child.tag, str) or id(child) in leading:
            continue  # leading targets travel with the heading they announce
        if _is_heading(child):
            inherited = container_id if child is opener else None
            yield Block(heading=child, heading_id=inherited, aliases=tuple(pending))
            pending = []
        elif child.tag in wrappers and _contains_heading(child):
            yield from flatten(child, child.get("id"), wrappers=wrappers)
        elif (alias := _lone_target_before_heading(child)) is not None:
            # A label target announcing an unwrapped heading: that heading's alias.
            pending.append(alias)
            continue
        else:
            yield Block(node=child)
            continue  # the copied node carries its own tail
        if child.tail and child.tail.strip():
            yield Block(text=child.tail)


def _is_empty_target(node: HtmlElement) -> bool:
    """An id-only link target: ``<span id="x"></span>`` or ``<a id="x"></a>``."""
    return (
        node.tag in {"span", "a"}
        and bool(node.get("id"))
        and not node.get("href")
        and len(node) == 0
        and not (node.text or "").strip()
        and not (node.tail or "").strip()
    )


def _lone_target_before_heading(node: HtmlElement) -> str | None:
    """The id of an empty target that directly precedes a heading among its siblings."""
    if not _is_empty_target(node):
        return None
    following = node.getnext()
    while following is not None and _is_empty_target(following):
        following = following.getnext()
    if following is not None and _is_heading(following):
        return str(node.get("id"))
    return None


def without_local_toc(blocks: list[Block]) -> list[Block]:
    """The blocks minus any list, before the first heading, whose links all stay in-page.

    Sphinx's unwrapped ``.contents`` leaves such a bare list near the top; lists of links
    to other pages (toctrees, the ``index`` page) are real content and stay.
    """
    kept: list[Block] = []
    for position, block in enumerate(blocks):
        if block.heading is not None:
            return kept + blocks[position:]
        node = block.node
        if node is not None and node.tag in {"ul", "ol"} and _links_only_in_page(node):
            if node.tail and node.tail.strip():
                kept.append(Block(text=node.tail))
            continue
        kept.append(block)
    return kept


def _links_only_in_page(node: HtmlElement) -> bool:
    hrefs = [str(link.get("href", "")) for link in elements(node, ".//a")]
    return bool(hrefs) and all(href.startswith("#") for href in hrefs)


def build_sections(blocks: list[Block], lead_title: str, rendering: Rendering) -> list[Section]:
    """Nest headings by level under a lead section (id ``""``) for the text before them."""
    lead = _Draft(Section(id="", title=lead_title, level=1))
    drafts = [lead]
    top: list[Section] = [lead.section]
    stack: list[Section] = []
    taken: set[str] = {""}
    current = lead
    for block in blocks:
        if block.heading is not None:
            current = _Draft(_new_section(block.heading, block.heading_id, block.aliases, taken))
            drafts.append(current)
            while stack and stack[-1].level >= current.section.level:
                stack.pop()
            (stack[-1].children if stack else top).append(current.section)
            stack.append(current.section)
        elif block.node is not None:
            current.nodes.append(block.node)
        elif block.text is not None:
            current.nodes.append(block.text)
        elif block.anchor is not None and block.anchor not in taken:
            taken.add(block.anchor)
            current.section.anchors.append(block.anchor)
    for draft in drafts:
        _finish(draft, taken, rendering)
    return top


def _new_section(
    heading: HtmlElement, inherited_id: str | None, aliases: tuple[str, ...], taken: set[str]
) -> Section:
    """The section a heading opens. Its id is the archive's own anchor: the heading's
    id, else the id of the wrapper it opens, else the first label target announcing it,
    and only failing all of them a slug of its text; the other ids become aliases."""
    title = " ".join(visible_text(heading).split())
    own_id = heading.get("id")
    named = [i for i in (own_id, inherited_id, *aliases) if i and i.strip()]
    base = named[0].strip() if named else _slugify(title)
    section_id = unique_id(base or "section", taken)
    section = Section(id=section_id, title=title, level=int(str(heading.tag)[1]))
    for alias in named[1:]:
        if alias not in taken:
            taken.add(alias)
            section.anchors.append(alias)
    return section


def _finish(draft: _Draft, taken: set[str], rendering: Rendering) -> None:
    """Render the draft's nodes to Markdown, its API entries as sections of their own
    (:mod:`corpus_mcp.adapters.entries`), and record the ids they carry as anchors."""
    # The page's tree has been walked in full by now, so its nodes are moved, not copied
    # (a copy of every node cost more than rendering some of them); they keep their tails.
    holder = make_element("div")
    for item in draft.nodes:
        if isinstance(item, str):
            _append_text(holder, item)
        else:
            holder.append(item)
    section = draft.section
    section.children[:0] = split_entries(holder, section.level, taken, rendering, section.title)
    for node in elements(holder, ".//*[@id]"):
        anchor = str(node.get("id", "")).strip()
        if anchor and anchor not in taken and not INDEX_TARGET_ID.fullmatch(anchor):
            taken.add(anchor)
            section.anchors.append(anchor)
    text = rendering(holder, section.level) if len(holder) or holder.text else rendering.nothing()
    section.content, section.passages = text


def _append_text(holder: HtmlElement, text: str) -> None:
    if len(holder):
        last = holder[-1]
        last.tail = (last.tail or "") + text
    else:
        holder.text = (holder.text or "") + text
