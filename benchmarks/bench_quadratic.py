"""Benchmarks of ibcore.quadratic (pytest-benchmark).

Run with ``pytest benchmarks/bench_quadratic.py`` (``make bench``). Groups:

* ``quad-sgd-N1000``, ``quad-sgd-N10000``: the blocked SGD simulator
  (``role = "candidate"``) against drawing the same Gaussian inputs alone, in
  the same block sizes (``role = "baseline"``: the draw-only lower bound).
  Both functions run the same number of steps, so the ratio of medians is the
  cost per step relative to the bound (target, issue 25: 1.2).
* ``quad-sgd-runs-N64``, ``quad-sgd-runs-N512``: 16 runs of Part II ch. 4's scans
  ((p, p*) = (3, 2), γ/p = 0.04, random start, to t' = 2.5) on their overlaps, stepped
  together (``_sgd_overlaps_runs``, as the sweep runs ``sgd_frame_drift_trial``'s batch;
  ``role = "candidate"``), against the same 16 starts run one after the other by the
  weights' simulator ``sgd_one_pass`` (``role = "baseline"``): the same law, other numbers.
* ``quad-chain-alone-N100``, ``-N1000``, ``-N10000``: one run of (p, p*) = (4, 2), γ/p = 0.1,
  informative start, 2,000 steps, on its overlaps alone (``sgd_overlaps``, ``role =
  "candidate"``) against the same run by the weights' simulator (``sgd_one_pass``, ``role =
  "baseline"``): a chain step costs the same at every N, a weights step grows with N, so the
  ratio says from which N a run alone is cheaper on its overlaps (the chain's docstring).
* ``quad-ode-full``, ``quad-ode-reduced``: the ODEs with the γ² term for
  (p, p*) = (32, 4) from a random start with N = 10⁴, through norm learning, the
  plateau, the escape (t' ≈ 4) and convergence (to t' = 50, risk ≈ 4·10⁻⁵): the
  full matrix system (``integrate_odes``) and its exact reduction
  (``integrate_reduced``, exact for this isotropic start). Target (issue 25): under
  50 ms on an idle 2-core machine. The baseline of each group is the same call in
  ibcore as of ``IB_BENCH_BASELINE`` (a git revision, default: e9f4344, ``main`` before
  the second round of issue 25), imported from a ``git archive`` of it, so that the
  ratio is measured in one run.

Without pytest-benchmark, ``python benchmarks/bench_quadratic.py`` measures the
same things in CPU time (min and median of ``IB_BENCH_REPEAT`` interleaved runs, 9 by
default), with the evaluations of each ODE run and the load average, and prints the ratios.
"""
import os

import numpy as np
import pytest
from _baseline import baseline_module, baseline_or_skip, interleaved

import ibcore.quadratic as q

#: main before the second round of issue 25 (right-hand side in two products, stabilised
#: DOP853, one BLAS thread in the SGD simulator): the baseline of the ODE groups
BASELINE_REF = os.environ.get("IB_BENCH_BASELINE", "e9f434480f7915d8ed4b47bdd6bfdbf08d81deae")

P, P_STAR = 8, 4
LR = 0.01 * P
STEPS = {1_000: 10_000, 10_000: 2_000}


def _draw_only(N, steps, block):
    rng = np.random.default_rng(0)
    for _ in range(steps // block):
        rng.standard_normal((block, N))


@pytest.mark.parametrize("N", sorted(STEPS))
def bench_sgd_draw_inputs_only(benchmark, N):
    block = q.sgd._default_block(N)
    steps = STEPS[N] - STEPS[N] % block
    benchmark.group = f"quad-sgd-N{N}"
    benchmark.extra_info.update(role="baseline", steps=steps, N=N, block=block)
    benchmark(_draw_only, N, steps, block)


@pytest.mark.parametrize("N", sorted(STEPS))
def bench_sgd_simulator(benchmark, N):
    block = q.sgd._default_block(N)
    steps = STEPS[N] - STEPS[N] % block
    W0, W_star = q.random_init(P, P_STAR, N, informative=0.3, rng=0)
    benchmark.group = f"quad-sgd-N{N}"
    benchmark.extra_info.update(role="candidate", steps=steps, N=N, p=P, p_star=P_STAR, block=block)
    run = benchmark(q.sgd_one_pass, W0, W_star, lr=LR, n_steps=steps, rng=1)
    assert run.n_steps == steps


RUNS = 16
RUNS_SETTING = dict(lr=0.04 * 3, t_max=2.5)


def runs_problem(N):
    """16 random starts of (p, p*) = (3, 2) at N, and their input generators' seeds."""
    starts = [q.random_init(3, 2, N, rng=s) for s in range(RUNS)]
    return [w for w, _ in starts], [ws for _, ws in starts], [100 + s for s in range(RUNS)]


def _one_by_one(W0s, W_stars, seeds, N):
    return [q.sgd_one_pass(W0, Ws, rng=s, record_every=N // 10, **RUNS_SETTING)
            for W0, Ws, s in zip(W0s, W_stars, seeds)]


def _together(W0s, W_stars, seeds, N):
    starts = [q.overlaps(W0, Ws) for W0, Ws in zip(W0s, W_stars)]
    return q.overlap_chain._sgd_overlaps_runs(*zip(*starts), N=N, rngs=seeds, record_every=N // 10,
                                              **RUNS_SETTING)


@pytest.mark.parametrize("N", [64, 512])
@pytest.mark.parametrize("role", ["baseline", "candidate"])
def bench_sgd_runs_stepped_together(benchmark, N, role):
    W0s, W_stars, seeds = runs_problem(N)
    benchmark.group = f"quad-sgd-runs-N{N}"
    benchmark.extra_info.update(role=role, runs=RUNS, N=N, p=3, p_star=2)
    runs = benchmark(_together if role == "candidate" else _one_by_one, W0s, W_stars, seeds, N)
    assert len(runs) == RUNS


CHAIN_STEPS = 2_000


def chain_problem(N):
    """(p, p*) = (4, 2), gamma/p = 0.1, an informative start at N: the start and the run's settings."""
    W0, W_star = q.random_init(4, 2, N, informative=0.3, rng=0)
    return (W0, W_star), dict(lr=0.4, n_steps=CHAIN_STEPS, rng=1)


def _chain_alone(W0, W_star, N, settings):
    return q.sgd_overlaps(*q.overlaps(W0, W_star), N=N, **settings)


def _weights_alone(W0, W_star, N, settings):
    return q.sgd_one_pass(W0, W_star, **settings)


@pytest.mark.parametrize("N", [100, 1_000, 10_000])
@pytest.mark.parametrize("role", ["baseline", "candidate"])
def bench_chain_alone(benchmark, N, role):
    (W0, W_star), settings = chain_problem(N)
    benchmark.group = f"quad-chain-alone-N{N}"
    benchmark.extra_info.update(role=role, N=N, p=4, p_star=2, steps=CHAIN_STEPS)
    run = benchmark(_chain_alone if role == "candidate" else _weights_alone, W0, W_star, N, settings)
    assert run.n_steps == CHAIN_STEPS


def ode_problem():
    """(p, p*) = (32, 4), random isotropic start at N = 10^4, lr/p = 0.02, up to t' = 50."""
    p, p_star = 32, 4
    Q0, R0, T = q.initial_overlaps(p, p_star, 10_000, rng=0)
    return (Q0, R0, T), dict(lr=0.02 * p, t_max=50.0)


@pytest.fixture(scope="module")
def old():
    return baseline_or_skip(BASELINE_REF, "quadratic")


@pytest.mark.parametrize("system", ["full", "reduced"])
@pytest.mark.parametrize("role", ["baseline", "candidate"])
def bench_ode_escape_and_convergence(benchmark, system, role, request):
    args, kwargs = ode_problem()
    module = request.getfixturevalue("old") if role == "baseline" else q
    integrate = module.integrate_odes if system == "full" else module.integrate_reduced
    benchmark.group = f"quad-ode-{system}"
    benchmark.extra_info.update(role=role, p=32, p_star=4, t_max=50.0,
                                revision=BASELINE_REF if role == "baseline" else "this checkout")
    traj = benchmark(integrate, *args, **kwargs)
    assert traj.escape_time() < 10 and traj.risk[-1] < 1e-4


if __name__ == "__main__":
    # CPU time (a busy machine inflates it far less than wall time), min and median of interleaved runs
    repeat = int(os.environ.get("IB_BENCH_REPEAT", "9"))
    old = baseline_module(BASELINE_REF, "quadratic")
    print(f"{repeat} interleaved runs each, CPU time; load average before: {os.getloadavg()[0]:.1f}")
    for N, steps in sorted(STEPS.items()):
        block = q.sgd._default_block(N)
        steps -= steps % block
        W0, W_star = q.random_init(P, P_STAR, N, informative=0.3, rng=0)
        runs = {"draw": lambda: _draw_only(N, steps, block),
                "sgd": lambda: q.sgd_one_pass(W0, W_star, lr=LR, n_steps=steps, rng=1)}
        if old is not None:
            runs["old"] = lambda: old.sgd_one_pass(W0, W_star, lr=LR, n_steps=steps, rng=1)
        t = interleaved(runs, repeat)
        ratio = {k: (t[k][0] / t["draw"][0], t[k][1] / t["draw"][1]) for k in t}
        before = (f"; {BASELINE_REF[:10]}: {ratio['old'][1]:.2f} (min {ratio['old'][0]:.2f})"
                  if old is not None else "")
        print(f"SGD N={N}, p={P}, p*={P_STAR}, block={block}, {steps} steps: {t['sgd'][1] / steps * 1e6:.1f} us/step, "
              f"draw only {t['draw'][1] / steps * 1e6:.1f} us/step, ratio {ratio['sgd'][1]:.2f} "
              f"(min {ratio['sgd'][0]:.2f}){before}")
    for N in (64, 512):
        problem = runs_problem(N)
        t = interleaved({"one by one": lambda: _one_by_one(*problem, N),
                         "together": lambda: _together(*problem, N)}, repeat)
        steps = q.sgd_steps(RUNS_SETTING["t_max"], p=3, lr=RUNS_SETTING["lr"], N=N)
        per = {k: v[1] / (RUNS * steps) * 1e6 for k, v in t.items()}
        print(f"{RUNS} SGD runs, (p, p*) = (3, 2), N={N}, {steps} steps each: one by one "
              f"{per['one by one']:.2f} us per run-step, together {per['together']:.2f} "
              f"(median; ratio {t['together'][1] / t['one by one'][1]:.2f}, of mins "
              f"{t['together'][0] / t['one by one'][0]:.2f})")
    for N in (100, 1_000, 10_000):
        (W0, W_star), settings = chain_problem(N)
        t = interleaved({"weights": lambda: _weights_alone(W0, W_star, N, settings),
                         "chain": lambda: _chain_alone(W0, W_star, N, settings)}, repeat)
        per = {k: v[1] / CHAIN_STEPS * 1e6 for k, v in t.items()}
        print(f"one run, (p, p*) = (4, 2), N={N}, {CHAIN_STEPS} steps: weights {per['weights']:.1f} us/step, "
              f"chain alone {per['chain']:.1f} us/step (median; ratio chain/weights "
              f"{t['chain'][1] / t['weights'][1]:.2f}, of mins {t['chain'][0] / t['weights'][0]:.2f})")
    args, kwargs = ode_problem()
    for name in ("integrate_odes", "integrate_reduced"):
        runs = {"new": lambda: getattr(q, name)(*args, **kwargs)}
        if old is not None:
            runs["old"] = lambda: getattr(old, name)(*args, **kwargs)
        t = interleaved(runs, repeat)
        evals = {k: f().nfev for k, f in runs.items()}
        ratio = (f"; {BASELINE_REF[:10]}: median {t['old'][1] * 1e3:.0f} ms (min {t['old'][0] * 1e3:.0f}), "
                 f"{evals['old']} evaluations; ratio new/old {t['new'][1] / t['old'][1]:.2f} "
                 f"(of mins {t['new'][0] / t['old'][0]:.2f})" if old is not None else "")
        print(f"ODE (p, p*) = (32, 4) to t' = 50 with the lr^2 term, {name}: median {t['new'][1] * 1e3:.0f} ms "
              f"(min {t['new'][0] * 1e3:.0f}), {evals['new']} evaluations{ratio}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
