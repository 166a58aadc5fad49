"""The grading works, proved on the built sets with `otter run` (no container).

* the instructor notebook scores full marks;
* the student notebook as handed out runs from top to bottom and scores 0 on every
  autograded question;
* one deliberately wrong answer (the source's ``wrong_answer``) fails exactly its question,
  with the message that the source promises;
* no solution, model answer or hidden test reaches a student file.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tools import homework as hw
from tools import notebooks as nbtools

from .conftest import IDS, SETS


def otter_run(submission: Path, autograder: Path, out: Path) -> dict:
    """Grade one notebook with the `otter run` command; return {question: (score, max, output)}."""
    out.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([sys.executable, "-m", "otter", "run", "--no-logo", "-a", str(autograder),
                          "-o", str(out), str(submission)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((out / "results.json").read_text())
    return {t["name"]: (t["score"], t["max_score"], t.get("output", "")) for t in results["tests"]
            if "max_score" in t}


def paths(built: Path, name: str) -> tuple[Path, Path, Path]:
    folder = built / name
    return (folder / "autograder" / f"{name}.ipynb", folder / "student" / f"{name}.ipynb",
            folder / "autograder" / f"{name}-autograder.zip")


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_committed_student_copy_is_current(built, path):
    assert hw.stale(built) == [], "student/homework/ differs from the build: run `make homework` and commit"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_instructor_notebook_scores_full_marks(built, path, tmp_path):
    instructor, _, autograder = paths(built, path.stem)
    pset = hw.read_set(path)
    scores = otter_run(instructor, autograder, tmp_path)
    assert sorted(scores) == sorted(q.name for q in pset.autograded)
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        assert possible == q.points and score == possible, f"{q.name}: {score}/{possible}\n{output}"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_student_notebook_runs_and_scores_zero(built, path, tmp_path):
    _, student, autograder = paths(built, path.stem)
    work = tmp_path / "student"
    shutil.copytree(student.parent, work)
    nb = nbformat.read(work / student.name, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, f"the handed-out notebook raised: {errors[0]['ename']}: {errors[0]['evalue']}"
    checks = "".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.source.startswith("grader.check(") for o in c.get("outputs", []))
    assert "failed" in checks or "❌" in checks, "grader.check must report the unanswered questions"
    scores = otter_run(student, autograder, tmp_path / "results")
    pset = hw.read_set(path)
    for q in pset.autograded:
        assert scores[q.name][0] == 0, f"{q.name} scores {scores[q.name][0]} with `...` as the answer"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_wrong_answer_fails_exactly_its_question_with_a_useful_message(built, path, tmp_path):
    instructor, _, autograder = paths(built, path.stem)
    pset = hw.read_set(path)
    wrong = pset.meta["wrong_answer"]
    variable = wrong["line"].split("=")[0].strip()
    nb = nbformat.read(instructor, as_version=4)
    replaced = 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            lines = cell.source.splitlines()
            new = [wrong["line"] if re.match(rf"{re.escape(variable)}\s*=", line) else line for line in lines]
            replaced += new != lines
            cell.source = "\n".join(new)
    assert replaced == 1, f"the instructor notebook must assign {variable} in exactly one cell"
    submission = tmp_path / instructor.name
    nbformat.write(nb, submission)
    scores = otter_run(submission, autograder, tmp_path / "results")
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        if q.name == wrong["question"]:
            assert score < possible, f"{q.name} must fail with `{wrong['line']}`"
            assert wrong["message"] in output, f"{q.name}'s failure must say {wrong['message']!r}:\n{output}"
            assert "Error at line" in output and "AssertionError" in output, "the student sees the failed assert"
        else:
            assert score == possible, f"{q.name} must not be affected by a wrong {variable}:\n{output}"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_no_secret_in_student_files(built, path):
    pset = hw.read_set(path)
    for folder in (built / path.stem / "student", nbtools.ROOT / hw.STUDENT_COPY / path.stem):
        leaks = hw.find_leaks(pset, folder)
        assert not leaks, f"solution or hidden-test lines in {folder}:\n" + "\n".join(leaks[:20])


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_the_leak_check_sees_the_instructor_files(built, path):
    """The same check must fire on the instructor's files, or it proves nothing."""
    pset = hw.read_set(path)
    found = hw.find_leaks(pset, built / path.stem / "autograder")
    in_notebook = {line.split(": ", 1)[1] for line in found if line.startswith(f"{path.stem}.ipynb:")}
    in_tests = {line.split(": ", 1)[1] for line in found if line.startswith("tests/")}
    secret = pset.secret_lines()
    solutions = {hw.normalise(x) for q in pset.questions for x in q.solution_lines} & secret
    hidden = {hw.normalise(x) for q in pset.questions for code in q.hidden_test_code
              for x in ast.unparse(ast.parse(code)).splitlines()} & secret
    assert solutions and hidden
    assert solutions <= in_notebook, "every solution and model-answer line is in the instructor notebook"
    assert hidden <= in_tests, "every hidden-test line (as otter writes it) is in the autograder's tests"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_autograder_zip_is_ready_for_gradescope(built, path):
    _, _, autograder = paths(built, path.stem)
    pset = hw.read_set(path)
    with zipfile.ZipFile(autograder) as zf:
        names = set(zf.namelist())
        assert {"run_autograder", "setup.sh", "environment.yml", "otter_config.json"} <= names
        tests = {n for n in names if n.startswith("tests/")}
        assert tests == {f"tests/{q.name}.py" for q in pset.autograded}
        hidden = "".join(zf.read(n).decode() for n in tests)
        for q in pset.autograded:
            assert all(f"def {t}(" in hidden for t in q.hidden_tests + q.public_tests)
        environment = zf.read("environment.yml").decode()
        assert not any(n.endswith(".ipynb") for n in names), "the zip carries no notebook with solutions"
    for pin in (hw.requirement("numpy"), hw.requirement("scipy"), "ibcore @ ",
                hw.requirement("otter-grader").replace("otter-grader", "otter-grader[grading,plugins]")):
        assert pin in environment, f"Gradescope's environment lacks {pin}"


def test_setup_cell_installs_otter_where_it_is_missing(built, tmp_path):
    """A kernel with ibcore but without otter-grader (Colab) gets the pinned otter from PyPI.

    (A pip install: it runs in the homework stage, with the grading proofs.)
    """
    import sysconfig

    site = Path(sysconfig.get_paths()["purelib"])
    farm = tmp_path / "site"  # the project's packages, otter-grader left out
    farm.mkdir()
    for item in site.iterdir():
        skip = ("otter", "__editable__", "_distutils_hack")
        if not item.name.lower().startswith(skip) and item.suffix != ".pth":
            (farm / item.name).symlink_to(item)
    env_dir = tmp_path / "colab"
    venv.create(env_dir, with_pip=False)  # pip comes from the project's packages too
    python = env_dir / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": f"{nbtools.ROOT}{os.pathsep}{farm}", "PIP_NO_INPUT": "1"}
    probe = subprocess.run([str(python), "-c", "import otter"], cwd=tmp_path, env=env, capture_output=True)
    assert probe.returncode != 0, "the fresh environment must start without otter"
    work = tmp_path / "work"
    shutil.copytree(nbtools.ROOT / hw.STUDENT_COPY / SETS[0].stem, work)  # tests present: nothing to fetch
    source = hw.setup_cell_source(nbtools.load_config(), hw.read_set(SETS[0]))
    run = subprocess.run([str(python), "-c", source], cwd=work, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    version = hw.requirement("otter-grader").split("==")[1]
    assert run.stdout.strip().splitlines()[-1] == f"otter-grader {version}"
    where = subprocess.run([str(python), "-c", "import otter; print(otter.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True)
    assert str(env_dir) in where.stdout, "otter must now be installed in the fresh environment"
