"""The Colab-like environment of the launch tests: a venv holding Colab's versions, nothing else.

``colab-versions.txt`` beside this file lists the pins, their source and date. This module
builds the venv from it with uv, checks that it holds exactly those versions, and refreshes
the list from a new Colab ``pip-freeze.txt``. uv links the packages from its own cache, so a
fresh clone gets the venv in seconds (measured in CONTRIBUTING.md's table of machinery).

Usage (the test's ``colab`` fixture runs ``build``)::

    python -m tests.launch.colab_env build .venv-colab
    python -m tests.launch.colab_env refresh pip-freeze.txt
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version

VERSIONS = Path(__file__).with_name("colab-versions.txt")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s*$")
_DIRECTIVE = re.compile(r"^#\s*(?P<key>python|roots):\s*(?P<value>.+?)\s*$")
# the book's own package, which the notebooks' set-up cell adds and each test removes again
OURS = "ibcore"
# uv, from the project's venv (requirements-dev.txt)
UV = [sys.executable, "-m", "uv"]


def read_versions(path: Path = VERSIONS) -> tuple[str, list[str], dict[str, str]]:
    """``(python minor, root packages, {canonical name: version})`` of a versions file."""
    python, roots, pins = None, [], {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if m := _DIRECTIVE.match(line):
            if m["key"] == "python":
                python = m["value"]
            else:
                roots = m["value"].split()
        elif m := _PIN.match(line):
            pins[canonicalize_name(m["name"])] = m["version"]
        elif line.strip() and not line.startswith("#"):
            raise ValueError(f"{path}: not a `name==version` pin: {line!r}")
    if not python or not roots or not pins:
        raise ValueError(f"{path} must have '# python:', '# roots:' and pins")
    return python, roots, pins


def _python_version(python: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a working interpreter with venv and ensurepip, else None."""
    try:
        out = subprocess.run([python, "-c", "import sys, venv, ensurepip; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return tuple(map(int, out.stdout.split())) if out.returncode == 0 else None


def find_python(minor: str) -> tuple[str, bool]:
    """An interpreter for the Colab-like venv: ``(path, True)`` if it is CPython ``minor``.

    Looks at ``$IB_COLAB_PYTHON``, ``python<minor>`` on the PATH, then pyenv's versions
    (the project's machines carry CPython 3.13.0 there). Without one, falls back to the
    Python running this module, and says so: ``(path, False)``.
    """
    want = tuple(int(p) for p in minor.split("."))
    candidates = [os.environ.get("IB_COLAB_PYTHON", ""), shutil.which(f"python{minor}") or ""]
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = glob.glob(os.path.join(pyenv_root, "versions", f"{minor}.*", "bin", f"python{minor}"))
    candidates += sorted(found, key=lambda p: Version(Path(p).parents[1].name), reverse=True)
    for python in filter(None, candidates):
        if _python_version(python) == want:
            return python, True
    base = getattr(sys, "_base_executable", sys.executable)
    return base, False


def installed(python: Path) -> dict[str, str]:
    """``{canonical name: version}`` of every distribution in the environment of ``python``."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
                         capture_output=True, text=True, check=True)
    return {canonicalize_name(d["name"]): d["version"] for d in json.loads(out.stdout)}


def differences(have: dict[str, str], want: dict[str, str]) -> list[str]:
    """What differs between two ``{name: version}`` maps, one line each (empty if none)."""
    lines = []
    for name in sorted(set(have) | set(want)):
        if have.get(name) != want.get(name):
            lines.append(f"{name}: {have.get(name, 'absent')} (want {want.get(name, 'absent')})")
    return lines


def _uv(*args: str) -> None:
    run = subprocess.run([*UV, *args, "--quiet"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"uv {' '.join(args)} failed:\n{run.stderr}")


def _create(venv_dir: Path, interpreter: str, requirements: Path) -> None:
    """A new venv at ``venv_dir`` of ``interpreter`` holding the pins of ``requirements``.

    The pins include Colab's pip, which the notebooks' set-up cell runs; ``--only-binary``: wheels
    only, as Colab's pip finds them."""
    _uv("venv", "--clear", "--python", interpreter, str(venv_dir))
    _uv("pip", "install", "--python", str(venv_dir / "bin" / "python"), "--only-binary", ":all:",
        "-r", str(requirements))


def build(venv_dir: Path, versions: Path = VERSIONS) -> Path:
    """Make ``venv_dir`` hold exactly the pinned versions (and no ibcore); return its python.

    A venv that already matches is reused (the Colab-like tests remove the ibcore they
    install); one that does not, or whose Python is not the wanted one, is made again.
    """
    minor, _, pins = read_versions(versions)
    venv_dir = Path(venv_dir).resolve()
    python = venv_dir / "bin" / "python"
    interpreter, exact = find_python(minor)
    if not exact:
        print(f"WARNING: Colab runs Python {minor}, which this machine lacks: the Colab-like "
              f"environment uses {interpreter} instead (set IB_COLAB_PYTHON to choose one).", file=sys.stderr)
    if python.exists() and _python_version(str(python)) == _python_version(interpreter):
        have = installed(python)
        if OURS in have:
            _uv("pip", "uninstall", "--python", str(python), OURS)
            del have[OURS]
        if not differences(have, pins):
            return python
        print(f"{venv_dir} differs from {versions.name}; rebuilding it", file=sys.stderr)
    _create(venv_dir, interpreter, versions)
    wrong = differences(installed(python), pins)
    if wrong:
        raise RuntimeError(f"{venv_dir} does not hold {versions.name}:\n" + "\n".join(wrong))
    return python


def refresh(freeze: Path, versions: Path = VERSIONS) -> list[str]:
    """Rewrite the pins of ``versions`` from a Colab ``pip-freeze.txt``; return the new pins.

    The roots named in the file are installed in a scratch venv with the freeze as
    constraints (its ``name @ url`` lines dropped), and that venv's ``pip freeze`` becomes
    the list: the roots and what they need, at Colab's versions.
    """
    minor, roots, _ = read_versions(versions)
    text = Path(freeze).read_text(encoding="utf-8")
    constraints = [line for line in text.splitlines() if _PIN.match(line)]
    colab_pip = next((line for line in constraints if canonicalize_name(line.split("==")[0]) == "pip"), None)
    if colab_pip is None:
        raise ValueError(f"{freeze} pins no pip: name Colab's pip version in {versions.name} by hand")
    interpreter, exact = find_python(minor)
    if not exact:
        raise RuntimeError(f"refresh needs CPython {minor} (set IB_COLAB_PYTHON)")
    with tempfile.TemporaryDirectory() as tmp:
        cfile = Path(tmp) / "constraints.txt"
        cfile.write_text("\n".join(constraints) + "\n", encoding="utf-8")
        python = Path(tmp) / "venv" / "bin" / "python"
        _uv("venv", "--python", interpreter, str(python.parents[1]))
        _uv("pip", "install", "--python", str(python), "--only-binary", ":all:", "-c", str(cfile),
            colab_pip, *roots)
        frozen = subprocess.run([*UV, "pip", "freeze", "--python", str(python)], capture_output=True,
                                text=True, check=True).stdout.split()
    frozen = [line for line in frozen if canonicalize_name(line.split("==")[0]) != "pip"]
    pins = [colab_pip] + sorted(frozen, key=str.lower)
    head = []
    for line in Path(versions).read_text(encoding="utf-8").splitlines():
        if _PIN.match(line):
            break
        head.append(line)
    Path(versions).write_text("\n".join(head + pins) + "\n", encoding="utf-8")
    return pins


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="create or check the Colab-like venv")
    b.add_argument("venv", type=Path)
    r = sub.add_parser("refresh", help="rewrite colab-versions.txt from a Colab pip-freeze.txt")
    r.add_argument("freeze", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        python = build(args.venv)
        version = subprocess.run([str(python), "--version"], capture_output=True, text=True).stdout.strip()
        print(f"Colab-like environment: {args.venv} ({version}, the versions of {VERSIONS.name})")
        return 0
    pins = refresh(args.freeze)
    print(f"{VERSIONS} now pins {len(pins)} packages: write the source commit and date in its header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
