"""The stackexchange adapter on hand-written thread pages that follow sotoki's templates (§3.2)."""
# ruff: noqa: E501  (fixture HTML keeps the scrapers' own long lines)

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from corpus_mcp.adapters import Adapter, get_adapter
from corpus_mcp.adapters.stackexchange import StackExchangeAdapter
from corpus_mcp.document import Document, Section, walk
from corpus_mcp.zim.reader import ZimReader

from .golden_docs import RAW_TAG, check_golden, without_code

MATHJAX_HEAD = """
        <script type="text/x-mathjax-config">
                MathJax.Hub.Config({tex2jax: { inlineMath: [ ["$", "$"], ["\\\\(","\\\\)"] ], displayMath: [ ["$$","$$"], ["\\\\[", "\\\\]"] ], processEscapes: true }});
        </script>
        <script src="../../static/js/MathJax.js?config=TeX-AMS_HTML-full"></script>"""

CHROME_TOP = """
        <div class="topbar mobile-only"><div class="network-items"><div class="site-name"><a href="../../">{site}</a></div></div></div>
        <nav class="nav mobile-only"><ul><li class="current"><a href="../../questions">Questions</a></li><li><a href="../../tags">Tags</a></li><li><a href="../../users">Users</a></li><li><a href="../../about">About</a></li></ul></nav>
        <header class="site-header desktop-only"><div class="site-header--container"><a class="site-header--link fs-headline1 fw-bold" href="../../">{site}</a></div></header>
        <div class="container">
            <div id="left-sidebar" class="left-sidebar js-pinned-left-sidebar ps-relative"><nav role="navigation"><ol class="nav-links"><li><a id="nav-questions" href="../../questions"><span class="-link--channel-name">Questions</span></a></li><li><a id="nav-tags" href="../../tags">Tags</a></li><li><a href="../../users" id="nav-users">Users</a></li></ol></nav></div>
            <div id="content" class="">"""

SIDEBAR = """
    <div id="sidebar" class="show-votes" role="complementary" aria-label="sidebar">
        <div class="module sidebar-linked"><h4 id="h-linked">Linked</h4>
        <div class="linked"><div class="spacer"><a href="../../questions/7/other" class="question-hyperlink">LINKEDWORD other question</a></div></div></div>
    </div>"""


def user_card(name: str | None, rep: str, action: str, user_id: int = 7) -> str:
    """sotoki's ``user_card.html``; ``name=None`` renders a deleted user."""
    if name is None:
        return f"""<div class="s-user-card s-user-card__deleted">
    <time class="s-user-card--time" datetime="{action}">{action}</time>
    <div class="s-avatar s-avatar__32 s-user-card--avatar"></div>
    <div class="s-user-card--info">user{user_id}</div></div>"""
    return f"""<div class="s-user-card s-user-card">
    <time class="s-user-card--time" datetime="{action}">{action}</time>
    <a href="../../users/{user_id}/{name.lower()}" class="s-avatar s-avatar__32 s-user-card--avatar">
        <img class="s-avatar--image" src="../../users/profiles/{user_id}.webp" data-jdenticon-value="{name}" onerror="onImageLoadingError(this);" /></a>
    <div class="s-user-card--info">
        <a href="../../users/{user_id}/{name.lower()}" class="s-user-card--link">{name}</a>
        <ul class="s-user-card--awards">
            <li class="s-user-card--rep" title="reputation score">{rep}</li>
            <li class="s-award-bling s-award-bling__gold" title="3 gold badges">3</li>
        </ul>
    </div></div>"""


def comment(comment_id: int, post_id: int, score: int, html: str, *, author: str, date: str) -> str:
    """One ``li.comment`` as ``post_layout.html`` + ``single_comment.html`` write it."""
    score_html = (
        f"""<span title="number of 'useful comment' votes received" class="warm">{score}</span>"""
        if score
        else ""
    )
    return f"""<li id="comment-{comment_id}" class="comment js-comment " data-comment-id="{comment_id}" data-comment-owner-id="9" data-comment-score="{score}">
    <div class="js-comment-actions comment-actions"><div class="comment-score js-comment-edit-hide">{score_html}</div></div>
    <div class="comment-text js-comment-text-and-form">
    <a name="comment{comment_id}_{post_id}"></a>
    <div class="comment-body js-comment-edit-hide">
        <span class="comment-copy">{html}</span>
        &ndash;&nbsp;<a href="../../users/9/{author.lower()}" title="1,000 reputation" class="comment-user">{author}</a>
                <span class="comment-date" dir="ltr"><a class="comment-link" href="#comment{comment_id}_{post_id}"><span title="{date} License: CC BY-SA 3.0" class="relativetime-clean">{date[:10]}</span></a></span>
    </div></div></li>"""


def post_layout(
    post_id: int,
    score: int,
    body: str,
    signatures: Sequence[str],
    *,
    accepted: bool = False,
    question: bool = False,
    tags: Sequence[str] = (),
    comments: Sequence[str] = (),
    vote_buttons: bool = True,
) -> str:
    """``post_layout.html``; v2.x had vote and bookmark buttons, 3.x dropped them."""
    up = '<button class="js-vote-up-btn grid--cell s-btn s-btn__unset c-pointer"><svg aria-hidden="true" class="m0 svg-icon iconArrowUpLg" width="36" height="36" viewBox="0 0 36 36"><path d="M2 26h32L18 10 2 26z"></path></svg></button>'
    tick = '<div class="js-accepted-answer-indicator grid--cell fc-green-500 py6 mtn8"><div class="ta-center"><svg aria-hidden="true" class="svg-icon iconCheckmarkLg" width="36" height="36" viewBox="0 0 36 36"><path d="m6 14 8 8L30 6v8L14 30l-8-8v-8z"></path></svg></div></div>'
    bookmark = '<button class="js-bookmark-btn s-btn s-btn__unset c-pointer py4"><div class="js-bookmark-count mt4" data-value="12">12</div></button>'
    taglist = "".join(
        f"""<a href="../../questions/tagged/{tag}" class="post-tag js-gps-track" title="show questions tagged '{tag}'" rel="tag">{tag}</a>"""
        for tag in tags
    )
    comments_html = (
        f"""<div id="comments-{post_id}" class="comments js-comments-container bt bc-black-075 mt12 " data-post-id="{post_id}" data-min-length="15">
            <ul class="comments-list js-comments-list" data-remaining-comments-count="0">{"".join(comments)}</ul></div>"""
        if comments
        else ""
    )
    return f"""<div class="post-layout">
    <div class="votecell post-layout--left">
        <div class="js-voting-container grid jc-center fd-column ai-stretch gs4 fc-black-200" data-post-id="{post_id}">
            {up if vote_buttons else ""}
            <div class="js-vote-count grid--cell fc-black-500 fs-title grid fd-column ai-center" itemprop="upvoteCount" data-value="{score}">{score}</div>
            {tick if accepted else ""}
            {bookmark if question and vote_buttons else ""}
        </div>
    </div>
    <div class="postcell post-layout-right">
        <div class="s-prose js-post-body" itemprop="text">{body}</div>
        {f'<div class="mt24 mb12"><div class="post-taglist grid gs4 gsy fd-column"><div class="grid ps-relative">{taglist}</div></div></div>' if question else ""}
        <div class="mb0"><div class="mt16 grid gs8 gsy fw-wrap jc-end ai-start pt4 mb16">
            <div class="grid--cell mr16 fl1 w96"></div>
            {"".join(f'<div class="post-signature grid--cell">{signature}</div>' for signature in signatures)}
        </div></div>
    </div>
    <div class="post-layout--right js-post-comments-component">{comments_html}</div>
    </div>"""


def answer(answer_id: int, score: int, inner: str, *, accepted: bool = False) -> str:
    itemprop = "acceptedAnswer" if accepted else "suggestedAnswer"
    return f"""<a name="{answer_id}"></a>
            <div id="answer-{answer_id}" class="answer {" accepted-answer" if accepted else ""}" data-answerid="{answer_id}" data-ownerid="8" data-score="{score}" itemprop="{itemprop}" itemscope="" itemtype="https://schema.org/Answer">{inner}</div>"""


def thread_page(
    *,
    qid: int,
    title: str,
    site: str,
    question: str,
    answers: Sequence[str],
    score: int,
    mathjax: bool = False,
    created: str = "2012-06-27T13:51:36.160",
) -> bytes:
    """``base.html`` + ``question.html`` around the given posts."""
    slug = "-".join(title.lower().replace("?", "").split())
    return f"""<!DOCTYPE html>
<html class="html__responsive  html__fixed-top-bar">
    <head>
        <meta charset="utf-8">
        <title>{title} - {site}</title>
        <link rel="stylesheet" type="text/css" href="../../static/css/stacks.css" />
        <style type="text/css">a.external-link {{ color: blue; }}</style>
        <script type="text/javascript" src="../../static/js/jdenticon.min.js"></script>
        <script src="../../static/js/moment.min.js"></script>{MATHJAX_HEAD if mathjax else ""}
    </head>
    <body class="question-page unified-theme">{CHROME_TOP.format(site=site)}
    <div id="question-header" class="grid sm:fd-column">
        <h1 itemprop="name" class="fs-headline1 ow-break-word mb8 grid--cell fl1"><a href="../../questions/{qid}/{slug}" class="question-hyperlink">{title}</a></h1>
    </div>
    <div class="grid fw-wrap pb8 mb16 bb bc-black-075">
        <div class="grid--cell ws-nowrap mr16 mb8" title="2012-06-27 13:51:36Z">
            <span class="fc-light mr2">Asked</span>
            <time itemprop="dateCreated" datetime="{created}" class="fromnow">Jun 27 '12</time>
        </div>
        <div class="grid--cell ws-nowrap mr16 mb8">
            <span class="fc-light mr2">Active</span>
            <time class="fromnow" title="2024-01-02T03:04:05.000" datetime="2024-01-02T03:04:05.000">Jan 2 '24</a>
        </div>
        <div class="grid--cell ws-nowrap mb8" title="Viewed 1,912,345 times">
            <span class="fc-light mr2">Viewed</span> 1.9m times
        </div>
    </div>
    <div id="mainbar" role="main" aria-label="questions and answers">
        <div id="question" class="question" data-questionid="{qid}" data-ownerid="87234" data-score="{score}">{question}</div>
        <div id="answers">
            <a name="tab-top"></a>
            <div id="answers-header"><div class="answers-subheader grid ai-center mb8"><div class="grid--cell fl1">
                <h2 class="mb0" data-answercount="{len(answers)}">{len(answers)} Answers<span style="display:none;" itemprop="answerCount">{len(answers)}</span></h2>
            </div></div></div>
            {"".join(answers)}
        </div>
    </div>{SIDEBAR}
            </div>
        </div>
        <script src="../../static/js/stack-icons.js"></script>
        <script>document.addEventListener('DOMContentLoaded', function(){{}});</script>
    </body>
</html>""".encode()


SORTED_ARRAY_PATH = "questions/11227809/why-is-processing-a-sorted-array-faster"

# sotoki v2.x (vote buttons): the accepted answer (score 34270) is not first, an answer has
# an editor card before the owner's, a deleted author, comments, code with a language hint.
SORTED_ARRAY = thread_page(
    qid=11227809,
    title="Why is processing a sorted array faster than an unsorted array?",
    site="Stack Overflow",
    score=27195,
    question=post_layout(
        11227809,
        27195,
        """<p>In this C++ code, sorting the data makes the primary loop <strong>~6x faster</strong>:</p>
<pre class="lang-cpp s-code-block"><code class="hljs language-cpp">for (unsigned c = 0; c &lt; arraySize; ++c)
    if (data[c] &gt;= 128)
        sum += data[c];</code></pre>
<p>The price was $5 for 2_000 runs and $10 for *more* runs.</p>""",
        [user_card("GManNickG", "503,211", "asked Jun 27 '12 at 13:51", 87234)],
        question=True,
        tags=("java", "c++", "performance", "branch-prediction"),
        comments=[
            comment(
                14745913,
                11227809,
                372,
                'Is this a <code>[tag:c++]</code> thing? See <a href="../../questions/7/other">this</a>.',
                author="Mysticial",
                date="2012-06-27T13:53:11.000",
            ),
            comment(
                14746000,
                11227809,
                0,
                "Works in Java too.",
                author="Anon",
                date="2012-06-28T09:00:00.000",
            ),
        ],
    ),
    answers=[
        answer(
            11227902,
            34270,
            post_layout(
                11227902,
                34270,
                "<p><strong>You are a victim of branch prediction fail.</strong></p><blockquote><p>Consider a railroad junction.</p></blockquote>",
                [
                    user_card("Peter Cordes", "365,123", "edited May 1 '22 at 10:00", 224132),
                    user_card("Mysticial", "471,321", "answered Jun 27 '12 at 13:56", 922184),
                ],
                accepted=True,
                comments=[
                    comment(
                        14746101,
                        11227902,
                        12,
                        "Great analogy!",
                        author="Reader",
                        date="2012-06-27T14:00:00.000",
                    )
                ],
            ),
            accepted=True,
        ),
        answer(
            11237235,
            4600,
            post_layout(
                11237235,
                4600,
                '<p>Use a branchless version, see <a href="../../a/11227902#11227902">the accepted answer</a>:</p><pre class="lang-cpp s-code-block"><code>sum += ~((data[c] - 128) &gt;&gt; 31) &amp; data[c];</code></pre>',
                [user_card("Daniel Fischer", "12.3k", "answered Jun 27 '12 at 16:00", 1011995)],
            ),
        ),
        answer(
            11303693,
            -2,
            post_layout(
                11303693,
                -2,
                "<p>Just use a faster computer.</p>",
                [user_card(None, "", "answered Jul 3 '12 at 10:00", 555)],
            ),
        ),
    ],
)

MATH_PATH = "questions/1/what-is-the-sum-of-squares"

# sotoki 3.x on a math site (MathJax loaded, no vote buttons), a nopic image, and the
# accepted answer first this time.
MATH_THREAD = thread_page(
    qid=1,
    title="What is the sum of squares?",
    site="Mathematics Stack Exchange",
    score=12,
    mathjax=True,
    created="2010-07-20T19:09:27.200",
    question=post_layout(
        1,
        12,
        r"""<p>Let $x_1^2 + x_2^2$ be given, and \(a*b\) a product with a_i and b_j.</p>
<p>$$\sum_{i=1}^n i^2 = \frac{n(n+1)(2n+1)}{6}$$</p>
<p><img alt="plot of the squares"></p>""",
        [user_card("Euler", "1,707", "asked Jul 20 '10 at 19:09", 3)],
        question=True,
        tags=("sequences-and-series", "summation"),
        comments=[
            comment(
                5, 1, 2, r"Try induction on $n_k$.", author="Gauss", date="2010-07-20T19:12:00.000"
            )
        ],
        vote_buttons=False,
    ),
    answers=[
        answer(
            2,
            30,
            post_layout(
                2,
                30,
                r"<p>By induction: \[ S_{n+1} = S_n + (n+1)^2 \]</p>",
                [user_card("Gauss", "99,999", "answered Jul 20 '10 at 19:15", 4)],
                accepted=True,
                vote_buttons=False,
            ),
            accepted=True,
        ),
    ],
)

LEGACY_PAGE = b"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Legacy question</title>
<link rel="stylesheet" href="../static/bootstrap.css"></head>
<body><header><nav class="navbar"><a href="../index.html">Site</a></nav></header>
<div class="container"><h1>Legacy question</h1><p>Body of a sotoki 1.x page.</p>
<div class="answer"><p>An old answer.</p></div></div>
<script src="../static/jquery.js"></script></body></html>"""


@pytest.fixture(scope="module")
def adapter() -> StackExchangeAdapter:
    return StackExchangeAdapter()


@pytest.fixture(scope="module")
def sorted_thread(adapter: StackExchangeAdapter) -> Document:
    return adapter.parse(
        SORTED_ARRAY_PATH,
        "Why is processing a sorted array faster than an unsorted array?",
        SORTED_ARRAY,
        "Library",
    )


@pytest.fixture(scope="module")
def math_thread(adapter: StackExchangeAdapter) -> Document:
    return adapter.parse(MATH_PATH, "What is the sum of squares?", MATH_THREAD, "Library")


def by_id(document: Document) -> dict[str, Section]:
    return {section.id: section for section in walk(document.sections)}


def test_sorted_array_golden(sorted_thread: Document) -> None:
    check_golden("stackexchange/sorted-array.md", sorted_thread)


def test_math_thread_golden(math_thread: Document) -> None:
    check_golden("stackexchange/sum-of-squares.md", math_thread)


def test_sections_keep_page_order_with_accepted_answer_in_place(sorted_thread: Document) -> None:
    assert [(s.id, s.level) for s in sorted_thread.sections] == [
        ("question", 2),
        ("accepted-answer", 2),
        ("answer-11237235", 2),
        ("answer-11303693", 2),
    ]
    # Only comments nest under a post: a section of their own, one level down.
    assert [[(c.id, c.level, c.role) for c in s.children] for s in sorted_thread.sections] == [
        [("comments-11227809", 3, "comments")],
        [("comments-11227902", 3, "comments")],
        [],
        [],
    ]
    assert [s.title for s in sorted_thread.sections] == [
        "Why is processing a sorted array faster than an unsorted array?",
        "Accepted answer by Mysticial",
        "Answer by Daniel Fischer",
        "Answer by user555",
    ]


def test_document_fields(sorted_thread: Document) -> None:
    assert sorted_thread.title == "Why is processing a sorted array faster than an unsorted array?"
    assert sorted_thread.kind == "thread"
    assert sorted_thread.path == SORTED_ARRAY_PATH
    assert sorted_thread.metadata == {"site": "Stack Overflow"}


def test_question_metadata(sorted_thread: Document) -> None:
    assert sorted_thread.sections[0].metadata == {
        "question_id": 11227809,
        "score": 27195,
        "author": "GManNickG",
        "author_reputation": 503211,
        "tags": ["java", "c++", "performance", "branch-prediction"],
        "created": "2012-06-27T13:51:36.160",
        "active": "2024-01-02T03:04:05.000",
        "views": 1912345,
        "linked": ["[LINKEDWORD other question](corpus://Library/questions/7/other)"],
    }


def test_answer_metadata(sorted_thread: Document) -> None:
    sections = by_id(sorted_thread)
    assert sections["accepted-answer"].metadata == {
        "answer_id": 11227902,
        "score": 34270,
        "accepted": True,
        "author": "Mysticial",
        "author_reputation": 471321,
        "created": "2012-06-27T13:56",
        "edited": "2022-05-01T10:00",
    }
    assert sections["answer-11237235"].metadata == {
        "answer_id": 11237235,
        "score": 4600,
        "accepted": False,
        "author": "Daniel Fischer",
        "author_reputation": 12300,
        "created": "2012-06-27T16:00",
    }
    assert sections["answer-11303693"].metadata == {
        "answer_id": 11303693,
        "score": -2,
        "accepted": False,
        "author": "user555",
        "created": "2012-07-03T10:00",
    }


def test_anchors_alias_answers_and_comments(sorted_thread: Document) -> None:
    sections = by_id(sorted_thread)
    assert sections["accepted-answer"].anchors == ["answer-11227902", "11227902"]
    assert sections["answer-11237235"].anchors == ["11237235"]
    assert sections["question"].anchors == []
    [question_comments] = sections["question"].children
    assert question_comments.anchors == [
        "comment-14745913",
        "comment14745913_11227809",
        "comment-14746000",
        "comment14746000_11227809",
    ]
    [answer_comments] = sections["accepted-answer"].children
    assert answer_comments.anchors == ["comment-14746101", "comment14746101_11227902"]


def test_chrome_is_gone_and_comments_stay_with_their_post(sorted_thread: Document) -> None:
    everything = "\n".join(s.content for s in walk(sorted_thread.sections))
    for chrome in (
        "Questions",
        "LINKEDWORD",
        "Answers",
        "Viewed",
        "asked",
        "answered",
        "GManNickG",
        "503,211",
        "tab-top",
    ):
        assert chrome not in everything, chrome
    assert re.search(r"</?[a-z]+[ />]", everything) is None, "no raw HTML"
    question = sorted_thread.sections[0].content
    assert "Tags:" not in question  # in the metadata, not the text
    assert sorted_thread.sections[0].metadata is not None
    assert sorted_thread.sections[0].metadata["tags"] == [
        "java",
        "c++",
        "performance",
        "branch-prediction",
    ]
    comments = sorted_thread.sections[0].children[0].content
    assert "Comments:" not in everything
    assert (
        "- (372) Is this a `[tag:c++]` thing? See [this](corpus://Library/questions/7/other). "
        "— Mysticial, 2012-06-27" in comments
    )
    assert "- Works in Java too. — Anon, 2012-06-28" in comments
    assert "Great analogy!" not in comments
    answer_comments = sorted_thread.sections[1].children[0].content
    assert "- (12) Great analogy! — Reader, 2012-06-27" in answer_comments
    assert "```cpp\nfor (unsigned c = 0; c < arraySize; ++c)" in question


def test_dollars_on_a_non_math_site_are_escaped_as_prose(sorted_thread: Document) -> None:
    assert (
        "The price was $5 for 2_000 runs and $10 for \\*more\\* runs."
        in sorted_thread.sections[0].content
    )


def test_math_site_keeps_tex_verbatim(math_thread: Document) -> None:
    question = math_thread.sections[0].content
    assert r"$x_1^2 + x_2^2$" in question
    assert r"\(a*b\)" in question
    assert r"$$\sum_{i=1}^n i^2 = \frac{n(n+1)(2n+1)}{6}$$" in question
    comments = math_thread.sections[0].children[0].content
    assert r"- (2) Try induction on $n_k$. — Gauss, 2010-07-20" in comments
    assert r"\[ S_{n+1} = S_n + (n+1)^2 \]" in math_thread.sections[1].content
    assert math_thread.metadata == {"site": "Mathematics Stack Exchange", "tex": "true"}


def test_nopic_image_leaves_its_alt_text(math_thread: Document) -> None:
    assert "plot of the squares" in math_thread.sections[0].content


def test_v3_layout_without_vote_buttons(math_thread: Document) -> None:
    assert [s.id for s in math_thread.sections] == ["question", "accepted-answer"]
    accepted = math_thread.sections[1]
    assert accepted.anchors == ["answer-2", "2"]
    assert accepted.metadata == {
        "answer_id": 2,
        "score": 30,
        "accepted": True,
        "author": "Gauss",
        "author_reputation": 99999,
        "created": "2010-07-20T19:15",
    }


def test_legacy_page_is_one_generic_section(adapter: StackExchangeAdapter) -> None:
    document = adapter.parse("question/42", "", LEGACY_PAGE, "Library")
    assert document.kind == "thread"
    assert document.title == "Legacy question"
    assert [(s.id, s.level) for s in document.sections] == [("", 1)]
    content = document.sections[0].content
    assert "Body of a sotoki 1.x page." in content
    assert "An old answer." in content
    assert "Site" not in content and "<" not in content


def test_garbage_does_not_crash(adapter: StackExchangeAdapter) -> None:
    document = adapter.parse("questions/5/x", "x", b"\xff\xfe not html at all", "Library")
    assert document.title == "x"
    assert len(document.sections) == 1


@pytest.mark.parametrize(
    ("path", "mimetype", "expected"),
    [
        (SORTED_ARRAY_PATH, "text/html", True),
        ("questions/1/what-is-the-sum-of-squares", "text/html; charset=utf-8", True),
        ("question/42", "text/html", True),
        (SORTED_ARRAY_PATH, "text/plain", False),
        ("questions", "text/html", False),
        ("questions/11227809", "text/html", False),
        ("questions/tagged/python", "text/html", False),
        ("questions/tagged/python_page=2", "text/html", False),
        ("questions_page=2", "text/html", False),
        ("tags", "text/html", False),
        ("users/7/mysticial", "text/html", False),
        ("about", "text/html", False),
        ("a/11227902", "text/html", False),
        ("images/0a1b2c", "image/webp", False),
        ("api/tags.json", "application/json", False),
    ],
)
def test_is_content(
    adapter: StackExchangeAdapter, path: str, mimetype: str, expected: bool
) -> None:
    assert adapter.is_content(path, mimetype) is expected


@pytest.mark.parametrize(
    ("requested", "section"),
    [
        ("a/11227902", "answer-11227902"),
        ("questions/11227809", None),
        (SORTED_ARRAY_PATH, None),
        ("a/notanumber", None),
    ],
)
def test_section_for_path(
    adapter: StackExchangeAdapter, requested: str, section: str | None
) -> None:
    assert adapter.section_for_path(requested) == section


def test_navigation_flags(adapter: StackExchangeAdapter) -> None:
    assert adapter.name == "stackexchange"
    assert adapter.main_page_is_navigation is True
    assert adapter.stub_landing("questions", b"<html></html>") is None


def test_registry_gives_this_adapter() -> None:
    adapter: Adapter = get_adapter("stackexchange")
    assert isinstance(adapter, StackExchangeAdapter)


def answer_facts(section: Section) -> tuple[int, int, bool]:
    """``(answer_id, score, accepted)`` from an answer section's metadata."""
    assert section.metadata is not None
    aid, score, accepted = (section.metadata[k] for k in ("answer_id", "score", "accepted"))
    assert isinstance(aid, int) and isinstance(score, int) and isinstance(accepted, bool)
    return aid, score, accepted


@pytest.mark.parametrize("library", ["StackOverflow", "Math-SE"])
def test_every_demo_thread_parses_cleanly(
    adapter: StackExchangeAdapter, demo_archives: dict[str, Path], library: str
) -> None:
    reader = ZimReader(demo_archives[library])
    threads: dict[str, Document] = {}
    answer_redirects: list[str] = []
    for path, title, is_redirect in reader.iter_entries():
        if is_redirect:
            if path.startswith("a/"):
                answer_redirects.append(path)
            continue
        mimetype = reader.resolve(path).mimetype
        if adapter.is_content(path, mimetype):
            threads[path] = adapter.parse(path, title, reader.content(path), "Library")
        elif mimetype.startswith("text/html"):
            listing = adapter.parse(path, title, reader.content(path), "Library")
            assert [s.id for s in listing.sections] == [""], "navigation pages parse generically"
    assert threads and answer_redirects
    for document in threads.values():
        assert document.kind == "thread" and document.title
        assert document.sections[0].id == "question"
        assert [s.level for s in document.sections] == [2] * len(document.sections)
        answers = [answer_facts(s) for s in document.sections[1:]]
        assert [s.id for s in document.sections[1:]] == [
            "accepted-answer" if accepted else f"answer-{aid}" for aid, _, accepted in answers
        ]
        scores = [score for _, score, _ in answers]
        assert scores == sorted(scores, reverse=True), "sotoki's score order is kept"
        text = "\n".join(s.content for s in document.sections)
        assert RAW_TAG.search(without_code(text)) is None, document.path
        assert "Answers" not in text and "Viewed" not in text, document.path
    for path in answer_redirects:
        section = adapter.section_for_path(path)
        landing = threads[reader.resolve(path).path]
        assert section in {i for s in landing.sections for i in [s.id, *s.anchors]}, path
