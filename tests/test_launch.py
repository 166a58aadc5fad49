"""Launching works: every generated notebook's set-up cell runs in a fresh kernel; the files
that Binder reads say what we mean; one Python range everywhere.

Installing ibcore where it is missing (Colab) is tested in a Colab-like environment by
``make launch`` (``tests/launch/``), which also checks the pins on the lowest Python.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import ibcore
from tests.launch import repo_files
from tools import notebooks as nbtools

ROOT = nbtools.ROOT

CASES = [(md, edition) for md in nbtools.chapters() for edition in nbtools.EDITIONS]
IDS = [f"{edition}:{md.relative_to(nbtools.ROOT).as_posix()}" for md, edition in CASES]


def setup_cell(md, edition):
    nb = nbformat.read(nbtools.launch_notebook_path(md, edition), as_version=4)
    return next(c for c in nb.cells if c.cell_type == "code")


@functools.cache
def run_in_a_fresh_kernel(source: str, folder: Path) -> tuple:
    """The outputs of ``source`` run alone in a fresh kernel started in ``folder``.

    The set-up cell is the same text in every notebook: a kernel runs each distinct
    (text, folder) once, and every notebook's test checks that run's outputs.
    """
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return tuple(nb.cells[0].outputs)


@pytest.mark.parametrize("md, edition", CASES, ids=IDS)
def test_setup_cell_runs_in_a_fresh_kernel(md, edition):
    outputs = run_in_a_fresh_kernel(setup_cell(md, edition).source, md.parent)
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert text.strip() == f"ibcore {ibcore.__version__}"
    assert not any(o.output_type == "error" for o in outputs)


def test_setup_cell_installs_this_checkouts_ibcore():
    """The set-up cell's ref exists and holds the ibcore of the notebook next to it: the branch that
    the launch buttons open, or a release tag that the repository has, at this checkout's ibcore."""
    config = nbtools.load_config()
    problems = nbtools.install_ref_problems(config)
    assert not problems, problems[0]
    if not (config.get("ibcore") or {}).get("install_ref"):
        assert nbtools.install_ref(config) == config["repository"]["branch"]
    assert f"@{nbtools.install_ref(config)}\"" in nbtools.setup_cell_source(config)


def test_a_configured_release_tag_must_exist_and_hold_this_ibcore(tmp_path):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-C", str(tmp_path)]
    (tmp_path / "ibcore").mkdir()
    (tmp_path / "ibcore" / "__init__.py").write_text("__version__ = '9.9.9'\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ibcore'\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "release"], ["tag", "v9.9.9"]):
        subprocess.run(git + args, check=True, capture_output=True)
    config = {"repository": {"url": "https://github.com/o/r", "branch": "main"}, "ibcore": {"install_ref": "v9.9.9"}}
    assert nbtools.install_ref_problems(config, tmp_path) == []
    assert nbtools.install_ref(config) == "v9.9.9"
    missing = {**config, "ibcore": {"install_ref": "v1.0.0"}}
    assert "no such tag" in " ".join(nbtools.install_ref_problems(missing, tmp_path))
    (tmp_path / "ibcore" / "__init__.py").write_text("__version__ = '9.9.10'\n")  # ibcore moved on
    assert "another ibcore" in " ".join(nbtools.install_ref_problems(config, tmp_path))


# ------------------------------------------------------------------ one Python range

_CLAIM = re.compile(r"Python\s*(?:≥|>=)\s*(3\.\d+)|Python (3\.\d+) or newer")


def test_one_supported_python_range():
    """README and Makefile state the range of ``pyproject.toml``; runtime.txt lies inside it."""
    minimum = repo_files.minimum_python()
    for name in ("README.md", "Makefile"):
        claims = [a or b for a, b in _CLAIM.findall((ROOT / name).read_text(encoding="utf-8"))]
        assert claims, f"{name} states no supported Python"
        assert set(claims) == {minimum}, f"{name} claims Python {claims}; pyproject.toml says >={minimum}"
    name, version, _ = repo_files.read_runtime(ROOT / "runtime.txt")
    assert name == "python"
    # a bare major ("python-3") gets repo2docker's default, today 3.10: pin major.minor
    assert version and len(version.split(".")) == 2, f"runtime.txt must pin python-3.X, not {version!r}"
    # repo2docker stops with "runtime.txt version not supported by pyproject.toml" otherwise
    assert version in repo_files.requires_python()
    assert version in repo_files.REPO2DOCKER_PYTHONS
    for name in ("README.md", "_config.yml"):  # where the docs name Binder's Python
        named = set(re.findall(r"python-(3\.\d+)", (ROOT / name).read_text(encoding="utf-8")))
        assert named <= {version}, f"{name} names Binder's Python {named}; runtime.txt pins {version}"


def test_binder_runs_the_python_ci_tests():
    _, version, _ = repo_files.read_runtime(ROOT / "runtime.txt")
    here = "%d.%d" % sys.version_info[:2]
    if version != here and not os.environ.get("CI"):
        pytest.skip(f"runtime.txt pins {version}; these tests run on {here} (CI runs {version})")
    assert version == here, f"runtime.txt pins Python {version} but CI tests {here}"


def test_launch_settings_name_the_files_binder_and_colab_read():
    launch = nbtools.load_config()["launch_buttons"]
    if launch.get("binderhub_url"):
        assert (ROOT / "requirements.txt").is_file() and (ROOT / "runtime.txt").is_file()
        # repo2docker ships JupyterLab and Notebook; "classic" would open the retired interface
        assert launch.get("notebook_interface") == "jupyterlab"
    if launch.get("colab_url"):
        for md in nbtools.chapters():
            assert nbtools.launch_notebook_path(md, "instructor").is_file(), f"{md}: no notebook for Colab"


# ------------------------------------------------------------------ Binder (repo2docker)

def test_binder_installs_this_repository():
    """requirements.txt as repo2docker reads it: from the repository's root, `-e .` = ibcore."""
    # a binder/ or .binder/ folder would replace the root's requirements.txt and runtime.txt
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()
    _, local = repo_files.requirement_lines(ROOT / "requirements.txt")
    assert local == ["-e ."], f"requirements.txt's local lines must be just `-e .`, got {local}"
    # repo2docker runs pip in the repository's folder, where requirements.txt lies, so "." is
    # the repository: the project ibcore (repo2docker then also runs `pip install .` on it)
    project = repo_files.pyproject(ROOT)
    assert project["project"]["name"] == "ibcore" and "build-system" in project
    assert (ROOT / "ibcore" / "__init__.py").is_file()


# glibc and the GCC runtime: in every Ubuntu image, repo2docker's buildpack-deps:24.04 included;
# any other library must come inside a wheel (auditwheel bundles them) or from an apt.txt
BASE_IMAGE_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1",
}


def test_binder_needs_no_system_library():
    """Every shared library that requirements.txt's packages load is one of theirs or the base image's.

    Read off the wheels installed here, for the Python that runtime.txt pins (the previous
    test checks it is this one) on Linux, as Binder installs them. Wheels only: the launch
    stage resolves the pins with ``--only-binary=:all:``.
    """
    reqs, _ = repo_files.requirement_lines(ROOT / "requirements.txt")
    dists = [metadata.distribution(n) for n in sorted(repo_files.installed_closure(reqs + ["ibcore"]))]
    shipped, needs = set(), {}
    for dist in dists:
        for file in dist.files or []:
            if ".so" not in file.name:
                continue
            shipped.add(file.name)
            for lib in repo_files.needed_libraries(dist.locate_file(file)) or []:
                needs.setdefault(lib, set()).add(dist.metadata["Name"])
    missing = {lib: sorted(who) for lib, who in needs.items()
               if lib not in shipped and lib not in BASE_IMAGE_LIBRARIES}
    assert needs, "no compiled library found: is numpy installed?"
    assert not missing, f"libraries Binder's base image lacks (add them to apt.txt): {missing}"
