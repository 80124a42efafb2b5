"""sotoki 3.0.2 page rendering shared by the Stack Exchange demo archives (zim-formats.md §3).

Threads are rendered with sotoki's ``question.html`` shape: question, then answers
sorted by score (the accepted answer keeps its score position), comments sorted by id,
tags on the question only, non-ISO answer dates. Around them: ``questions/<id>`` and
``a/<id>`` redirects (not front, no title), the paginated "Highest Voted" lists, tag,
user, ``tags``, ``users`` and ``about`` pages, and the static assets. Nothing is
htdig-excluded, so libzim's HTML indexer sees the whole page, chrome included.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from corpus_mcp.zim.writer import Page, Redirect

LIST_PAGE_SIZE = 15


@dataclass(frozen=True)
class User:
    uid: int
    name: str
    reputation: int


@dataclass(frozen=True)
class Comment:
    uid: int
    score: int
    text: str


@dataclass(frozen=True)
class Answer:
    uid: int
    score: int
    body: str
    accepted: bool = False
    comments: Sequence[Comment] = ()


@dataclass(frozen=True)
class Thread:
    qid: int
    title: str
    tags: Sequence[str]
    uid: int
    score: int
    created: str
    """ISO timestamp (UTC, no zone) as in the dump."""
    body: str
    answers: Sequence[Answer] = ()
    comments: Sequence[Comment] = ()
    views: int = 1000

    @property
    def slug(self) -> str:
        return slugify(self.title)

    @property
    def path(self) -> str:
        return f"questions/{self.qid}/{self.slug}"

    def answer_ids(self) -> list[int]:
        """Stable answer ids in the order the answers were written."""
        return [self.qid + 7 * (i + 1) for i in range(len(self.answers))]


@dataclass(frozen=True)
class Site:
    domain: str
    title: str
    description: str
    mathjax: bool
    date: str
    name: str
    users: Sequence[User]
    threads: Sequence[Thread]
    about: str = field(default="")


def slugify(title: str) -> str:
    """python-slugify's output as sotoki uses it: ``slugify(title)[:78]``."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    ascii_text = ascii_text.replace("'", "").replace('"', "")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:78]


def code(source: str, lang: str = "") -> str:
    """SE code block after sotoki's rewrite (``s-code-block`` when highlight.js is on)."""
    cls = f"lang-{lang} s-code-block" if lang else "s-code-block"
    return f'<pre class="{cls}"><code>{html.escape(source)}</code></pre>'


def _relative_date(iso: str) -> str:
    moment = datetime.fromisoformat(iso)
    return moment.strftime("%b %d '%y at %H:%M")


def _user_link(user: User, to_root: str) -> str:
    return (
        f'<a class="s-user-card--link" href="{to_root}users/{user.uid}/{slugify(user.name)}">'
        f"{html.escape(user.name)}</a>"
    )


def _user_card(user: User, to_root: str, verb: str, when: str) -> str:
    return (
        '<div class="post-signature owner flex--item"><div class="s-user-card">'
        f'<time class="s-user-card--time" datetime="{verb} {when}">{verb} {when}</time>'
        f'<div class="s-user-card--info">{_user_link(user, to_root)}'
        f'<ul class="s-user-card--awards"><li class="s-user-card--rep">{user.reputation:,}</li>'
        "</ul></div></div></div>"
    )


def _comments(post_id: int, comments: Sequence[Comment], users: dict[int, User],
              created: str) -> str:  # fmt: skip
    items = []
    for n, comment in enumerate(comments, start=1):
        cid = post_id * 10 + n
        author = users[comment.uid]
        items.append(
            f'<li id="comment-{cid}" class="comment js-comment" data-comment-id="{cid}" '
            f'data-comment-owner-id="{author.uid}" data-comment-score="{comment.score}">'
            f'<div class="comment-score"><span class="warm">{comment.score or ""}</span></div>'
            f'<div class="comment-text"><span class="comment-copy">{comment.text}</span> – '
            f'<a class="comment-user">{html.escape(author.name)}</a> '
            f'<span class="comment-date"><span title="{created.replace("T", " ")[:19]}Z, '
            'License: CC BY-SA 4.0" class="relativetime-clean">'
            f"{_relative_date(created)}</span></span></div></li>"
        )
    return (
        '<div class="post-layout--right js-post-comments-component">'
        f'<div id="comments-{post_id}" class="comments js-comments-container">'
        f'<ul class="comments-list js-comments-list">{"".join(items)}</ul></div></div>'
    )


def _vote_cell(score: int, accepted: bool = False) -> str:
    indicator = (
        '<div class="js-accepted-answer-indicator flex--item fc-green-400 py6 mtn8" '
        'title="accepted"><svg aria-hidden="true" class="svg-icon iconCheckmarkLg" '
        'width="36" height="36"></svg></div>'
        if accepted
        else ""
    )
    return (
        '<div class="votecell post-layout--left"><div class="js-voting-container">'
        f'<div class="js-vote-count flex--item d-flex fd-column ai-center fc-theme-body-font '
        f'fw-bold fs-subheading py4" itemprop="upvoteCount" data-value="{score}">{score}</div>'
        f"{indicator}</div></div>"
    )


def _tags(thread: Thread, to_root: str) -> str:
    links = "".join(
        f'<li class="d-inline mr4"><a class="post-tag" href="{to_root}questions/tagged/{t}" '
        f'rel="tag">{t}</a></li>'
        for t in thread.tags
    )
    return (
        '<div class="post-taglist d-flex gs4 gsy fd-column">'
        f'<ul class="ml0 list-ls-none">{links}</ul></div>'
    )


def ordered_answers(thread: Thread) -> list[tuple[int, Answer]]:
    """Answers by score, highest first; the accepted one is not moved (sotoki's order)."""
    pairs = list(zip(thread.answer_ids(), thread.answers, strict=True))
    return sorted(pairs, key=lambda pair: -pair[1].score)


def _answer(aid: int, answer: Answer, thread: Thread, users: dict[int, User]) -> str:
    to_root = "../../"
    accepted = " accepted-answer" if answer.accepted else ""
    prop = "acceptedAnswer" if answer.accepted else "suggestedAnswer"
    return (
        f'<a name="{aid}"></a><div id="answer-{aid}" class="answer js-answer{accepted}" '
        f'data-answerid="{aid}" data-parentid="{thread.qid}" data-score="{answer.score}" '
        f'data-position-on-page="1" itemprop="{prop}" itemscope '
        'itemtype="https://schema.org/Answer"><div class="post-layout">'
        f"{_vote_cell(answer.score, answer.accepted)}"
        f'<div class="answercell post-layout--right"><div class="s-prose js-post-body" '
        f'itemprop="text">{answer.body}</div><div class="mt24"><div class="d-flex fw-wrap">'
        f"{_user_card(users[answer.uid], to_root, 'answered', _relative_date(thread.created))}"
        "</div></div></div>"
        f"{_comments(aid, answer.comments, users, thread.created)}</div></div>"
    )


def _head(site: Site, title: str, to_root: str) -> str:
    mathjax = (
        '<script type="text/x-mathjax-config">MathJax.Hub.Config({"HTML-CSS": '
        '{ preferredFont: "TeX", availableFonts: ["STIX","TeX"], linebreaks: { automatic:true '
        '}, EqnChunk: 15 }, tex2jax: { inlineMath: [ ["$", "$"], ["\\\\(","\\\\)"] ], '
        'displayMath: [ ["$$","$$"], ["\\\\[", "\\\\]"] ], processEscapes: true, '
        'ignoreClass: "tex2jax_ignore|dno" }, menuSettings: { zoom: "Double-Click", '
        'zscale: "300%" } });</script>'
        f'<script src="{to_root}static/js/MathJax.js?config=TeX-AMS_HTML-full"></script>'
        if site.mathjax
        else f'<script src="{to_root}static/js/highlight.min.js"></script>'
    )
    return (
        '<!DOCTYPE html>\n<html class="html__responsive  html__fixed-top-bar"><head>'
        f'<meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="to_root" content="{to_root}">'
        f'<link rel="stylesheet" href="{to_root}static/css/stacks.css">'
        f'<link rel="stylesheet" href="{to_root}static/css/primary.css">'
        f'<link rel="stylesheet" href="{to_root}static/css/sotoki.css">'
        f'<script src="{to_root}static/js/jdenticon.min.js"></script>{mathjax}</head>'
    )


def _chrome_top(site: Site, to_root: str) -> str:
    nav = "".join(
        f'<li><a href="{to_root}{path}" class="s-navigation--item">{label}</a></li>'
        for path, label in (("questions", "Questions"), ("tags", "Tags"), ("users", "Users"),
                            ("about", "About"))
    )  # fmt: skip
    return (
        f'<header class="s-topbar ps-fixed t0 l0 js-top-bar"><div class="s-topbar--container">'
        f'<a class="s-topbar--logo" href="{to_root}questions">{html.escape(site.title)}</a>'
        f'<ol class="s-navigation">{nav}</ol></div></header>'
        '<header class="kiwix-topbar-fill z-minus-1 s-topbar"></header>'
        '<div class="container">'
        '<div id="left-sidebar" class="left-sidebar js-pinned-left-sidebar">'
        f'<nav role="navigation"><ol class="nav-links">{nav}</ol></nav></div>'
    )


def _scripts(to_root: str) -> str:
    return f'<script src="{to_root}static/js/stack-icons.js"></script></body></html>'


def render_thread(site: Site, thread: Thread, users: dict[int, User]) -> str:
    """One ``questions/<id>/<slug>`` page."""
    to_root = "../../"
    asker = users[thread.uid]
    answers = "".join(_answer(aid, a, thread, users) for aid, a in ordered_answers(thread))
    count = len(thread.answers)
    return (
        f"{_head(site, f'{thread.title} - {site.title}', to_root)}"
        '<body class="question-page unified-theme">'
        f"{_chrome_top(site, to_root)}"
        '<div id="content" class="snippet-hidden">'
        '<div id="question-header" class="d-flex sm:fd-column"><h1 itemprop="name" '
        f'class="fs-headline1 ow-break-word mb8 flex--item fl1"><a href="{to_root}{thread.path}" '
        f'class="question-hyperlink">{html.escape(thread.title)}</a></h1></div>'
        '<div class="d-flex fw-wrap pb8 mb16 bb bc-black-075">'
        f'<div class="flex--item ws-nowrap mr16 mb8">Asked <time itemprop="dateCreated" '
        f'datetime="{thread.created}">{_relative_date(thread.created)}</time></div>'
        f'<div class="flex--item ws-nowrap mr16 mb8">Active <time datetime="{thread.created}">'
        f"{_relative_date(thread.created)}</time></div>"
        f'<div class="flex--item ws-nowrap mb8" title="Viewed {thread.views:,} times">'
        f"Viewed {thread.views:,} times</div></div>"
        '<div id="mainbar" role="main" aria-label="question and answers">'
        f'<div id="question" class="question js-question" data-questionid="{thread.qid}" '
        f'data-ownerid="{asker.uid}" data-score="{thread.score}"><div class="post-layout">'
        f"{_vote_cell(thread.score)}"
        '<div class="postcell post-layout--right"><div class="s-prose js-post-body" '
        f'itemprop="text">{thread.body}</div><div class="mt24 mb12">{_tags(thread, to_root)}'
        "</div>"
        f"{_user_card(asker, to_root, 'asked', _relative_date(thread.created))}</div>"
        f"{_comments(thread.qid, thread.comments, users, thread.created)}</div></div>"
        '<div id="answers"><a name="tab-top"></a><div id="answers-header">'
        f'<h2 class="mb0" data-answercount="{count}">{count} Answer{"s" if count != 1 else ""}'
        f"</h2></div>{answers}</div></div></div></div>"
        f"{_scripts(to_root)}"
    )


def _summary(thread: Thread, to_root: str) -> str:
    tags = "".join(
        f'<a class="post-tag" href="{to_root}questions/tagged/{t}">{t}</a>' for t in thread.tags
    )
    return (
        f'<div class="s-post-summary js-post-summary" data-post-id="{thread.qid}">'
        f'<div class="s-post-summary--stats"><span>{thread.score} votes</span> '
        f"<span>{len(thread.answers)} answers</span></div>"
        f'<div class="s-post-summary--content"><h3 class="s-post-summary--content-title">'
        f'<a href="{to_root}{thread.path}" class="s-link">{html.escape(thread.title)}</a></h3>'
        f'<div class="s-post-summary--meta"><div class="tags">{tags}</div></div></div></div>'
    )


def _listing(site: Site, title: str, to_root: str, body: str) -> str:
    return (
        f'{_head(site, f"{title} - {site.title}", to_root)}<body class="unified-theme">'
        f'{_chrome_top(site, to_root)}<div id="content"><div id="mainbar">'
        f'<h1 class="fs-headline1">{html.escape(title)}</h1>{body}</div></div></div>'
        f"{_scripts(to_root)}"
    )


def _by_score(threads: Sequence[Thread]) -> list[Thread]:
    return sorted(threads, key=lambda t: (-t.score, t.qid))


def _question_lists(site: Site) -> tuple[list[Page], list[Redirect]]:
    ranked = _by_score(site.threads)
    chunks = [ranked[i : i + LIST_PAGE_SIZE] for i in range(0, len(ranked), LIST_PAGE_SIZE)]
    paths = ["questions", *(f"questions_page={n}" for n in range(2, len(chunks) + 1))]
    pager = "".join(
        f'<a class="s-pagination--item" href="./{path}">{n}</a>'
        for n, path in enumerate(paths, start=1)
    )
    pages: list[Page] = []
    for number, (path, chunk) in enumerate(zip(paths, chunks, strict=True), start=1):
        body = "".join(_summary(t, "./") for t in chunk)
        listing = f'<div id="questions">{body}</div><div class="s-pagination">{pager}</div>'
        content = _listing(site, "Highest Voted Questions", "./", listing)
        pages.append(Page(path=path, title="Highest Voted Questions", content=content,
                          front=number == 1))  # fmt: skip
    redirects = [Redirect(path="questions_page=1", target="questions", front=False)]
    return pages, redirects


def _tag_pages(site: Site) -> list[Page]:
    tags: dict[str, list[Thread]] = {}
    for thread in site.threads:
        for tag in thread.tags:
            tags.setdefault(tag, []).append(thread)
    pages = []
    for tag, threads in sorted(tags.items()):
        title = f"Highest Voted '{tag}' Questions"
        body = "".join(_summary(t, "../../") for t in _by_score(threads))
        pages.append(Page(path=f"questions/tagged/{tag}", title=title,
                          content=_listing(site, title, "../../", body)))  # fmt: skip
    cloud = "".join(
        f'<div class="s-card js-tag-cell"><a class="post-tag" href="./questions/tagged/{t}">'
        f'{t}</a><div class="mt-auto">{len(ts)} questions</div></div>'
        for t, ts in sorted(tags.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    pages.append(Page(path="tags", title="Tags", content=_listing(site, "Tags", "./", cloud)))
    return pages


def _user_pages(site: Site) -> list[Page]:
    asked_by: dict[int, list[Thread]] = {}
    answered_by: dict[int, list[Thread]] = {}
    for thread in site.threads:
        asked_by.setdefault(thread.uid, []).append(thread)
        for uid in dict.fromkeys(a.uid for a in thread.answers):
            answered_by.setdefault(uid, []).append(thread)
    pages = []
    for user in site.users:
        asked = asked_by.get(user.uid, [])
        answered = answered_by.get(user.uid, [])
        body = (
            f'<div class="fs-title">{user.reputation:,} reputation</div>'
            f"<h2>Questions ({len(asked)})</h2>{''.join(_summary(t, '../../') for t in asked)}"
            f"<h2>Answers ({len(answered)})</h2>"
            f"{''.join(_summary(t, '../../') for t in answered)}"
        )
        title = f"User {user.name}"
        pages.append(Page(path=f"users/{user.uid}/{slugify(user.name)}", title=title,
                          content=_listing(site, title, "../../", body)))  # fmt: skip
    cards = "".join(
        f'<div class="user-info">{_user_link(u, "./")}<span class="reputation-score">'
        f"{u.reputation:,}</span></div>"
        for u in sorted(site.users, key=lambda u: -u.reputation)
    )
    pages.append(Page(path="users", title="Users", content=_listing(site, "Users", "./", cards)))
    return pages


def _about(site: Site) -> Page:
    body = (
        f"<p>{html.escape(site.title)} is a question and answer site. {site.about}</p>"
        "<p>This offline copy was made with sotoki from the Stack Exchange data dump; the "
        f"most recent content dates from {site.date}. All user contributions are licensed "
        "under CC BY-SA.</p>"
    )
    return Page(path="about", title="About", content=_listing(site, "About", "./", body))


_ASSETS: tuple[tuple[str, str, str], ...] = (
    ("static/css/stacks.css", "text/css", ".s-prose{line-height:1.5}\n"),
    ("static/css/primary.css", "text/css", ".question-page{margin:0}\n"),
    ("static/css/sotoki.css", "text/css", ".kiwix-topbar-fill{height:50px}\n"),
    ("static/js/stack-icons.js", "application/javascript", "/* stack icons */\n"),
    ("static/js/jdenticon.min.js", "application/javascript", "/* jdenticon */\n"),
    ("api/tags.json", "application/json", "[]"),
)


def site_entries(site: Site) -> tuple[list[Page], list[Redirect]]:
    """Every entry sotoki writes for ``site``, in sotoki's path and hint conventions."""
    users = {u.uid: u for u in site.users}
    pages: list[Page] = []
    redirects: list[Redirect] = []
    for thread in site.threads:
        title = "".join(ch for ch in thread.title if ch.isprintable())
        pages.append(Page(path=thread.path, title=title,
                          content=render_thread(site, thread, users)))  # fmt: skip
        redirects.append(Redirect(path=f"questions/{thread.qid}", target=thread.path, front=False))
        redirects += [
            Redirect(path=f"a/{aid}", target=thread.path, front=False)
            for aid in thread.answer_ids()
        ]
    list_pages, list_redirects = _question_lists(site)
    pages += [*list_pages, *_tag_pages(site), *_user_pages(site), _about(site)]
    redirects += list_redirects
    pages += [
        Page(path=p, content=c, mimetype=m, front=False, indexed=False) for p, m, c in _ASSETS
    ]
    script = "static/js/MathJax.js" if site.mathjax else "static/js/highlight.min.js"
    pages.append(Page(path=script, content="/* vendored */\n",
                      mimetype="application/javascript", front=False, indexed=False))  # fmt: skip
    pages.append(Page(path="favicon.ico", content=b"\x00\x00\x01\x00", mimetype="image/x-icon",
                      front=False, indexed=False))  # fmt: skip
    return pages, redirects


def metadata(site: Site) -> dict[str, str]:
    """sotoki's metadata; Tags come from a Python set, so the order is deliberately odd."""
    return {
        "Name": site.name,
        "Title": site.title,
        "Description": site.description,
        "Creator": "Stack Exchange",
        "Publisher": "openZIM",
        "Date": site.date,
        "Language": "eng",
        "Tags": "stack_exchange;_videos:no;_category:stack_exchange;_details:no",
        "License": "CC-BY-SA",
        "Scraper": "sotoki v3.0.2",
    }
