"""The problem-set sources: what every set must contain, and the cells the build adds."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tools import homework as hw
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
