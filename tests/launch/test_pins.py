"""The pins install on the lowest Python the project declares.

pip's resolver runs for that Python without it being installed (``--python-version``
with ``--only-binary=:all:``, a dry run against the package index): it fails when a pin,
or something a pin needs, has no wheel for that Python. Needs the network: ``make check``.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.launch import repo_files

pytestmark = pytest.mark.slow  # pip's resolver against the package index

REQUIREMENT_FILES = sorted(p.name for p in repo_files.ROOT.glob("requirements*.txt"))


def test_pins_install_on_the_minimum_python(tmp_path):
    """One resolution of every requirements file together (each includes or extends the other)."""
    minimum = repo_files.minimum_python()
    reqs, local = [], []
    for name in REQUIREMENT_FILES:
        more, more_local = repo_files.requirement_lines(repo_files.ROOT / name)
        reqs += more
        local += more_local
    # `-e .` is ibcore: its own dependencies must resolve together with the pins
    assert set(local) <= {"-e ."}, f"unexpected local requirements {local}"
    flat = tmp_path / "requirements.txt"
    flat.write_text("\n".join(sorted(set(reqs)) + repo_files.project_dependencies()) + "\n")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--disable-pip-version-check", "--report", str(tmp_path / "report.json"),
         "--target", str(tmp_path / "target"), "--python-version", minimum, "--only-binary=:all:",
         "-r", str(flat)], capture_output=True, text=True, timeout=900)
    errors = "\n".join(line for line in run.stderr.splitlines() if line.startswith("ERROR"))
    assert run.returncode == 0, f"{', '.join(REQUIREMENT_FILES)} cannot be installed on Python {minimum}:\n{errors or run.stderr}"
    report = json.loads((tmp_path / "report.json").read_text())
    wheels = [item["download_info"]["url"].rsplit("/", 1)[-1] for item in report["install"]]
    assert wheels and all(w.endswith(".whl") for w in wheels), wheels
