"""``corpus-mcp search`` and ``corpus-mcp fetch``: the tools without a server.

``--json`` must print exactly the text an MCP client gets from the running server for
the same call (errors too); the readable forms and exit codes are checked through the
real console script.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import mcp_types as types
import trio
from mcp import Client

from .mcp_helpers import serving
from .server_process import corpus_environment
from .test_cli import Run, run

STACK_OVERFLOW_REF = "corpus://StackOverflow/questions/3277367/how-does-python-s-super-work-with-multiple-inheritance"


def settings(manifest: Path) -> dict[str, str]:
    return corpus_environment(manifest)


async def cli(manifest: Path, *args: str) -> Run:
    return await trio.to_thread.run_sync(lambda: run(*args, env=settings(manifest)))


async def test_json_is_the_tool_text_an_mcp_client_gets(
    demo_corpus: Path, nursery: trio.Nursery
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "python method resolution order", "limit": 3}),
        ("search", {"query": "python"}),
        ("fetch", {"ref": STACK_OVERFLOW_REF}),
        ("fetch", {"ref": STACK_OVERFLOW_REF, "sections": ["accepted-answer", "question"]}),
        ("fetch", {"ref": "corpus://nowhere/Page"}),
        ("fetch", {"ref": STACK_OVERFLOW_REF, "sections": ["no-such-section"]}),
        ("search", {"query": "python", "limit": 0}),
    ]
    command_lines = [
        ["search", "python method resolution order", "--limit", "3"],
        ["search", "python"],
        ["fetch", STACK_OVERFLOW_REF],
        ["fetch", STACK_OVERFLOW_REF, "--section", "accepted-answer", "--section", "question"],
        ["fetch", "corpus://nowhere/Page"],
        ["fetch", STACK_OVERFLOW_REF, "--section", "no-such-section"],
        ["search", "python", "--limit", "0"],
    ]
    async with serving(demo_corpus, nursery) as url, Client(url) as client:
        for (tool, arguments), command in zip(calls, command_lines, strict=True):
            over_mcp = await client.call_tool(tool, arguments)
            [text] = over_mcp.content
            assert isinstance(text, types.TextContent)
            printed = await cli(demo_corpus, *command, "--json")
            assert printed.stdout == text.text + "\n", command
            assert printed.code == (1 if over_mcp.is_error else 0), printed.stderr
            if over_mcp.is_error:
                payload = json.loads(printed.stdout)
                assert f"corpus-mcp {tool}: {payload['error']}: " in printed.stderr


def test_search_prints_a_table_then_refs_snippets_and_sections(demo_corpus: Path) -> None:
    result = run("search", "python super multiple inheritance", env=settings(demo_corpus))
    assert result.code == 0, result.stderr
    assert result.stderr == ""  # no logs unless -v
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["#", "title", "library", "kind", "snapshot"]
    assert lines[2].startswith("1  How does Python's super() work with multiple inheritance?")
    assert f"[1] {STACK_OVERFLOW_REF}" in lines
    assert any(
        line.startswith("    sections: accepted-answer (Accepted answer by Ada Lindqvist)")
        for line in lines
    )


def test_search_without_results_exits_0(demo_corpus: Path) -> None:
    result = run("search", "qwxzvjk", env=settings(demo_corpus))
    assert (result.code, result.stdout) == (
        0,
        "no results for 'qwxzvjk'; try fewer or different words\n",
    ), result.stderr  # failed once in a whole run (exit 1, nothing on stdout): say why


def test_fetch_prints_markdown_with_section_ids(demo_corpus: Path) -> None:
    whole = run("fetch", STACK_OVERFLOW_REF, env=settings(demo_corpus))
    assert whole.code == 0, whole.stderr
    assert whole.stdout.startswith(
        "# How does Python's super() work with multiple inheritance?\n\n"
        f"{STACK_OVERFLOW_REF} · StackOverflow · thread · snapshot 2026-05\n"
        "source: https://stackoverflow.com/questions/"
    )
    assert "\n## Accepted answer by Ada Lindqvist {#accepted-answer}\n" in whole.stdout
    assert "*answer_id: 3277381 · score: 389 · accepted: yes" in whole.stdout
    assert "other sections" not in whole.stdout

    one = run("fetch", STACK_OVERFLOW_REF, "--section", "question", env=settings(demo_corpus))
    assert one.code == 0, one.stderr
    assert "{#accepted-answer}" not in one.stdout
    assert "other sections (--section ID):\n- answer-" in one.stdout
    assert "- accepted-answer (Accepted answer by Ada Lindqvist)" in one.stdout


def test_the_lead_is_named_as_one_asks_for_it(demo_corpus: Path) -> None:
    """The lead section's id is empty: its heading carries no ``{#}``, and the lists of
    sections name it ``""``, which ``--section ""`` fetches."""
    env = settings(demo_corpus)
    ref = "corpus://Python-Docs/tutorial/classes"
    whole = run("fetch", ref, "--section", "multiple-inheritance", env=env)
    assert whole.code == 0, whole.stderr
    assert '\n- "" (Classes)\n' in whole.stdout
    lead = run("fetch", ref, "--section", "", env=env)
    assert lead.code == 0, lead.stderr
    assert "\n## Classes\n" in lead.stdout and "{#}" not in lead.stdout
    found = run("search", "abc abstract base classes", "--limit", "1", env=env)
    assert found.code == 0, found.stderr
    assert '"" (abc' in found.stdout


def test_fetch_lists_what_it_left_out_for_size(demo_corpus: Path) -> None:
    env = {**settings(demo_corpus), "FETCH_BUDGET_CHARS": "600"}
    ref = "corpus://Python-Docs/library/threading#threading.Thread"
    folded = run("fetch", ref, env=env)
    assert folded.code == 0, folded.stderr
    assert "other sections (--section ID):" in folded.stdout
    assert "cut to the largest answer" not in folded.stdout
    assert re.search(
        r"^- +threading\.Thread\.join \(join\(timeout=None\)\) 179 chars, left out for size$",
        folded.stdout,
        re.MULTILINE,
    ), folded.stdout
    # The class's own text larger than the answer (MAX_FETCH_CHARS, the older cap, bounds
    # the budget): cut, its rest listed as a continuation to fetch next.
    cut = run("fetch", ref, env={**env, "MAX_FETCH_CHARS": "100"})
    assert cut.code == 0, cut.stderr
    assert "This constructor should" in cut.stdout
    assert "target is the callable object" not in cut.stdout
    assert re.search(
        r"^- +threading\.Thread@\d+ \(class threading\.Thread\(.*\) \(continued\)\) "
        r"\d+ chars, left out for size$",
        cut.stdout,
        re.MULTILINE,
    ), cut.stdout


def test_tool_errors_exit_1_with_the_message_on_stderr(demo_corpus: Path) -> None:
    env = settings(demo_corpus)
    unknown = run("fetch", "corpus://nowhere/Page", env=env)
    assert (unknown.code, unknown.stdout) == (1, "")
    assert unknown.stderr.startswith("corpus-mcp fetch: invalid_ref: unknown library 'nowhere'")
    missing = run("fetch", "corpus://Wikipedia/No_such_article_here", env=env)
    assert missing.code == 1
    assert "corpus-mcp fetch: not_found: no document at" in missing.stderr
    section = run("fetch", STACK_OVERFLOW_REF, "--section", "nope", env=env)
    assert section.code == 1
    assert "corpus-mcp fetch: section_not_found: no section 'nope'" in section.stderr
    limit = run("search", "python", "--limit", "0", env=env)
    assert limit.code == 1
    assert "corpus-mcp search: invalid_arguments: " in limit.stderr
    blank = run("search", "   ", env=env)
    assert blank.code == 1
    assert "invalid_arguments" in blank.stderr


def test_usage_errors_exit_2(demo_corpus: Path) -> None:
    result = run("search", "python", "--limit", "many", env=settings(demo_corpus))
    assert result.code == 2
    assert "argument --limit: invalid int value: 'many'" in result.stderr
    assert run("fetch", env=settings(demo_corpus)).code == 2


def test_verbose_logs_the_call_on_stderr(demo_corpus: Path) -> None:
    result = run("search", "python", "--limit", "1", "-v", env=settings(demo_corpus))
    assert result.code == 0
    assert "tool=search outcome=ok" in result.stderr
    assert "tool=" not in result.stdout


def test_a_corpus_that_cannot_be_opened_exits_1(unopenable_corpus: Path) -> None:
    result = run("search", "python", env=settings(unopenable_corpus))
    assert result.code == 1
    assert "corpus-mcp search: cannot open the corpus: library 'brokenlib'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_belarusian_archive_answers_with_refs_that_read_as_its_titles(
    shared_zims: Path, tmp_path: Path
) -> None:
    """The real Belarusian Wikibooks archive as a user meets it: init, index, search,
    fetch. The answer's refs are the titles' own characters, and each fetches in that
    form and in the percent-encoded form refs had before."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copyfile(shared_zims / "wikibooks_be_all_nopic_2017-02.zim", corpus / "wb.zim")
    manifest = tmp_path / "corpus.toml"
    env = {
        **corpus_environment(manifest),
        "CORPUS_ROOT": str(corpus),
        "INDEX": "auto",
        "CORPUS_INDEX_DIR": str(tmp_path / "indexes"),
    }
    assert run("init", str(corpus), "-o", str(manifest)).code == 0
    assert run("index", env=env).code == 0
    found = run("search", "італьянская кухня", "--limit", "10", "--json", env=env)
    assert found.code == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert results[0]["ref"] == "corpus://Wikibooks/Італьянская_кухня"
    for result in results:
        ref = result["ref"]
        assert ref.isascii() is result["title"].isascii(), ref
        old = "corpus://Wikibooks/" + quote(ref.removeprefix("corpus://Wikibooks/"))
        fetched = [run("fetch", form, "--json", env=env) for form in (ref, old)]
        assert [f.code for f in fetched] == [0, 0], fetched
        assert fetched[0].stdout == fetched[1].stdout
        assert json.loads(fetched[0].stdout)["title"] == result["title"]
