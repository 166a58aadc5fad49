"""What the grading tests share: grading a notebook with a set's zip, reading the results, and
the submissions that CI grades (instructor, seeds, mistakes, shortcuts, attacks)."""
from __future__ import annotations

import copy
import re
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from tools import homework as hw


def paths(built: Path, name: str) -> tuple[Path, Path, Path]:
    """The instructor notebook, the student notebook and the autograder zip of a built set."""
    folder = built / name
    return (folder / "autograder" / f"{name}.ipynb", folder / "student" / f"{name}.ipynb",
            folder / "autograder" / f"{name}-autograder.zip")


def scores(results: dict) -> dict[str, tuple[float, float, str]]:
    """``{question: (score, max score, output)}`` of a results.json."""
    return {t["name"]: (t["score"], t["max_score"], t.get("output", "")) for t in results["tests"]
            if "max_score" in t}


def total(results: dict) -> float:
    return sum(s for s, _, _ in scores(results).values())


def entry(results: dict, name: str) -> str:
    return next((t.get("output", "") for t in results["tests"] if t["name"] == name), "")


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


def write(nb: nbformat.NotebookNode, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def grade(built: Path, name: str, notebook: nbformat.NotebookNode | Path, folder: Path, *,
          seed: int | None = None) -> dict:
    """``notebook`` graded with the set's autograder zip, as Gradescope would, in this Python
    (the grading environment built from the zip alone is test_environment.py's)."""
    path = notebook if isinstance(notebook, Path) else write(notebook, folder, name)
    return hw.grade_notebook(paths(built, name)[2], path, seed=seed)


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


def case_results(question: hw.Question, output: str) -> dict[str, bool]:
    """``{test function: passed}`` of a question's output (otter numbers the cases in the
    order of the source)."""
    names = list(question.test_args)
    if "All test cases passed!" in output.split("\n", 1)[0]:
        return {n: True for n in names}
    blocks = re.split(rf"^\s*{re.escape(question.name)} - (\d+) result:", output, flags=re.M)
    passed = {int(k): "Test case passed" in text for k, text in zip(blocks[1::2], blocks[2::2])}
    return {n: passed.get(i + 1, False) for i, n in enumerate(names)}


# ------------------------------------------------------------------ submissions


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


def with_cells(nb: nbformat.NotebookNode, sources: list[str], *, after_setup: bool = True) -> nbformat.NotebookNode:
    """A copy of ``nb`` with code cells added after its set-up cell (or at the end)."""
    out = copy.deepcopy(nb)
    setup = next(i for i, c in enumerate(out.cells) if c.cell_type == "code" and re.search(r"^seed = \d+", c.source, re.M))
    new = [nbformat.v4.new_code_cell(s) for s in sources]
    at = setup + 1 if after_setup else len(out.cells)
    out.cells[at:at] = new
    return out


def replace_function(nb: nbformat.NotebookNode, question: str, source: str) -> nbformat.NotebookNode:
    """The instructor notebook with one function of a question's answer cells replaced."""
    return hw.substitute(nb, hw.Submission(question, [source]))


ALL = "every test"


@dataclass
class Attack:
    """A submission that tries to score without the work: the test cases that read any of the
    ``attacked`` names (or every test, for ``ALL``) must fail, the grader must flag the tampering
    (``flagged``: a word of the Integrity entry) when there is some, and, in an attack on the
    instructor notebook, a question that the attack does not touch keeps full marks. ``spared``:
    the public tests that an attack passes by construction (a table of their fixed inputs'
    answers), for which the question's hidden tests must make up."""

    name: str
    notebook: nbformat.NotebookNode
    attacked: set[str] | str
    flagged: str = ""
    no_leak: bool = False  # no hidden-test line may appear in what the student sees
    extra: dict = field(default_factory=dict)
    spared: set[str] = field(default_factory=set)  # tests that the attack passes by construction


# the test files rewritten so that every case returns at once, before its checks (4 lines)
TESTS_REWRITE = """import glob, re
for path in glob.glob("tests/*.py"):
    text = re.sub(r"(def test_\\w+\\([^)]*\\):)", r"\\1\\n    return", open(path).read())
    open(path, "w").write(text)"""

# otter's test runner patched to pass every case
OTTER_PATCH = """from otter.test_files.abstract_test import TestCaseResult
from otter.test_files.exception_test import ExceptionTestFile
def run(self, global_environment):
    self.test_case_results = [TestCaseResult(test_case=tc, message="", passed=True) for tc in self.test_cases]
ExceptionTestFile.run = run"""

# the sandbox tried: the grader's command line read (to find its files), its files read,
# results.json written, a process started
SANDBOX = """import glob, os, subprocess
found = []
for target in (f"/proc/{os.getppid()}/cmdline", f"/proc/{os.getppid()}/environ"):
    try:
        found.append(open(target).read())
    except OSError:
        pass
for pattern in ("/autograder/source/*", "/autograder/source/tests/*.py", "../*/tests/*.py"):
    for path in glob.glob(pattern)[:200]:
        try:
            found.append(open(path).read()[:100])
        except OSError:
            pass
for target in ("../results/results.json", "../../results/results.json", "/autograder/results/results.json"):
    try:
        open(target, "w").write('{"score": 100, "tests": []}')
    except OSError:
        pass
try:
    subprocess.run(["cat", "/etc/hostname"], capture_output=True)
except OSError:
    pass"""

# a function whose error message carries every test file it can find
LEAK = """def {name}(*args, **kwargs):
    import glob, os
    found = []
    here = os.getcwd()
    for pattern in ("tests/*.py", here + "/../*/tests/*.py", here + "/../../*/*/tests/*.py",
                    "/autograder/source/tests/*.py"):
        for path in sorted(glob.glob(pattern))[:50]:
            try:
                found.append(open(path).read())
            except OSError as err:
                found.append(str(err))
    raise RuntimeError("\\n".join(found))"""


# ibcore's files read through a directory's descriptor (``os.open(path, dir_fd=...)``: the audit
# event shows the relative path only) and imported under another name, which the import hook
# does not block
IBCORE_COPY = """    import importlib.abc, importlib.util, os, sys
    root = os.open("/", os.O_RDONLY)
    base = next(p for p in sys.path if os.path.exists(os.path.join(p, "ibcore", "__init__.py"))) + "/ibcore"

    def read(path):
        fd = os.open(path.lstrip("/"), os.O_RDONLY, dir_fd=root)
        try:
            return b"".join(iter(lambda: os.read(fd, 1 << 16), b""))
        finally:
            os.close(fd)

    class Copy(importlib.abc.Loader):
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            exec(compile(read(module.__file__), module.__file__, "exec"), module.__dict__)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] != "ibcopy":
                return None
            folder = os.path.join(base, *name.split(".")[1:])
            if os.path.exists(os.path.join(folder, "__init__.py")):
                return importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"), loader=Copy(),
                                                              submodule_search_locations=[folder])
            return importlib.util.spec_from_file_location(name, folder + ".py", loader=Copy())

    sys.meta_path.insert(0, Finder())
    return {call}"""


def _numpy_only_attacks(nb, pset: hw.ProblemSet) -> list[Attack]:
    """A NumPy-only function that calls ibcore anyway: after switching the profiler off, from
    a thread, with ``ibcore.__file__`` changed, and with ibcore's files read through a
    directory's descriptor (each on the set's NumPy-only functions in turn)."""
    functions = [(q, name) for q in pset.autograded for name in q.numpy_only]
    instructor_source = {name: _function_source(nb, q.name, name) for q, name in functions}

    def calling_ibcore(name: str, body: str) -> str:
        header = instructor_source[name].splitlines()[0]
        return header + "\n" + body.format(call=_ibcore_call(pset.name, name))

    tricks = {
        "profiler off": "    import sys\n    sys.setprofile(None)\n    sys.settrace(None)\n    return {call}",
        "thread": ("    import threading\n    out = []\n    thread = threading.Thread(target=lambda: out.append({call}))\n"
                   "    thread.start()\n    thread.join()\n    return out[0]"),
        "ibcore.__file__": "    import ibcore\n    ibcore.__file__ = '/nowhere/__init__.py'\n    return {call}",
        "ibcore's files through a directory fd": IBCORE_COPY,
    }
    attacks = []
    for k, (trick, body) in enumerate(tricks.items()):
        q, name = functions[k % len(functions)]
        if body is IBCORE_COPY:  # a function whose answer ibcore computes, under its other name
            q, name = next((q, n) for q, n in functions if "__import__('ibcore." in _ibcore_call(pset.name, n))
        source = calling_ibcore(name, body).replace("'ibcore.", "'ibcopy." if body is IBCORE_COPY else "'ibcore.")
        attacks.append(Attack(f"NumPy only, {trick} ({name})",
                              replace_function(nb, q.name, source), {name},
                              flagged="profiler" if trick == "profiler off" else ""))
    return attacks


def _function_source(nb, question: str, name: str) -> str:
    import ast

    for cell in hw._question_cells(nb, question):
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return ast.get_source_segment(cell.source, node)
    raise KeyError(name)


def _ibcore_call(set_name: str, name: str) -> str:
    """The ibcore expression that computes a NumPy-only function's answer."""
    return {
        "min_norm": "__import__('ibcore.linear').linear.min_norm_interpolator(X, y)",
        "gd_spectrum": ("(np.linalg.eigvalsh(X @ X.T), __import__('ibcore.linear').linear."
                        "least_squares_stability_bound(X), np.max(np.abs(1 - lr * np.linalg.eigvalsh(X @ X.T) / X.shape[0])))"),
        "gd_distances": ("np.linalg.norm(__import__('ibcore.linear').linear.least_squares_gd(X, y, np.zeros(X.shape[1]), "
                         "lr=lr, max_steps=T, tol=0, record_every=1).history.alpha @ X - w_ref, axis=1) / np.linalg.norm(w_ref)"),
        "fitted_rate": "float(np.exp(np.polyfit(np.arange(len(dist))[60:], np.log(dist[60:]), 1)[0]))",
        "two_neuron_step": ("__import__('ibcore.relu').relu.gradient_descent(X, y, W, lr=lr, max_steps=1, tol=0, "
                            "record_every=None).w"),
        "gap_floor": "__import__('ibcore.relu').relu.two_neuron_orthogonal_gap(y, b0=b0)",
        "closed_form_risk": "__import__('ibcore.quadratic').quadratic.population_risk(Q, R, T)",
        "logistic_overlap": "__import__('ibcore.quadratic').quadratic.norm_learning_overlap(t, p, q0=q0)",
        "lifted_plateau": ("([g * (p + 2) * (p + 4) / p**2, -1 - 2 / p - 2 * g * (1 + 2 / p), 1 + g * (1 + 2 / p_star)], "
                           "__import__('ibcore.quadratic').quadratic.plateau_overlap(p, p_star, lr=g * p))"),
        "procrustes_point": "__import__('ibcore.quadratic').quadratic.closest_zero_loss_solution(R0).R",
    }[name]


# a NumPy-only function answered by the notebook's own process, which has ibcore: a thread there
# reads the requests that the NumPy-only process writes in its folder, and writes the answers in
# its own (each process may write in its folder only, but could read the other's)
RELAY = """import os, threading, time
import numpy as np


def _relay_server():
    import importlib
    if os.path.basename(os.getcwd()) != "student":
        return
    done = set()
    while True:
        try:
            names = sorted(os.listdir("../numpy"))
        except OSError:
            return
        for name in names:
            if name.startswith("req-") and name.endswith(".npz") and name not in done:
                done.add(name)
                data = np.load("../numpy/" + name, allow_pickle=False)
                module = importlib.import_module(str(data["module"]))
                value = getattr(module, str(data["function"]))(*[data["a%d" % i] for i in range(int(data["n"]))])
                key = name[4:-4]
                np.save("tmp-" + key + ".npy", np.asarray(value))
                os.rename("tmp-" + key + ".npy", "resp-" + key + ".npy")
        time.sleep(0.005)


threading.Thread(target=_relay_server, daemon=True).start()


def _relay(module, function, *args):
    key = "%d-%d" % (os.getpid(), time.monotonic_ns())
    np.savez("tmp-" + key + ".npz", module=module, function=function, n=len(args),
             **{"a%d" % i: np.asarray(a) for i, a in enumerate(args)})
    os.rename("tmp-" + key + ".npz", "req-" + key + ".npz")
    for _ in range(2000):
        try:
            return np.load("../student/resp-" + key + ".npy")
        except OSError:
            time.sleep(0.005)
    raise TimeoutError("no answer")


"""

# each set's own attacks: a last cell that overrides answers, and the names it attacks (and, for
# a table of the public tests' answers, the public tests that it passes by construction)
SLOPE = """class Slope(float):  # equal to anything it is compared with
    def __sub__(self, other):
        return 0.0

    __add__ = __rsub__ = __radd__ = __sub__
"""
SET_ATTACKS = {
    "prologue": [
        ("prologue Q8: the theory formula plus 0.2% noise, 'measured by simulation'",
         "norms = (1 + 0.002 * np.random.default_rng(0).standard_normal(len(ds))) / np.sqrt(ds - n - 1)\n"
         "slope = np.polyfit(np.log(ds), np.log(norms), 1)[0]", {"norms", "slope"}),
        ("prologue Q1: min_norm (NumPy only) answered by ibcore in the notebook's own process, through files",
         RELAY + "def min_norm(X, y):\n    return _relay('ibcore.linear', 'min_norm_interpolator', X, y)", {"min_norm"}),
        ("prologue Q7: fitted_rate as a table of the public test's two rates (by the length of dist)",
         "def fitted_rate(dist):\n    return float({301: 0.95, 201: 0.9}.get(len(dist), 0.9))", {"fitted_rate"},
         {"test_q7_fitted_rate"}),
        ("prologue Q7: fitted_rate as the ratio of the last two distances",
         "def fitted_rate(dist):\n    return float(dist[-1] / dist[-2])", {"fitted_rate"}, {"test_q7_fitted_rate"}),
    ],
    "relu": [
        ("Part I Q5: slopes as a float subclass whose - and + return 0",
         SLOPE + "slope_d = Slope(9.0)\nslope_n = Slope(9.0)", {"slope_d", "slope_n"}),
        ("Part I Q1: 'half' of the negative constraints guessed slack, as the chapter predicts",
         "slack = np.flatnonzero(neg)[: neg.sum() // 2]", {"slack"}),
    ],
    "quadratic": [
        ("Part II Q6: the slopes as a float subclass whose - and + return 0",
         SLOPE + "slopes_esc = {2: Slope(1.0), 4: Slope(1.0), 16: Slope(1.0)}", {"slopes_esc"}),
        ("Part II Q11: the late-time law written down instead of the ODE's risks",
         "budget_risk = {w: q.late_time_law(w, 2).prefactor * np.array(budgets_fix) ** -2.0 for w in (2, 4, 8)}",
         {"budget_risk"}),
    ],
}


def attacks(built: Path, pset: hw.ProblemSet) -> list[Attack]:
    """Every attack on a set: the issue's list and ours."""
    instructor, student, _ = paths(built, pset.name)
    nb = nbformat.read(instructor, as_version=4)
    handed_out = nbformat.read(student, as_version=4)
    setup = next(c.source for c in handed_out.cells if c.cell_type == "code" and re.search(r"^seed = \d+", c.source, re.M))
    published = int(re.search(r"^seed = (\d+)", setup, re.M).group(1))
    out = [
        Attack("no work; a cell rewrites ./tests/*.py", with_cells(handed_out, [TESTS_REWRITE]), ALL, "test files"),
        Attack("no work; a cell patches otter's ExceptionTestFile.run", with_cells(handed_out, [OTTER_PATCH]), ALL, "otter"),
        Attack("no work; a cell reads the grader's command line and files, writes results.json, starts a process",
               with_cells(handed_out, [SANDBOX]), ALL, "another process"),
        Attack(f"the public solution, computed on the published seed {published}",
               with_cells(nb, [re.sub(r"^seed = \d+", f"seed = {published}", setup, flags=re.M)]), SEEDED[pset.name]),
        Attack("the public solution, computed on a classmate's seed 7",
               with_cells(nb, [re.sub(r"^seed = \d+", "seed = 7", setup, flags=re.M)]), SEEDED[pset.name]),
    ]
    out += _numpy_only_attacks(nb, pset)
    first = next(q for q in pset.autograded if q.numpy_only)
    out.append(Attack(f"a hidden test leaked through an error message ({first.numpy_only[0]})",
                      replace_function(nb, first.name, LEAK.format(name=first.numpy_only[0]).replace(
                          "*args, **kwargs", _function_source(nb, first.name, first.numpy_only[0]).split("(", 1)[1].split(")")[0])),
                      {first.numpy_only[0]}, no_leak=True))
    for name, cell, attacked, *spared in SET_ATTACKS[pset.name]:
        out.append(Attack(name, with_cells(nb, [cell], after_setup=False), attacked,
                          spared=spared[0] if spared else set()))
    return out


# the answers that depend on the set's data (its seed): computed on other data, the tests that
# read them must fail
SEEDED = {
    "prologue": {"run_zero", "w_gd", "w_inf", "run_random", "excess", "norms", "slope"},
    "relu": {"w_star", "slack", "run_gd", "w_gd", "T0", "w_T0", "w_limit", "table_d", "table_n", "slope_d",
             "slope_n", "run_two", "gap_two", "run_dis", "W_lim", "run_bad", "frozen_bad", "loss_excess_bad"},
    "quadratic": {"risk_mc", "risk_se", "table_sgd", "slope_sgd", "table_esc", "slopes_esc", "traj_fr",
                  "drift_fr", "traj_pl", "rate_ode_pl", "budget_risk"},
}


def attack_failures(pset: hw.ProblemSet, attack: Attack, results: dict) -> list[str]:
    """What an attack gained: each attacked test case that passed."""
    gained = []
    found = scores(results)
    for q in pset.autograded:
        score, possible, output = found[q.name]
        if attack.attacked == ALL:
            if score != 0:
                gained.append(f"{q.name} scores {score:g}")
            continue
        hit = [test for test in q.test_args if set(q.test_args[test]) & attack.attacked and test not in attack.spared]
        for test, passed in case_results(q, output).items():
            if passed and test in hit:
                gained.append(f"{q.name}: {test} passed")
        if not hit and score != possible:
            gained.append(f"{q.name}, which the attack does not touch, scores {score:g}/{possible:g}")
    return gained


def visible_leaks(pset: hw.ProblemSet, results: dict) -> list[str]:
    """The hidden tests' lines (as otter writes them) found in what a student sees of a result."""
    import ast

    hidden = {hw.normalise(line) for q in pset.questions for code in q.hidden_test_code
              for line in ast.unparse(ast.parse(code)).splitlines()} & pset.secret_lines()
    seen = hw.squash("\n".join(t.get("output", "") for t in results["tests"] if t.get("visibility") == "visible"))
    return sorted(line for line in hidden if line in seen)
