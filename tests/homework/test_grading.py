"""The grading is right, proved on the built sets with the zip's grader in this environment.

* the student notebook as handed out runs from top to bottom, defines the names its tests
  read and nothing else, and `grader.check` says what is missing in the tests' own words;
* partial credit is fair: one plausible mistake per question keeps exactly the points of the
  steps it leaves right (or right given the student's own earlier values), with the message the
  source promises, and the other questions keep full marks;
* the grader: what crosses from a notebook is data only; the given cells are replaced and the
  grading seed put in; the notes a student sees when the notebook lost its metadata or is
  another set's; per-student seeds;
* no solution, model answer or hidden test reaches a student file;
* the autograder zip carries everything its grading needs, pinned, and nothing it does not; the
  hand-out installs the ibcore of its wheel; the rubrics render on Gradescope.

The grading environment built from each zip alone, with the five seeds, the untouched notebook,
every attack and the no-work notebook, is test_environment.py's.
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
import numpy as np
import pytest
from nbclient import NotebookClient
from packaging.utils import canonicalize_name

from tools import homework as hw
from tools import homework_grader as grader
from tools import notebooks as nbtools

from . import support
from .conftest import IDS, SETS


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


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_one_mistake_per_question_keeps_the_points_of_the_right_steps(built, path, tmp_path):
    """Fair partial credit: each question keeps exactly the points that its mistake leaves
    right (steps checked against the student's own earlier values), with the message that the
    source promises; every other question keeps full marks. All of them in one notebook (the
    questions are independent)."""
    pset = hw.read_set(path)
    assert len({m.question for m in pset.mistakes}) == len(pset.mistakes), "one mistake per question"
    results = support.grade(built, pset.name, support.instructor_with(built, pset, submissions=pset.mistakes),
                            tmp_path, seed=13)
    scores = support.scores(results)
    mistakes = {m.question: m for m in pset.mistakes}
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        if q.name not in mistakes:
            assert score == possible, f"{q.name} must keep full marks beside the other questions' mistakes:\n{output}"
            continue
        mistake = mistakes[q.name]
        assert not support.unreadable(q.name, output), support.unreadable(q.name, output)
        assert score == mistake.keeps, f"{q.name} with {mistake.lines} keeps {score:g}, not {mistake.keeps:g}:\n{output}"
        assert mistake.message in output, f"{q.name}'s failure must say {mistake.message!r}:\n{output}"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_no_secret_in_student_files(built, path):
    pset = hw.read_set(path)
    for folder in (built / path.stem / "student", built / path.stem / hw.PUBLIC_COPY,
                   nbtools.ROOT / hw.STUDENT_COPY / path.stem):
        leaks = hw.find_leaks(pset, folder)
        assert not leaks, f"solution or hidden-test lines in {folder}:\n" + "\n".join(leaks[:20])


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_the_leak_check_sees_the_instructor_files(built, path):
    """The same check must fire on the instructor's files, or it proves nothing."""
    pset = hw.read_set(path)
    found = hw.find_leaks(pset, built / path.stem / "autograder")
    in_notebook = {line.split(": ", 1)[1] for line in found if line.startswith(f"{path.stem}.ipynb:")}
    in_tests = {line.split(": ", 1)[1] for line in found if ":tests/" in line}
    secret = pset.secret_lines()
    solutions = {hw.normalise(x) for q in pset.questions for x in q.solution_lines} & secret
    hidden = {hw.normalise(x) for q in pset.questions for code in q.hidden_test_code
              for x in ast.unparse(ast.parse(code)).splitlines()} & secret
    assert solutions and hidden
    assert solutions <= in_notebook, "every solution and model-answer line is in the instructor notebook"
    assert hidden <= in_tests, "every hidden-test line (as otter writes it) is in the autograder zip's tests"


def _zip(built: Path, name: str) -> dict[str, bytes]:
    with zipfile.ZipFile(support.paths(built, name)[2]) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_autograder_zip_is_self_contained_and_pinned(built, path):
    pset = hw.read_set(path)
    read = _zip(built, pset.name)
    names = set(read)
    wheels = [n for n in names if n.endswith(".whl")]
    assert {"run_autograder", "setup.sh", "run_otter.py", "requirements.txt", "constraints.txt", "written.json",
            "grading.json", "otter_config.json"} <= names and len(wheels) == 1
    assert not any(n.endswith(".ipynb") for n in names), "the zip carries no notebook with solutions"
    tests = {n for n in names if n.startswith("tests/")}
    assert tests == {f"tests/{q.name}.py" for q in pset.autograded}
    code = "".join(read[n].decode() for n in tests)
    assert all(f"def {t}(" in code for q in pset.autograded for t in q.hidden_tests + q.public_tests)
    # the public copies that the notebook's process gets hold no hidden test
    public = {n: read[n].decode() for n in names if n.startswith("public/")}
    assert public and all(f"def {t}(" not in text for text in public.values() for q in pset.autograded
                          for t in q.hidden_tests)
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
    # the wheel holds ibcore as the recorded commit has it, file for file
    config = json.loads(read["grading.json"])
    release = hw.ibcore_release()
    assert config["ibcore"] == {"version": release.version, "commit": release.commit}
    with zipfile.ZipFile(support.paths(built, pset.name)[2]) as zf, zipfile.ZipFile(zf.open(wheels[0])) as wheel:
        packaged = {n: wheel.read(n) for n in wheel.namelist() if n.startswith("ibcore/")}
    listed = subprocess.run(["git", "-C", str(nbtools.ROOT), "ls-tree", "-r", "--name-only", release.commit, "ibcore"],
                            capture_output=True, text=True, check=True).stdout.split()
    committed = {n: subprocess.run(["git", "-C", str(nbtools.ROOT), "show", f"{release.commit}:{n}"],
                                   capture_output=True, check=True).stdout for n in listed if n.endswith(".py")}
    assert packaged == committed, "the wheel must hold the ibcore of the recorded commit"
    assert json.loads(read["written.json"]) == hw.written_questions(pset)
    assert read["run_otter.py"].decode() == Path(grader.__file__).read_text()
    # the grading data: the given cells of the hand-out, a grading seed other than the
    # published one, and the NumPy-only functions of the source
    assert config["seed"]["grading"] != config["seed"]["published"]
    student = nbformat.read(support.paths(built, pset.name)[1], as_version=4)
    assert config["given"] == hw.given_cells(student) and config["setup"] in config["given"]
    assert {q["name"]: q["numpy_only"] for q in config["questions"]} == {q.name: q.numpy_only for q in pset.autograded}


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_the_handout_installs_the_ibcore_of_the_autograder(built, path):
    """One version on both sides: the course's hand-out installs ibcore at the commit whose
    files the zip's wheel holds; the copy this repository publishes follows its branch, as the
    chapters do."""
    config = json.loads(_zip(built, path.stem)["grading.json"])
    handout = nbformat.read(support.paths(built, path.stem)[1], as_version=4)
    setup = next(c.source for c in handout.cells if "setup" in c.metadata.get("tags", []))
    assert f"@{config['ibcore']['commit']}\"" in setup, "the hand-out must install ibcore at the wheel's commit"
    public = nbformat.read(hw.published_copy(built, path.stem) / f"{path.stem}.ipynb", as_version=4)
    public_setup = next(c.source for c in public.cells if "setup" in c.metadata.get("tags", []))
    assert public_setup.startswith(nbtools.setup_cell_source(nbtools.load_config()))
    assert [c.source for c in handout.cells if "setup" not in c.metadata.get("tags", [])] == [
        c.source for c in public.cells if "setup" not in c.metadata.get("tags", [])], "only the set-up cell differs"


def test_the_handout_fetches_its_tests_from_the_course(tmp_path):
    """A course's hand-out URL: the set-up cell of a notebook opened alone fetches the public
    tests from there (a local folder stands for the course's web site)."""
    pset = hw.read_set(SETS[0])
    course = tmp_path / "course" / pset.name / "tests"
    shutil.copytree(nbtools.ROOT / hw.STUDENT_COPY / pset.name / "tests", course)
    source = hw.setup_cell_source(nbtools.load_config(), pset, ibcore_ref="0" * 40,
                                  tests_url=(tmp_path / "course").as_uri() + f"/{pset.name}/tests")
    work = tmp_path / "opened-alone"
    work.mkdir()
    run = subprocess.run([sys.executable, "-c", source], cwd=work, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(nbtools.ROOT)})
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (work / "tests").iterdir()) == sorted(p.name for p in course.iterdir())


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_rubrics_render_on_gradescope(built, path):
    """No macro of the book in the rubrics or the model answers (Gradescope and a Markdown viewer
    do not define them); the rubrics' maths in Gradescope's delimiters; the model answers in an
    instructor-only file beside the rubrics."""
    pset = hw.read_set(path)
    folder = built / path.stem / "autograder"
    macros = hw.book_macros()
    rubrics = (folder / f"{pset.name}-rubrics.md").read_text()
    answers = (folder / f"{pset.name}-model-answers.md").read_text()
    written = (folder / "written.json").read_text()
    for text in (rubrics, answers, written):
        left = {m for m in re.findall(r"\\([A-Za-z]+)(?![A-Za-z])", text) if m in macros}
        assert not left, f"book macros left: {sorted(left)}"
    assert "$$" in rubrics and not re.search(r"(?<!\$)\$(?!\$)", rubrics.replace("$$$", "")), (
        "the rubrics' maths must use Gradescope's $$ (inline) and $$$ (displayed)")
    for q in pset.manual:
        assert hw.expand_macros(q.model_answer, macros).splitlines()[0] in answers


def test_macro_expansion():
    macros = {"norm": ["\\left\\lVert #1 \\right\\rVert", 1], "wstar": "w^{\\star}", "ip": ["\\langle #1, #2 \\rangle", 2]}
    assert hw.expand_macros(r"$\norm{\wstar + v}^2$", macros) == r"$\left\lVert w^{\star} + v \right\rVert^2$"
    assert hw.expand_macros(r"\ip{w}{x_i} and \normal", macros) == r"\langle w, x_i \rangle and \normal"
    assert hw.gradescope_text(r"a $x$ and $$y$$", {}) == "a $$x$$ and $$$y$$$"


# ------------------------------------------------------------------ the grader's parts


def test_only_data_crosses_from_a_notebook():
    """A float subclass arrives as a float, an ndarray subclass as an ndarray, an object as a
    record of its data; a function as a handle; nothing is unpickled."""
    class Liar(float):
        def __sub__(self, other):
            return 0.0

    class Shifty(np.ndarray):
        pass

    from dataclasses import dataclass

    @dataclass
    class Run:
        w: np.ndarray
        n_steps: int

        @property
        def last(self):
            return self.w[-1]

    value = {"slope": Liar(9.0), "w": np.arange(3.0).view(Shifty), "run": Run(np.ones(2), 5), "f": len,
             "many": [np.float64(1.5), np.int64(2), (True, None, ...)], "text": "x" * 30000}
    blobs, handles = [], []
    tree = grader._pack(value, blobs, handles)
    json.dumps(tree)  # JSON all through
    out = grader._unpack(json.loads(json.dumps(tree)), blobs, callable_for=lambda h, name: (h, name))
    assert type(out["slope"]) is float and out["slope"] - 1.0 == 8.0
    assert type(out["w"]) is np.ndarray and out["w"].tolist() == [0.0, 1.0, 2.0]
    assert out["run"].n_steps == 5 and out["run"].last == 1.0 and isinstance(out["run"], grader.Record)
    assert out["f"] == (0, "len") and handles == [len]
    assert out["many"] == [1.5, 2, (True, None, Ellipsis)] and type(out["many"][0]) is float
    assert len(out["text"]) == grader._MAX_TEXT


def test_given_cells_are_the_graders(built):
    """The set-up cell runs with the grading seed, found by id when the student edited it, by
    its text in another notebook; otter's own cells are left out; each cell belongs to the
    question whose check follows it."""
    pset = hw.read_set(SETS[0])
    config = json.loads(_zip(built, pset.name)["grading.json"])
    student = json.loads(support.paths(built, pset.name)[1].read_text())
    setup = next(c for c in student["cells"] if c["id"] == config["setup"]["id"])
    setup["source"] = "seed = 7\nX = 0  # edited"
    cells, notes = grader.cells_to_run(student, config, 1234)
    sources = [s for s, _ in cells]
    assert not notes and re.search(r"^seed = 1234\b", sources[0], re.M) and "edited" not in "".join(sources)
    assert not any(s.strip() == hw.INIT_SOURCE or s.startswith("grader.check") for s in sources)
    assert [q for s, q in cells if "def min_norm(" in s] == ["q1"]
    del student["cells"][[c["id"] for c in student["cells"]].index(config["setup"]["id"])]
    cells, notes = grader.cells_to_run(student, config, 5)
    assert notes and re.search(r"^seed = 5\b", cells[0][0], re.M)


def _graded(built: Path, notebook: dict, folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "submission.ipynb"
    path.write_text(json.dumps(notebook))
    return hw.grade_notebook(support.paths(built, SETS[0].stem)[2], path, seed=3)


def test_a_notebook_without_otter_metadata_is_graded_with_a_note(built, tmp_path):
    instructor = json.loads(support.paths(built, SETS[0].stem)[0].read_text())
    instructor["metadata"].pop("otter")
    results = _graded(built, instructor, tmp_path)
    note = support.entry(results, "Submission notes")
    assert "lost its otter metadata" in note and support.total(results) == sum(
        q.points for q in hw.read_set(SETS[0]).autograded)


def test_another_sets_notebook_or_a_broken_file_is_refused_clearly(built, tmp_path):
    instructor = json.loads(support.paths(built, SETS[0].stem)[0].read_text())
    instructor["metadata"]["otter"]["assignment_name"] = "relu"
    assert "upload the notebook of this set" in support.entry(_graded(built, instructor, tmp_path), "Submission")
    instructor["metadata"].pop("otter")
    instructor["cells"] = [c for c in instructor["cells"] if "grader.check" not in "".join(c["source"])]
    assert "it has no otter metadata" in support.entry(_graded(built, instructor, tmp_path / "b"), "Submission")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "submission.ipynb").write_text("not json")
    results = hw.grade_notebook(support.paths(built, SETS[0].stem)[2], tmp_path / "c" / "submission.ipynb")
    assert "not a notebook that Jupyter can open" in support.entry(results, "Submission")


def test_a_notebook_process_cannot_read_the_graders_files(tmp_path):
    """The audit hook refuses, and reports, reading a protected file (the grader's) or another
    process's memory, writing outside the notebook's folder, starting a process and opening a
    directory; writing a test file is allowed and reported."""
    secret = tmp_path / "secret.py"
    secret.write_text("hidden = 1")
    scratch = tmp_path / "work"
    (scratch / "tests").mkdir(parents=True)
    process = grader.Notebook("student", scratch, grader._protected_files(secret), grader._worker_env(scratch), 30)
    try:
        cells = [f"open({str(secret)!r}).read()", "open(f'/proc/{__import__(\"os\").getppid()}/cmdline').read()",
                 f"open({str(tmp_path / 'out.txt')!r}, 'w')", "__import__('subprocess').run(['true'])",
                 "open('tests/q1.py', 'w').write('x = 1')", "import ctypes; ctypes.CDLL(None).getpid()",
                 # a directory's descriptor, against which os.open(relative path, dir_fd=...) would
                 # resolve a path that the hook sees in the notebook's folder
                 f"import os; os.open({str(secret.name)!r}, os.O_RDONLY, dir_fd=os.open({str(tmp_path)!r}, os.O_RDONLY))"]
        errors = [process.run(i, source, 30) for i, source in enumerate(cells)]
        assert [e[0] if e else None for e in errors] == ["PermissionError"] * 4 + [None] + ["PermissionError"] * 2
        assert process.value("x") is None  # a missing name
    finally:
        process.close()
    kinds = [kind for kind, _, _ in process.flags]
    assert kinds == ["grader's files", "another process", "writes outside the work folder", "processes",
                     "test files", "ctypes", "directory fds"], process.flags
    assert [where for _, _, where in process.flags] == [0, 1, 2, 3, 4, 5, 6]


def test_a_function_that_never_returns_costs_its_own_tests(built, tmp_path):
    """The grader stops a call after the zip's call_timeout (5 s here) and starts the notebook's
    process again: a NumPy-only function that loops for ever fails its tests, and so does one
    that loops on the tests' inputs only; every other question keeps its marks."""
    pset = hw.read_set(SETS[0])
    zipped = support.paths(built, pset.name)[2]
    with zipfile.ZipFile(zipped) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    config = json.loads(files["grading.json"])
    config.update(call_timeout=5, notebook_timeout=120)
    files["grading.json"] = json.dumps(config).encode()
    quick = tmp_path / "quick.zip"
    with zipfile.ZipFile(quick, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    stuck = {"q1": "def min_norm(X, y):\n    while True:\n        pass",
             "q4": ("def kept_norm(X, v):\n    while X.shape == (6, 30):\n        pass\n"
                    "    return np.sum((v - linear.row_space_projection(X, v)) ** 2)")}
    for question, source in stuck.items():
        notebook = support.replace_function(support.instructor_with(built, pset), question, source)
        results = hw.grade_notebook(quick, support.write(notebook, tmp_path / question, pset.name), seed=5)
        scores = support.scores(results)
        for q in pset.autograded:
            score, possible, output = scores[q.name]
            if q.name == question:
                assert score < possible and "TimeoutError" in output, output
            else:
                assert score == possible, f"{q.name} must keep its marks beside {question}'s stuck function:\n{output}"


def test_per_student_seeds(monkeypatch):
    """Derived from the zip's seed and the submitter's Gradescope id: the same student gets the
    same data at every submission and regrade, two students other data."""
    monkeypatch.delenv("IB_GRADING_SEED", raising=False)
    config = {"seed": {"grading": 1234, "per_student": True}}
    alice = grader.grading_seed(config, {"users": [{"id": "11"}]})
    assert alice == grader.grading_seed(config, {"users": [{"id": "11"}]})
    assert alice[0] != grader.grading_seed(config, {"users": [{"id": "12"}]})[0] and "Gradescope id" in alice[1]
    assert grader.grading_seed(config, {})[0] == 1234
    assert grader.grading_seed({"seed": {"grading": 1234}}, {"users": [{"id": "11"}]})[0] == 1234
    monkeypatch.setenv("IB_GRADING_SEED", "99")
    assert grader.grading_seed(config, {"users": [{"id": "11"}]})[0] == 99


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
