"""Library names for ``corpus-mcp init`` (pure): readable, valid, unique, suffixed only
where two archives would otherwise share a name; and the plan around them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import corpus_mcp.adapters
from corpus_mcp import refs
from corpus_mcp.adapters.mediawiki import MediaWikiAdapter
from corpus_mcp.config import LIBRARY_NAME_PATTERN, load_manifest
from corpus_mcp.families import recognise
from corpus_mcp.init.names import deduplicate, identity_of, readable_base, unique_names
from corpus_mcp.init.plan import Archive, plan_libraries
from corpus_mcp.init.render import render_manifest, toml_string
from corpus_mcp.zim import ArchiveInfo

NAME_STYLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*")
"""Words of letters, digits and dots (``3.11``) joined by single hyphens."""


def info(name: str, file: str, **fields: Any) -> ArchiveInfo:
    """Metadata as ZimReader reports it; the family recognised as the reader would (from
    the metadata: these archives have no entries)."""
    values: dict[str, Any] = {
        "file": f"/corpus/{file}",
        "size": 1_234_567,
        "uuid": f"uuid-{file}",
        "title": name or file,
        "name": name,
        "snapshot": "2026-05",
        "language": "eng",
        "entry_count": 1200,
        "article_count": 1000,
        "scraper": None,
        "tags": (),
        "flavour": None,
        "has_fulltext_index": True,
        "has_title_index": True,
        "new_namespace_scheme": True,
        "main_path": None,
    } | fields
    recognised = recognise(scraper=values["scraper"], tags=values["tags"], name=name)
    values["family"], values["family_evidence"] = recognised.family, recognised.evidence
    return ArchiveInfo(**values)


@pytest.mark.parametrize(
    ("name", "file", "expected"),
    [
        ("wikipedia_en_all", "wikipedia_en_all_maxi_2026-05.zim", "Wikipedia"),
        (
            "kiwix.wikipedia_en_ray_charles",
            "wikipedia_en_ray_charles_novid_2018-10.zim",
            "Wikipedia",
        ),
        ("mdwiki_en_all", "mdwiki_en_all_maxi_2025-11.zim", "MDWiki"),
        ("wiktionary_fr_all", "wiktionary_fr_all_nopic_2026-01.zim", "Wiktionary"),
        ("devdocs_en_python", "devdocs_en_python_2026-05.zim", "Python-Docs"),
        ("devdocs.io_en_cpp", "devdocs_en_cpp_2026-04.zim", "Cpp-Docs"),
        ("devdocs_en_postgresql", "devdocs_en_postgresql_2026-04.zim", "PostgreSQL-Docs"),
        ("devdocs_en_javascript", "devdocs_en_javascript_2026-04.zim", "JavaScript-Docs"),
        ("devdocs_en_python~3.11", "devdocs_en_python~3.11_2026-04.zim", "Python-3.11-Docs"),
        ("stackoverflow.com_en_all", "stackoverflow.com_en_all_2025-05.zim", "StackOverflow"),
        ("math.stackexchange.com_en_all", "math.stackexchange.com_en_all_2025-05.zim", "Math-SE"),
        (
            "meta.math.stackexchange.com_en_all",
            "meta.math.stackexchange.com_en_all_2025-05.zim",
            "Meta-Math-SE",
        ),
        (
            "ru.stackoverflow.com_mul_all",
            "ru.stackoverflow.com_mul_all_2025-05.zim",
            "StackOverflow",
        ),
        ("", "gutenberg_en_all_2026-01.zim", "Gutenberg"),
        ("vikidia.org_fr_all", "vikidia_fr_all_maxi_2026-01.zim", "Vikidia"),
        ("ÉCOLE (beta)!!_fr", "ecole.zim", "ECOLE-Beta"),
    ],
)
def test_readable_base_names(name: str, file: str, expected: str) -> None:
    assert readable_base(identity_of(info(name, file))) == expected


@pytest.mark.parametrize(
    ("name", "fields", "expected"),
    [
        # Other families: the Title where it reads as a name (words joined by "-").
        (
            "docs.python.org_en_all",
            {"title": "Python 3.11 documentation", "scraper": "warc2zim 2.3.1"},
            "Python-3.11-Documentation",
        ),
        ("libretexts.org_en_chem", {"title": "LibreTexts Chemistry"}, "LibreTexts-Chemistry"),
        (
            "freecodecamp_en_javascript",
            {"title": "freeCodeCamp JavaScript"},
            "freeCodeCamp-JavaScript",
        ),
        ("gutenberg_en_all", {"title": "Project Gutenberg Library"}, "Project-Gutenberg-Library"),
        ("wiki.archlinux.org_en_all", {"title": "ArchWiki", "scraper": "warc2zim"}, "ArchWiki"),
        ("site_fr_all", {"title": "Wikipédia hors ligne"}, "Wikipedia-Hors-Ligne"),
        # Else the Name's project, its brand spelled right, a domain by its own label.
        ("ifixit_en_selection", {"title": "iFixit in English"}, "iFixit"),
        ("ted_en_science", {"title": "TED talks - Science"}, "TED"),
        ("freecodecamp_en_javascript", {"title": "freecodecamp_en_javascript"}, "freeCodeCamp"),
        ("docs.python.org_en_all", {"title": "docs.python.org_en_all_2026-12"}, "Python"),
        ("chem.libretexts.org_en_all", {"title": "C++ (the book)"}, "LibreTexts"),
        ("example.co.uk_en_all", {"title": "a_title_with_underscores"}, "Example"),
        ("wikihow_en_all", {"title": "how to do anything, step by step"}, "wikiHow"),
        ("notes_en_all", {"title": "One two three four five six words"}, "Notes"),
        ("notes_en_all", {"title": "An overly long title of many chars"}, "Notes"),
        # Families named by their Name keep the names their refs already use.
        ("wikipedia_en_100", {"title": "Wikipedia 100", "scraper": "mwoffliner 1.11"}, "Wikipedia"),
        (
            "devdocs_en_flask",
            {"title": "Flask 2.2 Docs", "scraper": "devdocs2zim"},
            "Flask-Docs",
        ),
    ],
)
def test_names_as_people_write_them(name: str, fields: dict[str, Any], expected: str) -> None:
    named = readable_base(identity_of(info(name, f"{name}_2026-12.zim", **fields)))
    assert named == expected
    assert LIBRARY_NAME_PATTERN.match(named)


def test_identity_reads_language_selection_flavour_and_snapshot() -> None:
    old = identity_of(
        info("kiwix.wikipedia_en_ray_charles", "wikipedia_en_ray_charles_novid_2018-10.zim")
    )
    assert (old.key, old.language, old.selection, old.flavour) == (
        "wikipedia_en_ray_charles",
        "en",
        "ray_charles",
        "novid",
    )
    tagged = identity_of(info("wikibooks_be_all", "wb.zim", tags=("nopic",), language="bel"))
    assert (tagged.language, tagged.flavour) == ("be", "nopic")
    flavoured = identity_of(info("wikipedia_en_100", "w.zim", flavour="_mini"))
    assert flavoured.flavour == "mini"
    language_site = identity_of(info("ru.stackoverflow.com_mul_all", "ru.zim"))
    assert (language_site.project, language_site.language) == ("stackoverflow.com", "ru")


def names_of(*archives: ArchiveInfo) -> list[str]:
    return unique_names([identity_of(archive) for archive in archives])


def test_a_single_archive_of_a_project_gets_no_suffix() -> None:
    assert names_of(
        info("wikipedia_en_all", "wikipedia_en_all_maxi_2026-05.zim"),
        info("stackoverflow.com_en_all", "stackoverflow.com_en_all_2026-05.zim"),
    ) == ["Wikipedia", "StackOverflow"]


def test_suffixes_only_where_needed() -> None:
    assert names_of(
        info("wikipedia_en_all", "wikipedia_en_all_maxi_2026-05.zim"),
        info("wikipedia_en_medicine", "wikipedia_en_medicine_maxi_2026-05.zim"),
        info("wikipedia_fr_all", "wikipedia_fr_all_maxi_2026-05.zim", language="fra"),
    ) == ["Wikipedia-en", "Wikipedia-en-medicine", "Wikipedia-fr"]
    assert names_of(
        info("wikipedia_en_all", "wikipedia_en_all_maxi_2026-05.zim"),
        info("wikipedia_en_medicine", "wikipedia_en_medicine_maxi_2026-05.zim"),
    ) == ["Wikipedia", "Wikipedia-medicine"]
    assert names_of(
        info("wikipedia_en_100", "a.zim", flavour="mini"),
        info("wikipedia_en_ray_charles", "b.zim", flavour="mini"),
        info("wikipedia_en_ray_charles", "c.zim", flavour="nopic"),
    ) == ["Wikipedia-100", "Wikipedia-ray-charles-mini", "Wikipedia-ray-charles-nopic"]


def test_names_stay_valid_and_unique_whatever_the_metadata() -> None:
    archives = [
        info("x" * 200 + "_en_all", "long.zim"),
        info("x" * 200 + "_en_all", "long2.zim"),
        info("", "---.zim"),
        info("", "___.zim"),
        info("日本語_ja_all", "ja.zim"),
        info("WIKIPEDIA_en_all", "upper.zim"),
        info("wikipedia_en_all", "lower.zim"),
    ]
    names = names_of(*archives)
    assert all(LIBRARY_NAME_PATTERN.match(name) for name in names), names
    assert len({name.lower() for name in names}) == len(names)
    # One style: words joined by single hyphens, nothing a ref would escape.
    assert all(NAME_STYLE.fullmatch(name) for name in names), names
    assert all(refs.encode(name, "x") == f"corpus://{name}/x" for name in names)


def test_deduplicate_counts_from_two_ignoring_case() -> None:
    assert deduplicate(["Wiki", "wiki", "WIKI", "Other"]) == ["Wiki", "wiki-2", "WIKI-3", "Other"]


# -- the plan --------------------------------------------------------------------------------


def plan(*archives: tuple[str, ArchiveInfo]) -> tuple[list[Any], list[Any]]:
    return plan_libraries([Archive(path, archive) for path, archive in archives])


def test_the_newest_snapshot_is_enabled_and_keeps_the_plain_name() -> None:
    older = info("wikipedia_en_all", "wikipedia_en_all_maxi_2025-11.zim", snapshot="2025-11")
    newer = info("wikipedia_en_all", "wikipedia_en_all_maxi_2026-05.zim")
    entries, skipped = plan(("old/w.zim", older), ("new/w.zim", newer))
    assert skipped == []
    by_path = {entry.path: entry for entry in entries}
    assert (by_path["new/w.zim"].name, by_path["new/w.zim"].enabled) == ("Wikipedia", True)
    disabled = by_path["old/w.zim"]
    assert (disabled.name, disabled.enabled) == ("Wikipedia-2025-11", False)
    assert (
        "the same library (Name wikipedia_en_all) as new/w.zim, which is enabled: this is "
        "snapshot 2025-11 (maxi), that snapshot 2026-05 (maxi)"
    ) in (disabled.disabled_because or "")


def test_of_one_snapshot_the_flavour_with_the_most_text_is_enabled() -> None:
    mini = info("wikipedia_en_all", "wikipedia_en_all_mini_2026-05.zim", flavour="mini")
    nopic = info("wikipedia_en_all", "wikipedia_en_all_nopic_2026-05.zim", flavour="nopic")
    entries, _ = plan(("mini.zim", mini), ("nopic.zim", nopic))
    assert [(e.name, e.enabled) for e in entries] == [
        ("Wikipedia-mini", False),
        ("Wikipedia", True),
    ]


def test_a_second_copy_of_an_archive_is_left_out() -> None:
    original = info("devdocs_en_python", "devdocs_en_python_2026-05.zim", scraper="devdocs2zim")
    entries, skipped = plan(("a/p.zim", original), ("b/p.zim", original))
    assert [entry.path for entry in entries] == ["a/p.zim"]
    assert skipped[0].path == "b/p.zim"
    assert "the same archive (UUID) as a/p.zim" in skipped[0].reason


def test_an_archive_of_no_known_family_is_served_by_the_generic_adapter() -> None:
    odd = info("talks_en_all", "talks_en_all_2026-01.zim", scraper="youtube2zim 3.0")
    [entry], _ = plan(("talks.zim", odd))
    assert (entry.name, entry.adapter, entry.enabled) == ("Talks", "html", True)
    assert entry.disabled_because is None


@pytest.mark.parametrize(
    ("scraper", "tags", "adapter"),
    [
        ("ted2zim 3.2.1", (), "ted"),
        ("gutenberg2zim-3.0.1", (), "gutenberg"),
        ("warc2zim 2.3.1", (), "html"),
        ("mwoffliner 1.17.5", (), "mediawiki"),
        (None, ("_category:iFixit",), "ifixit"),
    ],
)
def test_each_family_gets_its_registered_adapter(
    monkeypatch: pytest.MonkeyPatch, scraper: str | None, tags: tuple[str, ...], adapter: str
) -> None:
    monkeypatch.setitem(corpus_mcp.adapters.ADAPTERS, "gutenberg", MediaWikiAdapter)
    [entry], _ = plan(("a.zim", info("a_en_all", "a.zim", scraper=scraper, tags=tags)))
    assert (entry.adapter, entry.enabled) == (adapter, True)


# -- rendering -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["plain", 'quo"te', "back\\slash", "tab\tnew\nline", "del\x7f", "bell\x07", "é 😀"]
)
def test_toml_string_round_trips(text: str) -> None:
    assert tomllib.loads(f"value = {toml_string(text)}")["value"] == text


def test_the_rendered_manifest_loads_with_the_server_loader(tmp_path: Path) -> None:
    (tmp_path / "a b").mkdir()
    (tmp_path / "a b" / 'we"ird.zim').write_bytes(b"")
    (tmp_path / "w.zim").write_bytes(b"")
    odd = info(
        "ted_en_all", "ted.zim", scraper="mwoffliner 1.17", title="TED\ntalks # not a comment"
    )
    entries, skipped = plan(
        ('a b/we"ird.zim', info("wikipedia_en_all", "we.zim")),
        ("w.zim", odd),
    )
    text = render_manifest(entries, skipped, root=tmp_path, origin=f"folder {tmp_path}")
    (tmp_path / "corpus.toml").write_text(text)
    manifest = load_manifest(tmp_path / "corpus.toml", tmp_path)
    assert [(lib.name, lib.path, lib.enabled) for lib in manifest.libraries] == [
        ("Wikipedia", 'a b/we"ird.zim', True),
        ("TED", "w.zim", True),
    ]
    assert "# TED talks # not a comment (eng, snapshot 2026-05, 1.2 MB, 1,200 entries," in text
    assert "full-text index: yes)" in text
    assert f"which must be {tmp_path}" in text
