"""The one-neuron trials (gap_trial, pattern_trial): the protocol, their results, and sweeps of them."""
import numpy as np
import pytest

import ibcore.experiments.relu as E
import ibcore.relu as R
from ibcore.summary import summarise
from ibcore.sweep import sweep, trial_seed

from .independent import gram_root, loss, min_norm_qp, orthogonal_overshoot_gap, plain_gd

GAP_KEYS = {"gap", "gap_scaled", "gap_scaled_R0", "first_order_gap", "c_used", "loss_excess", "inactive_at_init",
            "success", "max_residual", "unfit", "max_unfit_label", "n_steps", "converged", "stabilisation_step",
            "reactivations"}


def test_gap_trial_returns_the_documented_scalars():
    out = E.gap_trial(n=20, d=800, rng=0)
    assert set(out) == GAP_KEYS
    assert all(np.ndim(v) == 0 for v in out.values())
    assert out["success"] and out["max_residual"] < 1e-9 and abs(out["loss_excess"]) < 1e-12
    assert out["stabilisation_step"] < out["n_steps"] and isinstance(out["n_steps"], int)
    assert out == E.gap_trial(n=20, d=800, rng=0)  # reproducible from the seed


@pytest.mark.parametrize("method, d", [("gram", 3000), ("features", 400)])
def test_gap_trial_measures_the_gap_of_an_independent_computation(method, d):
    """The trial's gap, loss excess and step count, against plain numpy GD and SciPy's SLSQP for w*
    on the trial's own draw (labels first, then the data; a Gram-only draw made explicit)."""
    n, b0, c, tol = 20, 0.5, 0.005, 1e-10
    out = E.gap_trial(n=n, d=d, b0=b0, c=c, method=method, tol=tol, rng=7)
    rng = np.random.default_rng(7)
    y = R.sample_labels(n, rng=rng)
    X = gram_root(R.sample_gram(n, d, rng=rng)) if method == "gram" else R.sample_features(n, d, rng=rng)
    K = X @ X.T
    w0 = X.T @ np.full(n, b0 / d)                       # w0 = b0 Xᵀ1/‖λ‖₁, ‖λ‖₁ = d
    lr = c * n / np.mean(np.diag(K))                   # c = lr ‖x‖²/n
    w_gd, steps = plain_gd(X, y, w0, lr, tol=tol)
    w_star = min_norm_qp(X, y)
    gap = np.linalg.norm(w_gd - w_star) / np.linalg.norm(w_star)
    assert out["gap"] == pytest.approx(gap, rel=1e-6)
    assert abs(out["n_steps"] - steps) <= 1
    assert out["loss_excess"] == pytest.approx(loss(X, y, w_gd) - loss(X, y, w_star), abs=1e-9)
    assert out["gap_scaled"] == pytest.approx(gap / np.sqrt(n / d), rel=1e-6)


def test_relative_gap_gram_is_the_weight_space_gap():
    """‖Xᵀa - Xᵀν‖_F/‖Xᵀν‖_F computed from the features, for one neuron and for three."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 30))
    for shape in [(7,), (3, 7)]:
        a, nu = rng.standard_normal(shape), rng.standard_normal(shape)
        direct = np.linalg.norm(a @ X - nu @ X) / np.linalg.norm(nu @ X)
        assert R.relative_gap_gram(X @ X.T, a, nu) == pytest.approx(direct, rel=1e-12)
        assert R.relative_gap(a @ X, nu @ X) == pytest.approx(direct, rel=1e-12)


def test_gap_trial_default_step_follows_the_cross_talk_scale():
    small = E.gap_trial(n=20, d=1000, method="gram", rng=0)
    large = E.gap_trial(n=20, d=10**6, method="gram", tol=1e-9, rng=0)
    assert small["c_used"] == 0.01 and large["c_used"] == R.default_contraction(20, 10**6) == 0.0009
    # with c << sqrt(n/d) the ratio is on the sqrt(n/d) scale, not on the floor c/sqrt(3)/sqrt(n/d) = 0.12
    assert large["success"] and 0.1 < large["gap_scaled"] < 2


def test_gap_trial_keywords_only():
    with pytest.raises(TypeError):
        E.gap_trial(20, 800)


def test_huge_d_point_uses_only_K():
    """d = 10^8 isotropic: K by Bartlett, so the cost does not depend on d."""
    out = E.gap_trial(n=30, d=10 ** 8, c=1e-3, rng=1)
    # the stopping rule lr‖∇L‖ ≤ tol‖w‖ leaves a residual ≈ tol·‖y₊‖/c ≈ 1e-12 · 3 / 1e-3
    assert out["success"] and out["max_residual"] < 1e-8


def test_features_path_runs_the_same_experiment():
    """Through X instead of K (same labels; tests/relu/test_relu_gram.py compares the distributions):
    one draw at d = 200 reaches the global minimum with a Theta(1) ratio."""
    f = E.gap_trial(n=20, d=200, c=0.01, method="features", rng=3)
    assert f["success"] and 0.1 < f["gap_scaled"] < 2


def test_gap_sweep_scales_as_sqrt_n_over_d():
    """Slope in d in [-0.65, -0.35]; median gap/√(n/d) in [0.2, 1.2] with 25th percentile > 0.1."""
    table = sweep(E.gap_trial, {"d": [400, 1600, 6400]}, fixed={"n": 20, "method": "gram", "c": 0.01},
                  trials=12, cache=False, n_jobs=1, progress=False)
    med = summarise(table, "d", "gap")
    slope = np.polyfit(np.log(med["d"]), np.log(med["median"]), 1)[0]
    assert -0.65 < slope < -0.35
    ratio = table["gap_scaled"]
    assert 0.2 < np.median(ratio) < 1.2 and np.percentile(ratio, 25) > 0.1
    assert table["success"].all()


def test_sweep_rows_equal_the_trial_with_the_sweep_generator(tmp_path):
    grid = {"n": [10, 15]}
    fixed = {"d": 100, "c": 0.02}
    a = sweep(E.gap_trial, grid, fixed=fixed, trials=2, seed=3, cache=tmp_path, n_jobs=1, progress=False)
    assert len(a) == 4 and set(a.columns) == {"n", "d", "c", "trial"} | GAP_KEYS
    assert len(list(tmp_path.rglob("*.json"))) == 4
    assert a.equals(sweep(E.gap_trial, grid, fixed=fixed, trials=2, seed=3, cache=tmp_path,
                          n_jobs=1, progress=False))
    params = {"n": 15, **fixed}
    by_hand = E.gap_trial(**params, rng=np.random.default_rng(trial_seed(3, params, 1)))
    row = a[(a["n"] == 15) & (a["trial"] == 1)].iloc[0]
    assert row["gap"] == by_hand["gap"] and row["n_steps"] == by_hand["n_steps"]


def test_sweep_runs_in_worker_processes():
    grid = [{"n": 10, "d": 100}, {"n": 10, "d": 200}]
    serial = sweep(E.gap_trial, grid, trials=2, cache=False, n_jobs=1, progress=False)
    parallel = sweep(E.gap_trial, grid, trials=2, cache=False, n_jobs=2, progress=False)
    assert serial.equals(parallel)


def test_sweep_refuses_unknown_and_doubled_parameters():
    with pytest.raises(ValueError, match="unknown gap_trial parameter"):
        sweep(E.gap_trial, {"n": [10], "dim": [50]}, cache=False, progress=False)
    with pytest.raises(ValueError, match="given both in grid and in fixed"):
        sweep(E.gap_trial, {"n": [10], "d": [50]}, fixed={"d": 60}, cache=False, progress=False)


@pytest.mark.parametrize("spectrum", ["spiked", "power_law"])
def test_anisotropic_spectra_gap_on_the_cross_talk_scale(spectrum):
    """Notes §3: n cross-terms of size ‖λ‖₂ against a diagonal ‖λ‖₁ give the scale √n‖λ‖₂/‖λ‖₁
    (= √(n/d) for isotropic data); the gap should be Θ(1) on it, with the isotropic band of §7.7."""
    table = sweep(E.gap_trial, {"d": [4000]},
                  fixed={"n": 20, "spectrum": spectrum, "method": "gram", "c": 0.002},
                  trials=8, cache=False, n_jobs=1, progress=False)
    assert table["success"].all()
    assert 0.2 < np.median(table["gap_scaled_R0"]) < 1.2


# ---------------------------------------------------------------------------
# pattern_trial: the structure of w* and the settling of the pattern

PATTERN_KEYS = {"gap", "gap_scaled", "gap_over_c", "gap_to_pls", "pls_to_star", "strictly_inactive",
                "pls_violations", "pls_predicts_slack", "negatives_exactly_zero", "positives_always_active",
                "loss_excess", "orthogonal_stabilisation_step", "success", "max_residual", "unfit",
                "max_unfit_label", "n_steps",
                "converged", "stabilisation_step", "reactivations"}


def test_pattern_trial_orthogonal_is_the_exact_control():
    """K = d·I: no cross-talk, so w* zeroes every negative (all constraints tight, w* = w_PLS), the
    pattern settles exactly when the scalar recursion says, and the gap is the overshoot closed form."""
    out = E.pattern_trial(n=20, d=500, data="orthogonal", c=0.05, rng=3)
    assert set(out) == PATTERN_KEYS
    assert out["strictly_inactive"] == 0.0 and out["pls_violations"] == 0.0 and out["pls_to_star"] < 1e-12
    assert out["stabilisation_step"] == out["orthogonal_stabilisation_step"] and out["reactivations"] == 0
    y = R.sample_labels(20, rng=3)  # the trial draws its labels first
    assert out["gap"] == pytest.approx(orthogonal_overshoot_gap(y, 0.05), rel=1e-9)
    assert out["gap_to_pls"] == pytest.approx(out["gap"], rel=1e-9)


def test_pattern_trial_gaussian_fits_positives_and_zeroes_negatives():
    out = E.pattern_trial(n=20, d=2000, c=0.02, rng=4)
    assert set(out) == PATTERN_KEYS
    assert all(np.ndim(v) == 0 for v in out.values())
    assert out["success"] and out["negatives_exactly_zero"] and out["positives_always_active"]
    assert out["max_residual"] < 1e-9 and abs(out["loss_excess"]) < 1e-12
    assert 0 < out["strictly_inactive"] < 1  # cross-talk: some constraints tight, some slack
    assert out["gap_scaled"] == pytest.approx(out["gap"] / np.sqrt(20 / 2000))
    assert out == E.pattern_trial(n=20, d=2000, c=0.02, rng=4)


def test_pattern_sweep_table(tmp_path):
    table = sweep(E.pattern_trial, {"data": ["gaussian", "orthogonal"]}, fixed={"n": 10, "d": 200, "c": 0.05},
                  trials=2, cache=tmp_path, n_jobs=1, progress=False)
    assert len(table) == 4
    assert set(table.columns) == {"n", "d", "c", "data", "trial"} | PATTERN_KEYS
    orth = table[table["data"] == "orthogonal"]
    np.testing.assert_array_equal(orth["stabilisation_step"], orth["orthogonal_stabilisation_step"])
    with pytest.raises(ValueError, match="unknown pattern_trial parameter"):
        sweep(E.pattern_trial, {"n": [10]}, fixed={"d": 100, "spectrum": "isotropic"}, cache=False, progress=False)


def test_structure_trial_is_pattern_trials_structure():
    s = E.structure_trial(n=20, d=2000, rng=4)
    p = E.pattern_trial(n=20, d=2000, c=0.02, rng=4)
    assert set(s) == {"strictly_inactive", "pls_violations", "pls_predicts_slack", "pls_to_star"}
    assert all(s[k] == p[k] for k in s)  # same labels and K from the same generator


def test_structure_trial_without_a_positive_label():
    """All labels <= 0 (probability 2^-n; seed 20 at n = 3): w* = w_PLS = 0, no constraint
    strictly inactive, and the relative gap between the two is 0 instead of 0/0 (a sweep of
    ch. 1 met such a draw at n = 10 and stopped on the error)."""
    y = R.sample_labels(3, rng=20)
    assert np.all(y <= 0)
    s = E.structure_trial(n=3, d=50, rng=20)
    assert s["pls_to_star"] == 0.0 and s["strictly_inactive"] == 0.0 and s["pls_violations"] == 0.0


@pytest.mark.parametrize("noise", [0.0, 0.25])
def test_test_error_trial_against_an_independent_computation(noise):
    """Teacher θ, data, labels y = Xθ + √Δ ξ (Δ = noise, a variance), plain GD and SLSQP's w*:
    the trial's gap, distance and risks are those of this computation."""
    n, d, c = 20, 500, 0.01
    out = E.test_error_trial(n=n, d=d, c=c, noise=noise, rng=0)
    rng = np.random.default_rng(0)
    theta = rng.standard_normal(d)
    theta *= np.sqrt(1 / 3) / np.linalg.norm(theta)
    X = R.sample_features(n, d, rng=rng)
    y = X @ theta + np.sqrt(noise) * rng.standard_normal(n)
    w_gd, _ = plain_gd(X, y, X.T @ np.full(n, 1 / d), c * n / np.mean(np.sum(X * X, axis=1)), tol=1e-12)
    w_star = min_norm_qp(X, y)
    assert out["success"]
    assert out["distance"] == pytest.approx(np.linalg.norm(w_gd - w_star), rel=1e-6)
    assert out["gap"] == pytest.approx(np.linalg.norm(w_gd - w_star) / np.linalg.norm(w_star), rel=1e-6)
    assert out["risk_gd"] == pytest.approx(R.relu_teacher_risk(w_gd, theta), rel=1e-6)
    assert out["risk_star"] == pytest.approx(R.relu_teacher_risk(w_star, theta), rel=1e-6)
    assert out["risk_null"] == pytest.approx(1 / 6)
    assert 0 < out["risk_star"] < out["risk_null"]  # w* learns a little of the teacher (n/d = 0.04)
    grad = R.relu_teacher_risk(w_star + 1e-7 * (w_gd - w_star), theta) - R.relu_teacher_risk(w_star, theta)
    assert out["first_order_risk_difference"] == pytest.approx(grad / 1e-7, rel=1e-4)


@pytest.mark.parametrize("case", ["generic", "near teacher", "obtuse", "zero teacher"])
def test_relu_teacher_risk_gradient_against_finite_differences(case):
    """The closed-form gradient against central differences of the closed-form risk (itself checked
    against quadrature above), and the Hessian bounds of its docstring along a segment."""
    from ibcore.relu.teacher import _relu_teacher_risk_gradient

    rng = np.random.default_rng(3)
    d = 6
    theta = 0.8 * rng.standard_normal(d) / np.sqrt(d)
    other = rng.standard_normal(d) / np.sqrt(d)
    w = {"generic": 0.4 * other, "near teacher": theta + 0.05 * other, "obtuse": -0.5 * theta + other,
         "zero teacher": other}[case]
    if case == "zero teacher":
        theta = np.zeros(d)
    h = 1e-6
    fd = np.array([(R.relu_teacher_risk(w + h * e, theta) - R.relu_teacher_risk(w - h * e, theta)) / (2 * h)
                   for e in np.eye(d)])
    assert _relu_teacher_risk_gradient(w, theta) == pytest.approx(fd, abs=1e-8)
    # second-order remainder along w + t u: within [(1 - 2|θ|/(π min|w + t u|)) t²/2, t²/2]
    u = rng.standard_normal(d)
    u *= 0.3 * np.linalg.norm(w) / np.linalg.norm(u)
    rest = (R.relu_teacher_risk(w + u, theta) - R.relu_teacher_risk(w, theta)
            - _relu_teacher_risk_gradient(w, theta) @ u)
    low = min(np.linalg.norm(w + t * u) for t in np.linspace(0, 1, 101)) * 0.99
    assert (1 - 2 * np.linalg.norm(theta) / (np.pi * low)) * (u @ u) / 2 - 1e-12 <= rest <= (u @ u) / 2 + 1e-12


def test_relu_teacher_risk_closed_form():
    rng = np.random.default_rng(0)
    d = 30
    # unequal norms (0.5 and 2): with equal ones, nw * nt and nw / nt could not be told apart
    w, theta = 0.5 * rng.standard_normal(d) / np.sqrt(d), 2 * rng.standard_normal(d) / np.sqrt(d)
    X = rng.standard_normal((200_000, d))
    mc = np.mean((np.maximum(X @ w, 0) - np.maximum(X @ theta, 0)) ** 2)
    assert R.relu_teacher_risk(w, theta) == pytest.approx(mc, rel=0.02)
    assert R.relu_teacher_risk(theta, theta) == pytest.approx(0, abs=1e-15)
    assert R.relu_teacher_risk(np.zeros(d), theta) == pytest.approx(theta @ theta / 2)


def test_positive_residual_is_the_worst_fit_of_a_positive_label(problem):
    """max over y_i > 0 of |σ(x_i·w) - y_i|, from the run's final weights (no test covered it)."""
    X, y, w0, lr = problem
    run = R.gradient_descent(X, y, w0, lr=lr, max_steps=300, tol=0)  # stopped early: visible residuals
    direct = np.abs(np.maximum(X @ run.w, 0) - y)[y > 0].max()
    assert direct > 1e-3 and R.positive_residual(run, y) == pytest.approx(direct, rel=1e-12)
    assert R.positive_residual(run, -np.abs(y)) == 0.0  # no positive label: nothing to fit


def _teacher_risk_by_quadrature(w, theta):
    """E(σ(w·x) - σ(θ·x))² for x ~ N(0, I_d), as a 1-D integral: only the plane of w and θ matters,
    and with x = r u(a) in it, E = (1/2π) ∫ da ∫ r³ e^{-r²/2} dr (σ(w·u) - σ(θ·u))² = (1/π) ∫ (...)² da."""
    from scipy.integrate import quad

    e1 = theta / np.linalg.norm(theta)
    a_w, a_t = w @ e1, theta @ e1
    b_w = np.linalg.norm(w - a_w * e1)       # w = a_w e1 + b_w e2
    if b_w <= 1e-12 * np.linalg.norm(w):      # (anti)parallel: rounding, not a direction
        b_w = 0.0

    def integrand(a):
        return (max(a_w * np.cos(a) + b_w * np.sin(a), 0.0) - max(a_t * np.cos(a), 0.0)) ** 2

    kinks = sorted({np.pi / 2, 3 * np.pi / 2, np.arctan2(-a_w, b_w) % np.pi, np.arctan2(-a_w, b_w) % np.pi + np.pi})
    value, _ = quad(integrand, 0.0, 2 * np.pi, points=kinks, epsabs=1e-13, epsrel=1e-12, limit=200)
    return value / np.pi


@pytest.mark.parametrize("case", ["generic", "parallel", "antiparallel", "orthogonal", "zero student"])
def test_relu_teacher_risk_against_quadrature(case):
    """The arc-cosine closed form against a numerical integral, to 1e-9, at unequal norms."""
    rng = np.random.default_rng(1)
    d = 7
    theta = 2.0 * rng.standard_normal(d) / np.sqrt(d)
    other = rng.standard_normal(d)
    w = {"generic": 0.5 * other / np.linalg.norm(other),
         "parallel": 0.3 * theta, "antiparallel": -0.7 * theta,
         "orthogonal": 1.5 * (other - (other @ theta) / (theta @ theta) * theta) / np.linalg.norm(other),
         "zero student": np.zeros(d)}[case]
    assert R.relu_teacher_risk(w, theta) == pytest.approx(_teacher_risk_by_quadrature(w, theta), rel=1e-9, abs=1e-14)
