"""Benchmarks of ibcore.relu, for pytest-benchmark (a measurement, not a timed test).

Groups (the harness reports ratios of medians within a group):

* ``relu-gd-step``: one GD step at n = 200, d = 20,000, m = 1, in weight space
  (role ``baseline``, O(n d)) and in primal–dual form (role ``candidate``, O(n²)).
  Both time the very step methods that the solvers' loop calls. The one-off
  cost of forming K = X Xᵀ (O(n² d)) is benchmarked separately as ``gram-setup``.
* ``relu-gap-point``: one :func:`ibcore.relu.gap_trial` at d = 10^6 (n = 50), K drawn
  by Bartlett, GD to convergence, exact min-norm solve.

Without pytest-benchmark, ``python benchmarks/bench_relu.py`` measures the same
things with ``timeit`` and prints the ratio.
"""
import numpy as np
import pytest

import ibcore.relu as R
from ibcore.relu import _iteration

N, D = 200, 20_000
GAP_POINT = dict(n=50, d=10 ** 6)


def make_step_problem(seed=0):
    """One-neuron states of both forms at the notes' initialisation, with their step methods."""
    X = R.sample_features(N, D, rng=seed)
    y = np.random.default_rng(seed + 1).uniform(-1, 1, N)
    w0 = R.all_active_init(X, trace=D)
    setup = _iteration.prepare_gd(y, w0, init_name="w0", width=D, n=N, lr=R.lr_from_contraction(0.01, X),
                                  signs=None, max_steps=1, tol=0, record_every=None, activation="relu")
    dual = R.gd._DualIterate(X @ X.T, setup.init @ X.T, float(np.vdot(w0, w0)), setup)
    weight_space = R.reference._WeightIterate(X, setup)
    return X, dual.step, weight_space.step


@pytest.fixture(scope="module")
def step_problem():
    return make_step_problem()


def bench_gd_step_weight_space(benchmark, step_problem):
    benchmark.group = "relu-gd-step"
    benchmark.extra_info["role"] = "baseline"
    benchmark.extra_info.update(n=N, d=D, m=1)
    benchmark(step_problem[2])


def bench_gd_step_primal_dual(benchmark, step_problem):
    benchmark.group = "relu-gd-step"
    benchmark.extra_info["role"] = "candidate"
    benchmark.extra_info.update(n=N, d=D, m=1)
    benchmark(step_problem[1])


def bench_gram_setup(benchmark, step_problem):
    """The one-off K = X Xᵀ that the primal–dual form pays before its first step."""
    X = step_problem[0]
    benchmark.group = "gram-setup"
    benchmark.extra_info["role"] = "candidate"
    benchmark(lambda: X @ X.T)


@pytest.mark.parametrize("c", [0.01, 0.001])
def bench_gap_point_d_1e6(benchmark, c):
    benchmark.group = "relu-gap-point"
    benchmark.extra_info["role"] = "candidate"
    benchmark.extra_info.update(GAP_POINT, c=c)
    out = benchmark.pedantic(R.gap_trial, kwargs=dict(GAP_POINT, c=c, rng=0), rounds=3, iterations=1)
    assert out["success"]


if __name__ == "__main__":
    import time
    import timeit

    X, pd_step, ws_step = make_step_problem()
    t_pd = min(timeit.repeat(pd_step, number=2000, repeat=7)) / 2000
    t_ws = min(timeit.repeat(ws_step, number=20, repeat=7)) / 20
    t_k = min(timeit.repeat(lambda: X @ X.T, number=3, repeat=3)) / 3
    print(f"n={N}, d={D}, m=1, best of 7")
    print(f"  weight-space step : {t_ws * 1e3:8.3f} ms")
    print(f"  primal-dual step  : {t_pd * 1e6:8.1f} us")
    print(f"  ratio             : {t_ws / t_pd:8.0f} x")
    print(f"  K = X X^T (once)  : {t_k * 1e3:8.1f} ms  (= {t_k / t_ws:.0f} weight-space steps)")
    for c in (0.01, 0.001):
        times, outs = [], []
        for seed in range(3):
            t0 = time.perf_counter()
            outs.append(R.gap_trial(**GAP_POINT, c=c, rng=seed))
            times.append(time.perf_counter() - t0)
        print(f"gap_trial n={GAP_POINT['n']}, d={GAP_POINT['d']:.0e}, c={c}: median {np.median(times):.2f} s "
              f"({outs[0]['n_steps']} GD steps), gap/sqrt(n/d) = "
              + ", ".join(f"{o['gap_scaled']:.2f}" for o in outs))
