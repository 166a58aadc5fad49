"""ibcore.sweep: tidy tables, seeding, the disk cache, local processes and Dask."""
from __future__ import annotations

import os

import numpy as np
import pytest

from ibcore.sweep import sweep, trial_seed


def noisy_product(a, b, rng):
    """A trial whose result depends on its parameters and on its random stream."""
    return {"prod": a * b, "noise": float(rng.standard_normal()), "ok": bool(a > 0)}


CALLS = []


def counted(a, rng):
    CALLS.append(a)
    return {"x": float(rng.uniform())}


def test_tidy_table_has_one_row_per_point_and_trial(tmp_path):
    table = sweep(noisy_product, {"a": [1, 2], "b": [0.5, 1.5, 2.5]}, trials=3,
                  n_jobs=1, cache=False, progress=False)
    assert list(table.columns) == ["a", "b", "trial", "prod", "noise", "ok"]
    assert len(table) == 2 * 3 * 3
    assert np.allclose(table["prod"], table["a"] * table["b"])
    assert table["ok"].dtype == bool and table["a"].dtype.kind == "i"


def test_seeds_depend_only_on_point_and_trial():
    full = sweep(noisy_product, {"a": [1, 2], "b": [1.0]}, trials=2, n_jobs=1, cache=False, progress=False)
    part = sweep(noisy_product, {"a": [2], "b": [1.0]}, trials=2, n_jobs=1, cache=False, progress=False)
    assert np.array_equal(full[full["a"] == 2]["noise"], part["noise"])
    assert len(set(full["noise"])) == 4, "different points and trials get different streams"
    other_seed = sweep(noisy_product, {"a": [2], "b": [1.0]}, trials=2, seed=1, n_jobs=1, cache=False,
                       progress=False)
    assert not np.array_equal(other_seed["noise"], part["noise"])
    s1 = trial_seed(0, {"a": 1, "b": 2.0}, 0).generate_state(2)
    s2 = trial_seed(0, {"b": 2.0, "a": 1}, 0).generate_state(2)
    assert np.array_equal(s1, s2), "parameter order must not matter"


def test_processes_give_the_same_table_as_serial():
    grid = {"a": [1, 2, 3], "b": [0.1, 0.2]}
    serial = sweep(noisy_product, grid, trials=2, n_jobs=1, cache=False, progress=False)
    parallel = sweep(noisy_product, grid, trials=2, n_jobs=2, cache=False, progress=False)
    assert serial.equals(parallel)


def test_cold_parallel_sweep_finishes_cleanly(tmp_path, recwarn):
    sweep(noisy_product, {"a": [1, 2, 3], "b": [1.0]}, trials=3, n_jobs=2, cache=tmp_path, progress=False)
    assert not [w for w in recwarn if "tasks" in str(w.message)], "joblib's generator must be consumed"


def test_fully_cached_sweep_starts_no_workers(tmp_path, recwarn):
    sweep(noisy_product, {"a": [1], "b": [1.0]}, trials=2, n_jobs=2, cache=tmp_path, progress=False)
    again = sweep(noisy_product, {"a": [1], "b": [1.0]}, trials=2, n_jobs=2, cache=tmp_path, progress=False)
    assert len(again) == 2
    assert not [w for w in recwarn if "tasks" in str(w.message)], "no joblib warning when nothing runs"


def test_cache_serves_repeated_calls(tmp_path):
    CALLS.clear()
    first = sweep(counted, {"a": [1, 2]}, trials=2, n_jobs=1, cache=tmp_path, progress=False)
    assert len(CALLS) == 4
    again = sweep(counted, {"a": [1, 2, 3]}, trials=2, n_jobs=1, cache=tmp_path, progress=False)
    assert len(CALLS) == 6, "only the new grid point is computed"
    assert again[again["a"] < 3].equals(first)


@pytest.mark.parametrize("kwargs, match", [
    ({"grid": {}}, "grid"),
    ({"grid": {"a": []}}, "grid"),
    ({"grid": {"a": [1]}, "trials": 0}, "trials"),
    ({"grid": {"a": [1]}, "seed": -1}, "seed"),
    ({"grid": {"rng": [1]}}, "rng"),
    ({"grid": {"a": [1]}, "n_jobs": 0}, "n_jobs"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sweep(counted, **{"trials": 1, "cache": False, "progress": False, **kwargs})


def test_dask_cluster_runs_the_same_sweep():
    distributed = pytest.importorskip("dask.distributed")
    grid = {"a": [1, 2], "b": [0.5, 1.0]}
    serial = sweep(noisy_product, grid, trials=2, n_jobs=1, cache=False, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        on_dask = sweep(noisy_product, grid, trials=2, backend="dask", cache=False, progress=False)
    assert serial.equals(on_dask)


def keyword_trial(*, a, b=1.0, rng=None):
    """A trial in the book's protocol: keyword-only parameters, rng=None."""
    return {"prod": a * b}


def test_fixed_parameters_are_checked_and_become_columns():
    table = sweep(keyword_trial, {"a": [1, 2]}, fixed={"b": 3.0}, n_jobs=1, cache=False, progress=False)
    assert list(table.columns) == ["a", "b", "trial", "prod"]
    assert list(table["b"]) == [3.0, 3.0] and list(table["prod"]) == [3.0, 6.0]
    points = sweep(keyword_trial, [{"a": 1}, {"a": 2}], fixed={"b": 3.0}, n_jobs=1, cache=False,
                   progress=False)
    assert points.equals(table), "a list of points and a dict grid give the same table"
    with pytest.raises(ValueError, match=r"unknown keyword_trial parameter\(s\) \['c'\]"):
        sweep(keyword_trial, {"a": [1]}, fixed={"c": 1}, n_jobs=1, cache=False, progress=False)
    with pytest.raises(ValueError, match="both in grid and in fixed"):
        sweep(keyword_trial, {"a": [1], "b": [1.0]}, fixed={"b": 2.0}, n_jobs=1, cache=False, progress=False)
    with pytest.raises(ValueError, match="rng keyword"):
        sweep(lambda *, a: {"x": a}, {"a": [1]}, n_jobs=1, cache=False, progress=False)


def test_fixed_parameters_seed_like_grid_parameters():
    """Moving a constant from the grid to ``fixed`` changes neither the table nor the seeds."""
    in_grid = sweep(noisy_product, {"a": [1, 2], "b": [2.0]}, trials=2, n_jobs=1, cache=False, progress=False)
    as_fixed = sweep(noisy_product, {"a": [1, 2]}, fixed={"b": 2.0}, trials=2, n_jobs=1, cache=False,
                     progress=False)
    assert in_grid.equals(as_fixed)




BATCHES = []


def batched(a, rng):
    return {"x": float(rng.uniform()), "a2": a * a}


def _batched_many(a, rngs):
    BATCHES.append((a, len(rngs)))
    return [batched(a, rng) for rng in rngs]


batched.batch = _batched_many


def short_batch(a, rng):
    return {"x": 0.0}


short_batch.batch = lambda a, rngs: [{"x": 0.0}]


def test_a_trial_with_a_batch_gets_the_trials_of_one_point_at_once(tmp_path):
    from ibcore import sweep as sweep_module

    BATCHES.clear()
    table = sweep(batched, {"a": [1, 2]}, trials=sweep_module.BATCH + 3, n_jobs=1, cache=tmp_path, progress=False)
    assert BATCHES == [(1, 16), (1, 3), (2, 16), (2, 3)], "at most BATCH trials, one point per batch"
    plain = sweep(noisy_product, {"a": [1, 2], "b": [1.0]}, trials=sweep_module.BATCH + 3, n_jobs=1, cache=False,
                  progress=False)
    single = [batched(a, np.random.default_rng(trial_seed(0, {"a": a}, t)))["x"]
              for a in (1, 2) for t in range(sweep_module.BATCH + 3)]
    assert table["x"].tolist() == single and len(plain) == len(table)
    BATCHES.clear()
    again = sweep(batched, {"a": [1, 2, 3]}, trials=sweep_module.BATCH + 3, n_jobs=1, cache=tmp_path,
                  progress=False)
    assert BATCHES == [(3, 16), (3, 3)], "cached trials are not computed again"
    assert again["x"].tolist()[:len(single)] == single
    parallel = sweep(batched, {"a": [1, 2]}, trials=sweep_module.BATCH + 3, n_jobs=2, cache=False, progress=False)
    assert parallel["x"].tolist() == single
    # two workers: each point in two pieces, so that a costly point keeps both busy
    jobs = [(points[a], t) for points in [{1: {"a": 1}, 2: {"a": 2}}] for a in (1, 2) for t in range(19)]
    tasks = sweep_module._tasks(batched, jobs, list(range(38)), workers=2)
    assert [len(t) for t in tasks] == [10, 9, 10, 9]
    assert sweep_module._tasks(batched, jobs, list(range(38)), workers=1) == [
        list(range(16)), list(range(16, 19)), list(range(19, 35)), list(range(35, 38))]
    assert sweep_module._tasks(noisy_product, jobs, [0, 5], workers=2) == [[0], [5]]


def wide_batch(a, rng):
    return batched(a, rng)


wide_batch.batch = _batched_many
wide_batch.batch_size = 40


def test_a_trial_s_batch_size_sets_how_many_trials_its_batch_takes(tmp_path):
    """``trial.batch_size`` replaces BATCH as the most trials of one call (the overlap chain's
    trials take a point's trials in one call per worker); the records are those of single
    trials all the same; a batch_size that is not a positive integer is an error before any run."""
    BATCHES.clear()
    table = sweep(wide_batch, {"a": [1]}, trials=50, n_jobs=1, cache=False, progress=False)
    assert BATCHES == [(1, 40), (1, 10)]
    single = [batched(1, np.random.default_rng(trial_seed(0, {"a": 1}, t)))["x"] for t in range(50)]
    assert table["x"].tolist() == single
    point = {"a": 1}  # the tasks group the trials of one point by its dict
    jobs = [(point, t) for t in range(50)]
    assert [len(t) for t in sweep_module_tasks(wide_batch, jobs, workers=2)] == [25, 25]
    BATCHES.clear()
    for bad in (0, 2.5, "8"):
        wide_batch.batch_size = bad
        try:
            with pytest.raises(ValueError, match=rf"^batch_size must be a positive integer, got {bad!r}"):
                sweep(wide_batch, {"a": [1]}, trials=3, n_jobs=1, cache=False, progress=False)
        finally:
            wide_batch.batch_size = 40
    assert BATCHES == []


def sweep_module_tasks(trial, jobs, workers):
    from ibcore import sweep as sweep_module

    return sweep_module._tasks(trial, jobs, list(range(len(jobs))), workers=workers)


def test_the_overlap_chain_s_trials_take_all_the_trials_of_a_point():
    import ibcore.experiments.quadratic as E
    from ibcore.quadratic.overlap_chain import _BATCH_RUNS

    for trial in (E.sgd_escape_time_trial, E.sgd_frame_drift_trial, E.sgd_ode_gap_trial, E.sgd_snapshot_trial):
        assert trial.batch_size == _BATCH_RUNS >= 400


def test_a_batch_must_return_one_record_per_trial():
    with pytest.raises(TypeError, match="one record per generator"):
        sweep(short_batch, {"a": [1]}, trials=2, n_jobs=1, cache=False, progress=False)


def test_default_workers_come_from_ibcore_sweep_jobs(monkeypatch):
    """Unset: every core (-1). The builds set IBCORE_SWEEP_JOBS=1: the sweep then runs in
    the kernel itself (no worker process), with the same table."""
    from ibcore import sweep as sweep_module

    monkeypatch.delenv("IBCORE_SWEEP_JOBS", raising=False)
    assert sweep_module._default_jobs() == -1
    monkeypatch.setenv("IBCORE_SWEEP_JOBS", "1")
    seen = []
    monkeypatch.setattr(sweep_module, "_run_trials", lambda *a: seen.append(os.getpid()) or [{"x": 1.0}])
    sweep(noisy_product, {"a": [1], "b": [1.0]}, trials=2, cache=False, progress=False)
    assert seen == [os.getpid()] * 2, "in this process"
    for bad in ("0", "two"):
        monkeypatch.setenv("IBCORE_SWEEP_JOBS", bad)
        with pytest.raises(ValueError, match="IBCORE_SWEEP_JOBS"):
            sweep(noisy_product, {"a": [1], "b": [1.0]}, cache=False, progress=False)
