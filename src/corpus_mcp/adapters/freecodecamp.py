"""fcc2zim archives (freeCodeCamp): each challenge's Markdown as a document.

What fcc2zim 2.x writes (``../shared/zims/families/README.md``): the curriculum's own
challenge files, ``content/curriculum/<superblock>/<block>/<id>.md``, read by a Vue.js
reader (``index.html``) that the front articles ``index/<superblock>/<block>/<id>.html``
(empty stubs titled by the challenge) open (:mod:`corpus_mcp.adapters.fronted`). A
challenge becomes its parts as sections (:mod:`corpus_mcp.adapters.challenge`): the
description and instructions as prose, the tests as a list, the starting code and the
solution as code blocks; its title is its front matter's. The course index
(``content/curriculum/index.json``), the locales and MathJax's own files are no documents.
"""

from __future__ import annotations

import re
from typing import Final

from corpus_mcp.adapters.challenge import Part, read_challenge
from corpus_mcp.adapters.fronted import FrontedAdapter
from corpus_mcp.document import Document, Section
from corpus_mcp.ranking.passages import passages

__all__ = ["FreeCodeCampAdapter"]

_LEARN_URL: Final = "https://www.freecodecamp.org/learn/{superblock}/{block}/{name}"


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
