"""``make venv`` installs the lock on the day the index holds releases newer than the lock.

A pinned package's extra (``coverage[toml]``, asked for by pytest-cov) is resolved by the
pip that Python 3.11 and 3.12 bundle against the newest release on the index, not against
the pin, and hash-checking mode then refuses the whole install. The lock broke on the day
coverage published a release newer than its pin (issue 29). The Makefile now brings pip
to the locked version first (requirements/pip.txt); this test shows it holds.

It runs the real Makefile in a copy of the repository, in a virtualenv whose pip is the
one the running Python bundled at its first release (the oldest pip a user of that Python
meets), while a local wheel folder (``PIP_FIND_LINKS``) offers a newer release of every
locked package. A control first installs the lock as the Makefile of 6794df5 did (the
bundled pip alone): where that pip has the flaw it must fail, or the newer releases did
not reach the resolver and the test would prove nothing.

It needs the package index (or pip's cache) and takes about a minute: marked slow.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The pip each supported Python bundled at its first release (ensurepip), the oldest a
#: user of that Python meets; 3.11's and 3.12's resolve extras against the newest release.
FIRST_BUNDLED_PIP = {(3, 11): "22.3", (3, 12): "23.2.1", (3, 13): "24.2"}
#: The pips known to refuse a hash-checked lock once a pinned extra has a newer release.
FLAWED_PIPS = {"22.3", "23.2.1"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make"),
]

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)", re.MULTILINE)


def _newer_wheels(requirements: Path, folder: Path) -> int:
    """A wheel of every package pinned in ``requirements``, one post-release newer than
    its pin (so it satisfies the same ranges), holding nothing but its metadata."""
    folder.mkdir()
    count = 0
    for name, version in _PIN.findall(requirements.read_text()):
        dist = re.sub(r"[-_.]+", "_", name).lower()
        newer = f"{version}.post999" if ".post" not in version else f"{version}999"
        info = f"{dist}-{newer}.dist-info"
        files = {
            f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {newer}\n",
            f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n",
        }
        with zipfile.ZipFile(folder / f"{dist}-{newer}-py3-none-any.whl", "w") as wheel:
            for path, text in files.items():
                wheel.writestr(path, text)
            wheel.writestr(f"{info}/RECORD", "".join(f"{path},,\n" for path in files) + ",,\n")
        count += 1
    return count


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,  # a hang must fail the test, not the run; never reached when healthy
    )


def _venv_with_pip(path: Path, pip: str, env: dict[str, str]) -> Path:
    """A virtualenv of the running Python whose pip is ``pip``."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    python = path / "bin" / "python"
    done = _run([str(python), "-m", "pip", "install", "--quiet", f"pip=={pip}"], cwd=path, env=env)
    if done.returncode != 0:
        pytest.skip(f"pip {pip} could not be installed (no index?): {done.stderr[-500:]}")
    return python


def _version(python: Path, package: str) -> str:
    return subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()


def test_make_venv_installs_the_lock_with_newer_releases_on_the_index(tmp_path: Path) -> None:
    bundled = FIRST_BUNDLED_PIP.get(sys.version_info[:2])
    if bundled is None:
        pytest.skip(f"Python {sys.version_info[:2]} is not a supported Python")
    top = tmp_path / "corpus-mcp"
    top.mkdir()
    for name in ("Makefile", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, top / name)
    shutil.copytree(ROOT / "requirements", top / "requirements")
    shutil.copytree(ROOT / "src", top / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    wheels = tmp_path / "newer"
    assert _newer_wheels(top / "requirements" / "dev.txt", wheels) > 50
    # The user's own pip settings stay (an index mirror, a CA bundle); the newer wheels are
    # offered beside the index, as a release published after the lock would be.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    env |= {"PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    control = _venv_with_pip(tmp_path / "control", bundled, env)
    lock = str(top / "requirements" / "dev.txt")
    before = _run(
        [str(control), "-m", "pip", "install", "--quiet", "--require-hashes", "-r", lock],
        cwd=top,
        env=env,
    )
    if bundled in FLAWED_PIPS:
        assert before.returncode != 0, "the newer releases did not reach the old pip"
        assert "must have their versions pinned with ==" in before.stderr, before.stderr[-2000:]

    venv = tmp_path / "venv"
    python = _venv_with_pip(venv, bundled, env)
    made = _run(
        ["make", "--no-print-directory", f"VENV={venv}", f"PYTHON={sys.executable}", "venv"],
        cwd=top,
        env=env,
    )
    assert made.returncode == 0, made.stderr[-3000:]
    [pip_pin] = _PIN.findall((top / "requirements" / "pip.txt").read_text())
    assert _version(python, "pip") == pip_pin[1]
    pins = dict(_PIN.findall((top / "requirements" / "dev.txt").read_text()))
    assert _version(python, "coverage") == pins["coverage"]
    assert _version(python, "pytest-cov") == pins["pytest-cov"]
    checked = _run([str(python), "-m", "pip", "check"], cwd=top, env=env)
    assert checked.returncode == 0, checked.stdout
