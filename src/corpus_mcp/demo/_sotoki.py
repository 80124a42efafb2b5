"""sotoki 3.1.1 page rendering shared by the Stack Exchange demo archives.

The ground truth is what sotoki 3.1.1 wrote into ``../shared/zims/real`` (its README and
a thread page such as ``questions/1/…`` of the unix archive); ``zim-formats.md`` §3
describes 3.0.x and is followed where the two agree. Threads are rendered with
sotoki's ``question.html`` markup, quirks included: answers sorted by score (the
accepted answer keeps its score position), each after its ``<a name="<aid>">``; the
constant ``data-answercount="9"`` with the real count in the text ("1 Answers") and in an
``answerCount`` span; user cards whose ``<time datetime>`` is a phrase ("answered Aug 10
'10 at 16:03"), an editor's card before the owner's (the older "edited <span
class=relativetime>" line when owners edit their own post); comments sorted by id with
their ISO date and licence in a ``title``; the "Linked" sidebar on the linking question.

Links in post bodies and comments are written as the site's HTML has them (``https://
<domain>/questions/<id>``, ``/a/<aid>``, ``/users/<uid>``) and rewritten here as sotoki
3.1.1 rewrites them, port bug included: ``//:None/../../questions/<id>/<slug>``,
``//:None/../../a/<aid>#<aid>``; other links get ``class="external-link"``.

Around the threads: ``questions/<id>`` and ``a/<id>`` redirects (not front, no title),
the paginated "Highest Voted" lists (pages after the first untitled, ``*_page=1``
redirects), tag, user, ``tags``, ``users`` and ``about`` pages, and the assets the 3.1.1
wheel actually ships (two stylesheets, icons, the site logo; no scripts). Nothing is
htdig-excluded, so libzim's HTML indexer sees the whole page, chrome included.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from corpus_mcp.zim.writer import Page, Redirect

LIST_PAGE_SIZE = 15


@dataclass(frozen=True)
class User:
    uid: int
    name: str
    reputation: int
    badges: tuple[int, int, int] = (0, 0, 0)
    """Gold, silver and bronze badge counts, as the user card shows them."""


@dataclass(frozen=True)
class Edit:
    """A post's last edit: who made it and when (ISO, as in the dump)."""

    uid: int
    date: str


@dataclass(frozen=True)
class Comment:
    uid: int
    score: int
    text: str
    """The comment's HTML (the site's links, before sotoki rewrites them)."""
    created: str = ""
    """ISO timestamp; empty: an hour after the previous comment (or the post)."""


@dataclass(frozen=True)
class Answer:
    uid: int
    score: int
    body: str
    accepted: bool = False
    comments: Sequence[Comment] = ()
    created: str = ""
    """ISO timestamp; empty: an hour per position after the question."""
    edit: Edit | None = None


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
    edit: Edit | None = None
    linked: Sequence[int] = ()
    """Questions this one links to (PostLinks type 1): its "Linked" sidebar."""

    @property
    def slug(self) -> str:
        return slugify(self.title)

    @property
    def path(self) -> str:
        return f"questions/{self.qid}/{self.slug}"

    def answer_ids(self) -> list[int]:
        """Stable answer ids in the order the answers were written."""
        return [self.qid + 7 * (i + 1) for i in range(len(self.answers))]

    def answer_created(self, position: int) -> str:
        """When the answer written ``position``-th was posted."""
        answer = self.answers[position]
        return answer.created or _dump_date(_moment(self.created) + timedelta(hours=position + 1))

    def last_activity(self) -> str:
        """The latest of the thread's dates (sotoki's "Active")."""
        dates = [self.created, *(self.answer_created(i) for i in range(len(self.answers)))]
        dates += [edit.date for edit in (self.edit, *(a.edit for a in self.answers)) if edit]
        return max(dates, key=_moment)


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

    @property
    def logo(self) -> str:
        """The site header's logo, stored as sotoki stores images: ``images/<md5 of URL>``."""
        url = f"https://cdn.sstatic.net/Sites/{self.domain.split('.')[0]}/Img/logo.svg"
        return f"images/{hashlib.md5(url.encode(), usedforsecurity=False).hexdigest()}"


def slugify(title: str) -> str:
    """python-slugify's output as sotoki uses it: ``slugify(title)[:78]``.

    python-slugify turns an apostrophe into a separator ("find's" gives ``find-s``, as
    in the real archives), drops what transliterates to nothing (curly quotes) and the
    commas inside numbers.
    """
    text = re.sub(r"'+", "-", title)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"(?<=\d),(?=\d)", "", text)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:78]


def code(source: str, lang: str = "") -> str:
    """SE code block after sotoki's rewrite (``s-code-block`` when highlight.js is on)."""
    cls = f"lang-{lang} s-code-block" if lang else "s-code-block"
    return f'<pre class="{cls}"><code>{html.escape(source)}</code></pre>'


# -- dates and numbers, as sotoki's template filters print them ------------------------


def _moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def _dump_date(moment: datetime) -> str:
    """The dumps' timestamp form: ``2010-08-10T15:40:07.783``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _relative_date(iso: str) -> str:
    """sotoki's ``datetime`` filter: ``Aug 10 '10 at 15:40``."""
    return _moment(iso).strftime("%b %d '%y at %H:%M")


def _short_number(number: int) -> str:
    """sotoki's ``number_short`` filter, its quirks kept: above 10,000 it divides by ten
    thousand and prints two significant digits (40,211 views read "4.0k", 301,234
    "3e+01k")."""
    for step, suffix in ((1_000_000, "M"), (10_000, "k")):
        if number > step:
            return f"{number / step:,.2}{suffix}"
    return f"{number:,}"


#: When each of Stack Exchange's content licences began, latest first.
_LICENCES = (("2018-05-02", "CC BY-SA 4.0"), ("2011-04-08", "CC BY-SA 3.0"), ("", "CC BY-SA 2.5"))


def _content_license(iso: str) -> str:
    """The licence Stack Exchange dumps give a contribution of that date."""
    return next(licence for start, licence in _LICENCES if iso[:10] >= start)


# -- links, as sotoki 3.1.1's Rewriter leaves them --------------------------------------


@dataclass(frozen=True)
class _Context:
    """What rendering one page needs to know about the rest of the site."""

    site: Site
    users: dict[int, User]
    threads: dict[int, Thread]


_ANCHOR_TAG = re.compile(r"<a\b([^>]*)>")
_HREF = re.compile(r'\shref="([^"]*)"')
_SITE_PATH = {
    "question_answer": re.compile(r"(?:q|questions)/(\d+)/[^/]+/(\d+)"),
    "question": re.compile(r"(?:q|questions)/(\d+)(?:/[^/]*)?/?"),
    "answer": re.compile(r"a/(\d+)/?"),
    "user": re.compile(r"users/(\d+)(?:/[^/]*)?/?"),
    "tag": re.compile(r"questions/tagged/[^/]+"),
}
# zimscraperlib's rebuild_uri turns the missing host and port of a relative link into a
# netloc of ":None": every link sotoki rewrites between pages starts so.
_BROKEN_NETLOC = "//:None/"


def rewrite_links(fragment: str, context: _Context, to_root: str) -> str:
    """``fragment`` (a post body or a comment) with its links as sotoki 3.1.1 writes them."""

    def rewritten(tag: re.Match[str]) -> str:
        attributes = tag.group(1)
        href = _HREF.search(attributes)
        if href is None:
            return tag.group(0)
        target = _site_path(href.group(1), context.site.domain)
        if target is None:
            return f"<a{_external(attributes)}>"
        new_href = _internal_href(target, context, to_root)
        return f"<a{attributes[: href.start(1)]}{new_href}{attributes[href.end(1) :]}>"

    return _ANCHOR_TAG.sub(rewritten, fragment)


def _site_path(href: str, domain: str) -> str | None:
    """The site path a link names (``questions/3``, ``a/7#7``), or None for the web."""
    for prefix in (f"https://{domain}", f"http://{domain}", f"//{domain}"):
        if href.startswith(prefix + "/"):
            return href[len(prefix) + 1 :]
    if href.startswith(("/", ".")) and not href.startswith("//"):
        return re.sub(r"^(?:\.\.?/)+|^/", "", href)
    return None


def _external(attributes: str) -> str:
    classes = re.search(r'\sclass="([^"]*)"', attributes)
    if classes is None:
        return ' class="external-link"' + attributes
    joined = f"{classes.group(1)} external-link".strip()
    return f"{attributes[: classes.start(1)]}{joined}{attributes[classes.end(1) :]}"


def _internal_href(target: str, context: _Context, to_root: str) -> str:
    path, _, fragment = target.partition("#")
    matched = {kind: pattern.fullmatch(path) for kind, pattern in _SITE_PATH.items()}
    if found := matched["question_answer"]:
        path, fragment = context.threads[int(found.group(1))].path, found.group(2)
    elif matched["tag"]:
        pass  # a path sotoki serves as it is
    elif found := matched["question"]:
        path = context.threads[int(found.group(1))].path
    elif found := matched["answer"]:
        path, fragment = f"a/{found.group(1)}", found.group(1)
    elif found := matched["user"]:
        user = context.users[int(found.group(1))]
        path = f"users/{user.uid}/{slugify(user.name)}"
    else:
        raise ValueError(f"the demo renders no link to unsupported site path {target!r}")
    return f"{_BROKEN_NETLOC}{to_root}{path}" + (f"#{fragment}" if fragment else "")


# -- page chrome --------------------------------------------------------------------------

_NAVIGATION = (("questions", "Questions"), ("tags", "Tags"), ("users", "Users"),
               ("about", "About"))  # fmt: skip
# (path, the link's attributes, icon class, icon, label); the template puts ``href``
# first on the last two.
_LEFT_NAVIGATION = (
    ("", 'id="nav-home" href="{}"', "iconHome", "home.svg", "Home"),
    ("questions", 'id="nav-questions" href="{}"', "iconQuestion", "question.svg", "Questions"),
    ("tags", 'id="nav-tags" href="{}"', "iconTags", "tag.svg", "Tags"),
    ("users", 'href="{}" id="nav-users"', "iconPeople", "people.svg", "Users"),
    ("about", 'href="{}" id="nav-about"', "iconAnswer", "people.svg", "About"),
)
_MATHJAX_CONFIG = r"""
        <script type="text/x-mathjax-config">
            MathJax.Hub.Config({"HTML-CSS": { preferredFont: "TeX", availableFonts: ["STIX","TeX"], linebreaks: { automatic:true }, EqnChunk: (MathJax.Hub.Browser.isMobile ? 10 : 50) },
                    tex2jax: { inlineMath: [ ["$", "$"], ["\\\\(","\\\\)"] ], displayMath: [ ["$$","$$"], ["\\[", "\\]"] ], processEscapes: true, ignoreClass: "tex2jax_ignore|dno" },
                    TeX: {
                        extensions: ["begingroup.js"],
                        noUndefined: { attributes: { mathcolor: "red", mathbackground: "#FFEEEE", mathsize: "90%" } },
                        Macros: { href: "{}" }
                    },
                    messageStyle: "none",
                    styles: { ".MathJax_Display, .MathJax_Preview, .MathJax_Preview > *": { "background": "inherit" } },
                    SEEditor: "mathjaxEditing"
            });
        </script>
        <script src="{to_root}static/js/MathJax.js?config=TeX-AMS_HTML-full"></script>"""  # noqa: E501


def _head(site: Site, title: str, to_root: str) -> str:
    """``base.html``'s head; the title is not escaped (sotoki renders with autoescape off)."""
    scripts = "".join(
        f'\n        <script type="text/javascript" src="{to_root}static/js/{name}.js"></script>'
        for name in ("jdenticon.min", "webp-hero.polyfill", "webp-hero.bundle", "webp-handler",
                     "identicons")
    )  # fmt: skip
    mathjax = _MATHJAX_CONFIG.replace("{to_root}", to_root) if site.mathjax else ""
    return f"""<!DOCTYPE html>
<html class="html__responsive  html__fixed-top-bar">
    <head>
        <meta charset="utf-8">
        <title>{title} - {site.title}</title>
        <link rel="shortcut icon" href="{to_root}favicon.ico" />
        <link rel="apple-touch-icon" href="{to_root}apple-touch-icon.png" />
        <link rel="image_src" href="{to_root}apple-touch-icon.png" />
        <meta name="viewport" content="width=device-width, height=device-height, initial-scale=1.0, minimum-scale=1.0" />
        <meta name="to_root" content="{to_root}" />
        <link rel="stylesheet" type="text/css" href="{to_root}static/css/stacks.css" />
        <link id="primary_css" rel="stylesheet" type="text/css" href="{to_root}static/css/primary.css" />
        <link id="secondary_css" rel="stylesheet" type="text/css" href="{to_root}static/css/secondary.css" />
        <link rel="stylesheet" type="text/css" href="{to_root}static/css/sotoki.css" />
        <link rel="stylesheet" href="{to_root}static/css/highlight.default.min.css">
        <style type="text/css">
            a.external-link {{ background-image: url('{to_root}static/img/external-link-ltr-icon.svg'); }}
        </style>{scripts}
        <script src="{to_root}static/js/moment.min.js"></script>

        <script src="{to_root}static/js/highlight.min.js"></script>
        <script src="{to_root}static/js/hljs-trigger.js"></script>
{mathjax}
    </head>"""  # noqa: E501


#: Page kind -> (the navigation item it is under, its body class), as sotoki's renderer.
_PAGE_KINDS = {
    "question": ("questions", "question-page"),
    "questions": ("questions", "questions-page"),
    "tag": ("questions", "tagged-questions-page"),
    "tags": ("tags", "tags-page"),
    "user": ("users", "user-page"),
    "users": ("users", "users-page"),
    "about": ("about", "about-page"),
}


def _chrome_top(site: Site, to_root: str, kind: str) -> str:
    """The top bar, the site header sotoki copies from the live homepage, the left
    sidebar; then ``div.container`` and ``div#content`` open."""
    whereis, body_class = _PAGE_KINDS[kind]
    top = "".join(
        f'\n                    <li><a class="s-navigation--item'
        f'{" is-selected" if path == whereis else ""}" href="{to_root}{path}">{label}</a></li>'
        for path, label in _NAVIGATION
    )
    left = "".join(
        f"\n                                    <li{'' if not path else _here(path, whereis)}>"
        f"\n                                        <a {link.format(to_root + path)} "
        'class="pl8 js-gps-track nav-links--link -link__with-icon">'
        f'\n                                            <img aria-hidden="true" '
        f'class="svg-icon {icon}" src="{to_root}static/img/{image}">'
        f'\n                                            <span class="-link--channel-name pl8">'
        f"{label}</span>\n                                        </a>"
        "\n                                    </li>"
        for path, link, icon, image, label in _LEFT_NAVIGATION
    )
    return f"""
    <body class="{body_class} unified-theme">
        <header data-is-here-when="sm" class="s-topbar ps-fixed t0 l0 js-top-bar">
            <div class="s-topbar--container pl8">
                <ol class="s-navigation fw-nowrap" role="presentation">{top}
                </li>
                </ol>
            </div>
        </header>
        <header data-is-here-when="sm" class="kiwix-topbar-fill z-minus-1 s-topbar"></header>
        <header class="site-header">
<div class="site-header--container">
<a class="site-header--link fs-headline1 fw-bold" href="{to_root}">
<img alt="{html.escape(site.title)}" class="h-auto wmx100" src="{to_root}{site.logo}"/>
</a>
</div>
</header>

        <div class="container">
            <div id="left-sidebar" data-is-here-when="md lg" class="left-sidebar js-pinned-left-sidebar ps-relative">
                <div class="left-sidebar--sticky-container js-sticky-leftnav">
                    <nav role="navigation">
                        <ol class="nav-links">
                            <li>
                                <ol class="nav-links">{left}
                                </ol>
                            </li>
                        </ol>
                    </nav>
                </div>
            </div>
            <div id="content" class="">
"""  # noqa: E501


def _here(path: str, whereis: str) -> str:
    return ' class="youarehere"' if path == whereis else ' class=""'


def _scripts(to_root: str) -> str:
    return f"""
            </div>
        </div>
        <script src="{to_root}static/js/stack-icons.js"></script>
        <script src="{to_root}static/js/fromnow.js"></script>

    </body>
</html>"""


# -- a thread -----------------------------------------------------------------------------


def _user_card(user: User, to_root: str, action: str) -> str:
    """``user_card.html``: ``action`` is "asked …", "answered …" or "edited …"."""
    gold, silver, bronze = user.badges
    plural = "" if gold == 1 else "s"  # the template pluralises every kind on the gold count
    awards = "".join(
        f'\n            <li class="s-award-bling s-award-bling__{kind}" '
        f'title="{count} {kind} badge{plural}">{count}</li>'
        if count
        else "\n            "
        for kind, count in (("gold", gold), ("silver", silver), ("bronze", bronze))
    )
    profile = f"{to_root}users/{user.uid}/{slugify(user.name)}"
    return f"""
<div class="s-user-card s-user-card">
    <time class="s-user-card--time" datetime="{action}">{action}</time>
    <a href="{profile}" class="s-avatar s-avatar__32 s-user-card--avatar">
        <img class="s-avatar--image" data-jdenticon-width="32" data-jdenticon-height="32" data-jdenticon-value="{user.name}" />
    </a>
    <div class="s-user-card--info">
        <a href="{profile}" class="s-user-card--link">{user.name}</a>
        <ul class="s-user-card--awards">
            <li class="s-user-card--rep" title="reputation score">{user.reputation:,}</li>{awards}
        </ul>
    </div>
</div>
"""  # noqa: E501


def _editor_card(edit: Edit, owner: int, context: _Context, to_root: str) -> str:
    """The last editor's signature: the older ``user-info`` markup when owners edit their
    own post, a user card otherwise."""
    editor = context.users[edit.uid]
    if edit.uid == owner:
        card = f"""
                    <div class="user-info ">
                        <div class="user-action-time">edited <span title="{edit.date}" class="relativetime">{_relative_date(edit.date)}</span></div>
                        <div class="user-gravatar32"></div>
                        <div class="user-details" itemprop="author" itemscope="" itemtype="http://schema.org/Person">
                            <span class="d-none" itemprop="name">{editor.name}</span>
                            <div class="-flair"></div>
                        </div>
                    </div>
"""  # noqa: E501
    else:
        card = _user_card(editor, to_root, f"edited {_relative_date(edit.date)}")
    indent = "\n                "
    return f'{indent}<div class="post-signature flex--item">{card}{indent}</div>'


@dataclass(frozen=True)
class _Post:
    """What ``post_layout.html`` needs of a question or an answer."""

    post_id: int
    uid: int
    score: int
    body: str
    created: str
    comments: Sequence[Comment]
    edit: Edit | None
    accepted: bool = False
    question: Thread | None = None
    """The thread, when this post is its question (tags, "asked")."""


def _post_layout(post: _Post, thread: Thread, context: _Context) -> str:
    to_root = "../../"
    indicator = (
        '<div class="js-accepted-answer-indicator grid--cell fc-green-500 py6 mtn8">'
        '<div class="ta-center"><svg aria-hidden="true" class="svg-icon iconCheckmarkLg" '
        'width="36" height="36" viewBox="0 0 36 36"><path d="m6 14 8 8L30 6v8L14 30l-8-8v-8z">'
        "</path></svg></div></div>"
        if post.accepted
        else ""
    )
    tags = "".join(
        f'\n                    <a href="{to_root}questions/tagged/{tag}" class="post-tag '
        f'js-gps-track" title="show questions tagged \'{tag}\'" rel="tag">{tag}</a>'
        for tag in (post.question.tags if post.question else ())
    )
    taglist = (
        '\n        <div class="mt24 mb12">\n            <div class="post-taglist grid gs4 gsy '
        f'fd-column">\n                <div class="grid ps-relative">{tags}\n                '
        "</div>\n            </div>\n        </div>"
        if post.question
        else ""
    )
    verb = "asked" if post.question else "answered"
    owner = " owner" if post.uid == thread.uid else ""
    editor = _editor_card(post.edit, post.uid, context, to_root) if post.edit else ""
    signature_box = (
        '<div class="mb0">\n            <div class="mt16 d-flex gs8 gsy fw-wrap jc-end ai-start '
        'pt4 mb16">'
        if post.question
        else '<div class="mt24">\n            <div class="d-flex fw-wrap ai-start jc-end gs8 gsy">'
    )
    owner_card = _user_card(
        context.users[post.uid], to_root, f"{verb} {_relative_date(post.created)}"
    )
    body = rewrite_links(post.body, context, to_root)
    return f"""
                    <div class="post-layout">
    <div class="votecell post-layout--left">
        <div class="js-voting-container d-flex jc-center fd-column ai-center gs4 fc-black-300" data-post-id="{post.post_id}">
            <div class="js-vote-count flex--item d-flex fd-column ai-center fc-theme-body-font fw-bold fs-subheading py4 mx12" itemprop="upvoteCount" data-value="{post.score}">{post.score}</div>
            {indicator}
        </div>
    </div>
    <div class="postcell post-layout--right">
        <div class="s-prose js-post-body" itemprop="text">{body}
</div>{taglist}

        {signature_box}
{editor}
                <div class="post-signature {owner} flex--item">{owner_card}
                </div>
            </div>
        </div>
    </div>
    <div class="post-layout--right js-post-comments-component">
{_comments(post, thread, context)}
    </div>
    </div>
"""  # noqa: E501


def _comments(post: _Post, thread: Thread, context: _Context) -> str:
    """The post's comments, by id; nothing at all when it has none."""
    if not post.comments:
        return ""
    items = []
    created = post.created
    for n, comment in enumerate(post.comments, start=1):
        cid = post.post_id * 10 + n
        created = comment.created or _dump_date(_moment(created) + timedelta(hours=1))
        items.append(_comment(cid, comment, created=created, post=post.post_id, thread=thread,
                              context=context))  # fmt: skip
    return f"""        <div id="comments-{post.post_id}" class="comments js-comments-container bt bc-black-075 mt12 " data-post-id="{post.post_id}" data-min-length="15">
            <ul class="comments-list js-comments-list" data-remaining-comments-count="0" data-canpost="false" data-cansee="true" data-comments-unavailable="false" data-addlink-disabled="true">
{"".join(items)}
            </ul>
        </div>"""  # noqa: E501


def _comment(
    cid: int, comment: Comment, *, created: str, post: int, thread: Thread, context: _Context
) -> str:
    """One ``single_comment.html``: comment ``cid`` on post ``post``, written ``created``."""
    to_root = "../../"
    author = context.users[comment.uid]
    score = (
        f'<span title="number of \'useful comment\' votes received" class="warm">'
        f"{comment.score}</span>"
        if comment.score
        else ""
    )
    owner = "owner" if comment.uid == thread.uid else ""
    anchor = f"comment{cid}_{post}"
    text = rewrite_links(comment.text, context, to_root)
    return f"""
                <li id="comment-{cid}" class="comment js-comment " data-comment-id="{cid}" data-comment-owner-id="{author.uid}" data-comment-score="{comment.score}">
                    <div class="js-comment-actions comment-actions">
                        <div class="comment-score js-comment-edit-hide">
                            {score}
                        </div>
                    </div>

                    <div class="comment-text js-comment-text-and-form">
    <a name="{anchor}"></a>
    <div class="comment-body js-comment-edit-hide">
        <span class="comment-copy">{text}
</span>
        –&nbsp;<a href="{to_root}users/{author.uid}/{slugify(author.name)}" title="{author.reputation:,} reputation" class="comment-user {owner}">{author.name}</a>
                <span class="comment-date" dir="ltr"><a class="comment-link" href="{to_root}{thread.path}#{anchor}"><span title="{created} License: {_content_license(created)}" class="relativetime-clean">{_relative_date(created)}</span></a></span>
    </div>
</div>

                </li>
"""  # noqa: E501


def ordered_answers(thread: Thread) -> list[tuple[int, int, Answer]]:
    """``(answer id, position written, answer)`` by score, highest first; the accepted
    one is not moved (sotoki's order)."""
    triples = [(aid, i, a) for i, (aid, a) in enumerate(zip(thread.answer_ids(), thread.answers,
                                                             strict=True))]  # fmt: skip
    return sorted(triples, key=lambda triple: -triple[2].score)


def _answer(aid: int, position: int, answer: Answer, thread: Thread, context: _Context) -> str:
    accepted = "  accepted-answer" if answer.accepted else " "
    prop = "acceptedAnswer" if answer.accepted else "suggestedAnswer"
    post = _Post(aid, answer.uid, answer.score, answer.body, thread.answer_created(position),
                 answer.comments, answer.edit, accepted=answer.accepted)  # fmt: skip
    return f"""
            <a name="{aid}"></a>
            <div id="answer-{aid}" class="answer{accepted}" data-answerid="{aid}" data-ownerid="{answer.uid}" data-score="{answer.score}" itemprop="{prop}" itemscope="" itemtype="https://schema.org/Answer">
{_post_layout(post, thread, context)}
            </div>
"""  # noqa: E501


def _linked(thread: Thread, context: _Context) -> str:
    """The sidebar: the "Linked" module, only on a question that links to others."""
    if not thread.linked:
        return ""
    items = []
    for qid in thread.linked:
        target = context.threads[qid]
        answered = " answered-accepted" if any(a.accepted for a in target.answers) else " "
        items.append(f"""
<div class="linked">
    <div class="spacer">
    <a title="Vote score (upvotes - downvotes)"><div class="answer-votes {answered} default">{target.score}</div></a>
    <a href="../../{target.path}" class="question-hyperlink">{target.title}</a>
    </div>
</div>
""")  # noqa: E501
    return f"""
    <div id="sidebar" class="show-votes" role="complementary" aria-label="sidebar">

<div class="module sidebar-linked">
<h4 id="h-linked">Linked</h4>
{"".join(items)}
</div>

    </div>
"""


def render_thread(thread: Thread, context: _Context) -> str:
    """One ``questions/<id>/<slug>`` page."""
    to_root = "../../"
    answers = "".join(
        _answer(aid, position, answer, thread, context)
        for aid, position, answer in ordered_answers(thread)
    )
    count = len(thread.answers)
    active = thread.last_activity()
    question = _Post(thread.qid, thread.uid, thread.score, thread.body, thread.created,
                     thread.comments, thread.edit, question=thread)  # fmt: skip
    return f"""{_head(context.site, thread.title, to_root)}{_chrome_top(context.site, to_root, "question")}
    <div id="question-header" class="grid sm:fd-column">
        <h1 itemprop="name" class="fs-headline1 ow-break-word mb8 grid--cell fl1"><a href="{to_root}{thread.path}" class="question-hyperlink">{thread.title}</a></h1>
    </div>
    <div class="grid fw-wrap pb8 mb16 bb bc-black-075">
        <div class="grid--cell ws-nowrap mr16 mb8" title="2016-01-12 19:07:53Z">
            <span class="fc-light mr2">Asked</span>
            <time itemprop="dateCreated" datetime="{thread.created}" class="fromnow">{_relative_date(thread.created)}</time>
        </div>
        <div class="grid--cell ws-nowrap mr16 mb8">
            <span class="fc-light mr2">Active</span>
            <time class="fromnow" title="{active}" datetime="{active}">{_relative_date(active)}</a>
        </div>
        <div class="grid--cell ws-nowrap mb8" title="Viewed {thread.views:,} times">
            <span class="fc-light mr2">Viewed</span> {_short_number(thread.views)} times
        </div>
    </div>

    <div id="mainbar" role="main" aria-label="questions and answers">
        <div id="question" class="question" data-questionid="{thread.qid}" data-ownerid="{thread.uid}" data-score="{thread.score}">
{_post_layout(question, thread, context)}
        </div>

        <div id="answers">
            <a name="tab-top"></a>
            <div id="answers-header">
                <div class="answers-subheader grid ai-center mb8">
                    <div class="grid--cell fl1">
                        <h2 class="mb0" data-answercount="9">{count} Answers<span style="display:none;" itemprop="answerCount">{count}</span></h2>
                    </div>
                </div>
            </div>
{answers}
        </div>
    </div>
{_linked(thread, context)}{_scripts(to_root)}"""  # noqa: E501


# -- listings -----------------------------------------------------------------------------


def _user_link(user: User, to_root: str) -> str:
    return (
        f'<a class="s-user-card--link" href="{to_root}users/{user.uid}/{slugify(user.name)}">'
        f"{html.escape(user.name)}</a>"
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


def _listing(site: Site, title: str, to_root: str, kind: str, body: str) -> str:
    return (
        f"{_head(site, title, to_root)}{_chrome_top(site, to_root, kind)}"
        f'<div id="mainbar"><h1 class="fs-headline1">{html.escape(title)}</h1>{body}</div>'
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
        content = _listing(site, "Highest Voted Questions", "./", "questions", listing)
        # sotoki titles only the first page; libzim shows the others' paths.
        title = "Highest Voted Questions" if number == 1 else ""
        pages.append(Page(path=path, title=title, content=content, front=number == 1))
    redirects = [Redirect(path="questions_page=1", target="questions", front=False)]
    return pages, redirects


def _tag_pages(site: Site) -> tuple[list[Page], list[Redirect]]:
    tags: dict[str, list[Thread]] = {}
    for thread in site.threads:
        for tag in thread.tags:
            tags.setdefault(tag, []).append(thread)
    pages = []
    redirects = []
    for tag, threads in sorted(tags.items()):
        title = f"Highest Voted '{tag}' Questions"
        body = "".join(_summary(t, "../../") for t in _by_score(threads))
        path = f"questions/tagged/{tag}"
        pages.append(Page(path=path, title=title,
                          content=_listing(site, title, "../../", "tag", body)))  # fmt: skip
        redirects.append(Redirect(path=f"{path}_page=1", target=path, front=False))
    cloud = "".join(
        f'<div class="s-card js-tag-cell"><a class="post-tag" href="./questions/tagged/{t}">'
        f'{t}</a><div class="mt-auto">{len(ts)} questions</div></div>'
        for t, ts in sorted(tags.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    pages.append(Page(path="tags", title="Tags",
                      content=_listing(site, "Tags", "./", "tags", cloud)))  # fmt: skip
    redirects.append(Redirect(path="tags_page=1", target="tags", front=False))
    return pages, redirects


def _user_pages(site: Site) -> tuple[list[Page], list[Redirect]]:
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
                          content=_listing(site, title, "../../", "user", body)))  # fmt: skip
    cards = "".join(
        f'<div class="user-info">{_user_link(u, "./")}<span class="reputation-score">'
        f"{u.reputation:,}</span></div>"
        for u in sorted(site.users, key=lambda u: -u.reputation)
    )
    pages.append(Page(path="users", title="Users",
                      content=_listing(site, "Users", "./", "users", cards)))  # fmt: skip
    return pages, [Redirect(path="users_page=1", target="users", front=False)]


def _about(site: Site) -> Page:
    body = (
        f"<p>{html.escape(site.title)} is a question and answer site. {site.about}</p>"
        "<p>This offline copy was made with sotoki from the Stack Exchange data dump; the "
        f"most recent content dates from {site.date}. All user contributions are licensed "
        "under CC BY-SA.</p>"
    )
    return Page(path="about", title="About", content=_listing(site, "About", "./", "about", body))


_WEBP_1PX = bytes.fromhex("524946461a000000574542505650384c0d0000002f0000001007101111888808fe0700")
_PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000005000157ea1b0d0000000049454e44ae426082"
)
# What the 3.1.1 wheel leaves: it ships no ``assets/`` folder, so the pages' scripts,
# icons and stacks/sotoki stylesheets are missing; the site's own two stylesheets, the
# icons and the logo are fetched from the live site.
_ASSETS: tuple[tuple[str, str, str | bytes], ...] = (
    ("static/css/primary.css", "text/css", ".question-page{margin:0}\n"),
    ("static/css/secondary.css", "text/css", ".s-prose{line-height:1.5}\n"),
    ("api/tags.json", "application/json", "[]"),
    ("favicon.ico", "image/vnd.microsoft.icon", b"\x00\x00\x01\x00"),
    ("apple-touch-icon.png", "image/png", _PNG_1PX),
)


def site_entries(site: Site) -> tuple[list[Page], list[Redirect]]:
    """Every entry sotoki writes for ``site``, in sotoki's path and hint conventions."""
    context = _Context(site, {u.uid: u for u in site.users}, {t.qid: t for t in site.threads})
    pages: list[Page] = []
    redirects: list[Redirect] = [Redirect(path="", target="questions", front=False)]
    for thread in site.threads:
        title = "".join(ch for ch in thread.title if ch.isprintable())
        pages.append(Page(path=thread.path, title=title,
                          content=render_thread(thread, context)))  # fmt: skip
        redirects.append(Redirect(path=f"questions/{thread.qid}", target=thread.path, front=False))
        redirects += [
            Redirect(path=f"a/{aid}", target=thread.path, front=False)
            for aid in thread.answer_ids()
        ]
    for entries, more in (_question_lists(site), _tag_pages(site), _user_pages(site)):
        pages += entries
        redirects += more
    pages.append(_about(site))
    pages += [
        Page(path=p, content=c, mimetype=m, front=False, indexed=False) for p, m, c in _ASSETS
    ]
    pages.append(Page(path=site.logo, content=_WEBP_1PX, mimetype="image/webp", front=False,
                      indexed=False))  # fmt: skip
    return pages, redirects


def metadata(site: Site) -> dict[str, str]:
    """sotoki's metadata; Tags come from a Python set, so the order is deliberately odd,
    and zimscraperlib 5.4 adds ``_ftindex:yes``."""
    return {
        "Name": site.name,
        "Title": site.title,
        "Description": site.description,
        "Creator": "Stack Exchange",
        "Publisher": "openZIM",
        "Date": site.date,
        "Language": "eng",
        "Tags": "stack_exchange;_videos:no;_category:stack_exchange;_details:no;_ftindex:yes",
        "License": "CC-BY-SA",
        "Scraper": "sotoki v3.1.1",
    }
