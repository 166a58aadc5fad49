"""Benchmarks of ibcore.quadratic (pytest-benchmark).

Run with ``pytest benchmarks/bench_quadratic.py`` (``make bench``). Groups:

* ``quad-sgd-N1000``, ``quad-sgd-N10000``: the blocked SGD simulator
  (``role = "candidate"``) against drawing the same Gaussian inputs alone, in
  the same block sizes (``role = "baseline"``: the draw-only lower bound).
  Both functions run the same number of steps, so the ratio of medians is the
  cost per step relative to the bound (target: below 2).
* ``quad-ode``: the full matrix ODEs with the γ² term for (p, p*) = (32, 4)
  from a random start with N = 10⁴, through norm learning, the plateau, the
  escape (t' ≈ 4) and convergence (to t' = 50, risk ≈ 4·10⁻⁵). Target: well
  under a second.

Without pytest-benchmark, ``python benchmarks/bench_quadratic.py`` measures the
same things with ``timeit`` and prints the ratios.
"""
import numpy as np
import pytest

import ibcore.quadratic as q

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


def ode_problem():
    """(p, p*) = (32, 4), random isotropic start at N = 10^4, lr/p = 0.02, up to t' = 50."""
    p, p_star = 32, 4
    Q0, R0, T = q.initial_overlaps(p, p_star, 10_000, rng=0)
    return (Q0, R0, T), dict(lr=0.02 * p, t_max=50.0)


def bench_ode_escape_and_convergence(benchmark):
    args, kwargs = ode_problem()
    benchmark.group = "quad-ode"
    benchmark.extra_info.update(role="candidate", p=32, p_star=4, t_max=50.0)
    traj = benchmark(q.integrate_odes, *args, **kwargs)
    assert traj.escape_time() < 10 and traj.risk[-1] < 1e-4


if __name__ == "__main__":
    import timeit

    for N, steps in sorted(STEPS.items()):
        block = q.sgd._default_block(N)
        steps -= steps % block
        W0, W_star = q.random_init(P, P_STAR, N, informative=0.3, rng=0)
        t_draw = min(timeit.repeat(lambda: _draw_only(N, steps, block), number=1, repeat=7)) / steps
        t_sgd = min(timeit.repeat(lambda: q.sgd_one_pass(W0, W_star, lr=LR, n_steps=steps, rng=1),
                                  number=1, repeat=7)) / steps
        print(f"SGD N={N}, p={P}, p*={P_STAR}, block={block}: {t_sgd * 1e6:.1f} us/step, "
              f"draw only {t_draw * 1e6:.1f} us/step, ratio {t_sgd / t_draw:.2f}")
    args, kwargs = ode_problem()
    t_ode = min(timeit.repeat(lambda: q.integrate_odes(*args, **kwargs), number=1, repeat=7))
    t_red = min(timeit.repeat(lambda: q.integrate_reduced(*args, **kwargs), number=1, repeat=7))
    print(f"ODE (p, p*) = (32, 4) to t' = 50 with the lr^2 term: full {t_ode * 1e3:.0f} ms, "
          f"reduced {t_red * 1e3:.0f} ms")
