"""The blocked SGD simulator: equality with the plain recursion, and agreement with the ODEs."""
import numpy as np
import pytest

import ibcore.quadratic as q
from ibcore import DivergenceError


@pytest.mark.parametrize("noise", [0.0, 0.2])
@pytest.mark.parametrize("block", [16, 5, 1])
def test_blocked_equals_step_by_step(noise, block):
    W0, W_star = q.random_init(4, 2, 300, informative=0.3, rng=0)
    kw = dict(lr=0.2, n_steps=2000, rng=7, noise=noise, record_every=37)
    ref = q.sgd_one_pass_reference(W0, W_star, **kw)
    fast = q.sgd_one_pass(W0, W_star, block=block, **kw)
    np.testing.assert_array_equal(fast.step, ref.step)
    np.testing.assert_array_equal(fast.t, ref.t)
    assert fast.step[0] == 0 and fast.n_steps == 2000 and fast.success and ref.success
    assert np.max(np.abs(fast.W - ref.W)) < 1e-12 * np.max(np.abs(ref.W))
    assert np.max(np.abs(fast.Q - ref.Q)) < 1e-12
    assert np.max(np.abs(fast.risk - ref.risk)) < 1e-12
    # the run actually moved (the check is not comparing two copies of W0)
    assert np.max(np.abs(ref.W - W0)) > 0.1


def test_runs_are_reproducible_and_seeds_differ():
    W0, W_star = q.random_init(3, 2, 200, rng=1)
    a = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=3)
    b = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=np.random.default_rng(3))
    c = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=4)
    np.testing.assert_array_equal(a.W, b.W)
    assert np.max(np.abs(a.W - c.W)) > 1e-3


def test_record_steps_and_stop_below():
    W0, W_star = q.random_init(3, 2, 200, informative=0.5, rng=2)
    rec = np.array([0, 10, 100, 1000, 4000])
    run = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0, record_steps=rec)
    np.testing.assert_array_equal(run.step, rec)
    assert run.step.dtype.kind == "i" and isinstance(run.n_steps, int)
    np.testing.assert_allclose(run.t, 0.15 / 3 * rec / 200)
    Q, R, T = q.overlaps(run.W, W_star)
    np.testing.assert_allclose(run.Q[-1], Q, atol=1e-14)
    assert run.risk[0] == pytest.approx(q.population_risk(*q.overlaps(W0, W_star)))
    level = 0.5 * run.risk[0]
    stopped = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0, record_every=20, stop_below=level)
    assert stopped.success and stopped.risk[-1] < level <= stopped.risk[-2]
    assert stopped.n_steps < 4000
    missed = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=40, rng=0, record_every=20, stop_below=level)
    assert not missed.success and missed.n_steps == 40
    # record_every=None records the end state only, the same state as a recorded run's last
    end = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0)
    np.testing.assert_array_equal(end.step, [4000])
    np.testing.assert_allclose(end.Q[0], run.Q[-1], atol=1e-12)


def test_t_max_is_the_one_clock():
    """t_max in t' = (lr/p) steps/N gives round(t_max p N / lr) steps, and the records carry t'."""
    W0, W_star = q.random_init(4, 2, 300, rng=3)
    run = q.sgd_one_pass(W0, W_star, lr=0.4, t_max=1.0, rng=1, record_every=100)
    assert run.n_steps == q.sgd_steps(1.0, p=4, lr=0.4, N=300) == 3000
    assert run.t[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(run.t, q.sgd_time(run.step, p=4, lr=0.4, N=300))
    same = q.sgd_one_pass(W0, W_star, lr=0.4, n_steps=3000, rng=1, record_every=100)
    np.testing.assert_array_equal(run.W, same.W)
    # one rounding rule: the nearest whole step, at least one
    assert q.sgd_steps(1.0, p=4, lr=0.4, N=299) == round(1.0 * 4 / 0.4 * 299)
    assert q.sgd_steps(1e-9, p=1, lr=1.0, N=10) == 1


def test_divergence_reports_the_same_step_as_the_reference():
    W0, W_star = q.random_init(4, 2, 500, informative=0.3, rng=0)
    steps = []
    for run in (q.sgd_one_pass, q.sgd_one_pass_reference):
        with pytest.raises(DivergenceError) as info:
            run(W0, W_star, lr=5.0, n_steps=3000, rng=5)
        steps.append(info.value.step)
    assert steps[0] == steps[1]
    assert 1 < steps[0] < 3000
    with pytest.raises(DivergenceError) as info:
        q.sgd_one_pass(W0, W_star, lr=5.0, n_steps=3000, rng=5, block=1)
    err = info.value
    assert err.step == steps[0] and err.unit == "SGD step"
    assert err.time == pytest.approx(5.0 / 4 * steps[0] / 500) and "t′" in str(err)


def test_sgd_tracks_the_second_order_ode():
    """N = 1000, informative start (notes' addendum): |risk_SGD - risk_ODE| < 0.02 all along.

    Controls: the gradient-flow ODE (no lr^2 term) and an ODE with a 25% wrong
    learning rate are detectably further from the same SGD run.
    """
    p, p_star, N = 4, 2, 1000
    lr = 0.02 * p
    W0, W_star = q.random_init(p, p_star, N, informative=0.3, rng=0)
    run = q.sgd_one_pass(W0, W_star, lr=lr, t_max=3.0, rng=100, record_every=250)
    Q0, R0, T = q.overlaps(W0, W_star)

    def gap(clock=1.0, **kw):
        ode = q.integrate_odes(Q0, R0, T, t_eval=clock * run.t, **kw)
        return np.max(np.abs(ode.risk - run.risk))

    right = gap(lr=lr)
    gradient_flow = gap()
    wrong_lr = gap(lr=1.25 * lr, clock=1.25)   # a wrong lr also runs the clock t' = (lr/p) steps/N fast
    assert run.risk[-1] < 0.05 * run.risk[0]        # the run escapes and converges
    assert right < 0.02
    assert gradient_flow > 2 * right and gradient_flow > 0.02
    assert wrong_lr > 0.05


def test_sgd_runs_its_products_on_one_blas_thread():
    """Inside the simulator BLAS is limited to one thread, and the setting is restored after."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    controller = threadpoolctl.ThreadpoolController()
    blas = controller.select(user_api="blas")
    if not blas.lib_controllers:
        pytest.skip("no BLAS library found by threadpoolctl")

    def threads():
        found = threadpoolctl.ThreadpoolController().select(user_api="blas")
        return [lib.num_threads for lib in found.lib_controllers]

    before = [lib.num_threads for lib in blas.lib_controllers]
    with q.sgd._one_blas_thread():
        inside = threads()
    after = threads()
    assert inside == [1] * len(before) and after == before
