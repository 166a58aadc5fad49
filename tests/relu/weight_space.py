"""The weight-space form of GD, written out in plain numpy: the reference the primal–dual solver is held to.

It updates the weights directly, w_j ← w_j - (lr/n) s_j Xᵀ D_j r at O(m n d) per step, and does
its own bookkeeping of what :class:`ibcore.relu.GDResult` reports: the stopping rule, the
activation patterns' last changes and re-activations, the recorded history. Nothing here calls
ibcore. ``benchmarks/bench_relu.py`` times its step as the baseline of the dual step.
"""
from types import SimpleNamespace

import numpy as np


class WeightIterate:
    """W (m, d), with β = W Xᵀ recomputed at every step; σ'(0) = 0."""

    def __init__(self, X, y, W0, signs, lr, relu=True):
        self.X, self.y, self.signs, self.lr, self.relu = X, y, np.asarray(signs, float), lr, relu
        self.W = np.array(W0, dtype=float)
        self.alpha = np.zeros((self.W.shape[0], X.shape[0]))
        self.beta = self.W @ X.T

    def step(self):
        """One GD step; returns ‖ΔW‖²."""
        n = self.X.shape[0]
        beta = self.beta
        h, D = (np.maximum(beta, 0.0), beta > 0) if self.relu else (beta, np.ones(beta.shape))
        r = self.signs @ h - self.y
        G = (self.lr / n) * self.signs[:, None] * D * r   # lr ∇_{w_j} L = Xᵀ G_j
        update = G @ self.X
        self.W -= update
        self.alpha -= G  # only to compare the histories of both forms
        self.beta = self.W @ self.X.T
        return float(np.sum(update * update))


def gradient_descent_weight_space(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12, record_every=None,
                                  activation="relu"):
    """GD from w0 as :func:`ibcore.relu.gradient_descent` documents it, in weight space.

    Returns the fields of a GDResult that the tests compare: ``w``, ``beta``, ``n_steps``,
    ``success``, ``loss``, ``last_change``, ``reactivations`` and ``history`` (``step``,
    ``beta``, ``alpha``, ``active``), with a 1-D ``w0`` giving 1-D arrays as ibcore does.
    """
    X, y, W0 = np.asarray(X, float), np.asarray(y, float), np.atleast_2d(np.asarray(w0, float))
    m, n = W0.shape[0], X.shape[0]
    signs = np.array([(-1.0) ** j for j in range(m)]) if signs is None else np.asarray(signs, float)
    relu = activation == "relu"
    state = WeightIterate(X, y, W0, signs, lr, relu)
    active = state.beta > 0 if relu else np.ones(state.beta.shape, bool)
    ever, last_change, react = active.copy(), np.zeros(active.shape, int), np.zeros(active.shape, int)
    records = [(0, state.beta.copy(), state.alpha.copy())] if record_every else []
    success, t = False, 0
    while t < max_steps:
        step_sq = state.step()
        t += 1
        if relu:
            new = state.beta > 0
            changed = new != active
            last_change[changed] = t
            react += changed & new & ever
            ever |= new
            active = new
        if record_every and t % record_every == 0:
            records.append((t, state.beta.copy(), state.alpha.copy()))
        if tol > 0 and step_sq <= tol * tol * float(np.sum(state.W * state.W)):
            success = True
            break
    if not records or records[-1][0] != t:
        records.append((t, state.beta.copy(), state.alpha.copy()))
    h = np.maximum(state.beta, 0.0) if relu else state.beta
    cut = (lambda a: a[0]) if np.ndim(w0) == 1 else (lambda a: a)
    cut_history = (lambda a: a[:, 0]) if np.ndim(w0) == 1 else (lambda a: a)
    steps, betas, alphas = zip(*records)
    beta_history = np.stack(betas)
    return SimpleNamespace(
        w=cut(state.W), beta=cut(state.beta), n_steps=t, success=success,
        loss=float(np.sum((signs @ h - y) ** 2) / (2 * n)), last_change=cut(last_change), reactivations=cut(react),
        history=SimpleNamespace(step=np.array(steps), beta=cut_history(beta_history), alpha=cut_history(np.stack(alphas)),
                                active=cut_history(beta_history > 0 if relu else np.ones(beta_history.shape, bool))))
