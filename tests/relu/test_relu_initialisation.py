"""Initialisations: the pre-activations they promise."""
import numpy as np
import pytest

import ibcore.relu as R


def test_all_active_init_is_the_notes_init_and_starts_active():
    X = R.sample_features(20, 2000, rng=0)
    w0 = R.all_active_init(X, trace=2000)
    np.testing.assert_allclose(w0, X.T @ np.ones(20) / 2000)
    beta0 = X @ w0
    # β_i(0) = 1 + O(√(n/d)) = 1 ± 0.1: five standard deviations keep every example active
    assert np.all(np.abs(beta0 - 1) < 5 * np.sqrt(20 / 2000))
    np.testing.assert_allclose(R.all_active_init(X, b0=0.5, m=3, trace=2000), np.tile(0.5 * w0, (3, 1)))
    # default normaliser: the empirical mean ‖x_i‖², within O(1/√(nd)) of d
    np.testing.assert_allclose(R.all_active_init(X), w0 * 2000 / np.mean(np.sum(X ** 2, axis=1)))
    np.testing.assert_allclose(R.all_active_init_gram(X @ X.T, trace=2000) @ X, w0)


def test_two_neuron_init():
    X = R.sample_features(10, 500, rng=1)
    w0 = R.two_neuron_init(X, b0=0.05, trace=500)
    assert w0.shape == (2, 500)
    np.testing.assert_array_equal(w0[0], w0[1])
    np.testing.assert_allclose(w0[0], 0.05 * X.sum(axis=0) / 500)
    np.testing.assert_allclose(R.two_neuron_init_gram(X @ X.T, b0=0.05, trace=500) @ X, w0)


def test_disjoint_init_prescribes_the_initial_pattern_exactly():
    X = R.sample_features(12, 100, rng=2)
    assignment = np.array([0, 1, 2, -1, 0, 1, 2, 0, 0, 1, -1, 2])
    w0 = R.disjoint_init(X, assignment, b0=0.3)
    beta0 = w0 @ X.T
    expected = np.where(assignment[None, :] == np.arange(3)[:, None], 0.3, -0.3)
    np.testing.assert_allclose(beta0, expected, atol=1e-12)
    # each example is active on at most one neuron: the active sets are disjoint
    assert np.all((beta0 > 0).sum(axis=0) <= 1)
    # and w0 is the shortest vector with these pre-activations (it lies in span(X))
    np.testing.assert_allclose(w0, R.disjoint_init_gram(X @ X.T, assignment, b0=0.3) @ X, atol=1e-14)


def test_sign_aligned_assignment():
    y = np.array([0.5, -0.2, 0.1, 0.0, -0.7, 0.9, -0.1])
    a = R.sign_aligned_assignment(y, [1, -1, 1, -1])
    np.testing.assert_array_equal(a, [0, 1, 2, -1, 3, 0, 1])
    np.testing.assert_array_equal(R.sign_aligned_assignment(y, [1]), [0, -1, 0, -1, -1, 0, -1])


def test_gaussian_init_scale_and_reproducibility():
    w = R.gaussian_init(4000, m=3, scale=2.0, rng=7)
    assert w.shape == (3, 4000)
    # entries N(0, scale²/d): ‖w_j‖² = scale² (1 ± sqrt(2/d))
    np.testing.assert_allclose(np.sum(w ** 2, axis=1), 4.0, rtol=6 * np.sqrt(2 / 4000))
    np.testing.assert_array_equal(w, R.gaussian_init(4000, m=3, scale=2.0, rng=np.random.default_rng(7)))
    assert R.gaussian_init(10).shape == (10,)


def test_default_signs():
    np.testing.assert_array_equal(R.default_signs(1), [1])
    np.testing.assert_array_equal(R.default_signs(2), [1, -1])
    np.testing.assert_array_equal(R.default_signs(5), [1, -1, 1, -1, 1])


def test_bad_init_weights():
    rng = np.random.default_rng(3)
    X = R.sample_features(12, 300, rng=rng)
    y = rng.uniform(-1, 1, 12)
    w0 = R.bad_init_weights("inactive_positive", X, y, b0=0.7, inactive=2)
    off = np.flatnonzero(y > 0)[:2]
    expected = np.full(12, 0.7)
    expected[off] = -0.7
    np.testing.assert_allclose(X @ w0, expected, atol=1e-10)
    gauss = R.bad_init_weights("gaussian", X, y, m=2, b0=2.0, rng=0)
    np.testing.assert_array_equal(gauss, R.gaussian_init(300, m=2, scale=2.0, rng=0))
    np.testing.assert_allclose(R.bad_init_weights("all_active", X, y, b0=1e-3), 1e-3 * X.sum(axis=0) / 300)
    with pytest.raises(ValueError, match="one neuron"):
        R.bad_init_weights("inactive_positive", X, y, m=2)
    with pytest.raises(ValueError, match="init must be"):
        R.bad_init_weights("zeros", X, y)
    with pytest.raises(ValueError, match="m must be"):
        R.bad_init_weights("gaussian", X, y, m=3)


def test_default_contraction_keeps_the_floor_below_the_gap():
    """c = min(0.01, 0.2 sqrt(n/R0)) to one digit (so at most 0.25 sqrt(n/R0)): the floor
    c/sqrt(3) stays below 15% of the cross-talk scale sqrt(n/R0) = sqrt(n/d) (isotropic)."""
    for n, d in [(20, 10**3), (20, 10**6), (50, 10**8), (10, 31623)]:
        c = R.default_contraction(n, d)
        assert c <= 0.01 and c / np.sqrt(3) < 0.15 * np.sqrt(n / d)
        assert float(f"{c:.1g}") == c
    assert R.default_contraction(20, 10**3) == 0.01 and R.default_contraction(20, 10**6) == 0.0009
    # invariant under rescaling the spectrum (as the gap is), unlike sqrt(n/|lambda|_1)
    iso = R.default_contraction(20, 10**5)
    assert R.default_contraction(20, 10**5, spectrum=R.Spectrum.isotropic(10**5, 7.0)) == iso
    # on a power law the cross-talk scale sqrt(n/R0) is below sqrt(n/|lambda|_1), and so is c
    lam = R.Spectrum.power_law(10**5)
    assert R.default_contraction(20, 10**5, spectrum=lam) < 0.2 * np.sqrt(20 / lam.trace)


def test_lr_from_contraction_gives_the_per_example_contraction():
    X = R.sample_features(10, 300, rng=4)
    lr = R.lr_from_contraction(0.01, X)
    assert lr * np.mean(np.sum(X ** 2, axis=1)) / 10 == pytest.approx(0.01)
    assert R.lr_from_contraction_gram(0.01, X @ X.T) == pytest.approx(lr)
