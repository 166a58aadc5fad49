"""The problem-set sources: what every set must contain, and the cells the build adds."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools import homework as hw
from tools import homework_grader
from tools import notebooks as nbtools

from .conftest import IDS, SETS

CONFIG = nbtools.load_config()


def test_there_is_a_problem_set():
    assert SETS, f"no problem-set source in {hw.SOURCES}/"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_set_mixes_the_three_kinds_of_question(path):
    pset = hw.read_set(path)
    assert len(pset.questions) >= 8, f"{path.name}: {len(pset.questions)} questions, the sets have 8 or more"
    assert len({q.name for q in pset.questions}) == len(pset.questions), "question names must be unique"
    assert any(q.public_tests for q in pset.autograded), "some autograded question needs public tests"
    assert any(q.hidden_tests for q in pset.autograded), "some autograded question needs hidden tests"
    assert pset.manual, "the sets have written (manually graded) questions too"
    for q in pset.autograded:
        # every autograded question gives feedback while students work
        assert q.public_tests, f"{q.name} has no public test: grader.check would tell the student nothing"
        assert q.points > 0
    for q in pset.manual:
        assert any("Model answer" in line for line in q.secret), f"{q.name}: a written question needs a model answer"
        assert not q.public_tests and not q.hidden_tests


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_every_question_says_its_points_time_and_level(path):
    """Students see each question's points, a time estimate and a level under its title."""
    pset = hw.read_set(path)
    master = hw.master_notebook(path)
    titles = [c.source for c in master.cells if c.cell_type == "markdown" and c.source.startswith("## Question")]
    assert len(titles) == len(pset.questions)
    for q, title in zip(pset.questions, titles):
        assert q.minutes > 0 and q.level in hw.LEVELS
        assert title.splitlines()[2] == q.badge, f"{q.name}: the title must be followed by {q.badge!r}"
        assert f"{q.points:g} point" in q.badge and f"{q.minutes} minutes" in q.badge and q.level in q.badge


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_written_questions_have_rubrics_with_partial_credit(path):
    pset = hw.read_set(path)
    for q in pset.manual:
        assert q.rubric, f"{q.name}: the model answer needs a **Rubric** list"
        assert sum(item.points for item in q.rubric) == q.points, (
            f"{q.name}: the rubric's items must add up to the question's {q.points:g} points")
        assert all(item.partial for item in q.rubric), f"{q.name}: every rubric item needs partial credit"
        for item in q.rubric:
            assert all(0 < points < item.points for points, _ in item.partial), (
                f"{q.name}: partial credit must lie strictly between 0 and the item's points")


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_mistakes_and_shortcuts_are_declared(path):
    """CI grades them (test_grading.py, test_environment.py): one plausible mistake per
    autograded question, keeping part of its points, and shortcuts that skip a question's work."""
    pset = hw.read_set(path)
    names = {q.name for q in pset.autograded}
    assert sorted(m.question for m in pset.mistakes) == sorted(names), "one mistake per autograded question"
    assert pset.shortcuts, f"{path.name}: declare the shortcuts a student could take (ib_homework.shortcuts)"
    assert 0 <= pset.no_work_max < pset.points
    for s in [*pset.mistakes, *pset.shortcuts]:
        assert s.question in names and s.lines
        for text in s.lines:
            hw._head(ast.parse(text).body[0])  # an assignment, a return or a def
    assert all(0 <= m.keeps < pset.question(m.question).points and m.message for m in pset.mistakes)
    assert all(0 < s.loses <= pset.question(s.question).points for s in pset.shortcuts)


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_numpy_only_functions_are_functions_that_the_tests_read(path):
    """The autograder runs the functions that a question declares NumPy only without ibcore: each
    is a function of the question's answer cells that its tests read, and the question says so."""
    pset = hw.read_set(path)
    declared = [q for q in pset.autograded if q.numpy_only]
    assert declared, "some question asks for a function with NumPy only"
    for q in declared:
        solution = "\n".join(q.solution_lines + q.public)
        for name in q.numpy_only:
            assert name in q.reads and f"def {name}(" in solution, f"{q.name}: {name} is not a function it asks for"


def test_sets_follow_the_book():
    """The prologue's set first, then Part I's, then Part II's: the order of _toc.yml."""
    toc = [p.relative_to(nbtools.ROOT).with_suffix("").as_posix() for p in nbtools.toc_files()]
    firsts = [toc.index(hw.read_set(path).chapters[0]) for path in SETS]
    assert firsts == sorted(firsts)
    assert [p.stem for p in SETS][:1] == ["prologue"]


def test_skeleton_check_finds_missing_extra_and_bare_names():
    pset = hw.read_set(SETS[0])
    q = pset.autograded[0]
    given = nbformat.v4.new_code_cell("import numpy as np\nX = y = lr = n = 1")

    def notebook(answer: str):
        cell = nbformat.v4.new_code_cell(answer)
        cell.metadata["tags"] = ["otter_answer_cell"]
        return nbformat.v4.new_notebook(cells=[given, cell, nbformat.v4.new_code_cell(f'grader.check("{q.name}")')])

    needed = sorted(q.reads - {"np", "X", "y", "lr", "n"})
    right = "\n".join(f"{name} = ..." for name in needed)
    problems = [p for p in hw.skeleton_problems(pset, notebook(right)) if p.startswith(f"{q.name}:")]
    assert problems == []
    assert [p for p in hw.skeleton_problems(pset, notebook(right + "\nextra = ...")) if p.startswith(f"{q.name}:")]
    assert [p for p in hw.skeleton_problems(pset, notebook(right + "\n...")) if "bare" in p]
    if len(needed) > 0:
        assert [p for p in hw.skeleton_problems(pset, notebook("pass")) if p.startswith(f"{q.name}:")]


def test_tidy_skeleton_drops_the_blank_lines_of_removed_solutions():
    assert hw.tidy_skeleton("a = ...\n\n\nb = ...\n\n") == "a = ...\nb = ..."
    kept = "a = ...\n\n\ndef f(x):\n    return ...\n\n\nb = ..."
    assert hw.tidy_skeleton(kept) == kept


def test_written_answers_are_read_from_the_submission():
    """The autograder's entry point pairs otter's BEGIN/END QUESTION groups with written.json."""
    cells = [nbformat.v4.new_markdown_cell("# Set"),
             nbformat.v4.new_markdown_cell("<!-- BEGIN QUESTION -->\n\n## Question 2 (written)"),
             nbformat.v4.new_markdown_cell("My derivation: $a = b$."),
             nbformat.v4.new_code_cell("print(1)"),
             nbformat.v4.new_markdown_cell("<!-- END QUESTION -->\n\n## Question 3"),
             nbformat.v4.new_markdown_cell("<!-- BEGIN QUESTION -->\n\n## Question 4 (written)"),
             nbformat.v4.new_markdown_cell(homework_grader.PLACEHOLDER),
             nbformat.v4.new_markdown_cell("<!-- END QUESTION -->")]
    questions = [{"name": "q2", "title": "Question 2", "points": 2,
                  "rubric": [{"points": 2, "text": "the identity", "partial": [{"points": 1, "text": "half"}]}]},
                 {"name": "q4", "title": "Question 4", "points": 1, "rubric": []}]
    entries = homework_grader.written_entries(nbformat.v4.new_notebook(cells=cells), questions)
    assert [e["name"] for e in entries] == ["q2 (written, graded by hand)", "q4 (written, graded by hand)"]
    assert all(e["visibility"] == "hidden" and e["output_format"] == "md" for e in entries)
    assert "My derivation: $a = b$." in entries[0]["output"] and "```python\nprint(1)\n```" in entries[0]["output"]
    assert "**2**: the identity" in entries[0]["output"] and "**1** (partial): half" in entries[0]["output"]
    assert "no answer" in entries[1]["output"]


def test_rubric_parsing():
    text = "**Model answer.** x\n\n**Rubric** (2 points):\n\n- **1**: a\n  - **0.5**: half a\n- **1**: b\n"
    items = hw.parse_rubric(text)
    assert [(i.points, i.text, i.partial) for i in items] == [(1.0, "a", [(0.5, "half a")]), (1.0, "b", [])]


def test_grader_requirements_are_the_book_pins():
    requirements = hw.grader_requirements()
    assert requirements[0] == hw.requirement("otter-grader").replace("otter-grader", "otter-grader[grading]")
    for name in ("numpy", "scipy", "matplotlib", "ipywidgets", "joblib", "tqdm"):
        assert hw.requirement(name) in requirements


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_set_names_chapters_of_the_book(path):
    pset = hw.read_set(path)
    toc = {p.relative_to(nbtools.ROOT).with_suffix("").as_posix() for p in nbtools.toc_files()}
    assert pset.chapters and set(pset.chapters) <= toc, f"{path.name}: chapters {pset.chapters} not all in _toc.yml"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_source_config_only_names_the_set(path):
    """One source of truth: the house settings live in tools/homework.py, not in each set."""
    master = hw.master_notebook(path)
    config = next(c for c in master.cells if c.cell_type == "raw" and c.source.startswith("# ASSIGNMENT CONFIG"))
    assert f"name: {path.stem}" in config.source
    assert "requirements" not in config.source, "the grader's environment is the zip's own (package_autograder)"
    text = path.read_text(encoding="utf-8")
    block = text.split("# ASSIGNMENT CONFIG", 1)[1].split("```", 1)[0]
    assert block.strip() == f"name: {path.stem}", f"{path.name}: the ASSIGNMENT CONFIG holds only `name:`"


@pytest.mark.parametrize("path", SETS, ids=IDS)
def test_first_code_cell_is_the_chapters_setup_cell_plus_otter(path):
    master = hw.master_notebook(path)
    code = [c for c in master.cells if c.cell_type == "code"]
    setup = code[0].source
    assert setup.startswith(nbtools.setup_cell_source(CONFIG)), "reuse the chapters' set-up cell, do not copy it"
    assert hw.requirement("otter-grader") in setup, "install the otter-grader of requirements.txt"
    assert "otter_ignore" in code[0].metadata["tags"], "the autograder must not run the installs"
    assert code[1].source == hw.INIT_SOURCE
    pset = hw.read_set(path)
    public = [q.name for q in pset.autograded if q.public_tests]
    assert repr(public) in setup, "the set-up cell fetches exactly the public tests"


def test_setup_cell_fetches_the_public_tests_when_opened_alone(tmp_path):
    """The Colab path: a notebook without its tests folder fetches them from the repository."""
    path = SETS[0]
    config = nbtools.load_config()
    config["repository"]["url"] = nbtools.ROOT.as_uri()  # the checkout stands in for GitHub
    source = hw.setup_cell_source(config, hw.read_set(path))
    run = subprocess.run([sys.executable, "-c", source], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(nbtools.ROOT)})
    assert run.returncode == 0, run.stderr
    assert f"otter-grader {hw.requirement('otter-grader').split('==')[1]}" in run.stdout
    committed = nbtools.ROOT / hw.STUDENT_COPY / path.stem / "tests"
    fetched = sorted(p.name for p in (tmp_path / "tests").iterdir())
    assert fetched == sorted(p.name for p in committed.iterdir())
    for name in fetched:
        assert (tmp_path / "tests" / name).read_bytes() == (committed / name).read_bytes()


def test_leak_detector_finds_a_solution_line_and_nothing_in_clean_text(tmp_path):
    pset = hw.read_set(SETS[0])
    secrets = sorted(pset.secret_lines())
    assert secrets, "a set with solutions must have secret lines"
    clean = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(line) for q in pset.questions
                                            for line in q.public + pset.preamble])
    nbformat.write(clean, tmp_path / "clean.ipynb")
    assert hw.find_leaks(pset, tmp_path) == []
    leaky = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\n  " + secrets[0] + "  ")])
    nbformat.write(leaky, tmp_path / "leaky.ipynb")
    assert hw.find_leaks(pset, tmp_path) == [f"leaky.ipynb: {secrets[0]}"]
    # the HTML of a page, and a zip, are read too
    (tmp_path / "leaky.ipynb").unlink()
    (tmp_path / "page.html").write_text(f"<p><span>{secrets[-1][:6]}</span>{secrets[-1][6:]}</p>")
    assert hw.find_leaks(pset, tmp_path) == [f"page.html: {secrets[-1]}"]


def test_repository_file_url():
    config = {"repository": {"url": "https://github.com/o/r", "branch": "main"}}
    assert hw.repository_file_url(config, "a/b.py") == "https://raw.githubusercontent.com/o/r/main/a/b.py"
    config = {"repository": {"url": "file:///tmp/clone"}}
    assert hw.repository_file_url(config, "a/b.py") == "file:///tmp/clone/a/b.py"


def test_pins_come_from_requirements():
    assert hw.requirement("otter-grader").startswith("otter-grader==")
    with pytest.raises(KeyError):
        hw.requirement("no-such-package")


def test_student_copy_has_only_current_sets():
    committed = {p.name for p in (nbtools.ROOT / hw.STUDENT_COPY).iterdir() if p.is_dir()}
    assert committed == set(IDS), "student/homework/ must hold exactly the sets of homework/ (run `make homework`)"
    for name in committed:
        assert (nbtools.ROOT / hw.STUDENT_COPY / name / f"{name}.ipynb").exists()
        assert Path(nbtools.ROOT / hw.STUDENT_COPY / name / "tests").is_dir()
