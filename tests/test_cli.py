"""The real ``corpus-mcp`` console script: output and exit codes of validate, list, help
(search and fetch: test_cli_tools.py; init: test_cli_init.py; stdio: test_server_stdio.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from corpus_mcp.console import human_size, render_table
from corpus_mcp.zim.writer import Page, write_zim

CORPUS_MCP = Path(sys.executable).parent / "corpus-mcp"


class Run(msgspec.Struct, frozen=True):
    code: int
    stdout: str
    stderr: str


def run(
    *args: str, env: dict[str, str] | None = None, module: bool = False, cwd: Path | None = None
) -> Run:
    """Run the installed console script with only the given settings in its environment
    (and coverage's, so that `make test` measures the CLI too; PYTHONPATH's, so that a
    run from another checkout's sources tests those sources)."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "HOME", "LANG", "TMPDIR", "INDEX", "CORPUS_INDEX_DIR", "PYTHONPATH")
        or k.startswith("COVERAGE_")
    }
    command = [sys.executable, "-m", "corpus_mcp"] if module else [str(CORPUS_MCP)]
    done = subprocess.run(
        [*command, *args],
        env=clean | (env or {}),
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=120,  # a hang must fail the test, not the run; never reached when healthy
    )
    return Run(done.returncode, done.stdout, done.stderr)


def page(path: str, title: str, text: str) -> Page:
    return Page(path=path, title=title, content=f"<html><body><p>{text}</p></body></html>")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus folder of built archives: a devdocs one and one without full-text index."""
    corpus = tmp_path_factory.mktemp("corpus")
    write_zim(
        corpus / "devdocs" / "devdocs_en_demo_2026-05.zim",
        pages=[page("index", "Demo", "hello"), page("os", "os", "operating system")],
        metadata={"Title": "Demo", "Name": "devdocs_en_demo", "Scraper": "devdocs2zim 3.0.2"},
        main_path="index",
    )
    write_zim(
        corpus / "qa" / "notext.zim",
        pages=[page("questions/1/q", "How?", "like this")],
        metadata={"Title": "QA", "Name": "demo.stackexchange.com_en_all", "Date": "2025-05-01"},
        fulltext_index=False,
    )
    (corpus / "qa" / "garbage.zim").write_bytes(b"this is not a ZIM archive at all" * 4)
    return corpus


def manifest(tmp_path: Path, *tables: tuple[str, str, str, bool]) -> Path:
    text = "version = 1\n" + "".join(
        f'[[library]]\nname = "{name}"\npath = "{path}"\nadapter = "{adapter}"\n'
        f"enabled = {str(enabled).lower()}\n"
        for name, path, adapter, enabled in tables
    )
    config = tmp_path / "corpus.toml"
    config.write_text(text, encoding="utf-8")
    return config


def settings(root: Path, config: Path, **extra: str) -> dict[str, str]:
    return {"CORPUS_ROOT": str(root), "CORPUS_CONFIG": str(config), **extra}


DEMO = ("demo", "devdocs/devdocs_en_demo_2026-05.zim", "devdocs", True)
QA = ("qa", "qa/notext.zim", "stackexchange", True)
GARBAGE = ("junk", "qa/garbage.zim", "mediawiki", True)
ABSENT = ("later", "qa/absent.zim", "mediawiki", False)


# -- help, version, usage ----------------------------------------------------------------------


def test_help_documents_commands_and_every_variable() -> None:
    result = run("--help")
    assert result.code == 0
    for word in ("serve", "stdio", "validate", "list", "CORPUS_ROOT", "SEARCH_TIMEOUT"):
        assert word in result.stdout
    assert "(default: /config/corpus.toml)" in result.stdout
    assert "wikipedia/wikipedia_en_all_nopic_*.zim, which serves the newest snapshot" in (
        result.stdout
    )
    assert "(1-65535; 0: any free one, logged)" in result.stdout
    assert "exit codes: 0 ok, 1 a library failed validation, a tool error (search, fetch)" in (
        result.stdout
    )


def test_subcommand_help() -> None:
    result = run("validate", "--help")
    assert result.code == 0
    assert "open every enabled library" in result.stdout


def test_version() -> None:
    result = run("--version")
    assert (result.code, result.stdout.split()[0]) == (0, "corpus-mcp")


def test_python_dash_m_runs_the_same_command() -> None:
    assert run("--version", module=True).stdout == run("--version").stdout


def test_missing_command_is_a_usage_error() -> None:
    result = run()
    assert result.code == 2
    assert "required: COMMAND" in result.stderr


# -- configuration errors --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "list", "serve", "stdio"])
def test_invalid_settings_exit_2(tmp_path: Path, root: Path, command: str) -> None:
    env = settings(root, manifest(tmp_path, DEMO), ZIM_CHECK="maybe", SEARCH_LIMIT="11")
    result = run(command, env=env)
    assert result.code == 2
    assert result.stdout == ""
    assert f"corpus-mcp {command}: invalid settings:" in result.stderr
    assert "ZIM_CHECK='maybe': not a boolean" in result.stderr
    assert "SEARCH_LIMIT=11 is greater than SEARCH_MAX_LIMIT=10" in result.stderr


def test_missing_manifest_exit_2(tmp_path: Path, root: Path) -> None:
    result = run("validate", env=settings(root, tmp_path / "nope.toml"))
    assert result.code == 2
    assert "not found; set CORPUS_CONFIG" in result.stderr


def test_invalid_manifest_exit_2(tmp_path: Path, root: Path) -> None:
    config = manifest(tmp_path, DEMO, ("demo", "../outside.zim", "wiki", True))
    result = run("validate", env=settings(root, config))
    assert result.code == 2
    assert "library #2 'demo': field 'adapter': unknown adapter 'wiki'" in result.stderr
    assert "library #2 'demo': field 'path': '../outside.zim' resolves to" in result.stderr
    assert "duplicate of 'demo'" in result.stderr


# -- list ------------------------------------------------------------------------------------


def test_list_shows_every_library_without_opening(tmp_path: Path, root: Path) -> None:
    missing_enabled = ("soon", "qa/soon.zim", "stackexchange", True)
    config = manifest(tmp_path, DEMO, GARBAGE, ABSENT, missing_enabled)
    result = run("list", env=settings(root, config))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"manifest: {config}"
    assert lines[1].split() == [
        *["library", "adapter", "enabled", "path", "file", "size", "section", "index"]
    ]
    rows = {line.split()[0]: line.split() for line in lines[3:]}
    assert rows["demo"][:5] == ["demo", "devdocs", "yes", DEMO[1], DEMO[1]]
    # garbage is listed, never opened (the tests run with INDEX=off)
    assert rows["junk"][-4:] == ["128", "B", "off", "(INDEX=off)"]
    assert rows["later"][2:] == ["no", "qa/absent.zim", "qa/absent.zim", "missing", "-"]
    assert rows["soon"][2:] == ["yes", "qa/soon.zim", "qa/soon.zim", "MISSING", "-"]
    assert "pattern:" not in result.stdout  # no path is a pattern


def _web_rows(stdout: str) -> dict[str, str]:
    """The rows of the web links table validate and ``list --links`` print: library ->
    the rest of its row."""
    lines = stdout.split("\nweb links: ", 1)[1].splitlines()
    assert lines[1].split() == [
        "library",
        "on",
        "the",
        "web",
        "its",
        "web",
        "links",
        "into",
        "the",
        "corpus",
    ]
    return {
        line.split()[0]: " ".join(line.split()[1:])
        for line in lines[3:]
        if line and not line.startswith("web addresses:")
    }


def test_list_opens_archives_for_web_links_only_when_asked(demo_corpus: Path) -> None:
    env = settings(demo_corpus.parent, demo_corpus)
    plain = run("list", env=env)
    assert plain.code == 0, plain.stderr
    assert "web links" not in plain.stdout
    linked = run("list", "--links", env=env)
    assert linked.code == 0, linked.stderr
    rows = _web_rows(linked.stdout)
    assert rows["StackOverflow"] == (
        "stackoverflow.com/ 4 of 6 web links lead into the corpus (Wikipedia 3, "
        "Python-Docs 1); sample: 3 documents with web links (of 28 read)"
    )
    assert rows["Python-Docs"].startswith("docs.python.org/3.13/ 0 of 2 web links")


# -- validate ------------------------------------------------------------------------------------


def test_validate_prints_metadata_table(tmp_path: Path, root: Path) -> None:
    config = manifest(tmp_path, DEMO, QA, ABSENT)
    result = run("validate", env=settings(root, config))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split("  ")[0] == "library"
    for column in ("size", "entries", "articles", "snapshot", "scraper", "full-text index"):
        assert column in lines[0]
    assert "check" not in lines[0]
    demo_row = lines[2].split()
    assert demo_row[:3] == ["demo", "devdocs", DEMO[1]]
    assert demo_row[4:] == [
        *["kB", "10", "2", "2026-05", "-"],
        *["devdocs2zim", "3.0.2", "yes", "yes", "off", "(INDEX=off)", "ok"],
    ]
    assert "2025-05" in lines[3]
    assert "disabled (not opened): later" in result.stdout
    assert "warning: qa: no full-text index: search falls back to titles" in result.stdout
    assert "2 enabled library(ies) ok" in result.stdout


def test_validate_warns_on_family_mismatch(tmp_path: Path, root: Path) -> None:
    config = manifest(tmp_path, ("demo", DEMO[1], "mediawiki", True))
    result = run("validate", env=settings(root, config))
    assert result.code == 0
    assert (
        "warning: demo: archive looks like devdocs2zim (DevDocs) (Scraper 'devdocs2zim "
        "3.0.2'), read by adapter 'devdocs', but the manifest declares adapter 'mediawiki'"
    ) in result.stdout


def test_validate_says_an_archive_of_no_family_is_read_as_declared(tmp_path: Path) -> None:
    write_zim(
        tmp_path / "odd.zim",
        pages=[page("index", "Odd", "odd words")],
        metadata={"Title": "Odd", "Name": "odd_en_all"},
    )
    config = manifest(tmp_path, ("odd", "odd.zim", "mediawiki", True))
    result = run("validate", env=settings(tmp_path, config))
    assert result.code == 0, result.stderr
    assert (
        "warning: odd: no family recognised from no Scraper, the Tags, Name 'odd_en_all' or "
        "the entries; trusting adapter 'mediawiki'"
    ) in result.stdout


def test_validate_names_every_failing_library(tmp_path: Path, root: Path) -> None:
    inner = root / "qa" / "garbage2.zim"
    shutil.copy(root / "qa" / "garbage.zim", inner)
    config = manifest(tmp_path, DEMO, GARBAGE, ("junk2", "qa/garbage2.zim", "devdocs", True))
    result = run("validate", env=settings(root, config))
    inner.unlink()
    assert result.code == 1
    assert "validate: 2 failing library(ies): junk, junk2" in result.stderr
    assert "FAILED: junk: cannot open: " in result.stdout
    junk_row = next(line for line in result.stdout.splitlines() if line.startswith("junk "))
    assert junk_row.split()[-1] == "FAILED"
    assert junk_row.split()[3:11] == ["-"] * 8


def with_bad_checksum(source: Path, target: Path) -> Path:
    """A copy of the archive at ``source`` whose MD5 (its last 16 bytes) no longer matches:
    it opens, and fails libzim's full check."""
    data = bytearray(source.read_bytes())
    data[-1] ^= 0xFF
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bytes(data))
    return target


def test_validate_with_zim_check(tmp_path: Path, root: Path) -> None:
    broken = with_bad_checksum(root / DEMO[1], root / "qa" / "bad_checksum.zim")
    try:
        config = manifest(tmp_path, DEMO, ("broken", "qa/bad_checksum.zim", "devdocs", True))
        unchecked = run("validate", env=settings(root, config))
        checked = run("validate", env=settings(root, config, ZIM_CHECK="true"))
    finally:
        broken.unlink()
    assert unchecked.code == 0
    assert checked.code == 1
    header, _, demo_row, broken_row = checked.stdout.splitlines()[:4]
    assert header.split()[-2:] == ["check", "status"]
    assert demo_row.split()[-2:] == ["passed", "ok"]
    assert broken_row.split()[-2:] == ["FAILED", "FAILED"]
    assert "FAILED: broken: integrity check failed (libzim Archive.check)" in checked.stdout
    assert "checking 'demo' (" in checked.stderr
    assert "check of 'broken' FAILED" in checked.stderr
    assert "validate: 1 failing library(ies): broken" in checked.stderr


def test_validate_real_archives(tmp_path: Path, shared_zims: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("wikipedia_en_ray_charles_mini_2020-03.zim", "wikibooks_be_all_nopic_2017-02.zim"):
        shutil.copy(shared_zims / name, corpus / name)
    config = manifest(
        tmp_path,
        ("ray", "wikipedia_en_ray_charles_mini_2020-03.zim", "mediawiki", True),
        ("books", "wikibooks_be_all_nopic_2017-02.zim", "mediawiki", True),
    )
    result = run("validate", env=settings(corpus, config))
    assert result.code == 0, result.stderr
    ray_row = result.stdout.splitlines()[2].split()
    assert ray_row == [
        *["ray", "mediawiki", "wikipedia_en_ray_charles_mini_2020-03.zim", "569.3", "kB"],
        *["371", "129", "2020-03", "eng", "mwoffliner", "1.10.2", "yes", "yes"],
        *["off", "(INDEX=off)", "ok"],
    ]
    assert "warning: books: no full-text index and no title index" in result.stdout
    # Where their pages are on the web (learnt from a page's canonical link: these
    # archives predate the Source metadata), and what their web links lead to.
    rows = _web_rows(result.stdout)
    assert rows["ray"].startswith("en.wikipedia.org/wiki/ 0 of 27 web links lead into the corpus")
    assert rows["books"].startswith("be.wikibooks.org/wiki/")


def test_validate_says_which_snapshot_of_a_site_links_lead_to(
    tmp_path: Path, demo_corpus: Path, next_month_wikipedia: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(demo_corpus.parent / "wikipedia" / "wikipedia_en_demo_maxi_2026-05.zim", corpus)
    shutil.copy(next_month_wikipedia, corpus / "wikipedia_en_demo_maxi_2026-06.zim")
    config = manifest(
        tmp_path,
        ("may", "wikipedia_en_demo_maxi_2026-05.zim", "mediawiki", True),
        ("june", "wikipedia_en_demo_maxi_2026-06.zim", "mediawiki", True),
    )
    result = run("validate", env=settings(corpus, config))
    assert result.code == 0, result.stderr
    assert (
        "web addresses: libraries june (snapshot 2026-06) and may (snapshot 2026-05) both "
        "hold pages of en.wikipedia.org/wiki/: a link there leads to june where it holds "
        "the page, else to may"
    ) in result.stdout.splitlines()


def test_symlink_out_of_root_is_rejected_by_validate(tmp_path: Path, root: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ray.zim").symlink_to(root / DEMO[1])
    config = manifest(tmp_path, ("ray", "ray.zim", "mediawiki", True))
    result = run("validate", env=settings(corpus, config))
    assert result.code == 2
    assert "outside CORPUS_ROOT" in result.stderr


# -- serve -----------------------------------------------------------------------------------


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def test_serve_fails_fast_naming_each_unopenable_library(tmp_path: Path, root: Path) -> None:
    config = manifest(tmp_path, DEMO, GARBAGE)
    env = settings(root, config, MCP_HOST="127.0.0.1", MCP_PORT=free_port())
    result = run("serve", env=env)
    assert result.code == 1
    assert "library 'junk': Invalid magic number" in result.stderr
    assert "'demo'" not in result.stderr


def test_serve_with_zim_check_fails_on_bad_checksum(tmp_path: Path, root: Path) -> None:
    broken = with_bad_checksum(root / DEMO[1], tmp_path / "corpus" / "broken.zim")
    config = manifest(tmp_path, ("broken", "broken.zim", "devdocs", True))
    env = settings(broken.parent, config, MCP_HOST="127.0.0.1", MCP_PORT=free_port())
    result = run("serve", env=env | {"ZIM_CHECK": "on"})
    assert result.code == 1
    assert "library 'broken': integrity check failed" in result.stderr


# -- helpers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 kB"),
        (2_100_000, "2.1 MB"),
        (999_950, "1.0 MB"),
        (95 * 10**9, "95.0 GB"),
        (3 * 10**15, "3000.0 TB"),
    ],
)
def test_human_size(size: int, text: str) -> None:
    assert human_size(size) == text


def test_render_table_aligns_columns() -> None:
    table = render_table(["a", "long header"], [["wide cell", "x"], ["b", ""]])
    assert table.splitlines() == [
        "a          long header",
        "---------  -----------",
        "wide cell  x",
        "b",
    ]
