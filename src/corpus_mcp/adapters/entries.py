"""API entries as sections of their own (pure, on a section's content before rendering).

Reference pages document one function, method, class, option or setting per entry of a
definition list whose term carries an id: Sphinx ``dl.py > dt[id]`` (Python, Django,
Flask), DocBook ``dl.variablelist > dt[id]`` (PostgreSQL's settings and options). Search
hints and navbar fragments point at those ids, and an agent asking for one wants that
entry, not the dozens around it. So each entry (its terms, its descriptions, and the
entries nested in them: a class's methods) becomes a section one level below the one it
is in, titled by its signature; the text between entries stays the enclosing section's.

Two kinds of entry stay where they are: one whose description is empty (Django often
writes the signature alone, the prose after the list), and one that its section's
heading names (a ``select_related()`` heading over the ``select_related(*fields)``
entry): that section *is* the entry, and splitting it would leave a heading with
nothing under it. Their ids remain anchors of the section they are in.

Not every entry of such a list carries an id: psql's meta-commands give one to a few
of their terms. A list with an id'd term is a list of entries all the same, and a term
without an id gets one made from its text (``\\C [ title ]`` -> ``C-title``), unique in
the page, as a heading without an id gets a slug. (Lists without any id, such as Git's
option lists, stay text: made into entries on the development kit they cut Git's
characters per case from 17.9 K to 7.5 K, but the hints then named an option where the
answer was an example, and the answer was in the fetched text in 36 % of the Git cases
instead of 64 %.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.cleaning import Rendered, make_element, visible_text
from corpus_mcp.document import Section

#: Longest entry title; a longer signature is cut at a word and given whole in the text.
ENTRY_TITLE_CHARS: Final = 100
#: Longest id made from a term's text.
MADE_ID_CHARS: Final = 40
_ID_JUNK: Final = re.compile(r"[^\w.\-]+")
# Sphinx general-index targets: only the (absent) genindex links to them.
INDEX_TARGET_ID: Final = re.compile(r"index-\d+")
_NAME_JUNK: Final = re.compile(r"[^\w.]+")

Render = Callable[[HtmlElement, int], Rendered]
"""The text of a node that belongs to a section of the given level."""


@dataclass
class _Entry:
    """One term group of a definition list: its ``dt`` elements, then the rest."""

    terms: list[HtmlElement] = field(default_factory=list)
    body: list[HtmlElement] = field(default_factory=list)
    made_id: str = ""
    """An id made from the term's text, for a term the page gave none."""

    @property
    def ids(self) -> list[str]:
        found = (str(term.get("id", "")).strip() for term in self.terms)
        own = [i for i in found if i and not INDEX_TARGET_ID.fullmatch(i)]
        return own or ([self.made_id] if self.made_id else [])

    def described(self) -> bool:
        return any(
            visible_text(node) or node.find(".//pre") is not None or node.tag == "pre"
            for node in self.body
        )


def split_entries(
    holder: HtmlElement, level: int, taken: set[str], render: Render, heading: str = ""
) -> list[Section]:
    """Move the API entries out of ``holder`` (the content of a section of ``level``)
    and return them as sections of ``level + 1``, in document order.

    ``taken`` holds the section ids and anchors already used in the document (entry ids
    are added to it); ``heading`` is the section's title, for the entry it names.
    """
    sections: list[Section] = []
    for entry_list in _outermost_entry_lists(holder):
        for entry in _groups(entry_list):
            if not entry.described():
                continue
            if not entry.ids:
                entry.made_id = _made_id(entry)
                if not entry.made_id:
                    continue
            if heading and not sections and _names(heading, entry):
                # The section is this entry: its nested entries are its own.
                for node in entry.body:
                    sections.extend(split_entries(node, level, taken, render))
                heading = ""
                continue
            sections.append(_entry_section(entry, level + 1, taken, render))
        if not any(isinstance(child.tag, str) for child in entry_list):
            entry_list.drop_tree()  # keeps its tail text
    return sections


def _outermost_entry_lists(holder: HtmlElement) -> list[HtmlElement]:
    """The ``dl`` elements with an id'd term that no other such ``dl`` contains."""
    found: list[HtmlElement] = []
    for dl in holder.iter("dl"):
        if not _is_entry_list(dl):
            continue
        parent = dl.getparent()
        while parent is not None and parent is not holder and not _is_entry_list(parent):
            parent = parent.getparent()
        if parent is None or parent is holder:
            found.append(dl)
    return found


def _is_entry_list(node: HtmlElement) -> bool:
    if node.tag != "dl":
        return False
    return any(group.ids for group in _groups(node))


def _made_id(entry: _Entry) -> str:
    """An id from the entry's first term: its first words, as a URL fragment keeps them
    (``\\C [ title ]`` -> ``C-title``, ``--follow``)."""
    if not entry.terms:
        return ""
    words = " ".join(visible_text(entry.terms[0]).split()[:3])
    made = _ID_JUNK.sub("-", words).strip(".")
    if not words.startswith("-"):
        made = made.lstrip("-")  # a dash opens an option's name only
    return re.sub(r"(?<=\w)-{2,}", "-", made)[:MADE_ID_CHARS].rstrip("-.")


def _groups(entry_list: HtmlElement) -> list[_Entry]:
    """The list's term groups: consecutive ``dt`` elements and what follows them."""
    groups: list[_Entry] = []
    for child in entry_list:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "dt" and (not groups or groups[-1].body):
            groups.append(_Entry())
        if not groups:
            groups.append(_Entry())
        (groups[-1].terms if child.tag == "dt" else groups[-1].body).append(child)
    return groups


def _names(heading: str, entry: _Entry) -> bool:
    """Whether a heading names the entry (``select_related()`` for
    ``django.db.models.query.QuerySet.select_related``, ``CharField`` for
    ``django.db.models.CharField``)."""
    name = _NAME_JUNK.sub("", heading).strip(".").casefold()
    return bool(name) and any(
        name in {i.casefold(), i.rsplit(".", 1)[-1].casefold()} for i in entry.ids
    )


def _entry_section(entry: _Entry, level: int, taken: set[str], render: Render) -> Section:
    ids = entry.ids
    section_id = unique_id(ids[0], taken)
    signatures = [" ".join(visible_text(term).split()) for term in entry.terms]
    signatures = [s for s in signatures if s]
    title = _short(signatures[0]) if signatures else section_id
    holder = make_element("div")
    if len(signatures) > 1 or title != (signatures[0] if signatures else title):
        # The title holds a shortened signature, or only the first of several.
        for term in entry.terms:
            holder.append(_signature_paragraph(term))
    for node in entry.body:
        holder.append(_unwrapped(node))  # moved out of the list
    for term in entry.terms:
        _detach(term)
    children = split_entries(holder, level, taken, render)
    anchors = [i for i in ids[1:] if i not in taken]
    taken.update(anchors)
    for node in holder.iter():
        anchor = str(node.get("id", "")).strip() if isinstance(node.tag, str) else ""
        if anchor and anchor not in taken and not INDEX_TARGET_ID.fullmatch(anchor):
            taken.add(anchor)
            anchors.append(anchor)
    content, passages = render(holder, level)
    return Section(
        id=section_id,
        title=title,
        level=level,
        content=content,
        passages=passages,
        children=children,
        anchors=anchors,
        role="entry",
    )


def _signature_paragraph(term: HtmlElement) -> HtmlElement:
    """A term as a paragraph of its own (its ``code`` stays code)."""
    paragraph = make_element("p")
    paragraph.text = term.text
    for child in list(term):
        paragraph.append(child)
    return paragraph


def _unwrapped(node: HtmlElement) -> HtmlElement:
    """A ``dd`` as a ``div`` (the description is a block of its own, not a definition),
    without the whitespace that followed it in the list."""
    if node.tag == "dd":
        node.tag = "div"
    node.tail = None
    return node


def _detach(node: HtmlElement) -> None:
    parent = node.getparent()
    if parent is not None:
        parent.remove(node)


def _short(signature: str) -> str:
    if len(signature) <= ENTRY_TITLE_CHARS:
        return signature
    cut = signature[: ENTRY_TITLE_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > ENTRY_TITLE_CHARS // 2 else cut).rstrip(" ,") + "…"


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever the document has not used yet."""
    candidate, counter = base, 2
    while candidate in taken:
        candidate, counter = f"{base}-{counter}", counter + 1
    taken.add(candidate)
    return candidate
