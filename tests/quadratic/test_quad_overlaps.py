"""Closed-form risk and Gaussian moments against Monte Carlo.

Tolerances are 5 Monte-Carlo standard errors (estimated from the samples), so
a wrong coefficient in any term is caught while sampling noise is not.
"""
import numpy as np
import pytest

from ibcore.quadratic import overlaps, phi_matrix, population_risk

from .independent import error_first_moments

N_MC = 400_000


def _joint_samples(p, p_star, n, rng, noise=0.0):
    """Pre-activations of a random small network: (lambda, nu) ~ N(0, [[Q, R], [R^T, T]]) exactly."""
    W = rng.standard_normal((p, n)) * rng.uniform(0.5, 1.5, size=(p, 1))
    W_star = rng.standard_normal((p_star, n))
    z = rng.standard_normal((N_MC, n))
    lam = z @ W.T / np.sqrt(n)
    nu = z @ W_star.T / np.sqrt(n)
    err = (lam**2).sum(1) / p - (nu**2).sum(1) / p_star
    if noise:
        err = err - np.sqrt(noise) * rng.standard_normal(N_MC)
    return W, W_star, lam, nu, err


def _assert_mc(samples, exact, n_se=5.0):
    """Check E[samples] == exact within n_se standard errors (elementwise over trailing axes)."""
    mean = samples.mean(0)
    se = samples.std(0) / np.sqrt(samples.shape[0])
    assert np.all(np.abs(mean - exact) <= n_se * se + 1e-12), (mean, exact, se)


@pytest.mark.parametrize("p,p_star,noise", [(3, 2, 0.0), (1, 3, 0.0), (4, 1, 0.3)])
def test_risk_matches_monte_carlo(p, p_star, noise):
    rng = np.random.default_rng(10 + p)
    W, W_star, _, _, err = _joint_samples(p, p_star, 7, rng, noise)
    Q, R, T = overlaps(W, W_star)
    _assert_mc(0.5 * err**2, population_risk(Q, R, T, noise=noise))


@pytest.mark.parametrize("p,p_star", [(3, 2), (2, 3)])
def test_first_moments_match_monte_carlo(p, p_star):
    rng = np.random.default_rng(20 + p)
    W, W_star, lam, nu, err = _joint_samples(p, p_star, 6, rng)
    m_R, m_Q = error_first_moments(*overlaps(W, W_star))
    _assert_mc(err[:, None, None] * lam[:, :, None] * nu[:, None, :], m_R)
    _assert_mc(err[:, None, None] * lam[:, :, None] * lam[:, None, :], m_Q)


@pytest.mark.parametrize("p,p_star,noise", [(3, 2, 0.0), (2, 3, 0.5)])
def test_phi_matches_monte_carlo(p, p_star, noise):
    rng = np.random.default_rng(30 + p)
    W, W_star, lam, _, err = _joint_samples(p, p_star, 6, rng, noise)
    Q, R, T = overlaps(W, W_star)
    _assert_mc((err**2)[:, None, None] * lam[:, :, None] * lam[:, None, :], phi_matrix(Q, R, T, noise=noise))


def test_phi_is_not_trivially_matched():
    """Negative control: dropping one Wick term (the 8 Q^3 / p^2 part) is detected by the same check."""
    rng = np.random.default_rng(31)
    W, W_star, lam, _, err = _joint_samples(3, 2, 6, rng)
    Q, R, T = overlaps(W, W_star)
    wrong = phi_matrix(Q, R, T) - 8 * Q @ Q @ Q / 9
    with pytest.raises(AssertionError):
        _assert_mc((err**2)[:, None, None] * lam[:, :, None] * lam[:, None, :], wrong)


def test_reference_values_for_identity_teacher():
    p, p_star = 4, 2
    R0 = np.zeros((p, p_star))
    assert population_risk(np.zeros((p, p)), R0) == pytest.approx(0.5 + 1 / p_star)
    assert population_risk(np.eye(p), R0) == pytest.approx(1 / p + 1 / p_star)
    qbar = p / (p + 2)
    assert population_risk(qbar * np.eye(p), R0) == pytest.approx(1 / (p + 2) + 1 / p_star)
    S = np.linalg.qr(np.random.default_rng(0).standard_normal((p, p_star)))[0]
    R = np.sqrt(p / p_star) * S
    assert abs(population_risk(R @ R.T, R)) < 1e-14


def test_risk_accepts_a_trajectory():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((5, 3, 8))
    W_star = rng.standard_normal((2, 8))
    Qs, Rs = [], []
    for w in W:
        Q, R, T = overlaps(w, W_star)
        Qs.append(Q)
        Rs.append(R)
    batch = population_risk(np.array(Qs), np.array(Rs), T)
    single = [population_risk(Q, R, T) for Q, R in zip(Qs, Rs)]
    np.testing.assert_allclose(batch, single, rtol=1e-14)


def test_wick_pairings_count_and_gaussian_moments():
    from ibcore.quadratic import gaussian_moment, wick_pairings

    for n, count in [(0, 1), (2, 1), (4, 3), (6, 15), (8, 105)]:           # (n - 1)!!
        pairings = wick_pairings(n)
        assert len(pairings) == count == len(set(pairings))
        assert all(sorted(k for pair in pairing for k in pair) == list(range(n)) for pairing in pairings)
    assert gaussian_moment([[2.0]], [0, 0, 0, 0]) == 3 * 2.0**2             # E x^4 = 3 s^4
    assert gaussian_moment([[1.0]], [0] * 6) == 15.0
    assert gaussian_moment(np.eye(3), [0, 1, 2]) == 0.0                     # odd moments vanish
    C = np.array([[1.0, 0.3], [0.3, 2.0]])
    # E[x^2 y^2] = C_xx C_yy + 2 C_xy^2 (Isserlis)
    assert gaussian_moment(C, [0, 0, 1, 1]) == pytest.approx(C[0, 0] * C[1, 1] + 2 * C[0, 1] ** 2)


@pytest.mark.parametrize("p,p_star,noise", [(3, 2, 0.0), (2, 3, 0.3)])
def test_phi_and_risk_equal_the_exact_wick_sum(p, p_star, noise):
    """Phi_ij = E[(y_hat - y)^2 lambda_i lambda_j] summed pairing by pairing, to rounding error."""
    from ibcore.quadratic import gaussian_moment

    rng = np.random.default_rng(40 + p)
    Q, R, T = overlaps(rng.standard_normal((p, 7)), rng.standard_normal((p_star, 7)))
    C = np.block([[Q, R], [R.T, T]])
    c = np.r_[np.full(p, 1 / p), np.full(p_star, -1 / p_star)]        # y_hat - y = sum_a c_a z_a^2
    k = p + p_star
    phi = np.array([[sum(c[a] * c[b] * gaussian_moment(C, [a, a, b, b, i, j])
                         for a in range(k) for b in range(k)) for j in range(p)] for i in range(p)])
    np.testing.assert_allclose(phi + noise * Q, phi_matrix(Q, R, T, noise=noise), rtol=1e-12, atol=1e-12)
    if not noise:  # the default is no label noise
        np.testing.assert_allclose(phi, phi_matrix(Q, R, T), rtol=1e-12, atol=1e-12)
    risk = 0.5 * sum(c[a] * c[b] * gaussian_moment(C, [a, a, b, b]) for a in range(k) for b in range(k))
    assert risk + noise / 2 == pytest.approx(population_risk(Q, R, T, noise=noise), rel=1e-12)


def test_gaussian_moment_refuses_an_asymmetric_covariance_but_not_rounding():
    from ibcore.quadratic import gaussian_moment

    C = np.array([[1.0, 0.3], [0.3 + 1e-9, 2.0]])
    with pytest.raises(ValueError, match="cov must be a symmetric square matrix"):
        gaussian_moment(C, [0, 1])
    C = 1e4 * np.array([[1.0, 0.3], [0.3, 2.0]])
    C[1, 0] += 1e-9  # relative 3e-13: rounding of a product of matrices
    assert gaussian_moment(C, [0, 1]) == pytest.approx(3e3)
