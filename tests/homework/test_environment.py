"""The grading environment built from the autograder zip alone, as Gradescope builds it.

For each set: a fresh venv (standing for the Python 3.11 that Gradescope's image gets from
Miniforge), the zip unpacked into ``autograder/source``, its ``setup.sh`` run with nothing else
(no project file, no project package on the path), then ``run_autograder`` (the zip's
``run_otter.py``) for each submission, as Gradescope runs it, in a fresh copy of the folder:

* the instructor notebook scores full marks with five grading seeds;
* the student notebook as handed out scores 0, every failure in the tests' own words;
* every attack (tests/homework/support.py: the review's list and ours) scores 0 on what it
  attacks, the grader flags the tampering for the staff, and no hidden test reaches what the
  student sees;
* the instructor notebook with every declared shortcut (no work on any question) scores at most
  the set's ``no_work_max``, each shortcut losing its points and only its own;
* students see the public tests only: hidden tests stay hidden, also after publication;
* the written answers reach the graders, with each question's points and rubric.

The venv with the zip's pinned packages is kept in the cache (``$IBCORE_CACHE/grader-venv``,
default ``~/.cache/ibcore``), keyed on the zip's requirements, constraints and set-up, so that
only a change of pins costs a full install; ``setup.sh`` runs again for every set all the
same (it reinstalls the zip's ibcore wheel). That full install skips pip's byte-compilation
(``PIP_COMPILE=0``; on Gradescope, setup.sh compiles as usual): Python compiles only the
modules that grading imports (again in each process where ``PYTHONDONTWRITEBYTECODE`` is set,
and still cheaper: measured in benchmarks/README.md). The grading times go to
``grading-times.txt`` in the built problem sets' folder (``_build/homework`` under ``make check``).
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
    times = built / "grading-times.txt"
    times.unlink(missing_ok=True)
    TIMES[:] = [times]
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


TIMES: list[Path] = []  # the times' file, once the built sets are known (the `built` fixture)


def report(line: str) -> None:
    print(line)
    for target in TIMES:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def grade(folder: Path, submission: Path, python: Path, *, seed: int | None = None) -> tuple[dict, support.Clock]:
    """One submission through ``run_autograder``, as Gradescope runs it (in a copy of the
    unpacked folder: the grader removes the tests from the disk once read): results.json and times."""
    work = folder.parent / f"{folder.name}-{submission.stem}-{seed or 0}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(folder, work, symlinks=True)
    for sub in ("submission", "results"):
        shutil.rmtree(work / sub)
        (work / sub).mkdir()
    shutil.copy(submission, work / "submission" / submission.name)
    env = clean_environment(python)
    if seed is not None:
        env["IB_GRADING_SEED"] = str(seed)
    with support.Clock() as clock:
        run = subprocess.run([str(work / "run_autograder")], cwd=work, env=env, capture_output=True, text=True,
                             timeout=900)
    assert run.returncode == 0, f"run_autograder failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    results = json.loads((work / "results" / "results.json").read_text())
    shutil.rmtree(work, ignore_errors=True)
    return results, clock


# the instructor notebook is graded with these seeds, and the other submissions with the first
SEEDS = (11, 12, 13, 14, 15)


@pytest.fixture(scope="module", params=SETS, ids=IDS)
def graded(request, built, grader_python, tmp_path_factory):
    """A set's submissions graded in its environment built from the zip: the instructor notebook
    (five seeds), the student notebook, every attack and the no-work notebook."""
    path = request.param
    pset = hw.read_set(path)
    instructor, student, autograder = support.paths(built, pset.name)
    root = tmp_path_factory.mktemp(pset.name)
    folder = unpack(autograder, root / "autograder")
    with support.Clock() as clock:
        run_setup(folder, grader_python)
    report(f"{pset.name}: setup.sh on the cached venv {clock.wall:.1f} s ({clock.cpu:.1f} s CPU)")
    frozen = subprocess.run([str(grader_python), "-m", "pip", "freeze"], capture_output=True, text=True,
                            env=clean_environment(grader_python), check=True).stdout.splitlines()
    out = {"pset": pset, "freeze": frozen, "zip": autograder, "instructor": {}, "attacks": []}
    possible = pset.points - sum(q.points for q in pset.manual)

    def graded_once(label: str, notebook: Path, seed: int) -> dict:
        results, clock = grade(folder, notebook, grader_python, seed=seed)
        report(f"{pset.name}: {label} graded in {clock.wall:.1f} s ({clock.cpu:.1f} s CPU), "
               f"{support.total(results):g}/{possible:g}")
        return results

    for seed in SEEDS:
        out["instructor"][seed] = graded_once(f"the instructor notebook (seed {seed})", instructor, seed)
    out["student"] = graded_once("the notebook as handed out", student, SEEDS[0])
    for i, attack in enumerate(support.attacks(built, pset)):
        notebook = support.write(attack.notebook, root / f"attack-{i}", pset.name)
        out["attacks"].append((attack, graded_once(f"attack: {attack.name}", notebook, SEEDS[0])))
    no_work = support.write(support.instructor_with(built, pset, submissions=pset.shortcuts), root / "no-work",
                            pset.name)
    out["no work"] = graded_once("the instructor notebook with every shortcut (no work)", no_work, SEEDS[0])
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



def test_instructor_notebook_scores_full_marks_with_five_seeds(graded):
    pset = graded["pset"]
    for seed, results in graded["instructor"].items():
        scores = support.scores(results)
        assert sorted(scores) == sorted(q.name for q in pset.autograded)
        for q in pset.autograded:
            score, possible, output = scores[q.name]
            assert possible == q.points and score == possible, f"seed {seed}: {q.name}: {score}/{possible}\n{output}"
        assert f"Graded with seed {seed}" in support.entry(results, "Integrity")
        assert "Nothing touched the grading" in support.entry(results, "Integrity")


def test_untouched_notebook_scores_zero_in_readable_words(graded):
    pset, scores = graded["pset"], support.scores(graded["student"])
    for q in pset.autograded:
        score, _, output = scores[q.name]
        assert score == 0, f"{q.name} scores {score} with `...` as the answer"
        assert len(support.failures(output)) == len(q.public_tests) + len(q.hidden_tests)
        bad = support.unreadable(q.name, output)
        assert not bad, f"{q.name}: failures that are not the tests' messages:\n" + "\n".join(bad)


def test_every_attack_scores_zero_on_what_it_attacks(graded):
    """Each attack's test cases fail (every test, for the no-work ones), the grader flags the
    tampering for the staff, and no hidden test reaches what the student sees."""
    pset = graded["pset"]
    problems = []
    for attack, results in graded["attacks"]:
        gained = support.attack_failures(pset, attack, results)
        if gained:
            problems.append(f"{attack.name}: {gained}")
        integrity = support.entry(results, "Integrity")
        if attack.flagged and attack.flagged not in integrity:
            problems.append(f"{attack.name}: not flagged ({attack.flagged!r} missing):\n{integrity[:1500]}")
        if attack.no_leak and (leaks := support.visible_leaks(pset, results)):
            problems.append(f"{attack.name}: hidden-test lines shown to the student: {leaks[:5]}")
    assert not problems, "\n".join(problems)


def test_the_no_work_notebook_scores_at_most_its_bound(graded):
    """The instructor notebook with every declared shortcut: each shortcut loses at least its
    points, every other question keeps full marks, and the total is at most no_work_max."""
    pset, scores = graded["pset"], support.scores(graded["no work"])
    shortcuts = {s.question: s for s in pset.shortcuts}
    for q in pset.autograded:
        score, possible, output = scores[q.name]
        if q.name in shortcuts:
            assert possible - score >= shortcuts[q.name].loses, (
                f"{q.name}: the shortcut {shortcuts[q.name].lines} loses {possible - score:g}, it must lose at "
                f"least {shortcuts[q.name].loses:g}:\n{output}")
        else:
            assert score == possible, f"{q.name} must keep full marks beside the shortcuts:\n{output}"
    assert support.total(graded["no work"]) <= pset.no_work_max


def test_hidden_tests_stay_hidden(graded):
    """Students see the public tests' summary; every per-question result (hidden tests' messages
    included) is visible to the course staff only, also once the grades are published."""
    pset = graded["pset"]
    for results in (graded["instructor"][SEEDS[0]], graded["student"]):
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
    written = {q["name"]: q for q in hw.written_questions(pset)}
    for role, results in (("instructor", graded["instructor"][SEEDS[0]]), ("student", graded["student"])):
        entries = [t for t in results["tests"] if t["name"].endswith("(written, graded by hand)")]
        assert [t["name"].split()[0] for t in entries] == [q.name for q in pset.manual]
        for entry, q in zip(entries, pset.manual):
            assert entry["visibility"] == "hidden" and entry["output_format"] == "md"
            assert f"{q.points:g} points" in entry["output"]
            for item in written[q.name]["rubric"]:
                assert item["text"] in entry["output"] and all(p["text"] in entry["output"] for p in item["partial"])
            if role == "student":
                assert "no answer" in entry["output"]
            else:  # the instructor notebook's answers are the model answers
                assert q.model_answer.split("\n")[0] in entry["output"]
