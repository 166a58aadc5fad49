r"""Full-batch gradient descent on a shallow ReLU network, in primal–dual form.

For the model :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)` and the loss
:math:`L = \frac1{2n}\sum_i (f(x_i) - y_i)^2` (:mod:`~ibcore.relu.model`),
:math:`\nabla_{w_j} L = \frac1n s_j X^\top D_j r` with :math:`D_j = \operatorname{diag}(\mathbb 1\{\beta_j > 0\})`
and :math:`r = f(X) - y`, so GD never leaves :math:`w_j(0) + \operatorname{span}(X)`:
:math:`w_j = w_j(0) + X^\top\alpha_j` (:math:`\alpha`: data-span coefficients), and with
:math:`K = XX^\top`, :math:`\beta_j = Xw_j` and :math:`\eta` = ``lr``,

.. math::

    \alpha_j \leftarrow \alpha_j - \frac{\eta}{n} s_j D_j r, \qquad
    \beta_j \leftarrow \beta_j - \frac{\eta}{n} s_j K D_j r.

One step costs :math:`O(mn^2)` instead of the :math:`O(mnd)` of the weight-space update
(the test reference ``_gradient_descent_weight_space`` in ``ibcore.relu.reference``). The
per-example contraction is :math:`c_i = \eta\lVert x_i\rVert^2/n`: an active example alone moves as
:math:`\beta_i \leftarrow (1 - c_i)\beta_i + c_i y_i`.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np
import scipy.linalg

from .gram import _features_or_gram
from ._iteration import (GDSetup, gd_parameters_doc, gradient_kernel, gradient_kernel_runs, prepare_gd, run_gd,
                         run_gd_runs, warn_inactive)
from .results import GDResult
from . import stability

__all__ = ["gradient_descent"]


class _DualIterate:
    """State (α, β) of the primal–dual form, with w_j = w0_j + Xᵀα_j never formed.

    One step costs O(m n²): a product with K and a few O(mn) operations, all
    written into buffers allocated here (see :mod:`~ibcore.relu._iteration`).
    """

    def __init__(self, K, beta0, w0_sq, setup):
        self.K, self.setup = K, setup
        self.beta0, self.w0_sq = beta0, w0_sq
        self.beta, self.alpha = beta0.copy(), np.zeros_like(beta0)
        self._gradient = gradient_kernel(setup.y, setup.signs, setup.lr / K.shape[0], setup.relu)
        self._KG, self._beta_sum = np.empty_like(beta0), np.empty_like(beta0)

    def step(self):
        """One GD step in the dual, in place: α ← α - G, β ← β - G K.

        Returns ‖w_{t+1} - w_t‖² = Σ_j G_jᵀ K G_j, from the product it needs anyway.
        """
        G = self._gradient(self.beta)
        KG = np.dot(G, self.K, out=self._KG)  # K symmetric: row j is K G_j (dot: the same BLAS call as @, sooner)
        np.subtract(self.alpha, G, out=self.alpha)
        np.subtract(self.beta, KG, out=self.beta)
        return float(np.vdot(G, KG))

    def w_sq(self):
        # ‖w_j‖² = ‖w0_j‖² + 2 α_j·β0_j + α_jᵀKα_j = ‖w0_j‖² + α_j·(β_j + β0_j), as Kα_j = β_j - β0_j
        return self.w0_sq + float(np.vdot(self.alpha, np.add(self.beta, self.beta0, out=self._beta_sum)))

    def finite(self, w_sq):
        # an inf or NaN in α or β makes a term of α·(β + β0), and so w_sq, inf or NaN (β0 is
        # finite); the converse can fail only by overflow of finite terms, so look then
        return math.isfinite(w_sq) or bool(np.isfinite(self.alpha).all() and np.isfinite(self.beta).all())


def gradient_descent(X=None, y=None, w0=None, *, K=None, alpha0=None, lr, signs=None, max_steps=100_000,
                     tol=1e-12, record_every=None, activation="relu", check_stability=True) -> GDResult:
    r"""GD on :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)` with loss :math:`\frac1{2n}\sum_i(f(x_i) - y_i)^2`, in primal–dual form.

    Forms :math:`K = XX^\top` once (:math:`O(n^2 d)`), then iterates :math:`(\alpha, \beta)` at
    :math:`O(mn^2)` per step; the weights :math:`w = w_0 + X^\top\alpha` are formed only at the
    end. See :mod:`ibcore.relu.gd` for the update.

    Given only the Gram matrix ``K`` and the coefficients
    :math:`\alpha_0` of :math:`w_0 = X^\top\alpha_0`, the same GD runs without X:
    every quantity of the one-neuron experiments is a function of K, so d can
    be :math:`10^8` (draw K with :func:`~ibcore.relu.sample_gram`). The weights
    are then never formed (``result.w is None``); use ``result.coef``
    (:math:`w_T = X^\top` ``coef``), e.g. in :func:`~ibcore.relu.relative_gap` given ``K``.

    Parameters
    ----------
    X : array of shape (n, d), optional
        Features, one example per row (give ``X`` with ``w0``, or ``K``
        with ``alpha0``).
    y : array of shape (n,)
        Labels.
    w0 : array of shape (d,) or (m, d)
        Initial weights; a 1-D array means one neuron, and the result then
        has (d,)-shaped weights and (n,)-shaped per-example arrays.
    K : array of shape (n, n), optional
        Symmetric positive semidefinite Gram matrix :math:`K = XX^\top`, instead of ``X``.
    alpha0 : array of shape (n,) or (m, n), optional
        With ``K``: coefficients of the initial weights,
        :math:`w_j(0) = X^\top\alpha_{0,j}` (so :math:`\beta(0) = K\alpha_0`).
        A 1-D array means one neuron.
    {shared}
    """
    run = _prepared(X, y, w0, K=K, alpha0=alpha0, lr=lr, signs=signs, max_steps=max_steps, tol=tol,
                    record_every=record_every, activation=activation, check_stability=check_stability)
    warn_inactive(run.beta0, run.setup)
    return _run(run)


def _run(run) -> GDResult:
    """GD from a :class:`_Prepared` run, to its stopping rule."""
    state = _DualIterate(run.K, run.beta0, run.w0_sq, run.setup)
    weights = None if run.weights is None else (lambda st: run.weights(st.alpha))
    return run_gd(state, run.setup, bound=run.bound, weights=weights, alpha0=run.alpha0)


class _Prepared(NamedTuple):
    """A validated GD run before its first step: what :func:`_prepared` returns."""

    setup: GDSetup
    K: np.ndarray
    beta0: np.ndarray  # (m, n)
    w0_sq: float  # ‖w_0‖² (Frobenius)
    bound: float  # the stability bound
    weights: Callable | None  # α ↦ w = w_0 + Xᵀα (None for Gram-only runs)
    alpha0: np.ndarray | None  # coefficients of w_0 (Gram-only runs)


def _prepared(X=None, y=None, w0=None, *, K=None, alpha0=None, lr, signs=None, max_steps=100_000, tol=1e-12,
              record_every=None, activation="relu", check_stability=True) -> _Prepared:
    """Validate the arguments of :func:`gradient_descent` and form K, β(0) and ‖w_0‖²."""
    X, K = _features_or_gram(X, K)
    if X is not None and alpha0 is not None:
        raise ValueError("alpha0 goes with K; with the features X give the initial weights w0")
    if X is None and w0 is not None:
        raise ValueError("w0 goes with the features X; with K give the coefficients alpha0 (w0 = X^T alpha0)")
    if K is None:
        K = X @ X.T
    init_name, init = ("w0", w0) if X is not None else ("alpha0", alpha0)
    for name, value in (("y", y), (init_name, init)):
        if value is None:
            raise ValueError(f"{name} is required")
    n = K.shape[0]
    setup = prepare_gd(y, init, init_name=init_name, width=n if X is None else X.shape[1], n=n, lr=lr,
                       signs=signs, max_steps=max_steps, tol=tol, record_every=record_every,
                       activation=activation)
    if X is not None:
        W0 = setup.init
        bound = stability._check_stability(setup.lr, K, setup.m, check=check_stability)
        return _Prepared(setup, K, W0 @ X.T, float(np.vdot(W0, W0)), bound, lambda alpha: W0 + alpha @ X, None)
    A0 = setup.init
    eig = scipy.linalg.eigvalsh(K)
    if eig[0] < -1e-10 * max(eig[-1], 0.0) or eig[-1] <= 0:
        raise ValueError(f"K must be positive semidefinite and non-zero, got eigenvalues in "
                         f"[{eig[0]:.3g}, {eig[-1]:.3g}]")
    bound = stability._check_stability(setup.lr, K, setup.m, check=check_stability, lam_max=eig[-1])
    beta0 = A0 @ K
    return _Prepared(setup, K, beta0, float(np.vdot(A0, beta0)), bound, None, A0)


class _DualIterates:
    """B runs of :class:`_DualIterate` of one shape, stepped together (see ``_iteration.run_gd_runs``).

    K is (B, n, n), β and α (B, m, n).  Every numpy call works row by row with the
    same arithmetic as :class:`_DualIterate`'s (stacked ``matmul`` makes the BLAS call per row
    that ``dot`` and ``vdot`` make), so each run's iterates are its own run's, bit for bit.
    """

    def __init__(self, runs):
        s = runs[0].setup
        self._signs, self._relu = s.signs, s.relu
        self.K = np.stack([r.K for r in runs])
        self.beta0 = np.stack([r.beta0 for r in runs])
        self.w0_sq = np.array([r.w0_sq for r in runs])
        self._y = np.stack([r.setup.y for r in runs])
        self._eta = np.array([r.setup.lr / r.K.shape[0] for r in runs])
        self.beta, self.alpha = self.beta0.copy(), np.zeros_like(self.beta0)
        self._buffers()

    def _buffers(self):
        self._gradient = gradient_kernel_runs(self._y, self._signs, self._eta, self._relu)
        self._KG, self._beta_sum = np.empty_like(self.beta), np.empty_like(self.beta)

    def keep(self, rows):
        """Forget the runs that the bool array ``rows`` leaves out."""
        for name in ("K", "beta0", "w0_sq", "_y", "_eta", "beta", "alpha"):
            setattr(self, name, getattr(self, name)[rows])
        self._buffers()

    @staticmethod
    def _row_dots(a, b):
        """a_b · b_b for each run b (``vdot`` of each row: the same BLAS dot)."""
        B, m, n = a.shape
        return np.matmul(a.reshape(B, 1, m * n), b.reshape(B, m * n, 1))[:, 0, 0]

    def step(self):
        G = self._gradient(self.beta)
        KG = np.matmul(G, self.K, out=self._KG)
        np.subtract(self.alpha, G, out=self.alpha)
        np.subtract(self.beta, KG, out=self.beta)
        return self._row_dots(G, KG)

    def w_sq(self):
        return self.w0_sq + self._row_dots(self.alpha, np.add(self.beta, self.beta0, out=self._beta_sum))

    def finite(self, w_sq):
        ok = np.isfinite(w_sq)
        if ok.all():
            return ok
        return ok | (np.isfinite(self.alpha).all(axis=(1, 2)) & np.isfinite(self.beta).all(axis=(1, 2)))


def _gradient_descent_runs(calls) -> list[GDResult]:
    """``[gradient_descent(**call) for call in calls]``, with runs of one shape stepped together.

    The results are those of :func:`gradient_descent`, bit for bit, whatever runs share a
    stack: runs with the same n, m, signs, activation, ``tol`` and ``max_steps`` and no
    recorded history are iterated as one stack (``_iteration.run_gd_runs``), which
    saves numpy's per-call overhead where a step of one run costs little more (small n).
    Trials' ``batch`` methods use it (``ibcore.relu._gd_trials``).
    """
    runs = [_prepared(**call) for call in calls]
    for run in runs:
        warn_inactive(run.beta0, run.setup)

    def shape(run):
        s = run.setup
        return run.beta0.shape, s.squeeze, s.signs.tobytes(), s.activation, s.tol, s.max_steps, s.record_every

    if len(runs) == 1 or runs[0].setup.record_every is not None or len({shape(r) for r in runs}) > 1:
        return [_run(run) for run in runs]
    return run_gd_runs(_DualIterates(runs), [r.setup for r in runs], bounds=[r.bound for r in runs],
                       weights=[r.weights for r in runs], alpha0s=[r.alpha0 for r in runs])


gd_parameters_doc(gradient_descent)
