"""The corpus is one web: a fetched document's link to a page another archive holds is a
ref the agent fetches, its fragment landing on its section; a link to a page no archive
holds stays the web address.

Through a real server and MCP client over the demo corpus (a Stack Exchange answer
linking the Python documentation and Wikipedia, as sotoki writes it), then every
document of the demo's families and of the real archives in ../shared/zims (skipped
cleanly where absent) through the corpus the server serves, then a library's archive
replaced under it, and two snapshots of one site.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client

from corpus_mcp import refs
from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import build_demo_corpus, demo_libraries, sotoki, wikipedia
from corpus_mcp.gather import load_tables
from corpus_mcp.webmap import WebMap, library_site
from corpus_mcp.zim import ZimReader

from .conftest import SHARED_ZIMS, settings_for
from .mcp_helpers import serving, structured

MRO_THREAD = "questions/3277367"
DIAMOND_THREAD = "questions/21558"
BLOCKING_THREAD = "questions/43241221"
# A Markdown link's target (balanced parentheses kept), and a bare address (autolink).
_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\(((?:[^()\s]|\([^()\s]*\))*)\)|<(https?://[^\s<>]+)>")
_FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
#: The real archives added to the demo corpus where ../shared/zims holds them (name ->
#: file under SHARED_ZIMS, adapter).
REAL = {
    "Unix.SE": ("real/unix.stackexchange.com_en_all_2026-12.zim", "stackexchange"),
    "Math.SE": ("real/math.stackexchange.com_en_all_2026-12.zim", "stackexchange"),
    "Flask": ("real/devdocs.io_en_flask-2.2_2026-12.zim", "devdocs"),
    "Python_3.11": ("families/docs.python.org_en_all_2026-12.zim", "html"),
    "Gutenberg": ("families/gutenberg_en_all_2026-12.zim", "gutenberg"),
    "fcc": ("families/freecodecamp_en_javascript_2026-12.zim", "freecodecamp"),
    "LibreTexts": ("families/libretexts.org_en_chem_2026-12.zim", "libretexts"),
    "TED_real": ("families/ted_en_science_2026-12.zim", "ted"),
    "iFixit_real": ("families/ifixit_en_selection_2026-12.zim", "ifixit"),
    "wp100": ("wikipedia_en_100_mini_2022-10.zim", "mediawiki"),
    "rc2020": ("wikipedia_en_ray_charles_mini_2020-03.zim", "mediawiki"),
    "rc2018": ("wikipedia_en_ray_charles_novid_2018-10.zim", "mediawiki"),
    "wikibooks_be": ("wikibooks_be_all_nopic_2017-02.zim", "mediawiki"),
}
REAL_PRESENT = all((SHARED_ZIMS / file).is_file() for file, _ in REAL.values())
#: Refs made of web links fetched back, at most.
FETCHED_SAMPLE = 200


def links(markdown: str) -> Iterator[tuple[str, str]]:
    """(text, target) of every link of a Markdown text outside code blocks; a bare
    address's text is itself."""
    for match in _LINK.finditer(_FENCED.sub("", markdown)):
        if match.group(3):
            yield match.group(3), match.group(3)
        else:
            yield match.group(1), match.group(2)


def section(output: dict[str, Any], wanted: str) -> dict[str, Any]:
    return next(s for s in output["sections"] if s["id"] == wanted)


# -- a Stack Exchange answer linking the Python documentation and Wikipedia ------------------


@pytest.fixture
async def url(demo_corpus: Path, nursery: trio.Nursery) -> AsyncIterator[str]:
    async with serving(demo_corpus, nursery) as endpoint:
        yield endpoint


async def test_an_answer_links_the_documentation_and_the_wikipedia_the_corpus_holds(
    url: str,
) -> None:
    """The accepted answer links ``https://docs.python.org/3/library/functions.html#super``
    and ``https://en.wikipedia.org/wiki/C3_linearization#Description``: refs to the demo's
    DevDocs Python (3.13: the link says so) and Wikipedia, each fetched landing on the
    section its fragment names."""
    async with Client(url) as client:

        async def fetch(ref: str, *sections: str) -> dict[str, Any]:
            arguments: dict[str, Any] = {"ref": ref}
            if sections:
                arguments["sections"] = list(sections)
            return structured(await client.call_tool("fetch", arguments))

        thread = await fetch(refs.encode("StackOverflow", MRO_THREAD), "accepted-answer")
        answer = dict(links(section(thread, "accepted-answer")["content"]))
        assert answer == {
            "`super().__init__()` (Python 3.13 here)": "corpus://Python-Docs/library/functions#super",
            "C3 linearization": "corpus://Wikipedia/C3_linearization#Description",
        }
        super_ = await fetch(answer["`super().__init__()` (Python 3.13 here)"])
        assert super_["ref"] == "corpus://Python-Docs/library/functions"
        assert [s["id"] for s in super_["sections"]] == ["super"]
        assert "class super(" in super_["sections"][0]["title"] + super_["sections"][0]["content"]
        c3 = await fetch(answer["C3 linearization"])
        assert (c3["ref"], [s["id"] for s in c3["sections"]]) == (
            "corpus://Wikipedia/C3_linearization",
            ["Description"],
        )

        # A mobile address of a redirect's title lands on its target through the
        # archive's redirect; a title redirected to a section (mwoffliner's stub), on it.
        diamond = await fetch(refs.encode("StackOverflow", DIAMOND_THREAD), "accepted-answer")
        linked = dict(links(section(diamond, "accepted-answer")["content"]))
        assert linked == {
            "method resolution order": "corpus://Wikipedia/Method_resolution_order",
            "diamond problem": "corpus://Wikipedia/Diamond_problem",
        }
        mro = await fetch(linked["method resolution order"])
        assert mro["ref"] == "corpus://Wikipedia/C3_linearization"
        stub = await fetch(linked["diamond problem"])
        assert stub["ref"] == "corpus://Wikipedia/Multiple_inheritance"
        assert [s["id"] for s in stub["sections"]] == ["The_diamond_problem"]

        # Pages no archive holds stay web addresses.
        blocking = await fetch(refs.encode("StackOverflow", BLOCKING_THREAD))
        web = {
            target
            for s in blocking["sections"]
            for _, target in links(s["content"])
            if target.startswith("https://")
        }
        assert web == {
            "https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.loop.run_in_executor",
            "https://peps.python.org/pep-3156/",
        }


# -- every document of the demo's families and of the real archives -------------------------


@pytest.fixture(scope="module")
def whole_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus with every family's archive, plus copies of the real archives
    where ../shared/zims holds them (a manifest may not point outside its root)."""
    root = tmp_path_factory.mktemp("web-corpus")
    build_demo_corpus(root, families=True)
    tables = [(name, path, adapter) for name, path, adapter in demo_libraries(families=True)]
    if REAL_PRESENT:
        for name, (file, adapter) in REAL.items():
            target = root / "real" / Path(file).name
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(SHARED_ZIMS / file, target)
            tables.append((name, f"real/{target.name}", adapter))
    manifest = root / "web.toml"
    manifest.write_text(
        "version = 1\n"
        + "".join(
            f'[[library]]\nname = "{name}"\npath = "{path}"\nadapter = "{adapter}"\n'
            for name, path, adapter in tables
        ),
        encoding="utf-8",
    )
    return manifest


@pytest.fixture
async def corpus(whole_corpus: Path) -> AsyncIterator[Corpus]:
    # A budget no page reaches: whole documents, every link in them.
    settings = settings_for(
        whole_corpus, PARSE_WORKERS="0", MAX_FETCH_CHARS="10000000", FETCH_BUDGET_CHARS="10000000"
    )
    async with open_corpus(settings, load_manifest(whole_corpus, whole_corpus.parent)) as opened:
        yield opened


def _documents(corpus: Corpus, manifest: Path) -> Iterator[tuple[str, str]]:
    """(library, path) of every document of every library of the corpus."""
    for library in load_manifest(manifest, manifest.parent).enabled:
        adapter = corpus.library(library.name).adapter
        reader = ZimReader(library.file)
        for path, _title, redirect in reader.iter_entries():
            if not redirect and adapter.is_content(path, reader.resolve(path).mimetype):
                yield library.name, path


class _Oracle:
    """Which library holds a web address, asked of the archives directly (its own
    readers, the map made again from their tables): what fetch must agree with."""

    def __init__(self, manifest: Path) -> None:
        self.readers: dict[str, ZimReader] = {}
        sites = []
        for library in load_manifest(manifest, manifest.parent).enabled:
            reader = ZimReader(library.file)
            adapter = get_adapter(library.adapter)
            tables = load_tables(reader, adapter)
            self.readers[library.name] = reader
            sites.append(
                library_site(library.name, adapter, tables.site, tables.pages, reader.info.snapshot)
            )
        self.webmap = WebMap(sites)

    def holder(self, address: str) -> str | None:
        for target in self.webmap.resolve(address):
            reader = self.readers[target.library]
            if any(reader.has_entry(path) for path in target.paths):
                return target.library
        return None


async def test_every_link_to_a_page_the_corpus_holds_is_a_ref_that_fetches(
    corpus: Corpus, whole_corpus: Path
) -> None:
    oracle = _Oracle(whole_corpus)
    into: dict[str, set[str]] = {}  # a ref made of a web link -> the libraries linking it
    left_on_the_web: set[str] = set()
    for library, path in _documents(corpus, whole_corpus):
        fetched = await corpus.fetch(refs.encode(library, path), None)
        for fetched_section in fetched.sections:
            for text, target in links(fetched_section.content):
                if target.startswith(("https://", "http://")):
                    left_on_the_web.add(target)
                elif target.startswith(refs.SCHEME) and (
                    " here)" in text or not target.startswith(f"{refs.SCHEME}{library}/")
                ):
                    into.setdefault(target, set()).add(library)
    # No web address left is one an archive of the corpus holds.
    held = {address: oracle.holder(address) for address in left_on_the_web}
    assert {address: holder for address, holder in held.items() if holder} == {}
    # The demo's own links across archives are there (so are the real crawl's).
    assert "Math-SE" in into["corpus://Wikipedia/Basel_problem"]
    assert "StackOverflow" in into["corpus://Wikipedia/C3_linearization#Description"]
    assert "StackOverflow" in into["corpus://Python-Docs/library/functions#super"]
    if REAL_PRESENT:
        assert "Math.SE" in into["corpus://Wikipedia/Basel_problem"]
        crawled = [ref for ref, sources in into.items() if "Python_3.11" in sources]
        assert len(crawled) >= 20
    # A sample of them (evenly spread) fetches, each landing on its section when the
    # fragment names one.
    ordered = sorted(into)
    step = max(1, len(ordered) // FETCHED_SAMPLE)
    sample = ordered[::step][:FETCHED_SAMPLE]
    assert len(sample) == min(FETCHED_SAMPLE, len(ordered))
    for ref in sample:
        named = refs.decode(ref, corpus.libraries)
        whole = await corpus.fetch(refs.encode(named.library, named.path), None)
        landed = await corpus.fetch(ref, None)
        assert landed.ref == whole.ref
        if named.fragment and named.fragment in {s.id for s in whole.available_sections}:
            assert landed.sections[0].id == named.fragment


# -- an archive replaced, two snapshots of one site -------------------------------------------


async def test_a_replaced_archive_takes_its_addresses_with_it(
    demo_corpus: Path, tmp_path: Path
) -> None:
    """DevDocs Python replaced by an archive of another site (the C++ reference renamed
    over it): the answer's link to docs.python.org is a web address again."""
    for _, relative, _ in demo_libraries():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(demo_corpus.parent / relative, tmp_path / relative)
    manifest = tmp_path / "corpus.toml"
    shutil.copyfile(demo_corpus, manifest)
    settings = settings_for(manifest, ARCHIVE_RECHECK_SECONDS="3600")
    thread = refs.encode("StackOverflow", MRO_THREAD)
    async with open_corpus(settings, load_manifest(manifest, tmp_path)) as corpus:
        before = await corpus.fetch(thread, ["accepted-answer"])
        assert "(corpus://Python-Docs/library/functions#super)" in before.sections[0].content
        served = Path(corpus.library("Python-Docs").service.info.file)
        fresh = served.with_suffix(".new")
        cpp = next(path for name, path, _ in demo_libraries() if name == "Cpp-Docs")
        shutil.copyfile(tmp_path / cpp, fresh)
        os.replace(fresh, served)
        swapped = [await corpus.recheck("Python-Docs") for _ in range(3)]
        assert True in swapped
        after = await corpus.fetch(thread, ["accepted-answer"])
    content = after.sections[0].content
    assert "(https://docs.python.org/3/library/functions.html#super)" in content
    assert "(corpus://Wikipedia/C3_linearization#Description)" in content


async def test_two_snapshots_of_one_site_the_newer_first_said_once(
    demo_corpus: Path,
    next_month_wikipedia: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    files = {
        "wikipedia/wikipedia_en_demo_maxi_2026-05.zim": demo_corpus.parent / wikipedia.FILE,
        "wikipedia/wikipedia_en_demo_maxi_2026-06.zim": next_month_wikipedia,
        "math.zim": demo_corpus.parent / sotoki.MATH_FILE,
    }
    for relative, source in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, tmp_path / relative)
    manifest = tmp_path / "corpus.toml"
    manifest.write_text(
        "version = 1\n"
        '[[library]]\nname = "wiki_may"\npath = "wikipedia/wikipedia_en_demo_maxi_2026-05.zim"\n'
        'adapter = "mediawiki"\n'
        '[[library]]\nname = "wiki_june"\npath = "wikipedia/wikipedia_en_demo_maxi_2026-06.zim"\n'
        'adapter = "mediawiki"\n'
        '[[library]]\nname = "Math-SE"\npath = "math.zim"\nadapter = "stackexchange"\n',
        encoding="utf-8",
    )
    settings = settings_for(manifest)
    caplog.set_level(logging.INFO, logger="corpus_mcp.documents")
    async with open_corpus(settings, load_manifest(manifest, tmp_path)) as corpus:
        fetched = await corpus.fetch(
            "corpus://Math-SE/questions/8337/different-methods-to-compute-sum-limits-k-1-infty-frac-1-k-2",
            ["question"],
        )
        await corpus.recheck("Math-SE")  # nothing changed: nothing said again
    said = [r.getMessage() for r in caplog.records if "both hold pages" in r.getMessage()]
    assert said == [
        "web addresses: libraries wiki_june (snapshot 2026-06) and wiki_may (snapshot "
        "2026-05) both hold pages of en.wikipedia.org/wiki/: a link there leads to "
        "wiki_june where it holds the page, else to wiki_may"
    ]
    comment = next(s for s in fetched.sections if s.id.startswith("comments-"))
    assert "(corpus://wiki_june/Basel_problem)" in comment.content
