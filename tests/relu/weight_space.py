"""The weight-space form of GD: the reference the primal–dual solver is held to.

The same GD as :func:`ibcore.relu.gradient_descent`, updating the weights directly: each step
recomputes β = X w and lr∇L at O(m n d). It runs through ibcore's loop (``_iteration.run_gd``:
stopping rule, divergence check, pattern bookkeeping, history), so that the two forms' results
can be compared field by field; what it checks is the dual arithmetic (α, β, K) against the
primal one. ``benchmarks/bench_relu.py`` times its step as the baseline of the dual step.
"""
from __future__ import annotations

import math

import numpy as np

from ibcore.relu import stability
from ibcore.relu._iteration import gradient_kernel, prepare_gd, run_gd, warn_inactive
from ibcore.validation import finite_array


class WeightIterate:
    """State W of the weight-space form (β recomputed as W Xᵀ every step)."""

    def __init__(self, X, setup):
        self.X, self.setup = X, setup
        self.W = setup.init.copy()
        self.beta, self.alpha = self.W @ X.T, np.zeros((self.W.shape[0], X.shape[0]))
        self._gradient = gradient_kernel(setup.y, setup.signs, setup.lr / X.shape[0], setup.relu)

    def step(self):
        """One plain GD step, W ← W - lr ∇L, then β = W Xᵀ. O(m n d). Returns ‖ΔW‖².

        ``alpha`` is updated alongside only so that the histories of both forms can be compared.
        """
        G = self._gradient(self.beta)
        update = G @ self.X  # lr ∇_{w_j} L
        self.W -= update
        self.alpha -= G
        self.beta = self.W @ self.X.T
        return float(np.vdot(update, update))

    def w_sq(self):
        return float(np.vdot(self.W, self.W))

    def finite(self, w_sq):
        # α and β are arrays of their own here, so w_sq says nothing about them
        return all(math.isfinite(a.sum()) for a in (self.W, self.beta, self.alpha))


def gradient_descent_weight_space(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12,
                                  record_every=None, activation="relu", check_stability=True):
    """:func:`ibcore.relu.gradient_descent` from features, in weight space (same arguments, same result)."""
    X = finite_array("X", X, ndim=2)
    n, d = X.shape
    setup = prepare_gd(y, w0, init_name="w0", width=d, n=n, lr=lr, signs=signs, max_steps=max_steps, tol=tol,
                       record_every=record_every, activation=activation)
    bound = stability._check_stability(setup.lr, X @ X.T, setup.m, check=check_stability)
    state = WeightIterate(X, setup)
    warn_inactive(state.beta, setup)
    return run_gd(state, setup, bound=bound, weights=lambda st: st.W)
