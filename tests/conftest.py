"""Shared test fixtures: the real archives in ../shared/zims and the demo corpus.

``TEST_PROFILE`` picks how thorough a run is: ``dev`` (the default, ``make test``) runs
each Hypothesis property on a few hundred examples and leaves out the tests marked
``full`` (long fault injection); ``ci`` runs those too, with many more examples.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import tomllib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from corpus_mcp.config import Settings, load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import DEMO_LIBRARIES, build_demo_corpus, wikipedia
from corpus_mcp.demo._mediawiki import Article

from .server_process import corpus_environment

ROOT = Path(__file__).resolve().parents[1]
SHARED_ZIMS = ROOT.parent / "shared" / "zims"

TEST_PROFILES = ("dev", "ci")
TEST_PROFILE = os.environ.get("TEST_PROFILE", "").strip() or "dev"
if TEST_PROFILE not in TEST_PROFILES:
    raise pytest.UsageError(f"TEST_PROFILE={TEST_PROFILE!r}; accepted: {', '.join(TEST_PROFILES)}")

# No per-example deadline: the machine is shared, and a slow example is not a failure.
# The everyday run draws the same examples every time (derandomize), so that a fresh
# clone's `make test` passes or fails on the code, never on the draw; the thorough run
# draws new ones each time, ten times as many, to find the cases nobody wrote.
hypothesis_settings.register_profile(
    "dev",
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.register_profile(
    "ci", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile(TEST_PROFILE)


def _coverage_gates() -> tuple[float, float]:
    """The two coverage gates pyproject.toml states: where ../shared/zims is present, and
    where it is not (docs/ci.md, "What CI checks")."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        document = tomllib.load(file)
    thorough = float(document["tool"]["coverage"]["report"]["fail_under"])
    without = float(document["tool"]["corpus-mcp"]["coverage-without-shared"])
    return thorough, without


def _coverage_plugin(config: pytest.Config) -> Any:
    """pytest-cov's plugin when this run measures coverage (``--cov``), else None."""
    if not getattr(config.option, "cov_source", None) or getattr(config.option, "no_cov", False):
        return None
    return config.pluginmanager.getplugin("_cov")


def pytest_configure(config: pytest.Config) -> None:
    """Without the real archives, the tests that need them skip, so the coverage gate is
    the one measured without them, unless ``--cov-fail-under`` was given. The thorough
    gate (``fail_under``) holds wherever they are present, as in CI.

    Section indexes are off for every server and CLI these tests start unless a test
    turns them on (``tests/test_sections*.py``): a background build would change how a
    corpus searches part-way through a test, and none may write in the user's cache."""
    os.environ.setdefault("INDEX", "off")
    os.environ.setdefault("CORPUS_INDEX_DIR", tempfile.mkdtemp(prefix="corpus-mcp-test-indexes-"))
    plugin = _coverage_plugin(config)
    given = any(str(arg).startswith("--cov-fail-under") for arg in config.invocation_params.args)
    if plugin is None or given or REAL_ARCHIVES_PRESENT:
        return
    options = getattr(plugin, "options", None)
    if options is None or not hasattr(options, "cov_fail_under"):
        raise pytest.UsageError(
            "pytest-cov keeps its options elsewhere now: tests/conftest.py cannot set the "
            "coverage gate of a run without ../shared/zims (pass --cov-fail-under)"
        )
    options.cov_fail_under = _coverage_gates()[1]


def coverage_gate_line() -> str:
    """Which coverage gate this run is held to, and why."""
    thorough, without = _coverage_gates()
    if REAL_ARCHIVES_PRESENT:
        return f"coverage gate: {thorough} %, the thorough one ({SHARED_ZIMS} is present)"
    return (
        f"coverage gate: {without} %, the one of a run without {SHARED_ZIMS} (its tests "
        f"skip); the thorough gate, {thorough} %, holds where it is present, as in CI"
    )


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Said beside the coverage report (``make test`` runs quietly: no header)."""
    given = any(str(arg).startswith("--cov-fail-under") for arg in config.invocation_params.args)
    if _coverage_plugin(config) is not None and not given:
        terminalreporter.write_line(coverage_gate_line())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Outside the ``ci`` profile, tests marked ``full`` are skipped, saying how to run them."""
    if TEST_PROFILE == "ci":
        return
    skip = pytest.mark.skip(reason="long fault injection: run with TEST_PROFILE=ci")
    for item in items:
        if "full" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def demo_archives(demo_corpus: Path) -> dict[str, Path]:
    """The session's demo archives by library name (``Wikipedia``, ``Cpp-Docs``...)."""
    return {name: demo_corpus.parent / relative for name, relative, _ in DEMO_LIBRARIES}


#: The one document only next month's demo Wikipedia has (:func:`next_month_wikipedia`).
NEXT_MONTH_ONLY = "Zebra_crossing"


@pytest.fixture(scope="session")
def next_month_wikipedia(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo Wikipedia archive as next month's snapshot: every document of this
    month's, and one more (:data:`NEXT_MONTH_ONLY`); another archive (its own UUID)."""
    extra = Article(
        title=NEXT_MONTH_ONLY.replace("_", " "),
        lead=["A <b>zebra crossing</b> is a pedestrian crossing marked with white stripes."],
    )
    target = tmp_path_factory.mktemp("next-month") / "wikipedia.zim"
    return wikipedia.build(target, extra_articles=[extra])


#: The real archives as libraries of the "full" test corpus (name -> file in SHARED_ZIMS).
REAL_LIBRARIES = {
    "rc2018": "wikipedia_en_ray_charles_novid_2018-10.zim",
    "rc2020": "wikipedia_en_ray_charles_mini_2020-03.zim",
    "wp100": "wikipedia_en_100_mini_2022-10.zim",
    "wikibooks_be": "wikibooks_be_all_nopic_2017-02.zim",
}
#: Whether ../shared/zims holds the real archives; tests that need them skip, saying why.
REAL_ARCHIVES_PRESENT = all((SHARED_ZIMS / file).is_file() for file in REAL_LIBRARIES.values())
NO_REAL_ARCHIVES = f"real archives not present at {SHARED_ZIMS}"


@pytest.fixture(scope="session")
def shared_zims() -> Path:
    """The folder of real scraper-made archives; tests using it skip where it is absent."""
    if not REAL_ARCHIVES_PRESENT:
        pytest.skip(NO_REAL_ARCHIVES)
    return SHARED_ZIMS


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus (every family's fixture archive), built once per session.

    Returns the manifest path; the archives sit next to it under their relative paths.
    """
    return build_demo_corpus(tmp_path_factory.mktemp("demo-corpus"))


@pytest.fixture(scope="session")
def full_corpus(demo_corpus: Path) -> Path:
    """The demo corpus plus, where ../shared/zims exists, copies of the real archives
    (a manifest may not point outside its root) and one disabled library.

    Returns the manifest path (``full.toml`` next to the demo's ``corpus.toml``).
    """
    root = demo_corpus.parent
    libraries = [(name, path, adapter, True) for name, path, adapter in DEMO_LIBRARIES]
    if REAL_ARCHIVES_PRESENT:
        for name, file in REAL_LIBRARIES.items():
            target = root / "real" / file
            target.parent.mkdir(exist_ok=True)
            if not target.exists():
                shutil.copyfile(SHARED_ZIMS / file, target)
            libraries.append((name, f"real/{file}", "mediawiki", True))
    libraries.append(("retired", "retired/gone.zim", "mediawiki", False))
    return write_libraries(root / "full.toml", libraries)


def write_libraries(manifest: Path, libraries: Iterable[tuple[str, str, str, bool]]) -> Path:
    """A manifest at ``manifest`` serving ``libraries`` (name, path, adapter, enabled)."""
    lines = ["version = 1"]
    for name, path, adapter, enabled in libraries:
        lines += [
            "[[library]]",
            f'name = "{name}"',
            f'path = "{path}"',
            f'adapter = "{adapter}"',
            f"enabled = {str(enabled).lower()}",
        ]
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


@pytest.fixture
def wikipedia_only(demo_corpus: Path) -> Path:
    """A manifest serving only the demo's Wikipedia (no other family reads at startup)."""
    manifest = demo_corpus.parent / "wikipedia-only.toml"
    manifest.write_text(
        'version = 1\n[[library]]\nname = "Wikipedia"\n'
        'path = "wikipedia/wikipedia_en_demo_maxi_2026-05.zim"\nadapter = "mediawiki"\n'
    )
    return manifest


@pytest.fixture
def unopenable_corpus(tmp_path: Path) -> Path:
    """A manifest whose only library, ``brokenlib``, is a file that is no ZIM archive."""
    (tmp_path / "broken.zim").write_bytes(b"not a ZIM archive" * 8)
    manifest = tmp_path / "corpus.toml"
    manifest.write_text(
        'version = 1\n[[library]]\nname = "brokenlib"\npath = "broken.zim"\nadapter = "mediawiki"\n'
    )
    return manifest


def settings_for(manifest: Path, **env: str) -> Settings:
    """Settings for a corpus at ``manifest`` (its folder is CORPUS_ROOT), with a search
    deadline no healthy search reaches unless ``env`` sets one."""
    return load_settings(corpus_environment(manifest, **env))


@pytest.fixture
async def corpus(full_corpus: Path) -> AsyncIterator[Corpus]:
    """The full test corpus, opened (default settings)."""
    settings = settings_for(full_corpus)
    async with open_corpus(settings, load_manifest(full_corpus, full_corpus.parent)) as opened:
        yield opened
