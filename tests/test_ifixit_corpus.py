"""iFixit archives through the corpus the server serves: the demo archive (always) and the
real ifixit2zim 0.3.1 archive of ../shared/zims/families (one device, two guides; skipped
cleanly where it is absent), with and without a section index.

What an agent needs of a repair guide: a phrase of a step finds its guide with that step
hinted and a snippet of the guide's own words (no footer statistics); the guide fetched
is its facts, tools, parts and steps, each step a section of its own titled by its first
line, with cautions and notes said in words and no image ids; a step's id fetches that
step alone; every link the answer holds fetches (the device link ifixit2zim wrote with
iFixit's underscores leads to the device stored under its title); the placeholder pages
are never results nor documents; the device page leads to its guides.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import msgspec
import pytest

from corpus_mcp import refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import ifixit as demo
from corpus_mcp.errors import CorpusError
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.wire import FetchOutput
from corpus_mcp.zim.writer import Page, write_zim

from .conftest import SHARED_ZIMS, settings_for

REAL = SHARED_ZIMS / "families" / "ifixit_en_selection_2026-12.zim"
FILE = "ifixit_en_selection_2026-12.zim"
LIBRARY = "iFixit"
LINK = re.compile(r"\]\((corpus://[^)\s]+|#[^)\s]+)\)")
# The footer's statistics, the comment counts, the author box: never content.
CHROME = ("Free Manuals", "Solutions", "101,392", "Creative Commons", "comments", "Reputation")
IMAGE_ID = re.compile(r"^[A-Za-z0-9]{16}$", re.MULTILINE)


class Case(NamedTuple):
    """What each archive holds: a guide, a phrase of one of its steps, that step, the
    step's caution, the device page and its spelling in the guide's link."""

    guide: str
    title: str
    phrase: str
    step: str
    step_title: str
    caution: str
    device: str
    guides_of_device: tuple[str, ...]


CASES = {
    "demo": Case(
        guide="Guide/-/51500",
        title="Kindle Paperwhite 3 Battery Replacement",
        phrase="disconnect the battery cable from the logic board",
        step="s118002",
        step_title="Step 2 — Remove the three 3.1 mm Phillips screws securing the battery.",
        caution="**Caution:** The display is glued to the bezel: never pry against the glass.",
        device="Device/Kindle Paperwhite 3",
        guides_of_device=("Guide/-/51500", "Guide/-/51507"),
    ),
    "real": Case(
        guide="Guide/-/142215",
        title="Sony WH-1000XM3 Battery Replacement",
        phrase="pull the battery connector straight out of its socket",
        step="s403",
        step_title=(
            "Step 3 — Use tweezers to pull the battery connector straight out of its socket…"
        ),
        caution=(
            "**Caution:** Do not pull the cover away from the cup: the ribbon cable is fragile."
        ),
        device="Device/Sony WH-1000XM3",
        guides_of_device=("Guide/-/142207", "Guide/-/142215"),
    ),
}


class Archive(NamedTuple):
    manifest: Path
    case: Case


@pytest.fixture(
    scope="module",
    params=[
        "demo",
        pytest.param(
            "real",
            marks=pytest.mark.skipif(not REAL.is_file(), reason=f"real archive not at {REAL}"),
        ),
    ],
)
def archive(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Archive:
    """A folder holding the archive and a corpus.toml serving it with the adapter."""
    root = tmp_path_factory.mktemp(f"ifixit-{request.param}")
    file = root / FILE
    if request.param == "real":
        shutil.copyfile(REAL, file)
    else:
        demo.build(file)
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "{LIBRARY}"\npath = "{FILE}"\nadapter = "ifixit"\n',
        encoding="utf-8",
    )
    return Archive(manifest, CASES[request.param])


@pytest.fixture
async def corpus(archive: Archive) -> AsyncIterator[Corpus]:
    settings = settings_for(archive.manifest, PARSE_WORKERS="0", INDEX="off")
    async with open_corpus(settings, load_manifest(archive.manifest, archive.manifest.parent)) as c:
        yield c


def _text(out: FetchOutput) -> str:
    return "\n".join(f"{s.title}\n{s.content}" for s in out.sections)


async def test_a_phrase_of_a_step_finds_its_guide_with_that_step(
    corpus: Corpus, archive: Archive
) -> None:
    case = archive.case
    found = await corpus.search(case.phrase, 5)
    best = found.results[0]
    assert best.ref == refs.encode(LIBRARY, case.guide)
    assert best.title == case.title
    assert best.relevant_sections[0].id == case.step
    assert best.relevant_sections[0].title == case.step_title
    for result in found.results:
        for chrome in CHROME:
            assert chrome not in result.snippet, (result.ref, chrome)


async def test_the_guide_is_its_facts_supplies_and_steps(corpus: Corpus, archive: Archive) -> None:
    case = archive.case
    out = await corpus.fetch(refs.encode(LIBRARY, case.guide), None)
    assert out.title == case.title
    assert out.source_url == f"https://www.ifixit.com/{case.guide}"
    ids = [s.id for s in out.sections]
    assert ids[:4] == ["", "introduction", "tools", "parts"]
    steps = [s for s in out.sections if re.fullmatch(r"s\d+", s.id)]
    assert len(steps) >= 3 and ids[-1] == "conclusion"
    assert len({s.id for s in steps}) == len(steps)
    assert all(s.title.startswith(f"Step {n} — ") for n, s in enumerate(steps, 1))
    lead = out.sections[0].content
    assert "- Difficulty: " in lead and "- Steps: " in lead and "- Time Required: " in lead
    text = _text(out)
    assert case.caution in text
    assert "\n  - " in text  # a level-1 line under the line above it
    assert not IMAGE_ID.search(text)
    assert "s258194" not in text and "Step 1\n" not in text
    for chrome in CHROME:
        assert chrome not in text, chrome
    for placeholder in ("home/unavailable_offline", "home/not_scrapped", "external_content"):
        assert placeholder not in text
    (tools,) = [s for s in out.sections if s.id == "tools"]
    assert tools.content.startswith("- ") and "](" not in tools.content


async def test_a_step_is_fetched_alone_by_its_id_or_its_anchor(
    corpus: Corpus, archive: Archive
) -> None:
    case = archive.case
    by_id = await corpus.fetch(refs.encode(LIBRARY, case.guide), [case.step])
    by_anchor = await corpus.fetch(refs.encode(LIBRARY, case.guide, case.step), None)
    for out in (by_id, by_anchor):
        (step,) = out.sections
        assert (step.id, step.title) == (case.step, case.step_title)
        assert step.content.startswith("- ")


async def test_every_link_of_a_guide_fetches_and_the_device_link_is_repaired(
    corpus: Corpus, archive: Archive
) -> None:
    case = archive.case
    guides = [g for g in (case.guide, *case.guides_of_device) if g]
    device = refs.encode(LIBRARY, case.device)
    linked: set[str] = set()
    for guide in dict.fromkeys(guides):
        out = await corpus.fetch(refs.encode(LIBRARY, guide), None)
        for link in LINK.findall(_text(out)):
            assert link.startswith("corpus://"), link  # no anchor left dangling
            landed = await corpus.fetch(link, None)
            assert landed.sections and landed.sections[0].content, link
            linked.add(link)
    # ifixit2zim links the device as Device/<Title_with_underscores>: it fetches.
    assert device in linked


async def test_the_device_page_leads_to_its_guides(corpus: Corpus, archive: Archive) -> None:
    case = archive.case
    out = await corpus.fetch(refs.encode(LIBRARY, case.device), None)
    assert out.title == case.device.removeprefix("Device/")
    links = set(LINK.findall(_text(out)))
    assert {refs.encode(LIBRARY, g) for g in case.guides_of_device} <= links
    assert not IMAGE_ID.search(_text(out))
    assert out.source_url == "https://www.ifixit.com/" + case.device.replace(" ", "_")
    found = await corpus.search(case.device.removeprefix("Device/"), 5)
    assert refs.encode(LIBRARY, case.device) in [r.ref for r in found.results]


@pytest.mark.parametrize("name", ["unavailable_offline", "not_scrapped", "external_content"])
async def test_the_placeholder_pages_are_no_documents(
    corpus: Corpus, archive: Archive, name: str
) -> None:
    with pytest.raises(CorpusError) as raised:
        await corpus.fetch(refs.encode(LIBRARY, f"home/{name}"), None)
    assert raised.value.code == "not_found"
    found = await corpus.search("This content cannot be made available offline", 10)
    assert all("home/" not in r.ref for r in found.results)


async def test_the_main_page_redirect_fetches_the_home_page(corpus: Corpus) -> None:
    out = await corpus.fetch(refs.encode(LIBRARY, "Main-Page"), None)
    assert out.ref == refs.encode(LIBRARY, "home/home")
    assert "not_scrapped" not in _text(out)


async def test_with_a_section_index_a_step_is_found_the_same(
    archive: Archive, tmp_path: Path
) -> None:
    folder = tmp_path / "indexes"
    build_index(
        BuildJob(
            archive=archive.manifest.parent / FILE,
            adapter="ifixit",
            folder=folder,
            library=LIBRARY,
        ),
        processes=1,
    )
    settings = settings_for(
        archive.manifest, INDEX="auto", CORPUS_INDEX_DIR=str(folder), PARSE_WORKERS="0"
    )
    async with open_corpus(
        settings, load_manifest(archive.manifest, archive.manifest.parent)
    ) as corpus:
        assert {s.state for s in corpus.index_states().values()} == {"ready"}
        found = await corpus.search(archive.case.phrase, 5)
        assert found.results[0].ref == refs.encode(LIBRARY, archive.case.guide)
        assert found.results[0].relevant_sections[0].id == archive.case.step
        offline = await corpus.search("cannot be made available offline", 10)
        assert all("home/" not in r.ref for r in offline.results)


async def test_a_link_to_a_device_stored_under_neither_spelling_is_text(tmp_path: Path) -> None:
    """Fetch tries the other spelling of a missing device and, finding neither stored,
    leaves the link's words; a link with a stored spelling beside it is repaired."""
    guide = msgspec.structs.replace(
        demo.GUIDES[0],
        introduction=(
            'Unlike the <a href="../../Device/Kindle_Voyage">Kindle Voyage</a>, the '
            '<a href="../../Device/Kindle_Paperwhite_3">Paperwhite</a> has no page buttons.'
        ),
    )
    file = tmp_path / FILE
    write_zim(
        file,
        pages=[
            Page(path=guide.path, title=guide.title, content=demo.guide_html(guide)),
            Page(path=demo.DEVICE_PATH, title=demo.DEVICE, content=demo.device_html()),
        ],
        metadata=demo.METADATA,
        main_path=demo.DEVICE_PATH,
    )
    manifest = tmp_path / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "{LIBRARY}"\npath = "{FILE}"\nadapter = "ifixit"\n',
        encoding="utf-8",
    )
    settings = settings_for(manifest, PARSE_WORKERS="0", INDEX="off")
    async with open_corpus(settings, load_manifest(manifest, tmp_path)) as corpus:
        out = await corpus.fetch(refs.encode(LIBRARY, guide.path), ["introduction"])
    (intro,) = out.sections
    device = refs.encode(LIBRARY, demo.DEVICE_PATH)
    assert intro.content == (
        f"Unlike the Kindle Voyage, the [Paperwhite]({device}) has no page buttons."
    )
