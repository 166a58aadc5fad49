"""The network trials: two neurons, a disjoint start and bad starts (ibcore.experiments.relu.networks)."""
import numpy as np
import pytest

import ibcore.experiments.relu as E
import ibcore.relu as R
from ibcore.sweep import sweep

TWO_KEYS = {"gap", "gap_scaled", "orthogonal_gap", "decoupled", "predicted_decoupled", "wrong_share", "success",
            "max_residual", "unfit", "max_unfit_label", "n_steps", "converged", "stabilisation_step", "reactivations"}


def test_two_neuron_trial_keys_reproducibility_and_regimes():
    out = E.two_neuron_trial(n=20, d=1600, b0=0.1, rng=0)
    assert set(out) == TWO_KEYS and all(np.ndim(v) == 0 for v in out.values())
    assert out == E.two_neuron_trial(n=20, d=1600, b0=0.1, rng=0)
    assert out["success"] and out["max_residual"] < R.FIT_TOL
    assert out["decoupled"] <= out["predicted_decoupled"] + 0.05
    big = E.two_neuron_trial(n=20, d=1600, b0=1.0, rng=0)
    # b0 = 1 > max|y|/2: nothing decouples, and the gap is the orthogonal one up to the cross-talk
    assert big["success"] and big["decoupled"] == 0 and big["predicted_decoupled"] == 0
    assert big["gap"] == pytest.approx(big["orthogonal_gap"], rel=np.sqrt(20 / 1600))


def test_two_neuron_trial_is_the_computation_by_hand():
    out = E.two_neuron_trial(n=12, d=900, b0=0.05, c=0.02, rng=5)
    rng = np.random.default_rng(5)
    y = R.sample_labels(12, rng=rng)
    K = R.sample_gram(12, 900, rng=rng)
    run = R.gradient_descent_gram(K, y, R.two_neuron_init_gram(K, b0=0.05, trace=900), lr=R.lr_from_contraction_gram(0.02, K), max_steps=200_000, record_every=None)
    assert out["gap"] == R.relative_gap_gram(K, run.coef, R.min_norm_pair_gram(K, y))
    assert out["n_steps"] == run.n_steps


def test_two_neuron_sweep_table(tmp_path):
    table = sweep(E.two_neuron_trial, {"b0": [0.1, 0.3], "d": [400]}, fixed={"n": 10}, trials=2, cache=tmp_path,
                  n_jobs=1, progress=False)
    assert len(table) == 4
    assert set(table.columns) == {"b0", "d", "n", "trial"} | TWO_KEYS
    with pytest.raises(ValueError, match="unknown"):
        sweep(E.two_neuron_trial, {"scale": [0.1]}, fixed={"n": 10}, cache=False, progress=False)


DISJOINT_KEYS = {"gap", "closest_gap", "init_term", "relu_term", "gap_scaled", "relu_scaled", "linear_limit_error",
                 "pattern_kept", "foreign_active", "symmetric_norm_ratio", "success", "max_residual", "unfit",
                 "max_unfit_label", "n_steps", "converged", "stabilisation_step", "reactivations"}


def test_disjoint_trial():
    out = E.disjoint_trial(n=40, d=1600, m=4, b0=0.3, c=0.05, rng=0)
    assert set(out) == DISJOINT_KEYS and all(np.ndim(v) == 0 for v in out.values())
    assert out["pattern_kept"] and out["success"] and out["foreign_active"] == 0
    assert out["linear_limit_error"] < 1e-8 and out["closest_gap"] < 1e-8
    # first-order constants of chapter 5: init term b0 sqrt(3(m-1)) = 0.9, ReLU term sqrt(3/8) sqrt(n/d)
    assert out["init_term"] == pytest.approx(0.9, rel=0.25)
    assert out["relu_scaled"] == pytest.approx(np.sqrt(3 / 8), rel=0.4)
    assert out["symmetric_norm_ratio"] == pytest.approx(2, rel=0.15)
    assert out == E.disjoint_trial(n=40, d=1600, m=4, b0=0.3, c=0.05, rng=0)
    broken = E.disjoint_trial(n=40, d=1600, m=4, b0=0.01, c=0.05, rng=0)  # far below the cross-talk
    assert not broken["pattern_kept"] and broken["foreign_active"] > 0 and broken["closest_gap"] > 1e-3


def test_disjoint_sweep(tmp_path):
    table = sweep(E.disjoint_trial, {"m": [2, 4], "d": [400]}, fixed={"n": 16, "b0": 0.5, "c": 0.05}, trials=1,
                  cache=tmp_path, n_jobs=1, progress=False)
    assert len(table) == 2 and set(table.columns) == {"m", "d", "n", "b0", "c", "trial"} | DISJOINT_KEYS


def test_bad_init_trials():
    control = E.bad_init_trial(n=20, d=400, init="all_active", b0=1.0, rng=0)
    assert control["success"] and control["never_active"] == 0 and abs(control["loss_excess"]) < 1e-12
    off = E.bad_init_trial(n=20, d=400, init="inactive_positive", b0=1.0, rng=0)
    # frozen examples cost exactly y_i²/2n each and nothing else is lost
    assert off["never_active"] == 2 and off["unfit"] == 2 and not off["success"]
    assert off["loss_excess"] == pytest.approx(off["stuck_loss"], abs=1e-12)
    gauss = E.bad_init_trial(n=20, d=400, init="gaussian", m=2, rng=0)
    assert gauss["inactive_at_init"] > 0 and gauss["loss_excess"] >= gauss["stuck_loss"] - 1e-12
    assert gauss == E.bad_init_trial(n=20, d=400, init="gaussian", m=2, rng=0)


def test_bad_init_trial_is_the_computation_by_hand():
    out = E.bad_init_trial(n=20, d=300, init="gaussian", rng=2)
    rng = np.random.default_rng(2)
    y = R.sample_labels(20, rng=rng)
    X = R.sample_features(20, 300, rng=rng)
    w0 = R.bad_init_weights("gaussian", X, y, rng=rng)
    with pytest.warns(R.InactivePositiveWarning):
        run = R.gradient_descent(X, y, w0, lr=R.lr_from_contraction(0.01, X), max_steps=200_000, record_every=None)
    # the same numbers by another route (sums in another order): equal to rounding
    assert out["loss_excess"] == pytest.approx(run.loss - np.sum(y[y < 0] ** 2) / 40, rel=1e-10, abs=1e-14)
    assert out["gap"] == pytest.approx(R.relative_gap(run.w, R.min_norm_solution(X, y).w), rel=1e-10)


def test_bad_init_sweep(tmp_path):
    table = sweep(E.bad_init_trial, [{"init": "gaussian", "b0": 1.0}, {"init": "all_active", "b0": 1e-3}],
                  fixed={"n": 10, "d": 200}, trials=2, cache=tmp_path, n_jobs=1, progress=False)
    assert len(table) == 4
    assert list(table["init"]) == ["gaussian", "gaussian", "all_active", "all_active"]
