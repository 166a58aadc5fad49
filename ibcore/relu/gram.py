r"""The Gram matrix :math:`K = XX^\top`, sampled directly when d is far beyond memory.

For :math:`x_i = \Sigma^{1/2} z_i` with :math:`\Sigma = \mathrm{diag}(\lambda)`,

.. math::

    K = \sum_k \lambda_k\, z^{(k)} z^{(k)\top},\qquad
    z^{(k)} = (z_{1k}, \dots, z_{nk}) \sim \mathcal N(0, I_n),

so a block of q coordinates sharing one eigenvalue λ contributes :math:`\lambda W` with
:math:`W \sim \mathrm{Wishart}_n(q, I_n)`.  When :math:`q \ge n` we draw W exactly through the
Bartlett decomposition :math:`W = LL^\top` (L lower triangular,
:math:`L_{ii}^2 \sim \chi^2_{q-i+1}`, :math:`L_{ij} \sim \mathcal N(0, 1)` below the diagonal) at
cost :math:`O(n^3)`, independent of q.  Coordinates in blocks smaller than n (spikes, or spectra
with distinct values such as the power law) are drawn explicitly in chunks, at cost
:math:`O(n^2 q)` and memory :math:`O(n\cdot\mathrm{chunk})`.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_float, positive_int
from .features import _CHUNK, _as_spectrum

__all__ = ["sample_gram", "gram_deviation"]


def _wishart_bartlett(n, dof, *, rng=None) -> np.ndarray:
    """Exact draw of W ~ Wishart_n(dof, I_n), i.e. the law of Z Zᵀ with Z ∈ ℝ^{n×dof} Gaussian.

    Bartlett decomposition: W = L Lᵀ with L lower triangular, independent
    entries L_ii = √χ²_{dof-i+1} (i = 1..n) and L_ij ~ N(0, 1) for i > j.
    Cost O(n³) whatever ``dof``; requires dof ≥ n.
    """
    n = positive_int("n", n)
    dof = positive_int("dof", dof)
    if dof < n:
        raise ValueError(f"dof must be >= n for the Bartlett decomposition, got dof={dof}, n={n}")
    rng = np.random.default_rng(rng)
    L = np.tril(rng.standard_normal((n, n)), k=-1)
    L[np.diag_indices(n)] = np.sqrt(rng.chisquare(dof - np.arange(n)))
    return L @ L.T


def sample_gram(n, d, *, spectrum=None, rng=None, chunk=_CHUNK) -> np.ndarray:
    r"""Draw :math:`K = XX^\top` for X = :func:`~ibcore.relu.sample_features` (n, d, spectrum) without forming X.

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension (d may be :math:`10^8` or more).
    spectrum : None, str, array or :class:`~ibcore.relu.Spectrum`
        Covariance eigenvalues λ, as for :func:`~ibcore.relu.sample_features`.
    rng : None, int or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.
    chunk : int
        Coordinates drawn at once for eigenvalues not in a block of size :math:`\ge n`.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        Symmetric positive (semi)definite; same law as :math:`XX^\top`.

    Notes
    -----
    Cost: :math:`O(n^3)` per block of equal eigenvalues with multiplicity :math:`\ge n`
    (isotropic: one block; spiked: the bulk, plus :math:`O(n^2)` per spike), and
    :math:`O(n^2q)` for the q remaining coordinates. A power law at :math:`d = 10^8` is
    therefore slow (every coordinate is explicit); isotropic and spiked
    spectra cost the same at any d.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K = R.sample_gram(4, 10**6, rng=0)
    >>> K.shape, bool(np.allclose(K, K.T))
    ((4, 4), True)
    >>> print(np.round(np.diag(K) / 10**6, 2))   # |x_i|^2 / d
    [1. 1. 1. 1.]
    """
    n = positive_int("n", n)
    spec = _as_spectrum(spectrum, d)
    rng = np.random.default_rng(rng)
    chunk = positive_int("chunk", chunk)
    K = np.zeros((n, n))
    blocks = spec.blocks()
    if blocks is not None:
        values, counts = blocks
        wishart = counts >= n
        for lam, q in zip(values[wishart], counts[wishart]):
            if lam > 0:
                K += lam * _wishart_bartlett(n, int(q), rng=rng)
        explicit = np.repeat(values[~wishart], counts[~wishart])
        pieces = (explicit[i:i + chunk] for i in range(0, explicit.size, chunk))
    else:
        pieces = spec.chunks(chunk)
    for lam in pieces:
        Z = rng.standard_normal((n, lam.size)) * np.sqrt(lam)
        K += Z @ Z.T
    return (K + K.T) / 2  # exact symmetry, whatever BLAS did


def _validated_gram(K) -> np.ndarray:
    """K as a float array, checked square, finite and symmetric (to 1e-10 relative), then symmetrised."""
    K = finite_array("K", K, ndim=2)
    n = K.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K must be a square (n, n) matrix, got shape {K.shape}")
    scale = np.abs(K).max()
    if np.abs(K - K.T).max() > 1e-10 * scale:
        raise ValueError("K must be symmetric, got max |K - K^T| = "
                         f"{np.abs(K - K.T).max():.3g} (max |K| = {scale:.3g})")
    return np.ascontiguousarray((K + K.T) / 2)


def gram_deviation(K, *, scale=None) -> float:
    r""":math:`\Delta = \lVert K/\kappa - I\rVert_{op}`: how far the Gram matrix is from a multiple of the identity.

    The Gram lemma of chapter 2: for :math:`x_i = \Sigma^{1/2}z_i`, :math:`K = \kappa(I + E)` with
    :math:`\kappa = \lVert\lambda\rVert_1` and E of operator norm about :math:`2\sqrt{n/d}` for
    isotropic data (the Marchenko–Pastur edge) and about :math:`\sqrt{n/R_0} + n/r_0` in general
    (:math:`R_0 = \lVert\lambda\rVert_1^2/\lVert\lambda\rVert_2^2`,
    :math:`r_0 = \lVert\lambda\rVert_1/\lVert\lambda\rVert_\infty`: a spike adds its own
    :math:`n/r_0`), so the examples are nearly orthogonal when :math:`R_0` and :math:`r_0` are
    :math:`\gg n`.  Every eigenvalue of every
    principal submatrix :math:`K_{AA}` lies in :math:`[\kappa(1 - \Delta), \kappa(1 + \Delta)]`, and
    every off-diagonal block :math:`K_{IA}` has operator norm at most :math:`\kappa\Delta`: Δ is the
    constant of the cumulative cross-talk lemma (:func:`~ibcore.relu.settling_certificate`).

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    scale : float, optional
        κ; default :math:`\mathrm{mean}_i K_{ii}` (pass :math:`\lVert\lambda\rVert_1` for the population value).

    Returns
    -------
    float
        Δ (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.gram_deviation(3.0 * np.eye(4))
    0.0
    >>> K = R.sample_gram(20, 10**6, rng=0)
    >>> print(f"{R.gram_deviation(K):.4f} vs 2 sqrt(n/d) = {2 * np.sqrt(20 / 10**6):.4f}")
    0.0075 vs 2 sqrt(n/d) = 0.0089
    """
    K = _validated_gram(K)
    kappa = float(np.mean(np.diag(K))) if scale is None else positive_float("scale", scale)
    eig = np.linalg.eigvalsh(K / kappa)
    return float(max(eig[-1] - 1.0, 1.0 - eig[0]))
