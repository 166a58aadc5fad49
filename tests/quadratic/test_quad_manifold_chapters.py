"""The special directions of the Hessian (teacher directions, zero modes) used by the landscape chapter.

The frame-drift trial of the manifold chapter is tested in ``test_quad_trials.py``.
"""
import numpy as np
import pytest
from scipy.linalg import expm

import ibcore.quadratic as q


# ---------------------------------------------------------------------------
# Special directions of the Hessian (hessian.teacher_directions / zero_mode_directions)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("p,p_star,N", [(3, 2, 9), (4, 1, 8), (2, 2, 7)])
def test_teacher_directions_are_the_negative_eigenvectors(p, p_star, N):
    W, W_star = q.critical_point("plateau", p, p_star, N, rng=1)
    D = q.teacher_directions(p, W_star)
    assert D.shape == (p * p_star, p * N)
    np.testing.assert_allclose(D @ D.T, np.eye(p * p_star), atol=1e-12)
    H = q.population_hessian(W, W_star)
    np.testing.assert_allclose(D @ H, -4.0 / (p * p_star) * D, atol=1e-12)   # escape directions
    # ... and they are the whole negative eigenspace
    assert np.sum(np.linalg.eigvalsh(H) < -1e-9) == p * p_star
    W0, W_star = q.critical_point("zero", p, p_star, N, rng=1)
    D = q.teacher_directions(p, W_star)
    H0 = q.population_hessian(W0, W_star)
    np.testing.assert_allclose(D @ H0, -2.0 / p * (1 + 2.0 / p_star) * D, atol=1e-12)


@pytest.mark.parametrize("p,p_star,N", [(3, 2, 9), (5, 1, 8), (2, 2, 6), (4, 2, 10), (1, 1, 5)])
def test_zero_modes_split_into_tangent_and_marginal(p, p_star, N):
    W, W_star = q.critical_point("zero_loss", p, p_star, N, rng=2)
    tangent, marginal = q.zero_mode_directions(W, W_star)
    assert tangent.shape == (p * p_star - p_star * (p_star + 1) // 2, p * N)
    assert marginal.shape == ((p - p_star) * (N - p_star), p * N)
    B = np.vstack([tangent, marginal])
    np.testing.assert_allclose(B @ B.T, np.eye(B.shape[0]), atol=1e-12)
    H = q.population_hessian(W, W_star)
    assert np.abs(B @ H).max(initial=0) < 1e-12  # p = 1: no zero mode at all
    # together they span the whole null space of the Hessian
    ev, V = np.linalg.eigh(H)
    null = V[:, np.abs(ev) < 1e-8]
    np.testing.assert_allclose(null @ null.T, B.T @ B, atol=1e-10)


def test_loss_along_zero_modes():
    p, p_star, N = 4, 2, 10
    W, W_star = q.critical_point("zero_loss", p, p_star, N, rng=3)
    tangent, marginal = q.zero_mode_directions(W, W_star)
    risk = lambda V: q.population_risk(*q.overlaps(V, W_star))  # noqa: E731
    # a marginal direction: exactly quartic, eps(U + tE) = 3 t^4 / (2 p^2) in U = W / sqrt(N)
    E = marginal[0].reshape(p, N) * np.sqrt(N)
    for t in (0.05, 0.3):
        assert risk(W + t * E) == pytest.approx(1.5 * t**4 / p**2, rel=1e-8)
    # the rotational orbit exp(t Omega) W stays at zero loss
    Omega = np.zeros((p, p))
    Omega[0, 1], Omega[1, 0] = 1.0, -1.0
    assert abs(risk(expm(0.7 * Omega) @ W)) < 1e-13


def test_zero_mode_directions_validation():
    W, W_star = q.critical_point("plateau", 3, 2, 9, rng=0)
    with pytest.raises(ValueError, match="zero-loss manifold"):
        q.zero_mode_directions(W, W_star)
    with pytest.raises(ValueError, match="^W must have p >= p_star"):
        q.zero_mode_directions(W[:1], W_star)
    with pytest.raises(ValueError, match="^p "):
        q.teacher_directions(0, W_star)
    with pytest.raises(ValueError, match="^W_star must have 2 dimension"):
        q.teacher_directions(2, W_star[0])
    with pytest.raises(ValueError, match="W_star must have full row rank"):
        q.teacher_directions(2, np.vstack([W_star[0], 2 * W_star[0]]))
    W, W_star = q.critical_point("zero_loss", 3, 2, 9, rng=0)
    with pytest.raises(ValueError, match="W_star must be an orthonormal teacher"):
        q.zero_mode_directions(W, W_star * (1 + 1e-4))  # T = (1 + 2e-4) I
