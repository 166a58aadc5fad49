"""The commands of the page "Teaching with this book" work as written.

Every ``bash`` block of ``book/teaching.md`` runs verbatim, in a scratch folder that has what an
instructor's checkout has after ``make homework`` (``.venv``, ``tools``, ``_build/homework``) and
submissions to grade. ``make`` commands run as a dry run (``make -n``) in the checkout: the
stages build the sets themselves, and ``make homework`` would rewrite ``student/homework/``,
which the tests compare with the build.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import nbformat

from tools import notebooks as nbtools

from . import support

PAGE = nbtools.ROOT / "book" / "teaching.md"


def bash_blocks(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)]


def test_the_page_has_the_commands_we_run():
    blocks = bash_blocks(PAGE.read_text(encoding="utf-8"))
    assert "make homework\n" in blocks
    assert any("tools.homework grade" in block and "for f in" in block for block in blocks), "the grading loop"


def test_the_commands_of_the_teaching_page_work_verbatim(built, tmp_path):
    """The folder of an instructor: the checkout's environment and built sets, one submission
    alone and a folder of them (a notebook as handed out and the instructor notebook)."""
    instructor, student, _ = support.paths(built, "prologue")
    assert built == (nbtools.ROOT / "_build" / "homework").resolve(), "the page's paths name _build/homework"
    work = tmp_path / "instructor"
    (work / "_build").mkdir(parents=True)
    for name in (".venv", "tools"):
        (work / name).symlink_to(nbtools.ROOT / name)
    (work / "_build" / "homework").symlink_to(built)
    shutil.copy(student, work / "submission.ipynb")
    (work / "submissions").mkdir()
    shutil.copy(instructor, work / "submissions" / "ben.ipynb")
    for block in bash_blocks(PAGE.read_text(encoding="utf-8")):
        if block.startswith("make "):
            run = subprocess.run(["make", "-n", *block.split()[1:]], cwd=nbtools.ROOT, capture_output=True, text=True)
        else:
            run = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=work, capture_output=True,
                                 text=True, timeout=900)
        assert run.returncode == 0, f"`{block.strip()}` failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
    # the single grading (of a notebook as handed out) wrote results.json; the loop a file of
    # scores and one of written answers per submission
    alone = support.scores(json.loads((work / "results.json").read_text()))
    assert alone and sum(s for s, _, _ in alone.values()) == 0
    ben = support.scores(json.loads((work / "results" / "ben.json").read_text()))
    assert ben and all(s == m for s, m, _ in ben.values())
    written = (work / "results" / "ben-written.md").read_text()
    model = next(c.source for c in nbformat.read(instructor, as_version=4).cells
                 if c.cell_type == "markdown" and c.source.startswith("**Model answer.**"))
    assert model.splitlines()[0] in written and "Rubric" in written
