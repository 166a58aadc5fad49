"""The nbval plugin for MyST chapters: it runs them, and a failing assert fails the run."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
FRONT = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        format_name: myst
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---
    """)


def chapter(body: str) -> str:
    return FRONT + "\n# A chapter\n\n" + textwrap.dedent(body)


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.nbval_myst", "--nbval-lax", "--nbval-current-env",
         "-p", "no:cacheprovider", "--rootdir", str(folder), *args, str(folder)],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # chapters executed by nbval in a pytest of their own
def test_passing_and_failing_chapters(tmp_path):
    (tmp_path / "good.md").write_text(chapter("""
        ```{code-cell} ipython3
        x = sum(range(4))
        ```

        ```{code-cell} ipython3
        :tags: [remove-cell]
        assert x == 6
        ```
        """))
    (tmp_path / "plain.md").write_text("# Not a notebook\n\nNo kernelspec, not collected.\n")
    good = run_pytest(tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "2 passed" in good.stdout

    (tmp_path / "bad.md").write_text(chapter("""
        ```{code-cell} ipython3
        :tags: [remove-cell]
        assert 1 + 1 == 3, "the claim is false"
        ```
        """))
    bad = run_pytest(tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "the claim is false" in bad.stdout and "1 failed, 2 passed" in bad.stdout


@pytest.mark.slow  # chapters executed by nbval in a pytest of their own
def test_reference_outputs_are_compared(tmp_path):
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    (tmp_path / "ch.md").write_text(chapter("""
        ```{code-cell} ipython3
        print(2 + 2)
        ```
        """))
    cache = tmp_path / "_build" / ".jupyter_cache"

    def reference(text):  # the chapter as a build stored it, printing ``text``
        nb = jupytext.read(tmp_path / "ch.md", fmt="md:myst")
        nb.cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        nb.cells[-1].execution_count = 1
        get_cache(str(cache)).cache_notebook_bundle(CacheBundleIn(nb, str(tmp_path / "ch.md")),
                                                    check_validity=False, overwrite=True)

    missing = run_pytest(tmp_path, "--nbval-myst-reference", str(cache))
    assert missing.returncode == 1 and "no executed copy" in missing.stdout, missing.stdout
    reference("4\n")
    same = run_pytest(tmp_path, "--nbval-myst-reference", str(cache))
    assert same.returncode == 0, same.stdout + same.stderr
    reference("5\n")
    differ = run_pytest(tmp_path, "--nbval-myst-reference", str(cache))
    assert differ.returncode == 1 and "Cell outputs differ" in differ.stdout, differ.stdout


def test_pytest_runs_without_nbval(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert 1\n")
    (tmp_path / "ch.md").write_text(chapter("```{code-cell} ipython3\nx = 1\n```\n"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plain = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.nbval_myst", "-p", "no:nbval",
                            "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0 and "1 passed" in plain.stdout, plain.stdout + plain.stderr
