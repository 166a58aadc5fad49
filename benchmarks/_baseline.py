"""What the bench files share to compare this checkout with an older ibcore in one run.

* :func:`baseline_module`: a module of ibcore as of a git revision, from a ``git archive``
  of it, imported beside this checkout's ibcore under a name of its own
  (:func:`baseline_or_skip` in a benchmark).
* :func:`interleaved`: CPU time of callables run in turns, so that all see the same load.
"""
from __future__ import annotations

import importlib
import importlib.util
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np
import pytest


def baseline_ibcore(ref: str):
    """The package ``ibcore`` as of git revision ``ref``; None if git cannot give it.

    Imported as ``ibcore_<ref>`` (one name per revision, so that two bench files can
    hold different revisions in one run); its modules import each other relatively,
    so none of them reaches this checkout's ibcore.
    """
    root = Path(__file__).resolve().parents[1]
    name = "ibcore_" + re.sub(r"\W", "_", ref)
    if name in sys.modules:
        return sys.modules[name]
    try:
        archive = subprocess.run(["git", "archive", ref, "ibcore"], cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = Path(tempfile.mkdtemp(prefix="ib-baseline-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
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
    found = baseline_module(ref, name)
    if found is None:
        pytest.skip(f"git revision {ref} is not available")
    return found


def interleaved(runs: dict, repeat: int = 9) -> dict:
    """CPU seconds of each callable, run in turns so that all see the same load: ``{name: (min, median)}``."""
    times = {k: [] for k in runs}
    for _ in range(repeat):
        for k, f in runs.items():
            times[k] += timeit.repeat(f, number=1, repeat=1, timer=time.process_time)
    return {k: (min(v), float(np.median(v))) for k, v in times.items()}
