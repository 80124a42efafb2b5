"""mwoffliner archives (Wikipedia, MDWiki, Wikibooks, ...): HTML -> sectioned Document.

Every layout mwoffliner has written is reduced to one linear stream of *heading
markers* and *content nodes* (see :func:`_linearise`), from which the section tree is
built by heading level. That covers (zim-formats.md §1.5, §1.12):

* flat ActionParse: ``div.mw-heading > hN[id]``, bare ``hN[id]``, ``hN > span.mw-headline[id]``;
* Parsoid / PCS: nested ``section[data-mw-section-id]`` (negative ids are pseudo
  sections whose content folds into the enclosing one), ``div.pcs-edit-section-header``;
* mobile-sections (<=1.13): ``h1.section-heading > #title_0`` + ``div#mf-section-0`` lead,
  ``<details data-level>`` with ``summary > hN[id]``, and the 2018
  ``h2.section-heading > span.mw-headline[id]`` + ``div.mf-section-N`` pages.

Section ids are the archive's own anchors, verbatim; the lead is ``""`` with an empty
title (the document title is on the Document) and level 1, ``h2`` sections level 2.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import cast

import lxml.etree
import msgspec
from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults, Landing, Site, SiteFacts, learnt_site
from corpus_mcp.adapters.links import LinkResolver, web_url
from corpus_mcp.adapters.stubs import refresh_landing
from corpus_mcp.addresses import Mount, normal_host
from corpus_mcp.cleaning import (
    Rendered,
    Rendering,
    classes,
    make_element,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document, Section

__all__ = ["MediaWikiAdapter"]

_ASSET_PREFIXES = (
    "_assets_/", "_mw_/", "_res_/", "_mathjax_/", "_categories_partials_/",
    "I/", "-/", "M/", "X/",
)  # fmt: skip
_HTDIG = re.compile(rb"<!--\s*htdig_noindex\s*-->.*?<!--\s*/htdig_noindex\s*-->", re.DOTALL)
_HEADING_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LEAD_PSEUDO_IDS = frozenset({"title_0"})
_TITLE_H1_CLASSES = frozenset({"firstHeading", "page-header", "pcs-edit-section-title"})
_REFERENCE_TITLES = frozenset(
    {
        "references", "notes", "citations", "sources", "bibliography", "footnotes",
        "works cited", "notes and references", "references and notes", "explanatory notes",
        "reference notes", "cited sources", "sources cited", "general references",
        "inline citations", "specific references", "notes and citations", "endnotes",
        "informational notes", "citation notes",
    }
)  # fmt: skip
#: Sections of links out of the article: fetchable, never a search hint (reference).
_APPARATUS_TITLES = frozenset({"see also", "external links", "further reading", "other websites"})
_REFERENCE_LIST_CLASSES = frozenset(
    {"reflist", "mw-references-wrap", "references", "mw-references", "refbegin"}
)

# What mwoffliner leaves in the page that is navigation, chrome or citation apparatus.
_JUNK_IDS = ("catlinks", "mw-content-subtitle", "contentSub", "toc", "toctitle", "coordinates")
_JUNK_CLASSES = (
    "zim-footer", "hatnote", "toc", "mwo-external-video-card", "mw-kartographer-maplink",
    "sistersitebox", "side-box", "portal", "mw-cite-backlink", "ambox", "catlinks",
    "pcs-collapse-table-collapsed-container", "pcs-collapse-table-collapsed-bottom",
    "pcs-collapse-table-collapse-text", "pcs-edit-section-link-container",
    "mw-editsection", "navigation-not-searchable", "printfooter", "sidebar",
)  # fmt: skip
_JUNK_ID_SET = frozenset(_JUNK_IDS)
_JUNK_CLASS_SET = frozenset(_JUNK_CLASSES)
_JUNK_TAGS = frozenset({"meta", "style", "link", "script"})

# Attribute values, not elements: XPath hands back each ``class`` / ``id`` value as a string
# made in C, and only the few values that name junk need their element (a Python proxy).
# ``descendant::*`` leaves the context element's own attributes out.
_DESCENDANT_CLASSES = lxml.etree.XPath("descendant::*/@class")
_DESCENDANT_IDS = lxml.etree.XPath("descendant::*/@id")
# XPath's id() looks values up in libxml2's id table (every value an ``id`` attribute has
# in the page, plus ``<a name>`` values in HTML), given as one space-separated list.
_ID_TABLE = lxml.etree.XPath("id($idents)")
_JUNK_ID_LIST = " ".join(_JUNK_IDS)


def _select(xpath: lxml.etree.XPath, node: HtmlElement, **variables: str) -> list[HtmlElement]:
    """Run an XPath that selects elements (lxml's stubs type any XPath result)."""
    return cast("list[HtmlElement]", xpath(node, **variables))


def _owners(
    xpath: lxml.etree.XPath, node: HtmlElement, keep: Callable[[str], bool]
) -> list[HtmlElement]:
    """The elements carrying the attribute values ``xpath`` selects that ``keep`` accepts."""
    values = cast("list[lxml.etree._ElementUnicodeResult]", xpath(node))
    return [cast(HtmlElement, value.getparent()) for value in values if keep(value)]


def _is_junk_class(value: str) -> bool:
    return "navbox" in value or not _JUNK_CLASS_SET.isdisjoint(value.split())


def _strip_junk(content: HtmlElement) -> None:
    """Remove mwoffliner's chrome and navigation (below ``content``) by tag, id or class.

    The order of removal does not matter: each removal is local (its tail text stays in
    place), and removing an element nested in an already removed one only touches the
    detached subtree.
    """
    doomed: list[HtmlElement] = list(content.iterdescendants(*_JUNK_TAGS))
    if _select(_ID_TABLE, content, idents=_JUNK_ID_LIST):  # most pages have none: no scan
        doomed += _owners(_DESCENDANT_IDS, content, lambda value: value in _JUNK_ID_SET)
    doomed += _owners(_DESCENDANT_CLASSES, content, _is_junk_class)
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()


class _Heading(msgspec.Struct):
    level: int
    id: str
    title: str


class _Draft:
    """A section being built: its heading and the content nodes that follow it."""

    __slots__ = ("children", "heading", "nodes")

    def __init__(self, heading: _Heading) -> None:
        self.heading = heading
        self.nodes: list[HtmlElement | str] = []
        self.children: list[_Draft] = []


class MediaWikiAdapter(AdapterDefaults):
    """The :class:`~corpus_mcp.adapters.base.Adapter` for mwoffliner archives."""

    name = "mediawiki"
    version = 2  # 2: a quote inside a redirect stub's URL
    main_page_is_navigation = True
    redirect_stubs = True

    def is_content(self, path: str, mimetype: str) -> bool:
        if mimetype.split(";", 1)[0].strip().lower() != "text/html":
            return False
        return not path.startswith(_ASSET_PREFIXES)

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        """Where an mwoffliner fragment-redirect stub (``html_redirect.html``) lands."""
        if b"mw-content-text" in html:
            return None
        return refresh_landing(path, html)

    def web_site(self, facts: SiteFacts) -> Site:
        """``https://<host>/wiki/<Title>``: the host mwoffliner 1.15+ writes as ``Source``,
        else the one a page's canonical link (or footer) names."""
        if facts.source and "." in facts.source:
            host = normal_host(facts.source.split("://", 1)[-1].split("/", 1)[0])
            return Site(mounts=(Mount(f"{host}/wiki/"),), title=facts.title)
        return learnt_site(facts)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """A title as MediaWiki reads it: spaces are underscores, and the first letter is
        a capital on wikis that capitalise titles (all but Wiktionary's: the archive
        says which it stores)."""
        title = rest.replace(" ", "_").strip("_")
        if not title:
            return ()
        capital = title[:1].upper() + title[1:]
        return (title, capital) if capital != title else (title,)

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        root = parse_html(_without_htdig(html))
        by_id = _index_ids(root)
        metadata: dict[str, str] = {}
        if _is_list_page(root, by_id):
            metadata["navigation"] = "true"
        source_url = _source_url(root, html)
        if source_url:
            metadata["source_url"] = source_url
        doc_title = _document_title(root, by_id, title)
        content = _content_root(root, by_id)
        _strip_junk(content)
        links = LinkResolver(library, path, serves=self.serves, rewrite=_without_html_suffix)
        rendering = Rendering(links=links, view=view)
        rendering.prepare(content, html)
        lead = _Draft(_Heading(level=1, id="", title=""))
        drafts = _build_tree(lead, _linearise(content, doc_title))
        _assign_unique_ids(drafts)
        sections = [_finish(draft, rendering) for draft in drafts]
        return Document(
            path=path,
            title=doc_title,
            kind="article",
            sections=sections,
            metadata=metadata,
            view=view,
        )


def _without_htdig(html: bytes) -> bytes:
    """``html`` less its ``htdig_noindex`` blocks (footer chrome), as ``_HTDIG.sub`` would.

    The regex scans byte by byte, several times slower than ``bytes.find``. A block opens
    with the last ``<!--`` before its marker (only whitespace comes between), so no block
    starts before the last one preceding the first marker, and the scan starts there (in
    mwoffliner pages, near the end). The kept parts are joined once, from views.
    """
    first_marker = html.find(b"htdig_noindex")
    if first_marker < 0:
        return html
    start = max(html.rfind(b"<!--", 0, first_marker), 0)
    view = memoryview(html)
    kept: list[memoryview] = []
    pos = 0
    for match in _HTDIG.finditer(html, start):
        kept.append(view[pos : match.start()])
        pos = match.end()
    if not kept:
        return html
    kept.append(view[pos:])
    return b"".join(kept)


# -- stubs ---------------------------------------------------------------------------------


def _without_html_suffix(href: str) -> str:
    """Old-scheme pages link to ``Other_Article.html``: the entry is ``Other_Article``."""
    if "://" in href[:12]:
        return href
    path, hash_, fragment = href.partition("#")
    return (path[:-5] if path.endswith(".html") else path) + hash_ + fragment


_ISSUED_FROM = re.compile(rb"""href=["'](https?://[^"'?#]+/wiki/[^"'?#]+)\?oldid=""")


def _source_url(root: HtmlElement, html: bytes) -> str:
    """The article's canonical URL: ``link[rel=canonical]``, else the revision link of the
    footer ("This article is issued from Wikipedia") without its revision."""
    for link in root.iter("link"):
        if (link.get("rel") or "").strip().lower() == "canonical" and link.get("href"):
            href = str(link.get("href")).strip()
            return web_url("https:" + href if href.startswith("//") else href)
    found = _ISSUED_FROM.search(html)
    return web_url(found.group(1).decode("utf-8", "replace")) if found else ""


# -- page-level ------------------------------------------------------------------------------


_PAGE_IDS = ("mw-content-text", "list", "firstHeading", "title_0", "titleHeading")
_FIRST_WITH_ID = lxml.etree.XPath("(//*[@id=$ident])[1]")


def _index_ids(root: HtmlElement) -> dict[str, HtmlElement]:
    """The first element carrying each page-level id this adapter looks for."""
    found: dict[str, HtmlElement] = {}
    for ident in _PAGE_IDS:
        element = _first_with_id(root, ident)
        if element is not None:
            found[ident] = element
    return found


def _first_with_id(root: HtmlElement, ident: str) -> HtmlElement | None:
    """The first element whose ``id`` is ``ident``, found without visiting the page.

    XPath's ``id()`` reads the table libxml2 fills while parsing: the first element
    registering each value. In HTML, ``<a name>`` registers too, so a hit that is not
    the ``id`` itself falls back to a scan.
    """
    hits = _select(_ID_TABLE, root, idents=ident)
    if not hits:
        return None
    if hits[0].get("id") == ident:
        return hits[0]
    found = _select(_FIRST_WITH_ID, root, ident=ident)
    return found[0] if found else None


def _is_list_page(root: HtmlElement, by_id: dict[str, HtmlElement]) -> bool:
    """mwoffliner's generated main page: a list (or grid) of links, not an article."""
    body = root.find("body")
    if body is None:
        return False
    tokens = classes(body)
    if "page-list-home" in tokens or "article-list-home" in tokens:
        return True
    if "list" in by_id and by_id["list"].tag == "ul":
        return True
    # 2018-era "Summary" page: the content is one bare list of links and nothing else.
    content = by_id.get("mw-content-text")
    if content is None:
        return False
    children = [c for c in content if isinstance(c.tag, str) and c.tag != "a"]
    if len(children) != 1 or children[0].tag != "ul" or (content.text or "").strip():
        return False
    # mwoffliner's template leaves stray empty <a> between the items.
    items = [li for li in children[0] if isinstance(li.tag, str) and li.tag != "a"]
    return bool(items) and all(
        li.tag == "li" and li.find("a") is not None and not li.xpath("./*[not(self::a)]")
        for li in items
    )


def _document_title(root: HtmlElement, by_id: dict[str, HtmlElement], entry_title: str) -> str:
    """``h1#firstHeading`` (display title), else the entry title, else older title spots."""
    heading = by_id.get("firstHeading")
    if heading is not None and visible_text(heading):
        return visible_text(heading)
    if entry_title.strip():
        return entry_title.strip()
    for ident in ("title_0", "titleHeading"):
        el = by_id.get(ident)
        if el is not None and visible_text(el):
            return visible_text(el)
    title = root.find(".//title")
    return " ".join(title.text_content().split()) if title is not None else ""


def _content_root(root: HtmlElement, by_id: dict[str, HtmlElement]) -> HtmlElement:
    if "mw-content-text" in by_id:
        return by_id["mw-content-text"]
    found = root.xpath(f"//*[{xpath_has_class('mw-parser-output')}]")
    if found:
        element: HtmlElement = found[0]
        return element
    body = root.find("body")
    return body if body is not None else root


# -- the linear stream -----------------------------------------------------------------------


_HEADLINES = lxml.etree.XPath(".//span[" + xpath_has_class("mw-headline") + "][@id]")


def _heading_of(el: HtmlElement) -> tuple[HtmlElement, _Heading] | None:
    """If ``el`` is (or wraps) a section heading: the heading element and its marker."""
    tag = el.tag
    h: HtmlElement | None = None
    if tag in _HEADING_TAGS:
        h = el
    elif tag in ("div", "summary", "header"):
        tokens = classes(el)
        if (
            tag == "summary"
            or "mw-heading" in tokens
            or "pcs-edit-section-header" in tokens
            or any(t.startswith("mw-heading") for t in tokens)
        ):
            inner = [c for c in el if isinstance(c.tag, str) and c.tag in _HEADING_TAGS]
            if inner:
                h = inner[0]
    if h is None:
        return None
    anchor = h.get("id")
    headline = _select(_HEADLINES, h)
    if headline:
        anchor = headline[0].get("id")
    title = visible_text(headline[0] if headline else h)
    if not anchor:
        anchor = title.replace(" ", "_")
    if not anchor and not title:
        return None
    return h, _Heading(level=_HEADING_TAGS[str(h.tag)], id=anchor.strip(), title=title)


def _is_wrapper(el: HtmlElement) -> bool:
    """Structural containers whose children carry the section structure."""
    tag = el.tag
    if tag == "section":
        return el.get("data-mw-section-id") is not None or el.find("section") is not None
    if tag == "details":
        return True
    if tag == "div":
        ident = el.get("id") or ""
        if ident.startswith("mf-section-"):
            return True
        tokens = classes(el)
        if any(t.startswith("mf-section-") for t in tokens) or "mw-parser-output" in tokens:
            return True
    return False


def _linearise(container: HtmlElement, doc_title: str) -> Iterator[_Heading | HtmlElement | str]:
    """Headings and content nodes of ``container`` in document order, wrappers flattened."""
    seen_heading = False

    def walk(node: HtmlElement) -> Iterator[_Heading | HtmlElement | str]:
        nonlocal seen_heading
        if node.text and node.text.strip():
            yield node.text
        for child in list(node):
            if isinstance(child.tag, str):
                found = _heading_of(child)
                if found is not None:
                    h, heading = found
                    if _is_title_heading(h, heading, doc_title, seen_heading):
                        pass
                    else:
                        seen_heading = True
                        yield heading
                elif _is_wrapper(child):
                    yield from walk(child)
                else:
                    yield child
            if child.tail and child.tail.strip():
                yield child.tail

    yield from walk(container)


def _is_title_heading(h: HtmlElement, heading: _Heading, doc_title: str, seen: bool) -> bool:
    """The page title repeated in the content (mobile lead h1, Parsoid page-header)."""
    if heading.id in _LEAD_PSEUDO_IDS:
        return True
    if h.tag != "h1" or seen:
        return False
    return not _TITLE_H1_CLASSES.isdisjoint(classes(h)) or heading.title == doc_title


def _build_tree(lead: _Draft, stream: Iterator[_Heading | HtmlElement | str]) -> list[_Draft]:
    top: list[_Draft] = [lead]
    stack: list[_Draft] = []
    current = lead
    for item in stream:
        if isinstance(item, _Heading):
            draft = _Draft(item)
            while stack and stack[-1].heading.level >= item.level:
                stack.pop()
            if stack:
                stack[-1].children.append(draft)
            else:
                top.append(draft)
            stack.append(draft)
            current = draft
        else:
            current.nodes.append(item)
    return top


# -- section assembly ------------------------------------------------------------------------


def _is_reference_list(node: HtmlElement) -> bool:
    """A citation list: ``ol.references``, ``div.reflist``/``.mw-references-wrap``, or a
    plain ``div`` made only of those."""
    if not _REFERENCE_LIST_CLASSES.isdisjoint(classes(node)):
        return True
    if node.tag != "div" or (node.text or "").strip() or node.find(".//ol") is None:
        return False
    meaningful = [c for c in node if isinstance(c.tag, str) and visible_text(c)]
    return bool(meaningful) and all(_is_reference_list(c) for c in meaningful)


def _is_reference_section(title: str, nodes: list[HtmlElement | str]) -> bool:
    if title.strip().lower().rstrip(":") in _REFERENCE_TITLES:
        return True
    elements = [n for n in nodes if not isinstance(n, str)]
    if not any(_is_reference_list(n) for n in elements):
        return False
    meaningful = [n for n in elements if visible_text(n)]
    return bool(meaningful) and all(_is_reference_list(n) for n in meaningful)


def _render(nodes: list[HtmlElement | str], rendering: Rendering) -> Rendered:
    wrapper = make_element("div")
    for node in nodes:
        if isinstance(node, str):
            if len(wrapper):
                wrapper[-1].tail = (wrapper[-1].tail or "") + node
            else:
                wrapper.text = (wrapper.text or "") + node
        else:
            # The stream yields each element's tail as its own string item, so the
            # element goes in without it (keeping it would render the text twice).
            wrapper.append(node)
            node.tail = None
    return rendering(wrapper)


def _walk_drafts(drafts: list[_Draft]) -> Iterator[_Draft]:
    for draft in drafts:
        yield draft
        yield from _walk_drafts(draft.children)


def _assign_unique_ids(drafts: list[_Draft]) -> None:
    """Keep every archive id verbatim; only a repeated one gets ``_2``, ``_3``... (a suffix
    the archive does not already use elsewhere)."""
    reserved = {draft.heading.id for draft in _walk_drafts(drafts)}
    used: set[str] = set()
    for draft in _walk_drafts(drafts):
        section_id = draft.heading.id
        if section_id in used:
            n = 2
            while f"{section_id}_{n}" in used or f"{section_id}_{n}" in reserved:
                n += 1
            section_id = f"{section_id}_{n}"
            draft.heading.id = section_id
        used.add(section_id)


def _finish(draft: _Draft, rendering: Rendering) -> Section:
    heading = draft.heading
    citations = bool(heading.id) and _is_reference_section(heading.title, draft.nodes)
    apparatus = heading.title.strip().lower().rstrip(":") in _APPARATUS_TITLES
    reference = citations or apparatus
    nodes = draft.nodes
    if not citations:
        # A citation list under an ordinary heading is apparatus, not content.
        nodes = [n for n in nodes if isinstance(n, str) or not _is_reference_list(n)]
    content, passages = _render(nodes, rendering)
    return Section(
        id=heading.id,
        title=heading.title,
        level=heading.level,
        content=content,
        passages=passages,
        children=[_finish(child, rendering) for child in draft.children],
        role="reference" if reference else "text",
    )
