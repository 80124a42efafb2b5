"""The large Wikipedia-like benchmark archive (demo/wikipedia_like.py), built small.

The archive made from the real archives in ../shared/zims (skipped where they are
absent), and one made from the demo Wikipedia archive, which every checkout can build.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.config import load_manifest
from corpus_mcp.demo import wikipedia_like
from corpus_mcp.demo.wikipedia_like import (
    FILE,
    LIBRARY,
    SOURCE_FILES,
    build_wikipedia_like,
    find_sources,
    make_plan,
    read_pool,
)
from corpus_mcp.document import PROSE, walk
from corpus_mcp.zim import ZimReader

ARTICLES = 200
ADAPTER = get_adapter("mediawiki")


def _entries(reader: ZimReader) -> list[tuple[str, str, bool, bytes]]:
    return [
        (path, title, redirect, b"" if redirect else reader.content(path))
        for path, title, redirect in reader.iter_entries()
    ]


def _words(text: str) -> set[str]:
    """The words of a passage, without the separators of list items and table cells."""
    return {word.rstrip(",;") for word in text.split()}


@pytest.fixture(scope="module")
def sources(shared_zims: Path) -> list[Path]:
    return [shared_zims / name for name in SOURCE_FILES]


@pytest.fixture(scope="module")
def built(sources: list[Path], tmp_path_factory: pytest.TempPathFactory) -> ZimReader:
    folder = tmp_path_factory.mktemp("wikipedia-like")
    result = build_wikipedia_like(folder / FILE, articles=ARTICLES, seed=7, sources=sources)
    assert result.articles == ARTICLES
    assert result.path.stat().st_size > 0
    return ZimReader(result.path)


def test_the_same_arguments_give_the_same_entries(
    built: ZimReader, sources: list[Path], tmp_path: Path
) -> None:
    again = build_wikipedia_like(tmp_path / "again.zim", articles=ARTICLES, seed=7, sources=sources)
    assert _entries(ZimReader(again.path)) == _entries(built)
    other = build_wikipedia_like(tmp_path / "other.zim", articles=ARTICLES, seed=8, sources=sources)
    assert _entries(ZimReader(other.path)) != _entries(built)


def test_the_archive_is_an_indexed_mwoffliner_wikipedia(built: ZimReader) -> None:
    info = built.info
    assert (info.family, info.main_path, info.new_namespace_scheme) == ("mwoffliner", "index", True)
    assert info.has_fulltext_index and info.has_title_index
    main = ADAPTER.parse("index", "Main Page", built.content("index"), LIBRARY)
    assert main.metadata.get("navigation") == "true"
    pages = [p for p, _t, redirect in built.iter_entries() if not redirect and "_res_" not in p]
    assert len({*pages} - {"index"}) >= ARTICLES
    assert built.check()


def test_articles_parse_into_sections_of_real_text(built: ZimReader, sources: list[Path]) -> None:
    pool = read_pool(sources)
    real = {b.text for b in (*pool.paragraphs, *(b for s in pool.sections for b in s.blocks))}
    vocabulary = {
        word
        for block in (
            *pool.paragraphs,
            *pool.structured,
            *(b for s in pool.sections for b in s.blocks),
        )
        for word in _words(block.text)
    }
    plan = make_plan(pool, ARTICLES, seed=7)
    headings = {section.heading for section in pool.sections}
    sizes = []
    for title in plan.titles[:: ARTICLES // 20]:
        path = title.replace(" ", "_")
        html = built.content(path)
        sizes.append(len(html))
        document = ADAPTER.parse(path, title, html, LIBRARY, view=True)
        assert document.title == title
        lead, *sections = document.sections
        assert lead.id == "" and lead.passages
        content = [s for s in walk(sections) if s.role == "text"]
        assert 3 <= len(content) <= 12
        assert all(s.id and s.title in headings for s in content)
        prose = [p.text for s in content for p in s.passages or () if p.kind == PROSE]
        # Links and citation markers change no word: the paragraphs are real ones (a few
        # real lists read as prose), every word a real word.
        assert prose and sum(text in real for text in prose) >= len(prose) * 0.75
        assert {word for text in prose for word in _words(text)} <= vocabulary
    assert min(sizes) > 2_000 and max(sizes) < 250_000


def test_redirects_and_section_stubs_land_on_articles(built: ZimReader) -> None:
    entries = list(built.iter_entries())
    redirects = [path for path, _title, redirect in entries if redirect]
    assert ARTICLES / 4 <= len(redirects) <= ARTICLES * 0.6
    for path in redirects:
        landed = built.resolve(path)
        assert landed.redirected_from == path and landed.mimetype == "text/html"
        assert ADAPTER.stub_landing(landed.path, built.content(landed.path)) is None
    stubs = []
    for path, _title, redirect in entries:
        if not redirect and (landing := ADAPTER.stub_landing(path, built.content(path))):
            stubs.append(landing)
    assert stubs
    for landing in stubs:
        target = ADAPTER.parse(landing.path, "", built.content(landing.path), LIBRARY)
        assert landing.section in {s.id for s in walk(target.sections)}


def test_the_indexes_find_the_real_words_and_titles(built: ZimReader) -> None:
    # Words only the real text has (the generator's vocabulary is the sources').
    for word in ("Atlantic", "saxophonist", "Presley"):
        assert built.fulltext(word, 5).paths, word
    assert built.fulltext("Sharealike", 5).estimated_total == 0  # the footer is not indexed
    first = next(p for p, _t, redirect in built.iter_entries() if not redirect and p != "index")
    title = built.resolve(first).title
    assert first in {s.path for s in built.suggest(title, 10)}


def test_the_command_writes_a_servable_corpus(sources: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    argv = [str(folder), "--articles", "30", "--sources", str(sources[0].parent)]
    assert wikipedia_like.main(argv) == 0
    manifest = load_manifest(folder / "corpus.toml", folder)
    assert [(lib.name, lib.adapter) for lib in manifest.enabled] == [(LIBRARY, "mediawiki")]
    assert tomllib.loads((folder / "corpus.toml").read_text())["library"][0]["path"] == FILE
    assert ZimReader(folder / FILE).info.article_count > 30


# -- without ../shared/zims: the demo Wikipedia as the source ------------------------------


def test_any_mwoffliner_archive_can_be_the_source(
    demo_archives: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = demo_archives["Wikipedia"]
    folder = tmp_path / "demo-large"
    assert wikipedia_like.main([str(folder), "--articles", "60", "--sources", str(source)]) == 0
    err = capsys.readouterr().err
    assert re.search(r"60 articles, \d+ redirects, \d+ section stubs", err), err
    reader = ZimReader(folder / FILE)
    assert reader.info.family == "mwoffliner" and reader.info.has_fulltext_index
    assert reader.fulltext("inheritance", 5).paths
    assert find_sources([source]) == [source]


def test_missing_sources_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert wikipedia_like.main([str(tmp_path / "out"), "--sources", str(tmp_path)]) == 1
    assert "real archives missing" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError):
        find_sources([tmp_path / "absent.zim"])
    with pytest.raises(SystemExit):
        wikipedia_like.main([str(tmp_path / "out"), "--articles", "0"])
    assert not (tmp_path / "out").exists()


def test_a_source_without_articles_is_refused(
    demo_archives: dict[str, Path], tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="no sectioned articles"):
        read_pool([demo_archives["Python-Docs"]])
    pool = read_pool([demo_archives["Wikipedia"]])
    with pytest.raises(ValueError, match="at least 1"):
        make_plan(pool, 0, seed=0)
    one = make_plan(pool, 1, seed=0)
    assert len(one.titles) == 1
