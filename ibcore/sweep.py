"""Grids of independent trials: local processes, a Dask cluster, and an on-disk cache.

The trial protocol of the whole book: a *trial* is a plain function with
keyword-only parameters and ``rng=None``, which validates its arguments first
and returns a flat dict of numbers. One runner serves every experiment, on a
laptop or a cluster::

    table = sweep(gap_trial, {"n": [20, 40], "d": [400, 1600]}, trials=8,
                  fixed={"b0": 1.0})

runs ``gap_trial(n=..., d=..., b0=1.0, rng=...)`` for every grid point and
trial index and returns a *tidy table*: a :class:`pandas.DataFrame` with one
row per trial, one column per parameter (the ``fixed`` ones too), a ``trial``
column, and one column per key of the dict that the trial returns.
:func:`ibcore.summary.summarise` then reduces a column over groups of rows, with
confidence intervals, so that no chapter writes its own group-by.  With ``backend="dask"`` (and a
``dask.distributed.Client`` connected) the same call runs on a Dask cluster
through joblib's dask backend.

Reproducibility: the generator handed to each trial is seeded from
``(seed, the grid point, the trial index)`` only, so a point gets the same
random numbers whatever else is in the grid and whichever worker runs it.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import itertools
import json
import os
from pathlib import Path

import numpy as np

from .validation import positive_int

__all__ = ["sweep", "trial_seed"]


def _default_cache_dir() -> Path:
    """Folder of the on-disk cache: ``$IBCORE_CACHE`` or ``~/.cache/ibcore``.

    Examples
    --------
    >>> from unittest import mock
    >>> from ibcore.sweep import _default_cache_dir
    >>> with mock.patch.dict("os.environ", {"IBCORE_CACHE": "/tmp/my-cache"}):
    ...     print(_default_cache_dir())
    ...
    /tmp/my-cache
    """
    return Path(os.environ.get("IBCORE_CACHE", Path.home() / ".cache" / "ibcore"))


def _canonical(params: dict) -> str:
    def plain(v):
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    return json.dumps({k: plain(v) for k, v in sorted(params.items())}, sort_keys=True)


def trial_seed(seed: int, params: dict, trial: int) -> np.random.SeedSequence:
    """The seed sequence of one trial, a function of ``(seed, params, trial)`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore.sweep import trial_seed
    >>> a = np.random.default_rng(trial_seed(0, {"n": 20}, 3)).random()
    >>> b = np.random.default_rng(trial_seed(0, {"n": 20}, 3)).random()
    >>> a == b
    True
    """
    digest = hashlib.sha256(_canonical(params).encode()).digest()
    return np.random.SeedSequence([int(seed), int.from_bytes(digest[:8], "little"), int(trial)])


def _grid_points(grid) -> list[dict]:
    if isinstance(grid, dict):
        if not grid:
            raise ValueError("grid must not be empty, got {}")
        names = list(grid)
        for name in names:
            values = grid[name]
            if np.ndim(values) == 0 or len(values) == 0:
                raise ValueError(f"grid[{name!r}] must be a non-empty sequence, got {values!r}")
        return [dict(zip(names, combo)) for combo in itertools.product(*(grid[k] for k in names))]
    points = list(grid)
    if not points or not all(isinstance(p, dict) for p in points):
        raise ValueError(f"grid must be a dict of sequences or a non-empty list of dicts, got {grid!r}")
    return [dict(p) for p in points]


@functools.lru_cache(maxsize=1)
def _source_fingerprint() -> str:
    """A hash of ibcore's source files: it changes with any edit of the solvers.

    A trial's result depends on the solvers it calls, so the sweep cache is keyed
    on it.

    Examples
    --------
    >>> from ibcore.sweep import _source_fingerprint
    >>> len(_source_fingerprint())
    16
    """
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _code_fingerprint(func) -> str:
    try:
        source = inspect.getsource(func)
    except (OSError, TypeError):
        source = getattr(func, "__qualname__", repr(func))
    return hashlib.sha256(source.encode()).hexdigest()[:16] + _source_fingerprint()


#: Trials of one point handed at once to a trial's ``batch`` (see :func:`sweep`), unless the
#: trial's ``batch_size`` says otherwise.
BATCH = 16


def _batch_size(trial) -> int:
    """The most trials ``trial.batch`` takes at once: ``trial.batch_size`` if set, else ``BATCH``.

    Examples
    --------
    >>> from ibcore.sweep import _batch_size
    >>> def coin(*, rng=None):
    ...     return {"heads": 1.0}
    >>> coin.batch = lambda *, rngs: [{"heads": 1.0} for _ in rngs]
    >>> _batch_size(coin)
    16
    >>> coin.batch_size = 0
    >>> _batch_size(coin)
    Traceback (most recent call last):
        ...
    ValueError: batch_size must be a positive integer, got 0
    """
    return positive_int("batch_size", getattr(trial, "batch_size", BATCH))


def _plain(record):
    if not isinstance(record, dict):
        raise TypeError(f"trial must return a dict of scalars, got {type(record).__name__}")
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in record.items()}


def _default_jobs() -> int:
    """``IBCORE_SWEEP_JOBS`` (a non-zero integer) if set, else -1: every core."""
    value = os.environ.get("IBCORE_SWEEP_JOBS", "").strip()
    if not value:
        return -1
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs == 0:
        raise ValueError(f"IBCORE_SWEEP_JOBS must be a non-zero integer, got {value!r}")
    return jobs


def _tasks(trial, jobs, todo, workers):
    """``todo`` (indices into ``jobs``) as tasks: one trial each, or for a trial with a
    ``batch`` the trials of one point in as many pieces as there are workers (at most
    :func:`_batch_size` trials each), so that a costly point still occupies every worker."""
    if not hasattr(trial, "batch"):
        return [[i] for i in todo]
    cap = _batch_size(trial)
    by_point: dict[int, list[int]] = {}
    for i in todo:
        by_point.setdefault(id(jobs[i][0]), []).append(i)
    tasks = []
    for indices in by_point.values():
        size = min(cap, -(-len(indices) // max(1, workers)))
        tasks += [indices[k:k + size] for k in range(0, len(indices), size)]
    return tasks


def _run_trials(trial, params, indices, seed):
    """The records of trials ``indices`` of one point: through ``trial.batch`` when it has one."""
    rngs = [np.random.default_rng(trial_seed(seed, params, i)) for i in indices]
    batch = getattr(trial, "batch", None)
    if batch is None:
        return [_plain(trial(**params, rng=rng)) for rng in rngs]
    records = batch(**params, rngs=rngs)
    if len(records) != len(rngs):
        raise TypeError(f"trial.batch must return one record per generator, got {len(records)} for {len(rngs)}")
    return [_plain(r) for r in records]


class _TrialCache:
    """One JSON file per trial; the parent process reads and writes, workers only compute."""

    def __init__(self, folder: Path, trial, seed: int, version: str):
        name = f"{getattr(trial, '__module__', '?')}.{getattr(trial, '__qualname__', '?')}"
        self.folder = Path(folder) / "sweep"
        self.prefix = f"{name}|{_code_fingerprint(trial)}|{version}|{seed}|"

    def _path(self, params, index) -> Path:
        key = hashlib.sha256(f"{self.prefix}{_canonical(params)}|{index}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.json"

    def get(self, params, index):
        path = self._path(params, index)
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def put(self, params, index, record) -> None:
        path = self._path(params, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, path)  # atomic, so a crash never leaves half a record


def _as_table(rows: list[dict]):
    import pandas as pd

    names = list(rows[0])
    for row in rows:
        if list(row) != names:
            raise ValueError(f"every trial must return the same keys; got {list(row)} and {names}")
    columns = {}
    for name in names:
        col = np.asarray([row[name] for row in rows])
        if col.dtype.kind == "O":
            raise ValueError(f"column {name!r} holds non-scalar values; trials must return scalars")
        columns[name] = col
    return pd.DataFrame(columns)


def _with_fixed(trial, grid, fixed) -> list[dict]:
    """The grid points with the ``fixed`` parameters added, every name checked against ``trial``."""
    points = _grid_points(grid)
    fixed = dict(fixed or {})
    for p in points:
        if "rng" in p or "trial" in p or "rng" in fixed or "trial" in fixed:
            raise ValueError(f"grid parameters may not be called 'rng' or 'trial', got {sorted({*p, *fixed})}")
        both = set(p) & set(fixed)
        if both:
            raise ValueError(f"parameter(s) {sorted(both)} given both in grid and in fixed")
    try:
        params = inspect.signature(trial).parameters
    except (TypeError, ValueError):  # builtins and some callables have no signature
        params = None
    if params is not None and not any(v.kind is v.VAR_KEYWORD for v in params.values()):
        names = set(fixed).union(*points)
        unknown = names - set(params)
        if unknown:
            name = getattr(trial, "__name__", repr(trial))
            raise ValueError(f"unknown {name} parameter(s) {sorted(unknown)}; "
                             f"expected some of {sorted(set(params) - {'rng'})}")
        if "rng" not in params:
            raise ValueError(f"trial must accept an rng keyword (the trial protocol), got {trial!r}")
    return [{**p, **fixed} for p in points]


def sweep(
    trial,
    grid,
    *,
    trials: int = 1,
    seed: int = 0,
    fixed: dict | None = None,
    n_jobs: int | None = None,
    backend: str | None = None,
    cache: bool | str | os.PathLike = True,
    progress: bool = True,
    desc: str | None = None,
):
    """Run ``trial`` on every point of ``grid``, ``trials`` times each.

    Parameters
    ----------
    trial : callable
        ``trial(*, **params, rng=None) -> dict`` of scalars (the trial
        protocol). It must be importable (defined in a module, or picklable
        by reference) for process backends. A trial may also carry
        ``trial.batch(*, **params, rngs) -> list`` of the records of
        ``trial(**params, rng=r)`` for each ``r`` of ``rngs`` (equal to rounding),
        computed together: the sweep then hands it the trials of a point in one
        piece per worker, of at most ``BATCH`` (16) trials (e.g. SGD runs stepped
        together, :func:`~ibcore.experiments.quadratic.sgd_frame_drift_trial`), or of
        at most ``trial.batch_size`` when the trial sets it (a batch whose cost per
        call hardly grows with its size, such as the overlap chain's, takes more).
    grid : dict of sequences, or list of dicts
        A dict gives the Cartesian product of its values, in key order.
    trials : int
        Independent repetitions per grid point (column ``trial``).
    seed : int
        Base seed; see :func:`trial_seed`.
    fixed : dict, optional
        Trial parameters held constant over the grid. They become constant
        columns of the table and are part of each point's seed. Every name in
        ``grid`` and ``fixed`` is checked against the trial's signature, so a
        typo raises instead of being passed on.
    n_jobs : int or None
        joblib workers: ``-1`` uses every core, ``1`` runs in this process. ``None``
        (default) means the environment variable ``IBCORE_SWEEP_JOBS`` if it is set,
        else ``-1``. The book's builds set it to 1: they execute one chapter per core,
        so workers would only add their start-up to a busy machine.
    backend : str or None
        joblib backend: ``None`` means local processes (loky); ``"dask"``
        sends the trials to the connected ``dask.distributed.Client``.
    cache : bool or path
        ``True`` caches each trial on disk under ``$IBCORE_CACHE`` (default ``~/.cache/ibcore``),
        keyed by the parameters, the trial index, the seed, the trial's source
        code and the source of ibcore itself (so any solver edit recomputes);
        a path chooses the folder; ``False`` disables it.
    progress : bool
        Show a ``tqdm.auto`` progress bar (see :mod:`ibcore.progress`).
    desc : str, optional
        Label of the progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per ``(point, trial)``: the parameter columns, ``trial``, then
        the keys returned by ``trial``.

    Examples
    --------
    >>> from ibcore.sweep import sweep
    >>> def coin(*, bias, rng=None):
    ...     return {"heads": float(rng.random() < bias)}
    ...
    >>> table = sweep(coin, {"bias": [0.0, 1.0]}, trials=3, n_jobs=1, cache=False, progress=False)
    >>> print(table.to_string(index=False))
     bias  trial  heads
      0.0      0    0.0
      0.0      1    0.0
      0.0      2    0.0
      1.0      0    1.0
      1.0      1    1.0
      1.0      2    1.0
    """
    from joblib import Parallel, delayed, effective_n_jobs, parallel_config
    from . import __version__
    from .progress import progress as progress_bar

    if not callable(trial):
        raise ValueError(f"trial must be callable, got {trial!r}")
    trials = positive_int("trials", trials)
    if hasattr(trial, "batch"):
        _batch_size(trial)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if n_jobs is None:
        n_jobs = _default_jobs()
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None, got {n_jobs!r}")
    points = _with_fixed(trial, grid, fixed)

    jobs = [(p, t) for p in points for t in range(trials)]
    store = None
    if cache:
        store = _TrialCache(_default_cache_dir() if cache is True else Path(cache), trial, seed, __version__)
    records = [store.get(p, t) if store else None for p, t in jobs]
    todo = [i for i, rec in enumerate(records) if rec is None]

    bar = progress_bar(total=len(jobs), initial=len(jobs) - len(todo),
                       desc=desc or getattr(trial, "__name__", "sweep"), enabled=progress)
    serial = n_jobs == 1 and backend is None
    tasks = _tasks(trial, jobs, todo, 1 if serial or backend is not None else effective_n_jobs(n_jobs))

    def task_args(task):
        return trial, jobs[task[0]][0], [jobs[i][1] for i in task], seed

    with contextlib.ExitStack() as stack:
        if not todo or serial:  # nothing to farm out
            computed = (_run_trials(*task_args(task)) for task in tasks)
        else:
            if backend is not None:  # e.g. "dask": registered lazily by parallel_config
                stack.enter_context(parallel_config(backend=backend))
            computed = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_run_trials)(*task_args(task)) for task in tasks)
        # computed first: zip then pulls the generator to its end, so joblib finishes cleanly
        for recs, task in zip(computed, tasks):
            for rec, i in zip(recs, task):
                records[i] = rec
                if store:
                    store.put(*jobs[i], rec)
            bar.update(len(task))
    bar.close()
    rows = [{**p, "trial": t, **rec} for (p, t), rec in zip(jobs, records)]
    return _as_table(rows)
