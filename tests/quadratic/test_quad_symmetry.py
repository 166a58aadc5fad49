"""Conserved frame S = R (R^T R)^{-1/2} and selection of the closest zero-loss solution."""
import numpy as np
import pytest

import ibcore.quadratic as q


def test_conserved_frame_is_the_polar_factor():
    rng = np.random.default_rng(0)
    R = rng.standard_normal((5, 3))
    S = q.conserved_frame(R)
    np.testing.assert_allclose(S.T @ S, np.eye(3), atol=1e-14)
    w, V = np.linalg.eigh(R.T @ R)
    np.testing.assert_allclose(S, R @ V @ np.diag(w**-0.5) @ V.T, atol=1e-12)
    stack = np.stack([R, 2 * R])
    np.testing.assert_allclose(q.conserved_frame(stack), np.stack([S, S]), atol=1e-14)
    with pytest.raises(ValueError, match="full column rank"):
        q.conserved_frame(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="R"):
        q.conserved_frame(rng.standard_normal((2, 3)))


@pytest.mark.parametrize("p,p_star", [(2, 1), (3, 2), (5, 2), (4, 4)])
@pytest.mark.parametrize("second_order", [False, True])
def test_frame_conserved_along_ode(p, p_star, second_order):
    Q0, R0, T = q.initial_overlaps(p, p_star, 1000, q0=0.8, rng=p + p_star)
    traj = q.integrate_odes(Q0, R0, T, lr=0.05 * p if second_order else None, t_max=20.0)
    assert traj.risk[-1] < 0.05                      # the frame survived escape and convergence
    assert np.max(q.frame_drift(traj.R)) < 1e-10


def test_frame_not_conserved_for_anisotropic_teacher():
    """Negative control: the same check fails at O(0.1) when T is not proportional to I."""
    p, p_star = 3, 2
    Q0, R0, _ = q.initial_overlaps(p, p_star, 1000, rng=5)
    T = np.array([[1.0, 0.3], [0.3, 1.5]])
    traj = q.integrate_odes(Q0, R0, T, t_max=20.0)
    assert np.max(q.frame_drift(traj.R)) > 0.05


def test_closest_zero_loss_overlaps_are_the_procrustes_point():
    rng = np.random.default_rng(1)
    p, p_star = 5, 2
    R0 = rng.standard_normal((p, p_star))
    Q_inf, R_inf = q.closest_zero_loss_solution(R0)
    np.testing.assert_allclose(R_inf.T @ R_inf, p / p_star * np.eye(p_star), atol=1e-12)
    assert abs(q.population_risk(Q_inf, R_inf)) < 1e-14
    best = np.linalg.norm(R_inf - R0)
    for _ in range(200):                             # no other point of the manifold is closer
        S = q.random_frame(p, p_star, rng=rng)
        assert np.linalg.norm(np.sqrt(p / p_star) * S - R0) >= best - 1e-12


def test_closest_zero_loss_weights():
    rng = np.random.default_rng(2)
    p, p_star, N = 4, 2, 30
    W0, W_star = q.random_init(p, p_star, N, informative=0.5, rng=rng)
    W = q.closest_zero_loss_weights(W0, W_star)
    assert abs(q.population_risk(*q.overlaps(W, W_star))) < 1e-13
    _, R_inf = q.closest_zero_loss_solution(q.overlaps(W0, W_star).R)
    np.testing.assert_allclose(q.overlaps(W, W_star).R, R_inf, atol=1e-12)
    best = np.linalg.norm(W - W0)
    for _ in range(200):
        S = q.random_frame(p, p_star, rng=rng)
        assert np.linalg.norm(np.sqrt(p / p_star) * S @ W_star - W0) >= best - 1e-10


def test_ode_ends_at_the_closest_solution_when_p_equals_p_star():
    p = p_star = 3
    Q0, R0, T = q.initial_overlaps(p, p_star, 1000, rng=3)
    traj = q.integrate_odes(Q0, R0, T, t_max=40.0)
    Q_inf, R_inf = q.closest_zero_loss_solution(R0)
    assert np.linalg.norm(traj.R[-1] - R_inf) < 1e-8
    assert np.linalg.norm(traj.Q[-1] - Q_inf) < 1e-8


def _polar(R):
    """R (RᵀR)^{-1/2} by an eigendecomposition (conserved_frame uses an SVD)."""
    w, V = np.linalg.eigh(R.T @ R)
    return R @ V @ np.diag(w ** -0.5) @ V.T


def test_frame_drift_against_a_given_reference_and_the_first_frame():
    rng = np.random.default_rng(4)
    R = rng.standard_normal((6, 4, 2))
    frames = np.stack([_polar(r) for r in R])
    np.testing.assert_allclose(q.frame_drift(R), [np.linalg.norm(S - frames[0]) for S in frames], atol=1e-12)
    reference = q.random_frame(4, 2, rng=5)
    drift = q.frame_drift(R, reference)
    assert drift.shape == (6,)
    np.testing.assert_allclose(drift, [np.linalg.norm(S - reference) for S in frames], atol=1e-12)
    with pytest.raises(ValueError, match="reference"):
        q.frame_drift(R, reference[:3])


def test_square_overlap_has_an_orthogonal_frame():
    R = np.random.default_rng(6).standard_normal((3, 3))
    S = q.conserved_frame(R)
    np.testing.assert_allclose(S @ S.T, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(S, _polar(R), atol=1e-12)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_full_column_rank_is_judged_relative_to_the_largest_singular_value(scale):
    """The smallest singular value must exceed 1e-14 times the largest, at any scale of R."""
    U = q.random_frame(4, 2, rng=7)
    for ratio in (3e-14, 1e-12):
        np.testing.assert_allclose(q.conserved_frame(scale * U @ np.diag([1.0, ratio])), U, atol=1e-12)
    for ratio in (3e-15, 0.0):
        with pytest.raises(ValueError, match="full column rank"):
            q.conserved_frame(scale * U @ np.diag([1.0, ratio]))


def test_closest_zero_loss_weights_for_a_general_teacher():
    """W = sqrt(p/p*) S(R0) W* has zero loss for any full-rank teacher (T ≠ I here) and is the
    point of the zero-loss set nearest W0."""
    rng = np.random.default_rng(8)
    p, p_star, N = 4, 2, 40
    W0, W_star = rng.standard_normal((p, N)), rng.standard_normal((p_star, N))
    W = q.closest_zero_loss_weights(W0, W_star)
    np.testing.assert_allclose(W, np.sqrt(p / p_star) * _polar(W0 @ W_star.T / N) @ W_star, atol=1e-12)
    Q, R, T = q.overlaps(W, W_star)
    assert np.abs(T - np.eye(p_star)).max() > 0.1
    assert abs(q.population_risk(Q, R, T)) < 1e-12
    best = np.linalg.norm(W - W0)
    for _ in range(200):
        S = q.random_frame(p, p_star, rng=rng)
        assert np.linalg.norm(np.sqrt(p / p_star) * S @ W_star - W0) >= best - 1e-10
