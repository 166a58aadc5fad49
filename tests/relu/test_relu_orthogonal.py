"""Orthogonal data (Boursier et al. 2022): GD equals the min-norm solution up to O(c).

With K = d·I every example evolves alone: β ← (1 - c)β + c y_i while β > 0.
From β(0) = 1 a positive label converges to y_i; a negative label crosses 0
and freezes at β_T ∈ (c·y_i, 0].  Since w* has β* = y on I₊ and 0 on I₋,

    gap = ‖w_GD - w*‖/‖w*‖ = sqrt(Σ_{I₋} β_T,i² / Σ_{I₊} y_i²) < c · sqrt(Σ_{I₋} y_i² / Σ_{I₊} y_i²),

so gap/c lies in the band (0, B) with B from the labels, and gap → 0 as c → 0.
"""
import numpy as np
import pytest

import ibcore.relu as R

from .independent import orthogonal_overshoot_gap

N, D = 20, 200


@pytest.fixture(scope="module")
def orthogonal_problem():
    X = R.orthogonal_features(N, D, rng=21)
    y = np.random.default_rng(22).uniform(-1, 1, N)
    return X, y


def frozen_value(y_i, c, b0=1.0):
    """Where the scalar recursion β ← (1-c)β + c y from β = b0 first reaches β ≤ 0 (a plain loop)."""
    beta = b0
    while beta > 0:
        beta = (1 - c) * beta + c * y_i
    return beta


def test_features_are_orthogonal(orthogonal_problem):
    X, _ = orthogonal_problem
    np.testing.assert_allclose(X @ X.T, D * np.eye(N), atol=1e-10 * D)


@pytest.mark.parametrize("c", [0.3, 0.1, 0.03, 0.01, 0.001])
def test_gap_is_order_c_with_the_theoretical_band(orthogonal_problem, c):
    X, y = orthogonal_problem
    neg, pos = y < 0, y > 0
    res = R.gradient_descent(X, y, R.all_active_init(X, trace=D), lr=R.lr_from_contraction(c, X),
                             record_every=None)
    star = R.min_norm_solution(X, y)
    gap = R.relative_gap(res.w, star.w)

    band = np.sqrt(np.sum(y[neg] ** 2) / np.sum(y[pos] ** 2))
    assert 0 < gap / c < band
    # and exactly the value predicted by the one-example recursion, which the closed form implements
    predicted = np.sqrt(sum(frozen_value(v, c) ** 2 for v in y[neg]) / np.sum(y[pos] ** 2))
    assert gap == pytest.approx(predicted, rel=1e-8)
    assert orthogonal_overshoot_gap(y, c) == pytest.approx(predicted, rel=1e-12)
    # negatives freeze inside (c·y_i, 0]; w* puts them at exactly 0
    assert np.all((res.beta[neg] > c * y[neg]) & (res.beta[neg] <= 0))
    np.testing.assert_allclose(star.beta[neg], 0, atol=1e-12)


def test_gap_vanishes_as_c_goes_to_zero(orthogonal_problem):
    X, y = orthogonal_problem
    star = R.min_norm_solution(X, y)
    gaps = [R.relative_gap(R.gradient_descent(X, y, R.all_active_init(X, trace=D),
                                              lr=R.lr_from_contraction(c, X), record_every=None).w, star.w)
            for c in (0.1, 0.01, 0.001)]
    assert gaps[2] < gaps[1] < gaps[0] and gaps[2] < 1e-3


@pytest.mark.parametrize("c, b0", [(0.1, 1.0), (0.01, 1.0), (0.03, 0.5)])
def test_orthogonal_stabilisation_step_is_the_scalar_recursion(c, b0):
    """β ← (1-c)β + c y from β = b0: the last negative label switches off at the predicted step."""
    y = np.random.default_rng(5).uniform(-1, 1, 30)

    def first_crossing(v):
        beta, t = b0, 0
        while beta > 0:
            beta, t = (1 - c) * beta + c * v, t + 1
        return t

    assert R.orthogonal_stabilisation_step(y, c, b0=b0) == max(first_crossing(v) for v in y[y < 0])
    assert R.orthogonal_stabilisation_step(np.abs(y), c) == 0  # no negative label: nothing switches off
    assert orthogonal_overshoot_gap(y, c, b0=b0) == pytest.approx(
        np.sqrt(sum(frozen_value(v, c, b0) ** 2 for v in y[y < 0]) / np.sum(y[y > 0] ** 2)), rel=1e-12)


@pytest.mark.parametrize("bad, name", [({"c": 0.0}, "c"), ({"c": 1.0}, "c"), ({"c": 1.5}, "c"), ({"b0": -1.0}, "b0"),
                                       ({"y": np.ones((2, 2))}, "y"), ({"y": np.array([np.nan, 0.5])}, "y")])
def test_orthogonal_closed_forms_reject_bad_inputs_by_name(bad, name):
    kw = {"y": np.array([-0.5, 0.5]), "c": 0.1, **bad}
    with pytest.raises(ValueError, match=rf"^{name} must "):
        R.orthogonal_stabilisation_step(kw.pop("y"), kw.pop("c"), **kw)


def test_overshoot_gap_is_about_c_over_root_3():
    """A uniform phase of the last step before the crossing gives E gap² ≈ c²/3 (chapter 1)."""
    y = np.random.default_rng(6).uniform(-1, 1, 4000)
    assert orthogonal_overshoot_gap(y, 0.01) / 0.01 == pytest.approx(1 / np.sqrt(3), rel=0.05)


# ---------------------------------------------------------------------------
# two neurons on orthogonal data


def test_two_neuron_limit_cases_and_conservation():
    y = np.array([0.9, 0.05, -0.02, -0.7, 0.2, -0.2])
    b = 0.1
    plus, minus = R.two_neuron_orthogonal_limit(y, b0=b)
    np.testing.assert_allclose(plus, [0.9, 0.125, 0.09, 0.0, 0.2, 0.0])
    np.testing.assert_allclose(minus, [0.0, 0.075, 0.11, 0.7, 0.0, 0.2])
    np.testing.assert_allclose(plus - minus, y)  # the network fits every label
    coupled = np.abs(y) < 2 * b
    np.testing.assert_allclose((plus + minus)[coupled], 2 * b)  # β₊ + β₋ conserved where both stay active


def test_two_neuron_limit_matches_gd_on_orthogonal_data():
    """GD at step c on K = d·I reaches the gradient-flow limit up to the O(c|y|) overshoot."""
    n, d, b, c = 30, 500, 0.1, 0.002
    y = np.random.default_rng(0).uniform(-1, 1, n)
    K = d * np.eye(n)
    run = R.gradient_descent_gram(K, y, R.two_neuron_init_gram(K, b0=b, trace=d), lr=R.lr_from_contraction_gram(c, K), record_every=None)
    assert run.success
    np.testing.assert_allclose(run.beta, R.two_neuron_orthogonal_limit(y, b0=b), atol=2 * c)
    gap = R.relative_gap_gram(K, run.coef, R.min_norm_pair_gram(K, y))
    assert abs(gap - R.two_neuron_orthogonal_gap(y, b0=b)) < 2 * c


def test_two_neuron_gap_mean_square_is_4_b_cubed():
    y = np.random.default_rng(1).uniform(-1, 1, 200_000)
    for b in (0.05, 0.2):
        # one huge draw: the ratio of sums converges to E[num]/E[den] = 4 b³ (relative error ~1%)
        assert R.two_neuron_orthogonal_gap(y, b0=b) ** 2 == pytest.approx(4 * b ** 3, rel=0.03)
    assert R.two_neuron_orthogonal_gap(y, b0=1e-9) < 1e-6


@pytest.mark.parametrize("bad", [dict(y=np.zeros(4), b0=0.1), dict(y=np.ones(4), b0=0.0),
                                 dict(y=np.ones(4), b0=-1.0), dict(y=np.ones((2, 2)), b0=0.1)])
def test_two_neuron_gap_validation(bad):
    with pytest.raises(ValueError, match=r"^(y|b0)\b"):
        R.two_neuron_orthogonal_gap(**bad)


def test_stabilisation_step_starts_at_one_by_default_and_a_zero_label_never_switches():
    """β_i(t) = y_i + (1 - c)^t (b0 - y_i) on an active example: a negative label switches off at
    the first t with β_i(t) ≤ 0 (b0 = 1 unless given); a zero label only tends to 0 and never does."""
    c, y = 0.1, np.array([-0.5, 0.0, 0.5])
    first = next(t for t in range(1000) if -0.5 + (1 - c) ** t * (1.0 + 0.5) <= 0)
    assert R.orthogonal_stabilisation_step(y, c) == first == 11
    assert R.orthogonal_stabilisation_step(y, c, b0=2.0) > first
