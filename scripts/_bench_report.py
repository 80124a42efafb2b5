"""Figures and how the benchmark prints them: percentiles, aligned tables, the machine
and the versions measured, and the goals' verdicts."""

from __future__ import annotations

import datetime
import importlib.metadata
import math
import os
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _processes import ROOT


@dataclass(frozen=True)
class Latency:
    """Percentiles of latency samples, in milliseconds."""

    count: int
    p50: float
    p95: float
    p99: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        if not seconds:
            return cls(0, float("nan"), float("nan"), float("nan"), float("nan"))
        ordered = sorted(seconds)

        def at(q: float) -> float:
            return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

        return cls(len(ordered), at(0.5), at(0.95), at(0.99), ordered[-1] * 1000)


def ms(value: float) -> str:
    """A duration in ms with the digits that mean something at that size."""
    if math.isnan(value):  # nothing measured
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def mb(byte_count: float) -> str:
    megabytes = byte_count / 1e6
    return f"{megabytes:.1f} MB" if abs(megabytes) < 10 else f"{megabytes:.0f} MB"


def ratio(mine: float, theirs: float) -> str:
    if math.isnan(mine) or math.isnan(theirs) or theirs <= 0:
        return "-"
    return f"{mine / theirs:.2f}x"


def verdict(value: float, goal: float, *, at_most: bool = True) -> str:
    """``pass`` or ``MISS by N%`` (``-`` when not measured)."""
    if math.isnan(value):
        return "-"
    met = value <= goal if at_most else value >= goal
    if met:
        return "pass"
    off = (value / goal - 1) if at_most else (1 - value / goal)
    return f"MISS by {off:.0%}" if off >= 0.01 else f"MISS by {off:.1%}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> None:
    """Columns aligned: the first to the left, the others to the right."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])]
        parts += [str(cell).rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
        return indent + "  ".join(parts).rstrip()

    print(line(headers))
    for row in rows:
        print(line(row))


def heading(text: str) -> None:
    print(f"\n{text}", flush=True)


def machine_lines(kiwix: str | None) -> list[str]:
    """When, on what, with which versions."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    memory = next(
        int(line.split()[1]) * 1024
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal:")
    )
    load = os.getloadavg()[0]
    return [
        f"date:     {now}",
        f"machine:  {cpu}, {os.cpu_count()} cores, {memory / 2**30:.1f} GiB RAM, "
        f"load average {load:.2f} at start (a shared machine: peers run interleaved)",
        f"versions: Python {platform.python_version()}, python-libzim "
        f"{importlib.metadata.version('libzim')} (libzim {_libzim()}), xapian-bindings "
        f"{_version('xapian-bindings-binary')}, kiwix-serve {kiwix or 'absent'}, "
        f"corpus-mcp {_revision()}",
    ]


def kiwix_version(binary: str) -> str:
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False)
    words = done.stdout.split()
    tools = words[1] if len(words) > 1 else "?"
    libzim = next((w for i, w in enumerate(words) if i and words[i - 1] == "libzim"), "?")
    return f"{tools} (libzim {libzim})"


def _libzim() -> str:
    from libzim.version import get_libzim_version  # noqa: PLC0415 (only for this line)

    return str(get_libzim_version())


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _revision() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown revision"


@dataclass(frozen=True)
class Goal:
    """One line of the closing summary: a goal of an issue, what was measured, the
    verdict."""

    goal: str
    measured: str
    verdict: str
    issue: int = 10


def goals_table(goals: Sequence[Goal]) -> None:
    """One table per issue (10, then 20), each goal's line by its number."""
    for issue in sorted({goal.issue for goal in goals}):
        heading(f"goals (issue {issue}), from this run")
        ordered = sorted(
            (g for g in goals if g.issue == issue),
            key=lambda g: g.goal.split(".", 1)[0],  # by goal number, stable
        )
        table(["goal", "measured", "verdict"], [[g.goal, g.measured, g.verdict] for g in ordered])
