"""Benchmarks of ibcore.relu, for pytest-benchmark (a measurement, not a timed test).

Groups (the harness reports ratios of medians within a group):

* ``relu-gd-step``: one GD step at n = 200, d = 20,000, m = 1, in weight space
  (role ``baseline``, O(n d)) and in primal–dual form (role ``candidate``, O(n²)).
  Both time the very step methods that the solvers' loop calls. The one-off
  cost of forming K = X Xᵀ (O(n² d)) is benchmarked separately as ``gram-setup``.
* ``relu-gd-loop-n{n}-m{m}``: the whole GD loop (``run_gd`` of the primal–dual form,
  divergence check, pattern bookkeeping and stopping test included) over
  ``LOOP_STEPS`` steps of a Gram-only run at d = 10⁶, c = 0.001, for n = 20, 160
  and m = 1, 4: the part of Part I's sweeps where small n leaves numpy's per-call
  cost to dominate. The baseline is the same loop in ibcore as of
  ``IB_BENCH_GD_BASELINE`` (a git revision, default 6f3b315: ``main`` before the
  loop's buffers), imported from a ``git archive`` of it; the ratio is per step.
* ``relu-gd-runs-n{n}-m{m}``: 16 Gram-only runs as in ``gap_trial`` (d = 10⁶,
  c = 0.01, tol = 10⁻⁹, to convergence) stepped together (``gd._gradient_descent_runs``,
  as a sweep runs the trials' batches; role ``candidate``) against the same 16 runs one
  by one through ``gradient_descent`` (role ``baseline``), n = 20, 160, m = 1, 2.
* ``relu-gap-point``: one :func:`ibcore.experiments.relu.gap_trial` at d = 10^6 (n = 50), K drawn
  by Bartlett, GD to convergence, exact min-norm solve.

Without pytest-benchmark, ``python benchmarks/bench_relu.py`` measures the same
things with ``timeit`` and prints the ratios; the loop in CPU time, min and median
of ``IB_BENCH_REPEAT`` interleaved runs (9 by default).
"""
import os

import numpy as np
import pytest
from _baseline import baseline_module, baseline_or_skip, interleaved

import ibcore.experiments.relu as E
import ibcore.relu as R
from ibcore.relu import _iteration
from tests.relu.weight_space import WeightIterate

N, D = 200, 20_000
GAP_POINT = dict(n=50, d=10 ** 6)

#: main before the GD loop wrote into buffers: the baseline of the relu-gd-loop groups
LOOP_BASELINE_REF = os.environ.get("IB_BENCH_GD_BASELINE", "6f3b315dacaf32b05537e4630f400840215054a1")
LOOP_CASES = [(20, 1), (20, 4), (160, 1), (160, 4)]
LOOP_STEPS = 2000


def make_step_problem(seed=0):
    """One-neuron states of both forms at the notes' initialisation, with their step methods."""
    X = R.sample_features(N, D, rng=seed)
    y = np.random.default_rng(seed + 1).uniform(-1, 1, N)
    w0 = R.all_active_init(X, trace=D)
    setup = _iteration.prepare_gd(y, w0, init_name="w0", width=D, n=N, lr=R.lr_from_contraction(0.01, X),
                                  signs=None, max_steps=1, tol=0, record_every=None, activation="relu")
    run = R.gd._Prepared(setup, X @ X.T, setup.init @ X.T, float(np.vdot(w0, w0)), float("inf"), None, None)
    dual = R.gd._DualIterates([run])  # a stack of one run, as gradient_descent steps it
    weight_space = WeightIterate(X, y, setup.init, setup.signs, setup.lr)
    return X, dual.step, weight_space.step


def loop_problem(n, m, seed=0):
    """A Gram-only run as in gap_trial (d = 10⁶, c = 0.001, y ~ U[-1, 1]), m neurons near the all-active start."""
    rng = np.random.default_rng(seed)
    K = R.sample_gram(n, 10 ** 6, rng=rng)
    y = R.sample_labels(n, rng=rng)
    alpha0 = R.all_active_init_gram(K, m=m, trace=10 ** 6) * (1 + 0.3 * rng.standard_normal((m, n)))
    return {"K": K, "y": y, "alpha0": alpha0[0] if m == 1 else alpha0, "lr": R.lr_from_contraction_gram(0.001, K) / m}


def run_loop(relu, problem, steps=LOOP_STEPS):
    """``steps`` steps of the primal–dual loop of ``relu`` (this ibcore.relu or a baseline's).

    What ``gradient_descent_gram`` runs after its checks, which are left
    out (an eigendecomposition of K would weigh on the ratio at n = 160).
    ``tol > 0``, so the stopping test runs every step, but is not met.
    """
    K, A0 = problem["K"], problem["alpha0"]
    setup = relu._iteration.prepare_gd(problem["y"], A0, init_name="alpha0", width=K.shape[0], n=K.shape[0],
                                       lr=problem["lr"], signs=None, max_steps=steps, tol=1e-12,
                                       record_every=None, activation="relu")
    beta0 = setup.init @ K
    if hasattr(relu.gd, "_run_stack"):  # one loop for one run or a stack of runs
        run = relu.gd._Prepared(setup, K, beta0, float(np.vdot(setup.init, beta0)), float("inf"), None, setup.init)
        (res,) = relu.gd._run_stack([run])
    else:
        state = relu.gd._DualIterate(K, beta0, float(np.vdot(setup.init, beta0)), setup)
        res = relu._iteration.run_gd(state, setup, bound=float("inf"), alpha0=setup.init)
    assert res.n_steps == steps
    return res


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


@pytest.fixture(scope="module")
def old_relu():
    return baseline_or_skip(LOOP_BASELINE_REF, "relu")


@pytest.mark.parametrize("n, m", LOOP_CASES)
@pytest.mark.parametrize("role", ["baseline", "candidate"])
def bench_gd_loop(benchmark, n, m, role, request):
    relu = request.getfixturevalue("old_relu") if role == "baseline" else R
    problem = loop_problem(n, m)
    benchmark.group = f"relu-gd-loop-n{n}-m{m}"
    benchmark.extra_info.update(role=role, n=n, m=m, steps=LOOP_STEPS,
                                revision=LOOP_BASELINE_REF if role == "baseline" else "this checkout")
    benchmark(run_loop, relu, problem)


RUNS = 16
RUNS_CASES = [(20, 1), (20, 2), (160, 1), (160, 2)]


def runs_problem(n, m):
    """16 gradient_descent calls of one shape, as a sweep point's trials make them."""
    calls = []
    for seed in range(RUNS):
        p = loop_problem(n, m, seed=seed)
        calls.append(dict(p, lr=p["lr"] * 10, tol=1e-9, max_steps=100_000))  # c = 0.01
    return calls


def one_by_one(calls):
    def alone(K, y, alpha0, **kw):
        return R.gradient_descent_gram(K, y, alpha0, **kw)
    return [_iteration.without_inactive_warning(alone, **call) for call in calls]


def together(calls):
    return _iteration.without_inactive_warning(R.gd._gradient_descent_runs, calls)


@pytest.mark.parametrize("n, m", RUNS_CASES)
@pytest.mark.parametrize("role", ["baseline", "candidate"])
def bench_gd_runs_stepped_together(benchmark, n, m, role):
    calls = runs_problem(n, m)
    benchmark.group = f"relu-gd-runs-n{n}-m{m}"
    benchmark.extra_info.update(role=role, n=n, m=m, runs=RUNS)
    results = benchmark.pedantic(together if role == "candidate" else one_by_one,
                                 args=(calls,), rounds=3, iterations=1)
    assert all(r.success for r in results)


@pytest.mark.parametrize("c", [0.01, 0.001])
def bench_gap_point_d_1e6(benchmark, c):
    benchmark.group = "relu-gap-point"
    benchmark.extra_info["role"] = "candidate"
    benchmark.extra_info.update(GAP_POINT, c=c)
    out = benchmark.pedantic(E.gap_trial, kwargs=dict(GAP_POINT, c=c, rng=0), rounds=3, iterations=1)
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
    repeat = int(os.environ.get("IB_BENCH_REPEAT", "9"))
    old = baseline_module(LOOP_BASELINE_REF, "relu")
    print(f"GD loop, {LOOP_STEPS} steps, CPU time per step, {repeat} interleaved runs; "
          f"baseline {LOOP_BASELINE_REF[:10]}; load average before: {os.getloadavg()[0]:.1f}")
    for n, m in LOOP_CASES:
        problem = loop_problem(n, m)
        runs = {"new": lambda problem=problem: run_loop(R, problem)}
        if old is not None:
            runs["old"] = lambda problem=problem: run_loop(old, problem)
        t = {k: (lo / LOOP_STEPS, med / LOOP_STEPS) for k, (lo, med) in interleaved(runs, repeat).items()}
        line = f"  n={n:4d} m={m}: median {t['new'][1] * 1e6:6.2f} us (min {t['new'][0] * 1e6:6.2f})"
        if old is not None:
            line += (f", baseline {t['old'][1] * 1e6:6.2f} us (min {t['old'][0] * 1e6:6.2f}): "
                     f"baseline/new {t['old'][1] / t['new'][1]:.2f} (of mins {t['old'][0] / t['new'][0]:.2f})")
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print(f"{RUNS} GD runs to convergence (d = 10^6, c = 0.01), CPU time, {repeat} interleaved runs")
    for n, m in RUNS_CASES:
        calls = runs_problem(n, m)
        t = interleaved({"together": lambda calls=calls: together(calls),
                         "one by one": lambda calls=calls: one_by_one(calls)}, repeat)
        print(f"  n={n:4d} m={m}: together {t['together'][1] * 1e3:7.1f} ms, one by one "
              f"{t['one by one'][1] * 1e3:7.1f} ms (medians): ratio {t['together'][1] / t['one by one'][1]:.2f}")
    for c in (0.01, 0.001):
        times, outs = [], []
        for seed in range(3):
            t0 = time.perf_counter()
            outs.append(E.gap_trial(**GAP_POINT, c=c, rng=seed))
            times.append(time.perf_counter() - t0)
        print(f"gap_trial n={GAP_POINT['n']}, d={GAP_POINT['d']:.0e}, c={c}: median {np.median(times):.2f} s "
              f"({outs[0]['n_steps']} GD steps), gap/sqrt(n/d) = "
              + ", ".join(f"{o['gap_scaled']:.2f}" for o in outs))
