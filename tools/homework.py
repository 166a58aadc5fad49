"""Build the problem sets with otter-grader, from their MyST sources in ``homework/``.

One source per set: ``homework/<set>.md`` is a MyST notebook written in otter-assign's
master format (``otter`` fenced blocks for the assignment config, questions, solutions and
tests; see the page "Teaching with this book"). Its assignment config only names the set;
the house settings (:data:`HOUSE_CONFIG`) are added here, so every set is built alike.

For each set this module

* builds the **master notebook**: the source as a notebook, with a banner defining the
  book's MathJax macros, the chapters' set-up cell (``tools.notebooks.setup_cell_source``)
  extended to install otter-grader and to fetch the public tests where they are missing
  (Colab opens the notebook alone), otter's init cell, and a submission cell;
* runs ``otter assign`` on it, which writes otter's layout under ``_build/homework/<set>/``:
  ``student/`` (notebook without solutions, public tests) and ``autograder/`` (the
  instructor notebook with solutions, all tests, and ``<set>-autograder.zip`` for
  Gradescope or ``otter run``);
* keeps a copy of ``student/`` in the repository under ``student/homework/<set>/``, which
  the Colab and Binder links open.

Usage::

    python -m tools.homework build [--out DIR] [--no-run-tests] [--sync]
    python -m tools.homework sync     # refresh student/homework/ (no otter test run)
    python -m tools.homework check    # exit 1 if student/homework/ is stale
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import filecmp
import io
import re
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import jupytext
import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import notebooks as nbtools  # noqa: E402

ROOT = nbtools.ROOT
SOURCES = "homework"
STUDENT_COPY = Path("student") / "homework"
DEFAULT_OUT = Path("_build") / "homework"

# Settings every set shares; a source's ASSIGNMENT CONFIG adds its `name` (and nothing else).
HOUSE_CONFIG = {
    # our set-up cell must run before otter is imported (Colab lacks it), so we write the init cell
    "init_cell": False,
    # otter's export cell raises on Colab; ours (SUBMIT_SOURCE) tells Colab users what to do, and
    # comes after our check-all cell
    "check_all_cell": False,
    "export_cell": False,
    # test files, not notebook metadata: Colab keeps no notebook on disk for otter to read;
    # exception-based tests, so that a failing assert shows its message to the student
    "tests": {"files": True, "ok_format": False},
    # hidden results are shown once the instructor publishes the grades
    "generate": {"pdf": False, "show_stdout": True, "show_hidden": True},
    "python_version": "3.11",  # Gradescope's image runs the Python that CI tests with
    "solutions_pdf": False,
    "template_pdf": False,
}

INIT_SOURCE = "# Otter checks your answers: grader.check(\"q1\") runs the public tests of question q1.\n" \
              "import otter\ngrader = otter.Notebook()"
SUBMIT_MARKDOWN = (
    "## Check and submit\n\n"
    "Run every cell from the top, then the first cell below: it reruns the public tests of every "
    "question. Save the notebook and run the last cell: it writes a zip file to upload to Gradescope. "
    "On Colab, use *File → Download → Download .ipynb* instead and upload that file.")
CHECK_ALL_SOURCE = "grader.check_all()"
SUBMIT_SOURCE = (
    "import sys\n"
    "if \"google.colab\" in sys.modules:\n"
    "    print(\"On Colab: File > Download > Download .ipynb, then upload the notebook to Gradescope.\")\n"
    "else:\n"
    "    grader.export(pdf=False)")


# ------------------------------------------------------------------ the sources


def sources(root: Path = ROOT) -> list[Path]:
    """The problem-set sources, ``homework/*.md`` (MyST notebooks), sorted by name."""
    return sorted(p for p in (root / SOURCES).glob("*.md") if nbtools.is_myst_notebook(p))


@dataclass
class Question:
    """One question of a set, as written in its source."""

    name: str
    points: float
    manual: bool
    public_tests: list[str] = field(default_factory=list)  # test function names
    hidden_tests: list[str] = field(default_factory=list)
    solution_lines: list[str] = field(default_factory=list)  # solutions and model answers
    hidden_test_code: list[str] = field(default_factory=list)  # the hidden test functions
    public: list[str] = field(default_factory=list)  # every line a student sees

    @property
    def hidden_test_lines(self) -> list[str]:
        """The hidden tests' lines as written, and as otter writes them (``ast.unparse``)."""
        return [line for code in self.hidden_test_code for line in code.splitlines() + _unparsed(code)]

    @property
    def secret(self) -> list[str]:
        return self.solution_lines + self.hidden_test_lines


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
    """A line without whitespace or a trailing ``# SOLUTION`` marker: what a leak would contain."""
    line = re.sub(r"#\s*(BEGIN |END )?SOLUTION.*$", "", line)
    return squash(line)


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
        if question is None:
            preamble += lines
        elif BlockType.TESTS in blocks:
            config, body = _test_config(cell.source)
            test = next(n.name for n in ast.parse(body).body if isinstance(n, ast.FunctionDef))
            if config.get("hidden", False):
                question.hidden_tests.append(test)
                question.hidden_test_code.append(body)
            else:
                question.public_tests.append(test)
                question.public += body.splitlines() + _unparsed(body)
        elif BlockType.SOLUTION in blocks:
            shown = replace_solutions(lines, "python") if cell.cell_type == "code" else []
            question.public += shown
            question.solution_lines += [line for line in lines if line not in shown]
        else:
            question.public += lines
    if name != path.stem:
        raise ValueError(f"{path}: the ASSIGNMENT CONFIG must say `name: {path.stem}` (got {name!r})")
    if title is None:
        raise ValueError(f"{path}: no '# Title' heading")
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


def setup_cell_source(config: dict, pset: ProblemSet, root: Path = ROOT) -> str:
    """The set's first code cell: the chapters' set-up cell, then otter-grader and the public tests."""
    tests_url = repository_file_url(config, f"{STUDENT_COPY.as_posix()}/{pset.name}/tests")
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


def assignment_config(pset: ProblemSet, config: dict, root: Path = ROOT) -> dict:
    """The set's full otter-assign config: its name, the house settings, the grader's requirements."""
    url = config["repository"]["url"].rstrip("/")
    ref = config.get("ibcore", {}).get("install_ref", config["repository"].get("branch", "main"))
    # Gradescope's image has no git: install ibcore from the release archive, with the book's numerics
    archive = f"{url}/archive/{ref}.zip" if url.startswith("https://github.com/") else f"git+{url}@{ref}"
    return {"name": pset.name, **copy.deepcopy(HOUSE_CONFIG),
            "requirements": [requirement("numpy", root), requirement("scipy", root), f"ibcore @ {archive}"]}


def master_notebook(path: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The otter master notebook of a source, with the generated cells in place."""
    from otter.assign.blocks import extract_all_fenced_otter_cells, is_assignment_config_cell

    pset = read_set(path)
    config = nbtools.load_config(root)
    nb = jupytext.reads(Path(path).read_text(encoding="utf-8"), fmt="md:myst")
    cells = extract_all_fenced_otter_cells(nb.cells)
    for i, cell in enumerate(cells):
        if is_assignment_config_cell(cell):
            cells[i] = nbformat.v4.new_raw_cell(
                "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(assignment_config(pset, config, root), sort_keys=False))
    title = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith("# "))
    banner = nbformat.v4.new_markdown_cell(
        f"*{config['title']}*, problem set generated from `{SOURCES}/{Path(path).name}`. Run the cells from "
        "the top: the first code cell installs what the notebook needs when it is missing.\n\n"
        + nbtools.macros_cell_source(config))
    setup = nbformat.v4.new_code_cell(setup_cell_source(config, pset, root))
    setup.metadata["tags"] = ["setup", "otter_ignore"]  # the autograder's environment has both already
    init = nbformat.v4.new_code_cell(INIT_SOURCE)
    cells[title + 1:title + 1] = [banner, setup, init]
    cells += [nbformat.v4.new_markdown_cell(SUBMIT_MARKDOWN), nbformat.v4.new_code_cell(CHECK_ALL_SOURCE),
              nbformat.v4.new_code_cell(SUBMIT_SOURCE)]
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                    "language_info": {"name": "python"}}
    _stable_ids(out)
    return out


def _stable_ids(nb: nbformat.NotebookNode) -> None:
    """Deterministic cell ids, so that a rebuild of an unchanged set changes no file."""
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:03d}"


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


TEXT_SUFFIXES = (".ipynb", ".py", ".md", ".txt", ".json", ".yml", ".html", ".zip", ".sh")


def find_leaks(pset: ProblemSet, folder: Path, *, allowed: str = "") -> list[str]:
    """Every secret line of ``pset`` found in a readable file under ``folder``, as ``file: line``."""
    secrets = pset.secret_lines(allowed)
    found = []
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file() and path.suffix.lower() in TEXT_SUFFIXES:
            rel = path.relative_to(folder).as_posix()
            for member, text in readable_text(rel, path.read_bytes()).items():
                flat = squash(text)
                found += [f"{member}: {s}" for s in sorted(secrets) if s in flat]
    return found


# ------------------------------------------------------------------- building


def assign(path: Path, out: Path, *, run_tests: bool = True, root: Path = ROOT) -> Path:
    """Run ``otter assign`` on one source; return ``out/<set>`` (``student/``, ``autograder/``).

    With ``run_tests``, otter grades the instructor notebook against all tests and fails
    unless it scores full marks.
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
                otter_assign(str(master), str(result), no_run_tests=not run_tests, no_pdfs=True)
        except Exception as err:
            raise RuntimeError(f"otter assign failed on {path}:\n{log.getvalue()}") from err
    autograder = result / "autograder"
    for zipped in autograder.glob(f"{name}-autograder_*.zip"):  # otter stamps the name with the time
        zipped.replace(autograder / f"{name}-autograder.zip")
    for notebook in (result / "student" / f"{name}.ipynb", autograder / f"{name}.ipynb"):
        nb = nbformat.read(notebook, as_version=4)
        _stable_ids(nb)
        nbformat.write(nb, notebook)
    return result


def build(out: Path = ROOT / DEFAULT_OUT, *, run_tests: bool = True, root: Path = ROOT) -> list[Path]:
    """Build every set into ``out``; return the set directories."""
    return [assign(path, out, run_tests=run_tests, root=root) for path in sources(root)]


def _same_tree(a: Path, b: Path) -> bool:
    if not a.is_dir() or not b.is_dir():
        return False
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


def stale(built: Path, root: Path = ROOT) -> list[str]:
    """Sets whose committed student copy differs from the student view in ``built``."""
    names = {p.stem for p in sources(root)}
    committed = {p.name for p in (root / STUDENT_COPY).glob("*") if p.is_dir()}
    return sorted(name for name in names | committed
                  if not _same_tree(Path(built) / name / "student", root / STUDENT_COPY / name))


def sync(built: Path, root: Path = ROOT) -> list[str]:
    """Copy the student view of every set in ``built`` to ``student/homework/`` (drop old sets)."""
    written = stale(built, root)
    for name in written:
        target = root / STUDENT_COPY / name
        shutil.rmtree(target, ignore_errors=True)
        if (Path(built) / name / "student").is_dir():
            shutil.copytree(Path(built) / name / "student", target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="otter assign every set into --out")
    b.add_argument("--out", type=Path, default=ROOT / DEFAULT_OUT)
    b.add_argument("--no-run-tests", action="store_true", help="skip otter's grading of the instructor notebook")
    b.add_argument("--sync", action="store_true", help="then refresh the committed student copies")
    sub.add_parser("sync", help="refresh student/homework/ from a fresh build (no otter test run)")
    sub.add_parser("check", help="fail if student/homework/ differs from a fresh build")
    args = parser.parse_args(argv)
    if args.command == "build":
        for path in build(args.out, run_tests=not args.no_run_tests):
            print(f"built {path}")
        if args.sync:
            for name in sync(args.out):
                print(f"wrote {STUDENT_COPY / name}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp), run_tests=False)
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
