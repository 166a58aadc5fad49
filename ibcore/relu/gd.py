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
(the reference the tests hold it to). The
per-example contraction is :math:`c_i = \eta\lVert x_i\rVert^2/n`: an active example alone moves as
:math:`\beta_i \leftarrow (1 - c_i)\beta_i + c_i y_i`.
"""
from __future__ import annotations

import inspect
from typing import Callable, NamedTuple

import numpy as np
import scipy.linalg

from ..validation import finite_array
from .gram import _validated_gram
from ._iteration import GDSetup, prepare_gd, run_gd, warn_inactive
from .results import GDResult
from . import stability

__all__ = ["gradient_descent", "gradient_descent_gram"]


def gradient_descent(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12, record_every=None,
                     activation="relu", check_stability=True) -> GDResult:
    r"""GD on :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)` with loss :math:`\frac1{2n}\sum_i(f(x_i) - y_i)^2`, in primal–dual form.

    Forms :math:`K = XX^\top` once (:math:`O(n^2 d)`), then iterates :math:`(\alpha, \beta)` at
    :math:`O(mn^2)` per step; the weights :math:`w = w_0 + X^\top\alpha` are formed only at the
    end. See :mod:`ibcore.relu.gd` for the update, and :func:`~ibcore.relu.gradient_descent_gram`
    for the same run from the Gram matrix alone.

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.
    w0 : array of shape (d,) or (m, d)
        Initial weights; a 1-D array means one neuron, and the result then
        has (d,)-shaped weights and (n,)-shaped per-example arrays.
    lr : float
        Step size η (> 0 and below the stability bound :math:`2n/(m\,\lambda_{\max}(K))`);
        see :func:`~ibcore.relu.lr_from_contraction` to set it from
        :math:`c = \eta\lVert x\rVert^2/n`.
    signs : array of shape (m,), optional
        Fixed output signs :math:`s_j \in \{+1, -1\}`; default :func:`~ibcore.relu.default_signs`.
    max_steps : int
        Step budget.
    tol : float
        Stop after the first step t → t+1 whose length is small relative to
        the weights: :math:`\eta\lVert\nabla L(w_t)\rVert \le \text{tol}\cdot\lVert w_{t+1}\rVert` (Frobenius
        norms over all neurons). The test is invariant under rescaling X and y. Since the
        iterates contract by about :math:`(1 - c)` per step, the distance left to the
        limit is about :math:`\text{tol}\cdot\lVert w\rVert/c` (e.g. positive residuals
        :math:`\sim 10^{-10}` at c = 0.01).
        ``tol=0`` runs exactly ``max_steps`` steps.
    record_every : int or None
        Record (β, α, pattern, loss) at steps 0, k, 2k, ... and at the last
        step; ``None`` (the default) records only the end state. 0 is refused.
    activation : {"relu", "identity"}
        σ; ``"identity"`` gives linear regression (the classical min-norm control).
    check_stability : bool
        Raise ``ValueError`` if :math:`\eta \ge 2n/(m\,\lambda_{\max}(K))`. Turn off only to show divergence.

    Returns
    -------
    :class:`~ibcore.relu.GDResult`

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, lr ≤ 0, lr above the stability bound, bad signs.
    DivergenceError
        If the iterates overflow; ``.step`` is the GD step at which it happened.

    Warns
    -----
    InactivePositiveWarning
        If :math:`w_0` leaves an example that must be fitted inactive on all neurons
        of matching sign. The run still happens.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 200, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.1, X))
    >>> res.success, res.w.shape
    (True, (200,))
    >>> R.positive_residual(res, y) < 1e-9   # the positive labels are fitted
    True
    """
    run = _prepared_features(X, y, w0, lr=lr, signs=signs, max_steps=max_steps, tol=tol,
                             record_every=record_every, activation=activation, check_stability=check_stability)
    warn_inactive(run.beta0, run.setup)
    (result,) = _run_stack([run])
    return result


def gradient_descent_gram(K, y, alpha0, *, lr, signs=None, max_steps=100_000, tol=1e-12, record_every=None,
                          activation="relu", check_stability=True) -> GDResult:
    r""":func:`~ibcore.relu.gradient_descent` from the Gram matrix :math:`K = XX^\top` alone, the weights never formed.

    Every quantity of the one-neuron experiments is a function of K, so d can be
    :math:`10^8` (draw K with :func:`~ibcore.relu.sample_gram`). The initial weights are given by
    their data-span coefficients, :math:`w_j(0) = X^\top\alpha_{0,j}`, and the final ones are
    known the same way: ``result.w`` is ``None`` and :math:`w_T = X^\top` ``result.coef``, e.g.
    for :func:`~ibcore.relu.relative_gap_gram`. The iterates are those of
    :func:`~ibcore.relu.gradient_descent` from :math:`w_0 = X^\top\alpha_0`.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric positive semidefinite Gram matrix :math:`K = XX^\top`.
    y : array of shape (n,)
        Labels.
    alpha0 : array of shape (n,) or (m, n)
        Coefficients of the initial weights (so :math:`\beta(0) = K\alpha_0`), e.g.
        :func:`~ibcore.relu.all_active_init_gram`. A 1-D array means one neuron.
    lr, signs, max_steps, tol, record_every, activation, check_stability
        As in :func:`~ibcore.relu.gradient_descent`.

    Returns
    -------
    :class:`~ibcore.relu.GDResult`
        With ``w = None`` and ``alpha0`` set.

    Raises
    ------
    ValueError
        As :func:`~ibcore.relu.gradient_descent`, and for a K that is not symmetric
        positive semidefinite.
    DivergenceError
        If the iterates overflow; ``.step`` is the GD step at which it happened.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 200, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.1, X))
    >>> K = X @ X.T
    >>> gram = R.gradient_descent_gram(K, y, R.all_active_init_gram(K), lr=res.lr)   # the same run from K
    >>> bool(np.allclose(gram.beta, res.beta)), gram.n_steps == res.n_steps, gram.w is None
    (True, True, True)
    """
    run = _prepared_gram(K, y, alpha0, lr=lr, signs=signs, max_steps=max_steps, tol=tol,
                         record_every=record_every, activation=activation, check_stability=check_stability)
    warn_inactive(run.beta0, run.setup)
    (result,) = _run_stack([run])
    return result


class _Prepared(NamedTuple):
    """A validated GD run before its first step: what :func:`_prepared_features` and :func:`_prepared_gram` return."""

    setup: GDSetup
    K: np.ndarray
    beta0: np.ndarray  # (m, n)
    w0_sq: float  # ‖w_0‖² (Frobenius)
    bound: float  # the stability bound
    weights: Callable | None  # α ↦ w = w_0 + Xᵀα (None for Gram-only runs)
    alpha0: np.ndarray | None  # coefficients of w_0 (Gram-only runs)


def _prepared_features(X, y, w0, *, check_stability, **options) -> _Prepared:
    """Validate the arguments of :func:`gradient_descent` and form K, β(0) and ‖w_0‖²."""
    X = finite_array("X", X, ndim=2)
    K = X @ X.T
    setup = prepare_gd(y, w0, init_name="w0", width=X.shape[1], n=len(X), **options)
    W0 = setup.init
    bound = stability._check_stability(setup.lr, K, setup.m, check=check_stability)
    return _Prepared(setup, K, W0 @ X.T, float(np.vdot(W0, W0)), bound, lambda alpha: W0 + alpha @ X, None)


def _prepared_gram(K, y, alpha0, *, check_stability, **options) -> _Prepared:
    """Validate the arguments of :func:`gradient_descent_gram` and form β(0) and ‖w_0‖²."""
    K = _validated_gram(K)
    n = len(K)
    setup = prepare_gd(y, alpha0, init_name="alpha0", width=n, n=n, **options)
    A0 = setup.init
    eig = scipy.linalg.eigvalsh(K)
    if eig[0] < -1e-10 * max(eig[-1], 0.0) or eig[-1] <= 0:
        raise ValueError(f"K must be positive semidefinite and non-zero, got eigenvalues in "
                         f"[{eig[0]:.3g}, {eig[-1]:.3g}]")
    bound = stability._check_stability(setup.lr, K, setup.m, check=check_stability, lam_max=eig[-1])
    beta0 = A0 @ K
    return _Prepared(setup, K, beta0, float(np.vdot(A0, beta0)), bound, None, A0)


#: σ'(0) of the ReLU: an example with β_{j,i} = 0 exactly counts as inactive on neuron j
RELU_SLOPE_AT_0 = 0.0


class _DualIterates:
    """The states (α, β) of B runs of one shape, stepped together; w_j = w0_j + Xᵀα_j is never formed.

    K is (B, n, n), β and α (B, m, n). A step costs O(m n²) per run. Every numpy call works
    run by run with the arithmetic of that run alone (a stacked ``matmul`` makes one BLAS call
    per run), so a run's iterates do not depend on the runs beside it, to the bit.
    """

    def __init__(self, runs):
        s = runs[0].setup
        self._signs, self._relu = s.signs, s.relu
        self.K = np.stack([r.K for r in runs])
        self.beta0 = np.stack([r.beta0 for r in runs])
        self.w0_sq = [r.w0_sq for r in runs]
        self._y = np.stack([r.setup.y for r in runs])
        # s_j η of run b in row (b, j): η = lr/n
        self._s_eta = self._signs[None, :, None] * np.array([r.setup.lr / len(r.K) for r in runs])[:, None, None]
        self.beta, self.alpha = self.beta0.copy(), np.zeros_like(self.beta0)

    def keep(self, rows):
        """Forget the runs that the bool array ``rows`` leaves out."""
        for name in ("K", "beta0", "_y", "_s_eta", "beta", "alpha"):
            setattr(self, name, getattr(self, name)[rows])
        self.w0_sq = [w for w, kept in zip(self.w0_sq, rows) if kept]

    @staticmethod
    def _row_dots(a, b):
        """[a_b · b_b for each run b], one BLAS dot per run (``vdot`` makes the same call, sooner)."""
        B, m, n = a.shape
        if B == 1:
            return [float(np.vdot(a, b))]
        return np.matmul(a.reshape(B, 1, m * n), b.reshape(B, m * n, 1))[:, 0, 0].tolist()

    def step(self):
        """One GD step of every run, in place: α ← α - G, β ← β - G K, with G_j = η s_j D_j r.

        Returns [‖w_{t+1} - w_t‖² per run] = [Σ_j G_jᵀ K G_j], from the product it needs anyway.
        """
        beta = self.beta
        h = np.maximum(beta, 0.0) if self._relu else beta
        r = np.dot(self._signs, h) - self._y                   # Σ_j s_j σ(β_j) - y, (B, n)
        G = r[:, None, :] * self._s_eta
        if self._relu:
            G *= np.heaviside(beta, RELU_SLOPE_AT_0)            # D_j; the identity has D_j = I
        KG = np.matmul(G, self.K)                              # K symmetric: row j is K G_j
        self.alpha -= G
        self.beta -= KG
        return self._row_dots(G, KG)

    def w_sq(self):
        # ‖w_j‖² = ‖w0_j‖² + 2 α_j·β0_j + α_jᵀKα_j = ‖w0_j‖² + α_j·(β_j + β0_j), as Kα_j = β_j - β0_j
        return [w0 + d for w0, d in zip(self.w0_sq, self._row_dots(self.alpha, self.beta + self.beta0))]

    def finite(self, w_sq):
        # an inf or NaN in α or β makes a term of α·(β + β0), and so w_sq, inf or NaN (β0 is
        # finite); the converse can fail only by overflow of finite terms, so look then
        return np.isfinite(w_sq) | (np.isfinite(self.alpha).all(axis=(1, 2)) & np.isfinite(self.beta).all(axis=(1, 2)))


def _run_stack(runs) -> list[GDResult]:
    """GD from :class:`_Prepared` runs of one shape, stepped together to their stopping rules."""
    return run_gd(_DualIterates(runs), [r.setup for r in runs], bounds=[r.bound for r in runs],
                  weights=[r.weights for r in runs], alpha0s=[r.alpha0 for r in runs])


def _prepared_call(call) -> _Prepared:
    """The run of a GD call given as keyword arguments, the defaults those of its public entry point."""
    entry, prepared = (gradient_descent_gram, _prepared_gram) if "K" in call else (gradient_descent, _prepared_features)
    arguments = inspect.signature(entry).bind(**call)
    arguments.apply_defaults()
    return prepared(**arguments.arguments)


def _gradient_descent_runs(calls) -> list[GDResult]:
    """The results of GD calls, with the runs of one shape stepped together.

    Each call is the keyword arguments of :func:`gradient_descent` (with ``X`` and ``w0``) or of
    :func:`gradient_descent_gram` (with ``K`` and ``alpha0``). The results are those of
    these functions, bit for bit, whatever runs share a
    stack: runs with the same n, m, signs, activation, ``tol``, ``max_steps`` and
    ``record_every`` are iterated as one stack, which shares numpy's per-call overhead where a
    step of one run costs little more (small n). Trials' ``batch`` methods use it
    (``ibcore.experiments.relu._batch``).
    """
    runs = [_prepared_call(call) for call in calls]
    for run in runs:
        warn_inactive(run.beta0, run.setup)
    stacks: dict[tuple, list[int]] = {}
    for i, run in enumerate(runs):
        s = run.setup
        shape = (run.beta0.shape, s.squeeze, s.signs.tobytes(), s.activation, s.tol, s.max_steps, s.record_every)
        stacks.setdefault(shape, []).append(i)
    results = [None] * len(runs)
    for indices in stacks.values():
        for i, result in zip(indices, _run_stack([runs[i] for i in indices])):
            results[i] = result
    return results
