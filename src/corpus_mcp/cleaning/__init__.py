"""HTML subtree -> clean Markdown for agents (pure; shared by every family adapter).

The renderer walks the lxml tree directly instead of going through markdownify: that
would need a BeautifulSoup copy of every page, several times the cost of lxml's own
parse, and its output would still need most of the rules below overridden. Rules:

* Generic junk (scripts, styles, hidden elements, edit links, citation markers, ...) is
  skipped during the walk; the caller's tree is never mutated by :func:`to_markdown`.
* Meaning is kept: paragraphs, nested lists, tables (key/value tables such as infoboxes
  become a compact list), definition lists, block quotes, admonitions, fenced code with
  its language, inline code, TeX math (``$...$`` / ``$$...$$``), image captions.
* Links keep their text, and their target where the adapter gives one (a ``LinkTarget``:
  a ``corpus://`` ref, ``#anchor`` or a web URL, see ``corpus_mcp.adapters.links``);
  images keep their caption or alt text.
* Escaping is minimal: only what would change the meaning of the Markdown (emphasis
  markers, backticks, tag-like ``<x``, block markers at line start, ``|`` in tables);
  intraword underscores are left alone. Code and math are never escaped.
* Output is deterministic and normalised: no trailing spaces, at most one blank line
  between blocks (outside code fences), stripped.

Modules, each importing only modules listed before it (so there are no cycles):

* ``html``: parsing, element helpers, junk detection, visible text;
* ``code`` and ``tables``: pure helpers for code blocks and table layout;
* ``inline``: text runs, escaping, code spans, math, emphasis, superscripts, held by
  ``InlineRenderer``, the state of one conversion;
* ``blocks``: ``Renderer`` (``InlineRenderer`` plus every block element) and
  :func:`to_markdown`;
* ``plain``: :func:`to_passages`, the same subtree as search reads it (no Markdown);
* ``rendering``: ``Rendering``, which of the two a page's sections get.
"""

from corpus_mcp.cleaning.blocks import to_markdown
from corpus_mcp.cleaning.html import (
    classes,
    drop,
    has_class,
    make_element,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.cleaning.inline import LinkTarget
from corpus_mcp.cleaning.plain import to_passages
from corpus_mcp.cleaning.rendering import Rendered, Rendering

__all__ = [
    "LinkTarget",
    "Rendered",
    "Rendering",
    "classes",
    "drop",
    "has_class",
    "make_element",
    "parse_html",
    "to_markdown",
    "to_passages",
    "visible_text",
    "xml_safe_retry",
    "xpath_has_class",
]
