"""The blocked SGD simulator: equality with the plain recursion, and agreement with the ODEs."""
import numpy as np
import pytest

import ibcore.quadratic as q
from ibcore import DivergenceError


@pytest.mark.parametrize("noise", [0.0, 0.2])
@pytest.mark.parametrize("block", [16, 5, 1])
def test_blocked_equals_step_by_step(noise, block):
    W0, W_star = q.random_init(4, 2, 300, informative=0.3, rng=0)
    kw = dict(lr=0.2, steps=2000, rng=7, noise=noise, record_every=37)
    ref = q.sgd_one_pass_reference(W0, W_star, **kw)
    fast = q.sgd_one_pass(W0, W_star, block=block, **kw)
    np.testing.assert_array_equal(fast.steps, ref.steps)
    assert fast.steps[0] == 0 and fast.steps[-1] == 2000
    assert np.max(np.abs(fast.W - ref.W)) < 1e-12 * np.max(np.abs(ref.W))
    assert np.max(np.abs(fast.Q - ref.Q)) < 1e-12
    assert np.max(np.abs(fast.risk - ref.risk)) < 1e-12
    # the run actually moved (the check is not comparing two copies of W0)
    assert np.max(np.abs(ref.W - W0)) > 0.1


def test_runs_are_reproducible_and_seeds_differ():
    W0, W_star = q.random_init(3, 2, 200, rng=1)
    a = q.sgd_one_pass(W0, W_star, lr=0.1, steps=500, rng=3)
    b = q.sgd_one_pass(W0, W_star, lr=0.1, steps=500, rng=np.random.default_rng(3))
    c = q.sgd_one_pass(W0, W_star, lr=0.1, steps=500, rng=4)
    np.testing.assert_array_equal(a.W, b.W)
    assert np.max(np.abs(a.W - c.W)) > 1e-3


def test_record_steps_and_stop_below():
    W0, W_star = q.random_init(3, 2, 200, informative=0.5, rng=2)
    rec = np.array([0, 10, 100, 1000, 4000])
    run = q.sgd_one_pass(W0, W_star, lr=0.15, steps=4000, rng=0, record_steps=rec)
    np.testing.assert_array_equal(run.steps, rec)
    np.testing.assert_allclose(run.alpha, rec / 200)
    Q, R, T = q.overlaps(run.W, W_star)
    np.testing.assert_allclose(run.Q[-1], Q, atol=1e-14)
    assert run.risk[0] == pytest.approx(q.population_risk(*q.overlaps(W0, W_star)))
    level = 0.5 * run.risk[0]
    stopped = q.sgd_one_pass(W0, W_star, lr=0.15, steps=4000, rng=0, record_every=20, stop_below=level)
    assert stopped.stopped and stopped.risk[-1] < level <= stopped.risk[-2]
    assert stopped.steps[-1] < 4000


def test_divergence_reports_the_same_step_as_the_reference():
    W0, W_star = q.random_init(4, 2, 500, informative=0.3, rng=0)
    steps = []
    for run in (q.sgd_one_pass, q.sgd_one_pass_reference):
        with pytest.raises(DivergenceError) as info:
            run(W0, W_star, lr=5.0, steps=3000, rng=5)
        steps.append(info.value.step)
    assert steps[0] == steps[1]
    assert 1 < steps[0] < 3000
    with pytest.raises(DivergenceError) as info:
        q.sgd_one_pass(W0, W_star, lr=5.0, steps=3000, rng=5, block=1)
    assert info.value.step == steps[0]


def test_sgd_tracks_the_second_order_ode():
    """N = 1000, informative start (notes' addendum): |risk_SGD - risk_ODE| < 0.02 all along.

    Controls: the gradient-flow ODE (no lr^2 term) and an ODE with a 25% wrong
    learning rate are detectably further from the same SGD run.
    """
    p, p_star, N = 4, 2, 1000
    lr = 0.02 * p
    W0, W_star = q.random_init(p, p_star, N, informative=0.3, rng=0)
    run = q.sgd_one_pass(W0, W_star, lr=lr, steps=int(3.0 / 0.02 * N), rng=100, record_every=250)
    Q0, R0, T = q.overlaps(W0, W_star)

    def gap(**kw):
        ode = q.integrate_odes(Q0, R0, T, alpha_max=run.alpha[-1], alpha_eval=run.alpha, **kw)
        return np.max(np.abs(ode.risk - run.risk))

    right = gap(lr=lr)
    gradient_flow = gap(lr=lr, second_order=False)
    wrong_lr = gap(lr=1.25 * lr)
    assert run.risk[-1] < 0.05 * run.risk[0]        # the run escapes and converges
    assert right < 0.02
    assert gradient_flow > 2 * right and gradient_flow > 0.02
    assert wrong_lr > 0.05


def test_sgd_escape_trial_smoke():
    table = q.sgd_escape_times(3, 2, 200, 0.3, trials=1, seed=0, n_jobs=1, cache=False,
                               progress=False)
    assert table.shape == (1,)
    t_sgd, t_ode = table["t_esc_sgd"][0], table["t_esc_ode"][0]
    assert 0.2 < t_sgd < 5 and 0.2 < t_ode < 5
