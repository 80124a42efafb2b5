"""A cleaned document: what adapters produce and the corpus serves.

Plain msgspec Structs, free of lxml, libzim and MCP, so ranking, the cache and the
wire layer can all hold them. They are trees without back references, so the cyclic
garbage collector is told not to track them (``gc=False``): a full collection over a warm
document cache then visits a fraction of the objects (structs of this kind in ``gather``,
``ranking``, ``parsing``, ``symbols`` and ``wire`` are untracked for the same reason).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import msgspec

Kind = Literal["article", "documentation", "thread"]
Role = Literal["text", "entry", "comments", "reference"]
"""What a section is to ranking and fetch:

- ``text``: ordinary content;
- ``entry``: one API entry of a reference page (a DevDocs ``dt[id]`` with its ``dd``),
  titled by its signature, fetchable and hinted on its own;
- ``comments``: the comments on a post, a child of the post's section: searched with it,
  never hinted, and its bylines (after each item's last " — ") are not snippet text;
- ``reference``: citation lists and the like: fetchable, never searched or hinted.
"""


PROSE, LIST, TABLE = "prose", "list", "table"


class Passage(msgspec.Struct, frozen=True, gc=False):
    """One block of a section's text as search reads it: plain text, and whether it is
    prose, a list (items joined by ``; ``) or a table (cells by ``, ``, rows by ``; ``)."""

    kind: str
    text: str


class Section(msgspec.Struct, kw_only=True, gc=False):
    """One node of a document's section tree.

    ``id`` is the archive's own anchor (heading id, ``question``, ``answer-<id>``); the
    lead section's id is ``""``. ``content`` is Markdown for this node only, without its
    children. ``anchors`` are further ids that land on this section (``dt[id]`` API
    anchors, ``answer-<acceptedId>``). ``role`` says what kind of section it is (see
    :data:`Role`).
    """

    id: str
    title: str
    level: int
    content: str = ""
    children: list[Section] = msgspec.field(default_factory=list)
    metadata: dict[str, str | int | bool | list[str]] | None = None
    anchors: list[str] = msgspec.field(default_factory=list)
    role: Role = "text"
    passages: tuple[Passage, ...] | None = None
    """In a document read for search only (:attr:`Document.view`): the section's text as
    passages, ``content`` being empty. None in a document read for fetch."""

    @property
    def reference(self) -> bool:
        """Citation lists and the like: fetchable, never offered as a search hint."""
        return self.role == "reference"


class Document(msgspec.Struct, kw_only=True, gc=False):
    """A parsed entry. ``sections`` are the top-level nodes, the lead first.

    ``metadata`` may carry ``source_url``: where the archive says the page comes from
    (DevDocs' attribution link, a Wikipedia article's canonical URL, a thread's question
    URL), shown to the agent so that it can cite; nothing is ever fetched from it.
    """

    path: str
    title: str
    kind: Kind
    sections: list[Section]
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    view: bool = False
    """Read for search only: the section tree with each section's passages and no
    Markdown (rendering is most of what reading a page costs, and search does not show
    it). Fetch reads the page again, whole."""


def walk(sections: list[Section]) -> Iterator[Section]:
    """Every section in document order (pre-order).

    With a stack rather than nested generators, whose every yield passes up through one
    generator per level: a reference page's entries sit four or five levels deep, and a
    fetch walks its tree several times."""
    stack = sections[::-1]
    while stack:
        section = stack.pop()
        yield section
        if section.children:
            stack.extend(reversed(section.children))


def thread_answer(document: Document) -> Section | None:
    """A thread's answer that hints and links name first: the accepted one, else the
    first listed (sotoki lists the others by score); None in other documents."""
    if document.kind != "thread":
        return None
    sections = list(walk(document.sections))
    accepted = (s for s in sections if s.id == "accepted-answer")
    listed = (s for s in sections if s.id.startswith("answer-"))
    return next(accepted, None) or next(listed, None)
