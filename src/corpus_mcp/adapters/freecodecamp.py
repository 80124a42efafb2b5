"""fcc2zim archives (freeCodeCamp): each challenge's Markdown as a document.

What fcc2zim 2.x writes (``../shared/zims/families/README.md``): the curriculum's own
challenge files, ``content/curriculum/<superblock>/<block>/<id>.md``, read by a Vue.js
reader (``index.html``) that the front articles ``index/<superblock>/<block>/<id>.html``
(empty stubs titled by the challenge) open (:mod:`corpus_mcp.adapters.fronted`). A
challenge becomes its parts as sections (:mod:`corpus_mcp.adapters.challenge`): the
description and instructions as prose, the tests as a list, the starting code and the
solution as code blocks; its title is its front matter's. The course index
(``content/curriculum/index.json``), the locales and MathJax's own files are no documents;
the course index is the archive's page list: each challenge's address on freeCodeCamp
(``/learn/<superblock>/<block>/<dashed title>``, the dashed title being what the
front matter's ``dashedName`` is) leads to its Markdown.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from corpus_mcp.adapters.base import PageList
from corpus_mcp.adapters.challenge import Part, read_challenge
from corpus_mcp.adapters.fronted import FrontedAdapter
from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.passages import passages

__all__ = ["FreeCodeCampAdapter"]

_LEARN_URL: Final = "https://www.freecodecamp.org/learn/{superblock}/{block}/{name}"
_SITE: Final = "https://www.freecodecamp.org"
_NOT_DASHED: Final = re.compile(r"[^a-z0-9]+")


class _Listed(msgspec.Struct):
    """A challenge in fcc2zim's course index (its keys)."""

    title: str
    slug: str


_decode_index = msgspec.json.Decoder(dict[str, dict[str, list[_Listed]]]).decode


class FreeCodeCampAdapter(FrontedAdapter):
    """The ``freecodecamp`` family: challenges, fronted by their title stubs."""

    name = "freecodecamp"
    version = 1
    content = re.compile(
        r"content/curriculum/(?P<superblock>[^/]+)/(?P<block>[^/]+)/(?P<id>[^/]+)\.md"
    )
    stub = re.compile(r"index/(?P<superblock>[^/]+)/(?P<block>[^/]+)/(?P<id>[^/]+)\.html")
    content_path = "content/curriculum/{superblock}/{block}/{id}.md"
    stub_path = "index/{superblock}/{block}/{id}.html"
    page_list: str | None = "content/curriculum/index.json"

    def parse_page_list(self, data: bytes) -> PageList:
        """Each challenge's path on freeCodeCamp (``learn/<superblock>/<block>/<dashed
        title>``) -> its Markdown; an index it cannot read lists nothing."""
        try:
            course = _decode_index(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return PageList()
        paths = {
            f"learn/{superblock}/{block}/{dashed_name(item.title)}": self.content_path.format(
                superblock=superblock, block=block, id=item.slug
            )
            for superblock, blocks in course.items()
            for block, items in blocks.items()
            for item in items
        }
        return PageList(paths=paths, site=_SITE)

    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The challenge's parts as sections under its title; ``source_url`` is the
        challenge on freecodecamp.org when its path and ``dashedName`` say where."""
        challenge = read_challenge(html.decode("utf-8", "replace"))
        document_title = challenge.title or (title if title != path else "") or path
        lead = Section(id="", title=document_title, level=1)
        sections = [lead]
        for part in challenge.parts:
            if not part.id:  # text before the first marker: the lead's
                _fill(lead, part.markdown, view)
            else:
                sections.append(_section(part, 2, view))
        if lead.passages is None and view:
            lead.passages = ()
        metadata: dict[str, str] = {}
        found = self.content.fullmatch(path)
        name = challenge.front.get("dashedName", "")
        if found and name:
            metadata["source_url"] = _LEARN_URL.format(
                superblock=found["superblock"], block=found["block"], name=name
            )
        return Document(
            path=path,
            title=document_title,
            kind="documentation",
            sections=sections,
            metadata=metadata,
            view=view,
        )


def _section(part: Part, level: int, view: bool) -> Section:
    section = Section(id=part.id, title=part.title, level=level)
    _fill(section, part.markdown, view)
    section.children = [_section(child, level + 1, view) for child in part.children]
    return section


def _fill(section: Section, markdown: str, view: bool) -> None:
    """A section's text: the Markdown for fetch, its passages for search."""
    if view:
        section.passages = passages(markdown)
    else:
        section.content = markdown


def dashed_name(title: str) -> str:
    """A challenge's title as freeCodeCamp dashes it in its address (its ``dashedName``):
    "Where do I Belong" -> ``where-do-i-belong``."""
    return _NOT_DASHED.sub("-", title.lower()).strip("-")
