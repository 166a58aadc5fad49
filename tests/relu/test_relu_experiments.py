"""The Theorem 2 experiment and its sweep (notes §7, checks 6-7)."""
import numpy as np
import pytest

import ibcore.relu as R

KEYS = {"gap", "gap_scaled", "gap_scaled_l2", "steps", "converged", "stabilisation_step", "reactivations",
        "positive_residual", "loss_excess", "inactive_at_init"}


def test_trial_returns_the_documented_scalars():
    out = R.theorem2_trial(20, 800, rng=0)
    assert set(out) == KEYS
    assert all(np.ndim(v) == 0 for v in out.values())
    assert out["converged"] and out["positive_residual"] < 1e-9 and abs(out["loss_excess"]) < 1e-12
    assert out["stabilisation_step"] < out["steps"]
    assert out == R.theorem2_trial(20, 800, rng=0)  # reproducible from the seed


def test_huge_d_point_uses_only_K():
    """d = 10^8 isotropic: K by Bartlett, so the cost does not depend on d."""
    out = R.theorem2_trial(30, 10 ** 8, c=1e-3, rng=1)
    # the stopping rule lr‖∇L‖ ≤ tol‖w‖ leaves a residual ≈ tol·‖y₊‖/c ≈ 1e-12 · 3 / 1e-3
    assert out["converged"] and out["positive_residual"] < 1e-8
    # with c ≪ √(n/d) the gap is back on the √(n/d) scale (at c = 0.01 an O(c) floor dominates)
    assert 0.1 < out["gap_scaled"] < 2


def test_gap_scales_as_sqrt_n_over_d():
    """Notes §7.6-7.7 at c = 0.01: log–log slope in d in [-0.65, -0.35]; median gap/√(n/d)
    in [0.2, 1.2] with 25th percentile > 0.1."""
    table = R.theorem2_sweep({"n": [20], "d": [400, 1600, 6400]}, trials=12, method="gram",
                             cache=False, n_jobs=1, progress=False)
    ds = np.array([400, 1600, 6400])
    medians = np.array([np.median(table["gap"][table["d"] == d]) for d in ds])
    slope = np.polyfit(np.log(ds), np.log(medians), 1)[0]
    assert -0.65 < slope < -0.35
    ratio = table["gap_scaled"]
    assert 0.2 < np.median(ratio) < 1.2 and np.percentile(ratio, 25) > 0.1
    assert table["converged"].all()


def test_sweep_is_a_tidy_table_and_is_reproducible(tmp_path):
    grid = {"n": [10, 15], "d": [100]}
    a = R.theorem2_sweep(grid, trials=2, seed=3, cache=tmp_path, n_jobs=1, progress=False, c=0.02)
    assert a.shape == (4,)
    assert set(a.dtype.names) == {"n", "d", "c", "trial"} | KEYS
    assert np.all(a["c"] == 0.02)
    cached = list(tmp_path.rglob("*.json"))
    assert len(cached) == 4
    b = R.theorem2_sweep(grid, trials=2, seed=3, cache=tmp_path, n_jobs=1, progress=False, c=0.02)
    np.testing.assert_array_equal(a, b)
    # one row equals the trial run by hand with the sweep's per-trial generator
    from ibcore.sweep import trial_seed
    params = {"n": 15, "d": 100, "c": 0.02}
    by_hand = R.theorem2_trial(**params, rng=np.random.default_rng(trial_seed(3, params, 1)))
    row = a[(a["n"] == 15) & (a["trial"] == 1)][0]
    assert row["gap"] == by_hand["gap"] and row["steps"] == by_hand["steps"]


def test_sweep_runs_in_worker_processes():
    grid = [{"n": 10, "d": 100}, {"n": 10, "d": 200}]
    serial = R.theorem2_sweep(grid, trials=2, cache=False, n_jobs=1, progress=False)
    parallel = R.theorem2_sweep(grid, trials=2, cache=False, n_jobs=2, progress=False)
    np.testing.assert_array_equal(serial, parallel)


@pytest.mark.parametrize("spectrum", ["spiked", "power_law"])
def test_anisotropic_spectra_gap_on_the_cross_talk_scale(spectrum):
    """Notes §3: n cross-terms of size ‖λ‖₂ against a diagonal ‖λ‖₁ give the scale √n‖λ‖₂/‖λ‖₁
    (= √(n/d) for isotropic data); the gap should be Θ(1) on it, with the isotropic band of §7.7."""
    table = R.theorem2_sweep({"n": [20], "d": [4000]}, trials=8, spectrum=spectrum, method="gram",
                             c=0.002, cache=False, n_jobs=1, progress=False)
    assert table["converged"].all()
    assert 0.2 < np.median(table["gap_scaled_l2"]) < 1.2


# ---------------------------------------------------------------------------
# one neuron: the setting and Theorem 1 chapters

ONE_NEURON_KEYS = {"gap", "gap_scaled", "gap_over_c", "gap_to_pls", "pls_to_star", "strictly_inactive",
                   "pls_violations", "negatives_exactly_zero", "positives_always_active", "positive_residual",
                   "loss_excess", "steps", "converged", "stabilisation_step", "orthogonal_stabilisation_step",
                   "reactivations"}


@pytest.mark.parametrize("c, scale", [(0.1, 1.0), (0.01, 1.0), (0.03, 0.5)])
def test_orthogonal_stabilisation_step_is_the_scalar_recursion(c, scale):
    """β ← (1-c)β + c y from β = scale: the last negative label switches off at the predicted step."""
    y = np.random.default_rng(5).uniform(-1, 1, 30)

    def first_crossing(v):
        beta, t = scale, 0
        while beta > 0:
            beta, t = (1 - c) * beta + c * v, t + 1
        return t

    assert R.orthogonal_stabilisation_step(y, c, scale=scale) == max(first_crossing(v) for v in y[y < 0])
    assert R.orthogonal_stabilisation_step(np.abs(y), c) == 0  # no negative label: nothing switches off


@pytest.mark.parametrize("bad", [{"c": 0.0}, {"c": 1.0}, {"c": 1.5}, {"scale": -1.0}])
def test_orthogonal_stabilisation_step_rejects_bad_inputs(bad):
    with pytest.raises(ValueError):
        R.orthogonal_stabilisation_step(np.array([-0.5, 0.5]), **{"c": 0.1, **bad})


def test_one_neuron_trial_orthogonal_is_the_exact_control():
    """K = d·I: no cross-talk, so w* zeroes every negative (all constraints tight, w* = w_PLS), the
    pattern settles exactly when the scalar recursion says, and gap/c lies in (0, √(Σ₋y²/Σ₊y²))."""
    out = R.one_neuron_trial(20, 500, data="orthogonal", c=0.05, rng=3)
    assert set(out) == ONE_NEURON_KEYS
    assert out["strictly_inactive"] == 0.0 and out["pls_violations"] == 0.0 and out["pls_to_star"] < 1e-12
    assert out["stabilisation_step"] == out["orthogonal_stabilisation_step"] and out["reactivations"] == 0
    y = np.random.default_rng(3).uniform(-1, 1, 20)  # the trial draws its labels first
    band = np.sqrt(np.sum(y[y < 0] ** 2) / np.sum(y[y > 0] ** 2))
    assert 0 < out["gap_over_c"] < band
    assert out["gap_to_pls"] == pytest.approx(out["gap"], rel=1e-9)


def test_one_neuron_trial_gaussian_fits_positives_and_zeroes_negatives():
    out = R.one_neuron_trial(20, 2000, c=0.02, rng=4)
    assert set(out) == ONE_NEURON_KEYS
    assert all(np.ndim(v) == 0 for v in out.values())
    assert out["converged"] and out["negatives_exactly_zero"] and out["positives_always_active"]
    assert out["positive_residual"] < 1e-9 and abs(out["loss_excess"]) < 1e-12
    assert 0 < out["strictly_inactive"] < 1  # cross-talk: some constraints tight, some slack
    assert out["gap_scaled"] == pytest.approx(out["gap"] / np.sqrt(20 / 2000))
    assert out == R.one_neuron_trial(20, 2000, c=0.02, rng=4)


def test_one_neuron_trial_rejects_bad_inputs():
    with pytest.raises(ValueError, match="data"):
        R.one_neuron_trial(10, 100, data="sparse")
    with pytest.raises(ValueError, match="at least n"):
        R.one_neuron_trial(10, 5)
    with pytest.raises(ValueError):
        R.one_neuron_trial(10, 100, c=-0.1)


def test_one_neuron_sweep_table(tmp_path):
    table = R.one_neuron_sweep({"data": ["gaussian", "orthogonal"]}, n=10, d=200, c=0.05, trials=2,
                               cache=tmp_path, n_jobs=1, progress=False)
    assert table.shape == (4,)
    assert set(table.dtype.names) == {"n", "d", "c", "data", "trial"} | ONE_NEURON_KEYS
    assert np.all(table["stabilisation_step"][table["data"] == "orthogonal"]
                  == table["orthogonal_stabilisation_step"][table["data"] == "orthogonal"])
    with pytest.raises(ValueError, match="unknown one_neuron_trial parameter"):
        R.one_neuron_sweep({"n": [10], "d": [100]}, spectrum="isotropic", cache=False, n_jobs=1, progress=False)
    with pytest.raises(ValueError, match="both in grid"):
        R.one_neuron_sweep({"n": [10], "d": [100]}, n=10, cache=False, n_jobs=1, progress=False)
