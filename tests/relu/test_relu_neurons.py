"""Two neurons, disjoint initialisations and bad initialisations (ibcore.relu.neurons, chapters 4-6)."""
import numpy as np
import pytest

import ibcore.relu as R


def gram_norm(K, coef):
    coef = np.atleast_2d(coef)
    return np.sqrt(np.einsum("ji,ik,jk->", coef, K, coef))


# ---------------------------------------------------------------------------
# two neurons


def test_orthogonal_limit_cases_and_conservation():
    y = np.array([0.9, 0.05, -0.02, -0.7, 0.2, -0.2])
    b = 0.1
    plus, minus = R.two_neuron_orthogonal_limit(y, b)
    np.testing.assert_allclose(plus, [0.9, 0.125, 0.09, 0.0, 0.2, 0.0])
    np.testing.assert_allclose(minus, [0.0, 0.075, 0.11, 0.7, 0.0, 0.2])
    np.testing.assert_allclose(plus - minus, y)  # the network fits every label
    coupled = np.abs(y) < 2 * b
    np.testing.assert_allclose((plus + minus)[coupled], 2 * b)  # β₊ + β₋ conserved where both stay active


def test_orthogonal_limit_matches_gd_on_orthogonal_data():
    """GD at step c on K = d·I reaches the gradient-flow limit up to the O(c|y|) overshoot."""
    n, d, b, c = 30, 500, 0.1, 0.002
    y = np.random.default_rng(0).uniform(-1, 1, n)
    K = d * np.eye(n)
    run = R.gradient_descent_gram(K, y, R.two_neuron_coef(K, scale=b, trace=d), lr=R.lr_from_contraction(c, K=K),
                                  record_every=0)
    assert run.converged
    np.testing.assert_allclose(run.beta, R.two_neuron_orthogonal_limit(y, b), atol=2 * c)
    gap = R.relative_gap_gram(K, run.coef, R.min_norm_pair_gram(K, y))
    assert abs(gap - R.two_neuron_orthogonal_gap(y, b)) < 2 * c


def test_orthogonal_gap_mean_square_is_4_b_cubed():
    y = np.random.default_rng(1).uniform(-1, 1, 200_000)
    for b in (0.05, 0.2):
        # one huge draw: the ratio of sums converges to E[num]/E[den] = 4 b³ (relative error ~1%)
        assert R.two_neuron_orthogonal_gap(y, b) ** 2 == pytest.approx(4 * b ** 3, rel=0.03)
    assert R.two_neuron_orthogonal_gap(y, 1e-9) < 1e-6


@pytest.mark.parametrize("bad", [dict(y=np.zeros(4), scale=0.1), dict(y=np.ones(4), scale=0.0),
                                 dict(y=np.ones(4), scale=-1.0), dict(y=np.ones((2, 2)), scale=0.1)])
def test_orthogonal_gap_validation(bad):
    with pytest.raises(ValueError):
        R.two_neuron_orthogonal_gap(**bad)


TWO_KEYS = {"gap", "gap_scaled", "orthogonal_gap", "decoupled", "predicted_decoupled", "wrong_share", "success",
            "max_residual", "unfit", "steps", "converged", "stabilisation_step", "reactivations"}


def test_two_neuron_trial_keys_reproducibility_and_regimes():
    out = R.two_neuron_trial(20, 1600, scale=0.1, rng=0)
    assert set(out) == TWO_KEYS and all(np.ndim(v) == 0 for v in out.values())
    assert out == R.two_neuron_trial(20, 1600, scale=0.1, rng=0)
    assert out["success"] and out["max_residual"] < R.FIT_TOL
    assert out["decoupled"] <= out["predicted_decoupled"] + 0.05
    big = R.two_neuron_trial(20, 1600, scale=1.0, rng=0)
    # b0 = 1 > max|y|/2: nothing decouples, and the gap is the orthogonal one up to the cross-talk
    assert big["success"] and big["decoupled"] == 0 and big["predicted_decoupled"] == 0
    assert big["gap"] == pytest.approx(big["orthogonal_gap"], rel=np.sqrt(20 / 1600))


def test_two_neuron_sweep_table_and_validation(tmp_path):
    table = R.two_neuron_sweep({"scale": [0.1, 0.3], "d": [400]}, n=10, trials=2, cache=tmp_path, n_jobs=1,
                               progress=False)
    assert table.shape == (4,)
    assert set(table.dtype.names) == {"scale", "d", "n", "trial"} | TWO_KEYS
    assert np.all(table["n"] == 10)
    with pytest.raises(ValueError, match="unknown"):
        R.two_neuron_sweep({"b0": [0.1]}, n=10, cache=False, progress=False)
    with pytest.raises(ValueError):
        R.two_neuron_trial(10, 100, scale=0.0)


# ---------------------------------------------------------------------------
# many neurons, disjoint initialisation


def disjoint_problem(n=24, d=2000, m=4, seed=2):
    rng = np.random.default_rng(seed)
    y = rng.uniform(-1, 1, n)
    K = R.sample_gram(n, d, rng=rng)
    signs = R.default_signs(m)
    return y, K, signs, R.sign_aligned_assignment(y, signs)


def test_disjoint_targets_satisfy_their_constraints():
    y, K, signs, a = disjoint_problem()
    nu = R.disjoint_targets_gram(K, y, a, signs)
    beta = nu @ K
    for j, s in enumerate(signs):
        own = a == j
        np.testing.assert_allclose(beta[j, own], s * y[own], atol=1e-10)
        assert np.all(beta[j, ~own] <= 1e-10)
        assert np.all(nu[j, ~own] <= 1e-12)  # multipliers of the inequality constraints
        assert np.all(np.abs(nu[j, ~own] * beta[j, ~own]) < 1e-10)  # complementary slackness


def test_disjoint_targets_need_a_sign_aligned_assignment():
    y, K, signs, a = disjoint_problem()
    wrong = a.copy()
    wrong[np.flatnonzero(y > 0)[0]] = 1  # a positive label on the negative neuron 1
    with pytest.raises(ValueError, match="s_j y_i > 0"):
        R.disjoint_targets_gram(K, y, wrong, signs)
    with pytest.raises(ValueError, match="assignment"):
        R.disjoint_targets_gram(K, y, np.full(y.size, 7), signs)


def test_linear_limit_structure():
    y, K, signs, a = disjoint_problem()
    alpha0 = R.disjoint_coef(K, a, m=signs.size, scale=0.3)
    limit, frozen = R.disjoint_linear_limit_gram(K, y, a, signs, alpha0)
    for j, s in enumerate(signs):
        own = a == j
        np.testing.assert_allclose((limit @ K)[j, own], s * y[own], atol=1e-10)  # interpolates S_j
        np.testing.assert_allclose((frozen @ K)[j, own], 0, atol=1e-10)  # frozen part ⟂ rows of S_j
    # limit - frozen lies in the span of each neuron's own rows
    assert np.all((limit - frozen)[a[None, :] != np.arange(signs.size)[:, None]] == 0)


def test_gd_reaches_the_linear_limit_when_the_pattern_is_kept():
    y, K, signs, a = disjoint_problem()
    alpha0 = R.disjoint_coef(K, a, m=signs.size, scale=0.3)
    run = R.gradient_descent_gram(K, y, alpha0, lr=R.lr_from_contraction(0.05, K=K), record_every=0)
    assert np.all(run.last_change == 0)
    limit, _ = R.disjoint_linear_limit_gram(K, y, a, signs, alpha0)
    assert gram_norm(K, run.coef - limit) / gram_norm(K, limit) < 1e-8


DISJOINT_KEYS = {"gap", "init_term", "relu_term", "gap_scaled", "relu_scaled", "linear_limit_error",
                 "pattern_kept", "foreign_active", "symmetric_norm_ratio", "success", "max_residual", "unfit",
                 "steps", "converged", "stabilisation_step", "reactivations"}


def test_disjoint_trial():
    out = R.disjoint_trial(40, 1600, 4, scale=0.3, c=0.05, rng=0)
    assert set(out) == DISJOINT_KEYS and all(np.ndim(v) == 0 for v in out.values())
    assert out["pattern_kept"] and out["success"] and out["foreign_active"] == 0
    assert out["linear_limit_error"] < 1e-8
    # first-order constants of chapter 5: init term b sqrt(3(m-1)) = 0.9, ReLU term sqrt(3/8) sqrt(n/d)
    assert out["init_term"] == pytest.approx(0.9, rel=0.25)
    assert out["relu_scaled"] == pytest.approx(np.sqrt(3 / 8), rel=0.4)
    assert out["symmetric_norm_ratio"] == pytest.approx(2, rel=0.15)
    assert out == R.disjoint_trial(40, 1600, 4, scale=0.3, c=0.05, rng=0)
    broken = R.disjoint_trial(40, 1600, 4, scale=0.01, c=0.05, rng=0)  # far below the cross-talk
    assert not broken["pattern_kept"] and broken["foreign_active"] > 0
    with pytest.raises(ValueError, match="at least 2"):
        R.disjoint_trial(10, 100, 1)


def test_disjoint_sweep(tmp_path):
    table = R.disjoint_sweep({"m": [2, 4], "d": [400]}, n=16, scale=0.5, c=0.05, trials=1, cache=tmp_path,
                             n_jobs=1, progress=False)
    assert table.shape == (2,) and set(table.dtype.names) == {"m", "d", "n", "scale", "c", "trial"} | DISJOINT_KEYS


# ---------------------------------------------------------------------------
# bad initialisations


def test_bad_init_weights():
    rng = np.random.default_rng(3)
    X = R.sample_features(12, 300, rng=rng)
    y = rng.uniform(-1, 1, 12)
    w0 = R.bad_init_weights("inactive_positive", X, y, scale=0.7, inactive=2)
    off = np.flatnonzero(y > 0)[:2]
    expected = np.full(12, 0.7)
    expected[off] = -0.7
    np.testing.assert_allclose(X @ w0, expected, atol=1e-10)
    assert R.bad_init_weights("gaussian", X, y, m=2, rng=0).shape == (2, 300)
    np.testing.assert_allclose(R.bad_init_weights("all_active", X, y, scale=1e-3), 1e-3 * X.sum(axis=0) / 300)
    with pytest.raises(ValueError, match="one neuron"):
        R.bad_init_weights("inactive_positive", X, y, m=2)
    with pytest.raises(ValueError, match="init must be"):
        R.bad_init_weights("zeros", X, y)
    with pytest.raises(ValueError, match="m must be"):
        R.bad_init_weights("gaussian", X, y, m=3)


def test_bad_init_trials():
    control = R.bad_init_trial(20, 400, init="all_active", scale=1.0, rng=0)
    assert control["success"] and control["never_active"] == 0 and abs(control["loss_excess"]) < 1e-12
    off = R.bad_init_trial(20, 400, init="inactive_positive", scale=1.0, rng=0)
    # frozen examples cost exactly y_i²/2n each and nothing else is lost
    assert off["never_active"] == 2 and off["unfit"] == 2 and not off["success"]
    assert off["loss_excess"] == pytest.approx(off["stuck_loss"], abs=1e-12)
    gauss = R.bad_init_trial(20, 400, init="gaussian", m=2, rng=0)
    assert gauss["inactive_at_init"] > 0 and gauss["loss_excess"] >= gauss["stuck_loss"] - 1e-12
    assert gauss == R.bad_init_trial(20, 400, init="gaussian", m=2, rng=0)
    with pytest.raises(ValueError, match="init must be"):
        R.bad_init_trial(20, 400, init="random")


def test_bad_init_sweep(tmp_path):
    table = R.bad_init_sweep([{"init": "gaussian", "scale": 1.0}, {"init": "all_active", "scale": 1e-3}], n=10, d=200,
                             trials=2, cache=tmp_path, n_jobs=1, progress=False)
    assert table.shape == (4,)
    assert list(table["init"]) == ["gaussian", "gaussian", "all_active", "all_active"]
