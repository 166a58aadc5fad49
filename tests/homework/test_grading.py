"""The grading is right, proved on the built sets with `otter run` (no container, this environment).

* the student notebook as handed out runs from top to bottom, defines the names its tests
  read and nothing else, and `grader.check` says what is missing in the tests' own words;
* the instructor notebook scores full marks for other seeds too (the grading environment
  built from the zip alone grades the default seed: test_environment.py);
* a common mistake fails exactly its question, with the message the source promises;
* submissions that skip the work (the source's shortcuts) lose their points, and only theirs;
* no solution, model answer or hidden test reaches a student file;
* the autograder zip carries everything its grading needs, pinned, and nothing it does not.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from packaging.utils import canonicalize_name

from tools import homework as hw
from tools import homework_grader
from tools import notebooks as nbtools

from . import support
from .conftest import IDS, SETS

# the instructor notebook is graded with these seeds here, and with the set's own (2026) in the
# grading environment built from the zip: five seeds in all
SEEDS = (1, 2, 3, 5)


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_committed_student_copy_is_current(built, path):
    assert hw.stale(built) == [], "student/homework/ differs from the build: run `make homework` and commit"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_student_skeletons_define_what_the_tests_read(built, path):
    _, student, _ = support.paths(built, path.stem)
    problems = hw.skeleton_problems(hw.read_set(path), nbformat.read(student, as_version=4))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_student_notebook_runs_and_says_what_is_missing(built, path, tmp_path):
    _, student, _ = support.paths(built, path.stem)
    work = tmp_path / "student"
    shutil.copytree(student.parent, work)
    nb = nbformat.read(work / student.name, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, f"the handed-out notebook raised: {errors[0]['ename']}: {errors[0]['evalue']}"
    pset = hw.read_set(path)
    checks = {m.group(1): "".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
                                  for o in c.get("outputs", []))
              for c in nb.cells if (m := re.match(r'grader\.check\("(\w+)"\)', c.source))}
    assert sorted(checks) == sorted(q.name for q in pset.autograded)
    for name, output in checks.items():
        assert support.failures(output), f"grader.check({name!r}) must report the unanswered question:\n{output}"
        bad = support.unreadable(name, output)
        assert not bad, f"grader.check({name!r}) shows errors that are not the tests' messages:\n" + "\n".join(bad)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_instructor_notebook_scores_full_marks_for_other_seeds(built, path, seed, tmp_path):
    pset = hw.read_set(path)
    _, _, autograder = support.paths(built, pset.name)
    submission = support.write(support.instructor_with(built, pset, seed=seed), tmp_path, pset.name)
    scores = support.otter_run(submission, autograder, tmp_path / "results")
    assert sorted(scores) == sorted(q.name for q in pset.autograded)
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        assert possible == q.points and score == possible, f"seed {seed}: {q.name} scores {score}/{possible}\n{output}"


def in_groups(submissions: list[hw.Submission]) -> list[list[hw.Submission]]:
    """The submissions packed into as few notebooks as possible, one per question in each: the
    questions are independent, so each is graded as if alone."""
    groups: list[list[hw.Submission]] = []
    for submission in submissions:
        group = next((g for g in groups if submission.question not in {s.question for s in g}), None)
        if group is None:
            groups.append(group := [])
        group.append(submission)
    return groups


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_a_common_mistake_and_the_shortcuts_lose_their_points(built, path, tmp_path):
    """The set's common mistake fails exactly its question, with the message that the source
    promises; each shortcut (a submission that skips the work) loses at least its points; every
    other question keeps full marks; every failure reads as the tests' own words."""
    pset = hw.read_set(path)
    wrong = pset.wrong_answer
    assert len({s.question for s in pset.shortcuts}) == len(pset.shortcuts), "one shortcut per question"
    _, _, autograder = support.paths(built, pset.name)
    for i, group in enumerate(in_groups([wrong, *pset.shortcuts])):
        submission = support.write(support.instructor_with(built, pset, submissions=group), tmp_path / str(i),
                                   pset.name)
        scores = support.otter_run(submission, autograder, tmp_path / str(i) / "results")
        changed = {s.question: s for s in group}
        for q in pset.autograded:
            score, possible, output = scores[q.name]
            if q.name not in changed:
                assert score == possible, f"{q.name} must keep full marks beside {sorted(changed)}:\n{output}"
                continue
            assert not support.unreadable(q.name, output), support.unreadable(q.name, output)
            if changed[q.name] is wrong:
                assert score < possible, f"{q.name} must fail with {wrong.lines}"
                assert wrong.message in output, f"{q.name}'s failure must say {wrong.message!r}:\n{output}"
            else:
                shortcut = changed[q.name]
                assert possible - score >= shortcut.loses, (
                    f"{q.name}: the shortcut {shortcut.lines} loses {possible - score:g} points, it must lose at "
                    f"least {shortcut.loses:g}:\n{output}")


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
def test_autograder_zip_is_self_contained_and_pinned(built, path):
    pset = hw.read_set(path)
    _, _, autograder = support.paths(built, pset.name)
    with zipfile.ZipFile(autograder) as zf:
        names = set(zf.namelist())
        read = {n: zf.read(n) for n in names}
    wheels = [n for n in names if n.endswith(".whl")]
    assert {"run_autograder", "setup.sh", "run_otter.py", "requirements.txt", "constraints.txt", "written.json",
            "otter_config.json"} <= names and len(wheels) == 1
    assert not any(n.endswith(".ipynb") for n in names), "the zip carries no notebook with solutions"
    tests = {n for n in names if n.startswith("tests/")}
    assert tests == {f"tests/{q.name}.py" for q in pset.autograded}
    code = "".join(read[n].decode() for n in tests)
    assert all(f"def {t}(" in code for q in pset.autograded for t in q.hidden_tests + q.public_tests)
    # everything pinned, at the book's pins; ibcore from the wheel, not from a repository or a tag
    requirements = [line for line in read["requirements.txt"].decode().splitlines() if line and not line.startswith("#")]
    assert requirements == hw.grader_requirements()
    assert all(re.match(r"^[\w.\[\]-]+==[\w.]+$", line) for line in requirements), requirements

    def pins(lines):
        return {canonicalize_name(line.split("==")[0].split("[")[0]): line.split("==")[1]
                for line in lines if line and not line.startswith("#")}

    constraints = pins(read["constraints.txt"].decode().splitlines())
    assert constraints == pins(hw.environment_pins(requirements)), "constraints.txt pins what the grader installs"
    assert pins(requirements).items() <= constraints.items(), "the grader's own packages, at the book's pins"
    for line in nbtools.ROOT.joinpath("requirements.txt").read_text().splitlines():
        if (m := re.match(r"^([\w.-]+)==(\S+)", line.strip())) and canonicalize_name(m.group(1)) in constraints:
            assert constraints[canonicalize_name(m.group(1))] == m.group(2), f"constraints.txt must pin {line.strip()}"
    setup = read["setup.sh"].decode()
    for absent in ("playwright", "chromium", "git+", "github.com/implicit-bias", "install_ref", "environment.yml"):
        assert absent not in setup, f"setup.sh must not mention {absent}"
    assert wheels[0] in setup and "-r requirements.txt -c constraints.txt" in setup
    # the wheel holds this checkout's ibcore, file for file
    with zipfile.ZipFile(autograder) as zf, zipfile.ZipFile(zf.open(wheels[0])) as wheel:
        packaged = {n: wheel.read(n) for n in wheel.namelist() if n.startswith("ibcore/")}
    here = {p.relative_to(nbtools.ROOT).as_posix(): p.read_bytes() for p in (nbtools.ROOT / "ibcore").rglob("*.py")}
    assert packaged == here, "the wheel must hold the ibcore of this checkout"
    assert json.loads(read["written.json"]) == hw.written_questions(pset)
    assert read["run_otter.py"].decode() == Path(homework_grader.__file__).read_text()


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
