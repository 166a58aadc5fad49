"""What the bench files share to compare this checkout with an older ibcore in one run.

* :func:`git_archive`: the files of a git revision in a new temporary folder.
* :func:`baseline_module`: a module of ibcore as of a git revision, from a ``git archive``
  of it, imported beside this checkout's ibcore under a name of its own
  (:func:`baseline_or_skip` in a benchmark).
* :func:`cpu_times`, :func:`interleaved`: CPU time of callables run in turns, so that all see
  the same load.

It imports pytest only to skip a benchmark, so scripts may use it in a venv without pytest.
"""
from __future__ import annotations

import gc
import importlib
import importlib.util
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def git_archive(ref: str, *paths: str, prefix: str = "ib-baseline-") -> Path:
    """``git archive ref [paths]`` of this repository, extracted into a new temporary folder.

    Raises ``OSError`` or ``subprocess.CalledProcessError`` if git cannot give it.
    """
    data = subprocess.run(["git", "archive", ref, *paths], cwd=ROOT, capture_output=True, check=True).stdout
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def baseline_ibcore(ref: str):
    """The package ``ibcore`` as of git revision ``ref``; None if git cannot give it.

    Imported as ``ibcore_<ref>`` (one name per revision, so that two bench files can
    hold different revisions in one run); its modules import each other relatively,
    so none of them reaches this checkout's ibcore.
    """
    name = "ibcore_" + re.sub(r"\W", "_", ref)
    if name in sys.modules:
        return sys.modules[name]
    try:
        folder = git_archive(ref, "ibcore")
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_file_location(name, folder / "ibcore" / "__init__.py",
                                                  submodule_search_locations=[str(folder / "ibcore")])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def baseline_module(ref: str, name: str):
    """``ibcore.<name>`` as of git revision ``ref``; None if git cannot give it."""
    package = baseline_ibcore(ref)
    return None if package is None else importlib.import_module(f"{package.__name__}.{name}")


def baseline_or_skip(ref: str, name: str):
    """:func:`baseline_module`, for a benchmark's fixture: skips the benchmark if git cannot give it."""
    import pytest

    found = baseline_module(ref, name)
    if found is None:
        pytest.skip(f"git revision {ref} is not available")
    return found


def cpu_times(runs: dict, repeat: int) -> tuple[dict, dict]:
    """Run each callable ``repeat`` times, in turns so that all see the same load, with the garbage
    collector off while one runs (as ``timeit``): ``({name: [CPU seconds]}, {name: last result})``."""
    times, results = {k: [] for k in runs}, {}
    for _ in range(repeat):
        for k, f in runs.items():
            collecting = gc.isenabled()
            gc.disable()
            try:
                t0 = time.process_time()
                results[k] = f()
                times[k].append(time.process_time() - t0)
            finally:
                if collecting:
                    gc.enable()
    return times, results


def interleaved(runs: dict, repeat: int = 9) -> dict:
    """CPU seconds of each callable, run in turns so that all see the same load: ``{name: (min, median)}``."""
    times, _ = cpu_times(runs, repeat)
    return {k: (min(v), float(np.median(v))) for k, v in times.items()}
