"""ibcore.relu.metrics against plain-numpy references: the weight-space GD of
``weight_space.py`` for the pattern statistics, norms taken in weight space for the Gram forms,
Monte Carlo and exact special cases for the teacher risk, and the cross-talk lemma recomputed
from a recorded history."""
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import ibcore.relu as R
from ibcore.relu import metrics as M

from .weight_space import gradient_descent_weight_space


def _features(n, d, seed):
    return np.random.default_rng(seed).standard_normal((n, d))


# ---------------------------------------------------------------- gaps and norms


def test_relative_gap_is_the_ratio_of_frobenius_norms():
    rng = np.random.default_rng(0)
    w_star, w = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    expected = np.sqrt(np.sum((w - w_star) ** 2)) / np.sqrt(np.sum(w_star ** 2))
    assert M.relative_gap(w, w_star) == pytest.approx(expected, rel=1e-14)
    assert M.relative_gap(w[0], w_star[0]) == pytest.approx(
        np.linalg.norm(w[0] - w_star[0]) / np.linalg.norm(w_star[0]), rel=1e-14)
    assert M.relative_gap(w_star, w_star) == 0.0
    # the denominator is w*'s norm, not w's
    assert M.relative_gap(2 * w_star, w_star) == pytest.approx(1.0, rel=1e-14)
    assert M.relative_gap(w_star, 2 * w_star) == pytest.approx(0.5, rel=1e-14)


@pytest.mark.parametrize("bad", [{"w_star": np.zeros(4)}, {"w": np.ones(3)}, {"w": np.full(4, np.nan)}])
def test_relative_gap_rejects_zero_targets_shapes_and_nan(bad):
    args = {"w": np.ones(4), "w_star": np.arange(4.0)} | bad
    with pytest.raises(ValueError, match="w"):
        M.relative_gap(**args)


@pytest.mark.parametrize("m", [1, 3])
def test_gram_forms_equal_the_weight_space_norms(m):
    n, d = 6, 40
    X = _features(n, d, 1)
    rng = np.random.default_rng(2)
    coef, coef_star = rng.standard_normal((m, n)), rng.standard_normal((m, n))
    w, w_star = coef @ X, coef_star @ X
    K = X @ X.T
    assert M.relative_gap_gram(K, coef, coef_star) == pytest.approx(M.relative_gap(w, w_star), rel=1e-12)
    assert M.norm_gram(K, coef) == pytest.approx(np.linalg.norm(w), rel=1e-12)
    # 1-D coefficients are one neuron
    assert M.relative_gap_gram(K, coef[0], coef_star[0]) == pytest.approx(
        np.linalg.norm(w[0] - w_star[0]) / np.linalg.norm(w_star[0]), rel=1e-12)
    assert M.norm_gram(K, coef[0]) == pytest.approx(np.linalg.norm(w[0]), rel=1e-12)


def test_gram_forms_pair_each_neuron_with_its_own_target():
    # a cross pairing (neuron 0 with target 1) would give a different number
    K = np.diag([1.0, 4.0])
    coef = np.array([[1.0, 0.0], [0.0, 1.0]])
    coef_star = np.array([[1.0, 0.0], [0.0, 2.0]])
    # ||w - w*||^2 = 0 + 4 (1 - 2)^2 = 4, ||w*||^2 = 1 + 16 = 17
    assert M.relative_gap_gram(K, coef, coef_star) == pytest.approx(np.sqrt(4 / 17), rel=1e-14)
    assert M.norm_gram(K, coef_star) == pytest.approx(np.sqrt(17.0), rel=1e-14)


@pytest.mark.parametrize("call, name", [
    (lambda K: M.relative_gap_gram(K, np.ones(3), np.ones(2)), "coef_star"),
    (lambda K: M.relative_gap_gram(K, np.ones(3), np.ones((2, 2))), "coef"),
    (lambda K: M.relative_gap_gram(K, np.ones(2), np.zeros(2)), "zero norm"),
    (lambda K: M.norm_gram(K, np.ones(3)), "coef"),
])
def test_gram_forms_reject_mismatched_coefficients(call, name):
    with pytest.raises(ValueError, match=name):
        call(np.eye(2))


def test_gram_forms_refuse_coefficients_of_three_dimensions():
    # (1, 2, 2) has n = 2 columns in axis 1 like K: only the dimension check names coef
    with pytest.raises(ValueError, match=r"^coef must have 1 or 2 dimension"):
        M.norm_gram(np.eye(2), np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match=r"^coef must have 1 or 2 dimension"):
        M.relative_gap_gram(np.eye(2), np.ones((1, 2, 2)), np.ones(2))
    with pytest.raises(ValueError, match=r"^coef_star must have 1 or 2 dimension"):
        M.relative_gap_gram(np.eye(2), np.ones(2), np.ones((1, 2, 2)))


# ---------------------------------------------------------------- the run's pattern statistics


@pytest.fixture(scope="module")
def two_neuron_run():
    """A two-neuron run whose patterns change several times, and the weight-space reference."""
    n, d = 12, 30
    X = _features(n, d, 5)
    y = np.random.default_rng(6).uniform(-1, 1, n)
    w0 = np.random.default_rng(7).standard_normal((2, d)) / np.sqrt(d)
    lr = R.lr_from_contraction(0.2, X)
    with warnings.catch_warnings():   # a random start leaves positives inactive: wanted here
        warnings.simplefilter("ignore")
        res = R.gradient_descent(X, y, w0, lr=lr, max_steps=4000)
    ref = gradient_descent_weight_space(X, y, w0, lr=lr, max_steps=4000)
    return X, y, res, ref


def test_stabilisation_and_reactivations_match_the_weight_space_bookkeeping(two_neuron_run):
    _, _, res, ref = two_neuron_run
    assert M.stabilisation_step(res) == np.max(ref.last_change) > 0
    assert M.reactivation_count(res) == np.sum(ref.reactivations) > 0


def test_pattern_statistics_reduce_over_neurons_and_examples():
    fake = SimpleNamespace(last_change=np.array([[0, 7, 3], [9, 0, 1]]),
                           reactivations=np.array([[0, 2, 0], [1, 0, 3]]))
    assert M.stabilisation_step(fake) == 9
    assert M.reactivation_count(fake) == 6
    assert isinstance(M.stabilisation_step(fake), int) and isinstance(M.reactivation_count(fake), int)


def test_positive_residual_is_the_largest_miss_on_positive_labels():
    y = np.array([1.0, -1.0, 0.5, 0.0, -0.2])
    fake = SimpleNamespace(predictions=np.array([0.9, 3.0, 0.8, 5.0, -4.0]))
    # only y > 0 counts: |0.9 - 1| = 0.1 and |0.8 - 0.5| = 0.3
    assert M.positive_residual(fake, y) == pytest.approx(0.3, abs=1e-15)
    assert M.positive_residual(fake, -np.abs(y)) == 0.0
    with pytest.raises(ValueError, match="y"):
        M.positive_residual(fake, y[:4])


def test_positive_residual_of_a_converged_run_is_at_its_stopping_level(two_neuron_run):
    _, y, res, _ = two_neuron_run
    pos = y > 0
    assert M.positive_residual(res, y) == pytest.approx(np.max(np.abs(res.predictions[pos] - y[pos])), rel=1e-14)


def test_can_fit_is_the_sign_agreement_of_neuron_and_label():
    y = np.array([1.0, -1.0, 0.0])
    can = M._can_fit(y, np.array([1.0, -1.0]))
    assert can.tolist() == [[True, False, False], [False, True, False]]


def test_fit_threshold_and_relative_gap_refuse_arrays_of_too_many_dimensions():
    with pytest.raises(ValueError, match=r"^y must have 1 dimension"):
        M._fit_threshold(np.ones((2, 2)), tol=1e-6, c=0.1)
    with pytest.raises(ValueError, match=r"^y must have 1 dimension"):
        M._can_fit(np.ones((1, 2)), np.ones(1))
    with pytest.raises(ValueError, match=r"^signs must have 1 dimension"):
        M._can_fit(np.ones(2), np.ones((1, 1)))
    with pytest.raises(ValueError, match=r"^w_star must have 1 or 2 dimension"):
        M.relative_gap(np.ones((1, 2, 2)), np.ones((1, 2, 2)))


def test_fit_threshold_follows_the_stopping_rule_and_never_drops_below_fit_tol():
    y = np.array([3.0, 4.0])   # ||y|| = 5
    assert M._fit_threshold(y, tol=1e-12, c=0.01) == M.FIT_TOL
    assert M._fit_threshold(y, tol=1e-6, c=0.01) == pytest.approx(100 * 1e-6 * 5 / 0.01, rel=1e-14)
    assert M._fit_threshold(y, tol=0.0, c=0.5) == M.FIT_TOL
    with pytest.raises(ValueError, match=r"^c must be a positive"):
        M._fit_threshold(y, tol=1e-6, c=0.0)
    with pytest.raises(ValueError, match=r"^tol must be a non-negative"):
        M._fit_threshold(y, tol=-1.0, c=0.1)


def test_fit_statistics_count_only_the_examples_some_neuron_must_fit():
    y = np.array([1.0, -0.5, 0.0, 0.8])
    # one positive neuron: examples 0 and 3 must be fitted; 1 (negative) and 2 (zero) need not
    fake = SimpleNamespace(signs=np.array([1.0]), predictions=np.array([0.2, 9.0, 9.0, 0.8 + 1e-9]))
    stats = M._fit_statistics(fake, y)
    assert stats == {"max_residual": pytest.approx(0.8), "unfit": 1, "max_unfit_label": 1.0}
    loose = M._fit_statistics(fake, y, threshold=0.9)
    assert loose["unfit"] == 0 and loose["max_unfit_label"] == 0.0
    # a second neuron of the other sign must fit the negative label too
    fake2 = SimpleNamespace(signs=np.array([1.0, -1.0]), predictions=fake.predictions)
    stats2 = M._fit_statistics(fake2, y)
    assert stats2["unfit"] == 2 and stats2["max_residual"] == pytest.approx(9.5)
    assert stats2["max_unfit_label"] == 1.0


def test_fit_statistics_at_the_threshold_and_with_nothing_to_fit():
    y = np.array([1.0, -0.5])
    fake = SimpleNamespace(signs=np.array([1.0]), predictions=np.array([0.75, 0.0]))
    # a residual of exactly the threshold (0.25, exact in binary) counts as fitted: unfit is "above"
    assert M._fit_statistics(fake, y, threshold=0.25)["unfit"] == 0
    assert M._fit_statistics(fake, y, threshold=0.125)["unfit"] == 1
    # no label a neuron can fit: nothing must be fitted, and the statistics are zeros, not an error
    nothing = M._fit_statistics(fake, -np.abs(y))
    assert nothing == {"max_residual": 0.0, "unfit": 0, "max_unfit_label": 0.0}


def test_slack_statistics_on_a_hand_made_solution():
    y = np.array([1.0, -1.0, -0.5, -0.2, 0.3])
    star = SimpleNamespace(beta=np.array([1.0, -0.3, 0.0, -1e-12, 0.3]))
    # slack beyond 1e-9 max|y|: only example 1 among the three negatives
    pls = SimpleNamespace(beta=np.array([1.0, -0.4, 0.2, 0.0, 0.3]))
    s = M._slack_statistics(y, star, pls)
    assert s["strictly_inactive"] == pytest.approx(1 / 3)
    assert s["pls_violations"] == pytest.approx(1 / 3)   # example 2 predicted positive
    assert s["pls_predicts_slack"] is False               # PLS says <= 0 on 1 and 3, w* is slack on 1 only
    pls_agrees = SimpleNamespace(beta=np.array([1.0, -0.4, 0.2, 0.2, 0.3]))
    assert M._slack_statistics(y, star, pls_agrees)["pls_predicts_slack"] is True
    no_negatives = M._slack_statistics(np.abs(y), star, pls)
    assert no_negatives["strictly_inactive"] == 0.0 and no_negatives["pls_violations"] == 0.0


def test_slack_statistics_scale_their_threshold_with_the_labels():
    """"Strictly" is beyond 1e-9 max|y|: with max|y| = 1000 the threshold is 1e-6, so -1e-7 is not
    slack and 1e-7 no violation; a label 0 is not a negative label."""
    y = np.array([1000.0, -1.0, -1.0, 0.0])
    star = SimpleNamespace(beta=np.array([1000.0, -1e-7, -1.0, -5.0]))
    pls = SimpleNamespace(beta=np.array([1000.0, 1e-7, 2e-6, 5.0]))
    s = M._slack_statistics(y, star, pls)
    assert s["strictly_inactive"] == 0.5             # example 2 only; the zero label 3 is not counted
    assert s["pls_violations"] == 0.5                # example 2 only
    assert s["pls_predicts_slack"] is False


def test_slack_statistics_at_the_threshold_itself():
    # max|y| = 1: threshold 1e-9, strict on both sides (1e-9 * 1.0 is exactly 1e-9)
    y = np.array([1.0, -1.0, -0.5])
    star = SimpleNamespace(beta=np.array([1.0, -1e-9, -2e-9]))
    pls = SimpleNamespace(beta=np.array([1.0, 1e-9, 2e-9]))
    s = M._slack_statistics(y, star, pls)
    assert s["strictly_inactive"] == 0.5 and s["pls_violations"] == 0.5


def test_slack_statistics_refuse_labels_of_another_length():
    sol = SimpleNamespace(beta=np.ones(3))
    with pytest.raises(ValueError, match=r"^y must have shape \(3,\)"):
        M._slack_statistics(np.ones(4), sol, sol)


def test_slack_statistics_of_the_solvers_on_random_data():
    # isotropic data, d >> n: the negatives slack at w* are those where w_PLS predicts < 0 (ch. 1)
    n, d = 16, 4000
    X = _features(n, d, 6)
    y = np.random.default_rng(7).uniform(-1, 1, n)
    star, pls = R.min_norm_solution(X, y), R.positive_subset_least_squares(X, y)
    s = M._slack_statistics(y, star, pls)
    neg = y < 0
    assert s["strictly_inactive"] == pytest.approx(np.mean(X[neg] @ star.w < -1e-9 * np.abs(y).max()))
    assert s["pls_violations"] == pytest.approx(np.mean(X[neg] @ pls.w > 1e-9 * np.abs(y).max()))


def test_run_statistics_report_the_run(two_neuron_run):
    _, _, res, ref = two_neuron_run
    s = M._run_statistics(res)
    assert s == {"n_steps": ref.n_steps, "converged": ref.success,
                 "stabilisation_step": int(np.max(ref.last_change)), "reactivations": int(np.sum(ref.reactivations))}


# ---------------------------------------------------------------- the settling certificate


@pytest.fixture(scope="module")
def recorded_run():
    n, d = 10, 10**4
    X = R.sample_features(n, d, rng=0)
    y = R.sample_labels(n, rng=1)
    lr = R.lr_from_contraction(0.1, X)
    res = R.gradient_descent(X, y, R.all_active_init(X), lr=lr, record_every=1)
    return X @ X.T, y, res


def _certificate_reference(K, y, steps, beta, lr):
    """The cumulative cross-talk lemma of chapter 2 checked row by row in plain numpy: (step, bound, margin)."""
    n = len(y)
    kappa = np.trace(K) / n
    delta = np.max(np.abs(np.linalg.eigvalsh(K / kappa - np.eye(n))))
    bound, margin = [], []
    for b in beta:
        act = b > 0   # sigma'(0) = 0: a pre-activation exactly 0 is inactive
        r = np.where(act, b - y, 0.0)
        bound.append(delta / (1 - delta) * np.sqrt(np.sum(r ** 2)) if delta < 1 else np.inf)
        if np.any(act & (y <= 0)):   # a non-positive label still active must switch off
            margin.append(-np.inf)
        else:
            margin.append(min(np.min(np.minimum(b[act], y[act]), initial=np.inf), np.min(-b[~act], initial=np.inf)))
    small_steps = lr * kappa / n * (1 + delta) <= 1
    ok = [small_steps and mg > bd for mg, bd in zip(margin, bound)]
    return (steps[ok.index(True)] if any(ok) else None), np.array(bound), np.array(margin)


def _fake_run(steps, beta, lr):
    return SimpleNamespace(activation="relu", lr=lr,
                           history=SimpleNamespace(step=np.asarray(steps), beta=np.asarray(beta, float)))


def test_certificate_recomputed_from_the_history(recorded_run):
    K, y, res = recorded_run
    cert = R.settling_certificate(K, y, res)
    step, bound, margin = _certificate_reference(K, y, res.history.step, res.history.beta, res.lr)
    np.testing.assert_allclose(cert.bound, bound, rtol=1e-9)
    np.testing.assert_array_equal(cert.margin, margin)
    np.testing.assert_array_equal(cert.record_step, res.history.step)
    assert cert.step == step
    # the lemma is a proof: no pattern changes after the certified step
    assert cert.step >= R.stabilisation_step(res)


def test_certificate_at_the_edges_of_its_conditions():
    """K = I: Delta = 0, so the bound is 0 and lr = n gives c (1 + Delta) = 1 exactly (allowed: <= 1).
    Rows: a negative label active; a positive label at beta = 0 exactly (inactive, margin 0, not > 0);
    a zero label at beta = 0 (inactive); a zero label active (must switch off); then settled."""
    y = np.array([1.0, 0.5, -1.0, 0.0])
    beta = [[2.0, 1.0, 0.5, 0.3],
            [1.0, 0.0, -1.0, -0.5],
            [1.0, 0.5, -1.0, 0.0],
            [1.0, 0.5, -1.0, 0.25],
            [1.0, 0.5, -1.0, -0.5]]
    steps = [0, 10, 20, 30, 40]
    K = np.eye(4)
    cert = R.settling_certificate(K, y, _fake_run(steps, beta, lr=4.0))
    step, bound, margin = _certificate_reference(K, y, steps, np.array(beta), 4.0)
    np.testing.assert_array_equal(cert.margin, margin)
    np.testing.assert_array_equal(cert.margin, [-np.inf, 0.0, 0.0, -np.inf, 0.5])
    np.testing.assert_array_equal(cert.bound, bound)
    assert cert.step == step == 40
    # two records are enough to certify
    assert R.settling_certificate(K, y, _fake_run(steps[3:], beta[3:], lr=4.0)).step == 40
    with pytest.raises(ValueError, match="record"):
        R.settling_certificate(K, y, _fake_run(steps[4:], beta[4:], lr=4.0))


@pytest.mark.parametrize("diag, delta", [([2.0, 0.5, 0.5], 1.0), ([2.5, 0.25, 0.25], 1.5)])
def test_certificate_is_void_once_delta_reaches_one(diag, delta):
    """Delta = ||K/kappa - I|| = 1 exactly (kappa = 1, the eigenvalue 2) and 1.5: the lemma needs
    Delta < 1, so no bound holds even where every margin is large."""
    K, y = np.diag(diag), np.array([1.0, 0.5, -1.0])
    assert R.gram_deviation(K) == delta
    run = _fake_run([0, 1], [[1.0, 0.5, -1.0], [1.0, 0.5, -2.0]], lr=0.1)
    cert = R.settling_certificate(K, y, run)
    assert cert.step is None and np.all(np.isposinf(cert.bound))
    assert cert.step == _certificate_reference(K, y, [0, 1], run.history.beta, 0.1)[0]


def test_certificate_refuses_labels_of_another_length(recorded_run):
    K, y, res = recorded_run
    with pytest.raises(ValueError, match=r"^y must have shape"):
        R.settling_certificate(K, y[:-1], res)


def test_certificate_never_holds_when_a_negative_label_is_still_active(recorded_run):
    K, y, res = recorded_run
    cert = R.settling_certificate(K, y, res)
    neg_active = np.any((res.history.beta > 0) & (y <= 0), axis=1)
    assert neg_active[0]   # the all-active start
    assert np.all(np.isneginf(cert.margin[neg_active]))
    assert np.all(cert.margin[~neg_active] > -np.inf)


def test_certificate_is_void_for_a_gram_far_from_the_identity(recorded_run):
    K, y, res = recorded_run
    # a Gram with Delta >= 1: no bound, no certified step
    n = len(y)
    K_far = K + 2 * np.mean(np.diag(K)) * np.ones((n, n))
    cert = R.settling_certificate(K_far, y, res)
    assert cert.step is None and np.all(np.isinf(cert.bound))


def test_certificate_needs_the_step_size_condition(recorded_run):
    K, y, res = recorded_run
    # c (1 + Delta) > 1: the contraction argument fails, so nothing is certified
    fast = SimpleNamespace(activation="relu", history=res.history, lr=2.0 * len(y) / np.mean(np.diag(K)))
    assert R.settling_certificate(K, y, fast).step is None
    # the condition is c (1 + Delta) <= 1, not c <= 1
    kappa = np.mean(np.diag(K))
    delta = R.gram_deviation(K)
    edge = SimpleNamespace(activation="relu", history=res.history, lr=len(y) / (kappa * (1 + delta / 2)))
    assert R.settling_certificate(K, y, edge).step is None


def test_certificate_rejects_unrecorded_and_multi_neuron_runs(recorded_run, two_neuron_run):
    K, y, res = recorded_run
    bare = SimpleNamespace(activation="relu", history=SimpleNamespace(step=np.array([5]), beta=res.history.beta[:1]))
    with pytest.raises(ValueError, match="record"):
        R.settling_certificate(K, y, bare)
    linear = SimpleNamespace(activation="linear", history=res.history, lr=res.lr)
    with pytest.raises(ValueError, match="ReLU"):
        R.settling_certificate(K, y, linear)
    X2, y2, res2, _ = two_neuron_run
    with pytest.raises(ValueError, match="one-neuron"):
        R.settling_certificate(X2 @ X2.T, y2, res2)


# ---------------------------------------------------------------- every array is checked, by name

_NAN3 = np.array([1.0, np.nan, 0.0])
_OK3 = np.array([1.0, -1.0, 0.5])


@pytest.mark.parametrize("name, call", [
    ("w_star", lambda: M.relative_gap(_OK3, _NAN3)),
    ("w", lambda: M.relative_gap(_NAN3, _OK3)),
    ("coef_star", lambda: M.relative_gap_gram(np.eye(3), _OK3, _NAN3)),
    ("coef", lambda: M.relative_gap_gram(np.eye(3), _NAN3, _OK3)),
    ("coef", lambda: M.norm_gram(np.eye(3), _NAN3)),
    ("y", lambda: M.positive_residual(SimpleNamespace(predictions=_OK3), _NAN3)),
    ("y", lambda: M._can_fit(_NAN3, np.ones(1))),
    ("signs", lambda: M._can_fit(_OK3, np.array([np.nan]))),
    ("y", lambda: M._fit_threshold(_NAN3, tol=1e-6, c=0.1)),
    ("y", lambda: M._slack_statistics(_NAN3, SimpleNamespace(beta=_OK3), SimpleNamespace(beta=_OK3))),
])
def test_a_non_finite_array_is_refused_by_its_name(name, call):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_settling_certificate_checks_its_labels_by_name(recorded_run):
    K, y, res = recorded_run
    with pytest.raises(ValueError, match=r"^y\b"):
        R.settling_certificate(K, np.where(np.arange(len(y)) == 0, np.nan, y), res)
