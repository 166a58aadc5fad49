r"""Step sizes: the stability bound, the per-example contraction c, and our default c.

GD on the shallow ReLU model is written with the step lr, but every chapter
thinks in the dimensionless *per-example contraction* c = lr‖x‖²/n: an example
that is active alone moves as β ← (1 - c)β + c y.  A finite c leaves an
overshoot of relative size ≈ c/√3 in the gap (chapter 1, orthogonal data), so
the √(n/‖λ‖₁) law is only visible while c ≪ √(n/‖λ‖₁).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..validation import finite_array, positive_float, positive_int
from .features import _as_spectrum
from .gram import _validated_gram

__all__ = ["stability_bound", "lr_from_contraction", "default_contraction"]


def _features_or_gram(X, K):
    """Exactly one of X and K, validated: (X, None) or (None, K)."""
    if (X is None) == (K is None):
        raise ValueError("give exactly one of X (features) and K (Gram matrix)")
    return (finite_array("X", X, ndim=2), None) if X is not None else (None, _validated_gram(K))


def _lambda_max(K) -> float:
    n = K.shape[0]
    return float(scipy.linalg.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0])


def stability_bound(X=None, *, K=None, m=1) -> float:
    r"""Largest stable step size, :math:`2n / (m\,\lambda_{\max}(K))`.

    On a fixed activation pattern the loss is the quadratic
    :math:`\frac1{2n}\lVert\sum_j s_j D_j X w_j - y\rVert^2`, whose Hessian in
    :math:`(w_1, \dots, w_m)` has largest eigenvalue at most :math:`m\,\lambda_{\max}(K)/n`
    (since :math:`\lambda_{\max}(DKD) \le \lambda_{\max}(K)`), with equality for the
    all-active pattern. GD on a quadratic is stable iff
    :math:`\eta < 2/\lambda_{\max}(\text{Hessian})`, so :math:`\eta < 2n/(m\,\lambda_{\max}(K))`
    is exactly the condition for GD to be stable on every activation pattern (the
    all-active one attains the bound), and for the identity activation.  The ReLU loss is not smooth across patterns,
    so this is a per-pattern condition, not a global convergence proof.
    In contraction units, c < 2 mean‖x‖² / (m λ_max(K)) ≈ 2/m for d ≫ n.

    Parameters
    ----------
    X : array of shape (n, d), optional
    K : array of shape (n, n), optional
        Exactly one of the features and the Gram matrix.
    m : int
        Number of neurons.
    """
    X, K = _features_or_gram(X, K)
    K = X @ X.T if K is None else K
    m = positive_int("m", m)
    return 2.0 * K.shape[0] / (m * _lambda_max(K))


def _check_stability(lr, K, m, *, check=True, lam_max=None) -> float:
    """Return the stability bound 2n/(m λ_max(K)); raise ``ValueError`` if ``check`` and lr is at or above it.

    Parameters
    ----------
    lr : float
    K : array of shape (n, n)
        A validated Gram matrix.
    m : int
    check : bool
        ``False`` only computes the bound (to study the unstable regime).
    lam_max : float, optional
        λ_max(K), when the caller already has it.
    """
    lam_max = _lambda_max(K) if lam_max is None else lam_max
    bound = 2.0 * K.shape[0] / (m * lam_max)
    if check and lr >= bound:
        raise ValueError(
            f"lr={lr:.6g} is at or above the stability bound 2n/(m*lambda_max(K)) = {bound:.6g}; "
            "use a smaller lr (see lr_from_contraction) or pass check_stability=False "
            "to study the unstable regime")
    return bound


def lr_from_contraction(c, X=None, *, K=None) -> float:
    """Step size with per-example contraction ``c``: lr = c n / mean_i ‖x_i‖².

    An example that is active alone then moves as β ← (1 - c) β + c y.
    Finite c leaves an O(c) overshoot in the gap (≈ c/√3 on orthogonal data,
    chapter 1), so the √(n/‖λ‖₁) scaling is only visible while c ≪ √(n/‖λ‖₁):
    see :func:`~ibcore.relu.default_contraction`.

    Parameters
    ----------
    c : float > 0
    X : array of shape (n, d), optional
    K : array of shape (n, n), optional
        Exactly one of the features and the Gram matrix.
    """
    c = positive_float("c", c)
    X, K = _features_or_gram(X, K)
    sq_norms = np.diag(K) if X is None else np.einsum("ij,ij->i", X, X)
    mean_sq = float(sq_norms.mean())
    if mean_sq <= 0:
        raise ValueError("the features are all zero; lr_from_contraction needs mean ||x_i||^2 > 0")
    return c * sq_norms.size / mean_sq


def default_contraction(n, d, *, spectrum=None) -> float:
    r"""Our default step: c = min(0.01, 0.2·√(n/R₀)) to one significant digit, R₀ = ‖λ‖₁²/‖λ‖₂².

    The overshoot floor c/√3 adds to the gap A√(n/R₀) in quadrature
    (chapter 3), so with c ≤ 0.2√(n/R₀) and A ≈ 0.5 it moves the gap by at
    most about 3%.  √(n/R₀) = √n‖λ‖₂/‖λ‖₁ is the cross-talk scale; it is
    invariant when λ is rescaled (as c is), equals √(n/d) for isotropic data
    and is at most √(n/‖λ‖₁) when ‖λ‖∞ = 1.  The number of GD steps grows
    like 1/c.  Rounding to one digit keeps the values readable in tables.

    Parameters
    ----------
    n, d : int
    spectrum : None, str, array or Spectrum
        As for :func:`~ibcore.relu.sample_features`.
    """
    n = positive_int("n", n)
    spec = _as_spectrum(spectrum, d)
    scale = np.sqrt(n / spec.R0)
    return float(f"{min(0.01, 0.2 * scale):.1g}")
