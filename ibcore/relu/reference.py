"""The weight-space reference for :func:`ibcore.relu.gradient_descent`.

The same GD, updating the weights directly: each step recomputes β = X w and
lr∇L at O(m n d). It exists to check the primal–dual form (the two agree to
~1e-10 relative, ``tests/relu``) and as the baseline of ``make bench``; use
the primal–dual form for experiments.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import finite_array
from .gd import (GDResult, _check_stability, _iterate, _result, _scaled_gradient_coefficients, _setup,
                 _shared_doc, _warn_inactive)

__all__ = ["gradient_descent_weight_space"]


def _weight_space_step(X, y, s_col, W, alpha, beta, eta, relu):
    """One plain GD step, W ← W - lr ∇L, then β = W Xᵀ. O(m n d). Returns (β_new, ‖ΔW‖²)."""
    G = _scaled_gradient_coefficients(beta, y, s_col, eta, relu)
    update = G @ X  # lr ∇_{w_j} L
    W -= update
    alpha -= G  # bookkeeping only, so that the histories can be compared
    return W @ X.T, float(np.vdot(update, update))


class _WeightIterate:
    """State W of the weight-space reference (β recomputed as W Xᵀ every step)."""

    def __init__(self, X, y, W0, s_col, eta, relu):
        self.X, self.y, self.s_col, self.eta, self.relu = X, y, s_col, eta, relu
        self.W = W0.copy()
        self.beta, self.alpha = W0 @ X.T, np.zeros((W0.shape[0], X.shape[0]))

    def step(self):
        self.beta, step_sq = _weight_space_step(self.X, self.y, self.s_col, self.W, self.alpha, self.beta,
                                                self.eta, self.relu)
        return step_sq

    def w_sq(self):
        return float(np.vdot(self.W, self.W))

    def finite(self):
        return all(math.isfinite(a.sum()) for a in (self.W, self.beta, self.alpha))


@_shared_doc
def gradient_descent_weight_space(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12,
                                  record_every=1, activation="relu",
                                  check_stability=True) -> GDResult:
    """Reference implementation: the same GD, updating w directly.

    Each step recomputes β = X w and lr∇L = (lr/n) Σ_j s_j Xᵀ D_j r, at
    O(m n d); α is accumulated alongside only so that the histories can be
    compared, and the stopping rule uses ‖w‖ and ‖Δw‖ computed in weight space.
    Use it to check :func:`gradient_descent` (they agree to ~1e-10 relative),
    not for experiments.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    w0 : array of shape (d,) or (m, d)
    {shared}
    """
    X = finite_array("X", X, ndim=2)
    n, d = X.shape
    W0, squeeze, opt = _setup(y, w0, "w0", d, n, lr, signs, max_steps, tol, record_every, activation)
    bound = _check_stability(opt["lr"], X @ X.T, W0.shape[0], check_stability)
    state = _WeightIterate(X, opt["y"], W0, opt["signs"][:, None], opt["lr"] / n, opt["relu"])
    _warn_inactive(state.beta, opt["y"], opt["signs"], opt["relu"])
    tracker, converged, steps = _iterate(state, bound=bound, **opt)
    return _result(state, tracker, converged, steps, w=state.W, alpha0=None, y=opt["y"], signs=opt["signs"],
                   lr=opt["lr"], activation=activation, squeeze=squeeze)
