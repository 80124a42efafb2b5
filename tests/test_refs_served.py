"""Refs in other scripts through the real server: a Belarusian Wikipedia page with section
ids holding en dashes and non-ASCII letters (mwoffliner keeps Unicode in its anchors),
searched and fetched by a real MCP client over HTTP; the refs read as the titles do,
refs of the old percent-encoded form still fetch the same, and the JSON on the wire
carries the characters themselves, not ``\\uXXXX`` escapes."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import trio
from mcp import Client

from corpus_mcp import refs
from corpus_mcp.demo import wikipedia
from corpus_mcp.demo._mediawiki import Article, Section, href_to

from .mcp_helpers import serving, structured

SINGER = "Рэй_Чарльз"
KITCHEN = "Беларуская_кухня"
EARLY = "Біяграфія_–_ранні_гады"
"""A heading's id as mwoffliner writes it: spaces to ``_``, the en dash and letters kept."""
LIFE = "Ранняе_жыццё"
HISTORY = "Гісторыя_–_пачатак"


def _link(from_path: str, to_path: str, fragment: str, label: str) -> str:
    return f'<a href="{href_to(from_path, to_path, fragment)}">{label}</a>'


ARTICLES = (
    Article(
        title="Рэй Чарльз",
        lead=[
            "<p><b>Рэй Чарльз</b> — амерыканскі спявак і піяніст, адзін з творцаў соўлу. Пра "
            f"яго маленства гл. {_link(SINGER, SINGER, LIFE, 'Ранняе жыццё')}; пра ежу яго "
            f"краю гл. {_link(SINGER, KITCHEN, quote(HISTORY), 'гісторыю кухні')}.</p>"
        ],
        sections=(
            Section(2, "Біяграфія – ранні гады", ["Нарадзіўся ў Олбані, штат Джорджыя."]),
            Section(3, "Ранняе жыццё", ["У пяць гадоў пачаў губляць зрок."]),
            Section(2, "Творчасць", ["Запісаў больш за семдзесят альбомаў."]),
        ),
        section_redirects=(("Дзяцінства Рэя Чарльза", "Ранняе жыццё"),),
    ),
    Article(
        title="Беларуская кухня",
        lead=["<p><b>Беларуская кухня</b> — нацыянальная кухня беларусаў.</p>"],
        sections=(Section(2, "Гісторыя – пачатак", ["Бульба прыйшла ў XVIII стагоддзі."]),),
    ),
)


@pytest.fixture(scope="module")
def belarusian(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A manifest serving the demo Wikipedia with the Belarusian pages added."""
    root = tmp_path_factory.mktemp("belarusian")
    wikipedia.build(root / "wikipedia.zim", extra_articles=ARTICLES)
    manifest = root / "corpus.toml"
    manifest.write_text(
        'version = 1\n[[library]]\nname = "Wikipedia"\npath = "wikipedia.zim"\n'
        'adapter = "mediawiki"\n'
    )
    return manifest


@pytest.fixture
async def url(belarusian: Path, nursery: trio.Nursery) -> AsyncIterator[str]:
    async with serving(belarusian, nursery) as endpoint:
        yield endpoint


def old_form(ref: str) -> str:
    """The ref as the server spelt it before IRI refs: every non-ASCII character
    percent-encoded (an agent may hold one from an earlier answer)."""
    head, _, rest = ref.partition("corpus://Wikipedia/")
    return head + "corpus://Wikipedia/" + quote(rest, safe="/:@!$&'()*+,;=-._~#")


async def test_a_belarusian_page_is_found_and_fetched_by_a_ref_that_reads_as_its_title(
    url: str,
) -> None:
    async with Client(url) as client:

        async def fetch(ref: str, sections: list[str] | None = None) -> dict[str, Any]:
            arguments: dict[str, Any] = {"ref": ref}
            if sections is not None:
                arguments["sections"] = sections
            return structured(await client.call_tool("fetch", arguments))

        found = structured(await client.call_tool("search", {"query": "Рэй Чарльз спявак"}))
        [hit] = [result for result in found["results"] if result["title"] == "Рэй Чарльз"]
        assert hit["ref"] == f"corpus://Wikipedia/{SINGER}"
        assert EARLY in {section["id"] for section in (await fetch(hit["ref"]))["sections"]}

        # The old percent-encoded form names the same page; the answer spells it anew.
        whole, old = await fetch(hit["ref"]), await fetch(old_form(hit["ref"]))
        assert old_form(hit["ref"]) != hit["ref"]
        assert old == whole
        assert whole["ref"] == hit["ref"]

        # A fragment with an en dash and Cyrillic letters lands on its section, in both forms.
        anchored = f"{hit['ref']}#{EARLY}"
        for ref in (anchored, old_form(anchored)):
            landed = await fetch(ref)
            assert landed["sections"][0]["id"] == EARLY, ref
            assert landed["sections"][0]["title"] == "Біяграфія – ранні гады"
        assert (await fetch(hit["ref"], [LIFE]))["sections"][0]["id"] == LIFE

        # Links in the fetched text: another page's section by its ref, this page's
        # section by its anchor, each as readable as the title and each fetchable.
        lead = whole["sections"][0]["content"]
        assert f"[гісторыю кухні](corpus://Wikipedia/{KITCHEN}#{HISTORY})" in lead
        assert f"[Ранняе жыццё](#{LIFE})" in lead
        assert "%D0" not in lead
        followed = await fetch(f"corpus://Wikipedia/{KITCHEN}#{HISTORY}")
        assert (followed["title"], followed["sections"][0]["id"]) == ("Беларуская кухня", HISTORY)
        inside = await fetch(hit["ref"] + f"#{LIFE}")
        assert inside["sections"][0]["id"] == LIFE

        # A redirect to a section (mwoffliner's stub) lands there.
        stub = await fetch("corpus://Wikipedia/Дзяцінства_Рэя_Чарльза")
        assert (stub["ref"], stub["sections"][0]["id"]) == (hit["ref"], LIFE)


async def test_the_json_on_the_wire_carries_the_characters_not_escapes(url: str) -> None:
    """What the MCP SDK sends for a tool result: the ref and title as UTF-8, once in the
    text content and once in the structured content, no ``\\u`` escapes."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "Беларуская кухня"}},
    }
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=60) as http:
        response = await http.post(url, json=call, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.content.decode("utf-8")
    assert not re.search(r"\\u[0-9a-fA-F]{4}", body)
    assert body.count(f"corpus://Wikipedia/{KITCHEN}") == 2
    result = json.loads(body)["result"]
    assert result["structuredContent"]["results"][0]["ref"] == f"corpus://Wikipedia/{KITCHEN}"


def test_the_refs_of_the_page_round_trip() -> None:
    """The refs this test fetches are what the codec writes for these paths."""
    assert refs.encode("Wikipedia", SINGER, EARLY) == f"corpus://Wikipedia/{SINGER}#{EARLY}"
    assert refs.anchor(LIFE) == f"#{LIFE}"
