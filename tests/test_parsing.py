"""Parsing in worker processes (corpus_mcp.parsing), with real workers and real pages.

What the pool promises: the same documents as parsing here; a cancelled parse kills its
worker (so a deadline holds and nothing keeps running); a worker that dies costs one
document, as a ParseFailure, and the next document gets a fresh worker.
"""

from __future__ import annotations

import os
import pickle
import time
from functools import partial
from pathlib import Path

import pytest
import trio

from corpus_mcp import parsing
from corpus_mcp.adapters import get_adapter
from corpus_mcp.demo import ted
from corpus_mcp.document import walk
from corpus_mcp.parsing import ParseFailure, joined, open_parse_pool, parse
from corpus_mcp.zim import ZimReader
from tests import parse_jobs

WIKI = get_adapter("mediawiki")
GIL_QUESTION = "questions/1294382/what-is-the-global-interpreter-lock-gil-in-cpython"
GONE_GUARD = 60.0
"""Hang guard for a killed worker to disappear: a failsafe, never what is measured."""


def _page(archive: Path, path: str) -> tuple[str, bytes]:
    entry, content = ZimReader(archive).read(path)
    return entry.title, content


def _children() -> set[int]:
    """Live child processes of this test process."""
    children: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        children.update(int(pid) for pid in (task / "children").read_text().split())
    return {pid for pid in children if _alive(pid)}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_workers_parse_and_index_exactly_as_this_process(
    demo_archives: dict[str, Path],
) -> None:
    title, content = _page(demo_archives["Python-Docs"], "library/asyncio")
    here = parse(get_adapter("devdocs"), "Library", "library/asyncio", title, content, index=True)
    async with open_parse_pool(2) as pool:
        await pool.warm_up()
        there = await pool.parse(
            get_adapter("devdocs"), "Library", "library/asyncio", title, content, index=True
        )
        fetched = await pool.parse(
            get_adapter("devdocs"), "Library", "library/asyncio", title, content, index=False
        )
    assert there.document == here.document
    assert there.terms == here.terms
    assert there.weight == here.weight > len(content) // 8
    # Search reads the page's view (passages, no Markdown), fetch the whole page.
    assert there.document.view and not fetched.document.view
    assert fetched.terms is None
    assert [s.id for s in walk(fetched.document.sections)] == [
        s.id for s in walk(there.document.sections)
    ]
    assert all(not s.content for s in walk(there.document.sections))
    assert any(s.content for s in walk(fetched.document.sections))
    # The cache joins them: the whole document, ranked on the view's index.
    both = joined(fetched.document, there.terms)
    assert both.terms == here.terms and both.document == fetched.document


async def test_without_workers_documents_parse_in_threads(demo_archives: dict[str, Path]) -> None:
    title, content = _page(demo_archives["Wikipedia"], "Derivative")
    before = _children()
    async with open_parse_pool(0) as pool:
        await pool.warm_up()  # nothing to start
        parsed = await pool.parse(WIKI, "Library", "Derivative", title, content, index=True)
        assert _children() == before
    assert parsed.document.title == title and parsed.terms is not None


async def test_a_cancelled_parse_kills_its_worker_and_the_pool_goes_on(
    demo_archives: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    title, content = _page(demo_archives["Wikipedia"], "Derivative")
    pid_file = tmp_path / "worker.pid"
    async with open_parse_pool(1) as pool:
        with monkeypatch.context() as patched:
            patched.setattr(parsing, "_parse_pickled", parse_jobs.never_return)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    partial(pool.parse, WIKI, "Library", str(pid_file), title, content, index=True)
                )
                # Cancelled once its worker runs it (a worker can take seconds to start
                # when every core is busy): the parse itself never returns.
                pid = await _worker_pid(pid_file)
                nursery.cancel_scope.cancel()
        _wait_until_gone(pid)
        parsed = await pool.parse(WIKI, "Library", "Derivative", title, content, index=True)
    assert parsed.document.title == title


async def test_a_worker_that_dies_costs_one_document_not_the_pool(
    demo_archives: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    title, content = _page(demo_archives["Wikipedia"], "Derivative")
    async with open_parse_pool(1) as pool:
        with monkeypatch.context() as patched:
            patched.setattr(parsing, "_parse_pickled", parse_jobs.die)
            with pytest.raises(ParseFailure, match=r"the worker parsing 'Derivative' died"):
                await pool.parse(WIKI, "Library", "Derivative", title, content, index=True)
        parsed = await pool.parse(WIKI, "Library", "Derivative", title, content, index=False)
    assert parsed.document.title == title


async def test_an_adapter_error_in_a_worker_reaches_the_caller_as_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with open_parse_pool(1) as pool:
        monkeypatch.setattr(parsing, "_parse_pickled", parse_jobs.raise_value_error)
        with pytest.raises(ValueError, match="unparseable"):
            await pool.parse(WIKI, "Library", "X", "X", b"<html>", index=True)


def test_a_worker_is_retired_once_its_memory_grew_past_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parsing._ready() is True
    monkeypatch.setattr(parsing, "WORKER_MAX_RSS", 1 << 40)
    assert parsing._grown() is False
    monkeypatch.setattr(parsing, "WORKER_MAX_RSS", 1)
    assert parsing._grown() is True


def test_a_worker_job_returns_the_parsed_document_pickled(demo_archives: dict[str, Path]) -> None:
    title, content = _page(
        demo_archives["StackOverflow"],
        GIL_QUESTION,
    )
    pickled = parsing._parse_pickled(
        ("stackexchange", "Library"),
        GIL_QUESTION,
        title,
        (content, {}),
        True,
    )
    parsed = pickle.loads(pickled)
    assert parsed == parse(
        get_adapter("stackexchange"),
        "Library",
        GIL_QUESTION,
        title,
        content,
        index=True,
    )


async def _worker_pid(pid_file: Path) -> int:
    """The process id the worker wrote once it began the parse (polled; the guard only
    bounds a hang)."""
    deadline = time.monotonic() + GONE_GUARD
    while not (text := pid_file.read_text() if pid_file.exists() else "").isdigit():
        if time.monotonic() > deadline:
            raise AssertionError(f"no worker began the parse (nothing in {pid_file})")
        await trio.sleep(0.01)
    return int(text)


def _wait_until_gone(pid: int) -> None:
    """Until the killed worker has disappeared (polled; the guard only bounds a hang)."""
    deadline = time.monotonic() + GONE_GUARD
    while _alive(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"worker {pid} still alive after its parse was cancelled")
        time.sleep(0.01)


async def test_a_page_s_companions_reach_its_worker() -> None:
    """A TED talk parsed in a worker process gets its subtitle files' bytes: the
    transcript is in the document the worker sends back."""
    talk = ted.TALKS[0]
    companions = {
        ted.subtitle_path(talk, lang): vtt.encode() for lang, vtt in talk.subtitles.items()
    }
    page = ted.talk_page(talk).encode()
    async with open_parse_pool(1) as pool:
        parsed = await pool.parse(
            get_adapter("ted"),
            "TED",
            talk.slug,
            talk.title,
            page,
            index=False,
            companions=companions,
        )
        alone = await pool.parse(get_adapter("ted"), "TED", talk.slug, talk.title, page, index=True)
    assert [s.id for s in parsed.document.sections] == ["", "transcript", "transcript-fr"]
    assert "turns pink with eggs" in parsed.document.sections[1].content
    assert [s.id for s in alone.document.sections] == [""]
