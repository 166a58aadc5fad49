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

N, D = 20, 200


@pytest.fixture(scope="module")
def orthogonal_problem():
    X = R.orthogonal_features(N, D, rng=21)
    y = np.random.default_rng(22).uniform(-1, 1, N)
    return X, y


def frozen_value(y_i, c):
    """Where the scalar recursion β ← (1-c)β + c y from β = 1 first reaches β ≤ 0."""
    beta = 1.0
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
                             record_every=0)
    star = R.min_norm_solution(X, y)
    gap = R.relative_gap(res.w, star.w)

    band = np.sqrt(np.sum(y[neg] ** 2) / np.sum(y[pos] ** 2))
    assert 0 < gap / c < band
    # and exactly the value predicted by the one-example recursion
    predicted = np.sqrt(sum(frozen_value(v, c) ** 2 for v in y[neg]) / np.sum(y[pos] ** 2))
    assert gap == pytest.approx(predicted, rel=1e-8)
    # negatives freeze inside (c·y_i, 0]; w* puts them at exactly 0
    assert np.all((res.beta[neg] > c * y[neg]) & (res.beta[neg] <= 0))
    np.testing.assert_allclose(star.beta[neg], 0, atol=1e-12)


def test_gap_vanishes_as_c_goes_to_zero(orthogonal_problem):
    X, y = orthogonal_problem
    star = R.min_norm_solution(X, y)
    gaps = [R.relative_gap(R.gradient_descent(X, y, R.all_active_init(X, trace=D),
                                              lr=R.lr_from_contraction(c, X), record_every=0).w, star.w)
            for c in (0.1, 0.01, 0.001)]
    assert gaps[2] < gaps[1] < gaps[0] and gaps[2] < 1e-3
