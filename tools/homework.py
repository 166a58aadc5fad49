"""Build the problem sets with otter-grader, from their MyST sources in ``homework/``.

One source per set: ``homework/<set>.md`` is a MyST notebook written in otter-assign's
master format (``otter`` fenced blocks for the assignment config, questions, solutions and
tests; see the page "Teaching with this book"). Its assignment config only names the set;
the house settings (:data:`HOUSE_CONFIG`) are added here, so every set is built alike. Its
front matter (``ib_homework``) names the chapters it draws on, each question's time, level and
NumPy-only functions, one plausible mistake per question and the shortcuts that CI grades
(:class:`ProblemSet`).

For each set this module

* builds the **master notebook**: the source as a notebook, with a banner defining the
  book's MathJax macros, the chapters' set-up cell (``tools.notebooks.setup_cell_source``)
  extended to install otter-grader and to fetch the public tests where they are missing
  (Colab opens the notebook alone), otter's init cell, each question's points, time and
  level under its title, and the submission instructions;
* runs ``otter assign`` on it, which writes otter's layout under ``_build/homework/<set>/``:
  ``student/`` (notebook without solutions, public tests) and ``autograder/`` (the
  instructor notebook with solutions, all tests);
* packs the **autograder zip** for Gradescope: the tests, a wheel of ``ibcore`` built from the
  commit that last changed it, the grader's requirements at the book's pins and every other
  package at the version of this environment, a ``setup.sh`` that installs them and nothing
  else, ``grading.json`` (the grading seed, drawn at random unless given, the given cells, the
  NumPy-only functions) and the entry point (``tools/homework_grader.py``), which grades where
  no submitted code can reach the tests and hands the written answers, with their rubrics, to
  the graders; beside it, the rubrics (in Gradescope's maths), the model answers and the seed;
* makes ``student/`` the course's **hand-out**: its set-up cell installs ibcore at the commit
  of the wheel and fetches the public tests from the course's hand-out URL; the copy that this
  repository publishes is kept in ``public/``, and in ``student/homework/<set>/``, which the
  Colab and Binder links open;
* grades the instructor notebook with the zip, which must score full marks.

Nothing of ``autograder/`` is published: the sites link only the student material.

Usage::

    python -m tools.homework build [--out DIR] [--no-run-tests] [--sync] [--grading-seed N]
                                   [--per-student] [--handout-url URL]
    python -m tools.homework sync     # refresh student/homework/ (no grading)
    python -m tools.homework check    # exit 1 if student/homework/ is stale
    python -m tools.homework grade -a ZIP SUBMISSION.ipynb [-o DIR] [--student ID]   # as Gradescope
    python -m tools.homework written AUTOGRADER_DIR SUBMISSION.ipynb   # its written answers
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import filecmp
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib import metadata
from pathlib import Path

import jupytext
import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import homework_grader  # noqa: E402
from tools import notebooks as nbtools  # noqa: E402

ROOT = nbtools.ROOT
SOURCES = "homework"
STUDENT_COPY = Path("student") / "homework"
DEFAULT_OUT = Path("_build") / "homework"

# Settings every set shares; a source's ASSIGNMENT CONFIG adds its `name` (and nothing else).
HOUSE_CONFIG = {
    # our set-up cell must run before otter is imported (Colab lacks it), so we write the init cell
    "init_cell": False,
    # students upload the notebook itself (SUBMIT_MARKDOWN); otter's export cell raises on Colab
    "check_all_cell": False,
    "export_cell": False,
    # test files, not notebook metadata: Colab keeps no notebook on disk for otter to read;
    # exception-based tests, so that a failing assert shows its message to the student
    "tests": {"files": True, "ok_format": False},
    # students see the public tests' results and their total; hidden tests stay hidden, also once
    # the grades are published (their messages would tell what they check)
    "generate": {"pdf": False, "show_stdout": False, "show_hidden": False},
    "python_version": "3.11",  # Gradescope's image runs the Python that CI tests with
    "solutions_pdf": False,
    "template_pdf": False,
}
LEVELS = ("easy", "medium", "hard")

INIT_SOURCE = "# Otter checks your answers: grader.check(\"q1\") runs the public tests of question q1.\n" \
              "import otter\ngrader = otter.Notebook()"
SUBMIT_MARKDOWN = (
    "## Check and submit\n\n"
    "Run every cell from the top, then the cell below: it reruns the public tests of every question. "
    "Save the notebook and upload the notebook file itself (`.ipynb`) to Gradescope; on Colab, "
    "download it first with *File → Download → Download .ipynb*. The autograder runs your notebook "
    "from the top with the hidden tests, and hands your written answers to the graders.")
CHECK_ALL_SOURCE = "grader.check_all()"


# ------------------------------------------------------------------ the sources


def sources(root: Path = ROOT) -> list[Path]:
    """The problem-set sources, ``homework/*.md`` (MyST notebooks), in the order of the book.

    A set goes where the first chapter it draws on stands in ``_toc.yml`` (the prologue's set
    first, then Part I's, then Part II's); sets on the same chapter, by name.
    """
    toc = [p.relative_to(root).with_suffix("").as_posix() for p in nbtools.toc_files(root)]

    def place(path: Path) -> tuple[int, str]:
        meta = jupytext.read(path, fmt="md:myst").metadata.get("ib_homework") or {}
        first = (meta.get("chapters") or [None])[0]
        return (toc.index(first) if first in toc else len(toc), path.stem)

    return sorted((p for p in (root / SOURCES).glob("*.md") if nbtools.is_myst_notebook(p)), key=place)


@dataclass
class RubricItem:
    """A line of a written question's rubric: points for a part, and partial credit for it."""

    points: float
    text: str
    partial: list[tuple[float, str]] = field(default_factory=list)


@dataclass
class Question:
    """One question of a set, as written in its source."""

    name: str
    points: float
    manual: bool
    title: str = ""
    minutes: int = 0
    level: str = ""
    public_tests: list[str] = field(default_factory=list)  # test function names
    hidden_tests: list[str] = field(default_factory=list)
    test_args: dict[str, list[str]] = field(default_factory=dict)  # the names each test reads
    solution_lines: list[str] = field(default_factory=list)  # solutions and model answers
    hidden_test_code: list[str] = field(default_factory=list)  # the hidden test functions
    public: list[str] = field(default_factory=list)  # every line a student sees
    rubric: list[RubricItem] = field(default_factory=list)
    model_answer: str = ""  # a written question's model answer (Markdown), without its rubric
    numpy_only: list[str] = field(default_factory=list)  # functions graded without ibcore

    @property
    def hidden_test_lines(self) -> list[str]:
        """The hidden tests' lines as written, and as otter writes them (``ast.unparse``)."""
        return [line for code in self.hidden_test_code for line in code.splitlines() + _unparsed(code)]

    @property
    def secret(self) -> list[str]:
        return self.solution_lines + self.hidden_test_lines

    @property
    def reads(self) -> set[str]:
        """Every name that the question's tests read from the notebook."""
        return {name for names in self.test_args.values() for name in names}

    @property
    def badge(self) -> str:
        """What the notebook says under the question's title: points, time and level."""
        points = f"{self.points:g} point{'s' if self.points != 1 else ''}"
        kind = "written, graded by hand" if self.manual else "autograded"
        return f"*{points} ({kind}) · about {self.minutes} minutes · {self.level}*"


@dataclass
class Submission:
    """A change to the instructor notebook that CI grades: a common mistake or a shortcut."""

    question: str
    lines: list[str]
    loses: float = 0.0  # a shortcut loses at least this many points of its question
    message: str = ""  # a mistake's failure message says (in part) this
    keeps: float | None = None  # a mistake keeps exactly this many points of its question


@dataclass
class ProblemSet:
    """A parsed source: its name, title, chapters and questions."""

    name: str
    title: str
    source: Path
    chapters: list[str]
    questions: list[Question]
    preamble: list[str] = field(default_factory=list)  # student-visible lines outside questions
    meta: dict = field(default_factory=dict)  # the source's `ib_homework` front matter

    @property
    def autograded(self) -> list[Question]:
        return [q for q in self.questions if not q.manual]

    @property
    def manual(self) -> list[Question]:
        return [q for q in self.questions if q.manual]

    @property
    def points(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def minutes(self) -> int:
        return sum(q.minutes for q in self.questions)

    def question(self, name: str) -> Question:
        return next(q for q in self.questions if q.name == name)

    @property
    def mistakes(self) -> list[Submission]:
        """One plausible mistake per question, each keeping exactly ``keeps`` points of it."""
        return [Submission(m["question"], list(m["lines"]), message=m["message"], keeps=float(m["keeps"]))
                for m in self.meta.get("mistakes", [])]

    @property
    def no_work_max(self) -> float:
        """The most that the instructor notebook with every shortcut in place may score."""
        return float(self.meta["no_work_max"])

    @property
    def shortcuts(self) -> list[Submission]:
        """Submissions that skip the work, each of which must lose points of its question."""
        return [Submission(s["question"], list(s["lines"]), loses=float(s["loses"]))
                for s in self.meta.get("shortcuts", [])]

    def secret_lines(self, allowed: str = "") -> set[str]:
        """Normalised lines only the instructor may see (solutions, model answers, hidden tests).

        Lines shorter than 12 characters (``else:``, ``import numpy as np``...) and lines that
        also occur in what students see, or in ``allowed`` (e.g. the student edition of the
        chapters), are left out: finding them elsewhere would prove nothing.
        """
        public = "\n".join(normalise(line) for q in self.questions for line in q.public)
        public += "\n".join(normalise(line) for line in self.preamble) + squash(allowed)
        return {s for q in self.questions for line in q.secret
                if len(s := normalise(line)) >= 12 and s not in public}


def squash(text: str) -> str:
    """Text without whitespace, the form in which leaks are searched for."""
    return re.sub(r"\s+", "", text)


def normalise(line: str) -> str:
    """A line without whitespace or otter's markers (``# SOLUTION``, ``# BEGIN PROMPT``...):
    what a leak would contain."""
    line = re.sub(r"#\s*((BEGIN |END )?SOLUTION|(BEGIN|END) PROMPT).*$", "", line)
    return squash(line)


def public_text(psets: list[ProblemSet]) -> str:
    """Everything students see of the sets (questions, skeletons, public tests), for a search
    of leaks over files that hold several sets: one set's hidden line may be another's public."""
    return "\n".join(line for pset in psets for q in pset.questions for line in q.public) + "\n".join(
        line for pset in psets for line in pset.preamble)


def _unparsed(code: str) -> list[str]:
    """The lines of ``code`` as otter writes test files: re-printed from its syntax tree."""
    return ast.unparse(ast.parse(code)).splitlines()


def _test_config(source: str) -> tuple[dict, str]:
    """Split an exception-based test cell into its TEST CONFIG (YAML) and its function."""
    from otter.assign.tests_manager import BEGIN_TEST_CONFIG_REGEX, END_TEST_CONFIG_REGEX

    lines = source.splitlines()
    if not lines or not re.match(BEGIN_TEST_CONFIG_REGEX, lines[0], flags=re.I):
        raise ValueError(f"a test cell must start with a TEST CONFIG block (points, hidden):\n{source}")
    end = next(i for i, line in enumerate(lines) if re.match(END_TEST_CONFIG_REGEX, line, flags=re.I))
    return yaml.safe_load("\n".join(lines[1:end])) or {}, "\n".join(lines[end + 1:])


_RUBRIC_ITEM = re.compile(r"^(?P<indent>\s*)- \*\*(?P<points>\d+(?:\.\d+)?)\*\*: (?P<text>.+)$")


def parse_rubric(text: str) -> list[RubricItem]:
    """The rubric of a model answer: ``- **1**: ...`` items, ``  - **0.5**: ...`` partial credit."""
    if "**Rubric**" not in text:
        return []
    items: list[RubricItem] = []
    for line in text.split("**Rubric**", 1)[1].splitlines():
        if m := _RUBRIC_ITEM.match(line):
            if m["indent"]:
                if not items:
                    raise ValueError(f"partial credit before any rubric item: {line!r}")
                items[-1].partial.append((float(m["points"]), m["text"].strip()))
            else:
                items.append(RubricItem(float(m["points"]), m["text"].strip()))
    return items


def read_set(path: Path) -> ProblemSet:
    """Parse a source: questions, their tests (public or hidden) and what is secret in them."""
    from otter.assign.blocks import (BlockType, extract_all_fenced_otter_cells, get_cell_config,
                                     is_assignment_config_cell, is_block_boundary_cell)
    from otter.assign.solutions import replace_solutions

    path = Path(path)
    nb = jupytext.reads(path.read_text(encoding="utf-8"), fmt="md:myst")
    meta = dict(nb.metadata.get("ib_homework") or {})  # the front matter's own section
    name, title, questions, preamble = None, None, [], []
    blocks: list[BlockType] = []
    question: Question | None = None
    for cell in extract_all_fenced_otter_cells(nb.cells):
        if is_assignment_config_cell(cell):
            name = get_cell_config(cell).get("name")
            continue
        boundary = next(((kind, end) for kind in BlockType for end in (False, True)
                         if is_block_boundary_cell(cell, kind, end=end)), None)
        if boundary:
            kind, end = boundary
            if end:
                blocks.pop()
                if kind is BlockType.QUESTION:
                    questions.append(question)
                    question = None
            else:
                blocks.append(kind)
                if kind is BlockType.QUESTION:
                    config = get_cell_config(cell)
                    question = Question(config["name"], config.get("points", 0), config.get("manual", False))
            continue
        if title is None and cell.cell_type == "markdown" and (m := re.search(r"^# (.+)$", cell.source, re.M)):
            title = m.group(1).strip()
        lines = cell.source.splitlines()
        if question is not None and not question.title and cell.cell_type == "markdown":
            if m := re.search(r"^## (.+)$", cell.source, re.M):
                question.title = m.group(1).strip()
        if question is None:
            preamble += lines
        elif BlockType.TESTS in blocks:
            config, body = _test_config(cell.source)
            test = next(n for n in ast.parse(body).body if isinstance(n, ast.FunctionDef))
            question.test_args[test.name] = [a.arg for a in test.args.args]
            if config.get("hidden", False):
                question.hidden_tests.append(test.name)
                question.hidden_test_code.append(body)
            else:
                question.public_tests.append(test.name)
                question.public += body.splitlines() + _unparsed(body)
        elif BlockType.SOLUTION in blocks:
            shown = replace_solutions(lines, "python") if cell.cell_type == "code" else []
            question.public += shown
            question.solution_lines += [line for line in lines if line not in shown]
            if cell.cell_type == "markdown":
                question.rubric += parse_rubric(cell.source)
                if "**Model answer.**" in cell.source:
                    question.model_answer = cell.source.split("**Rubric**", 1)[0].strip()
        else:
            question.public += lines
    if name != path.stem:
        raise ValueError(f"{path}: the ASSIGNMENT CONFIG must say `name: {path.stem}` (got {name!r})")
    if title is None:
        raise ValueError(f"{path}: no '# Title' heading")
    timing = meta.get("questions") or {}
    for q in questions:
        info = timing.get(q.name) or {}
        q.minutes, q.level = int(info.get("minutes", 0)), str(info.get("level", ""))
        q.numpy_only = [str(name) for name in info.get("numpy_only", [])]
        if q.minutes <= 0 or q.level not in LEVELS:
            raise ValueError(f"{path}: ib_homework.questions.{q.name} needs minutes > 0 and a level in {LEVELS}, "
                             f"got {info!r}")
        if not set(q.numpy_only) <= q.reads:
            raise ValueError(f"{path}: ib_homework.questions.{q.name}.numpy_only names {q.numpy_only}, but its "
                             f"tests read {sorted(q.reads)}")
    return ProblemSet(name, title, path, list(meta.get("chapters", [])), questions, preamble, meta)


# ------------------------------------------------------------- master notebook


def requirement(package: str, root: Path = ROOT) -> str:
    """The pinned requirement line of ``package`` in requirements.txt (the one place pins live)."""
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if re.match(rf"^{re.escape(package)}\s*==", line.strip(), flags=re.I):
            return line.split("#")[0].strip()
    raise KeyError(f"{package} is not pinned in requirements.txt")


def repository_file_url(config: dict, path: str) -> str:
    """The raw URL of a file of the repository, at the branch the launch buttons open."""
    url = config["repository"]["url"].rstrip("/")
    branch = config["repository"].get("branch", "main")
    if m := re.match(r"https://github\.com/([^/]+/[^/]+)$", url):
        return f"https://raw.githubusercontent.com/{m.group(1)}/{branch}/{path}"
    return f"{url}/{path}"  # a local checkout (the tests use file:// URLs)


def setup_cell_source(config: dict, pset: ProblemSet, root: Path = ROOT, *, ibcore_ref: str | None = None,
                      tests_url: str | None = None) -> str:
    """The set's first code cell: the chapters' set-up cell, then otter-grader and the public tests.

    By default ibcore comes from the ref that the chapters install (the branch the launch
    buttons open) and the public tests from this repository's ``student/homework/<set>/tests``:
    the copy this repository publishes. A course's hand-out passes ``ibcore_ref`` (the commit
    that its autograder's wheel was built from) and ``tests_url`` (where the course publishes
    the hand-out's ``tests/`` folder).
    """
    if ibcore_ref is not None:
        config = {**config, "ibcore": {**(config.get("ibcore") or {}), "install_ref": ibcore_ref}}
    tests_url = (tests_url or repository_file_url(config, f"{STUDENT_COPY.as_posix()}/{pset.name}/tests")).rstrip("/")
    public = [q.name for q in pset.autograded if q.public_tests]
    return nbtools.setup_cell_source(config) + f"""
# ... and otter-grader, which runs the tests of each question (grader.check)
try:
    import otter
except ModuleNotFoundError:
    import subprocess, sys
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "{requirement('otter-grader', root)}"],
                   check=True)
    import otter
import os, urllib.request
if not os.path.isdir("tests"):  # the notebook was opened alone (Colab): fetch its public tests
    os.makedirs("tests")
    for name in {public!r}:
        urllib.request.urlretrieve(f"{tests_url}/{{name}}.py", f"tests/{{name}}.py")
print("otter-grader", otter.__version__)"""


def assignment_config(pset: ProblemSet) -> dict:
    """The set's full otter-assign config: its name and the house settings.

    The grading environment is not otter's (``package_autograder`` writes it), so no
    requirements are passed to otter.
    """
    return {"name": pset.name, **copy.deepcopy(HOUSE_CONFIG)}


def master_notebook(path: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The otter master notebook of a source, with the generated cells in place."""
    from otter.assign.blocks import (BlockType, extract_all_fenced_otter_cells, get_cell_config,
                                     is_assignment_config_cell, is_block_boundary_cell)

    pset = read_set(path)
    config = nbtools.load_config(root)
    nb = jupytext.reads(Path(path).read_text(encoding="utf-8"), fmt="md:myst")
    cells = extract_all_fenced_otter_cells(nb.cells)
    pending: Question | None = None  # a question whose title is still to come
    for i, cell in enumerate(cells):
        if is_assignment_config_cell(cell):
            cells[i] = nbformat.v4.new_raw_cell(
                "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(assignment_config(pset), sort_keys=False))
        elif is_block_boundary_cell(cell, BlockType.QUESTION, end=False):
            pending = pset.question(get_cell_config(cell)["name"])
        elif pending is not None and cell.cell_type == "markdown" and re.search(r"^## ", cell.source, re.M):
            cell.source = re.sub(r"^(## .+)$", lambda m: f"{m.group(1)}\n\n{pending.badge}", cell.source,
                                 count=1, flags=re.M)
            pending = None
    title = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith("# "))
    banner = nbformat.v4.new_markdown_cell(
        f"*{config['title']}*, problem set generated from `{SOURCES}/{Path(path).name}`: "
        f"{len(pset.questions)} questions, {pset.points:g} points, about {pset.minutes / 60:.0f} hours. "
        "Run the cells from the top: the first code cell installs what the notebook needs when it is "
        "missing.\n\n" + nbtools.macros_cell_source(config))
    setup = nbformat.v4.new_code_cell(setup_cell_source(config, pset, root))
    setup.metadata["tags"] = ["setup", "otter_ignore"]  # the autograder's environment has both already
    init = nbformat.v4.new_code_cell(INIT_SOURCE)
    cells[title + 1:title + 1] = [banner, setup, init]
    cells += [nbformat.v4.new_markdown_cell(SUBMIT_MARKDOWN), nbformat.v4.new_code_cell(CHECK_ALL_SOURCE)]
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                    "language_info": {"name": "python"}}
    _stable_ids(out)
    return out


def _stable_ids(nb: nbformat.NotebookNode) -> None:
    """Deterministic cell ids, so that a rebuild of an unchanged set changes no file."""
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:03d}"


# ------------------------------------------------- submissions that CI grades


def with_seed(nb: nbformat.NotebookNode, seed: int) -> nbformat.NotebookNode:
    """A copy of a set's notebook whose set-up cell draws everything from ``seed``."""
    out = copy.deepcopy(nb)
    found = 0
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.source, k = re.subn(r"^seed = \d+", f"seed = {int(seed)}", cell.source, flags=re.M)
            found += k
    if found != 1:
        raise ValueError(f"the set-up cell must assign `seed = <int>` exactly once (found {found})")
    return out


def _head(statement: ast.stmt) -> str:
    """What identifies a statement that a submission replaces: its target, ``return`` or ``def``."""
    if isinstance(statement, ast.FunctionDef):
        return f"def {statement.name}"
    if isinstance(statement, ast.Return):
        return "return"
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return " = ".join(ast.unparse(t) for t in targets) + " ="
    raise ValueError(f"a submission line must be an assignment, a return or a def: {ast.unparse(statement)!r}")


def _question_cells(nb: nbformat.NotebookNode, question: str) -> list[nbformat.NotebookNode]:
    """The answer cells of ``question`` in an instructor notebook: its solution cells, between
    the previous question's check cell and its own."""
    check = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                 and c.source.strip() == f'grader.check("{question}")')
    start = max((i for i, c in enumerate(nb.cells[:check]) if c.source.startswith("grader.check(")), default=-1)
    return [c for c in nb.cells[start + 1:check] if c.cell_type == "code"
            and "otter_assign_solution_cell" in c.metadata.get("tags", [])]


def substitute(nb: nbformat.NotebookNode, submission: Submission) -> nbformat.NotebookNode:
    """A copy of the instructor notebook ``nb`` with the lines of ``submission`` in place.

    Each line (or block) replaces the one statement of the question's answer cells with the
    same head: the assignment to the same target, the ``return`` statement, or the whole
    function of the same name.
    """
    out = copy.deepcopy(nb)
    cells = _question_cells(out, submission.question)
    for text in submission.lines:
        head = _head(ast.parse(text).body[0])
        matches = [(cell, node) for cell in cells for node in ast.walk(ast.parse(cell.source))
                   if isinstance(node, ast.stmt) and not isinstance(node, ast.Expr)
                   and _safe_head(node) == head]
        if len(matches) != 1:
            raise ValueError(f"{submission.question}: `{head}` must match one statement of the answer cells, "
                             f"found {len(matches)}")
        cell, node = matches[0]
        lines = cell.source.splitlines()
        indent = " " * node.col_offset
        new = [indent + line if line else line for line in text.splitlines()]
        cell.source = "\n".join(lines[:node.lineno - 1] + new + lines[node.end_lineno:])
    return out


def _safe_head(node: ast.stmt) -> str | None:
    try:
        return _head(node)
    except ValueError:
        return None


# ------------------------------------------------------------------ the grader


def grader_requirements(root: Path = ROOT) -> list[str]:
    """What the grader installs, each at the pin of requirements.txt: otter-grader with its
    grading extra, and ibcore's own dependencies (ibcore itself comes as a wheel)."""
    project = (root / "pyproject.toml").read_text(encoding="utf-8")
    deps = re.search(r"^dependencies = \[(.*?)^\]", project, flags=re.S | re.M).group(1)
    names = re.findall(r'^\s*"([A-Za-z0-9_.-]+)', deps, flags=re.M)
    return [requirement("otter-grader", root).replace("otter-grader", "otter-grader[grading]")] + [
        requirement(name, root) for name in names]


def environment_pins(requirements: list[str]) -> list[str]:
    """``name==version`` of every distribution that ``requirements`` (and ibcore's own
    dependencies) pull into this environment, ibcore left out: the versions that the book's CI
    grades with, which the grader's constraints fix."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, str] = {}
    todo = [Requirement(r) for r in requirements] + [Requirement(r) for r in metadata.requires("ibcore") or []]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in pins or name == "ibcore":
            continue
        dist = metadata.distribution(name)
        pins[name] = f"{dist.metadata['Name']}=={dist.version}"
        extras = requirement.extras or {""}
        todo += [dep for dep in map(Requirement, dist.requires or [])
                 if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in extras)]
    return [pins[k] for k in sorted(pins)]


@dataclass
class Release:
    """The ibcore that a set's autograder carries and its hand-out installs: its version, and
    the commit that last changed it (``None`` outside a git checkout)."""

    version: str
    commit: str | None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def ibcore_release(root: Path = ROOT) -> Release:
    """The commit that last changed ``ibcore/`` or ``pyproject.toml``, and ibcore's version there.

    That commit, not the checkout's head, is what a hand-out pins: it stays the same while
    commits change other files, and it holds the very ibcore of the wheel.
    """
    log = _git(root, "log", "-1", "--format=%H", "--", "ibcore", "pyproject.toml")
    commit = log.stdout.strip() if log.returncode == 0 and log.stdout.strip() else None
    text = (_git(root, "show", f"{commit}:ibcore/__init__.py").stdout if commit
            else (root / "ibcore" / "__init__.py").read_text(encoding="utf-8"))
    version = re.search(r'^__version__ = "([^"]+)"', text, flags=re.M).group(1)
    return Release(version, commit)


def build_wheel(out: Path, root: Path = ROOT, release: Release | None = None) -> Path:
    """A wheel of ibcore (pip, with the build backend of pyproject.toml), built from the files of
    ``release.commit`` (``git archive``) when there is one, else from the checkout's files.

    The build runs on a copy, so that the checkout gains no build folders. ibcore files that
    differ from the commit's (uncommitted changes) are not in the wheel: a warning says so.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    release = release or ibcore_release(root)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        if release.commit:
            archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", release.commit,
                                      "ibcore", "pyproject.toml", "README.md"], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
            if _git(root, "diff", "--quiet", release.commit, "--", "ibcore", "pyproject.toml").returncode != 0:
                print(f"warning: ibcore/ differs from commit {release.commit[:12]}: the autograder carries the "
                      "committed ibcore; commit your changes to grade with them", file=sys.stderr)
        else:
            for name in ("pyproject.toml", "README.md"):
                shutil.copy(root / name, src / name)
            shutil.copytree(root / "ibcore", src / "ibcore", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-input",
                              "--disable-pip-version-check", "-w", str(Path(tmp) / "wheel"), str(src)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"building the ibcore wheel failed:\n{run.stdout}{run.stderr}")
        wheel = next((Path(tmp) / "wheel").glob("ibcore-*.whl"))
        target = out / wheel.name
        shutil.copy(wheel, target)
    return target


SETUP_SH = """\
#!/usr/bin/env bash
# The grading environment of this problem set, built from this zip alone. Gradescope runs it
# once, as root, in /autograder/source. It installs requirements.txt (the grader's packages at
# the book's pins), every other package at the version of constraints.txt (the environment
# that the book's CI grades with), and ibcore from the wheel in this zip, built from the
# book's sources. Nothing else: no browser, no LaTeX.
#
#   GRADER_PYTHON=/path/to/venv/bin/python bash setup.sh    installs into that Python instead
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${GRADER_PYTHON:-}"
if [ -z "$python" ]; then
    # Gradescope's Ubuntu image lacks Python @PYTHON@: Miniforge installs it from conda-forge,
    # as otter-grader's own set-up does
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wget
    wget -nv "https://github.com/conda-forge/miniforge/releases/download/25.3.1-0/Miniforge3-Linux-$(uname -m).sh" \\
        -O /tmp/miniforge.sh
    bash /tmp/miniforge.sh -b -p /root/miniforge3
    /root/miniforge3/bin/conda create -y -q -n otter-env -c conda-forge python=@PYTHON@ pip
    python=/root/miniforge3/envs/otter-env/bin/python
fi
cd "$here"
"$python" -m pip install --quiet --no-input --disable-pip-version-check -r requirements.txt -c constraints.txt
"$python" -m pip install --quiet --no-input --disable-pip-version-check --no-deps --force-reinstall @WHEEL@
"$python" -m pip check
echo "$python" > "$here/python"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission (its copy in /autograder, or this one in
# /autograder/source): grade with the Python that setup.sh installed
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source="$here"
[ -f "$source/run_otter.py" ] || source="$here/source"
exec "$(cat "$source/python")" "$source/run_otter.py"
"""


_MACRO = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])")


def expand_macros(text: str, macros: dict) -> str:
    """``text`` with the book's MathJax macros (``_config.yml``: ``name: body`` or
    ``name: [body, n]``) replaced by their bodies, arguments in place, so that it renders where
    they are not defined (Gradescope, a Markdown viewer)."""
    for _ in range(6):  # a macro's body or argument may hold another
        out, pos, changed = [], 0, False
        while m := _MACRO.search(text, pos):
            spec = macros.get(m.group(1))
            if spec is None:
                out.append(text[pos:m.end()])
                pos = m.end()
                continue
            body, count = (spec[0], int(spec[1])) if isinstance(spec, list) else (spec, 0)
            end = m.end()
            for k in range(1, count + 1):
                while end < len(text) and text[end] == " ":
                    end += 1
                if end < len(text) and text[end] == "{":
                    depth, close = 0, end
                    for close in range(end, len(text)):
                        depth += {"{": 1, "}": -1}.get(text[close], 0)
                        if depth == 0:
                            break
                    argument, end = text[end + 1:close], close + 1
                else:
                    argument, end = text[end:end + 1], end + 1
                body = body.replace(f"#{k}", argument)
            out.append(text[pos:m.start()] + body)
            pos, changed = end, True
        text = "".join(out) + text[pos:]
        if not changed:
            break
    return text


def gradescope_text(text: str, macros: dict) -> str:
    """Markdown with maths as Gradescope renders it: the macros expanded, ``$$`` around inline
    maths and ``$$$`` around displayed maths (Gradescope's delimiters, not ``$`` and ``$$``)."""
    text = expand_macros(text, macros)
    return re.sub(r"\$\$(.+?)\$\$|\$(.+?)\$",
                  lambda m: f"$$${m.group(1)}$$$" if m.group(1) is not None else f"$${m.group(2)}$$", text, flags=re.S)


def book_macros(root: Path = ROOT) -> dict:
    return nbtools.load_config(root)["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]


def written_questions(pset: ProblemSet, root: Path = ROOT) -> list[dict]:
    """The written questions for the grader (``written.json``): title, points and rubric, in
    Gradescope's maths."""
    macros = book_macros(root)

    def text(t: str) -> str:
        return gradescope_text(t, macros)

    return [{"name": q.name, "title": text(q.title), "points": q.points,
             "rubric": [{"points": r.points, "text": text(r.text),
                         "partial": [{"points": p, "text": text(t)} for p, t in r.partial]} for r in q.rubric]}
            for q in pset.manual]


def rubrics_markdown(pset: ProblemSet, root: Path = ROOT) -> str:
    """The rubrics of the written questions, for the manually graded questions on Gradescope:
    paste each item as it stands (its maths is in Gradescope's delimiters, the book's macros
    expanded)."""
    lines = [f"# {pset.title}: rubrics of the written questions", "",
             "Create one manually graded question per entry in the assignment's outline, with these "
             "points and rubric items (partial credit indented). Each item's text pastes into Gradescope as "
             "it stands: its maths uses Gradescope's delimiters ($$ inline, $$$ displayed), without the "
             f"book's macros. The model answers are in {pset.name}-model-answers.md. The autograder shows each "
             "student's answer with its rubric to the graders.", ""]
    for q in written_questions(pset, root):
        lines += [f"## {q['name']}: {q['title']} ({q['points']:g} points)", ""]
        for item in q["rubric"]:
            lines.append(f"- **{item['points']:g}**: {item['text']}")
            lines += [f"  - **{p['points']:g}**: {p['text']}" for p in item["partial"]]
        lines.append("")
    return "\n".join(lines)


def model_answers_markdown(pset: ProblemSet, root: Path = ROOT) -> str:
    """The model answers of the written questions (instructor only), readable in any Markdown
    viewer: the book's macros expanded."""
    macros = book_macros(root)
    lines = [f"# {pset.title}: model answers of the written questions", "",
             f"For the graders, beside {pset.name}-rubrics.md. Not for students.", ""]
    for q in pset.manual:
        lines += [f"## {q.name}: {expand_macros(q.title, macros)} ({q.points:g} points)", "",
                  expand_macros(q.model_answer, macros), ""]
    return "\n".join(lines)


def _zip_entry(name: str, executable: bool = False) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


@dataclass
class Grading:
    """How a packaged set is graded and handed out.

    ``seed``: the zip's grading seed (``None``: drawn at random when the zip is built, so that it
    is known only to whoever holds the zip); ``per_student``: derive each submitter's seed from it
    and their Gradescope id; ``handout_url``: where the course publishes its hand-outs, each set's
    public tests under ``<handout_url>/<set>/tests/`` (the set-up cell of a notebook opened alone
    fetches them there).
    """

    seed: int | None = None
    per_student: bool = False
    handout_url: str | None = None


def given_cells(student: nbformat.NotebookNode) -> list[dict]:
    """The code cells of a student notebook that are neither answers nor otter's: the set-up cell
    and the data that questions give, ``[{id, source}]`` in order."""
    out = []
    for cell in student.cells:
        tags = cell.metadata.get("tags", [])
        text = cell.source.strip()
        if (cell.cell_type != "code" or "otter_answer_cell" in tags or "otter_ignore" in tags
                or text in (INIT_SOURCE, CHECK_ALL_SOURCE) or re.fullmatch(r'grader\.check\("\w+"\)', text)):
            continue
        out.append({"id": cell.id, "source": cell.source})
    return out


def grading_config(pset: ProblemSet, student: nbformat.NotebookNode, tests: dict[str, bytes],
                   public: dict[str, bytes], seed: int, grading: Grading, release: Release) -> dict:
    """The zip's ``grading.json``: what the grader needs besides otter's tests."""
    import hashlib

    given = given_cells(student)
    setups = [g for g in given if re.search(homework_grader.SEED_LINE, g["source"], flags=re.M)]
    if len(setups) != 1:
        raise ValueError(f"{pset.name}: one given cell must assign `seed = <int>`, found {len(setups)}")
    published = int(re.search(r"^seed = (\d+)", setups[0]["source"], flags=re.M).group(1))
    return {
        "name": pset.name, "title": pset.title,
        "seed": {"grading": seed, "per_student": grading.per_student, "published": published},
        "setup": setups[0], "given": given, "init_source": INIT_SOURCE,
        "questions": [{"name": q.name, "points": q.points, "test": f"tests/{q.name}.py",
                       "sha256": hashlib.sha256(tests[f"tests/{q.name}.py"]).hexdigest(),
                       "public": f"public/{q.name}.py" if f"{q.name}.py" in public else None,
                       "numpy_only": q.numpy_only} for q in pset.autograded],
        "ibcore": {"version": release.version, "commit": release.commit},
        # within Gradescope's default limit of 10 minutes per submission, whatever the notebook does
        "call_timeout": 60, "notebook_timeout": 300,
    }


def package_autograder(folder: Path, pset: ProblemSet, wheel: Path, release: Release, grading: Grading,
                       root: Path = ROOT) -> Path:
    """Rewrite otter's ``<set>-autograder.zip`` in ``folder`` as a self-contained grader.

    It keeps otter's tests and ``otter_config.json`` and replaces the rest (otter's set-up
    installs ibcore from nowhere, leaves most packages unpinned and downloads a browser that
    grading never uses): requirements, constraints, the ibcore wheel, ``setup.sh``,
    ``run_autograder``, the entry point ``run_otter.py`` (``tools/homework_grader.py``),
    ``grading.json`` (the grading seed, the given cells, which functions are NumPy only), the
    public tests (``public/``) and ``written.json``. Beside the zip, for the instructor: the
    rubrics, the model answers, ``written.json`` and the grading seed.
    """
    import secrets

    zipped = folder / f"{pset.name}-autograder.zip"
    with zipfile.ZipFile(zipped) as zf:
        kept = {n: zf.read(n) for n in sorted(zf.namelist()) if n.startswith("tests/") or n == "otter_config.json"}
    student_dir = folder.parent / "student"
    public = {p.name: p.read_bytes() for p in sorted((student_dir / "tests").glob("*.py"))}
    student = nbformat.read(student_dir / f"{pset.name}.ipynb", as_version=4)
    seed = grading.seed if grading.seed is not None else secrets.randbelow(2**31 - 1) + 1
    config = grading_config(pset, student, kept, public, seed, grading, release)
    python = HOUSE_CONFIG["python_version"]
    files = {
        "requirements.txt": "# the grader's packages at the book's pins (its requirements.txt); constraints.txt\n"
                            "# pins every other package, and setup.sh installs ibcore from the wheel beside this file\n"
                            + "\n".join(grader_requirements(root)) + "\n",
        "constraints.txt": "# every package that the grader installs, at the version of the environment that the\n"
                           "# book's CI grades with\n" + "\n".join(environment_pins(grader_requirements(root))) + "\n",
        "setup.sh": SETUP_SH.replace("@PYTHON@", python).replace("@WHEEL@", wheel.name),
        "run_autograder": RUN_AUTOGRADER,
        "run_otter.py": Path(homework_grader.__file__).read_text(encoding="utf-8"),
        "grading.json": json.dumps(config, indent=2) + "\n",
        "written.json": json.dumps(written_questions(pset, root), indent=2) + "\n",
    }
    with zipfile.ZipFile(zipped, "w") as zf:
        for name, text in files.items():
            zf.writestr(_zip_entry(name, executable=name in ("setup.sh", "run_autograder")), text)
        zf.writestr(_zip_entry(wheel.name), wheel.read_bytes())
        for name, data in kept.items():
            zf.writestr(_zip_entry(name), data)
        for name, data in public.items():
            zf.writestr(_zip_entry(f"public/{name}"), data)
    (folder / "written.json").write_text(files["written.json"], encoding="utf-8")
    (folder / f"{pset.name}-rubrics.md").write_text(rubrics_markdown(pset, root), encoding="utf-8")
    (folder / f"{pset.name}-model-answers.md").write_text(model_answers_markdown(pset, root), encoding="utf-8")
    (folder / "grading-seed.txt").write_text(
        f"{seed}\n# the seed that {zipped.name} grades with{' (the base of per-student seeds)' if grading.per_student else ''}; "
        f"students' notebooks say seed = {config['seed']['published']}\n", encoding="utf-8")
    return zipped


# ------------------------------------------------------------------ skeletons

_STUB = re.compile(r"^[A-Za-z_][\w, ]* = \.\.\.$")  # `name = ...`, what a student fills in


def tidy_skeleton(source: str) -> str:
    """An answer cell of the student notebook without the blank lines that removed solution
    blocks leave: none between two ``name = ...`` lines, none at the end."""
    lines = source.rstrip().splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() and out and _STUB.match(out[-1]):
            following = next((rest for rest in lines[i + 1:] if rest.strip()), "")
            if _STUB.match(following):
                continue
        out.append(line)
    return "\n".join(out)


def _assigned(source: str) -> set[str]:
    """The names a cell defines at its top level (functions' bodies left out)."""
    names: set[str] = set()
    todo = list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in filter(None, targets):
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        todo += [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return names


def skeleton_problems(pset: ProblemSet, student: nbformat.NotebookNode) -> list[str]:
    """What is wrong with the answer cells of a student notebook: each autograded question's
    cells must define exactly the names its tests read that no other cell defines, and hold no
    bare ``...`` statement (a function's ``return ...`` is the place for its answer)."""
    problems, given, cells_of = [], set(), {}
    pending: list[str] = []
    for cell in student.cells:
        if cell.cell_type != "code":
            continue
        if m := re.match(r'grader\.check\("(\w+)"\)', cell.source.strip()):
            cells_of[m.group(1)] = pending
            pending = []
        elif "otter_answer_cell" in cell.metadata.get("tags", []):
            pending.append(cell.source)
        elif "otter_ignore" not in cell.metadata.get("tags", []):
            given |= _assigned(cell.source)
    for q in pset.autograded:
        sources = cells_of.get(q.name, [])
        defined = set().union(*(_assigned(s) for s in sources)) if sources else set()
        expected = q.reads - given
        if defined != expected:
            problems.append(f"{q.name}: the answer cells define {sorted(defined)}, its tests read {sorted(expected)}")
        bare = [s for s in sources for node in ast.parse(s).body
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis]
        if bare:
            problems.append(f"{q.name}: a bare `...` line in its answer cells")
    return problems


# ---------------------------------------------------------------------- leaks


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)


def readable_text(name: str, data: bytes) -> dict[str, str]:
    """What a reader of a file sees, by member: notebook cells and outputs, HTML without its
    tags, every member of a zip; other files as text."""
    suffix = Path(name).suffix.lower()
    if suffix == ".zip":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return {f"{name}:{k}": v for member in zf.namelist() if not member.endswith("/")
                    for k, v in readable_text(member, zf.read(member)).items()}
    text = data.decode("utf-8", errors="replace")
    if suffix == ".ipynb":
        nb = nbformat.reads(text, as_version=4)
        parts = [cell.source for cell in nb.cells]
        parts += [str(out.get("text", "")) + str(out.get("data", {}).get("text/plain", ""))
                  for cell in nb.cells for out in cell.get("outputs", [])]
        text = "\n".join(parts)
    elif suffix in (".html", ".htm"):
        parser = _Text()
        parser.feed(text)
        text = "\n".join(parser.parts)
    return {name: text}


# files that cannot hold a solution as text (images, fonts, binary data): every other file of a
# folder is read, as text, a notebook, a web page or a zip
BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2", ".ttf", ".eot", ".otf",
                   ".pdf", ".pickle", ".doctree", ".inv", ".whl", ".gz", ".mo")


def readable_folder(folder: Path) -> list[tuple[str, str]]:
    """``(file or zip member, its text without whitespace)`` for every file under ``folder``
    but those of :data:`BINARY_SUFFIXES`: pages, notebooks, scripts, data, zips and their
    members, files without a suffix..."""
    texts = []
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file() and path.suffix.lower() not in BINARY_SUFFIXES:
            rel = path.relative_to(folder).as_posix()
            texts += [(member, squash(text)) for member, text in readable_text(rel, path.read_bytes()).items()]
    return texts


def find_leaks(pset: ProblemSet, folder: Path | list[tuple[str, str]], *, allowed: str = "") -> list[str]:
    """Every secret line of ``pset`` found in a file under ``folder`` (or in the texts of
    :func:`readable_folder`, read once for several sets), as ``file: line``."""
    secrets = sorted(pset.secret_lines(allowed))
    texts = readable_folder(folder) if isinstance(folder, (str, Path)) else folder
    return [f"{member}: {s}" for member, flat in texts for s in secrets if s in flat]


# ------------------------------------------------------------------- building

PUBLIC_COPY = "public"  # in a packaged build, the student folder as this repository publishes it


def grade_notebook(autograder_zip: Path, notebook: Path, *, seed: int | None = None, student: str | None = None,
                   out: Path | None = None) -> dict:
    """Grade ``notebook`` with a set's autograder zip as Gradescope would (its layout, its entry
    point), in this Python; return ``results.json`` (also copied into ``out``).

    ``seed`` overrides the zip's grading seed; ``student`` stands for the submitter's Gradescope
    id (per-student seeds).
    """
    with tempfile.TemporaryDirectory(prefix="ib-autograder-") as tmp:
        folder = Path(tmp)
        with zipfile.ZipFile(autograder_zip) as zf:
            zf.extractall(folder / "source", members=[n for n in zf.namelist() if not n.endswith(".whl")])
        (folder / "submission").mkdir()
        shutil.copy(notebook, folder / "submission" / Path(notebook).name)
        users = [{"id": student}] if student else []
        (folder / "submission_metadata.json").write_text(json.dumps({"users": users}), encoding="utf-8")
        results = homework_grader.grade(folder, seed=seed)
        if out is not None:
            Path(out).mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "results" / "results.json", Path(out) / "results.json")
    return results


def autograded_scores(results: dict) -> dict[str, tuple[float, float]]:
    """``{question: (score, max score)}`` of a results.json."""
    return {t["name"]: (t["score"], t["max_score"]) for t in results["tests"] if "max_score" in t}


def course_handout(result: Path, pset: ProblemSet, release: Release, grading: Grading, root: Path = ROOT) -> None:
    """Make ``result/student`` the course's hand-out: its set-up cell installs the ibcore of the
    autograder's wheel (its commit) and fetches the public tests from the course's hand-out URL.
    The student folder as this repository publishes it is kept in ``result/public``."""
    student = result / "student"
    shutil.rmtree(result / PUBLIC_COPY, ignore_errors=True)
    shutil.copytree(student, result / PUBLIC_COPY)
    notebook = student / f"{pset.name}.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    setup = next(c for c in nb.cells if "setup" in c.metadata.get("tags", []))
    url = f"{grading.handout_url.rstrip('/')}/{pset.name}/tests" if grading.handout_url else None
    setup.source = setup_cell_source(nbtools.load_config(root), pset, root, ibcore_ref=release.commit, tests_url=url)
    nbformat.write(nb, notebook)


def assign(path: Path, out: Path, *, run_tests: bool = True, wheel: Path | None = None, release: Release | None = None,
           grading: Grading | None = None, root: Path = ROOT) -> Path:
    """Run ``otter assign`` on one source; return ``out/<set>`` (``student/``, ``autograder/``).

    With ``wheel`` (an ibcore wheel, of ``release``), the autograder zip is made self-contained
    (:func:`package_autograder`) and ``student/`` becomes the course's hand-out
    (:func:`course_handout`); without, the zip stays otter's and ``student/`` is the copy that
    this repository publishes (the sites build the sets so). With ``run_tests`` (and a
    ``wheel``), the zip's grader grades the instructor notebook, which must score full marks.
    """
    from otter.assign import main as otter_assign

    name = Path(path).stem
    result = Path(out).resolve() / name
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / f"{name}.ipynb"
        nbformat.write(master_notebook(path, root), master)
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                otter_assign(str(master), str(result), no_run_tests=True, no_pdfs=True)
        except Exception as err:
            raise RuntimeError(f"otter assign failed on {path}:\n{log.getvalue()}") from err
    autograder = result / "autograder"
    for zipped in autograder.glob(f"{name}-autograder_*.zip"):  # otter stamps the name with the time
        zipped.replace(autograder / f"{name}-autograder.zip")
    (autograder / "environment.yml").unlink(missing_ok=True)  # otter's, replaced by the zip's set-up
    for notebook in (result / "student" / f"{name}.ipynb", autograder / f"{name}.ipynb"):
        nb = nbformat.read(notebook, as_version=4)
        _stable_ids(nb)
        if notebook.parent.name == "student":
            for cell in nb.cells:
                if cell.cell_type == "code" and "otter_answer_cell" in cell.metadata.get("tags", []):
                    cell.source = tidy_skeleton(cell.source)
        nbformat.write(nb, notebook)
    if wheel is not None:
        pset, grading = read_set(path), grading or Grading()
        release = release or ibcore_release(root)
        zipped = package_autograder(autograder, pset, wheel, release, grading, root)
        course_handout(result, pset, release, grading, root)
        if run_tests:
            scores = autograded_scores(grade_notebook(zipped, autograder / f"{name}.ipynb"))
            short = {q: s for q, s in scores.items() if s[0] != s[1]}
            if short or sorted(scores) != sorted(q.name for q in pset.autograded):
                raise RuntimeError(f"{name}: the instructor notebook does not score full marks: {short or scores}")
    return result


def build(out: Path = ROOT / DEFAULT_OUT, *, run_tests: bool = True, package: bool = True,
          grading: Grading | None = None, root: Path = ROOT) -> list[Path]:
    """Build every set into ``out``; return the set directories.

    With ``package``, an ibcore wheel is built from the commit that last changed ibcore into
    ``out`` and every autograder zip carries it (:func:`package_autograder`); each set draws its
    own grading seed unless ``grading.seed`` is given.
    """
    release = ibcore_release(root) if package else None
    wheel = build_wheel(Path(out) / ".wheel", root, release) if package else None
    return [assign(path, out, run_tests=run_tests, wheel=wheel, release=release, grading=grading, root=root)
            for path in sources(root)]


def _same_tree(a: Path, b: Path) -> bool:
    if not a.is_dir() or not b.is_dir():
        return False
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


def published_copy(built: Path, name: str) -> Path:
    """The student folder of a built set as this repository publishes it."""
    public = Path(built) / name / PUBLIC_COPY
    return public if public.is_dir() else Path(built) / name / "student"


def stale(built: Path, root: Path = ROOT) -> list[str]:
    """Sets whose committed student copy differs from the published student folder in ``built``."""
    names = {p.stem for p in sources(root)}
    committed = {p.name for p in (root / STUDENT_COPY).glob("*") if p.is_dir()}
    return sorted(name for name in names | committed
                  if not _same_tree(published_copy(built, name), root / STUDENT_COPY / name))


def sync(built: Path, root: Path = ROOT) -> list[str]:
    """Copy the published student folder of every set in ``built`` to ``student/homework/`` (drop
    old sets)."""
    written = stale(built, root)
    for name in written:
        target = root / STUDENT_COPY / name
        shutil.rmtree(target, ignore_errors=True)
        if published_copy(built, name).is_dir():
            shutil.copytree(published_copy(built, name), target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="otter assign every set into --out, with its autograder zip")
    b.add_argument("--out", type=Path, default=ROOT / DEFAULT_OUT)
    b.add_argument("--no-run-tests", action="store_true", help="skip grading the instructor notebooks")
    b.add_argument("--sync", action="store_true", help="then refresh the committed student copies")
    b.add_argument("--grading-seed", type=int, help="the zips' grading seed (default: drawn at random per set)")
    b.add_argument("--per-student", action="store_true",
                   help="grade each submitter with a seed derived from the grading seed and their Gradescope id")
    b.add_argument("--handout-url", default=os.environ.get("IB_HANDOUT_URL") or None,
                   help="where the course publishes each set's hand-out, <URL>/<set>/tests/ holding the public "
                        "tests (default: $IB_HANDOUT_URL, else this repository's student/homework/)")
    sub.add_parser("sync", help="refresh student/homework/ from a fresh build (no grading)")
    sub.add_parser("check", help="fail if student/homework/ differs from a fresh build")
    g = sub.add_parser("grade", help="grade a submission with a set's autograder zip, as Gradescope does")
    g.add_argument("-a", "--autograder", type=Path, required=True, help="<set>-autograder.zip")
    g.add_argument("submission", type=Path)
    g.add_argument("-o", "--out", type=Path, default=Path("."), help="where results.json goes")
    g.add_argument("--student", help="the submitter's Gradescope id, for per-student seeds")
    w = sub.add_parser("written", help="print the written answers of a submission, with their rubrics")
    w.add_argument("autograder", type=Path, help="a set's autograder folder (_build/homework/<set>/autograder)")
    w.add_argument("submission", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        grading = Grading(args.grading_seed, args.per_student, args.handout_url)
        for path in build(args.out, run_tests=not args.no_run_tests, grading=grading):
            print(f"built {path}")
        if args.sync:
            for name in sync(args.out):
                print(f"wrote {STUDENT_COPY / name}")
        return 0
    if args.command == "grade":
        results = grade_notebook(args.autograder, args.submission, student=args.student, out=args.out)
        for name, (score, possible) in autograded_scores(results).items():
            print(f"{name}: {score:g} / {possible:g}")
        print(f"autograded total: {sum(s for s, _ in autograded_scores(results).values()):g} / "
              f"{sum(p for _, p in autograded_scores(results).values()):g} (results.json in {args.out})")
        return 0
    if args.command == "written":
        return homework_grader.main(["--written", str(args.submission), str(args.autograder / "written.json")])
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp), run_tests=False, package=False)
        if args.command == "sync":
            for name in sync(Path(tmp)):
                print(f"wrote {STUDENT_COPY / name}")
            return 0
        outdated = stale(Path(tmp))
        for name in outdated:
            print(f"{STUDENT_COPY / name} is out of date with {SOURCES}/{name}.md; run `make homework`")
    return 1 if outdated else 0


if __name__ == "__main__":
    sys.exit(main())
