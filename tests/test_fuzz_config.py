"""Property-based fuzzing of the operator's input: environment settings and corpus.toml.

Any environment gives :class:`Settings` or one :class:`ConfigError`; any manifest file
(structured garbage, mutated valid ones, random bytes) gives a :class:`Manifest` whose
libraries obey the documented rules, or one :class:`ConfigError`: never a traceback
from somewhere deeper (``tomllib``, ``pathlib``, the OS).
"""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_mcp.config import (
    ADAPTERS,
    ENV_VARIABLES,
    LIBRARY_NAME_PATTERN,
    ConfigError,
    load_manifest,
    load_settings,
)

VALID = """version = 1

[[library]]
name = "wikipedia"
path = "wiki/wikipedia.zim"
adapter = "mediawiki"

[[library]]
name = "so"
path = "so.zim"
adapter = "stackexchange"
enabled = false
"""

env_values = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["0", "1", "-1", "5", "2.5", "1e309", "nan", "inf", "true", "off", " 7 "]),
    st.integers().map(str),
    st.floats().map(str),
)


@given(st.dictionaries(st.sampled_from([v.name for v in ENV_VARIABLES]), env_values))
def test_any_environment_gives_settings_or_one_config_error(environ: dict[str, str]) -> None:
    try:
        settings = load_settings(environ)
    except ConfigError as exc:
        lines = str(exc).splitlines()
        assert lines[0] == "invalid settings:"
        assert all("=" in line for line in lines[1:])  # each names its variable
        return
    assert 0 <= settings.mcp_port <= 65535  # 0: the system picks a free port
    assert 1 <= settings.search_limit <= settings.search_max_limit
    assert settings.max_connections >= 1
    for seconds in (
        settings.search_timeout,
        settings.http_idle_timeout,
        settings.http_body_timeout,
        settings.http_send_timeout,
        settings.shutdown_timeout,
    ):
        assert math.isfinite(seconds)
        assert seconds > 0


# -- manifests ------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    """``value`` written as TOML (strings through JSON escapes, which TOML shares)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if math.isfinite(value) else ("nan" if math.isnan(value) else "inf")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
        )
    return json.dumps(value)


def _toml_document(document: dict[str, Any]) -> str:
    lines = []
    for key, value in document.items():
        if key == "library" and isinstance(value, list) and all(isinstance(t, dict) for t in value):
            continue
        lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
    tables = document.get("library")
    if isinstance(tables, list) and all(isinstance(table, dict) for table in tables):
        for table in tables:
            lines.append("[[library]]")
            lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


toml_scalars = st.one_of(
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.dates(),
    st.sampled_from(["wiki/wikipedia.zim", "so.zim", "../outside.zim", "/abs.zim", "link.zim"]),
    st.sampled_from([*ADAPTERS, "MediaWiki", ""]),
    st.from_regex(LIBRARY_NAME_PATTERN, fullmatch=True),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
#: Patterns against :func:`corpus_root`: one newest, a tie, an undated match, none,
#: a match or a folder outside, wildcards where they are refused.
PATTERNS = [
    "wiki/wikipedia_*.zim",
    "tie/tie_*.zim",
    "wiki/*.zim",
    "wiki/nothing_*.zim",
    "*.zim",
    "outside/*.zim",
    "../*.zim",
    "loop/*.zim",
    "w*/wikipedia_*.zim",
    "wiki/wikipedia_*",
    "wiki/[.zim",
]
path_like = st.one_of(
    st.text(st.sampled_from("ab/.\\:~ \x00\x1fé*"), min_size=1, max_size=12),
    st.integers(200, 5000).map(lambda size: "a" * size),  # longer than a name may be
    st.just("loop/x"),
).map(lambda path: path + ".zim")
library_tables = st.builds(
    lambda known, extra: {**extra, **known},
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.from_regex(LIBRARY_NAME_PATTERN, fullmatch=True) | toml_values,
            "path": st.sampled_from(["wiki/wikipedia.zim", "so.zim"])
            | st.sampled_from(PATTERNS)
            | path_like
            | toml_values,
            "adapter": st.sampled_from(ADAPTERS) | toml_values,
            "enabled": st.booleans() | toml_values,
        },
    ),
    st.dictionaries(st.text(max_size=6), toml_values, max_size=2),
)
# Mostly well-formed at the top, so that the library rules are what gets exercised.
documents = st.builds(
    lambda known, extra: {**extra, **known},
    st.fixed_dictionaries(
        {
            "version": st.one_of(st.just(1), st.just(1), st.just(1), toml_values),
            "library": st.one_of(
                st.lists(library_tables, min_size=1, max_size=4),
                st.lists(library_tables, min_size=1, max_size=4),
                toml_values,
            ),
        }
    ),
    st.one_of(
        st.just({}),
        st.just({}),
        st.just({}),
        st.dictionaries(st.text(max_size=6), toml_values, max_size=1),
    ),
)


def _mutated(text: str, data: st.DataObject) -> str:
    """A valid manifest with a few lines dropped, duplicated, cut or spliced with noise."""
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["drop", "duplicate", "cut", "noise"]))
        if action == "drop" and len(lines) > 1:
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, lines[index])
        elif action == "cut":
            lines[index] = lines[index][: data.draw(st.integers(0, len(lines[index])))]
        else:
            lines[index] += data.draw(st.text(max_size=10))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus folder with two archives (never opened), a symlink leading outside and
    one to itself, and snapshots for the patterns."""
    root = tmp_path_factory.mktemp("fuzz-corpus")
    (root / "wiki").mkdir()
    (root / "wiki" / "wikipedia.zim").write_bytes(b"zim")
    (root / "so.zim").write_bytes(b"zim")
    (root / "link.zim").symlink_to(root.parent)
    (root / "loop").symlink_to(root / "loop")
    for name in ("wikipedia_2026-05.zim", "wikipedia_2026-06.zim"):  # snapshots
        (root / "wiki" / name).write_bytes(b"zim")
    (root / "tie").mkdir()
    for name in ("tie_maxi_2026-05.zim", "tie_nopic_2026-05.zim"):
        (root / "tie" / name).write_bytes(b"zim")
    (root / "outside").mkdir()
    (root / "outside" / "out_2026-05.zim").symlink_to(root.parent / "elsewhere.zim")
    return root


@given(data=st.data())
def test_any_manifest_gives_libraries_or_one_config_error(
    corpus_root: Path, data: st.DataObject
) -> None:
    content = data.draw(
        st.one_of(
            documents.map(_toml_document).map(str.encode),
            st.just(VALID).map(lambda text: _mutated(text, data)).map(str.encode),
            st.binary(max_size=300),
        )
    )
    config = corpus_root.parent / f"{corpus_root.name}.toml"
    config.write_bytes(content)
    check_files = data.draw(st.booleans())
    try:
        manifest = load_manifest(config, corpus_root, check_files=check_files)
    except ConfigError as exc:
        assert str(exc)
        return
    assert manifest.enabled
    names = [library.name.lower() for library in manifest.libraries]
    assert len(names) == len(set(names))
    for library in manifest.libraries:
        assert LIBRARY_NAME_PATTERN.match(library.name)
        assert library.adapter in ADAPTERS
        assert library.file.is_relative_to(corpus_root.resolve())
        if check_files and library.enabled:
            assert library.file.is_file()
