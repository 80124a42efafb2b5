"""Every setting the server reads is in the README's table and passes through compose."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from corpus_mcp.config import ENV_VARIABLES, EnvVariable

ROOT = Path(__file__).resolve().parents[1]
#: Fixed by the image (the mounts, the bind address and port inside the container).
SET_BY_THE_IMAGE = {"CORPUS_ROOT", "CORPUS_CONFIG", "CORPUS_INDEX_DIR", "MCP_HOST", "MCP_PORT"}


@pytest.mark.parametrize("variable", ENV_VARIABLES, ids=lambda variable: str(variable.name))
def test_the_readme_table_gives_the_default(variable: EnvVariable) -> None:
    name, default = variable.name, variable.default
    readme = (ROOT / "README.md").read_text()
    row = re.search(rf"^\| `{name}` \| ([^|]*) \|", readme, re.MULTILINE)
    assert row, f"{name} is not in the README's table of variables"
    assert row.group(1).strip() in (f"`{default}`", "(none)")


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


def test_the_readme_states_both_coverage_gates_as_pyproject_does() -> None:
    document = tomllib.loads((ROOT / "pyproject.toml").read_text())
    thorough = document["tool"]["coverage"]["report"]["fail_under"]
    without = document["tool"]["corpus-mcp"]["coverage-without-shared"]
    section = (ROOT / "README.md").read_text().split("- **Coverage gates.**", 1)[1]
    words = " ".join(section.split("\n- **", 1)[0].split())
    assert f"the thorough gate, **{thorough} %**" in words
    assert f"the run is held to **{without} %**" in words
