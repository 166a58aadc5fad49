"""Monte Carlo risk and one SGD run against the ODEs (the comparison behind chapters 1-2)."""
import numpy as np
import pytest

import ibcore.experiments.quadratic as E
import ibcore.quadratic as q
from ibcore.sweep import sweep


@pytest.mark.parametrize("informative,noise", [(0.0, 0.0), (0.6, 0.0), (0.3, 0.4)])
def test_monte_carlo_risk_matches_the_closed_form(informative, noise):
    """Within 5 standard errors of the Wick/Isserlis formula, whatever the state."""
    W, W_star = q.random_init(3, 2, 30, informative=informative, rng=1)
    mean, se = q.monte_carlo_risk(W, W_star, 60_000, noise=noise, rng=2, batch=7_000)
    exact = q.population_risk(*q.overlaps(W, W_star), noise=noise)
    assert 0 < se < 0.05 * exact
    assert abs(mean - exact) < 5 * se


def test_monte_carlo_risk_detects_a_wrong_formula_and_is_exact_at_zero_loss():
    W, W_star = q.random_init(3, 2, 30, informative=0.6, rng=3)
    mean, se = q.monte_carlo_risk(W, W_star, 60_000, rng=4)
    Q, R, T = q.overlaps(W, W_star)
    # dropping the Isserlis factor 2 in E[lambda_i^2 lambda_j^2] = Q_ii Q_jj + 2 Q_ij^2 is caught
    wrong = q.population_risk(Q, R, T) - np.sum(Q * Q) / 9 / 2
    assert abs(mean - wrong) > 5 * se
    # on the zero-loss manifold y_hat = y for every input: the estimate is 0 exactly
    W_zero = q.closest_zero_loss_weights(W, W_star)
    assert q.monte_carlo_risk(W_zero, W_star, 1000, rng=5).mean == pytest.approx(0.0, abs=1e-20)
    # same seed, same numbers
    assert tuple(q.monte_carlo_risk(W, W_star, 5000, rng=6)) == tuple(q.monte_carlo_risk(W, W_star, 5000, rng=6))


def test_sgd_ode_comparison_shares_start_and_clock():
    p, p_star, N, lr = 4, 2, 300, 0.4
    c = E.sgd_ode_comparison(p=p, p_star=p_star, N=N, lr=lr, t_max=1.0, informative=0.3, rng=0)
    np.testing.assert_array_equal(c.ode.t, c.sgd.t)
    np.testing.assert_array_equal(c.gradient_flow.t, c.sgd.t)
    assert c.sgd.n_steps == q.sgd_steps(1.0, p=p, lr=lr, N=N) == 3000
    assert c.sgd.t[-1] == pytest.approx(1.0)
    assert c.ode.lr == lr and c.gradient_flow.lr is None
    np.testing.assert_allclose(c.ode.Q[0], c.sgd.Q[0], atol=1e-12)
    np.testing.assert_allclose(c.ode.R[0], c.sgd.R[0], atol=1e-12)
    # an informative start: R(0) is O(1), not O(N^-1/2)
    assert np.linalg.norm(c.sgd.R[0]) > 0.2
    again = E.sgd_ode_comparison(p=p, p_star=p_star, N=N, lr=lr, t_max=1.0, informative=0.3, rng=0)
    np.testing.assert_array_equal(again.sgd.risk, c.sgd.risk)
    assert c.gap() == pytest.approx(np.max(np.abs(c.ode.risk - c.sgd.risk)))
    with pytest.raises(ValueError, match="^which "):
        c.gap("reduced")


def test_sgd_follows_the_second_order_ode_not_gradient_flow():
    """N = 500, lr/p = 0.1: the lr^2 term is needed; with it the gap is a few 1e-2 at most."""
    c = E.sgd_ode_comparison(p=4, p_star=2, N=500, lr=0.4, t_max=1.5, informative=0.3, rng=3)
    assert c.sgd.risk[-1] < 0.5 * c.sgd.risk[0]
    assert c.gap("ode") < 0.04
    assert c.gap("gradient_flow") > 2.5 * c.gap("ode")


def test_sgd_ode_gap_sweep(tmp_path):
    kw = dict(fixed=dict(p=3, p_star=2, lr=0.3, t_max=0.5), trials=2, seed=1, n_jobs=1, cache=tmp_path,
              progress=False)
    table = sweep(E.sgd_ode_gap_trial, {"N": [100, 200]}, **kw)
    assert len(table) == 4
    assert set(table.columns) >= {"p", "p_star", "N", "lr", "trial", "gap", "gap_gradient_flow",
                                      "risk_start", "risk_end"}
    assert np.all(table["gap"] > 0) and np.all(np.isfinite(table["gap_gradient_flow"]))
    again = sweep(E.sgd_ode_gap_trial, {"N": [100, 200]}, **kw)
    np.testing.assert_array_equal(table["gap"], again["gap"])


@pytest.mark.parametrize("call,name", [
    (lambda: q.monte_carlo_risk(np.ones((2, 5)), np.ones((1, 4)), 10), "W_star"),
    (lambda: q.monte_carlo_risk(np.ones((2, 5)), np.ones((1, 5)), 0), "n_samples"),
    (lambda: q.monte_carlo_risk(np.ones((2, 5)), np.ones((1, 5)), 10, noise=-1), "noise"),
    (lambda: E.sgd_ode_comparison(p=3, p_star=2, N=100, lr=0.0, t_max=1.0), "lr"),
    (lambda: E.sgd_ode_comparison(p=3, p_star=2, N=100, lr=0.1, t_max=-1.0), "t_max"),
    (lambda: E.sgd_ode_comparison(p=3, p_star=2, N=100, lr=0.1, t_max=1.0, informative=-0.1),
     "informative"),
])
def test_validation(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


@pytest.mark.parametrize("scale", [None, 1.1])
def test_monte_carlo_risk_standard_error_and_batches(scale):
    """The standard error is that of the mean: over 400 seeds the spread of the estimates matches
    the mean reported standard error (the spread is itself known to about 3.5%, so 12% allowed),
    for a loss variance above and below 1; without label noise the batch size only splits the
    same draws (the same estimate); one sample counts; the batch is refused by its name."""
    W, W_star = q.random_init(3, 2, 30, informative=0.3, rng=1)
    if scale is not None:  # near the zero-loss manifold: a loss variance of about 0.01
        W = scale * q.closest_zero_loss_weights(W, W_star)
    runs = [q.monte_carlo_risk(W, W_star, 2000, rng=seed) for seed in range(400)]
    means, ses = np.array([r.mean for r in runs]), np.array([r.stderr for r in runs])
    assert np.std(means, ddof=1) == pytest.approx(np.mean(ses), rel=0.12)
    one = q.monte_carlo_risk(W, W_star, 2000, rng=3, batch=2000)
    split = q.monte_carlo_risk(W, W_star, 2000, rng=3, batch=7)
    assert split.mean == pytest.approx(one.mean, rel=1e-12) and split.stderr == pytest.approx(one.stderr, rel=1e-9)
    assert q.monte_carlo_risk(W, W_star, 1, rng=3).mean > 0
    with pytest.raises(ValueError, match=r"^batch\b"):
        q.monte_carlo_risk(W, W_star, 10, batch=0)
