"""The archives the real scrapers wrote (../shared/zims/real: sotoki 3.1.1, devdocs2zim
0.2.1), checked against their manifest.json: every thread's sections and metadata,
every DevDocs heading and API entry, every link a fetched document hands out, chrome in
the full-text index, TeX, post headings and source URLs.

Through the corpus the server serves (and one test through a real MCP client over
HTTP). Skips cleanly where ../shared is absent.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from corpus_mcp import refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.wire import FetchedSection, FetchOutput
from tests.conftest import SHARED_ZIMS, settings_for
from tests.mcp_helpers import serving, structured

REAL = SHARED_ZIMS / "real"
LIBRARIES = {
    "Unix-SE": ("unix.stackexchange.com_en_all_2026-12.zim", "stackexchange"),
    "Math-SE": ("math.stackexchange.com_en_all_2026-12.zim", "stackexchange"),
    "Flask": ("devdocs.io_en_flask-2.2_2026-12.zim", "devdocs"),
}
PRESENT = (REAL / "manifest.json").is_file() and all(
    (REAL / file).is_file() for file, _ in LIBRARIES.values()
)
pytestmark = pytest.mark.skipif(not PRESENT, reason=f"real scraper archives not at {REAL}")
LINK = re.compile(r"\]\((corpus://[^)\s]+|#[^)\s]+)\)")


def _archives() -> dict[str, dict[str, Any]]:
    manifest = json.loads((REAL / "manifest.json").read_text("utf-8"))
    by_file = {archive["file"]: archive for archive in manifest["archives"]}
    return {name: by_file[file] for name, (file, _) in LIBRARIES.items()}


ARCHIVES = _archives() if PRESENT else {}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copies of the real archives (600 KB) with a corpus.toml beside them."""
    root = tmp_path_factory.mktemp("real")
    lines = ["version = 1"]
    for name, (file, adapter) in LIBRARIES.items():
        shutil.copyfile(REAL / file, root / file)
        lines += ["[[library]]", f'name = "{name}"', f'path = "{file}"', f'adapter = "{adapter}"']
    path = root / "corpus.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
async def corpus(manifest: Path) -> AsyncIterator[Corpus]:
    # A budget no page reaches: these tests read whole documents.
    settings = settings_for(
        manifest, PARSE_WORKERS="0", MAX_FETCH_CHARS="10000000", FETCH_BUDGET_CHARS="10000000"
    )
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as opened:
        yield opened


def _threads(library: str) -> Iterator[dict[str, Any]]:
    yield from ARCHIVES[library]["threads"]


def _text(output: FetchOutput) -> str:
    return "\n".join(f"{s.title}\n{s.content}" for s in output.sections)


def _owner(output: FetchOutput, anchor: str) -> str | None:
    """The id of the first returned section: where a ref's anchor landed."""
    return output.sections[0].id if output.sections else None


# -- sotoki ------------------------------------------------------------------------------------


@pytest.mark.parametrize("library", ["Unix-SE", "Math-SE"])
async def test_every_thread_has_its_posts_in_page_order_with_their_metadata(
    corpus: Corpus, library: str
) -> None:
    for thread in _threads(library):
        out = await corpus.fetch(refs.encode(library, thread["path"]), None)
        assert out.title == thread["title"]
        posts = [s for s in out.sections if s.level == 2]
        assert len(posts) == len(thread["sections"]), thread["path"]
        for got, want in zip(posts, thread["sections"], strict=True):
            meta = got.metadata or {}
            if want["kind"] == "question":
                assert got.id == "question"
                assert meta["question_id"] == thread["question_id"]
                assert meta["tags"] == thread["tags"]
                assert "created" in meta
            else:
                expected_id = "accepted-answer" if want["accepted"] else want["id"]
                assert got.id == expected_id, thread["path"]
                assert meta["answer_id"] == want["post_id"]
                assert meta["accepted"] is want["accepted"]
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d", str(meta["created"]))
                # The answer's own ids land on it: answer-<aid> and sotoki's #<aid>.
                for anchor in (want["id"], want["anchor"]):
                    landed = await corpus.fetch(out.ref, [anchor])
                    assert landed.sections[0].id == got.id
            assert meta["score"] == want["score"]
        comments = {
            s.id: s.content.count("\n- ") + 1 for s in out.sections if s.id.startswith("comments-")
        }
        for post_id, ids in thread["comments"].items():
            assert comments.get(f"comments-{post_id}", 0) == len(ids), (thread["path"], post_id)
        site = {"Unix-SE": "unix", "Math-SE": "math"}[library]
        assert out.source_url == f"https://{site}.stackexchange.com/{thread['path']}"


async def test_answer_redirects_land_on_their_answer(corpus: Corpus) -> None:
    for thread in _threads("Unix-SE"):
        for section in thread["sections"][1:]:
            out = await corpus.fetch(f"corpus://Unix-SE/a/{section['post_id']}", None)
            assert out.ref == refs.encode("Unix-SE", thread["path"])
            assert (out.sections[0].metadata or {})["answer_id"] == section["post_id"]


async def test_headings_inside_a_post_sit_below_it_and_its_comments_follow(corpus: Corpus) -> None:
    [thread] = [t for t in _threads("Unix-SE") if t["post_headings"]]
    out = await corpus.fetch(refs.encode("Unix-SE", thread["path"]), None)
    for post_id, headings in thread["post_headings"].items():
        [post] = [s for s in out.sections if (s.metadata or {}).get("answer_id") == int(post_id)]
        for heading in headings:
            line = next(line for line in post.content.splitlines() if line.startswith("#"))
            assert line.startswith("### ") and heading.split()[0] in line
        after = out.sections[out.sections.index(post) + 1]
        assert after.id == f"comments-{post_id}" and after.level == 3


async def test_every_link_in_a_thread_is_a_ref_that_fetches(corpus: Corpus) -> None:
    for library in ("Unix-SE", "Math-SE"):
        for thread in _threads(library):
            out = await corpus.fetch(refs.encode(library, thread["path"]), None)
            text = _text(out)
            assert "//:None" not in text and "../../" not in text
            expected = [*thread["post_body_links"], *thread["comment_links"]]
            for link in expected:
                assert f"[{link['text']}]" in text.replace("\\", ""), (thread["path"], link)
            await _follow_links(corpus, out)
            linked = (out.sections[0].metadata or {}).get("linked", [])
            assert isinstance(linked, list)
            assert len(linked) == len(thread["linked_sidebar"])
            for item in linked:
                [target] = LINK.findall(str(item))
                await corpus.fetch(target, None)


async def test_links_to_user_and_tag_pages_stay_text(corpus: Corpus) -> None:
    for thread in _threads("Unix-SE"):
        out = await corpus.fetch(refs.encode("Unix-SE", thread["path"]), None)
        text = _text(out)
        assert "users/" not in text and "questions/tagged" not in text


async def test_tex_survives_in_fetches_and_snippets(corpus: Corpus) -> None:
    delimiters = {"$": "$", "\\(": "\\(", "\\[": "\\[", "$$": "$$"}
    for thread in _threads("Math-SE"):
        out = await corpus.fetch(refs.encode("Math-SE", thread["path"]), None)
        by_post: dict[str, str] = {}
        for section in out.sections:
            meta = section.metadata or {}
            post = meta.get("question_id") if section.id == "question" else meta.get("answer_id")
            if post is not None:
                by_post[str(post)] = section.content
        for post, found in thread["tex"].items():
            if post.startswith("comment-"):
                continue
            for delimiter in found:
                assert delimiters[delimiter] in by_post[post], (thread["path"], post, delimiter)
    found = await corpus.search("Basel problem sum of reciprocal squares", 5)
    [first, *_] = [r for r in found.results if r.library == "Math-SE"]
    assert "$" in first.snippet, first.snippet


async def test_comment_labels_and_bylines_stay_out_of_snippets(corpus: Corpus) -> None:
    for query in ("while read loop lines of a file", "chmod 755 numbers mean", "IFS= is important"):
        for result in (await corpus.search(query, 5)).results:
            assert "Comments:" not in result.snippet
            assert not re.search(r" — [^—]+, \d{4}-\d\d-\d\d", result.snippet), result.snippet


@pytest.mark.parametrize("word", ["Tags", "About", "Users", "Pallets", "viewed times"])
async def test_a_hit_only_in_page_chrome_is_no_result(corpus: Corpus, word: str) -> None:
    for result in (await corpus.search(word, 10)).results:
        out = await corpus.fetch(result.ref, None)
        text = (out.title + "\n" + _text(out)).lower()
        assert any(part.lower().rstrip("s") in text for part in word.split()), result.ref


async def test_a_user_named_only_in_an_edit_card_or_a_byline_finds_nothing_there(
    corpus: Corpus,
) -> None:
    # Gilles edited q1's answer and commented on q10 (user cards, bylines: chrome); he
    # wrote answers elsewhere ("Answer by Gilles ..." is the answer's title).
    found = await corpus.search("Gilles", 10)
    for result in found.results:
        assert any("Gilles" in section.title for section in result.relevant_sections)


# -- devdocs2zim -------------------------------------------------------------------------------


def _pages() -> Iterator[dict[str, Any]]:
    yield from ARCHIVES["Flask"]["pages"]


async def test_every_heading_id_and_entry_anchor_is_fetchable(corpus: Corpus) -> None:
    for page in _pages():
        ref = refs.encode("Flask", page["path"])
        whole = await corpus.fetch(ref, None)
        assert whole.source_url and whole.source_url.startswith(
            "https://flask.palletsprojects.com/"
        )
        wanted = [*page["section_ids"], *page["dt_ids"]]
        wanted += [h["id"] for h in page["headings"] if h["id"]]
        for anchor in wanted:
            out = await corpus.fetch(ref, [anchor])
            assert out.sections, (page["path"], anchor)
            by_fragment = await corpus.fetch(refs.encode("Flask", page["path"], anchor), None)
            assert by_fragment.sections == out.sections


async def test_an_entry_is_a_section_no_larger_than_the_entry(corpus: Corpus) -> None:
    ref = refs.encode("Flask", "api/index")
    whole = await corpus.fetch(ref, None)
    listed = {s.id: s for s in whole.available_sections}
    page = next(p for p in _pages() if p["path"] == "api/index")
    entries = [i for i in page["dt_ids"] if i in listed]
    assert len(entries) > 400
    for anchor in ("flask.Flask.route", "flask.url_for", "flask.Request.args", "flask.session"):
        out = await corpus.fetch(ref, [anchor])
        [entry, *members] = out.sections
        assert entry.id == anchor
        assert all(m.id.startswith(anchor + ".") for m in members), [m.id for m in members]
        size = sum(len(s.content) for s in out.sections)
        assert size < 5_000, (anchor, size)
        assert entry.title and "\n" not in entry.title
    route = await corpus.fetch(ref, ["flask.Flask.route"])
    assert route.sections[0].title == "route(rule, **options)"
    assert route.sections[0].content.startswith("Decorate a view function")
    # The entry is listed under its heading, one level per nesting below it.
    ids = [s.id for s in route.available_sections]
    assert (
        ids.index("application-object") < ids.index("flask.Flask") < ids.index("flask.Flask.route")
    )


async def test_a_config_value_entry_stands_alone(corpus: Corpus) -> None:
    out = await corpus.fetch("corpus://Flask/config/index#SECRET_KEY", None)
    [entry] = out.sections
    assert entry.id == "SECRET_KEY"
    assert "SESSION_COOKIE_NAME" not in entry.content


async def test_every_link_in_a_page_is_a_ref_that_fetches(corpus: Corpus) -> None:
    web = 0
    for page in _pages():
        out = await corpus.fetch(refs.encode("Flask", page["path"]), None)
        text = _text(out)
        assert "](../" not in text and "](index" not in text
        web += text.count("](https://flask.palletsprojects.com/")
        await _follow_links(corpus, out)
    assert web >= 20  # skipped pages (tutorial, contributing) stay web links


async def test_navbar_symbols_land_on_their_entry(corpus: Corpus) -> None:
    found = await corpus.search("Flask.route", 3)
    top = found.results[0]
    assert top.library == "Flask"
    assert top.relevant_sections[0].id == "flask.Flask.route"
    out = await corpus.fetch(top.ref, [s.id for s in top.relevant_sections])
    assert "Decorate a view function" in _text(out)
    assert "add_template_filter" not in "\n".join(s.title for s in out.sections)
    assert "Decorate a view function" in top.snippet


async def test_no_empty_table_is_rendered(corpus: Corpus) -> None:
    for page in _pages():
        out = await corpus.fetch(refs.encode("Flask", page["path"]), None)
        for section in out.sections:
            assert not re.search(r"^\|(\s*\|)+\s*$", _without_code(section.content), re.M)


# -- fetch answers the size of the question (the default budget) ----------------------------


@pytest.fixture
async def budgeted(manifest: Path) -> AsyncIterator[Corpus]:
    """The same archives with the default fetch budget."""
    settings = settings_for(manifest, PARSE_WORKERS="0")
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as opened:
        yield opened


async def test_a_class_fetches_within_the_budget_its_first_methods_the_others_listed(
    budgeted: Corpus, corpus: Corpus
) -> None:
    ref = refs.encode("Flask", "api/index", "flask.Flask")
    whole = await corpus.fetch(ref, None)  # 125 sections, 75 K characters
    out = await budgeted.fetch(ref, None)
    assert sum(len(s.title) + len(s.content) for s in out.sections) <= 8_000
    # The class and its first methods in document order, up to the budget.
    cls, *first = out.sections
    assert out.sections == whole.sections[: len(out.sections)] and first
    assert "The flask object implements a WSGI application" in cls.content
    listed = {s.id: s.chars for s in out.available_sections if s.chars}
    methods = [s.id for s in whole.sections[1:]]
    assert len(methods) > 100 and list(listed) == methods[len(first) :]
    route = await budgeted.fetch(out.ref, ["flask.Flask.route"])
    assert route.sections[0].title == "route(rule, **options)"
    assert (
        len(route.sections[0].title) + len(route.sections[0].content)
        == listed[route.sections[0].id]
    )


async def test_the_api_page_is_titled_by_its_heading(budgeted: Corpus) -> None:
    out = await budgeted.fetch(refs.encode("Flask", "api/index"), None)
    assert out.title == "API"
    found = await budgeted.search("Flask.route", 3)
    assert found.results[0].title == "API"


async def test_every_section_of_the_api_page_is_reachable_within_the_budget(
    budgeted: Corpus, corpus: Corpus
) -> None:
    """From the page's lead, following what each answer lists for size reaches every
    section of the page (514 entries among them), each answer within the budget."""
    ref = refs.encode("Flask", "api/index")
    everything = [s.id for s in (await corpus.fetch(ref, None)).sections]
    seen: list[str] = []
    queue: list[list[str] | None] = [None]
    while queue:
        asked = queue.pop()
        out = await budgeted.fetch(ref, asked)
        assert sum(len(s.title) + len(s.content) for s in out.sections) <= 8_000
        seen += [s.id for s in out.sections]
        queue += [[s.id] for s in out.available_sections if s.chars]
    assert len(everything) > 500
    assert sorted(seen) == sorted(everything)  # each once: nothing returned twice


# -- over MCP ---------------------------------------------------------------------------------


async def test_an_agent_follows_a_link_with_an_anchor_over_mcp(
    manifest: Path, nursery: trio.Nursery
) -> None:
    async with serving(manifest, nursery) as url, Client(url) as client:
        thread = refs.encode(
            "Unix-SE", "questions/1/how-can-i-loop-over-the-lines-of-a-file-in-bash"
        )
        page = structured(await client.call_tool("fetch", {"ref": thread}))
        text = "\n".join(s["content"] for s in page["sections"])
        targets = LINK.findall(text)
        assert "corpus://Unix-SE/a/1031#1031" in targets
        landed = structured(
            await client.call_tool("fetch", {"ref": "corpus://Unix-SE/a/1031#1031"})
        )
        assert landed["sections"][0]["metadata"]["answer_id"] == 1031
        assert landed["source_url"].startswith("https://unix.stackexchange.com/questions/3/")


async def test_an_agent_fetches_a_class_then_a_listed_method_over_mcp(
    manifest: Path, nursery: trio.Nursery
) -> None:
    async with serving(manifest, nursery) as url, Client(url) as client:
        ref = refs.encode("Flask", "api/index", "flask.Flask")
        cls = structured(await client.call_tool("fetch", {"ref": ref}))
        listed = [s for s in cls["available_sections"] if s.get("chars")]
        url_for = next(s for s in listed if s["id"] == "flask.Flask.url_for")
        method = structured(
            await client.call_tool("fetch", {"ref": cls["ref"], "sections": [url_for["id"]]})
        )
    assert cls["title"] == "API" and cls["truncated"] is True
    assert cls["sections"][0]["id"] == "flask.Flask"
    assert sum(len(s["title"]) + len(s["content"]) for s in cls["sections"]) <= 8_000
    assert len(listed) > 100
    [entry] = method["sections"]
    assert entry["id"] == "flask.Flask.url_for"
    assert len(entry["title"]) + len(entry["content"]) == url_for["chars"]


# -- helpers -----------------------------------------------------------------------------------


async def _follow_links(corpus: Corpus, out: FetchOutput) -> None:
    """Every ref and ``#anchor`` the document links to fetches; an anchor lands on the
    section holding it."""
    for section in out.sections:
        for target in LINK.findall(section.content):
            if target.startswith("#"):
                landed = await corpus.fetch(out.ref, [target[1:]])
                assert landed.sections, (out.ref, target)
                continue
            landed = await corpus.fetch(target, None)
            fragment = refs.decode(target, corpus.libraries).fragment
            if fragment:
                holder = await corpus.fetch(landed.ref, [fragment])
                assert landed.sections == holder.sections, (out.ref, target)


def _without_code(markdown: str) -> str:
    return re.sub(r"(?ms)^```.*?^```", "", markdown)


def _ids(sections: list[FetchedSection]) -> list[str]:
    return [s.id for s in sections]
