"""What the chapters measure: the gap to the min-norm solution and the activation-pattern dynamics.

The gap is the *relative* distance ‖w_GD - w*‖/‖w*‖.  That the paper's
Θ(√(n/‖λ‖₁)) refers to this relative distance is our reading: with O(1)
labels ‖w*‖ is itself of order √(n/d), so an absolute gap of that order
would say nothing (science notes §4).
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, nonnegative_float, positive_float
from .gram import validated_gram

__all__ = [
    "FIT_TOL",
    "relative_gap",
    "relative_gap_gram",
    "norm_gram",
    "stabilisation_step",
    "reactivation_count",
    "positive_residual",
    "can_fit",
    "fit_threshold",
    "fit_statistics",
    "run_statistics",
]

#: An example counts as fitted when |f(x_i) - y_i| ≤ FIT_TOL.  GD stopped by
#: ``tol=1e-12`` leaves residuals ≈ tol·‖y‖/c ≈ 1e-10 (c = 0.01), so 1e-6 has
#: four orders of slack and is still far below any label of a failed example.
FIT_TOL = 1e-6


def relative_gap(w, w_star) -> float:
    """‖w - w*‖_F / ‖w*‖_F for one neuron (d,) or several (m, d).

    For two neurons compare with :func:`~ibcore.relu.min_norm.min_norm_pair`,
    (w*(y), w*(-y)).
    """
    w_star = finite_array("w_star", w_star, ndim=(1, 2))
    w = finite_array("w", w, shape=w_star.shape)
    norm = np.linalg.norm(w_star)
    if norm == 0:
        raise ValueError("w_star is zero, so the relative gap is undefined (no positive labels?)")
    return float(np.linalg.norm(w - w_star) / norm)


def relative_gap_gram(K, coef, coef_star) -> float:
    """The relative gap when only K is known: w = Xᵀa, w* = Xᵀν.

    ‖w - w*‖² = Σ_j (a_j - ν_j)ᵀ K (a_j - ν_j) and ‖w*‖² = Σ_j ν_jᵀ K ν_j.

    Parameters
    ----------
    K : array of shape (n, n)
    coef : array of shape (n,) or (m, n)
        Coefficients of the GD weights, e.g. ``GDResult.coef`` (α0 + α_T).
    coef_star : array of the same shape
        Coefficients of the target, e.g. ``MinNormSolution.nu`` or
        :func:`~ibcore.relu.min_norm.min_norm_pair_gram`.
    """
    K = validated_gram(K)
    n = K.shape[0]
    coef_star = np.atleast_2d(finite_array("coef_star", coef_star, ndim=(1, 2)))
    if coef_star.shape[1] != n:
        raise ValueError(f"coef_star must have n={n} columns to match K, got shape {coef_star.shape}")
    coef = np.atleast_2d(finite_array("coef", coef, ndim=(1, 2)))
    if coef.shape != coef_star.shape:
        raise ValueError(f"coef must have the shape of coef_star {coef_star.shape}, got {coef.shape}")
    diff = coef - coef_star
    num = np.einsum("ji,ik,jk->", diff, K, diff)
    den = np.einsum("ji,ik,jk->", coef_star, K, coef_star)
    if den <= 0:
        raise ValueError("the target has zero norm (coef_star^T K coef_star = 0); the relative gap is undefined")
    return float(np.sqrt(max(num, 0.0) / den))


def norm_gram(K, coef) -> float:
    """‖Xᵀ coef‖_F = (Σ_j coef_jᵀ K coef_j)^{1/2} for coefficients of shape (n,) or (m, n), from K alone."""
    K = validated_gram(K)
    coef = np.atleast_2d(finite_array("coef", coef, ndim=(1, 2)))
    if coef.shape[1] != K.shape[0]:
        raise ValueError(f"coef must have n={K.shape[0]} columns to match K, got shape {coef.shape}")
    return float(np.sqrt(max(np.einsum("ji,ik,jk->", coef, K, coef), 0.0)))


def stabilisation_step(result) -> int:
    """The step after which no activation pattern changes: max over (neuron,) examples of ``last_change``."""
    return int(np.max(result.last_change))


def reactivation_count(result) -> int:
    """Total number of re-activations (inactive → active again) over all neurons and examples."""
    return int(np.sum(result.reactivations))


def positive_residual(result, y) -> float:
    """max_{i : y_i > 0} |f(x_i) - y_i|: how well the positive labels are fitted (0 if none)."""
    y = finite_array("y", y, shape=(np.size(result.predictions),))
    pos = y > 0
    return float(np.abs(result.predictions[pos] - y[pos]).max(initial=0.0))


def can_fit(y, signs) -> np.ndarray:
    """Boolean (m, n): neuron j can fit example i, s_j y_i > 0.

    An example that some neuron can fit (``can_fit(y, signs).any(axis=0)``)
    must be fitted exactly at a global minimum; the others (y_i ≤ 0 for one
    neuron, y_i = 0 for two) are best served by outputs that stay at 0.
    """
    y = finite_array("y", y, ndim=1)
    signs = finite_array("signs", signs, ndim=1)
    return signs[:, None] * y[None, :] > 0


def fit_threshold(y, *, tol, c) -> float:
    """The residual below which an example counts as fitted: max(:data:`FIT_TOL`, 100·tol·‖y‖/c).

    GD stopped by its rule lr‖∇L‖ ≤ tol‖w‖ leaves residuals of about
    tol·‖y‖/c (the iterates contract by (1 - c) per step), so a run with a
    loose ``tol`` or a small ``c`` needs a looser threshold than FIT_TOL;
    100 times that residual still lies far below the labels of lost examples.
    """
    y = finite_array("y", y, ndim=1)
    c = positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    return max(FIT_TOL, 100 * tol * float(np.linalg.norm(y)) / c)


def fit_statistics(result, y, *, threshold=FIT_TOL) -> dict:
    """Residuals over the examples the network must fit: ``max_residual``, and ``unfit``, the count above ``threshold``."""
    needy = can_fit(y, result.signs).any(axis=0)
    resid = np.abs(result.predictions - y)[needy]
    return {"max_residual": float(resid.max(initial=0.0)), "unfit": int(np.sum(resid > threshold))}


def run_statistics(result) -> dict:
    """The run in numbers: ``n_steps``, ``converged`` (``result.success``), ``stabilisation_step``, ``reactivations``."""
    return {"n_steps": int(result.n_steps), "converged": bool(result.success),
            "stabilisation_step": stabilisation_step(result), "reactivations": reactivation_count(result)}
