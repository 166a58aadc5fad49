"""The weight-space test reference for :func:`~ibcore.relu.gradient_descent` (not public).

The same GD, updating the weights directly: each step recomputes β = X w and
lr∇L at O(m n d). It exists to check the primal–dual form (the two agree to
~1e-10 relative, ``tests/relu``) and, through its step (``_WeightIterate.step``), as
the baseline of ``make bench``; use the primal–dual form for experiments. Nothing here is
public: tests reach ``_gradient_descent_weight_space`` through this module.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import finite_array
from ._iteration import gd_parameters_doc, gradient_kernel, prepare_gd, run_gd, warn_inactive
from .results import GDResult
from . import stability

__all__ = []  # a test reference only


class _WeightIterate:
    """State W of the weight-space reference (β recomputed as W Xᵀ every step)."""

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


def _gradient_descent_weight_space(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12,
                                   record_every=None, activation="relu",
                                   check_stability=True) -> GDResult:
    r"""Test reference: the same GD as :func:`~ibcore.relu.gradient_descent`, updating w directly.

    Each step recomputes :math:`\beta = Xw` and
    :math:`\eta\nabla_{w_j}L = \frac{\eta}{n}s_jX^\top D_jr`, at :math:`O(mnd)`; α is accumulated
    alongside only so that the histories can be compared, and the stopping rule uses
    :math:`\lVert w\rVert` and :math:`\lVert\Delta w\rVert` computed in weight space.
    The tests hold :func:`~ibcore.relu.gradient_descent` to it (they agree to
    :math:`\sim 10^{-10}` relative); it is not for experiments, and not public.

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.
    w0 : array of shape (d,) or (m, d)
        Initial weights; a 1-D array means one neuron.
    {shared}
    """
    X = finite_array("X", X, ndim=2)
    n, d = X.shape
    setup = prepare_gd(y, w0, init_name="w0", width=d, n=n, lr=lr, signs=signs, max_steps=max_steps, tol=tol,
                       record_every=record_every, activation=activation)
    bound = stability._check_stability(setup.lr, X @ X.T, setup.m, check=check_stability)
    state = _WeightIterate(X, setup)
    warn_inactive(state.beta, setup)
    return run_gd(state, setup, bound=bound, weights=lambda st: st.W)


gd_parameters_doc(_gradient_descent_weight_space)
