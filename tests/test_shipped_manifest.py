"""The repository's corpus.toml against a folder laid out as it says, through the real CLI
and a real server.

The fixture archives are named like real Kiwix snapshots, in the default layout
(wikipedia/, medical/, devdocs/, stackexchange/), with two snapshots of Wikipedia: the
newer is served, and after a SIGHUP with a newer one added, that one, without editing the
manifest. Without the archives, the manifest fails fast, naming the libraries and saying
how to go on.
"""

from __future__ import annotations

import fnmatch
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from corpus_mcp.config import load_manifest
from corpus_mcp.demo import devdocs, mdwiki, sotoki, wikipedia
from corpus_mcp.demo._mediawiki import Article

from .conftest import NEXT_MONTH_ONLY
from .server_process import STARTUP_GUARD_SECONDS, ServerProcess, running_server
from .test_cli import run, settings
from .test_server_stdio import call

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "corpus.toml"
#: Only the snapshot added while the server runs has it.
THE_MONTH_AFTER_ONLY = "Yak"


def _next_month(path: Path) -> Path:
    extra = Article(title=NEXT_MONTH_ONLY.replace("_", " "), lead=["A <b>zebra crossing</b>."])
    return wikipedia.build(path, extra_articles=[extra])


def _the_month_after(path: Path) -> Path:
    extras = [
        Article(title=NEXT_MONTH_ONLY.replace("_", " "), lead=["A <b>zebra crossing</b>."]),
        Article(title=THE_MONTH_AFTER_ONLY, lead=["The <b>yak</b> is a bovine of the Himalaya."]),
    ]
    return wikipedia.build(path, extra_articles=extras)


#: The default layout, each archive built from the demo content under a real snapshot's
#: name (CMake's and the two Stack Exchange sites' content is another demo archive's).
SEED_LAYOUT: dict[str, Callable[[Path], Path]] = {
    "wikipedia/wikipedia_en_all_nopic_2026-05.zim": wikipedia.build,
    "wikipedia/wikipedia_en_all_nopic_2026-06.zim": _next_month,
    "medical/mdwiki_en_all_maxi_2026-05.zim": mdwiki.build,
    "devdocs/devdocs_en_cpp_2026-05.zim": devdocs.build_cpp,
    "devdocs/devdocs_en_cmake_2026-05.zim": devdocs.build_cpp,
    "devdocs/devdocs_en_python_2026-05.zim": devdocs.build,
    "stackexchange/stackoverflow.com_en_all_2026-05.zim": sotoki.build,
    "stackexchange/security.stackexchange.com_en_all_2026-05.zim": sotoki.build_math,
    "stackexchange/softwareengineering.stackexchange.com_en_all_2026-05.zim": sotoki.build,
}
LIBRARIES = (
    "wikipedia",
    "mdwiki",
    "devdocs_cpp",
    "devdocs_cmake",
    "devdocs_python",
    "stackoverflow",
    "security",
    "softwareengineering",
)
WIKIPEDIA = "wikipedia/wikipedia_en_all_nopic_*.zim"


@pytest.fixture(scope="module")
def seed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seed-corpus")
    for relative, build in SEED_LAYOUT.items():
        build(root / relative)
    return root


def test_the_shipped_manifest_is_the_default_layout_in_patterns() -> None:
    manifest = load_manifest(SHIPPED, Path("/corpus"), check_files=False)
    by_name = {library.name: library for library in manifest.libraries}
    assert tuple(by_name) == LIBRARIES
    assert all(library.enabled and library.is_pattern for library in manifest.libraries)
    assert by_name["wikipedia"].path == WIKIPEDIA
    folders = {library.path.split("/")[0] for library in manifest.libraries}
    assert folders == {"wikipedia", "medical", "devdocs", "stackexchange"}
    adapters = {name: library.adapter for name, library in by_name.items()}
    assert adapters == {
        "wikipedia": "mediawiki",
        "mdwiki": "mediawiki",
        **dict.fromkeys(("devdocs_cpp", "devdocs_cmake", "devdocs_python"), "devdocs"),
        **dict.fromkeys(("stackoverflow", "security", "softwareengineering"), "stackexchange"),
    }
    # Every pattern matches exactly its own library's snapshots in the layout.
    for relative in SEED_LAYOUT:
        owners = [lib.name for lib in manifest.libraries if _matches(lib.path, relative)]
        assert len(owners) == 1, (relative, owners)


def _matches(pattern: str, relative: str) -> bool:
    folder, _, name = pattern.rpartition("/")
    there, _, file = relative.rpartition("/")
    return there == folder and fnmatch.fnmatchcase(file, name)


def test_the_shipped_manifest_validates_against_the_default_layout(seed_corpus: Path) -> None:
    result = run("validate", env=settings(seed_corpus, SHIPPED))
    assert result.code == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:10]}
    assert tuple(rows) == LIBRARIES
    assert rows["wikipedia"][2] == "wikipedia/wikipedia_en_all_nopic_2026-06.zim"  # the newer
    assert all(row[-1] == "ok" for row in rows.values())
    for relative in SEED_LAYOUT:
        if relative.endswith("_2026-05.zim") and not relative.startswith("wikipedia/"):
            assert f" -> {relative}" in result.stdout
    assert f"pattern: wikipedia: {WIKIPEDIA} -> wikipedia/wikipedia_en_all_nopic_2026-06.zim" in (
        result.stdout
    )
    assert "8 enabled library(ies) ok" in result.stdout

    listed = run("list", env=settings(seed_corpus, SHIPPED))
    assert listed.code == 0, listed.stderr
    wikipedia_row = next(line for line in listed.stdout.splitlines() if line.startswith("wiki"))
    assert wikipedia_row.split()[3:5] == [WIKIPEDIA, "wikipedia/wikipedia_en_all_nopic_2026-06.zim"]


def test_without_its_archives_the_shipped_manifest_fails_fast_saying_how_to_go_on(
    seed_corpus: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    (root / "devdocs").mkdir(parents=True)
    python = "devdocs/devdocs_en_python_2026-05.zim"
    os.link(seed_corpus / python, root / python)
    for command in ("serve", "validate"):
        result = run(command, env=settings(root, SHIPPED, MCP_HOST="127.0.0.1", MCP_PORT="0"))
        assert result.code == 2, result.stderr
        assert "serving" not in result.stderr
        missing = [name for name in LIBRARIES if name != "devdocs_python"]
        for name in missing:
            assert f"'{name}': field 'path': pattern '" in result.stderr
        assert "'devdocs_python'" not in result.stderr
        assert (
            f"7 enabled library(ies) without an archive in CORPUS_ROOT ({root}): "
            f"{', '.join(missing)}; to go on, download the archives into CORPUS_ROOT, set "
            "enabled = false on the libraries you do not want, or write a manifest for the "
            "archives that are there with `corpus-mcp init`"
        ) in result.stderr
        # The exact command for the archives that are there (the manifest exists: --force).
        assert f"corpus-mcp init {root} --output {SHIPPED} --force" in result.stderr
        assert "Traceback" not in result.stderr


def _tool(port: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with httpx.Client(timeout=STARTUP_GUARD_SECONDS) as http:
        reply = http.post(
            f"http://127.0.0.1:{port}/mcp",
            json=call(1, name, arguments),
            headers={"accept": "application/json"},
        )
    result: dict[str, Any] = reply.json()["result"]
    return result


def _title(server: ServerProcess, path: str) -> str | None:
    """The title a fetch of Wikipedia's ``path`` answers, or None when it is not there."""
    result = _tool(server.port, "fetch", {"ref": f"corpus://wikipedia/{path}"})
    if result.get("isError"):
        return None
    title: str = result["structuredContent"]["title"]
    return title


def test_a_sighup_serves_the_newest_snapshot_without_editing_the_manifest(
    seed_corpus: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    for relative in SEED_LAYOUT:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        os.link(seed_corpus / relative, root / relative)
    env = {"CORPUS_ROOT": str(root)}
    with running_server(SHIPPED, tmp_path / "stderr.log", env=env) as server:
        assert (
            f"library wikipedia: {WIKIPEDIA} chose wikipedia/wikipedia_en_all_nopic_2026-06.zim "
            "(the newest snapshot)"
        ) in server.stderr
        assert _title(server, NEXT_MONTH_ONLY) == "Zebra crossing"  # 2026-06, not 2026-05
        assert _title(server, THE_MONTH_AFTER_ONLY) is None
        # Next month's download: written under a name no pattern matches, then renamed.
        partial = root / "wikipedia" / ".wikipedia_en_all_nopic_2026-07.zim.partial"
        _the_month_after(partial)
        partial.rename(root / "wikipedia" / "wikipedia_en_all_nopic_2026-07.zim")
        mark = server.mark()
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_log("reload: generation 2 serves", mark)
        reloaded = server.log_since(mark)
        assert "chose wikipedia/wikipedia_en_all_nopic_2026-07.zim (the newest snapshot)" in (
            reloaded
        )
        assert "(opened: wikipedia; kept open: mdwiki, devdocs_cpp," in reloaded
        assert _title(server, THE_MONTH_AFTER_ONLY) == "Yak"
        assert server.stop() == 0
    assert "Traceback" not in server.stderr
