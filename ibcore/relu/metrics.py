"""What the chapters measure: the gap to the min-norm solution and the activation-pattern dynamics.

The gap is the *relative* distance ‖w_GD - w*‖/‖w*‖.  That the paper's
Θ(√(n/‖λ‖₁)) refers to this relative distance is our reading: with O(1)
labels ‖w*‖ is itself of order √(n/d), so an absolute gap of that order
would say nothing (science notes §4).
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array
from .gram import validated_gram

__all__ = [
    "relative_gap",
    "relative_gap_gram",
    "stabilisation_step",
    "reactivation_count",
    "positive_residual",
]


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
