"""The grading environment built from the autograder zip alone, as Gradescope builds it.

For each set: a fresh venv (standing for the Python 3.11 that Gradescope's image gets from
Miniforge), the zip unpacked into ``autograder/source``, its ``setup.sh`` run with nothing else
(no project file, no project package on the path), then ``run_autograder`` (otter's autograder
entry point, through the zip's ``run_otter.py``) for each submission, as Gradescope runs it:

* the instructor notebook scores full marks (the set's own seed; test_grading.py tries others);
* the student notebook as handed out scores 0, every failure in the tests' own words;
* students see the public tests only: hidden tests stay hidden, also after publication;
* the written answers reach the graders, with each question's points and rubric.

The venv with the zip's pinned packages is kept in the cache (``$IBCORE_CACHE/grader-venv``,
default ``~/.cache/ibcore``), keyed on the zip's requirements, constraints and set-up, so that
only a change of pins costs a full install; ``setup.sh`` runs again for every set all the
same (it reinstalls the zip's ibcore wheel). That full install skips pip's byte-compilation
(``PIP_COMPILE=0``; on Gradescope, setup.sh compiles as usual): Python compiles only the
modules that grading imports (again in each process where ``PYTHONDONTWRITEBYTECODE`` is set,
and still cheaper: measured in benchmarks/README.md). The grading times go to
``$IB_GRADING_TIMES`` (``make homework-grader`` prints them).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from packaging.utils import canonicalize_name

from tools import homework as hw

from . import support
from .conftest import IDS, SETS

CACHE = Path(os.environ.get("IBCORE_CACHE", Path.home() / ".cache" / "ibcore")) / "grader-venv"
CACHE_FORMAT = "2"  # bump when the way the venv is built changes


def clean_environment(python: Path | None = None) -> dict[str, str]:
    """This process's environment without the project: no venv, no Python or Jupyter settings,
    and only the grading venv's folder added to the system's PATH."""
    ours = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "IBCORE_", "MPLBACKEND", "IB_"))}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != ours]
    env["PATH"] = os.pathsep.join(([str(python.parent)] if python else []) + path)
    return env


def unpack(autograder: Path, folder: Path) -> Path:
    """Gradescope's layout: the zip in ``source/``, its ``run_autograder`` copied above it."""
    shutil.rmtree(folder, ignore_errors=True)
    for sub in ("source", "submission", "results"):
        (folder / sub).mkdir(parents=True)
    with zipfile.ZipFile(autograder) as zf:
        zf.extractall(folder / "source")
    for name in ("setup.sh", "run_autograder"):
        (folder / "source" / name).chmod(0o755)
    shutil.copy(folder / "source" / "run_autograder", folder / "run_autograder")
    return folder


def run_setup(folder: Path, python: Path, **env: str) -> None:
    run = subprocess.run(["bash", str(folder / "source" / "setup.sh")], cwd=folder / "source",
                         env={**clean_environment(), "GRADER_PYTHON": str(python), **env},
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, f"setup.sh failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"


def cache_key(autograder: Path) -> str:
    with zipfile.ZipFile(autograder) as zf:
        h = hashlib.sha256(b"".join(zf.read(n) for n in ("requirements.txt", "constraints.txt", "setup.sh")))
    h.update(f"{sys.version_info[:3]} {CACHE_FORMAT}".encode())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def grader_python(built, tmp_path_factory):
    """The cached venv of the zips' pins, locked for this module (setup.sh reinstalls ibcore into it)."""
    zips = [support.paths(built, p.stem)[2] for p in SETS]
    keys = {cache_key(z) for z in zips}
    assert len(keys) == 1, "every set's zip must have the same requirements, constraints and set-up"
    key = keys.pop()
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another checkout may build or use the same venv
        venv_dir = CACHE / key
        python = venv_dir / "bin" / "python"
        if not (venv_dir / ".complete").exists():
            shutil.rmtree(venv_dir, ignore_errors=True)
            base = getattr(sys, "_base_executable", sys.executable)
            subprocess.run([base, "-m", "venv", str(venv_dir)], check=True, env=clean_environment())
            with support.Clock() as clock:
                # PIP_COMPILE=0: pip would byte-compile every module it installs (44-59 s of
                # install against 31-35 s without, measured); Python compiles what grading imports
                run_setup(unpack(zips[0], tmp_path_factory.mktemp("first")), python, PIP_COMPILE="0")
            (venv_dir / ".complete").write_text(f"built in {clock.wall:.0f} s from {zips[0].name}\n")
            report(f"grading environment: fresh venv, setup.sh installed the pins in {clock.wall:.0f} s "
                   f"({clock.cpu:.0f} s CPU)")
        yield python


def report(line: str) -> None:
    print(line)
    if target := os.environ.get("IB_GRADING_TIMES"):
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def grade(folder: Path, submission: Path, python: Path) -> tuple[dict, support.Clock]:
    """One submission through ``run_autograder``, as Gradescope runs it: results.json and times."""
    for sub in ("submission", "results"):
        shutil.rmtree(folder / sub)
        (folder / sub).mkdir()
    shutil.copy(submission, folder / "submission" / submission.name)
    with support.Clock() as clock:
        run = subprocess.run([str(folder / "run_autograder")], cwd=folder, env=clean_environment(python),
                             capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"run_autograder failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    return json.loads((folder / "results" / "results.json").read_text()), clock


@pytest.fixture(scope="module", params=SETS, ids=IDS)
def graded(request, built, grader_python, tmp_path_factory):
    """A set's instructor and student notebooks graded in its environment built from the zip."""
    path = request.param
    pset = hw.read_set(path)
    instructor, student, autograder = support.paths(built, pset.name)
    folder = unpack(autograder, tmp_path_factory.mktemp(pset.name) / "autograder")
    with support.Clock() as clock:
        run_setup(folder, grader_python)
    report(f"{pset.name}: setup.sh on the cached venv {clock.wall:.1f} s ({clock.cpu:.1f} s CPU)")
    frozen = subprocess.run([str(grader_python), "-m", "pip", "freeze"], capture_output=True, text=True,
                            env=clean_environment(grader_python), check=True).stdout.splitlines()
    out = {"pset": pset, "freeze": frozen, "zip": autograder}
    for role, notebook in (("instructor", instructor), ("student", student)):
        results, clock = grade(folder, notebook, grader_python)
        out[role] = results
        report(f"{pset.name}: the {role} notebook graded in {clock.wall:.1f} s ({clock.cpu:.1f} s CPU), "
               f"{sum(s for s, _, _ in support.scores(results).values()):g}/{pset.points - sum(q.points for q in pset.manual):g}")
    return out


def test_the_environment_holds_the_pins_and_this_ibcore(graded):
    def pin(line: str) -> tuple[str, str]:
        name, version = line.split("==")
        return canonicalize_name(name), version

    with zipfile.ZipFile(graded["zip"]) as zf:
        pins = {pin(line) for line in zf.read("constraints.txt").decode().splitlines()
                if line and not line.startswith("#")}
    installed = {pin(line) for line in graded["freeze"] if not line.lower().startswith("ibcore")}
    assert installed <= pins, f"packages outside the zip's pins: {sorted(installed - pins)}"
    assert any(line.lower().startswith("ibcore @ file:") for line in graded["freeze"]), (
        "ibcore must come from the zip's wheel")


def test_instructor_notebook_scores_full_marks(graded):
    pset, scores = graded["pset"], support.scores(graded["instructor"])
    assert sorted(scores) == sorted(q.name for q in pset.autograded)
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        assert possible == q.points and score == possible, f"{q.name}: {score}/{possible}\n{output}"


def test_untouched_notebook_scores_zero_in_readable_words(graded):
    pset, scores = graded["pset"], support.scores(graded["student"])
    for q in pset.autograded:
        score, _, output = scores[q.name]
        assert score == 0, f"{q.name} scores {score} with `...` as the answer"
        assert len(support.failures(output)) == len(q.public_tests) + len(q.hidden_tests)
        bad = support.unreadable(q.name, output)
        assert not bad, f"{q.name}: failures that are not the tests' messages:\n" + "\n".join(bad)


def test_hidden_tests_stay_hidden(graded):
    """Students see the public tests' summary; every per-question result (hidden tests' messages
    included) is visible to the course staff only, also once the grades are published."""
    pset = graded["pset"]
    for results in (graded["instructor"], graded["student"]):
        visible = [t for t in results["tests"] if t.get("visibility") != "hidden"]
        assert [t["name"] for t in visible] == ["Public Tests"], [t["name"] for t in visible]
        assert results.get("stdout_visibility", "hidden") == "hidden"
    # the untouched notebook fails every test: the staff's entries show them all, the students'
    # summary the public ones only
    summary = [t for t in graded["student"]["tests"] if t["name"] == "Public Tests"][0]["output"]
    staff = [f for q in pset.autograded for f in support.failures(support.scores(graded["student"])[q.name][2])]
    assert len(staff) == sum(len(q.public_tests) + len(q.hidden_tests) for q in pset.autograded)
    assert len(support.failures(summary)) == sum(len(q.public_tests) for q in pset.autograded)


def test_written_answers_reach_the_graders_with_their_rubrics(graded):
    pset = graded["pset"]
    instructor = nbformat.read(support.paths(Path(graded["zip"]).parents[2], pset.name)[0], as_version=4)
    for role, results in (("instructor", graded["instructor"]), ("student", graded["student"])):
        written = [t for t in results["tests"] if t["name"].endswith("(written, graded by hand)")]
        assert [t["name"].split()[0] for t in written] == [q.name for q in pset.manual]
        for entry, q in zip(written, pset.manual):
            assert entry["visibility"] == "hidden" and entry["output_format"] == "md"
            assert f"{q.points:g} points" in entry["output"]
            for item in q.rubric:
                assert item.text in entry["output"] and all(text in entry["output"] for _, text in item.partial)
            if role == "student":
                assert "no answer" in entry["output"]
            else:  # the instructor notebook's answers are the model answers
                model = next(c.source for c in instructor.cells if c.cell_type == "markdown"
                             and c.source.startswith("**Model answer.**") and q.rubric[0].text in c.source)
                assert model.split("\n")[0] in entry["output"]
