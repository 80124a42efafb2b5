"""What a fetched document hands an agent, through the real corpus over the demo archives
(so a clone without ../shared tests it too): every link it can follow, API entries as
sections of their own, threads as sotoki 3.1.1 writes them.

The demo archives carry the shapes of real scraper output (tests/test_fixtures.py pins
them); these tests read them the way an agent does, with ``fetch`` only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import lxml.html
import pytest
from lxml.html import HtmlElement

from corpus_mcp import refs
from corpus_mcp.corpus import Corpus
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.errors import CorpusError
from corpus_mcp.wire import FetchedSection, FetchOutput

from .golden_docs import without_code

DEMO_NAMES = [name for name, _, _ in DEMO_LIBRARIES]
# cppreference pages (Cpp-Docs) document with headings, not dt[id] entries.
WITH_ENTRIES = ["Python-Docs", "PostgreSQL-Docs"]
THREADS = [name for name, _, adapter in DEMO_LIBRARIES if adapter == "stackexchange"]
BLOCKING_THREAD = (
    "questions/43241221/how-can-i-run-a-blocking-function-without-freezing-the-asyncio-event-loop"
)
WEB = ("https://", "http://")


def link_targets(markdown: str) -> Iterator[str]:
    """The destination of every Markdown link (balanced parentheses kept: refs such as
    ``corpus://Wikipedia/Python_(programming_language)`` hold them), code left out."""
    text = without_code(markdown)
    start = 0
    while (opening := text.find("](", start)) >= 0:
        end, depth = opening + 2, 1
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        yield text[opening + 2 : end - 1]
        start = end


def link_kind(target: str) -> str:
    if target.startswith("#"):
        return "anchor in the document"
    if target.startswith(refs.SCHEME):
        return "ref with an anchor" if "#" in target else "ref"
    return "web"


def section_links(section: FetchedSection) -> Iterator[str]:
    """The links of a section's content and of its metadata (a question's "Linked")."""
    yield from link_targets(section.content)
    for value in (section.metadata or {}).values():
        if isinstance(value, list):
            for item in value:
                yield from link_targets(item)


async def demo_documents(corpus: Corpus, library: str) -> list[FetchOutput]:
    """Every document of a demo library, fetched whole."""
    served = corpus.library(library)
    reader = served.service.reader
    documents = []
    for path, _title, is_redirect in reader.iter_entries():
        if not is_redirect and served.adapter.is_content(path, reader.resolve(path).mimetype):
            out = await corpus.fetch(refs.encode(library, path), None)
            assert not out.truncated, path
            documents.append(out)
    return documents


async def assert_lands_on_its_anchor(corpus: Corpus, ref: str) -> None:
    """``ref`` (``corpus://...#anchor``) fetches unchanged, on the section holding the
    anchor: the one asking for that anchor by id returns."""
    landed = await corpus.fetch(ref, None)
    base, _, anchor = ref.partition("#")
    by_id = await corpus.fetch(base, [refs.decode(ref, corpus.libraries).fragment or anchor])
    assert landed.sections == by_id.sections, ref


@pytest.mark.parametrize("library", DEMO_NAMES)
async def test_every_link_a_demo_document_hands_out_leads_somewhere(
    corpus: Corpus, library: str
) -> None:
    followed: Counter[str] = Counter()
    for out in await demo_documents(corpus, library):
        for section in out.sections:
            text = section.content + str(section.metadata or "")
            assert ":None" not in text, (out.ref, section.id)  # sotoki's port bug repaired
            for target in section_links(section):
                kind = link_kind(target)
                followed[kind] += 1
                if kind == "ref":
                    assert (await corpus.fetch(target, None)).sections, target
                elif kind == "ref with an anchor":
                    await assert_lands_on_its_anchor(corpus, target)
                elif kind == "anchor in the document":
                    # Resolved against the document's own ref, like any fragment.
                    await assert_lands_on_its_anchor(corpus, out.ref + target)
                else:
                    assert target.startswith(WEB), (out.ref, target)
    assert followed["ref"] + followed["ref with an anchor"], f"{library}: no link to a document"


async def test_the_demo_corpus_holds_every_kind_of_link(corpus: Corpus) -> None:
    kinds: Counter[str] = Counter()
    for library in DEMO_NAMES:
        for out in await demo_documents(corpus, library):
            for section in out.sections:
                kinds.update(link_kind(target) for target in section_links(section))
    assert set(kinds) == {"anchor in the document", "ref with an anchor", "ref", "web"}, kinds


async def test_sotoki_3_1_1_links_become_refs_and_anchors(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode("StackOverflow", BLOCKING_THREAD), ["accepted-answer"])
    answer = out.sections[0]
    links = list(link_targets(answer.content))
    other_answer = next(s.id for s in out.available_sections if s.id.startswith("answer-"))
    gil = "corpus://StackOverflow/questions/1294382/what-is-the-global-interpreter-lock-gil-in-cpython"
    assert links == [
        f"#{other_answer.removeprefix('answer-')}",  # an answer of this very thread
        "corpus://StackOverflow/questions/27435284/"
        "asyncio-vs-threading-in-python-which-should-i-use-for-i-o-bound-work",
        f"{gil}#1294389",  # an answer of another thread (questions/<id>/<slug>/<aid>)
        "https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.loop.run_in_executor",
    ]
    # User and tag pages are not documents: their links are text.
    assert "Ravi Menon keeps a list of async drivers under python-asyncio." in answer.content
    landed = await corpus.fetch(out.ref + links[0], None)
    assert [s.id for s in landed.sections] == [other_answer]
    # sotoki's a/<aid> form, to an answer of another thread: the redirect and the anchor.
    duplicate = await corpus.fetch(
        "corpus://StackOverflow/questions/26853/combine-two-dicts-into-one-new-dict-without-changing-either",
        ["accepted-answer"],
    )
    [to_answer] = link_targets(duplicate.sections[0].content)
    assert to_answer == "corpus://StackOverflow/a/38994#38994"
    original = await corpus.fetch(to_answer, None)
    assert original.title == "How do I merge two dictionaries in a single expression in Python?"
    assert [s.id for s in original.sections] == ["accepted-answer"]


async def test_comments_keep_their_links(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode("StackOverflow", BLOCKING_THREAD), ["accepted-answer"])
    comments = next(s for s in out.sections if s.id.startswith("comments-"))
    assert list(link_targets(comments.content)) == [
        "corpus://StackOverflow/questions/1294382/what-is-the-global-interpreter-lock-gil-in-cpython",
        "https://peps.python.org/pep-3156/",
    ]
    basel = await corpus.fetch(
        "corpus://Math-SE/questions/8337/different-methods-to-compute-sum-limits-k-1-infty-frac-1-k-2",
        ["question"],
    )
    comment = next(s for s in basel.sections if s.id.startswith("comments-"))
    assert "$\\zeta(2)$" in comment.content  # TeX kept verbatim on a math site
    # The comment's link to Wikipedia's article leads to the corpus's copy of it.
    assert list(link_targets(comment.content)) == ["corpus://Wikipedia/Basel_problem"]


async def test_the_linked_sidebar_gives_fetchable_refs(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode("StackOverflow", BLOCKING_THREAD), ["question"])
    assert isinstance(out.sections[0].metadata, dict)
    linked = out.sections[0].metadata["linked"]
    assert isinstance(linked, list) and len(linked) == 2
    for entry in linked:
        [target] = link_targets(entry)
        fetched = await corpus.fetch(target, None)
        assert entry.startswith(f"[{fetched.title}](")


@pytest.mark.parametrize("library", THREADS)
async def test_thread_posts_have_dates_demoted_headings_and_comments_after_them(
    corpus: Corpus, library: str
) -> None:
    for out in await demo_documents(corpus, library):
        for before, section in zip(out.sections, out.sections[1:], strict=False):
            if section.id.startswith("comments-"):
                # The post's comments follow it, one level below.
                assert (section.level, section.title) == (3, "Comments"), out.ref
                assert before.level == 2 and before.metadata, out.ref
                post = before.metadata.get("answer_id", before.metadata.get("question_id"))
                assert section.id == f"comments-{post}", out.ref
        for section in out.sections:
            code_free = without_code(section.content)
            assert not re.search(r"(?m)^#{1,2} ", code_free), (out.ref, section.id)
            if section.id.startswith(("answer-", "accepted-answer")):
                assert isinstance(section.metadata, dict)
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d", str(section.metadata["created"]))


async def test_an_answers_own_headings_sit_below_it(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode("StackOverflow", BLOCKING_THREAD), ["accepted-answer"])
    answer = out.sections[0]
    assert answer.level == 2
    assert "\n### Why the loop freezes\n" in answer.content
    assert "\n#### On Python 3.8 and older\n" in answer.content
    assert isinstance(answer.metadata, dict)
    assert (answer.metadata["created"], answer.metadata["edited"]) == (
        "2017-04-05T19:02",
        "2021-06-14T16:40",
    )
    # An owner's own edit comes with the ISO stamp of the older "edited" line.
    math = await corpus.fetch(
        "corpus://Math-SE/questions/8337/different-methods-to-compute-sum-limits-k-1-infty-frac-1-k-2",
        ["accepted-answer"],
    )
    assert isinstance(math.sections[0].metadata, dict)
    assert math.sections[0].metadata["edited"] == "2011-02-03T12:00:00.000"


# -- DevDocs API entries ------------------------------------------------------------------


def page_entries(html: bytes) -> dict[str, tuple[str, str]]:
    """``dt[id]`` -> (its signature, the start of its description) as the page has them."""

    def text(node: object) -> str:
        return " ".join(node.text_content().split()) if isinstance(node, HtmlElement) else ""

    found: dict[str, tuple[str, str]] = {}
    for term in lxml.html.fromstring(html).iter("dt"):
        if not term.get("id"):
            continue
        description = term.getnext()
        while description is not None and description.tag == "dt":
            description = description.getnext()
        paragraph = description.find("p") if description is not None else None
        found[str(term.get("id"))] = (text(term), text(paragraph)[:50])
    return found


def plain(markdown: str) -> str:
    """Markdown reduced to the words it shows (link targets, marks and escapes gone)."""
    text = markdown
    for target in set(link_targets(markdown)):
        text = text.replace(f"]({target})", "")
    return " ".join(re.sub(r"[\\`*\[\]]", "", text).split())


@pytest.mark.parametrize("library", WITH_ENTRIES)
async def test_every_entry_fetches_alone_by_its_anchor(corpus: Corpus, library: str) -> None:
    served = corpus.library(library)
    checked = 0
    for out in await demo_documents(corpus, library):
        path = refs.decode(out.ref, corpus.libraries).path
        entries = page_entries(served.service.reader.content(path))
        landings: dict[str, FetchedSection] = {}
        for anchor in entries:
            await assert_lands_on_its_anchor(corpus, f"{out.ref}#{anchor}")
            landings[anchor] = (await corpus.fetch(f"{out.ref}#{anchor}", None)).sections[0]
        for anchor, (signature, _description) in entries.items():
            first = landings[anchor]
            if first.id != anchor:
                continue  # an entry that stays in its section (empty dd, named by heading)
            checked += 1
            assert signature.startswith(first.title.removesuffix("…")), (anchor, first.title)
            # No larger than the entry: no other entry's description is in its text
            # (the terms sharing its description land on it too).
            own = plain(first.content)
            for other, (_signature, description) in entries.items():
                if description and landings[other].id != anchor:
                    assert description not in own, (anchor, other)
    assert checked, f"{library}: no entry section"


async def test_entries_are_listed_under_their_heading(corpus: Corpus) -> None:
    cases = [
        ("Python-Docs", "library/stdtypes", "str.join", "str.join(iterable)",
         ["text-sequence-type-str"]),
        ("Python-Docs", "library/threading", "threading.Thread.join", "join(timeout=None)",
         ["threading.Thread", "thread-objects"]),
        ("PostgreSQL-Docs", "runtime-config-resource", "GUC-WORK-MEM", "work_mem (integer)",
         ["RUNTIME-CONFIG-RESOURCE-MEMORY"]),
    ]  # fmt: skip
    for library, path, anchor, title, parents in cases:
        out = await corpus.fetch(refs.encode(library, path, anchor), None)
        assert (out.sections[0].id, out.sections[0].title) == (anchor, title)
        listed = out.available_sections
        at = next(i for i, s in enumerate(listed) if s.id == anchor)
        chain, level = [], listed[at].level
        for above in reversed(listed[:at]):
            if above.level < level:
                chain.append(above.id)
                level = above.level
        assert chain[: len(parents)] == parents, (anchor, chain)


async def test_entries_that_stay_in_their_section(corpus: Corpus) -> None:
    # The signature alone, its prose after the list (Django's style), and an entry its
    # section's heading names: the ref lands on that section.
    for ref, section in [
        (
            "corpus://Python-Docs/library/asyncio-task#asyncio.gather",
            "running-tasks-concurrently",
        ),
        ("corpus://Python-Docs/library/functools#functools.cache", "caching-results"),
    ]:
        out = await corpus.fetch(ref, None)
        assert out.sections[0].id == section
    gather = await corpus.fetch("corpus://Python-Docs/library/asyncio-task#asyncio.gather", None)
    assert gather.sections[0].content.startswith("**`awaitable asyncio.gather(")
    assert "Run awaitable objects in the aws sequence concurrently." in gather.sections[0].content


async def test_shared_descriptions_and_long_signatures(corpus: Corpus) -> None:
    le = await corpus.fetch("corpus://Python-Docs/reference/datamodel#object.__le__", None)
    [comparisons] = le.sections
    assert comparisons.id == "object.__lt__"
    assert all(f"`object.__{op}__(self, other)`" in comparisons.content
               for op in ("lt", "le", "eq", "ne", "gt", "ge"))  # fmt: skip
    run = await corpus.fetch("corpus://Python-Docs/library/subprocess#subprocess.run", None)
    [entry] = run.sections
    assert len(entry.title) <= 100 and entry.title.endswith("…")
    assert "universal_newlines=None, **other_popen_kwargs)`" in entry.content


async def test_a_class_entry_comes_with_its_members(corpus: Corpus) -> None:
    out = await corpus.fetch("corpus://Python-Docs/library/threading#threading.Thread", None)
    assert [(s.id, s.level) for s in out.sections] == [
        ("threading.Thread", 3),
        ("threading.Thread.start", 4),
        ("threading.Thread.run", 4),
        ("threading.Thread.join", 4),
        ("threading.Thread.daemon", 4),
    ]


async def test_no_empty_table_is_rendered(corpus: Corpus) -> None:
    for library in DEMO_NAMES:
        for out in await demo_documents(corpus, library):
            for section in out.sections:
                rows = re.findall(r"(?m)^\|.*\|$", without_code(section.content))
                assert not [r for r in rows if not r.strip("|- ")], (out.ref, section.id)
    functions = await corpus.fetch("corpus://Python-Docs/library/functions", [""])
    assert "|" not in functions.sections[0].content


@pytest.mark.parametrize("library", DEMO_NAMES)
async def test_every_demo_document_says_where_it_comes_from(corpus: Corpus, library: str) -> None:
    served = corpus.library(library)
    listing = served.service.info.main_path if served.adapter.main_page_is_navigation else None
    for out in await demo_documents(corpus, library):
        # A main page may be generated (mwoffliner's list page): it comes from nowhere.
        if refs.decode(out.ref, corpus.libraries).path != listing:
            assert out.source_url and out.source_url.startswith("https://"), out.ref
    expected = {
        "Wikipedia": ("Python_(programming_language)",
                      "https://en.wikipedia.org/wiki/Python_(programming_language)"),
        "PostgreSQL-Docs": ("sql-select", "https://www.postgresql.org/docs/16/sql-select.html"),
        "StackOverflow": (BLOCKING_THREAD, f"https://stackoverflow.com/{BLOCKING_THREAD}"),
    }  # fmt: skip
    if library in expected:
        path, url = expected[library]
        assert (await corpus.fetch(refs.encode(library, path), None)).source_url == url


async def test_an_anchor_no_section_holds_is_refused_by_id(corpus: Corpus) -> None:
    """The check the link walk relies on: asking for a missing anchor by id fails."""
    with pytest.raises(CorpusError) as info:
        await corpus.fetch("corpus://Python-Docs/library/stdtypes", ["no.such.entry"])
    assert info.value.code == "section_not_found"
