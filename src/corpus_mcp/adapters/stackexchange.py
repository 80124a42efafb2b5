"""sotoki archives: one Stack Exchange question thread per ``questions/<qid>/<slug>`` entry.

The rules come from zim-formats.md §3. A thread becomes flat sections, all level 2 and
siblings because none is nested in another (the document title plays the page's ``h1``):
``question`` (body, tags, comments), ``accepted-answer`` (aliased ``answer-<id>``), then
``answer-<id>`` for the rest, in the page's score order. The page is read by picking those
posts out, so the chrome around them (headers, sidebars, vote cells, the "N Answers"
header, ``a[name]`` anchors) never reaches the Markdown; user cards and the
asked/active/viewed line become section metadata instead.
"""

from __future__ import annotations

import re
from typing import Final

from lxml.html import HtmlElement

from corpus_mcp.adapters.base import AdapterDefaults
from corpus_mcp.cleaning import (
    has_class,
    parse_html,
    to_markdown,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import Document, Section

_THREAD_PATH: Final = re.compile(r"questions/\d+/[^/]+")
# sotoki 1.x (old scheme): ``A/question/<id>.html``, normalised to ``question/<id>``.
_LEGACY_THREAD_PATH: Final = re.compile(r"question/\d+(?:\.html)?")
_ANSWER_REDIRECT_PATH: Final = re.compile(r"a/(\d+)/?")
_ISO_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_NUMBER: Final = re.compile(r"(\d+(?:[.,]\d+)*)\s*([km]?)", re.IGNORECASE)

_Metadata = dict[str, str | int | bool | list[str]]


def _elements(node: HtmlElement, xpath: str) -> list[HtmlElement]:
    return [item for item in node.xpath(xpath) if isinstance(item, HtmlElement)]


def _first(node: HtmlElement, xpath: str) -> HtmlElement | None:
    found = _elements(node, xpath)
    return found[0] if found else None


def _first_of(node: HtmlElement, *xpaths: str) -> HtmlElement | None:
    """The first match of the first xpath that matches anything."""
    for xpath in xpaths:
        found = _first(node, xpath)
        if found is not None:
            return found
    return None


def _page_title(root: HtmlElement) -> str:
    """``<title>`` text (``visible_text`` treats the head as junk)."""
    title = _first(root, "//title")
    return " ".join(title.text_content().split()) if title is not None else ""


def _text(node: HtmlElement | None) -> str:
    return " ".join(visible_text(node).split()) if node is not None else ""


def _parse_count(text: str) -> int | None:
    """``1,234`` / ``12.3k`` / ``2m`` as an int; None when there is no number."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    digits, suffix = match.groups()
    scale = {"": 1, "k": 1_000, "m": 1_000_000}[suffix.lower()]
    if scale == 1:
        return int(digits.replace(",", "").replace(".", ""))
    return round(float(digits.replace(",", "")) * scale)


def _parse_int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class StackExchangeAdapter(AdapterDefaults):
    """The ``stackexchange`` family: question threads are documents, all else navigation."""

    name = "stackexchange"
    main_page_is_navigation = True
    """The main path ``questions`` is the "Highest Voted Questions" listing."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """Thread pages only; tag, user and listing pages are navigation (§3.4).

        Legacy sotoki 1.x ``question/<id>`` pages count too: they are the only
        documents such an archive has.
        """
        if not mimetype.startswith("text/html"):
            return False
        return bool(_THREAD_PATH.fullmatch(path) or _LEGACY_THREAD_PATH.fullmatch(path))

    # sotoki only writes libzim redirects, never HTML stubs: the default stub_landing.

    def section_for_path(self, requested_path: str) -> str | None:
        """``a/<aid>`` redirects to the whole thread and loses the answer: restore it."""
        match = _ANSWER_REDIRECT_PATH.fullmatch(requested_path)
        return f"answer-{match.group(1)}" if match else None

    @xml_safe_retry
    def parse(self, path: str, title: str, html: bytes) -> Document:
        """The thread's sections; pages without a ``#question`` post become one section."""
        root = parse_html(html)
        tex = _loads_mathjax(root)
        question = _first(root, "//div[@id='question']")
        if question is None:
            return _generic_document(path, title, root, tex)
        question_title = _text(_first(root, "//div[@id='question-header']//h1")) or title.strip()
        document_title = question_title or title.strip() or path
        sections = [_question_section(root, question, document_title, tex)]
        answers = _elements(
            root,
            f"//div[@id='answers']//div[{xpath_has_class('answer')}][starts-with(@id, 'answer-')]",
        )
        sections.extend(_answer_section(answer, tex) for answer in answers)
        metadata: dict[str, str] = {}
        site = _site_title(root, question_title)
        if site:
            metadata["site"] = site
        return Document(
            path=path, title=document_title, kind="thread", sections=sections, metadata=metadata
        )


def _loads_mathjax(root: HtmlElement) -> bool:
    """Whether the page loads MathJax, which sotoki does only for math-enabled sites.

    Only then is ``$…$`` TeX; on other sites (Stack Overflow above all) dollar signs in
    prose are prices and shell variables, and must keep normal Markdown escaping.
    """
    for script in _elements(root, "//script"):
        if str(script.get("type", "")).lower() == "text/x-mathjax-config":
            return True
        if "mathjax" in str(script.get("src", "")).lower():
            return True
    return False


def _site_title(root: HtmlElement, question_title: str) -> str:
    """The site name from ``<title>``, which sotoki writes as ``"<question> - <site>"``."""
    page_title = _page_title(root)
    prefix = f"{question_title} - "
    if question_title and page_title.startswith(prefix):
        return page_title[len(prefix) :].strip()
    return ""


def _question_section(root: HtmlElement, question: HtmlElement, title: str, tex: bool) -> Section:
    # Only the tag list: comments may render ``[tag:x]`` as post-tag links too.
    tag_links = _elements(
        question, f".//*[{xpath_has_class('post-taglist')}]//a[{xpath_has_class('post-tag')}]"
    )
    tags = [tag for tag in (_text(link) for link in tag_links) if tag]
    metadata: _Metadata = {}
    _put(metadata, "question_id", _parse_int(question.get("data-questionid")))
    _put(metadata, "score", _post_score(question))
    metadata.update(_author(question))
    if tags:
        metadata["tags"] = tags
    metadata.update(_thread_dates(root))
    # Tags live in the metadata only: a "Tags:" line in the text would read as the
    # best-matching passage for any query naming them.
    parts = [_post_body(question, tex), _comments(question, tex)]
    return Section(
        id="question",
        title=title,
        level=2,
        content="\n\n".join(part for part in parts if part),
        metadata=metadata,
        anchors=_comment_anchors(question),
    )


def _answer_section(answer: HtmlElement, tex: bool) -> Section:
    answer_id = answer.get("data-answerid") or str(answer.get("id", "")).removeprefix("answer-")
    accepted = (
        has_class(answer, "accepted-answer")
        or answer.get("itemprop") == "acceptedAnswer"
        or _first(answer, f".//*[{xpath_has_class('js-accepted-answer-indicator')}]") is not None
    )
    metadata: _Metadata = {}
    _put(metadata, "answer_id", _parse_int(answer_id))
    _put(metadata, "score", _post_score(answer))
    metadata["accepted"] = accepted
    author = _author(answer)
    metadata.update(author)
    name = author.get("author")
    title = ("Accepted answer" if accepted else "Answer") + (f" by {name}" if name else "")
    # ``#<aid>`` is how sotoki links to an answer inside the thread.
    anchors = [f"answer-{answer_id}", answer_id] if accepted else [answer_id]
    parts = [_post_body(answer, tex), _comments(answer, tex)]
    return Section(
        id="accepted-answer" if accepted else f"answer-{answer_id}",
        title=title,
        level=2,
        content="\n\n".join(part for part in parts if part),
        metadata=metadata,
        anchors=[anchor for anchor in anchors if anchor] + _comment_anchors(answer),
    )


def _put(metadata: _Metadata, key: str, value: int | None) -> None:
    if value is not None:
        metadata[key] = value


def _post_score(post: HtmlElement) -> int | None:
    score = _parse_int(post.get("data-score"))
    if score is None:
        count = _first(post, f".//*[{xpath_has_class('js-vote-count')}]")
        if count is not None:
            score = _parse_int(count.get("data-value")) or _parse_int(_text(count))
    return score


def _author(post: HtmlElement) -> _Metadata:
    """The poster's name and reputation from the last ``.post-signature`` (the owner's card;
    an earlier one, when present, is the last editor's)."""
    signatures = _elements(post, f".//div[{xpath_has_class('post-signature')}]")
    if not signatures:
        return {}
    card = signatures[-1]
    name = _text(
        _first_of(
            card,
            f".//a[{xpath_has_class('s-user-card--link')}]",
            f".//*[{xpath_has_class('s-user-card--info')}]",
            ".//*[@itemprop='name']",
        )
    )
    metadata: _Metadata = {}
    if name:
        metadata["author"] = name
    reputation = _first(
        card,
        f".//*[{xpath_has_class('s-user-card--rep')} or {xpath_has_class('reputation-score')}]",
    )
    if reputation is not None:
        _put(metadata, "author_reputation", _parse_count(_text(reputation)))
    return metadata


def _thread_dates(root: HtmlElement) -> _Metadata:
    """The asked / active / viewed line above the question."""
    metadata: _Metadata = {}
    created = _first(root, "//time[@itemprop='dateCreated']")
    if created is not None and created.get("datetime"):
        metadata["created"] = str(created.get("datetime"))
    # The "Active" stamp is the other ``time`` above the posts (post cards are in #mainbar).
    active = _first(
        root,
        "//time[@datetime][not(@itemprop='dateCreated')][not(ancestor::div[@id='mainbar'])]",
    )
    if active is not None:
        metadata["active"] = str(active.get("datetime"))
    viewed = _first(root, "//*[starts-with(@title, 'Viewed ')]")
    if viewed is not None:
        _put(metadata, "views", _parse_count(str(viewed.get("title"))))
    return metadata


def _post_body(post: HtmlElement, tex: bool) -> str:
    body = _first(post, f".//div[{xpath_has_class('js-post-body')}]")
    if body is None:
        return ""
    return to_markdown(body, tex=tex).strip()


def _comments(post: HtmlElement, tex: bool) -> str:
    """The post's comments as a Markdown list: ``- (score) text — Author, date``."""
    lines = []
    for comment in _elements(post, f".//li[{xpath_has_class('comment')}]"):
        copy = _first(comment, f".//*[{xpath_has_class('comment-copy')}]")
        if copy is None:
            continue
        text = " ".join(to_markdown(copy, tex=tex).split())
        if not text:
            continue
        score = _parse_int(comment.get("data-comment-score")) or 0
        author = _text(_first(comment, f".//*[{xpath_has_class('comment-user')}]"))
        date = _comment_date(comment)
        byline = ", ".join(part for part in (author, date) if part)
        line = f"- ({score}) {text}" if score else f"- {text}"
        lines.append(f"{line} — {byline}" if byline else line)
    return "Comments:\n\n" + "\n".join(lines) if lines else ""


def _comment_date(comment: HtmlElement) -> str:
    """The comment's ISO date, kept in the title (``"<date> License: …"``) by sotoki."""
    stamp = _first(comment, f".//*[{xpath_has_class('relativetime-clean')}][@title]")
    if stamp is None:
        return ""
    match = _ISO_DATE.match(str(stamp.get("title", "")).strip())
    return match.group(0) if match else ""


def _comment_anchors(post: HtmlElement) -> list[str]:
    """``comment<cid>_<postid>`` names, which sotoki's comment permalinks point at."""
    names = (str(node.get("name", "")) for node in _elements(post, ".//a[@name]"))
    return [name for name in names if name.startswith("comment")]


def _generic_document(path: str, title: str, root: HtmlElement, tex: bool) -> Document:
    """A page in no known sotoki layout (1.x bootstrap pages): the body as one section."""
    for junk in _elements(root, "//script | //style | //header | //nav | //footer"):
        if junk.getparent() is not None:
            junk.drop_tree()
    heading = _text(_first(root, "//h1"))
    document_title = title.strip() or heading or _page_title(root) or path
    body = _first(root, "//body")
    content = to_markdown(body if body is not None else root, tex=tex).strip()
    section = Section(id="", title=document_title, level=1, content=content)
    return Document(path=path, title=document_title, kind="thread", sections=[section])
