"""Launching works: every generated notebook's set-up cell runs in a fresh kernel, and on a
machine without ibcore (Colab) the same cell installs it from the repository."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv

import nbformat
import pytest
from nbclient import NotebookClient

import ibcore
from tools import notebooks as nbtools

CASES = [(md, edition) for md in nbtools.chapters() for edition in nbtools.EDITIONS]
IDS = [f"{edition}:{md.relative_to(nbtools.ROOT).as_posix()}" for md, edition in CASES]


def setup_cell(md, edition):
    nb = nbformat.read(nbtools.launch_notebook_path(md, edition), as_version=4)
    return next(c for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("md, edition", CASES, ids=IDS)
def test_setup_cell_runs_in_a_fresh_kernel(md, edition):
    nb = nbformat.v4.new_notebook(cells=[setup_cell(md, edition)])
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(md.parent)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.output_type == "stream")
    assert text.strip() == f"ibcore {ibcore.__version__}"
    assert not any(o.output_type == "error" for o in nb.cells[0].outputs)


def test_setup_cell_installs_ibcore_where_it_is_missing(tmp_path):
    """The Colab path: no ibcore in the kernel, so the cell pip-installs it from git."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=nbtools.ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    config = nbtools.load_config()
    # the local clone stands in for GitHub (pip wants a host in file URLs)
    config["repository"]["url"] = f"file://localhost{nbtools.ROOT.as_posix()}"
    config["ibcore"]["install_ref"] = head.stdout.strip()
    source = nbtools.setup_cell_source(config)

    env_dir = tmp_path / "colab"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # numpy & co. come from the project's environment, but ibcore's editable hook does not
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"], "PIP_NO_INPUT": "1"}
    probe = subprocess.run([str(python), "-c", "import ibcore"], cwd=tmp_path, env=env, capture_output=True)
    assert probe.returncode != 0, "the fresh environment must start without ibcore"
    run = subprocess.run([str(python), "-c", source], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith(f"ibcore {ibcore.__version__}")
    where = subprocess.run([str(python), "-c", "import ibcore; print(ibcore.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    assert str(env_dir) in where.stdout, "ibcore must now be installed in the fresh environment"
    assert sys.prefix not in where.stdout
