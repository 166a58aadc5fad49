"""Analytic gradient and Hessian of the population risk; spectra at the three reference points."""
import numpy as np
import pytest

import ibcore.quadratic as q

from .independent import population_gradient


def _risk(W, W_star):
    return q.population_risk(*q.overlaps(W, W_star))


def _generic_point(p=3, p_star=2, N=6, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((p, N)), rng.standard_normal((p_star, N))


def test_gradient_matches_finite_differences():
    W, W_star = _generic_point()
    h = 1e-6
    g = population_gradient(W, W_star, wrt="W")
    fd = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        E = np.zeros_like(W)
        E[idx] = h
        fd[idx] = (_risk(W + E, W_star) - _risk(W - E, W_star)) / (2 * h)
    np.testing.assert_allclose(g, fd, atol=1e-8)
    N = W.shape[1]
    np.testing.assert_allclose(population_gradient(W, W_star), g * np.sqrt(N), atol=1e-14)


def test_hessian_matches_finite_differences():
    W, W_star = _generic_point()
    p, N = W.shape
    h = 1e-6
    H = q.population_hessian(W, W_star, wrt="W")
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    fd = np.zeros_like(H)
    for k in range(p * N):
        E = np.zeros(p * N)
        E[k] = h
        E = E.reshape(p, N)
        fd[:, k] = ((population_gradient(W + E, W_star, wrt="W")
                     - population_gradient(W - E, W_star, wrt="W")) / (2 * h)).ravel()
    np.testing.assert_allclose(H, fd, atol=1e-8)
    # second differences of the risk itself along random directions
    rng = np.random.default_rng(2)
    for _ in range(5):
        E = rng.standard_normal((p, N))
        t = 1e-4
        second = (_risk(W + t * E, W_star) - 2 * _risk(W, W_star) + _risk(W - t * E, W_star)) / t**2
        assert E.ravel() @ H @ E.ravel() == pytest.approx(second, rel=1e-5)
    np.testing.assert_allclose(q.population_hessian(W, W_star), H * N, atol=1e-12)


@pytest.mark.parametrize("kind", ["zero", "plateau", "zero_loss"])
@pytest.mark.parametrize("p,p_star,N", [(3, 2, 9), (4, 1, 8), (2, 2, 7), (5, 3, 10), (3, 2, 5)])
def test_spectrum_matches_the_table(kind, p, p_star, N):
    W, W_star = q.critical_point(kind, p, p_star, N, rng=p * N)
    np.testing.assert_allclose(W_star @ W_star.T / N, np.eye(p_star), atol=1e-12)
    assert np.max(np.abs(population_gradient(W, W_star))) < 1e-12     # a critical point
    values, mults = q.group_spectrum(np.linalg.eigvalsh(q.population_hessian(W, W_star)), tol=1e-6)
    table_values, table_mults = q.hessian_spectrum_table(kind, p, p_star, N)
    assert table_mults.sum() == p * N
    np.testing.assert_array_equal(mults, table_mults)
    np.testing.assert_allclose(values, table_values, atol=1e-9)


def test_notes_reference_spectra():
    """The finite-difference check of the notes, N = 9, p = 3, p* = 2 (eigenvalue x multiplicity)."""
    expected = {"zero": ([-4 / 3, -2 / 3], [6, 21]),
                "plateau": ([-2 / 3, 0, 8 / 15, 4 / 3], [6, 15, 5, 1]),
                "zero_loss": ([0, 2 / 3, 4 / 3, 8 / 3], [10, 14, 2, 1])}
    for kind, (values, mults) in expected.items():
        v, m = q.hessian_spectrum_table(kind, 3, 2, 9)
        np.testing.assert_allclose(v, values, atol=1e-12)
        np.testing.assert_array_equal(m, mults)
    v, _ = q.hessian_spectrum_table("plateau", 3, 2, 9, wrt="W")
    np.testing.assert_allclose(v, np.array(expected["plateau"][0]) / 9, atol=1e-12)


@pytest.mark.parametrize("kind", ["zero", "plateau", "zero_loss"])
def test_table_rows_are_distinct_eigenvalues_at_every_scale(kind):
    """No two rows of the table coincide, so none is merged, even when wrt="W" makes them tiny.

    The table once merged rows closer than 1e-15, which never happens in U units and at
    N = 1e15 in W units fused distinct eigenvalues (the two of "zero" became one).
    """
    for p in range(1, 7):
        for p_star in range(1, 7):
            if kind == "zero_loss" and p < p_star:
                continue
            for N in (p + p_star, p + p_star + 3):
                values, mults = q.hessian_spectrum_table(kind, p, p_star, N)
                assert np.all(np.diff(values) > 1e-3) and np.all(mults > 0) and mults.sum() == p * N
    N = 10**15
    values, mults = q.hessian_spectrum_table(kind, 3, 2, N)
    values_w, mults_w = q.hessian_spectrum_table(kind, 3, 2, N, wrt="W")
    assert len(values) == {"zero": 2, "plateau": 4, "zero_loss": 4}[kind]
    np.testing.assert_array_equal(mults_w, mults)
    np.testing.assert_allclose(values_w * N, values, rtol=1e-12)


def test_plateau_is_a_saddle_and_manifold_is_marginal():
    W, W_star = q.critical_point("plateau", 3, 2, 9, rng=0)
    ev = np.linalg.eigvalsh(q.population_hessian(W, W_star))
    assert ev.min() < -0.1 and ev.max() > 0.1
    W, W_star = q.critical_point("zero_loss", 3, 2, 9, rng=0)
    ev = np.linalg.eigvalsh(q.population_hessian(W, W_star))
    assert ev.min() > -1e-10 and np.sum(np.abs(ev) < 1e-8) == 10


def test_group_spectrum():
    values, mults = q.group_spectrum([1.0, 0.0, 1.0 + 1e-9, -2.0, 0.0 - 1e-9], tol=1e-6)
    np.testing.assert_allclose(values, [-2.0, 0.0, 1.0], atol=1e-8)
    np.testing.assert_array_equal(mults, [1, 2, 2])
    with pytest.raises(ValueError, match="tol"):
        q.group_spectrum([1.0], tol=0)


def test_reference_points_are_reproducible_from_the_seed():
    for kind in ("plateau", "zero_loss"):
        a, b, c = (q.critical_point(kind, 3, 2, 9, rng=seed).W for seed in (5, 5, 6))
        np.testing.assert_array_equal(a, b)
        assert np.abs(a - c).max() > 0.1


def test_dense_hessian_size_limit(monkeypatch):
    """The limit is on p*N (at the real limit, 8000, the matrix alone is 512 MB)."""
    from ibcore.quadratic import hessian

    monkeypatch.setattr(hessian, "_MAX_HESSIAN_SIZE", 12)
    assert q.population_hessian(*_generic_point(3, 2, 4)).shape == (12, 12)  # p*N = 12 is allowed
    with pytest.raises(ValueError, match=r"W has p\*N = 15 entries, too many for a dense Hessian \(limit 12\)"):
        q.population_hessian(*_generic_point(3, 2, 5))


def test_group_spectrum_default_tol_and_boundary():
    np.testing.assert_array_equal(q.group_spectrum([0.0, 5e-7, 1.0, 1.0 + 2e-6]).multiplicities, [2, 1, 1])
    np.testing.assert_array_equal(q.group_spectrum([0.0, 0.5, 1.0], tol=0.5).multiplicities, [3])  # gaps = tol
    with pytest.raises(ValueError, match=r"eigvals must have 1 dimension"):
        q.group_spectrum(np.eye(2))
