"""What the grading tests share: grading with `otter run`, reading otter's results, the
submissions that CI grades (instructor, seeds, mistakes, shortcuts)."""
from __future__ import annotations

import contextlib
import io
import json
import re
import resource
import time
from pathlib import Path

import nbformat

from tools import homework as hw


def paths(built: Path, name: str) -> tuple[Path, Path, Path]:
    """The instructor notebook, the student notebook and the autograder zip of a built set."""
    folder = built / name
    return (folder / "autograder" / f"{name}.ipynb", folder / "student" / f"{name}.ipynb",
            folder / "autograder" / f"{name}-autograder.zip")


def scores(results: dict) -> dict[str, tuple[float, float, str]]:
    """``{question: (score, max score, output)}`` of otter's ``results.json``."""
    return {t["name"]: (t["score"], t["max_score"], t.get("output", "")) for t in results["tests"]
            if "max_score" in t}


class Clock:
    """Wall-clock and CPU time (this process's children) of what runs inside ``with``."""

    def __enter__(self):
        self.start, self.cpu0 = time.perf_counter(), _children_cpu()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.start, _children_cpu() - self.cpu0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def otter_run(submission: Path, autograder: Path, out: Path) -> dict[str, tuple[float, float, str]]:
    """Grade one notebook as the `otter run` command does (no container, this environment):
    through the function that the command calls, ``otter.run.main``, in this process, which
    saves each grading the start of a Python and the import of otter (1.2 s of CPU)."""
    from otter.run import main as otter_run_main

    out.mkdir(parents=True, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):  # otter's report: the results file says it all
        otter_run_main(str(submission), autograder=str(autograder), output_dir=str(out), no_logo=True)
    return scores(json.loads((out / "results.json").read_text()))


def write(nb: nbformat.NotebookNode, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


_FAILED = "❌ Test case failed"
_ERROR = re.compile(r"Error at line \d+ in test (?P<test>\w+):\n(?P<line>.*)\n\s*(?P<type>\w+): (?P<message>.*)")


def failures(output: str) -> list[dict[str, str]]:
    """Each failed test case of a question's output: the source line otter shows, the
    exception's type and its message."""
    found = []
    for chunk in output.split(_FAILED)[1:]:
        m = _ERROR.search(chunk)
        found.append(m.groupdict() if m else {"test": "?", "line": "?", "type": "?", "message": chunk.strip()})
    return found


def unreadable(question: str, output: str) -> list[str]:
    """The failed test cases of ``question`` that do not read as the tests promise: an
    AssertionError whose message starts with the question's name, raised from a line that shows
    nothing of the test (``check()``), so that no expected expression is printed."""
    bad = []
    for f in failures(output):
        if f["type"] != "AssertionError" or not f["message"].startswith(f"{question}: ") or f["line"].strip() != "check()":
            bad.append(f"{f['type']}: {f['message'][:200]} (shown line: {f['line'].strip()[:80]})")
    return bad


def instructor_with(built: Path, pset: hw.ProblemSet, *, seed: int | None = None,
                    submissions: list[hw.Submission] = ()) -> nbformat.NotebookNode:
    """The instructor notebook of a built set, with another seed and/or submissions' lines in place."""
    instructor, _, _ = paths(built, pset.name)
    nb = nbformat.read(instructor, as_version=4)
    if seed is not None:
        nb = hw.with_seed(nb, seed)
    for submission in submissions:
        nb = hw.substitute(nb, submission)
    return nb
