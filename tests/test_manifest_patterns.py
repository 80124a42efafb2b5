"""A manifest ``path`` that is a pattern: the newest snapshot present, and every refusal.

``wikipedia/wikipedia_en_all_nopic_*.zim`` resolves to the newest file it matches, by the
``_YYYY-MM`` date ending Kiwix file names (a rebuild letter after it is newer still). Two
files of the newest date, a match without a date, nothing matched where an archive is
needed, wildcards in a folder name, a pattern not ending in ``.zim``, and anything leading
out of CORPUS_ROOT are errors naming the library. ``list`` and ``validate`` show the file a
pattern chose (the real CLI below); the shipped manifest and SIGHUP are in
test_shipped_manifest.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpus_mcp.config import ConfigError, Library, load_manifest
from corpus_mcp.snapshots import Newest, Snapshot, newest, snapshot_in_name, without_snapshot
from corpus_mcp.zim.writer import Page, write_zim

from .test_cli import run, settings

WIKIPEDIA = "wikipedia/wikipedia_en_all_nopic_*.zim"


def _touch(root: Path, *relatives: str) -> None:
    for relative in relatives:
        file = root / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(b"zim")  # never opened by the manifest


def _manifest(tmp_path: Path, path: str, *, enabled: bool = True) -> Path:
    config = tmp_path / "corpus.toml"
    config.write_text(
        f'version = 1\n[[library]]\nname = "wikipedia"\npath = "{path}"\n'
        f'adapter = "mediawiki"\nenabled = {str(enabled).lower()}\n'
        '[[library]]\nname = "other"\npath = "other.zim"\nadapter = "mediawiki"\n',
        encoding="utf-8",
    )
    return config


@pytest.fixture
def root(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    _touch(corpus, "other.zim")
    return corpus


def _wikipedia(tmp_path: Path, root: Path, path: str = WIKIPEDIA, **options: bool) -> Library:
    manifest = load_manifest(_manifest(tmp_path, path), root, **options)
    [library] = [lib for lib in manifest.libraries if lib.name == "wikipedia"]
    return library


def _refusal(tmp_path: Path, root: Path, path: str, **options: bool) -> str:
    with pytest.raises(ConfigError) as caught:
        load_manifest(_manifest(tmp_path, path), root, **options)
    message = str(caught.value)
    assert "library #1 'wikipedia': field 'path': " in message
    assert "'other'" not in message
    return message


# -- snapshot dates in file names -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "snapshot"),
    [
        ("wikipedia_en_all_nopic_2026-05.zim", Snapshot("2026-05")),
        ("wikipedia_en_all_maxi_2026-05a.zim", Snapshot("2026-05", "a")),
        ("devdocs_en_c_2025-11", Snapshot("2025-11")),
        ("x_2026-05.zimaa", Snapshot("2026-05")),
        ("x_2026-13.zim", None),  # no month 13
        ("x_2026-05_copy.zim", None),  # the date must end the name
        ("gutenberg_en_all.zim", None),
    ],
)
def test_the_snapshot_date_ends_the_file_name(name: str, snapshot: Snapshot | None) -> None:
    assert snapshot_in_name(name) == snapshot


def test_a_rebuild_is_newer_than_its_month_and_older_than_the_next() -> None:
    assert Snapshot("2026-05") < Snapshot("2026-05", "a") < Snapshot("2026-06")
    assert str(Snapshot("2026-05", "a")) == "2026-05a"
    assert without_snapshot("wikipedia_en_all_maxi_2026-05a") == "wikipedia_en_all_maxi"


def test_the_newest_of_names() -> None:
    names = ["w_2025-12.zim", "w_2026-05a.zim", "w_2026-05.zim", "w_2026-01.zim"]
    assert newest(names) == Newest(name="w_2026-05a.zim", snapshot=Snapshot("2026-05", "a"))
    assert newest([]) == Newest(name=None)
    tie = newest(["w_maxi_2026-05.zim", "w_nopic_2026-05.zim", "w_2026-04.zim"])
    assert tie == Newest(
        name=None, snapshot=Snapshot("2026-05"), tied=("w_maxi_2026-05.zim", "w_nopic_2026-05.zim")
    )
    assert newest(["w_2026-05.zim", "w_latest.zim"]) == Newest(name=None, undated=("w_latest.zim",))


# -- resolving a pattern ------------------------------------------------------------------


def test_a_pattern_serves_the_newest_snapshot(tmp_path: Path, root: Path) -> None:
    _touch(
        root,
        "wikipedia/wikipedia_en_all_nopic_2026-04.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-06.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
        "wikipedia/wikipedia_en_all_maxi_2026-09.zim",  # another flavour: not matched
    )
    library = _wikipedia(tmp_path, root)
    assert library.path == WIKIPEDIA
    assert library.is_pattern
    assert library.archive == "wikipedia/wikipedia_en_all_nopic_2026-06.zim"
    assert library.file == (root / library.archive).resolve()
    assert library.unresolved is None
    other = load_manifest(_manifest(tmp_path, WIKIPEDIA), root).libraries[1]
    assert not other.is_pattern and other.archive == "other.zim"


def test_a_rebuild_of_the_newest_month_is_chosen(tmp_path: Path, root: Path) -> None:
    _touch(
        root,
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-05a.zim",
    )
    assert _wikipedia(tmp_path, root).archive == "wikipedia/wikipedia_en_all_nopic_2026-05a.zim"


def test_a_pattern_at_the_top_of_the_root_and_with_other_wildcards(
    tmp_path: Path, root: Path
) -> None:
    _touch(
        root, "devdocs_en_c_2026-04.zim", "devdocs_en_c_2026-05.zim", "devdocs_en_cpp_2026-07.zim"
    )
    chosen = _wikipedia(tmp_path, root, "devdocs_en_c_20??-0[0-9].zim")
    assert chosen.archive == "devdocs_en_c_2026-05.zim"
    assert _wikipedia(tmp_path, root, "./devdocs_en_c_*.zim").archive == "devdocs_en_c_2026-05.zim"


def test_what_is_no_snapshot_is_not_matched(tmp_path: Path, root: Path) -> None:
    """Hidden files (rsync's temporary ones), downloads in progress, folders and dangling
    links are no snapshots: the newest real file is served."""
    folder = root / "wikipedia"
    _touch(
        root,
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
        "wikipedia/.wikipedia_en_all_nopic_2026-08.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-07.zim.part",
    )
    (folder / "wikipedia_en_all_nopic_2026-09.zim").mkdir()
    (folder / "wikipedia_en_all_nopic_2026-10.zim").symlink_to(folder / "gone.zim")
    assert _wikipedia(tmp_path, root).archive == "wikipedia/wikipedia_en_all_nopic_2026-05.zim"


def test_a_symlinked_snapshot_inside_the_root_is_served(tmp_path: Path, root: Path) -> None:
    _touch(root, "store/wikipedia_en_all_nopic_2026-06.zim")
    (root / "wikipedia").mkdir()
    link = root / "wikipedia" / "wikipedia_en_all_nopic_2026-06.zim"
    link.symlink_to(root / "store" / "wikipedia_en_all_nopic_2026-06.zim")
    library = _wikipedia(tmp_path, root)
    assert library.archive == "wikipedia/wikipedia_en_all_nopic_2026-06.zim"
    assert library.file == (root / "store" / "wikipedia_en_all_nopic_2026-06.zim").resolve()


# -- refusals ----------------------------------------------------------------------------


def test_a_pattern_matching_nothing_fails_naming_the_library_and_how_to_go_on(
    tmp_path: Path, root: Path
) -> None:
    _touch(root, "wikipedia/wikipedia_en_all_maxi_2026-05.zim")
    message = _refusal(tmp_path, root, WIKIPEDIA)
    assert f"pattern {WIKIPEDIA!r} matches no archive in {(root / 'wikipedia').resolve()}" in (
        message
    )
    assert "set enabled = false" in message
    assert "1 enabled library(ies) without an archive in CORPUS_ROOT" in message
    assert "): wikipedia; to go on," in message
    assert "`corpus-mcp init` (`make init`; it replaces an existing manifest only with --force" in (
        message
    )


def test_a_pattern_whose_folder_is_absent_matches_nothing(tmp_path: Path, root: Path) -> None:
    assert "matches no archive in" in _refusal(tmp_path, root, WIKIPEDIA)


def test_two_files_of_the_newest_snapshot_are_a_tie(tmp_path: Path, root: Path) -> None:
    _touch(
        root,
        "wikipedia/wikipedia_en_all_maxi_2026-05.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-04.zim",
    )
    message = _refusal(tmp_path, root, "wikipedia/wikipedia_en_all_*.zim")
    assert (
        "pattern 'wikipedia/wikipedia_en_all_*.zim' matches 2 files of the newest snapshot, "
        "2026-05: 'wikipedia_en_all_maxi_2026-05.zim', 'wikipedia_en_all_nopic_2026-05.zim'; "
        "keep one of them, or narrow the pattern to one (e.g. name the flavour"
    ) in message
    assert "without an archive" not in message  # there are archives; the choice is the problem


def test_a_match_without_a_date_is_refused(tmp_path: Path, root: Path) -> None:
    _touch(
        root,
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
        "wikipedia/wikipedia_en_all_nopic_backup.zim",
    )
    message = _refusal(tmp_path, root, WIKIPEDIA)
    assert "matches 'wikipedia_en_all_nopic_backup.zim' without a _YYYY-MM snapshot date" in (
        message
    )
    assert "write one file's path instead of a pattern" in message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "wiki*/wikipedia_en_all_nopic_*.zim",
            f"wildcards (*, ?, [...]) are accepted in the file name only, e.g. {WIKIPEDIA!r}",
        ),
        (
            "wikipedia/wikipedia_en_all_nopic_*",
            "must end in .zim, so that it never matches a download in progress (.zim.part)",
        ),
        ("../elsewhere/x_*.zim", "the folder of pattern '../elsewhere/x_*.zim' resolves to"),
        ("/corpus/wikipedia/*.zim", "is absolute; accepted: a path relative to CORPUS_ROOT"),
    ],
)
def test_a_malformed_pattern_is_refused_even_for_list(
    tmp_path: Path, root: Path, path: str, expected: str
) -> None:
    assert expected in _refusal(tmp_path, root, path, check_files=False)


def test_a_match_leading_out_of_the_root_is_refused(tmp_path: Path, root: Path) -> None:
    outside = tmp_path / "elsewhere_2026-05.zim"
    outside.write_bytes(b"zim")
    _touch(root, "wikipedia/wikipedia_en_all_nopic_2026-04.zim")
    (root / "wikipedia" / "wikipedia_en_all_nopic_2026-05.zim").symlink_to(outside)
    message = _refusal(tmp_path, root, WIKIPEDIA)
    assert (
        f"pattern {WIKIPEDIA!r} matches 'wikipedia/wikipedia_en_all_nopic_2026-05.zim', which "
        f"resolves to {outside.resolve()}, outside CORPUS_ROOT"
    ) in message


def test_a_pattern_folder_that_loops_is_refused(tmp_path: Path, root: Path) -> None:
    (root / "loop").symlink_to(root / "loop")
    assert "the folder of pattern 'loop/x_*.zim' cannot be resolved" in _refusal(
        tmp_path, root, "loop/x_*.zim"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists a folder whatever its mode")
def test_a_folder_that_cannot_be_listed_is_refused(tmp_path: Path, root: Path) -> None:
    _touch(root, "wikipedia/wikipedia_en_all_nopic_2026-05.zim")
    (root / "wikipedia").chmod(0)
    try:
        message = _refusal(tmp_path, root, WIKIPEDIA)
    finally:
        (root / "wikipedia").chmod(0o755)
    assert f"pattern {WIKIPEDIA!r}: cannot list {(root / 'wikipedia').resolve()}" in message


def test_a_folder_the_system_refuses_to_list_is_refused(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same refusal where the tests run as root (whom no mode stops): the system's
    answer stood in for."""
    _touch(root, "wikipedia/wikipedia_en_all_nopic_2026-05.zim")

    def refused(path: object) -> list[str]:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "listdir", refused)
    message = _refusal(tmp_path, root, WIKIPEDIA)
    assert (
        f"pattern {WIKIPEDIA!r}: cannot list {(root / 'wikipedia').resolve()}: Permission denied"
    ) in message


def test_where_no_archive_is_needed_a_pattern_may_choose_none(tmp_path: Path, root: Path) -> None:
    """A disabled library, and ``list``, say why instead of refusing."""
    _touch(
        root,
        "wikipedia/wikipedia_en_all_maxi_2026-05.zim",
        "wikipedia/wikipedia_en_all_nopic_2026-05.zim",
    )
    listed = _wikipedia(tmp_path, root, "wikipedia/nothing_*.zim", check_files=False)
    assert listed.unresolved == "matches no archive"
    assert not listed.file.exists()
    assert listed.archive == "wikipedia/nothing_*.zim"
    tie = _wikipedia(tmp_path, root, "wikipedia/wikipedia_en_all_*.zim", check_files=False)
    assert tie.unresolved is not None and tie.unresolved.startswith("matches 2 files of the")
    config = _manifest(tmp_path, "wikipedia/nothing_*.zim", enabled=False)
    disabled = load_manifest(config, root).libraries[0]
    assert (disabled.enabled, disabled.unresolved) == (False, "matches no archive")


# -- list and validate show what each pattern chose -----------------------------------------


def _archive(file: Path, name: str, **metadata: str) -> None:
    content = f"<html><body><p>{name} text</p></body></html>"
    write_zim(
        file,
        pages=[Page(path="index", title=name, content=content)],
        metadata={"Title": name, "Name": name, **metadata},
        main_path="index",
    )


def test_list_and_validate_show_the_file_each_pattern_chose(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    for month in ("2026-04", "2026-05"):
        _archive(root / "wikipedia" / f"wikipedia_en_all_nopic_{month}.zim", "wikipedia_en_all")
    _archive(root / "other.zim", "other")
    config = tmp_path / "corpus.toml"
    config.write_text(
        f'version = 1\n[[library]]\nname = "wikipedia"\npath = "{WIKIPEDIA}"\n'
        'adapter = "mediawiki"\n[[library]]\nname = "other"\npath = "other.zim"\n'
        'adapter = "mediawiki"\n[[library]]\nname = "later"\npath = "later/later_*.zim"\n'
        'adapter = "mediawiki"\nenabled = false\n',
        encoding="utf-8",
    )
    chosen = "wikipedia/wikipedia_en_all_nopic_2026-05.zim"
    listed = run("list", env=settings(root, config))
    assert listed.code == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[3:6]}
    assert rows["wikipedia"][:5] == ["wikipedia", "mediawiki", "yes", WIKIPEDIA, chosen]
    assert rows["later"][3:] == ["later/later_*.zim", "-", "missing", "-"]
    assert "later: later/later_*.zim matches no archive" in listed.stdout
    assert "wikipedia: " not in listed.stdout  # its pattern chose: the table says which

    validated = run("validate", env=settings(root, config))
    assert validated.code == 0, validated.stderr
    wikipedia_row = next(line for line in validated.stdout.splitlines() if line.startswith("wiki"))
    assert wikipedia_row.split()[:3] == ["wikipedia", "mediawiki", chosen]
    assert "2026-05" in wikipedia_row.split()
    assert f"pattern: wikipedia: {WIKIPEDIA} -> {chosen}" in validated.stdout
    assert "pattern: later" not in validated.stdout  # disabled: not opened, not reported
    assert "2 enabled library(ies) ok" in validated.stdout


def test_validate_refuses_a_tie_naming_the_library(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    _touch(root, "wikipedia/wikipedia_en_all_maxi_2026-05.zim")
    _touch(root, "wikipedia/wikipedia_en_all_nopic_2026-05.zim")
    config = tmp_path / "corpus.toml"
    config.write_text(
        'version = 1\n[[library]]\nname = "wikipedia"\npath = "wikipedia/wikipedia_en_all_*.zim"\n'
        'adapter = "mediawiki"\n',
        encoding="utf-8",
    )
    result = run("validate", env=settings(root, config))
    assert result.code == 2
    assert result.stdout == ""
    assert "library #1 'wikipedia': field 'path': pattern 'wikipedia/wikipedia_en_all_*.zim' " in (
        result.stderr
    )
    assert "matches 2 files of the newest snapshot, 2026-05" in result.stderr
    assert "Traceback" not in result.stderr
