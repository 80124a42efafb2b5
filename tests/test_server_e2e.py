"""End to end over real HTTP: a hypercorn server on a free port over the demo corpus.

The real corpus (``open_corpus``) behind the real server, driven by the MCP Python
client in both protocol eras: search, then fetch of a hinted section, then every
error an agent can meet.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from .mcp_helpers import error_payload, serving, structured

MODES = ["auto", "legacy"]
QUERY = "C3 linearization multiple inheritance"


@pytest.fixture
async def url(demo_corpus: Path, nursery: trio.Nursery) -> AsyncIterator[str]:
    """The MCP endpoint of a server over the demo corpus."""
    async with serving(demo_corpus, nursery) as endpoint:
        yield endpoint


@pytest.mark.parametrize("mode", MODES)
async def test_search_then_fetch_a_hinted_section(url: str, mode: Any) -> None:
    async with Client(url, mode=mode) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["search", "fetch"]
        found = structured(await client.call_tool("search", {"query": QUERY, "limit": 5}))
        results = found["results"]
        assert results
        hinted = next(r for r in results if r["relevant_sections"])
        section = hinted["relevant_sections"][0]
        fetched = structured(
            await client.call_tool("fetch", {"ref": hinted["ref"], "sections": [section["id"]]})
        )
        whole = structured(await client.call_tool("fetch", {"ref": hinted["ref"]}))
    assert fetched["ref"] == hinted["ref"]
    assert fetched["sections"][0]["id"] == section["id"]
    assert fetched["sections"][0]["content"]
    assert section["id"] in {s["id"] for s in fetched["available_sections"]}
    assert len(whole["sections"]) >= len(fetched["sections"])


@pytest.mark.parametrize("mode", MODES)
async def test_every_error_an_agent_can_meet(url: str, mode: Any) -> None:
    async with Client(url, mode=mode) as client:
        hit = structured(await client.call_tool("search", {"query": QUERY}))["results"][0]
        library, ref = hit["library"], hit["ref"]
        cases = {
            "invalid_arguments": ("search", {"query": "  "}),
            "invalid_ref": ("fetch", {"ref": "https://example.org/wiki/C3"}),
            "not_found": ("fetch", {"ref": f"corpus://{library}/No_such_document_here"}),
            "section_not_found": ("fetch", {"ref": ref, "sections": ["no-such-section"]}),
        }
        for code, (tool, arguments) in cases.items():
            assert error_payload(await client.call_tool(tool, arguments))["error"] == code
        unknown_library = await client.call_tool("fetch", {"ref": "corpus://nolib/C3"})
        assert error_payload(unknown_library)["error"] == "invalid_ref"


@pytest.mark.parametrize("mode", MODES)
async def test_links_in_a_fetched_document_are_fetchable_over_mcp(url: str, mode: Any) -> None:
    thread = (
        "corpus://StackOverflow/questions/43241221/"
        "how-can-i-run-a-blocking-function-without-freezing-the-asyncio-event-loop"
    )
    async with Client(url, mode=mode) as client:

        async def fetch(ref: str, sections: list[str] | None = None) -> dict[str, Any]:
            arguments: dict[str, Any] = {"ref": ref}
            if sections is not None:
                arguments["sections"] = sections
            return structured(await client.call_tool("fetch", arguments))

        answer = (await fetch(thread, ["accepted-answer"]))["sections"][0]
        targets = re.findall(r"\]\(((?:corpus://|#)[^)\s]+)\)", answer["content"])
        assert any(t.startswith("#") for t in targets)
        assert any(t.startswith("corpus://") and "#" in t for t in targets)
        for target in targets:
            ref = thread + target if target.startswith("#") else target
            landed = await fetch(ref)
            if "#" in ref:
                base, _, anchor = ref.partition("#")
                assert landed["sections"] == (await fetch(base, [anchor]))["sections"]
        entry = await fetch("corpus://Python-Docs/library/stdtypes#str.join")
    assert [(s["id"], s["title"]) for s in entry["sections"]] == [
        ("str.join", "str.join(iterable)")
    ]
    assert entry["source_url"] == "https://docs.python.org/3.13/library/stdtypes.html"


async def test_an_agent_reads_a_class_then_the_method_it_lists_over_mcp(
    demo_corpus: Path, nursery: trio.Nursery
) -> None:
    """Past the fetch budget (600 here), a class comes with its first methods, the
    others listed by size; the agent fetches one with the ref and its id."""
    async with (
        serving(demo_corpus, nursery, FETCH_BUDGET_CHARS="600") as endpoint,
        Client(endpoint) as client,
    ):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        cls = structured(
            await client.call_tool(
                "fetch", {"ref": "corpus://Python-Docs/library/threading#threading.Thread"}
            )
        )
        listed = {s["id"]: s["chars"] for s in cls["available_sections"] if s.get("chars")}
        join = structured(
            await client.call_tool(
                "fetch", {"ref": cls["ref"], "sections": ["threading.Thread.join"]}
            )
        )
    assert "Up to 600 chars in order" in (tools["fetch"].description or "")
    assert [s["id"] for s in cls["sections"]] == [
        "threading.Thread",
        "threading.Thread.start",
        "threading.Thread.run",
    ]
    assert cls["truncated"] is True
    assert list(listed) == ["threading.Thread.join", "threading.Thread.daemon"]
    [method] = join["sections"]
    assert method["title"] == "join(timeout=None)"
    assert len(method["title"]) + len(method["content"]) == listed["threading.Thread.join"]
    assert join["truncated"] is False


async def test_the_hints_of_a_long_section_deliver_the_part_that_matched_over_mcp(
    demo_corpus: Path, nursery: trio.Nursery
) -> None:
    """The section hinted is longer than a fetch answer (600 here) and matched past what
    one answer from its start holds: search hints it again from the part that matched,
    and fetching the hints delivers that part."""
    async with (
        serving(demo_corpus, nursery, FETCH_BUDGET_CHARS="600") as endpoint,
        Client(endpoint) as client,
    ):
        found = structured(await client.call_tool("search", {"query": "super", "limit": 3}))
        [hit] = [
            r for r in found["results"] if r["ref"] == "corpus://Python-Docs/library/functions"
        ]
        hints = [s["id"] for s in hit["relevant_sections"]]
        fetched = structured(
            await client.call_tool("fetch", {"ref": hit["ref"], "sections": hints})
        )
        alone = structured(
            await client.call_tool("fetch", {"ref": hit["ref"], "sections": ["super"]})
        )
    assert hints[:2] == ["super", "super@~there"]
    text = " ".join(s["content"] for s in fetched["sections"])
    assert "There are two typical use cases for super" in text
    assert hit["snippet"].startswith("There are two typical use cases for super")
    # From the section's start, one answer does not reach it: the rest is listed.
    assert "There are two typical use cases" not in " ".join(
        s["content"] for s in alone["sections"]
    )
    assert any(s["id"].startswith("super@") and s.get("chars") for s in alone["available_sections"])
