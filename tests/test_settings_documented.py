"""Every setting the server reads is in the table of docs/configuration.md (and any row the
README gives agrees with it), and passes through compose."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from corpus_mcp.config import ENV_VARIABLES, EnvVariable

ROOT = Path(__file__).resolve().parents[1]
#: The full table of variables; the README's configuration at a glance repeats a few rows.
TABLE = ROOT / "docs" / "configuration.md"
README = ROOT / "README.md"
#: Fixed by the image (the mounts, the bind address and port inside the container).
SET_BY_THE_IMAGE = {"CORPUS_ROOT", "CORPUS_CONFIG", "CORPUS_INDEX_DIR", "MCP_HOST", "MCP_PORT"}


def _documented_defaults(document: Path, name: str) -> list[str]:
    """The default column of every table row naming the variable ``name``."""
    rows = re.findall(rf"^\| `{name}` \| ([^|]*) \|", document.read_text(), re.MULTILINE)
    return [default.strip() for default in rows]


@pytest.mark.parametrize("variable", ENV_VARIABLES, ids=lambda variable: str(variable.name))
def test_the_table_of_variables_gives_the_default(variable: EnvVariable) -> None:
    name, expected = variable.name, (f"`{variable.default}`", "(none)")
    in_table = _documented_defaults(TABLE, name)
    assert in_table, f"{name} is not in the table of variables of {TABLE.relative_to(ROOT)}"
    for default in [*in_table, *_documented_defaults(README, name)]:
        assert default in expected, f"{name}: documented default {default}, not {expected[0]}"


def test_the_readme_names_only_variables_the_server_reads() -> None:
    named = re.findall(r"^\| `([A-Z_]+)` \|", README.read_text(), re.MULTILINE)
    assert named, "the README's configuration at a glance has no table of variables"
    assert set(named) <= {variable.name for variable in ENV_VARIABLES}


@pytest.mark.parametrize(
    "variable",
    [v for v in ENV_VARIABLES if v.name not in SET_BY_THE_IMAGE],
    ids=lambda variable: str(variable.name),
)
def test_compose_passes_the_setting_through_with_its_default(variable: EnvVariable) -> None:
    name, default = variable.name, variable.default
    compose = (ROOT / "podman-compose.yml").read_text()
    passed = re.search(rf"^\s+{name}: (.*)$", compose, re.MULTILINE)
    assert passed, f"{name} does not reach the container"
    assert f"${{{name}:-{default}}}" in passed.group(1) or name.startswith("MCP_ALLOWED")


def test_the_ci_page_states_both_coverage_gates_as_pyproject_does() -> None:
    document = tomllib.loads((ROOT / "pyproject.toml").read_text())
    thorough = document["tool"]["coverage"]["report"]["fail_under"]
    without = document["tool"]["corpus-mcp"]["coverage-without-shared"]
    section = (ROOT / "docs" / "ci.md").read_text().split("- **Coverage gates.**", 1)[1]
    words = " ".join(section.split("\n- **", 1)[0].split())
    assert f"the thorough gate, **{thorough} %**" in words
    assert f"the run is held to **{without} %**" in words
