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

from corpus_mcp.adapters.base import AdapterDefaults, Site, SiteFacts
from corpus_mcp.adapters.links import LinkResolver
from corpus_mcp.addresses import Mount, normal_host
from corpus_mcp.cleaning import (
    Rendering,
    has_class,
    parse_html,
    visible_text,
    xml_safe_retry,
    xpath_has_class,
)
from corpus_mcp.document import LIST, Document, Passage, Section

_THREAD_PATH: Final = re.compile(r"questions/\d+/[^/]+")
# What links may name besides threads: sotoki's redirects to a thread or to an answer.
_REDIRECT_PATH: Final = re.compile(r"questions/\d+|a/\d+")
# sotoki 3.1.1 writes links between posts as ``//:None/../../questions/3/slug`` (a port
# bug: a missing port became "None"); without that prefix they are ordinary relative links.
_BROKEN_PORT_PREFIX: Final = "//:None/"
_ANSWER_LINK: Final = re.compile(r"(?:^|/)a/(\d+)/?$")
# Stack Exchange's own addresses of a question (``questions/<id>/<slug>``, the short
# ``q/<id>/<user>``, an answer's long form ``questions/<qid>/<slug>/<aid>``) and of an
# answer (``a/<aid>/<user>``).
_WEB_QUESTION: Final = re.compile(r"(?:questions|q)/(\d+)(?:/([^/]+)(?:/(\d+))?)?/?")
_WEB_ANSWER: Final = re.compile(r"(?:a|answers)/(\d+)(?:/\d+)?/?")
# A user card's stamp: "asked Aug 10 '10 at 15:40", "answered Jan 5, 2021 at 12:00".
_CARD_STAMP: Final = re.compile(
    r"(?P<verb>asked|answered|edited)\s+(?P<month>[A-Z][a-z]{2})\s+(?P<day>\d{1,2})"
    r"(?:,\s*(?P<year>\d{4})|\s+'(?P<yy>\d{2}))\s+at\s+(?P<hour>\d{1,2}):(?P<minute>\d{2})"
)
_MONTHS: Final = {
    name: number
    for number, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
_COMMENTS_TITLE: Final = "Comments"
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
    version = 1
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

    def serves(self, path: str) -> bool:
        """Threads, and the ``questions/<id>`` and ``a/<id>`` redirects to them; user,
        tag and listing pages are not documents, so links to them stay text."""
        return self.is_content(path, "text/html") or bool(_REDIRECT_PATH.fullmatch(path))

    def source_url(self, document: Document, archive_name: str) -> str | None:
        """``https://<site>/questions/<id>/<slug>``: sotoki names an archive after the
        site's domain (``unix.stackexchange.com_en_all``)."""
        domain = archive_name.split("_", 1)[0]
        if "." not in domain or not _THREAD_PATH.fullmatch(document.path):
            return None
        return f"https://{domain}/{document.path}"

    site_samples = False
    """The archive's Name says its site."""

    def web_site(self, facts: SiteFacts) -> Site:
        """``https://<site>/``: sotoki names an archive after the site's domain."""
        domain = facts.name.split("_", 1)[0]
        if "." not in domain:
            return Site(title=facts.title)
        return Site(mounts=(Mount(f"{normal_host(domain)}/"),), title=facts.title)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """A question's address leads to sotoki's ``questions/<id>`` redirect (the slug
        in a link need not be the stored one), else the slug as written (archives before
        the redirects); an answer's to its ``a/<id>`` redirect (which lands on the
        answer); nothing else on the site is a document."""
        answer = _WEB_ANSWER.fullmatch(rest)
        if answer is not None:
            return (f"a/{answer.group(1)}",)
        question = _WEB_QUESTION.fullmatch(rest)
        if question is None:
            return ()
        qid, slug, aid = question.groups()
        if aid:
            return (f"a/{aid}", f"questions/{qid}")
        return (f"questions/{qid}", f"questions/{qid}/{slug}") if slug else (f"questions/{qid}",)

    # sotoki only writes libzim redirects, never HTML stubs: the default stub_landing.

    def section_for_path(self, requested_path: str) -> str | None:
        """``a/<aid>`` redirects to the whole thread and loses the answer: restore it."""
        match = _ANSWER_REDIRECT_PATH.fullmatch(requested_path)
        return f"answer-{match.group(1)}" if match else None

    @xml_safe_retry
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The thread's sections; pages without a ``#question`` post become one section."""
        root = parse_html(html)
        tex = _loads_mathjax(root)
        on_page = {
            str(answer.get("data-answerid"))
            for answer in _elements(root, "//div[@data-answerid]")
            if answer.get("data-answerid")
        }

        def repaired(href: str) -> str:
            """``//:None/`` dropped; a link to an answer of this very thread (``a/<aid>``)
            made a link to its section."""
            href = href.removeprefix(_BROKEN_PORT_PREFIX)
            found = _ANSWER_LINK.search(href.partition("#")[0])
            return f"#{found.group(1)}" if found and found.group(1) in on_page else href

        links = LinkResolver(library, path, serves=self.serves, rewrite=repaired)
        rendering = Rendering(links=links, tex=tex, view=view)
        body = root.find("body")
        rendering.prepare(body if body is not None else root, html)  # the head is read below
        question = _first(root, "//div[@id='question']")
        if question is None:
            return _generic_document(path, title, root, rendering)
        question_title = _text(_first(root, "//div[@id='question-header']//h1")) or title.strip()
        document_title = question_title or title.strip() or path
        posts = _Posts(rendering)
        sections = [posts.question(root, question, document_title)]
        answers = _elements(
            root,
            f"//div[@id='answers']//div[{xpath_has_class('answer')}][starts-with(@id, 'answer-')]",
        )
        sections.extend(posts.answer(answer) for answer in answers)
        metadata: dict[str, str] = {}
        site = _site_title(root, question_title)
        if site:
            metadata["site"] = site
        if tex:
            metadata["tex"] = "true"
        return Document(
            path=path,
            title=document_title,
            kind="thread",
            sections=sections,
            metadata=metadata,
            view=view,
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


class _Posts:
    """Renders the posts of one thread (TeX on math sites, links resolved)."""

    def __init__(self, rendering: Rendering) -> None:
        self.rendering = rendering
        self.links = rendering.links or (lambda _anchor: None)

    def question(self, root: HtmlElement, question: HtmlElement, title: str) -> Section:
        # Only the tag list: comments may render ``[tag:x]`` as post-tag links too.
        tag_links = _elements(
            question, f".//*[{xpath_has_class('post-taglist')}]//a[{xpath_has_class('post-tag')}]"
        )
        tags = [tag for tag in (_text(link) for link in tag_links) if tag]
        metadata: _Metadata = {}
        question_id = _parse_int(question.get("data-questionid"))
        _put(metadata, "question_id", question_id)
        _put(metadata, "score", _post_score(question))
        metadata.update(_author(question))
        # Tags live in the metadata only: a "Tags:" line in the text would read as the
        # best-matching passage for any query naming them.
        if tags:
            metadata["tags"] = tags
        metadata.update(_thread_dates(root))
        for key, value in _post_dates(question, "asked").items():
            metadata.setdefault(key, value)  # the ISO "Asked" stamp is the finer one
        linked = self.linked(root)
        if linked:
            metadata["linked"] = linked
        return self.post(question, "question", title, metadata, [])

    def answer(self, answer: HtmlElement) -> Section:
        answer_id = answer.get("data-answerid") or str(answer.get("id", "")).removeprefix("answer-")
        accepted = (
            has_class(answer, "accepted-answer")
            or answer.get("itemprop") == "acceptedAnswer"
            or _first(answer, f".//*[{xpath_has_class('js-accepted-answer-indicator')}]")
            is not None
        )
        metadata: _Metadata = {}
        _put(metadata, "answer_id", _parse_int(answer_id))
        _put(metadata, "score", _post_score(answer))
        metadata["accepted"] = accepted
        author = _author(answer)
        metadata.update(author)
        metadata.update(_post_dates(answer, "answered"))
        name = author.get("author")
        title = ("Accepted answer" if accepted else "Answer") + (f" by {name}" if name else "")
        # ``#<aid>`` is how sotoki links to an answer inside the thread.
        anchors = [f"answer-{answer_id}", answer_id] if accepted else [answer_id]
        section_id = "accepted-answer" if accepted else f"answer-{answer_id}"
        return self.post(answer, section_id, title, metadata, [a for a in anchors if a])

    def post(
        self,
        post: HtmlElement,
        section_id: str,
        title: str,
        metadata: _Metadata,
        anchors: list[str],
    ) -> Section:
        """A post's section: its body (its own headings below the section's level), and
        its comments as a child section."""
        body = _first(post, f".//div[{xpath_has_class('js-post-body')}]")
        content, passages = (
            self.rendering(body, below_level=2) if body is not None else self.rendering.nothing()
        )
        comments = self.comments(post)
        return Section(
            id=section_id,
            title=title,
            level=2,
            content=content,
            passages=passages,
            metadata=metadata,
            anchors=anchors,
            children=[comments] if comments is not None else [],
        )

    def comments(self, post: HtmlElement) -> Section | None:
        """The post's comments, one list item each: ``- (score) text — Author, date``,
        as a section of their own (``comments-<postid>``, sotoki's id for the block)."""
        lines = []
        said: list[str] = []
        anchors: list[str] = []
        for comment in _elements(post, f".//li[{xpath_has_class('comment')}]"):
            copy = _first(comment, f".//*[{xpath_has_class('comment-copy')}]")
            if copy is None:
                continue
            content, passages = self.rendering(copy)
            text = " ".join((content or " ".join(p.text for p in passages or ())).split())
            if not text:
                continue
            said.append(text)
            score = _parse_int(comment.get("data-comment-score")) or 0
            author = _text(_first(comment, f".//*[{xpath_has_class('comment-user')}]"))
            date = _comment_date(comment)
            byline = ", ".join(part for part in (author, date) if part)
            line = f"- ({score}) {text}" if score else f"- {text}"
            lines.append(f"{line} — {byline}" if byline else line)
            anchors.extend(_comment_anchors(comment))
        if not lines:
            return None
        block = _first(post, ".//div[starts-with(@id, 'comments-')]")
        post_id = post.get("data-answerid") or post.get("data-questionid") or ""
        block_id = str(block.get("id")) if block is not None else f"comments-{post_id}"
        view = self.rendering.view
        return Section(
            id=block_id,
            title=_COMMENTS_TITLE,
            level=3,
            # Read for search, comments are what they say (scores and bylines left out).
            content="" if view else "\n".join(lines),
            passages=(Passage(LIST, "; ".join(said)),) if view else None,
            anchors=anchors,
            role="comments",
        )

    def linked(self, root: HtmlElement) -> list[str]:
        """The "Linked" sidebar's questions, as Markdown links an agent can follow."""
        found = []
        for link in _elements(
            root, f"//div[@id='sidebar']//a[{xpath_has_class('question-hyperlink')}][@href]"
        ):
            target = self.links(link)
            label = _text(link)
            if target and label:
                found.append(f"[{label}]({target})")
        return list(dict.fromkeys(found))


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


def _comment_date(comment: HtmlElement) -> str:
    """The comment's ISO date, kept in the title (``"<date> License: …"``) by sotoki."""
    stamp = _first(comment, f".//*[{xpath_has_class('relativetime-clean')}][@title]")
    if stamp is None:
        return ""
    match = _ISO_DATE.match(str(stamp.get("title", "")).strip())
    return match.group(0) if match else ""


def _comment_anchors(comment: HtmlElement) -> list[str]:
    """A comment's ids: ``comment-<cid>`` and the ``comment<cid>_<postid>`` name sotoki's
    comment permalinks point at."""
    names = [str(comment.get("id", ""))]
    names += (str(node.get("name", "")) for node in _elements(comment, ".//a[@name]"))
    return [name for name in names if name.startswith("comment")]


def _post_dates(post: HtmlElement, posted: str) -> _Metadata:
    """When a post was written and last edited, from its user cards: ``created`` from the
    owner's "asked/answered Aug 10 '10 at 16:03" stamp, ``edited`` from the editor's
    (or the ISO ``title`` of the older "edited <span class=relativetime>" line)."""
    metadata: _Metadata = {}
    for card in _elements(post, f".//div[{xpath_has_class('post-signature')}]"):
        for stamp in _elements(card, f".//*[{xpath_has_class('s-user-card--time')}]"):
            found = _CARD_STAMP.search(str(stamp.get("datetime") or _text(stamp)))
            if found is None:
                continue
            verb = found.group("verb")
            key = "edited" if verb == "edited" else "created" if verb == posted else None
            if key is not None and key not in metadata:
                metadata[key] = _stamp_iso(found)
        for action in _elements(card, f".//*[{xpath_has_class('user-action-time')}]"):
            stamp = _first(action, f".//*[{xpath_has_class('relativetime')}][@title]")
            if stamp is not None and _ISO_DATE.match(str(stamp.get("title"))):
                verb = _text(action).split(" ", 1)[0].lower()
                key = "edited" if verb == "edited" else "created" if verb == posted else None
                if key is not None and key not in metadata:
                    metadata[key] = str(stamp.get("title")).strip()
    return metadata


def _stamp_iso(found: re.Match[str]) -> str:
    """``YYYY-MM-DDTHH:MM`` of a user-card stamp (a two-digit year is 20yy: Stack Exchange
    began in 2008)."""
    year = found.group("year") or f"20{found.group('yy')}"
    month = _MONTHS.get(found.group("month"), 0)
    day, hour, minute = (int(found.group(name)) for name in ("day", "hour", "minute"))
    return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}"


def _generic_document(path: str, title: str, root: HtmlElement, rendering: Rendering) -> Document:
    """A page in no known sotoki layout (1.x bootstrap pages): the body as one section."""
    for junk in _elements(root, "//script | //style | //header | //nav | //footer"):
        if junk.getparent() is not None:
            junk.drop_tree()
    heading = _text(_first(root, "//h1"))
    document_title = title.strip() or heading or _page_title(root) or path
    body = _first(root, "//body")
    content, passages = rendering(body if body is not None else root)
    section = Section(id="", title=document_title, level=1, content=content, passages=passages)
    return Document(
        path=path,
        title=document_title,
        kind="thread",
        sections=[section],
        view=rendering.view,
    )
