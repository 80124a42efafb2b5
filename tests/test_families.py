"""Recognising an archive's family: the table on metadata (pure), the entry probes on
archives written like each scraper's and on the real ones in ../shared/zims, and the
adapter a family gets from the registry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from libzim.reader import Archive

import corpus_mcp.adapters
from corpus_mcp.adapters.mediawiki import MediaWikiAdapter
from corpus_mcp.families import (
    LABELS,
    PREFERRED_ADAPTERS,
    PROBE_LIMIT,
    Recognition,
    adapter_for,
    recognise,
)
from corpus_mcp.zim import ZimReader
from corpus_mcp.zim.probes import ArchiveProbe
from corpus_mcp.zim.writer import Page, write_zim

from .family_archives import ARCHIVES, FamilyArchive, write_family_archive


class Entries:
    """A probe over a list of stored paths."""

    def __init__(self, *paths: str) -> None:
        self.paths = sorted(paths)

    def has_entry(self, path: str) -> bool:
        return path in self.paths

    def paths_from(self, prefix: str, limit: int) -> Sequence[str]:
        return [p for p in self.paths if p.startswith(prefix)][:limit]


@pytest.mark.parametrize(
    ("scraper", "tags", "name", "family", "evidence"),
    [
        ("mwoffliner 1.17.5", (), "", "mwoffliner", "Scraper 'mwoffliner 1.17.5'"),
        ("sotoki v3.1.1", (), "", "sotoki", "Scraper 'sotoki v3.1.1'"),
        ("devdocs2zim v0.2.1", (), "", "devdocs2zim", "Scraper 'devdocs2zim v0.2.1'"),
        ("warc2zim 2.3.1,Wget/1.21.3 (linux-gnu)", (), "", "warc2zim", "Scraper 'warc2zim"),
        ("zimit 1.2.0", (), "", "warc2zim", "Scraper 'zimit 1.2.0'"),
        ("gutenberg2zim-3.0.1", (), "", "gutenberg2zim", "Scraper 'gutenberg2zim-3.0.1'"),
        ("fcc2zim v2.1.0", (), "", "fcc2zim", "Scraper 'fcc2zim v2.1.0'"),
        ("mindtouch2zim v0.1.1", (), "", "mindtouch2zim", "Scraper 'mindtouch2zim v0.1.1'"),
        ("libretexts2zim 1.0", (), "", "mindtouch2zim", "Scraper 'libretexts2zim 1.0'"),
        ("ifixit2zim 0.3.1", (), "", "ifixit2zim", "Scraper 'ifixit2zim 0.3.1'"),
        ("ted2zim 3.2.1", (), "", "ted2zim", "Scraper 'ted2zim 3.2.1'"),
        # A zimit crawl of a MediaWiki site is zimit: the Scraper decides before Tags and Name.
        (
            "warc2zim 2.1.3, zimit 2.1.8",
            ("wikipedia",),
            "wiki.archlinux.org_en_all",
            "warc2zim",
            "Scraper 'warc2zim 2.1.3, zimit 2.1.8'",
        ),
        ("mwoffliner 1.14.0", (), "wikihow_en_all", "mwoffliner", "Scraper 'mwoffliner"),
        # No Scraper (2015-2018 archives, ifixit2zim): the Tags, one family among them.
        (None, ("_category:wikipedia",), "", "mwoffliner", "Tags '_category:wikipedia'"),
        (None, ("wikipedia", "novid"), "", "mwoffliner", "Tags 'wikipedia'"),
        (None, ("_category:stack_exchange",), "", "sotoki", "Tags '_category:stack_exchange'"),
        (None, ("devdocs", "python"), "", "devdocs2zim", "Tags 'devdocs'"),
        (None, ("_category:iFixit", "iFixit"), "", "ifixit2zim", "Tags '_category:iFixit'"),
        (None, ("FCC", "freeCodeCamp"), "", "fcc2zim", "Tags 'FCC'"),
        (None, ("_category:gutenberg",), "", "gutenberg2zim", "Tags '_category:gutenberg'"),
        (None, ("libretexts",), "", "mindtouch2zim", "Tags 'libretexts'"),
        (None, ("_category:ted",), "", "ted2zim", "Tags '_category:ted'"),
        # A generic writer's name says nothing: the Tags, then the Name, decide.
        ("zimwriterfs-1.0", ("_category:gutenberg",), "", "gutenberg2zim", "Tags"),
        ("zimwriterfs-1.0", (), "wikipedia_en_all", "mwoffliner", "Name"),
        # Then the Name, of Wikimedia, DevDocs and Stack Exchange archives only.
        (None, ("nopic",), "kiwix.wikibooks_be_all", "mwoffliner", "Name 'kiwix.wikibooks_be_all'"),
        (None, (), "mdwiki_en_all", "mwoffliner", "Name 'mdwiki_en_all'"),
        (None, (), "devdocs_en_python", "devdocs2zim", "Name 'devdocs_en_python'"),
        (None, (), "devdocs.io_en_flask-2.2", "devdocs2zim", "Name"),
        (None, (), "math.stackexchange.com_en_all", "sotoki", "Name"),
        (None, (), "ru.stackoverflow.com_mul_all", "sotoki", "Name"),
        (None, (), "superuser.com_en_all", "sotoki", "Name"),
    ],
)
def test_the_family_from_metadata(
    scraper: str | None, tags: tuple[str, ...], name: str, family: str, evidence: str
) -> None:
    recognised = recognise(scraper=scraper, tags=tags, name=name)
    assert recognised.family == family
    assert recognised.evidence.startswith(evidence)


@pytest.mark.parametrize(
    ("scraper", "tags", "name"),
    [
        # wikiHow is a MediaWiki site, but wikihow_* without mwoffliner's Scraper is not
        # an mwoffliner archive (nor is a _category:wiki... tag).
        (None, ("_category:wikihow", "wikihow"), "wikihow_en_all"),
        (None, (), "wiki.archlinux.org_en_all"),
        (None, (), "wikiwand_en_all"),
        # Two families in the Tags: neither is believed.
        (None, ("ted", "wikipedia"), ""),
        ("", (), ""),
    ],
)
def test_what_names_no_family_is_other_html(
    scraper: str | None, tags: tuple[str, ...], name: str
) -> None:
    recognised = recognise(scraper=scraper, tags=tags, name=name)
    assert recognised.family == "html"
    assert recognised.evidence.startswith("no family recognised from ")
    assert recognised.label == "other HTML"


def test_the_evidence_of_other_html_says_what_was_read() -> None:
    silent = recognise(scraper=None, tags=(), name="")
    assert silent.evidence == (
        "no family recognised from no Scraper, the Tags, no Name or the entries"
    )
    named = recognise(scraper=None, tags=("nopic",), name="talks_en_all")
    assert named.evidence == (
        "no family recognised from no Scraper, the Tags, Name 'talks_en_all' or the entries"
    )


def test_another_scrapers_archive_is_other_html_whatever_its_tags_and_entries() -> None:
    """youtube2zim's archive of TED's channel is tagged "ted" but has no ted2zim layout."""
    recognised = recognise(
        scraper="youtube2zim 3.0",
        tags=("_category:ted", "ted"),
        name="ted_en_all",
        probe=Entries("videos/x/subs/subs_en.vtt"),
    )
    assert recognised == Recognition(
        "html", "Scraper 'youtube2zim 3.0', a scraper of no family of its own"
    )
    # ... but the replay code still shows a zimit crawl, whatever wrapper named it.
    crawl = recognise(
        scraper="browsertrix 1.0", tags=(), name="", probe=Entries("_zim_static/wombat.js")
    )
    assert crawl.family == "warc2zim"


@pytest.mark.parametrize(
    ("paths", "family", "evidence"),
    [
        (("_zim_static/wombat.js", "en.wikipedia.org/wiki/A"), "warc2zim", "entry _zim_static/"),
        (("content/curriculum/a/b/1.md", "index.html"), "fcc2zim", "entry content/curriculum/"),
        (
            ("content/shared.json", "content/page_content_7.json"),
            "mindtouch2zim",
            "entry content/page_content_7.json beside content/shared.json",
        ),
        (("Guide/-/142207", "home/home"), "ifixit2zim", "entry Guide/-/142207"),
        (("videos/abc/subs/subs_fr.vtt", "videos/abc/video.mp4"), "ted2zim", "entry videos/"),
        (
            ("authors.js", "covers/105_cover_image.jpg", "Persuasion_cover.105"),
            "gutenberg2zim",
            "entry covers/105_cover_image.jpg beside authors.js",
        ),
        (("-/j/js_modules/jquery.js", "A/Ray_Charles.html"), "mwoffliner", "entry -/j/js_modules"),
    ],
)
def test_the_family_from_entries(paths: tuple[str, ...], family: str, evidence: str) -> None:
    recognised = recognise(scraper=None, tags=(), name="", probe=Entries(*paths))
    assert (recognised.family, recognised.evidence[: len(evidence)]) == (family, evidence)


@pytest.mark.parametrize(
    "paths",
    [
        ("content/page_content_7.json",),  # no shared.json beside it
        ("covers/105_cover_image.jpg",),  # no authors.js beside it
        ("content/curriculum/index.json",),
        ("Guide/-/not-a-number",),
        ("videos/abc/video.mp4",),
        ("index.html", "style.css"),
    ],
)
def test_entries_that_prove_nothing(paths: tuple[str, ...]) -> None:
    assert recognise(scraper=None, tags=(), name="", probe=Entries(*paths)).family == "html"


def test_the_replay_code_decides_before_tags_and_name() -> None:
    """A warc2zim archive without a Scraper is zimit even with a Wikimedia Name and Tags."""
    recognised = recognise(
        scraper=None,
        tags=("wikipedia",),
        name="wikipedia_en_all",
        probe=Entries("_zim_static/wombat.js"),
    )
    assert recognised == Recognition("warc2zim", "entry _zim_static/wombat.js")


def test_tags_decide_before_entries() -> None:
    recognised = recognise(
        scraper=None, tags=("_category:ted",), name="", probe=Entries("Guide/-/1")
    )
    assert recognised.family == "ted2zim"


# -- the adapter of a family -------------------------------------------------------------------


def test_every_family_has_a_label_and_a_preference() -> None:
    assert set(LABELS) == set(PREFERRED_ADAPTERS)


@pytest.mark.parametrize(
    ("family", "adapter"),
    [
        ("mwoffliner", "mediawiki"),
        ("devdocs2zim", "devdocs"),
        ("sotoki", "stackexchange"),
        ("gutenberg2zim", "html"),  # "gutenberg" not registered: the generic adapter
        ("warc2zim", "html"),
        ("ted2zim", "html"),
        ("html", "html"),
    ],
)
def test_the_first_registered_adapter_else_the_generic_one(family: Any, adapter: str) -> None:
    assert adapter_for(family, {"mediawiki", "devdocs", "stackexchange"}) == adapter


def test_a_family_gets_its_own_adapter_once_it_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = corpus_mcp.adapters.ADAPTERS
    monkeypatch.delitem(registry, "gutenberg", raising=False)
    monkeypatch.delitem(registry, "ted", raising=False)
    monkeypatch.delitem(registry, "ifixit", raising=False)
    assert adapter_for("gutenberg2zim", registry) == "html"
    assert adapter_for("ted2zim", registry) == "html"
    monkeypatch.setitem(registry, "gutenberg", MediaWikiAdapter)
    monkeypatch.setitem(registry, "ted", MediaWikiAdapter)
    assert adapter_for("gutenberg2zim", registry) == "gutenberg"
    assert adapter_for("ted2zim", registry) == "ted"
    assert adapter_for("ifixit2zim", registry) == "html"


# -- archives: written like each scraper's, and the real ones -----------------------------------


@pytest.mark.parametrize("archive", ARCHIVES, ids=lambda a: a.file)
@pytest.mark.parametrize("bare", [False, True], ids=["metadata", "entries-only"])
def test_archives_of_every_family(archive: FamilyArchive, bare: bool, tmp_path: Path) -> None:
    file = write_family_archive(tmp_path, archive, bare=bare)
    info = ZimReader(file).info
    assert info.family == archive.family, info.family_evidence
    if not bare and "Scraper" in archive.metadata:
        assert info.family_evidence == f"Scraper {archive.metadata['Scraper']!r}"
    elif archive.family != "html" and bare:
        assert info.family_evidence.startswith("entry ")


REAL = {
    "families/docs.python.org_en_all_2026-12.zim": ("warc2zim", "entry _zim_static/wombat.js"),
    "families/gutenberg_en_all_2026-12.zim": ("gutenberg2zim", "entry covers/"),
    "families/freecodecamp_en_javascript_2026-12.zim": ("fcc2zim", "entry content/curriculum/"),
    "families/libretexts.org_en_chem_2026-12.zim": ("mindtouch2zim", "entry content/page_"),
    "families/ifixit_en_selection_2026-12.zim": ("ifixit2zim", "entry Guide/-/142207"),
    "families/ted_en_science_2026-12.zim": ("ted2zim", "entry videos/98765/subs/subs_en.vtt"),
    "wikipedia_en_ray_charles_novid_2018-10.zim": ("mwoffliner", "entry -/j/js_modules/"),
    "real/devdocs.io_en_flask-2.2_2026-12.zim": ("html", "no family recognised"),
}


@pytest.mark.parametrize(("file", "expected"), REAL.items(), ids=list(REAL))
def test_the_real_archives_by_their_entries_alone(
    shared_zims: Path, file: str, expected: tuple[str, str]
) -> None:
    """Every real archive of a family with entry probes is recognised with its metadata
    ignored (devdocs2zim has none: its Scraper is always there)."""
    recognised = recognise(
        scraper=None, tags=(), name="", probe=ArchiveProbe(Archive(shared_zims / file))
    )
    assert recognised.family == expected[0]
    assert recognised.evidence.startswith(expected[1])


REAL_METADATA = {
    "families/docs.python.org_en_all_2026-12.zim": "warc2zim",
    "families/gutenberg_en_all_2026-12.zim": "gutenberg2zim",
    "families/freecodecamp_en_javascript_2026-12.zim": "fcc2zim",
    "families/libretexts.org_en_chem_2026-12.zim": "mindtouch2zim",
    "families/ifixit_en_selection_2026-12.zim": "ifixit2zim",
    "families/ted_en_science_2026-12.zim": "ted2zim",
    "real/devdocs.io_en_flask-2.2_2026-12.zim": "devdocs2zim",
    "real/math.stackexchange.com_en_all_2026-12.zim": "sotoki",
    "wikipedia_en_100_mini_2022-10.zim": "mwoffliner",
    "wikibooks_be_all_nopic_2017-02.zim": "mwoffliner",
}


@pytest.mark.parametrize(("file", "family"), REAL_METADATA.items(), ids=list(REAL_METADATA))
def test_the_real_archives(shared_zims: Path, file: str, family: str) -> None:
    assert ZimReader(shared_zims / file).info.family == family


# -- the probe ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_entries(tmp_path_factory: pytest.TempPathFactory) -> Archive:
    pages = [Page(path=f"a/{i:03d}", content="x", mimetype="text/plain") for i in range(150)]
    pages += [Page(path=f"b/{i:03d}", content="x", mimetype="text/plain") for i in range(5)]
    pages.append(Page(path="c", content="x", mimetype="text/plain"))
    file = write_zim(
        tmp_path_factory.mktemp("probe") / "many.zim",
        pages=pages,
        metadata={"Title": "Many"},
        fulltext_index=False,
    )
    return Archive(file)


def test_the_probe_finds_the_paths_under_a_prefix(many_entries: Archive) -> None:
    probe = ArchiveProbe(many_entries)
    assert probe.paths_from("b/", PROBE_LIMIT) == [f"b/{i:03d}" for i in range(5)]
    assert probe.paths_from("a/", 3) == ["a/000", "a/001", "a/002"]
    assert len(probe.paths_from("a/", PROBE_LIMIT)) == PROBE_LIMIT  # a few, never all
    assert probe.paths_from("a/14", PROBE_LIMIT) == [f"a/14{i}" for i in range(10)]
    assert probe.paths_from("c", 5) == ["c"]
    assert probe.paths_from("d/", 5) == []  # after every entry
    assert probe.paths_from("0", 5) == []  # before every entry, none under it
    assert probe.has_entry("c") and not probe.has_entry("d")


class Damaged:
    """An archive whose dirents fail to read, as libzim fails on a corrupt one."""

    entry_count = 10

    def has_entry_by_path(self, path: str) -> bool:
        raise RuntimeError("Cannot read dirent")

    def _get_entry_by_id(self, index: int) -> Any:
        raise RuntimeError("Cannot read dirent")


def test_a_damaged_archive_proves_nothing() -> None:
    probe = ArchiveProbe(Damaged())
    assert not probe.has_entry("_zim_static/wombat.js")
    assert probe.paths_from("videos/", 5) == ()
    assert recognise(scraper=None, tags=(), name="", probe=probe).family == "html"
