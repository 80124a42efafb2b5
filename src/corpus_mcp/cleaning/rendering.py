"""How a page's sections get their text: Markdown for fetch, passages for search.

An adapter builds a page's section tree once per read; what each section's text
becomes depends on why the page is read. ``fetch`` shows Markdown
(:func:`~corpus_mcp.cleaning.blocks.to_markdown`); a search only weighs words, so a
page read for search gets plain passages (:func:`~corpus_mcp.cleaning.plain.to_passages`,
several times cheaper) and no Markdown at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from lxml.html import HtmlElement

from corpus_mcp.cleaning.blocks import to_markdown
from corpus_mcp.cleaning.inline import LinkTarget
from corpus_mcp.cleaning.plain import prepare, to_passages
from corpus_mcp.document import Passage

__all__ = ["Rendered", "Rendering"]


class Rendered(NamedTuple):
    """A section's text: Markdown, or (for search) passages and no Markdown."""

    content: str
    passages: tuple[Passage, ...] | None = None


@dataclass(frozen=True)
class Rendering:
    """The rendering of one page: its links, whether it is a math site's (raw TeX kept),
    and whether it is read for search only (``view``)."""

    links: LinkTarget | None = None
    tex: bool = False
    view: bool = False

    def prepare(self, page: HtmlElement, html: bytes) -> None:
        """Once per page, before its sections are rendered (see
        :func:`~corpus_mcp.cleaning.plain.prepare`; nothing to do for Markdown)."""
        if self.view:
            prepare(page, html, tex=self.tex)

    def __call__(self, node: HtmlElement, below_level: int = 0) -> Rendered:
        """The text of ``node``'s subtree, a section of level ``below_level`` (its own
        headings go below it)."""
        if self.view:
            return Rendered("", to_passages(node))
        content = to_markdown(node, tex=self.tex, links=self.links, below_level=below_level)
        return Rendered(content.strip())

    def nothing(self) -> Rendered:
        """The text of a section without any."""
        return Rendered("", () if self.view else None)
