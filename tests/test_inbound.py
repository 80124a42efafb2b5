"""What other archives ask of a page: a result thread that asks the question lends its
title to the pages of other libraries its answer cites, which then stand beside it,
below it, landing on the cited section.

Pure parts first (which links lend, the ceiling, the gate, the evidence), then through a
real server and MCP client over the demo corpus, whose Stack Overflow answer cites the
Python documentation's ``super`` and Wikipedia's C3 linearization (``#Description``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
from mcp import Client

from corpus_mcp import refs
from corpus_mcp.assemble import WebLink
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import open_corpus
from corpus_mcp.document import Document, Section, thread_answer
from corpus_mcp.documents import Documents
from corpus_mcp.federate import Candidate, competitive, linked
from corpus_mcp.gather import Hit, Landed
from corpus_mcp.inbound import (
    ASKED_SHARE,
    MAX_LENT,
    Lent,
    Thread,
    asks,
    below_lenders,
    cite,
    lent,
    placed,
)
from corpus_mcp.library import ArchiveStuck
from corpus_mcp.ranking.evidence import WEIGHT_INBOUND, WEIGHT_TITLE, Evidence, Scored, Word, score
from corpus_mcp.zim import ArchiveUnavailable

from .conftest import settings_for
from .mcp_helpers import serving, structured

LIBRARIES = ("Docs", "Wiki", "SE")


def _post(section_id: str, *urls: str) -> Section:
    content = " ".join(f"See [{url.rsplit('/', 1)[-1]}]({url})." for url in urls)
    return Section(id=section_id, title=section_id, level=2, content=content)


def _thread(path: str, title: str, *posts: Section, library: str = "SE") -> Thread:
    document = Document(path=path, title=title, kind="thread", sections=list(posts))
    links = {
        url: WebLink(refs.encode(*_TARGETS[url]))
        for post in posts
        for url in _TARGETS
        if url in post.content
    }
    return Thread(library, path, document, links)


# Web addresses the corpus holds, and where they lead (the web-address map's work).
_TARGETS: dict[str, tuple[str, str, str | None]] = {
    "https://docs.example/copy": ("Docs", "library/shutil", "shutil.copyfile"),
    "https://docs.example/os": ("Docs", "library/os", None),
    "https://docs.example/path": ("Docs", "library/pathlib", "pathlib.Path.copy"),
    "https://docs.example/io": ("Docs", "library/io", None),
    "https://wiki.example/NTFS": ("Wiki", "NTFS", "Alternate_data_stream"),
    "https://se.example/q/2": ("SE", "questions/2", None),
}


def test_an_answer_lends_its_question_to_the_first_pages_it_cites_elsewhere() -> None:
    thread = _thread(
        "questions/1",
        "How do I copy a file?",
        _post("question", "https://docs.example/io"),  # the asker's reading: no answer
        _post(
            "accepted-answer",
            "https://se.example/q/2",  # a thread of its own library: no other archive
            "https://docs.example/copy",
            "https://nowhere.example/blog",  # no archive holds it
            "https://docs.example/copy",
            "https://wiki.example/NTFS",
            "https://docs.example/os",
            "https://docs.example/path",  # past MAX_LENT
        ),
        _post("answer-7", "https://docs.example/io"),
    )
    assert MAX_LENT == 3
    assert lent([thread], LIBRARIES) == [
        Lent(
            "Docs",
            "library/shutil",
            "shutil.copyfile",
            ("How do I copy a file?",),
            (("SE", "questions/1"),),
        ),
        Lent(
            "Wiki",
            "NTFS",
            "Alternate_data_stream",
            ("How do I copy a file?",),
            (("SE", "questions/1"),),
        ),
        Lent("Docs", "library/os", None, ("How do I copy a file?",), (("SE", "questions/1"),)),
    ]


def test_without_an_accepted_answer_the_first_listed_lends_and_titles_gather() -> None:
    first = _thread(
        "questions/1",
        "How do I copy a file?",
        _post("question"),
        _post("accepted-answer", "https://docs.example/copy"),
    )
    second = _thread(
        "questions/3",
        "Copy a file with its metadata",
        _post("question", "https://docs.example/os"),
        _post("answer-8", "https://docs.example/copy"),
        _post("answer-9", "https://docs.example/path"),
    )
    assert thread_answer(second.document) is second.document.sections[1]
    [shutil] = lent([first, second], LIBRARIES)
    assert shutil.titles == ("How do I copy a file?", "Copy a file with its metadata")
    assert shutil.lenders == (("SE", "questions/1"), ("SE", "questions/3"))


def test_what_is_no_thread_or_has_no_answer_lends_nothing() -> None:
    unanswered = _thread("questions/4", "Why?", _post("question", "https://docs.example/copy"))
    article = Document(
        path="Copying",
        title="Copying",
        kind="article",
        sections=[_post("", "https://docs.example/copy")],
    )
    assert thread_answer(article) is None
    assert lent([unanswered, Thread("Wiki", "Copying", article, unanswered.links)], LIBRARIES) == []


def _candidate(library: str, path: str, total: float, inbound: float = 0.0) -> Candidate:
    return Candidate(
        library=library,
        path=path,
        hit=Hit(path=path, title=path),
        evidence=Evidence(titles=(path,)),
        scored=Scored(total=total, inbound=inbound),
        prior=0.0,
    )


def test_a_lent_page_stands_below_the_thread_that_lends_unless_it_stood_above() -> None:
    thread = _candidate("SE", "questions/1", 3.0)
    lifted = _candidate("Docs", "library/shutil", 3.5, inbound=1.0)
    capped = below_lenders(lifted, [thread], -math.inf)
    assert capped.scored.total < thread.scored.total
    assert capped.scored.total == pytest.approx(thread.scored.total)
    assert capped.scored.inbound == 1.0
    # Already read and ranked above the thread before anything was lent: it stays.
    assert below_lenders(lifted, [thread], 3.2).scored.total == 3.2
    below = _candidate("Docs", "library/os", 2.0, inbound=1.0)
    assert below_lenders(below, [thread], -math.inf) is below


def test_only_a_thread_asking_the_question_lends() -> None:
    asking = msgspec.structs.replace(
        _candidate("SE", "questions/1", 3.0),
        scored=Scored(total=3.0, title=WEIGHT_TITLE * ASKED_SHARE),
    )
    sharing_a_word = msgspec.structs.replace(
        asking, scored=Scored(total=3.0, title=WEIGHT_TITLE * ASKED_SHARE * 0.9)
    )
    assert asks(asking)
    assert not asks(sharing_a_word)


WORDS = [Word("copy", 2.0), Word("file", 1.0), Word("metadata", 3.0)]
QUERY = "copy a file with its metadata"


def test_a_lent_title_counts_as_inbound_evidence_never_as_the_page_s_own_name() -> None:
    own = Evidence(titles=("shutil - High-level file operations",))
    plain = score(QUERY, WORDS, own)
    lent_to = score(QUERY, WORDS, msgspec.structs.replace(own, inbound=(QUERY,)))
    assert plain.inbound == 0
    assert lent_to.inbound == pytest.approx(WEIGHT_INBOUND * 1.0)
    # The question spelled out word for word is the thread's title, not the page's.
    assert (lent_to.exact, lent_to.contained, lent_to.question) == (0, 0, 0)
    assert lent_to.total == pytest.approx(plain.total + lent_to.inbound)
    assert msgspec.structs.replace(own, inbound=(QUERY,)).named_by == (*own.titles, QUERY)


def test_a_page_no_engine_found_enters_with_the_lent_title_and_is_no_filler() -> None:
    hit = Hit(path="library/shutil", title="shutil", section="shutil.copyfile")
    page = linked(QUERY, WORDS, {}, library="Docs", hit=hit, inbound=(QUERY,))
    assert (page.library, page.path, page.hit.section) == (
        "Docs",
        "library/shutil",
        "shutil.copyfile",
    )
    assert page.evidence.titles == ("shutil",)
    assert page.scored.inbound > 0
    thread = msgspec.structs.replace(
        _candidate("SE", "questions/1", 10 * page.scored.total),
        scored=Scored(total=10 * page.scored.total, body=1.0),
    )
    filler = _candidate("Docs", "library/os", page.scored.total)
    assert competitive([thread, page, filler]) == [thread, page]


def test_paths_landing_on_one_page_make_one_candidate_that_knows_every_lender() -> None:
    page = Landed(path="library/shutil", title="shutil", mimetype="text/html")
    by_redirect = Lent("Docs", "shutil.html", None, ("How do I copy a file?",), (("SE", "q/1"),))
    by_anchor = Lent(
        "Docs",
        "library/shutil",
        "shutil.copyfile",
        ("Copy a file with its metadata",),
        (("SE", "q/3"),),
    )
    cited = cite(QUERY, WORDS, {}, [(by_redirect, page), (by_anchor, page)], {})
    [candidate] = cited.candidates
    assert candidate.key == ("Docs", "library/shutil")
    assert candidate.evidence.inbound == ("How do I copy a file?", "Copy a file with its metadata")
    assert candidate.hit.section == "shutil.copyfile"  # where it is cited
    assert cited.lenders == {("Docs", "library/shutil"): (("SE", "q/1"), ("SE", "q/3"))}


def test_a_page_the_engines_found_keeps_its_landing_and_gains_the_lent_title() -> None:
    found = msgspec.structs.replace(
        _candidate("Docs", "library/shutil", 1.0),
        hit=Hit(path="library/shutil", title="shutil", section="shutil.copy2"),
    )
    page = Landed(path="library/shutil", title="shutil", mimetype="text/html")
    target = Lent("Docs", "library/shutil", "shutil.copyfile", (QUERY,), (("SE", "q/1"),))
    [candidate] = cite(QUERY, WORDS, {}, [(target, page)], {found.key: found}).candidates
    assert candidate.hit.section == "shutil.copy2"
    assert candidate.evidence.inbound == (QUERY,)
    assert candidate.scored.inbound > 0


def test_cited_pages_are_placed_below_their_lenders_among_the_rest() -> None:
    thread = _candidate("SE", "q/1", 3.0)
    other = _candidate("Wiki", "Copying", 2.0)
    cited = _candidate("Docs", "library/shutil", 5.0, inbound=2.5)
    ranked = placed([thread, other], [cited], {cited.key: (thread.key,)})
    assert [c.key for c in ranked] == [thread.key, cited.key, other.key]


# -- through a real server ----------------------------------------------------------


async def test_the_pages_a_thread_s_answer_cites_stand_beside_it(
    demo_corpus: Path, nursery: trio.Nursery
) -> None:
    """The demo's Stack Overflow thread on super() asks the question; its accepted answer
    cites the Python documentation's ``super`` (at docs.python.org) and Wikipedia's C3
    linearization at ``#Description``: both come right after the thread, each hinted at
    the section cited. Without the thread's library, neither page is a result of this
    question: what brought them is the answer's citation."""
    question = "How does Python's super() work with multiple inheritance?"
    async with serving(demo_corpus, nursery) as url, Client(url) as client:
        found = structured(await client.call_tool("search", {"query": question}))
    results: list[dict[str, Any]] = found["results"]
    assert [(r["ref"], r["relevant_sections"][0]["id"]) for r in results[:3]] == [
        (
            "corpus://StackOverflow/questions/3277367/how-does-python-s-super-work-with-multiple-inheritance",
            "accepted-answer",
        ),
        ("corpus://Python-Docs/library/functions", "super"),
        ("corpus://Wikipedia/C3_linearization", "Description"),
    ]

    without = demo_corpus.parent / "without-stackoverflow.toml"
    manifest = demo_corpus.read_text("utf-8")
    without.write_text(_disabled(manifest, "StackOverflow"), "utf-8")
    async with serving(without, nursery, root=demo_corpus.parent) as url, Client(url) as client:
        alone = structured(await client.call_tool("search", {"query": question}))
    refs_alone = [r["ref"] for r in alone["results"]]
    assert "corpus://Wikipedia/C3_linearization" not in refs_alone
    assert not any(r.startswith("corpus://StackOverflow/") for r in refs_alone)


SUPER_QUESTION = "How does Python's super() work with multiple inheritance?"
SUPER_THREAD = "corpus://StackOverflow/questions/3277367/how-does-python-s-super-work-with-multiple-inheritance"


@pytest.mark.parametrize(
    ("failing", "expected"),
    [
        # The thread cannot be read whole: it lends nothing.
        ("document", [SUPER_THREAD]),
        # A cited page's library cannot answer: the other cited page still stands.
        ("land", [SUPER_THREAD, "corpus://Python-Docs/library/functions"]),
    ],
)
async def test_a_thread_or_a_cited_page_that_cannot_be_read_costs_nothing_else(
    demo_corpus: Path, monkeypatch: pytest.MonkeyPatch, failing: str, expected: list[str]
) -> None:
    settings = settings_for(demo_corpus)
    async with open_corpus(settings, load_manifest(demo_corpus, demo_corpus.parent)) as corpus:
        original = getattr(Documents, failing)

        async def fail(self: Documents, library: Any, path: str, *args: Any) -> Any:
            if failing == "document" and library.name == "StackOverflow":
                raise ArchiveStuck(library.name)
            if failing == "land" and library.name == "Wikipedia":
                raise ArchiveUnavailable(library.name, "archive file deleted")
            return await original(self, library, path, *args)

        monkeypatch.setattr(Documents, failing, fail)
        found = await corpus.search(SUPER_QUESTION, 5)
    assert [r.ref for r in found.results] == expected
    assert not found.partial


def _disabled(manifest: str, library: str) -> str:
    """The manifest with one library disabled."""
    blocks = manifest.split("[[library]]")
    out = [blocks[0]]
    for block in blocks[1:]:
        if f'name = "{library}"' in block:
            assert "enabled = true" in block
            out.append(block.replace("enabled = true", "enabled = false"))
        else:
            out.append(block)
    return "[[library]]".join(out)
