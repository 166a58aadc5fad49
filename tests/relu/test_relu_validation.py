"""Every validation path: bad shapes, NaN/inf, bad step sizes, the stability bound, the
inactive-example warning, and divergence reported with its step."""
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import ibcore.experiments.relu as E
import ibcore.relu as R
from ibcore import DivergenceError
from ibcore.relu import stability
from ibcore.relu._iteration import without_inactive_warning


@pytest.fixture
def small():
    X = R.sample_features(6, 40, rng=0)
    y = np.random.default_rng(1).uniform(-1, 1, 6)
    y[0] = 0.8  # a positive label, used by the warning tests
    return X, y, R.all_active_init(X, trace=40), R.lr_from_contraction(0.1, X)


GD_FUNCS = [R.gradient_descent]


def nan_at(a, idx, value=np.nan):
    a = np.array(a, dtype=float)
    a[idx] = value
    return a


@pytest.mark.parametrize("gd", GD_FUNCS)
@pytest.mark.parametrize("kwargs_fn, match", [
    (lambda X, y, w0, lr: dict(X=X[0]), r"X must have 2 dimension"),
    (lambda X, y, w0, lr: dict(X=nan_at(X, (2, 3))), r"X must be finite"),
    (lambda X, y, w0, lr: dict(X=nan_at(X, (0, 0), np.inf)), r"X must be finite"),
    (lambda X, y, w0, lr: dict(y=y[:-1]), r"y must have shape \(6,\)"),
    (lambda X, y, w0, lr: dict(y=nan_at(y, 1, np.inf)), r"y must be finite"),
    (lambda X, y, w0, lr: dict(w0=w0[:-1]), r"w0 must have shape \(40,\)"),
    (lambda X, y, w0, lr: dict(w0=np.ones((2, 39))), r"w0 must have shape \(\*, 40\)"),
    (lambda X, y, w0, lr: dict(w0=np.ones((1, 2, 40))),
     r"w0 must have 1 or 2 dimension\(s\), got array of shape \(1, 2, 40\)"),
    (lambda X, y, w0, lr: dict(w0=nan_at(w0, 5)), r"w0 must be finite"),
    (lambda X, y, w0, lr: dict(lr=0.0), r"lr must be a positive finite number, got 0.0"),
    (lambda X, y, w0, lr: dict(lr=-lr), r"lr must be a positive"),
    (lambda X, y, w0, lr: dict(lr=np.nan), r"lr must be a positive"),
    (lambda X, y, w0, lr: dict(max_steps=0), r"max_steps must be a positive integer"),
    (lambda X, y, w0, lr: dict(max_steps=2.5), r"max_steps must be a positive integer"),
    (lambda X, y, w0, lr: dict(tol=-1e-3), r"tol must be a non-negative"),
    (lambda X, y, w0, lr: dict(record_every=-1), r"record_every must be a positive integer, or None"),
    (lambda X, y, w0, lr: dict(record_every=0), r"record_every must be a positive integer, or None"),
    (lambda X, y, w0, lr: dict(record_every=2.0), r"record_every must be a positive integer, or None"),
    (lambda X, y, w0, lr: dict(activation="tanh"), r"activation must be one of"),
    (lambda X, y, w0, lr: dict(signs=[1.0, 1.0]), r"signs must have shape \(1,\)"),
    (lambda X, y, w0, lr: dict(w0=np.stack([w0, w0]), signs=[1.0, 0.5]), r"signs must contain only \+1 and -1"),
])
def test_bad_input_raises_value_error_naming_the_parameter(small, gd, kwargs_fn, match):
    X, y, w0, lr = small
    args = dict(X=X, y=y, w0=w0, lr=lr)
    args.update(kwargs_fn(X, y, w0, lr))
    with pytest.raises(ValueError, match="^" + match):   # the message starts with the parameter's name
        gd(args.pop("X"), args.pop("y"), args.pop("w0"), **args)


@pytest.mark.parametrize("K_fn, match", [
    (lambda K: K[:, :-1], r"K must be a square"),
    (lambda K: K + np.triu(np.ones_like(K), 1), r"K must be symmetric"),
    (lambda K: nan_at(K, (1, 1)), r"K must be finite"),
    (lambda K: -K, r"K must be positive semidefinite"),
])
def test_gram_entry_point_validates_K(small, K_fn, match):
    X, y, _, lr = small
    with pytest.raises(ValueError, match="^" + match):
        R.gradient_descent_gram(K_fn(X @ X.T), y, np.full(6, 1 / 40), lr=lr)


@pytest.mark.parametrize("call, match", [
    (lambda X, y: R.gradient_descent_gram(X @ X.T, y, np.ones(X.shape[1]), lr=1.0), r"alpha0 must have shape \(6,\)"),
    (lambda X, y: R.gradient_descent_gram(X, y, np.ones(6), lr=1.0), r"K must be a square"),
    (lambda X, y: R.gradient_descent(X, y, None, lr=1.0), r"w0 must"),
    (lambda X, y: R.min_norm_solution_gram(X, y), r"K must be a square"),
    (lambda X, y: R.min_norm_pair_gram(X @ X.T, y[:-1]), r"y must have shape \(6,\)"),
    (lambda X, y: R.gradient_descent_gram(X @ X.T, y[:-1], np.ones(6), lr=1.0), r"y must have shape \(6,\)"),
    (lambda X, y: R.all_active_init_gram(X), r"K must be a square"),
    (lambda X, y: R.disjoint_init_gram(X @ X.T, [0, 1]), r"assignment must have shape \(6,\)"),
    (lambda X, y: R.lr_from_contraction_gram(0.1, X), r"K must be a square"),
    (lambda X, y: R.relative_gap_gram(X, y, y), r"K must be a square"),
])
def test_gram_entry_points_name_what_is_wrong(small, call, match):
    X, y, _, _ = small
    with pytest.raises(ValueError, match="^" + match):
        call(X, y)


@pytest.mark.parametrize("eigs, accepted", [
    ([-1e-10, 0.5, 1.0], True),     # exactly at the round-off allowance, -1e-10 lambda_max: still accepted
    ([-2e-10, 0.5, 1.0], False),    # past it
    ([0.0, 0.0, 1.0], True),        # rank one, exactly: one positive eigenvalue is enough
    ([0.0, 0.0, 0.0], False),       # zero
])
def test_gram_entry_point_checks_psd_at_its_exact_edges(eigs, accepted):
    K = np.diag(eigs)   # diagonal: the eigenvalues are exact

    def run():
        return R.gradient_descent_gram(K, np.ones(3), np.full(3, 0.1), lr=0.1, max_steps=2)

    if accepted:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", R.InactivePositiveWarning)
            assert run().n_steps >= 1
    else:
        with pytest.raises(ValueError, match=r"^K must be positive semidefinite"):
            run()


def _gram_with_eigenvalues(eigs, seed=0):
    """A symmetric K = Q diag(eigs) Qᵀ with a random rotation Q (eigenvalues exact to round-off)."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(eigs), len(eigs))))
    K = (Q * np.asarray(eigs, float)) @ Q.T
    return (K + K.T) / 2


@pytest.mark.parametrize("eigs, accepted", [
    ([0.0, 0.0, 1.0, 2.0], True),       # singular but PSD (n > d): accepted, two zero eigenvalues
    ([0.0, 0.0, 1.0], True),            # rank one: a single positive eigenvalue is enough
    ([-1e-9, 1.0, 100.0], True),        # -1e-9 is round-off against lambda_max = 100 (1e-10 relative)
    ([-1e-9, 0.5, 0.7], False),         # the same -1e-9 is not, against lambda_max = 0.7
    ([-1e-11, 1e-3, 1e-2], False),      # relative to lambda_max even when it is below 1
    ([1e-3, 2e-3, 5e-3], True),         # a small positive K: the scale is lambda_max's, not 1
    ([-0.5, 1.0], False),               # clearly indefinite
    ([0.0, 0.0, 0.0], False),           # zero
])
def test_gram_entry_point_tolerates_round_off_only(eigs, accepted):
    """K is accepted when its smallest eigenvalue is above -1e-10 lambda_max and lambda_max > 0."""
    K = _gram_with_eigenvalues(eigs)
    n = len(eigs)
    y, alpha0 = np.linspace(-0.5, 1.0, n), np.full(n, 0.1)
    lr = n / max(eigs[-1], 1e-3)  # half the stability bound 2n/lambda_max (when K is valid)

    def run():
        return without_inactive_warning(R.gradient_descent_gram, K, y, alpha0, lr=lr, max_steps=3, tol=0.0)

    if accepted:
        assert run().n_steps == 3
    else:
        with pytest.raises(ValueError, match="K must be positive semidefinite and non-zero"):
            run()


def test_gram_entry_point_checks_stability_against_lambda_max(small):
    """With K, the step size is checked against 2n/(m lambda_max(K)) (the largest eigenvalue,
    not another), and a divergence quotes that bound."""
    X, y, _, _ = small
    K = X @ X.T
    bound = 2 * 6 / np.linalg.eigvalsh(K)[-1]
    alpha0 = np.full(6, 1 / 40)
    with pytest.raises(ValueError, match="at or above the stability bound"):
        R.gradient_descent_gram(K, y, alpha0, lr=1.001 * bound)
    R.gradient_descent_gram(K, y, alpha0, lr=0.999 * bound, max_steps=2, tol=0.0)
    with pytest.raises(DivergenceError, match=f"stability bound 2n/\\(m\\*lambda_max\\(K\\)\\) = {bound:.6g}"):
        R.gradient_descent_gram(K, y, alpha0, lr=4 * bound, check_stability=False, max_steps=10_000,
                                activation="identity")  # a ReLU neuron may die instead of diverging


def test_gram_entry_point_validates_alpha0(small):
    X, y, _, lr = small
    with pytest.raises(ValueError, match=r"alpha0 must have shape \(6,\)"):
        R.gradient_descent_gram(X @ X.T, y, np.ones(5), lr=lr)


@pytest.mark.parametrize("gd", GD_FUNCS)
@pytest.mark.parametrize("m", [1, 2])
def test_lr_at_or_above_the_stability_bound_raises_naming_the_bound(small, gd, m):
    X, y, _, _ = small
    w0 = R.all_active_init(X, b0=0.1, m=None if m == 1 else m)
    bound = stability._stability_bound(X @ X.T, m=m)
    assert bound == pytest.approx(2 * 6 / (m * np.linalg.eigvalsh(X @ X.T)[-1]))
    for lr in (bound, 1.01 * bound):
        with pytest.raises(ValueError, match=r"stability bound 2n/\(m\*lambda_max\(K\)\) = "):
            gd(X, y, w0, lr=lr, max_steps=5)
    gd(X, y, w0, lr=0.99 * bound, max_steps=5)  # just below is accepted


@pytest.mark.parametrize("gd", GD_FUNCS)
def test_inactive_positive_example_warns_and_still_runs(small, gd):
    X, y, _, lr = small
    assignment = np.zeros(6, dtype=int)
    assignment[0] = -1  # example 0 (y = 0.8) starts at β = -1
    w0 = R.disjoint_init(X, assignment, m=1)[0]
    with pytest.warns(R.InactivePositiveWarning, match=r"1 example\(s\).*indices 0\b"):
        res = gd(X, y, w0, lr=lr)
    assert res.success
    assert res.predictions[0] == 0.0  # never fitted: GD stops at a non-global point
    assert res.loss > np.sum(y[y < 0] ** 2) / 12


def test_inactive_negative_example_on_the_negative_neuron_warns(small):
    X, y, _, lr = small
    neg = int(np.flatnonzero(y < 0)[0])
    assignment = R.sign_aligned_assignment(y, [1, -1])
    assignment[neg] = -1
    with pytest.warns(R.InactivePositiveWarning, match=rf"indices {neg}\b"):
        R.gradient_descent(X, y, R.disjoint_init(X, assignment, m=2, b0=0.1), lr=lr / 2, max_steps=10)


@pytest.mark.parametrize("n_pos, shown", [(11, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ..."),
                                           (10, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9")])
def test_warning_counts_stuck_examples_and_shows_ten(n_pos, shown):
    """w0 = 0: every β_i(0) is exactly 0, inactive (σ'(0) = 0), so each positive label is stuck;
    the zero labels need no neuron and are not counted."""
    X = R.orthogonal_features(13, 40, rng=2)
    y = np.zeros(13)
    y[:n_pos] = 0.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        R.gradient_descent(X, y, np.zeros(40), lr=R.lr_from_contraction(0.1, X), max_steps=1)
    [w] = caught
    assert w.category is R.InactivePositiveWarning
    assert f"leaves {n_pos} example(s)" in str(w.message) and f"(indices {shown});" in str(w.message)
    assert f"(indices {shown}); they can only re-activate through cross-terms, so GD will probably stop at a " \
        "non-global stationary point" in str(w.message)  # the words it promises
    assert str(w.message).endswith("stationary point")
    # shown outside ibcore (stacklevel): at the caller's line, except under mutmut, whose
    # trampolines put a frame of their own between gradient_descent and its caller
    assert not Path(w.filename).is_relative_to(Path(R.__file__).parents[1])
    if "MUTANT_UNDER_TEST" not in os.environ:
        assert w.filename == __file__


def test_trials_silence_only_the_inactive_warning(small):
    X, y, _, lr = small
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = without_inactive_warning(R.gradient_descent, X, y, np.zeros(40), lr=lr, max_steps=3, tol=0)
        with pytest.warns(UserWarning, match="other"):
            without_inactive_warning(warnings.warn, "other")
    assert res.n_steps == 3


def test_no_warning_when_every_example_can_be_fitted(small):
    X, y, w0, lr = small
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R.gradient_descent(X, y, w0, lr=lr, max_steps=10)
        R.gradient_descent(X, -np.abs(y), w0 * 0, lr=lr, max_steps=10)  # nothing to fit: no warning


@pytest.mark.parametrize("gd", GD_FUNCS)
def test_divergence_raises_with_the_step(gd):
    """Identity activation, K = d·I, c = 3: the residual doubles each step, |r_t| = 2^t |r_0|.
    The step length² lr²‖∇L‖² = (c²/d) Σ r_t² overflows (2^1024) first, at
    t ≈ (1024 - log2(c² Σ r_0² / d))/2; the detector must report that step (± 3 for where
    inside the sum the overflow happens and the off-by-one of pre/post-step counting)."""
    n, d = 8, 32
    X = R.orthogonal_features(n, d, rng=4)
    y = np.random.default_rng(5).uniform(-1, 1, n)
    w0 = R.all_active_init(X, trace=d)  # β(0) = 1 exactly, r_0 = 1 - y
    c = 3.0
    expected = (1024 - np.log2(c ** 2 * np.sum((1 - y) ** 2) / d)) / 2
    run = dict(lr=R.lr_from_contraction(c, X), activation="identity", check_stability=False, tol=0,
               record_every=None)
    match = r"overflowed \(lr=0.75, stability bound 2n/\(m\*lambda_max\(K\)\) = 0.5\) \(diverged at GD step"
    with pytest.raises(DivergenceError, match=match) as info, warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # reported once, as the error, not by numpy
        gd(X, y, w0, max_steps=5000, **run)
    assert abs(info.value.step - expected) <= 3
    # stopped before the overflow, the same run is finite: no silent NaN or inf in between
    res = gd(X, y, w0, max_steps=int(expected) - 5, **run)
    assert np.all(np.isfinite(res.w)) and np.isfinite(res.loss)


@pytest.mark.parametrize("call, match", [
    (lambda: R.sample_features(0, 10), r"n must be a positive integer"),
    (lambda: R.sample_features(5, -1), r"d must be a positive integer"),
    (lambda: R.sample_features(5, 10, spectrum=np.ones(9)), r"spectrum must have length d=10"),
    (lambda: R.sample_features(5, 3, spectrum=[1.0, -1.0, 2.0]), r"spectrum must be non-negative"),
    (lambda: R.sample_features(5, 3, spectrum=[1.0, np.nan, 2.0]), r"spectrum must be finite"),
    (lambda: R.sample_features(5, 10, spectrum="cauchy"), r"spectrum must be 'isotropic'"),
    (lambda: R.sample_features(5, 10, rng=-3), r"non-negative"),  # numpy.random.default_rng's check
    (lambda: R.orthogonal_features(11, 10), r"n <= d"),
    (lambda: R.sample_gram(5, 0), r"d must be a positive integer"),
    (lambda: R.sample_gram(0, 10), r"n must be a positive integer"),
    (lambda: R.sample_gram(5, 10, chunk=0), r"chunk must be a positive integer"),
    (lambda: R.gram._wishart_bartlett(0, 4), r"n must be a positive integer"),
    (lambda: R.gram._wishart_bartlett(5, 0), r"dof must be a positive integer"),
    (lambda: R.sample_gram(5, 10, spectrum=R.Spectrum.isotropic(11)), r"dimension 11, expected d=10"),
    (lambda: R.gram._wishart_bartlett(5, 4), r"dof must be >= n"),
    (lambda: R.Spectrum.spiked(10, [-1.0]), r"spikes must be positive"),
    (lambda: R.Spectrum.power_law(10, -0.5), r"exponent must be"),
    (lambda: R.lr_from_contraction(0.0, np.ones((2, 3))), r"c must be a positive"),
    (lambda: R.lr_from_contraction(0.1, np.ones(3)), r"X must have 2 dimension"),
    (lambda: stability._stability_bound(np.ones((2, 2)), m=0), r"m must be a positive integer"),
    (lambda: R.min_norm_solution(np.ones((3, 5)), [1.0, 2.0, 3.0]), r"positive definite"),
    (lambda: R.min_norm_solution(np.ones((3, 2)) + np.eye(3, 2), [1.0, 2.0, 3.0]), r"d >= n"),
    (lambda: R.min_norm_solution(np.eye(3), [1.0, np.nan, 3.0]), r"y must be finite"),
    (lambda: R.min_norm_solution(np.eye(3), [1.0, 3.0]), r"y must have shape \(3,\)"),
    (lambda: R.min_norm_solution_gram(np.eye(3)[:, :2], [1.0, 2.0, 3.0]), r"K must be a square"),
    (lambda: R.positive_subset_least_squares(np.eye(3)[0], [1.0]), r"X must have 2 dimension"),
    (lambda: R.relative_gap(np.ones(3), np.zeros(3)), r"w_star is zero"),
    (lambda: R.relative_gap(np.ones(2), np.ones(3)), r"w must have shape \(3,\)"),
    (lambda: R.relative_gap_gram(np.eye(3), np.ones(2), np.ones(3)), r"coef must have the shape of coef_star"),
    (lambda: R.relative_gap_gram(np.eye(3), np.ones(3), np.zeros(3)), r"the target has zero norm"),
    (lambda: R.disjoint_init(np.eye(3), [0, 1, 2], m=2), r"assignment entries must lie in .* = \[-1, 1\]"),
    (lambda: R.disjoint_init(np.eye(3), [0, 0.5, 1]), r"integer neuron indices"),
    (lambda: R.disjoint_init(np.ones((3, 5)), [0, 1, 1]), r"positive definite K"),
    (lambda: R.all_active_init(np.eye(3), b0=0), r"b0 must be a positive"),
    (lambda: R.gaussian_init(10, m=0), r"m must be a positive integer"),
    (lambda: E.gap_trial(n=10, d=50, method="fast"), r"method must be one of"),
    (lambda: E.gap_trial(n=10, d=50, spectrum=np.ones(50)), r"spectrum must be a profile name"),
    (lambda: E.gap_trial(n=10, d=50, b0=0.0), r"b0 must be a positive"),
    (lambda: E.gap_trial(n=10, d=50, c=-0.1), r"c must be a positive"),
    (lambda: E.gap_trial(n=10, d=50, tol=-1.0), r"tol must be a non-negative"),
    (lambda: E.gap_trial(n=10, d=50, max_steps=0), r"max_steps must be a positive"),
    (lambda: E.gap_trial(n=10, d=50, rng=-1), r"non-negative"),
    (lambda: E.pattern_trial(n=10, d=100, data="sparse"), r"data must be one of"),
    (lambda: E.pattern_trial(n=10, d=5), r"d must be at least n"),
    (lambda: E.pattern_trial(n=10, d=100, c=-0.1), r"c must be a positive"),
    (lambda: E.two_neuron_trial(n=10, d=100, b0=0.0), r"b0 must be a positive"),
    (lambda: E.two_neuron_trial(n=10, d=5), r"d must be at least n"),
    (lambda: E.disjoint_trial(n=10, d=100, m=1), r"m must be at least 2"),
    (lambda: E.bad_init_trial(n=10, d=100, init="random"), r"init must be one of"),
    (lambda: E.bad_init_trial(n=10, d=100, m=3), r"m must be 1 or 2"),
    (lambda: R.norm_gram(np.eye(3), np.ones(2)), r"coef must have n=3 columns"),
    (lambda: R.default_contraction(0, 10), r"n must be a positive integer"),
    # anchored: the message starts with the parameter's name
    (lambda: R.positive_subset_least_squares_gram(np.ones((3, 3)), [1.0, 2.0, 3.0]), r"^K must give a positive"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [[1.0, -1.0, 2.0]], [0, 1, 0], [1.0, -1.0]), r"^y must have 1"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, -1.0, 2.0], [0, 1, 0], [[1.0, -1.0]]), r"^signs must have 1"),
    (lambda: R.disjoint_closest_targets_gram(np.eye(3), [1.0, -1.0, 2.0], [0, 1, 0], [1.0, -1.0], np.ones((2, 2))),
     r"^alpha0 must have shape \(2, 3\)"),
    (lambda: R.disjoint_closest_targets_gram(np.ones((3, 3)), [1.0, -1.0, 2.0], [0, 1, 0], [1.0, -1.0],
                                             np.zeros((2, 3))), r"^K must give a positive"),
    (lambda: R.disjoint_linear_limit_gram(np.eye(3), [1.0, -1.0, 2.0], [0, 1, 0], [1.0, -1.0], np.ones((2, 2))),
     r"^alpha0 must have shape \(2, 3\)"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, -1.0, 2.0], [0, 1], [1.0, -1.0]), r"^assignment must have shape"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, -1.0, 2.0], [0, -2, 0], [1.0, -1.0]), r"^assignment entries must"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, -1.0, 2.0], [0, 2, 0], [1.0, -1.0]), r"^assignment entries must"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, 0.0, 2.0], [0, 1, 0], [1.0, -1.0]), r"needs s_j y_i > 0"),
    (lambda: R.disjoint_targets_gram(np.eye(3), [1.0, 0.0, 2.0], [0, 0, 0], [1.0, -1.0]), r"needs s_j y_i > 0"),
    (lambda: R.min_norm_solution(np.eye(3)[0], [1.0]), r"^X must have 2 dimension"),
    (lambda: R.min_norm_solution(np.ones((3, 5)), [1.0, 2.0, 3.0]), r"^X must give a positive definite"),
])
def test_other_public_functions_validate(call, match):
    # a message about a parameter starts with its name ('n must' also matched a mutant's 'XXnXX must')
    anchored = re.match(r"\w+ must", match) is not None
    with pytest.raises(ValueError, match=("^" if anchored else "") + match):
        call()


def test_default_step_budget_is_100_000(small):
    """The documented default max_steps: a run that never meets tol stops after exactly 100 000 steps."""
    X, y, _, lr = small
    res = R.gradient_descent_gram(X @ X.T, y, np.full(6, 1 / 40), lr=lr, tol=0.0)
    assert res.n_steps == 100_000 and not res.success
