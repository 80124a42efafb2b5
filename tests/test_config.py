"""Settings from the environment and the corpus.toml manifest: every rule, every message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpus_mcp.config import (
    ENV_VARIABLES,
    ConfigError,
    Library,
    Settings,
    cpu_quota,
    load_manifest,
    load_settings,
    usable_cpus,
)

ROOT = Path(__file__).resolve().parents[1]

SIZE_VARIABLES = (
    "SEARCH_LIMIT",
    "SEARCH_MAX_LIMIT",
    "MAX_FETCH_CHARS",
    "FETCH_BUDGET_CHARS",
    "SEARCH_WORKERS",
    "SEARCH_MAX_CONSECUTIVE",
    "DOCUMENT_CACHE_MB",
    "MAX_CONNECTIONS",
)
SECONDS_VARIABLES = (
    "SEARCH_TIMEOUT",
    "HTTP_IDLE_TIMEOUT",
    "HTTP_BODY_TIMEOUT",
    "HTTP_SEND_TIMEOUT",
    "SHUTDOWN_TIMEOUT",
)


def settings_error(environ: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ)
    return str(caught.value)


# -- settings -----------------------------------------------------------------------------


_CPUS = usable_cpus()
_AUTO_WORKERS = _CPUS
"""What WORKERS=auto means on this machine."""
_AUTO_PARSE_WORKERS = _CPUS if _CPUS > 1 and _AUTO_WORKERS == 1 else 0
"""What PARSE_WORKERS=auto means on this machine, with WORKERS=auto."""


def test_defaults_are_the_documented_ones() -> None:
    assert load_settings({}) == Settings(
        corpus_root=Path("/corpus"),
        corpus_config=Path("/config/corpus.toml"),
        mcp_host="127.0.0.1",
        mcp_port=8000,
        search_limit=5,
        search_max_limit=10,
        fetch_budget_chars=8000,
        search_workers=8,
        search_max_consecutive=2,
        log_queries=True,
        zim_check=False,
        search_timeout=5.0,
        allowed_hosts=(),
        allowed_origins=(),
        document_cache_bytes=64_000_000 // _AUTO_WORKERS,
        log_level="info",
        max_connections=256,
        http_idle_timeout=5.0,
        http_body_timeout=10.0,
        http_send_timeout=30.0,
        shutdown_timeout=10.0,
        workers=_AUTO_WORKERS,
        parse_workers=_AUTO_PARSE_WORKERS,
        max_searches=-(-8 // _AUTO_WORKERS),
        index="auto",
        index_dir=Path.home() / ".cache" / "corpus-mcp" / "indexes",
    )


def test_every_variable_is_read() -> None:
    settings = load_settings(
        {
            "CORPUS_ROOT": "/data/zims",
            "CORPUS_CONFIG": "/etc/corpus.toml",
            "MCP_HOST": "127.0.0.1",
            "MCP_PORT": "9000",
            "SEARCH_LIMIT": "3",
            "SEARCH_MAX_LIMIT": "20",
            "MAX_FETCH_CHARS": "5000",
            "FETCH_BUDGET_CHARS": "3000",
            "SEARCH_WORKERS": "2",
            "SEARCH_MAX_CONSECUTIVE": "4",
            "SEARCH_TIMEOUT": "2.5",
            "LOG_QUERIES": "off",
            "ZIM_CHECK": "YES",
            "MCP_ALLOWED_HOSTS": "mcp.example:8000, other.example:*,",
            "MCP_ALLOWED_ORIGINS": "https://app.example",
            "DOCUMENT_CACHE_MB": "16",
            "LOG_LEVEL": "DEBUG",
            "MAX_CONNECTIONS": "64",
            "HTTP_IDLE_TIMEOUT": "2",
            "HTTP_BODY_TIMEOUT": "3.5",
            "HTTP_SEND_TIMEOUT": "7",
            "SHUTDOWN_TIMEOUT": "20",
            "WORKERS": "2",
            "PARSE_WORKERS": "3",
            "MAX_SEARCHES": "4",
            "INDEX": "OFF",
            "INDEX_PRIORITY": "Low",
            "CORPUS_INDEX_DIR": "/var/cache/indexes",
        }
    )
    # One comparison of the whole struct: a misread variable shows beside all the others.
    assert settings == Settings(
        corpus_root=Path("/data/zims"),
        corpus_config=Path("/etc/corpus.toml"),
        mcp_host="127.0.0.1",
        mcp_port=9000,
        search_limit=3,
        search_max_limit=20,
        fetch_budget_chars=3000,
        search_workers=2,
        search_max_consecutive=4,
        log_queries=False,
        zim_check=True,
        search_timeout=2.5,
        allowed_hosts=("mcp.example:8000", "other.example:*"),
        allowed_origins=("https://app.example",),
        document_cache_bytes=8_000_000,  # DOCUMENT_CACHE_MB shared by the two processes
        log_level="debug",
        max_connections=64,
        http_idle_timeout=2.0,
        http_body_timeout=3.5,
        http_send_timeout=7.0,
        shutdown_timeout=20.0,
        workers=2,
        parse_workers=3,
        max_searches=2,  # MAX_SEARCHES shared by the two processes
        index="off",
        index_dir=Path("/var/cache/indexes"),
        index_priority="low",
    )


@pytest.mark.parametrize(
    ("environ", "budget"),
    [
        ({}, 8000),
        ({"FETCH_BUDGET_CHARS": "12000"}, 12000),
        # MAX_FETCH_CHARS, the older cap, bounds the budget where set: as before issue 30,
        # an answer holds at most the smaller of the two.
        ({"MAX_FETCH_CHARS": "5000"}, 5000),
        ({"MAX_FETCH_CHARS": "100000"}, 8000),
        ({"MAX_FETCH_CHARS": "100000", "FETCH_BUDGET_CHARS": "8000"}, 8000),
        ({"MAX_FETCH_CHARS": "600", "FETCH_BUDGET_CHARS": "100000"}, 600),
        ({"MAX_FETCH_CHARS": " ", "FETCH_BUDGET_CHARS": "9000"}, 9000),
    ],
)
def test_one_fetch_budget_and_its_older_cap(environ: dict[str, str], budget: int) -> None:
    assert load_settings(environ).fetch_budget_chars == budget


def test_the_index_folder_defaults_to_the_user_cache(tmp_path: Path) -> None:
    """CORPUS_INDEX_DIR, else XDG_CACHE_HOME (when absolute), else ~/.cache."""
    cache = tmp_path / "cache"
    assert load_settings({"XDG_CACHE_HOME": str(cache)}).index_dir == (
        cache / "corpus-mcp" / "indexes"
    )
    assert load_settings({"XDG_CACHE_HOME": "relative/cache"}).index_dir == (
        Path.home() / ".cache" / "corpus-mcp" / "indexes"
    )
    assert load_settings({"CORPUS_INDEX_DIR": "idx"}).index_dir == Path("idx").absolute()


def test_index_accepts_auto_or_off() -> None:
    assert "INDEX='sometimes'" in settings_error({"INDEX": "sometimes"})
    assert "accepted: auto, off" in settings_error({"INDEX": "sometimes"})


@pytest.mark.parametrize("value", ["auto", "AUTO", " auto "])
def test_parse_workers_auto_is_one_per_usable_cpu_for_one_serving_process(value: str) -> None:
    settings = load_settings({"PARSE_WORKERS": value, "WORKERS": "1"})
    assert settings.parse_workers == (_CPUS if _CPUS > 1 else 0)


def test_parse_workers_auto_is_none_with_several_serving_processes() -> None:
    assert load_settings({"PARSE_WORKERS": "auto", "WORKERS": "2"}).parse_workers == 0
    assert load_settings({"PARSE_WORKERS": "2", "WORKERS": "2"}).parse_workers == 2


@pytest.mark.parametrize("value", ["auto", "AUTO", " auto "])
def test_workers_auto_is_one_per_usable_cpu(value: str) -> None:
    assert load_settings({"WORKERS": value}).workers == _CPUS


def test_the_caches_and_searches_are_shared_by_the_serving_processes() -> None:
    settings = load_settings({"WORKERS": "4", "DOCUMENT_CACHE_MB": "64", "MAX_SEARCHES": "6"})
    assert (settings.workers, settings.document_cache_bytes) == (4, 16_000_000)
    assert settings.max_searches == 2  # 6 / 4, rounded up


def test_one_process_commands_ignore_workers_but_check_it() -> None:
    settings = load_settings({"WORKERS": "4", "DOCUMENT_CACHE_MB": "64"}, one_process=True)
    assert (settings.workers, settings.document_cache_bytes) == (1, 64_000_000)
    assert settings.parse_workers == (_CPUS if _CPUS > 1 else 0)
    with pytest.raises(ConfigError, match="WORKERS='many'"):
        load_settings({"WORKERS": "many"}, one_process=True)


@pytest.mark.parametrize("value", ["0", "-1", "65", "two", "1.5"])
def test_a_bad_workers_value_says_what_is_accepted(value: str) -> None:
    assert f"WORKERS={value!r}: accepted: auto or an integer from 1 to 64" in settings_error(
        {"WORKERS": value}
    )


def _cgroups(tmp_path: Path, membership: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A fake /proc/self/cgroup (``membership``) and cgroup tree (``files``)."""
    proc = tmp_path / "cgroup"
    proc.write_text(membership)
    root = tmp_path / "sys"
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return proc, root


@pytest.mark.parametrize(
    ("membership", "files", "quota"),
    [
        ("0::/pod\n", {"pod/cpu.max": "150000 100000\n"}, 1.5),
        ("0::/\n", {"cpu.max": "max 100000\n"}, None),
        (
            "4:memory:/x\n1:cpu,cpuacct:/box\n",
            {"cpu/box/cpu.cfs_quota_us": "200000\n", "cpu/box/cpu.cfs_period_us": "100000\n"},
            2.0,
        ),
        (
            "1:cpu:/\n",
            {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"},
            None,
        ),
        ("0::/gone\n", {}, None),
        ("0::/odd\n", {"odd/cpu.max": "lots 100000\n"}, None),
    ],
)
def test_a_cpu_quota_is_read_from_cgroup_v2_or_v1(
    tmp_path: Path, membership: str, files: dict[str, str], quota: float | None
) -> None:
    proc, root = _cgroups(tmp_path, membership, files)
    assert cpu_quota(root, proc) == quota


def test_a_cpu_quota_bounds_the_usable_cpus(tmp_path: Path) -> None:
    proc, root = _cgroups(tmp_path, "0::/\n", {"cpu.max": "50000 100000\n"})
    assert usable_cpus(root, proc) == 1  # half a CPU: one process
    proc, root = _cgroups(tmp_path, "0::/\n", {"cpu.max": "max 100000\n"})
    assert usable_cpus(root, proc) == len(os.sched_getaffinity(0))
    assert cpu_quota(root, tmp_path / "no such file") is None


def test_parse_workers_zero_parses_in_threads() -> None:
    assert load_settings({"PARSE_WORKERS": "0"}).parse_workers == 0


@pytest.mark.parametrize("value", ["-1", "65", "two", "1.5"])
def test_a_bad_parse_workers_value_says_what_is_accepted(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings({"PARSE_WORKERS": value})
    assert f"PARSE_WORKERS={value!r}: accepted: auto or an integer from 0 to 64" in str(
        raised.value
    )


def test_every_read_variable_is_documented() -> None:
    documented = {variable.name for variable in ENV_VARIABLES}
    assert documented >= {
        "CORPUS_ROOT",
        "SEARCH_TIMEOUT",
        "ZIM_CHECK",
        "LOG_LEVEL",
        "SEARCH_ENGINE",
    }
    assert len(documented) == len(ENV_VARIABLES)  # each documented once


def test_blank_value_means_default() -> None:
    assert load_settings({"MCP_PORT": "", "LOG_QUERIES": "  "}).mcp_port == 8000


def test_relative_paths_are_made_absolute() -> None:
    settings = load_settings({"CORPUS_ROOT": "corpus"})
    assert settings.corpus_root == Path.cwd() / "corpus"


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCH_WORKERS", "3")
    assert load_settings().search_workers == 3


@pytest.mark.parametrize("name", SIZE_VARIABLES)
@pytest.mark.parametrize("value", ["ten", "1.5", "1_000", "0x10"])
def test_non_integer_is_rejected(name: str, value: str) -> None:
    message = settings_error({name: value})
    assert f"{name}={value!r}: not an integer; accepted: an integer >= 1" in message


@pytest.mark.parametrize("name", SIZE_VARIABLES)
@pytest.mark.parametrize("value", ["0", "-3"])
def test_zero_or_negative_size_is_rejected(name: str, value: str) -> None:
    message = settings_error({name: value})
    assert f"{name}={value!r}: out of range; accepted: an integer >= 1" in message


@pytest.mark.parametrize("value", ["70000", "-1", "ten", "80.5"])
def test_a_port_outside_0_to_65535_is_rejected(value: str) -> None:
    message = settings_error({"MCP_PORT": value})
    assert f"MCP_PORT={value!r}: " in message
    assert "accepted: an integer >= 0 and <= 65535" in message


def test_port_0_lets_the_system_pick_one() -> None:
    assert load_settings({"MCP_PORT": "0"}).mcp_port == 0


def test_search_limit_above_max_limit_is_rejected() -> None:
    message = settings_error({"SEARCH_LIMIT": "11"})
    assert "SEARCH_LIMIT=11 is greater than SEARCH_MAX_LIMIT=10" in message
    assert "accepted: SEARCH_LIMIT <= SEARCH_MAX_LIMIT" in message


def test_search_limit_equal_to_max_limit_is_accepted() -> None:
    settings = load_settings({"SEARCH_LIMIT": "7", "SEARCH_MAX_LIMIT": "7"})
    assert settings.search_limit == settings.search_max_limit == 7


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *[("true", True), ("1", True), ("Yes", True), ("ON", True)],
        *[("false", False), ("0", False), ("no", False), ("Off", False)],
    ],
)
def test_booleans_accept_the_documented_words(value: str, expected: bool) -> None:
    settings = load_settings({"LOG_QUERIES": value, "ZIM_CHECK": value})
    assert settings.log_queries is settings.zim_check is expected


@pytest.mark.parametrize("name", ["LOG_QUERIES", "ZIM_CHECK"])
def test_unknown_boolean_is_rejected(name: str) -> None:
    message = settings_error({name: "maybe"})
    assert f"{name}='maybe': not a boolean" in message
    assert "true/false, 1/0, yes/no, on/off" in message


@pytest.mark.parametrize("name", SECONDS_VARIABLES)
@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan", "inf"])
def test_invalid_durations_are_rejected(name: str, value: str) -> None:
    message = settings_error({name: value})
    assert f"{name}={value!r}" in message
    assert "accepted: a number of seconds > 0" in message


def test_unknown_log_level_is_rejected() -> None:
    message = settings_error({"LOG_LEVEL": "verbose"})
    assert "LOG_LEVEL='verbose': unknown value; accepted: debug, info, warning, error" in message


def test_all_invalid_variables_are_reported_together() -> None:
    message = settings_error({"MCP_PORT": "http", "ZIM_CHECK": "sure", "SEARCH_WORKERS": "0"})
    assert message.count("\n") == 3
    for name in ("MCP_PORT", "ZIM_CHECK", "SEARCH_WORKERS"):
        assert name in message


# -- manifest -----------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A corpus folder with two (fake) archive files; the manifest never opens them."""
    corpus = tmp_path / "corpus"
    (corpus / "wiki").mkdir(parents=True)
    (corpus / "wiki" / "wikipedia.zim").write_bytes(b"zim")
    (corpus / "so.zim").write_bytes(b"zim")
    return corpus


def write_manifest(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "corpus.toml"
    config.write_text(text, encoding="utf-8")
    return config


def library(name: str, path: str, adapter: str = "mediawiki", extra: str = "") -> str:
    return f'[[library]]\nname = "{name}"\npath = "{path}"\nadapter = "{adapter}"\n{extra}\n'


def manifest_error(tmp_path: Path, root: Path, text: str) -> str:
    config = write_manifest(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_manifest(config, root)
    message = str(caught.value)
    assert str(config) in message
    return message


VALID = (
    "version = 1\n"
    + library("wikipedia", "wiki/wikipedia.zim")
    + library("stackoverflow", "so.zim", "stackexchange")
)


def test_valid_manifest(tmp_path: Path, root: Path) -> None:
    config = write_manifest(
        tmp_path,
        VALID + library("askubuntu", "absent.zim", "stackexchange", "enabled = false"),
    )
    manifest = load_manifest(config, root)
    assert manifest.file == config
    assert manifest.libraries == (
        Library(
            "wikipedia",
            "wiki/wikipedia.zim",
            "mediawiki",
            True,
            root / "wiki/wikipedia.zim",
            "wiki/wikipedia.zim",
        ),
        Library("stackoverflow", "so.zim", "stackexchange", True, root / "so.zim", "so.zim"),
        Library(
            "askubuntu", "absent.zim", "stackexchange", False, root / "absent.zim", "absent.zim"
        ),
    )
    assert [lib.name for lib in manifest.enabled] == ["wikipedia", "stackoverflow"]


def test_missing_config_file_suggests_corpus_config(tmp_path: Path, root: Path) -> None:
    with pytest.raises(ConfigError, match=r"not found; set CORPUS_CONFIG"):
        load_manifest(tmp_path / "nowhere.toml", root)


def test_config_that_is_a_directory(tmp_path: Path, root: Path) -> None:
    with pytest.raises(ConfigError, match=r"is a directory; set CORPUS_CONFIG"):
        load_manifest(tmp_path, root)


def test_toml_syntax_error_names_file_and_line(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, 'version = 1\n[[library]]\nname = "x\n')
    assert "TOML syntax error" in message
    assert "line 3" in message


def test_missing_version(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, library("wikipedia", "wiki/wikipedia.zim"))
    assert "missing 'version'; accepted: version = 1" in message


@pytest.mark.parametrize("version", ["2", '"1"', "1.0"])
def test_unknown_version(tmp_path: Path, root: Path, version: str) -> None:
    message = manifest_error(tmp_path, root, VALID.replace("version = 1", f"version = {version}"))
    assert "unknown version" in message
    assert "accepted: version = 1" in message


def test_unknown_top_level_key(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, 'libraries = "x"\n' + VALID)
    assert "unknown top-level key(s) 'libraries'; accepted: version, library" in message


def test_library_must_be_an_array_of_tables(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, 'version = 1\nlibrary = "wikipedia"\n')
    assert "'library' must be an array of tables written [[library]]" in message


def test_unknown_library_key(tmp_path: Path, root: Path) -> None:
    text = "version = 1\n" + library("wikipedia", "wiki/wikipedia.zim", extra='lang = "en"')
    message = manifest_error(tmp_path, root, text)
    assert "library #1 'wikipedia': unknown key(s) 'lang'" in message
    assert "accepted: name, path, adapter, enabled" in message


@pytest.mark.parametrize("name", ["Wikipedia", "WIKIPEDIA"])
def test_duplicate_names_case_insensitively(tmp_path: Path, root: Path, name: str) -> None:
    text = VALID + library(name, "so.zim", "stackexchange")
    message = manifest_error(tmp_path, root, text)
    assert f"library #3 '{name}': field 'name': duplicate of 'wikipedia'" in message


@pytest.mark.parametrize("name", ["wiki pedia", "_wiki", "wiki/pedia", "wikí", "x" * 65, ""])
def test_name_outside_the_safe_charset(tmp_path: Path, root: Path, name: str) -> None:
    message = manifest_error(tmp_path, root, "version = 1\n" + library(name, "so.zim"))
    assert f"field 'name': {name!r} is not a valid name" in message
    assert "letters, digits, '_', '.' or '-'" in message


def test_missing_name(tmp_path: Path, root: Path) -> None:
    text = 'version = 1\n[[library]]\npath = "so.zim"\nadapter = "mediawiki"\n'
    message = manifest_error(tmp_path, root, text)
    assert "library #1: field 'name': missing is not a valid name" in message


def test_unknown_adapter(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", "so.zim", "sotoki"))
    assert "library #1 'so': field 'adapter': unknown adapter 'sotoki'" in message
    assert "accepted: mediawiki, devdocs, stackexchange" in message


def test_enabled_must_be_a_boolean(tmp_path: Path, root: Path) -> None:
    text = "version = 1\n" + library("so", "so.zim", extra='enabled = "yes"')
    message = manifest_error(tmp_path, root, text)
    assert "field 'enabled': 'yes' is not a boolean; accepted: true, false" in message


def test_absolute_path(tmp_path: Path, root: Path) -> None:
    absolute = str(root / "so.zim")
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", absolute))
    assert f"library #1 'so': field 'path': {absolute!r} is absolute" in message


def test_dotdot_escaping_root(tmp_path: Path, root: Path) -> None:
    (tmp_path / "outside.zim").write_bytes(b"zim")
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", "../outside.zim"))
    assert "field 'path': '../outside.zim' resolves to" in message
    assert "outside CORPUS_ROOT" in message


def test_dotdot_staying_inside_root_is_accepted(tmp_path: Path, root: Path) -> None:
    config = write_manifest(tmp_path, "version = 1\n" + library("so", "wiki/../so.zim"))
    assert load_manifest(config, root).libraries[0].file == root / "so.zim"


def test_symlink_escaping_root(tmp_path: Path, root: Path) -> None:
    (tmp_path / "outside.zim").write_bytes(b"zim")
    (root / "link.zim").symlink_to(tmp_path / "outside.zim")
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", "link.zim"))
    assert "field 'path': 'link.zim' resolves to" in message
    assert "outside CORPUS_ROOT" in message


def test_symlinked_folder_escaping_root(tmp_path: Path, root: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "so.zim").write_bytes(b"zim")
    (root / "mounted").symlink_to(tmp_path / "elsewhere")
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", "mounted/so.zim"))
    assert "outside CORPUS_ROOT" in message


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("so\\u0000.zim", "contains control characters"),
        ("loop/so.zim", "cannot be resolved"),
        ("a" * 300 + ".zim", "cannot be resolved: File name too long"),
    ],
)
def test_paths_the_os_cannot_take_are_refused(
    tmp_path: Path, root: Path, path: str, needle: str
) -> None:
    (root / "loop").symlink_to(root / "loop")
    message = manifest_error(tmp_path, root, "version = 1\n" + library("so", path))
    assert "field 'path'" in message
    assert needle in message


def test_symlink_inside_root_is_accepted(tmp_path: Path, root: Path) -> None:
    (root / "latest.zim").symlink_to(root / "so.zim")
    config = write_manifest(tmp_path, "version = 1\n" + library("so", "latest.zim"))
    assert load_manifest(config, root).libraries[0].file == root / "so.zim"


def test_symlinked_root_is_accepted(tmp_path: Path, root: Path) -> None:
    (tmp_path / "root-link").symlink_to(root)
    config = write_manifest(tmp_path, VALID)
    manifest = load_manifest(config, tmp_path / "root-link")
    assert manifest.libraries[1].file == root / "so.zim"


def test_missing_file_of_enabled_library(tmp_path: Path, root: Path) -> None:
    message = manifest_error(tmp_path, root, VALID + library("math", "math.zim"))
    assert f"library #3 'math': field 'path': archive {root / 'math.zim'} does not exist" in message
    assert "set enabled = false" in message


def test_missing_file_of_disabled_library_is_accepted(tmp_path: Path, root: Path) -> None:
    config = write_manifest(tmp_path, VALID + library("math", "math.zim", extra="enabled = false"))
    assert not load_manifest(config, root).libraries[2].enabled


def test_check_files_false_skips_existence(tmp_path: Path, root: Path) -> None:
    config = write_manifest(tmp_path, "version = 1\n" + library("math", "math.zim"))
    assert load_manifest(config, root, check_files=False).libraries[0].name == "math"


def test_missing_path(tmp_path: Path, root: Path) -> None:
    text = 'version = 1\n[[library]]\nname = "so"\nadapter = "mediawiki"\n'
    message = manifest_error(tmp_path, root, text)
    assert "library #1 'so': field 'path': must be a non-empty string" in message


def test_no_library_at_all(tmp_path: Path, root: Path) -> None:
    assert "no enabled library" in manifest_error(tmp_path, root, "version = 1\n")


def test_only_disabled_libraries(tmp_path: Path, root: Path) -> None:
    text = "version = 1\n" + library("so", "so.zim", extra="enabled = false")
    assert "no enabled library" in manifest_error(tmp_path, root, text)


def test_root_that_is_not_a_directory(tmp_path: Path, root: Path) -> None:
    config = write_manifest(tmp_path, VALID)
    with pytest.raises(ConfigError, match=r"CORPUS_ROOT .*nope is not a directory"):
        load_manifest(config, tmp_path / "nope")


def test_all_library_errors_are_reported_together(tmp_path: Path, root: Path) -> None:
    text = (
        "version = 1\n"
        + library("bad name", "so.zim")
        + library("so", "/abs.zim", "sotoki")
        + library("math", "math.zim", extra="colour = 1")
    )
    message = manifest_error(tmp_path, root, text)
    lines = message.splitlines()[1:]
    assert len(lines) == 6
    assert "library #1 'bad name': field 'name'" in lines[0]
    assert "library #2 'so': field 'adapter'" in lines[1]
    assert "library #2 'so': field 'path'" in lines[2]
    assert "library #3 'math': unknown key(s) 'colour'" in lines[3]
    assert "library #3 'math': field 'path'" in lines[4]
    # The archives missing, named together, with the ways to go on.
    assert f"1 enabled library(ies) without an archive in CORPUS_ROOT ({root}): math;" in lines[5]
    assert "set enabled = false" in lines[5] and "corpus-mcp init" in lines[5]


def test_manifest_that_is_not_utf8(tmp_path: Path, root: Path) -> None:
    config = tmp_path / "corpus.toml"
    config.write_bytes(b"version = 1\n# caf\xe9\n")
    with pytest.raises(ConfigError, match=r"corpus.toml cannot be read: .*utf-8"):
        load_manifest(config, root)
