"""Settings from the environment and the library manifest (``corpus.toml``).

Both are read once at startup and handed down; nothing else reads the environment.
Every invalid value fails fast with a :class:`ConfigError` whose message names the
variable (or the file, library and field) and says what is accepted, because the
person reading it is an operator looking at a container log, not a developer.

Library names appear in refs (``corpus://<name>/<path>``), so they are restricted to
:data:`LIBRARY_NAME_PATTERN` (ASCII letters, digits, ``_``, ``.``, ``-``; starting with
a letter or digit; at most 64 characters) and must be unique case-insensitively.
"""

from __future__ import annotations

import errno
import fnmatch
import math
import os
import re
import tomllib
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Literal, cast, get_args

import msgspec

from corpus_mcp import snapshots

AdapterName = Literal[
    "mediawiki",
    "devdocs",
    "stackexchange",
    "html",
    "gutenberg",
    "ifixit",
    "freecodecamp",
    "libretexts",
    "ted",
]
ADAPTERS: tuple[AdapterName, ...] = get_args(AdapterName)

LogLevel = Literal["debug", "info", "warning", "error"]
LOG_LEVELS: tuple[LogLevel, ...] = get_args(LogLevel)
LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = get_args(LogFormat)
SearchEngine = Literal["auto", "libzim"]
SEARCH_ENGINES: tuple[SearchEngine, ...] = get_args(SearchEngine)
IndexMode = Literal["auto", "off"]
INDEX_MODES: tuple[IndexMode, ...] = get_args(IndexMode)
IndexPriority = Literal["idle", "low", "normal"]
INDEX_PRIORITIES: tuple[IndexPriority, ...] = get_args(IndexPriority)

MANIFEST_VERSION = 1
LIBRARY_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
LIBRARY_NAME_RULE = "1-64 ASCII letters, digits, '_', '.' or '-', starting with a letter or digit"

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")


class ConfigError(Exception):
    """Invalid settings or manifest; the message is the operator-facing explanation."""


class EnvVariable(msgspec.Struct, frozen=True):
    """One environment variable: its name, default (as text) and meaning, for ``--help``."""

    name: str
    default: str
    meaning: str


#: Every variable :func:`load_settings` reads, in the order ``--help`` documents them.
ENV_VARIABLES: tuple[EnvVariable, ...] = (
    EnvVariable("CORPUS_ROOT", "/corpus", "folder holding the ZIM archives"),
    EnvVariable("CORPUS_CONFIG", "/config/corpus.toml", "the library manifest"),
    EnvVariable("MCP_HOST", "127.0.0.1", "address the HTTP server binds (the image: 0.0.0.0)"),
    EnvVariable(
        "MCP_PORT", "8000", "port the HTTP server binds (1-65535; 0: any free one, logged)"
    ),
    EnvVariable("SEARCH_LIMIT", "5", "results per search when the agent gives no limit"),
    EnvVariable("SEARCH_MAX_LIMIT", "10", "largest limit an agent may ask for"),
    EnvVariable(
        "FETCH_BUDGET_CHARS",
        "8000",
        "a fetch answer fills up to this many characters in document order and lists what "
        "it left out (MAX_FETCH_CHARS, where set, bounds it too: the older cap)",
    ),
    EnvVariable("SEARCH_WORKERS", "8", "libzim calls running at once, all libraries"),
    EnvVariable("SEARCH_MAX_CONSECUTIVE", "2", "most results in a row from one library"),
    EnvVariable(
        "SEARCH_TIMEOUT", "5", "deadline of a search, and of a fetch's archive work, in seconds"
    ),
    EnvVariable(
        "MAX_SEARCHES",
        "8",
        "searches computed at once (divided among the WORKERS processes); more queue, briefly",
    ),
    EnvVariable("LOG_QUERIES", "true", "log search queries and fetched refs"),
    EnvVariable("ZIM_CHECK", "false", "run libzim's full checksum check at startup"),
    EnvVariable("MCP_ALLOWED_HOSTS", "", "extra Host values accepted (comma-separated)"),
    EnvVariable("MCP_ALLOWED_ORIGINS", "", "extra Origin values accepted (comma-separated)"),
    EnvVariable("DOCUMENT_CACHE_MB", "64", "memory for parsed documents, in MB"),
    EnvVariable("LOG_LEVEL", "info", "debug, info, warning or error"),
    EnvVariable(
        "LOG_FORMAT",
        "text",
        "text: one line per record; json: one JSON object per line (log shippers)",
    ),
    EnvVariable(
        "SEARCH_ENGINE",
        "auto",
        "auto: read the archives' Xapian indexes directly where possible; libzim: always "
        "libzim's own search",
    ),
    EnvVariable("MAX_CONNECTIONS", "256", "open HTTP connections; beyond it new ones get 503"),
    EnvVariable("HTTP_IDLE_TIMEOUT", "5", "seconds a connection may wait for a request head"),
    EnvVariable("HTTP_BODY_TIMEOUT", "10", "seconds a request body may take to arrive"),
    EnvVariable("HTTP_SEND_TIMEOUT", "30", "seconds a response may wait for a non-reading client"),
    EnvVariable("SHUTDOWN_TIMEOUT", "10", "seconds calls in flight get after SIGTERM/SIGINT"),
    EnvVariable(
        "WORKERS",
        "auto",
        "serve: processes serving HTTP on MCP_PORT, each with its own corpus and caches; "
        "auto: one per usable CPU (1: this process alone); stdio is always one process",
    ),
    EnvVariable(
        "PARSE_WORKERS",
        "auto",
        "processes parsing documents, per serving process; auto: one per CPU with one "
        "serving process and one CPU or more, none otherwise; 0: threads",
    ),
    EnvVariable(
        "ARCHIVE_RECHECK_SECONDS",
        "5",
        "seconds between checks of the archive files (a changed one is left out, a sound one "
        "is served again)",
    ),
    EnvVariable(
        "INDEX",
        "auto",
        "auto: search each library by its section index once built (built in the background "
        "when missing); off: never build or read one",
    ),
    EnvVariable(
        "INDEX_PRIORITY",
        "idle",
        "CPU priority of background index builds: idle (only CPU time nothing else wants), "
        "low (nice 19), normal",
    ),
    EnvVariable(
        "CORPUS_INDEX_DIR",
        "",
        "folder of the section indexes (default: $XDG_CACHE_HOME/corpus-mcp/indexes, else "
        "~/.cache/corpus-mcp/indexes; the image: /indexes); writable, apart from the corpus",
    ),
)
#: The fetch answer's older hard cap (issue 30 made FETCH_BUDGET_CHARS the one budget),
#: read where set: a deployment setting it keeps its answers that small.
FETCH_CAP_ALIAS = "MAX_FETCH_CHARS"
_DEFAULTS = {variable.name: variable.default for variable in ENV_VARIABLES}
_DEFAULTS[FETCH_CAP_ALIAS] = _DEFAULTS["FETCH_BUDGET_CHARS"]
#: More parse workers (or serving processes) than this only costs memory on any machine
#: this serves.
MAX_PARSE_WORKERS = 64
MAX_WORKERS = 64
#: Where cgroup v2 and v1 keep the CPU quota of the process's group (read by usable_cpus),
#: and where the kernel says which groups the process is in.
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def usable_cpus(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """CPUs this process can keep busy: the ones it may run on (its affinity, e.g. a
    container's cpuset), fewer under a CPU quota (a container's or pod's CPU limit, which
    leaves the affinity at every core of the host): 1.5 CPUs count as 2."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    quota = cpu_quota(cgroup_root, proc_cgroup)
    return max(1, min(cpus, math.ceil(quota))) if quota is not None else cpus


def cpu_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (cgroup v2 ``cpu.max``, else v1
    ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``), or None without a quota. Only the
    group's own file is read: inside a container that is the container's limit."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        group = path.lstrip("/")
        if hierarchy == "0" and not controllers:
            found = _read_quota(cgroup_root / group / "cpu.max", None)
        elif "cpu" in controllers.split(","):
            found = _read_quota(
                cgroup_root / "cpu" / group / "cpu.cfs_quota_us",
                cgroup_root / "cpu" / group / "cpu.cfs_period_us",
            )
        else:
            continue
        if found is not None:
            return found
    return None


def _read_quota(quota_file: Path, period_file: Path | None) -> float | None:
    """A quota in CPUs from cgroup v2's ``cpu.max`` (``quota period`` or ``max period``)
    or v1's two files (``-1`` when unlimited); None when unlimited or unreadable."""
    try:
        if period_file is None:
            quota, _, period = quota_file.read_text().strip().partition(" ")
        else:
            quota, period = quota_file.read_text().strip(), period_file.read_text().strip()
        if quota in ("max", "-1") or not period:
            return None
        cpus = int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None
    return cpus if cpus > 0 else None


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """The whole runtime configuration, built once from the environment."""

    corpus_root: Path
    corpus_config: Path
    mcp_host: str
    mcp_port: int
    search_limit: int
    search_max_limit: int
    fetch_budget_chars: int
    """A fetch fills its answer up to this many characters and lists what it left out
    (:mod:`corpus_mcp.folding`)."""
    search_workers: int
    search_max_consecutive: int
    log_queries: bool
    zim_check: bool
    search_timeout: float
    """Seconds each library gets to answer a search."""
    allowed_hosts: tuple[str, ...] = ()
    """Host header values accepted beyond 127.0.0.1/localhost on MCP_PORT."""
    allowed_origins: tuple[str, ...] = ()
    document_cache_bytes: int = 64 * 1_000_000
    """Parsed documents each serving process keeps: DOCUMENT_CACHE_MB divided among the
    WORKERS processes."""
    log_level: LogLevel = "info"
    log_format: LogFormat = "text"
    """``json``: one object per line with time, level, logger, message and the record's
    fields (a tool call's tool, outcome, duration, counts), for log shippers."""
    search_engine: SearchEngine = "auto"
    """``auto`` reads each archive's Xapian indexes directly (BM25, every word
    optional, the GIL released) where the bindings and the archive allow it; ``libzim``
    always searches through libzim (words ANDed, relaxed while too few match)."""
    max_connections: int = 256
    """Open HTTP connections served at once; a connection beyond it is answered 503."""
    http_idle_timeout: float = 5.0
    """Seconds a connection may go without a request in progress: waiting for the first
    request's head, or kept alive between requests. Bounds slow and silent clients."""
    http_body_timeout: float = 10.0
    """Seconds from a request's head to the end of its body; then 408."""
    http_send_timeout: float = 30.0
    """Seconds one response write may wait on a client that does not read."""
    shutdown_timeout: float = 10.0
    """Seconds calls in flight get to finish after SIGTERM/SIGINT; then they are
    answered 503. Compose's stop_grace_period must leave a few seconds more."""
    workers: int = 1
    """Processes serving HTTP on one port (``corpus-mcp serve``), each with its own
    corpus and caches, supervised by one more (:mod:`corpus_mcp.server.workers`); 1:
    the process serves alone. stdio and the terminal commands are always one process."""
    parse_workers: int = 0
    """Worker processes parsing documents, per serving process (0: threads of the
    serving process)."""
    max_searches: int = 8
    """Searches each serving process computes at once (MAX_SEARCHES divided among the
    WORKERS processes, rounded up); the others queue for at most a quarter of
    SEARCH_TIMEOUT, then are refused as ``busy``."""
    archive_recheck_seconds: float = 5.0
    """Seconds between two checks of every archive file: a file changed or gone is found
    without waiting for a call, and an unavailable library's path is looked at again (a
    file is served again once two checks in a row see it unchanged)."""
    index: IndexMode = "auto"
    """``auto``: each library is searched by its section index once one is ready, and a
    missing or stale one is built in the background; ``off``: never (libzim's indexes
    only)."""
    index_dir: Path = Path("indexes")
    """Where the section indexes live (CORPUS_INDEX_DIR)."""
    index_priority: IndexPriority = "idle"
    """How a serving process's background build runs: ``idle`` (``SCHED_IDLE``: on CPU
    time nothing else wants, so searches never wait for it; on a machine busy all the
    time it waits too), ``low`` (nice 19), ``normal``."""


class _EnvReader:
    """Reads variables from one mapping, collecting every problem instead of stopping."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        self.errors: list[str] = []

    def raw(self, name: str) -> str:
        """The value as text; unset or blank means the documented default."""
        value = self.environ.get(name, "").strip()
        return value or _DEFAULTS[name]

    def _parse(self, name: str, parse: Callable[[str], Any], fallback: Any) -> Any:
        value = self.raw(name)
        try:
            return parse(value)
        except ValueError as exc:
            self.errors.append(f"{name}={value!r}: {exc}")
            return fallback

    def text(self, name: str) -> str:
        return self.raw(name)

    def path(self, name: str) -> Path:
        return Path(self.raw(name)).absolute()

    def integer(self, name: str, minimum: int = 1, maximum: int | None = None) -> int:
        def parse(value: str) -> int:
            accepted = f"an integer >= {minimum}" + (f" and <= {maximum}" if maximum else "")
            if not _INTEGER.match(value):
                raise ValueError(f"not an integer; accepted: {accepted}")
            number = int(value)
            if number < minimum or (maximum is not None and number > maximum):
                raise ValueError(f"out of range; accepted: {accepted}")
            return number

        result: int = self._parse(name, parse, int(_DEFAULTS[name]))
        return result

    def seconds(self, name: str) -> float:
        def parse(value: str) -> float:
            accepted = "a number of seconds > 0, e.g. 5 or 2.5"
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"not a number; accepted: {accepted}") from None
            if not math.isfinite(number) or number <= 0:
                raise ValueError(f"out of range; accepted: {accepted}")
            return number

        result: float = self._parse(name, parse, float(_DEFAULTS[name]))
        return result

    def boolean(self, name: str) -> bool:
        def parse(value: str) -> bool:
            lowered = value.lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            accepted = ", ".join(f"{yes}/{no}" for yes, no in zip(_TRUE, _FALSE, strict=True))
            raise ValueError(f"not a boolean; accepted (any case): {accepted}")

        result: bool = self._parse(name, parse, _DEFAULTS[name] == "true")
        return result

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        def parse(value: str) -> str:
            if value.lower() not in choices:
                raise ValueError(f"unknown value; accepted: {', '.join(choices)}")
            return value.lower()

        result: str = self._parse(name, parse, _DEFAULTS[name])
        return result

    def processes(self, name: str, *, auto: int, minimum: int, maximum: int) -> int:
        """A process count: ``auto`` (meaning ``auto``) or an integer in the range."""

        def parse(value: str) -> int:
            if value.lower() == "auto":
                return auto
            if not _INTEGER.match(value) or not minimum <= int(value) <= maximum:
                raise ValueError(f"accepted: auto or an integer from {minimum} to {maximum}")
            return int(value)

        result: int = self._parse(name, parse, auto)
        return result

    def items(self, name: str) -> tuple[str, ...]:
        return tuple(item.strip() for item in self.raw(name).split(",") if item.strip())


def load_settings(
    environ: Mapping[str, str] | None = None, *, one_process: bool = False
) -> Settings:
    """Build :class:`Settings` from ``environ`` (default ``os.environ``), all or nothing.

    Every invalid variable is reported in one :class:`ConfigError`, one per line.
    ``one_process``: for a command that always runs in one process (stdio, the terminal
    commands), whatever WORKERS says (it is still checked).
    """
    env = _EnvReader(os.environ if environ is None else environ)
    log_level: Any = env.choice("LOG_LEVEL", LOG_LEVELS)
    log_format: Any = env.choice("LOG_FORMAT", LOG_FORMATS)
    search_engine: Any = env.choice("SEARCH_ENGINE", SEARCH_ENGINES)
    cpus = usable_cpus()
    workers = env.processes("WORKERS", auto=min(cpus, MAX_WORKERS), minimum=1, maximum=MAX_WORKERS)
    if one_process:
        workers = 1
    settings = Settings(
        corpus_root=env.path("CORPUS_ROOT"),
        corpus_config=env.path("CORPUS_CONFIG"),
        mcp_host=env.text("MCP_HOST"),
        mcp_port=env.integer("MCP_PORT", minimum=0, maximum=65535),
        search_limit=env.integer("SEARCH_LIMIT"),
        search_max_limit=env.integer("SEARCH_MAX_LIMIT"),
        fetch_budget_chars=_fetch_budget(env),
        search_workers=env.integer("SEARCH_WORKERS"),
        search_max_consecutive=env.integer("SEARCH_MAX_CONSECUTIVE"),
        log_queries=env.boolean("LOG_QUERIES"),
        zim_check=env.boolean("ZIM_CHECK"),
        search_timeout=env.seconds("SEARCH_TIMEOUT"),
        allowed_hosts=env.items("MCP_ALLOWED_HOSTS"),
        allowed_origins=env.items("MCP_ALLOWED_ORIGINS"),
        # One share per serving process: the processes together hold what it says.
        document_cache_bytes=env.integer("DOCUMENT_CACHE_MB") * 1_000_000 // workers,
        log_level=log_level,
        log_format=log_format,
        search_engine=search_engine,
        max_connections=env.integer("MAX_CONNECTIONS"),
        http_idle_timeout=env.seconds("HTTP_IDLE_TIMEOUT"),
        http_body_timeout=env.seconds("HTTP_BODY_TIMEOUT"),
        http_send_timeout=env.seconds("HTTP_SEND_TIMEOUT"),
        shutdown_timeout=env.seconds("SHUTDOWN_TIMEOUT"),
        workers=workers,
        parse_workers=env.processes(
            "PARSE_WORKERS",
            # Several serving processes use the cores already; parse workers for each
            # would only cost memory (DEVELOPERS.md, "Serving processes").
            auto=cpus if cpus > 1 and workers == 1 else 0,
            minimum=0,
            maximum=MAX_PARSE_WORKERS,
        ),
        # Divided like the caches: the processes together compute MAX_SEARCHES at once
        # (fewer at once in one process is faster: its searches share one GIL).
        max_searches=-(-env.integer("MAX_SEARCHES") // workers),
        archive_recheck_seconds=env.seconds("ARCHIVE_RECHECK_SECONDS"),
        index=cast(IndexMode, env.choice("INDEX", INDEX_MODES)),
        index_dir=_index_dir(env),
        index_priority=cast(IndexPriority, env.choice("INDEX_PRIORITY", INDEX_PRIORITIES)),
    )
    if settings.search_limit > settings.search_max_limit:
        env.errors.append(
            f"SEARCH_LIMIT={settings.search_limit} is greater than "
            f"SEARCH_MAX_LIMIT={settings.search_max_limit}; accepted: "
            "SEARCH_LIMIT <= SEARCH_MAX_LIMIT"
        )
    if env.errors:
        raise ConfigError("invalid settings:\n  " + "\n  ".join(env.errors))
    return settings


def _fetch_budget(env: _EnvReader) -> int:
    """FETCH_BUDGET_CHARS, bounded by MAX_FETCH_CHARS where that is set: before they
    became one budget, an answer held at most the smaller of the two (its subsections
    within the one, any answer within the other), so every setting keeps its size."""
    budget = env.integer("FETCH_BUDGET_CHARS")
    if env.environ.get(FETCH_CAP_ALIAS, "").strip():
        return min(budget, env.integer(FETCH_CAP_ALIAS))
    return budget


def _index_dir(env: _EnvReader) -> Path:
    """CORPUS_INDEX_DIR, else the user's cache folder (XDG_CACHE_HOME, else ~/.cache)."""
    configured = env.environ.get("CORPUS_INDEX_DIR", "").strip()
    if configured:
        return Path(configured).absolute()
    cache = env.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return base / "corpus-mcp" / "indexes"


def init_paths(
    source: Path | None, output: Path | None, environ: Mapping[str, str] | None = None
) -> tuple[Path, Path]:
    """What ``corpus-mcp init`` reads and writes when not told: CORPUS_ROOT and
    CORPUS_CONFIG when they are set, else ``./corpus`` and ``./corpus.toml`` (the layout
    ``make`` and the compose file use), rather than the image's ``/corpus`` defaults."""
    env = os.environ if environ is None else environ
    default_source = Path(env.get("CORPUS_ROOT", "").strip() or "corpus")
    default_output = Path(env.get("CORPUS_CONFIG", "").strip() or "corpus.toml")
    return (source or default_source).absolute(), (output or default_output).absolute()


# -- manifest -------------------------------------------------------------------------


class Library(msgspec.Struct, frozen=True):
    """One ``[[library]]`` entry of the manifest."""

    name: str
    path: str
    """As written in the manifest, relative to CORPUS_ROOT: a file, or a pattern
    (:func:`is_pattern`) resolved to the newest snapshot present."""
    adapter: AdapterName
    enabled: bool
    file: Path
    """Absolute, symlink-resolved path of the archive, inside CORPUS_ROOT (for a pattern
    that chose no file, where it looked: no file is there)."""
    archive: str
    """The archive's path relative to CORPUS_ROOT: ``path`` itself, or the file a
    pattern chose (``wikipedia/wikipedia_en_all_nopic_2026-06.zim``)."""
    unresolved: str | None = None
    """Why a pattern chose no file. Only where none is needed (a disabled library,
    ``corpus-mcp list``); anywhere else that is an error."""

    @property
    def is_pattern(self) -> bool:
        return is_pattern(self.path)


class Manifest(msgspec.Struct, frozen=True):
    """The parsed manifest: every library, disabled ones included, in file order."""

    file: Path
    libraries: tuple[Library, ...]

    @property
    def enabled(self) -> tuple[Library, ...]:
        return tuple(library for library in self.libraries if library.enabled)


_TOP_LEVEL_KEYS = ("version", "library")
_LIBRARY_KEYS = ("name", "path", "adapter", "enabled")
#: What makes a manifest ``path`` a pattern (fnmatch's wildcards).
WILDCARDS = frozenset("*?[")
PATTERN_EXAMPLE = "wikipedia/wikipedia_en_all_nopic_*.zim"
#: What a manifest says when enabled libraries have no archive: how to go on.
HOW_TO_GO_ON = (
    "download the archives into CORPUS_ROOT, set enabled = false on the libraries you do "
    "not want, or write a manifest for the archives that are there with `corpus-mcp init` "
    "(`make init`; it replaces an existing manifest only with --force, FORCE=1)"
)


def is_pattern(path: str) -> bool:
    """Whether a manifest ``path`` is a pattern (``*``, ``?`` or ``[...]`` in it)."""
    return not WILDCARDS.isdisjoint(path)


def _read_toml(config: Path) -> dict[str, Any]:
    try:
        text = config.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"manifest {config} not found; set CORPUS_CONFIG to the path of your corpus.toml"
        ) from None
    except IsADirectoryError:
        raise ConfigError(
            f"manifest {config} is a directory; set CORPUS_CONFIG to the corpus.toml file"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"manifest {config} cannot be read: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config}: TOML syntax error: {exc}") from None


def _check_top_level(config: Path, document: dict[str, Any]) -> list[Any]:
    unknown = sorted(set(document) - set(_TOP_LEVEL_KEYS))
    if unknown:
        raise ConfigError(
            f"{config}: unknown top-level key(s) {', '.join(map(repr, unknown))}; "
            f"accepted: {', '.join(_TOP_LEVEL_KEYS)}"
        )
    version = document.get("version")
    if version is None:
        raise ConfigError(f"{config}: missing 'version'; accepted: version = {MANIFEST_VERSION}")
    if type(version) is not int or version != MANIFEST_VERSION:
        raise ConfigError(
            f"{config}: unknown version {version!r}; accepted: version = {MANIFEST_VERSION}"
        )
    tables = document.get("library", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{config}: 'library' must be an array of tables written [[library]]")
    return tables


class _PathProblem(Exception):
    """A manifest ``path`` that cannot be accepted; the message says why and what is."""


class _Missing(_PathProblem):
    """No archive where a ``path`` says (tolerated where no file is needed)."""


class _Archive(msgspec.Struct, frozen=True):
    """Where a manifest ``path`` leads: the file, and its path relative to CORPUS_ROOT."""

    file: Path
    archive: str
    unresolved: str | None = None


def _resolved_inside(relative: str, root: Path, what: str) -> Path:
    """``root / relative`` with '..' and symlinks resolved; it must stay inside ``root``.
    ``what`` names it in a refusal (``'devdocs/x.zim'``, ``pattern 'x_*.zim' matches ...``)."""
    try:
        resolved = (root / relative).resolve()
    except RuntimeError as exc:  # a symlink loop (Python 3.11, 3.12)
        raise _PathProblem(f"{what} cannot be resolved: {exc}") from None
    try:
        os.stat(resolved)
    except OSError as exc:  # whether it must exist is checked with the other fields
        if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP):
            raise _PathProblem(f"{what} cannot be resolved: {exc.strerror}") from None
    if not resolved.is_relative_to(root.resolve()):
        raise _PathProblem(
            f"{what} resolves to {resolved}, outside CORPUS_ROOT ({root}); accepted: a "
            "path that stays inside CORPUS_ROOT once '..' and symlinks are resolved"
        )
    return resolved


def _checked_shape(raw: Any, root: Path) -> str:
    """``raw`` when it can be a manifest path at all (a relative file name)."""
    if not isinstance(raw, str) or not raw.strip():
        raise _PathProblem("must be a non-empty string (a file path relative to CORPUS_ROOT)")
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute():
        raise _PathProblem(
            f"{raw!r} is absolute; accepted: a path relative to CORPUS_ROOT ({root})"
        )
    if any(unicodedata.category(char) == "Cc" for char in raw):
        raise _PathProblem(f"{raw!r} contains control characters; accepted: a file name as on disk")
    return raw


def _literal_archive(raw: str, root: Path, needed: bool) -> _Archive:
    file = _resolved_inside(raw, root, repr(raw))
    if needed and not _is_file(file):
        raise _Missing(
            f"archive {file} does not exist or is not a file "
            "(download it, fix the path, or set enabled = false)"
        )
    return _Archive(file, raw)


def _matching_files(raw: str, root: Path) -> tuple[Path, dict[str, Path]]:
    """The folder a pattern looks in, and the files in it its name matches (relative
    path -> resolved file); wildcards in the file name only."""
    folder, name = PurePosixPath(raw).parent, PurePosixPath(raw).name
    if is_pattern(str(folder)):
        raise _PathProblem(
            f"{raw!r}: wildcards (*, ?, [...]) are accepted in the file name only, "
            f"e.g. {PATTERN_EXAMPLE!r}"
        )
    if not name.endswith(".zim"):
        raise _PathProblem(
            f"pattern {raw!r} must end in .zim, so that it never matches a download in "
            "progress (.zim.part) or another kind of file"
        )
    directory = _resolved_inside(str(folder), root, f"the folder of pattern {raw!r}")
    try:
        entries = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        entries = []
    except OSError as exc:
        raise _PathProblem(f"pattern {raw!r}: cannot list {directory}: {exc.strerror}") from None
    found: dict[str, Path] = {}
    for entry in entries:
        # As in a shell, '*' does not match a leading dot (rsync's temporary files).
        hidden = entry.startswith(".") and not name.startswith(".")
        if hidden or not fnmatch.fnmatchcase(entry, name):
            continue
        relative = str(folder / entry)
        file = _resolved_inside(relative, root, f"pattern {raw!r} matches {relative!r}, which")
        if _is_file(file):  # a folder or a dangling link is no snapshot
            found[relative] = file
    return directory, found


def _pattern_archive(raw: str, root: Path, needed: bool) -> _Archive:
    """The newest snapshot a pattern matches, by the date in the file names
    (:mod:`corpus_mcp.snapshots`)."""
    directory, found = _matching_files(raw, root)
    by_name = {PurePosixPath(relative).name: relative for relative in found}
    choice = snapshots.newest(by_name)
    if choice.name is not None:
        relative = by_name[choice.name]
        return _Archive(found[relative], relative)
    if choice.undated:
        why = (
            f"matches {', '.join(map(repr, choice.undated))} without a _YYYY-MM snapshot "
            "date in the file name, so the newest cannot be told; rename what is a snapshot "
            "(Kiwix names end in _YYYY-MM.zim), move out of the folder what is not, or "
            "write one file's path instead of a pattern"
        )
    elif choice.tied:
        why = (
            f"matches {len(choice.tied)} files of the newest snapshot, {choice.snapshot}: "
            f"{', '.join(map(repr, choice.tied))}; keep one of them, or narrow the pattern "
            "to one (e.g. name the flavour: '..._nopic_*.zim')"
        )
    elif needed:
        raise _Missing(
            f"pattern {raw!r} matches no archive in {directory} "
            "(download a snapshot into it, fix the pattern, or set enabled = false)"
        )
    else:
        why = "matches no archive"
    if needed:
        raise _PathProblem(f"pattern {raw!r} {why}")
    return _Archive(directory / PurePosixPath(raw).name, raw, unresolved=why)


def _archive_of(raw: Any, root: Path, needed: bool) -> _Archive:
    """Where a manifest ``path`` leads; ``needed``: the archive must be there."""
    path = _checked_shape(raw, root)
    if is_pattern(path):
        return _pattern_archive(path, root, needed)
    return _literal_archive(path, root, needed)


def _is_file(path: Path) -> bool:
    """``path.is_file()``, false also where the OS refuses to look (a name too long)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _parse_library(
    table: dict[str, Any], root: Path, check_files: bool
) -> tuple[Library | None, list[str], bool]:
    """One library table, or the list of everything wrong with it (field by field), and
    whether its archive is missing."""
    errors: list[str] = []
    unknown = sorted(set(table) - set(_LIBRARY_KEYS))
    if unknown:
        errors.append(
            f"unknown key(s) {', '.join(map(repr, unknown))}; accepted: {', '.join(_LIBRARY_KEYS)}"
        )
    name = table.get("name")
    if not isinstance(name, str) or not LIBRARY_NAME_PATTERN.match(name):
        shown = "missing" if name is None else repr(name)
        errors.append(f"field 'name': {shown} is not a valid name; accepted: {LIBRARY_NAME_RULE}")
    adapter = table.get("adapter")
    if adapter not in ADAPTERS:
        shown = "missing" if adapter is None else f"unknown adapter {adapter!r}"
        errors.append(f"field 'adapter': {shown}; accepted: {', '.join(ADAPTERS)}")
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        errors.append(f"field 'enabled': {enabled!r} is not a boolean; accepted: true, false")
    archive: _Archive | None = None
    missing = False
    try:
        archive = _archive_of(table.get("path"), root, needed=enabled is True and check_files)
    except _PathProblem as exc:
        errors.append(f"field 'path': {exc}")
        missing = isinstance(exc, _Missing)
    if errors or archive is None:
        return None, errors, missing
    library = Library(
        name=table["name"],
        path=table["path"],
        adapter=table["adapter"],
        enabled=enabled,
        file=archive.file,
        archive=archive.archive,
        unresolved=archive.unresolved,
    )
    return library, [], False


def load_manifest(config: Path, root: Path, *, check_files: bool = True) -> Manifest:
    """Parse and validate the manifest at ``config`` against the corpus folder ``root``.

    Every library problem is collected and reported in one :class:`ConfigError`, one
    line per problem, naming the file, the library and the field. ``check_files=False``
    skips the existence check of archives (``corpus-mcp list`` shows it as a column).
    """
    document = _read_toml(config)
    tables = _check_top_level(config, document)
    if check_files and not root.is_dir():
        raise ConfigError(
            f"CORPUS_ROOT {root} is not a directory; set CORPUS_ROOT to the folder of archives"
        )
    errors: list[str] = []
    absent: list[str] = []
    libraries: list[Library] = []
    seen: dict[str, str] = {}
    for index, table in enumerate(tables, start=1):
        name = table.get("name")
        label = f"library #{index}" + (f" {name!r}" if isinstance(name, str) else "")
        library, problems, missing = _parse_library(table, root, check_files)
        errors.extend(f"{config}: {label}: {problem}" for problem in problems)
        if missing:
            absent.append(name if isinstance(name, str) else f"#{index}")
        if isinstance(name, str):
            if name.lower() in seen:
                errors.append(
                    f"{config}: {label}: field 'name': duplicate of {seen[name.lower()]!r} "
                    "(names are compared case-insensitively because they appear in refs)"
                )
            seen.setdefault(name.lower(), name)
        if library is not None:
            libraries.append(library)
    if absent:
        errors.append(
            f"{len(absent)} enabled library(ies) without an archive in CORPUS_ROOT ({root}): "
            f"{', '.join(absent)}; to go on, {HOW_TO_GO_ON}"
        )
    if errors:
        raise ConfigError("invalid manifest:\n  " + "\n  ".join(errors))
    manifest = Manifest(file=config, libraries=tuple(libraries))
    if not manifest.enabled:
        raise ConfigError(
            f"{config}: no enabled library; add a [[library]] table or set enabled = true on one"
        )
    return manifest
