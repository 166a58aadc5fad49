"""tools/parallel_execution.py: the notebooks missing from the execution cache run before Sphinx
reads them (jupyter-cache's parallel executor), once, where myst-nb finds them; one that
fails is left for myst-nb to execute again and report."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jupyter_cache import get_cache

from .test_nbval_plugin import ROOT, chapter

# each chapter appends its name to runs.txt, so the test counts its executions
CODE = 'open("runs.txt", "a").write("{name}\\n"); import os; print({value}, os.path.basename(os.getcwd()))'


def build(book: Path, chapters: dict[str, str]) -> subprocess.CompletedProcess:
    """Build a small book of ``chapters`` (name -> code) with the extension, as `make site` builds."""
    (book / "intro.md").write_text("# Intro\n")
    (book / "sub").mkdir(exist_ok=True)
    for name, code in chapters.items():
        (book / "sub" / f"{name}.md").write_text(chapter(f"```{{code-cell}} ipython3\n{code}\n```\n"))
    toc = "format: jb-book\nroot: intro\nchapters:\n" + "".join(f"  - file: sub/{n}\n" for n in chapters)
    (book / "_toc.yml").write_text(toc)
    (book / "_config.yml").write_text(
        "title: t\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: cache\n  timeout: 60\n"
        f"sphinx:\n  local_extensions:\n    parallel_execution: {ROOT / 'tools'}\n")
    return subprocess.run([sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
                           "build", str(book), "-W", "-n", "--keep-going", "-q"],
                          cwd=book, capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # two Jupyter Book builds of a small book
def test_missing_notebooks_run_once_before_sphinx_reads_them(tmp_path):
    ok = {"a": CODE.format(name="a", value="6 * 7"), "b": CODE.format(name="b", value="6 * 8")}
    first = build(tmp_path, {**ok, "c": 'raise RuntimeError("the claim is false")'})
    out = first.stdout + first.stderr
    assert first.returncode != 0, out  # c fails the strict build...
    assert "executing 3 notebooks missing" in out and "executed 2" in out and "1 failed" in out, out
    assert "the claim is false" in out and "sub/c.md: WARNING: Executing notebook failed" in out, out
    runs = sorted((tmp_path / "sub" / "runs.txt").read_text().split())
    assert runs == ["a", "b"], f"run once each, ran {runs}:\n{out}"  # ...run once each
    assert "42 sub" in (tmp_path / "_build" / "html" / "sub" / "a.html").read_text()  # in its own folder
    assert len(get_cache(str(tmp_path / "_build" / ".jupyter_cache")).list_cache_records()) == 2

    (tmp_path / "sub" / "c.md").unlink()
    shutil.rmtree(tmp_path / "_build" / ".doctrees")  # Sphinx reads every page again...
    again = build(tmp_path, ok)  # ...and finds them in the cache: nothing runs
    assert again.returncode == 0, again.stdout + again.stderr
    assert "executing" not in again.stdout
    assert sorted((tmp_path / "sub" / "runs.txt").read_text().split()) == ["a", "b"]
