r"""Full-batch gradient descent on a shallow ReLU network, in primal–dual form.

Model and loss (the 1/(2n) normalisation and the fixed ±1 output signs are
our reconstruction; the paper's full text was not available)::

    f(x) = Σ_j s_j σ(w_j·x),   s_j ∈ {+1, -1} fixed,   σ(z) = max(z, 0),  σ'(0) = 0,
    L(w) = (1/2n) Σ_i (f(x_i) - y_i)².

Write β_j = X w_j ∈ ℝⁿ (pre-activations, the paper's "predictions"),
D_j = diag(1{β_j > 0}) (activation pattern) and r = Σ_j s_j σ(β_j) - y (residual).
Then ∇_{w_j} L = (1/n) s_j Xᵀ D_j r, so GD never leaves w_j(0) + span(X):
w_j = w_j(0) + Xᵀ α_j (α: data-span coefficients), and with K = X Xᵀ

    α_j ← α_j - (lr/n) s_j D_j r,        β_j ← β_j - (lr/n) s_j K D_j r.

One step costs O(m n²) instead of the O(m n d) of the weight-space update.
The per-example contraction is c_i = lr ‖x_i‖²/n: an active example alone
moves as β_i ← (1 - c_i) β_i + c_i y_i.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..validation import (
    DivergenceError,
    finite_array,
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
)
from .gram import validated_gram

__all__ = [
    "GDResult",
    "GDHistory",
    "InactivePositiveWarning",
    "gradient_descent",
    "gradient_descent_gram",
    "stability_bound",
    "lr_from_contraction",
    "default_signs",
]

ACTIVATIONS = ("relu", "identity")


class InactivePositiveWarning(UserWarning):
    """Some example that the network must fit starts inactive on every neuron able to fit it.

    For one neuron (s = +1) these are the positive-label examples with
    x_i·w_0 ≤ 0; in general, examples i with s_j y_i > 0 for some j but
    β_{j,i}(0) ≤ 0 for every such j.  A frozen example only moves through the
    cross-terms K_ik, so GD usually cannot fit it and stops at a
    non-global stationary point (the notes' "bad initialisation", F.2 analogue).
    """


@dataclass
class GDHistory:
    """States recorded every ``record_every`` steps, plus the final one.

    Arrays have a leading axis over records; the per-record shape is (n,) for
    a single neuron given as a 1-D ``w0``, else (m, n).

    Attributes
    ----------
    step : numpy.ndarray of int, shape (k,)
        GD step t of each record (0 is the initialisation).
    beta : numpy.ndarray
        Pre-activations β_t = X w_t.
    alpha : numpy.ndarray
        Data-span coefficients α_t, with w_t = w_0 + Xᵀ α_t and α_0 = 0.
    active : numpy.ndarray of bool
        Activation patterns 1{β_t > 0}.
    loss : numpy.ndarray, shape (k,)
        L(w_t).
    """

    step: np.ndarray
    beta: np.ndarray
    alpha: np.ndarray
    active: np.ndarray
    loss: np.ndarray


@dataclass
class GDResult:
    """Outcome of a GD run.

    Shapes: a single neuron given as a 1-D ``w0`` (or ``alpha0``) gives (d,)
    weights and (n,) per-example arrays; otherwise (m, d) and (m, n).

    Attributes
    ----------
    w : numpy.ndarray or None
        Final weights w_T = w_0 + Xᵀ α_T (``None`` for Gram-only runs).
    beta : numpy.ndarray
        Final pre-activations β_T = X w_T.
    alpha : numpy.ndarray
        Final data-span coefficients α_T (the change since w_0).
    alpha0 : numpy.ndarray or None
        Coefficients of w_0 = Xᵀ α0 (Gram-only runs), else ``None``.
    signs : numpy.ndarray, shape (m,)
        Output signs s_j.
    predictions : numpy.ndarray, shape (n,)
        f(x_i) = Σ_j s_j σ(β_{j,i}) at the end.
    converged : bool
        Whether the stopping criterion was met (never, when ``tol == 0``).
    steps : int
        Number of GD steps taken.
    loss : float
        Final loss L(w_T).
    last_change : numpy.ndarray of int
        For each (neuron,) example: the last step t at which 1{β_t > 0}
        differed from 1{β_{t-1} > 0}; 0 if it never changed.
    reactivations : numpy.ndarray of int
        For each (neuron,) example: how many times it switched from inactive
        back to active (i.e. became active after having been active before).
    history : GDHistory or None
        Recorded states (``None`` when ``record_every == 0``).
    lr : float
    activation : str
    """

    w: np.ndarray | None
    beta: np.ndarray
    alpha: np.ndarray
    alpha0: np.ndarray | None
    signs: np.ndarray
    predictions: np.ndarray
    converged: bool
    steps: int
    loss: float
    last_change: np.ndarray
    reactivations: np.ndarray
    history: GDHistory | None
    lr: float
    activation: str

    @property
    def coef(self) -> np.ndarray | None:
        """Total data-span coefficients a = α0 + α_T with w_T = Xᵀ a (Gram-only runs), else ``None``."""
        return None if self.alpha0 is None else self.alpha0 + self.alpha


# ---------------------------------------------------------------------------
# output signs and step size


def default_signs(m) -> np.ndarray:
    """Output signs s_j = (+1, -1, +1, -1, ...): (+1) for m = 1, (+1, -1) for m = 2.

    The alternation for m > 2 is our convention; the paper's general-m
    output layer was not available.
    """
    m = positive_int("m", m)
    return np.where(np.arange(m) % 2 == 0, 1.0, -1.0)


def _gram_of(X, K):
    if (X is None) == (K is None):
        raise ValueError("give exactly one of X (features) and K (Gram matrix)")
    if X is not None:
        X = finite_array("X", X, ndim=2)
        return X @ X.T
    return validated_gram(K)


def _lambda_max(K) -> float:
    n = K.shape[0]
    return float(scipy.linalg.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0])


def stability_bound(X=None, *, K=None, m=1) -> float:
    r"""Largest stable step size, 2n / (m λ_max(K)).

    On a fixed activation pattern the loss is the quadratic
    (1/2n)‖Σ_j s_j D_j X w_j - y‖², whose Hessian in (w_1, ..., w_m) has
    largest eigenvalue (1/n) λ_max(Σ_j D_j K D_j).  Since λ_max(D K D) ≤ λ_max(K),
    this is at most m λ_max(K)/n, with equality for the all-active pattern.
    GD on a quadratic is stable iff lr < 2/λ_max(Hessian), so
    lr < 2n/(m λ_max(K)) is exactly the condition for GD to be stable on
    every activation pattern (the all-active one attains the bound), and for
    the identity activation.  The ReLU loss is not smooth across patterns,
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
    K = _gram_of(X, K)
    m = positive_int("m", m)
    return 2.0 * K.shape[0] / (m * _lambda_max(K))


def lr_from_contraction(c, X=None, *, K=None) -> float:
    """Step size with per-example contraction ``c``: lr = c n / mean_i ‖x_i‖².

    An example that is active alone then moves as β ← (1 - c) β + c y.
    Finite c leaves an O(c) overshoot in the gap (≈ c/2 on orthogonal data),
    so the √(n/‖λ‖₁) scaling is only visible while c ≪ √(n/‖λ‖₁): c = 0.01 is
    clean for d ≲ 10⁴ (n ≈ 20-50), but at d = 10⁶-10⁸ it needs c ≈ 10⁻³-10⁻⁴.

    Parameters
    ----------
    c : float > 0
    X : array of shape (n, d), optional
    K : array of shape (n, n), optional
        Exactly one of the features and the Gram matrix.
    """
    c = positive_float("c", c)
    if (X is None) == (K is None):
        raise ValueError("give exactly one of X (features) and K (Gram matrix)")
    if X is not None:
        X = finite_array("X", X, ndim=2)
        sq_norms = np.einsum("ij,ij->i", X, X)
    else:
        sq_norms = np.diag(validated_gram(K))
    mean_sq = float(sq_norms.mean())
    if mean_sq <= 0:
        raise ValueError("the features are all zero; lr_from_contraction needs mean ||x_i||^2 > 0")
    return c * sq_norms.size / mean_sq


# ---------------------------------------------------------------------------
# validation shared by the three entry points


def _validated_options(lr, max_steps, tol, record_every, activation, signs, m):
    lr = positive_float("lr", lr)
    max_steps = positive_int("max_steps", max_steps)
    tol = nonnegative_float("tol", tol)
    record_every = nonnegative_int("record_every", record_every)
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    if signs is None:
        signs = default_signs(m)
    else:
        signs = finite_array("signs", signs, shape=(m,))
        if not np.all(np.abs(signs) == 1):
            raise ValueError(f"signs must contain only +1 and -1, got {signs!r}")
    return lr, max_steps, tol, int(record_every), signs


def _validated_init(name, value, width):
    """``value`` as an (m, width) array; also says whether it was 1-D (single neuron)."""
    ndim = np.ndim(value)
    if ndim == 1:
        arr = finite_array(name, value, shape=(width,))
    elif ndim == 2:
        arr = finite_array(name, value, shape=(None, width))
    else:
        finite_array(name, value, ndim=(1, 2))  # raises with the standard message
    return np.atleast_2d(arr).copy(), ndim == 1


def _check_stability(lr, K, m, check, lam_max=None):
    """Return the stability bound (for messages); raise if lr is at or above it."""
    lam_max = _lambda_max(K) if lam_max is None else lam_max
    bound = 2.0 * K.shape[0] / (m * lam_max)
    if check and lr >= bound:
        raise ValueError(
            f"lr={lr:.6g} is at or above the stability bound 2n/(m*lambda_max(K)) = {bound:.6g}; "
            "use a smaller lr (see lr_from_contraction) or pass check_stability=False "
            "to study the unstable regime")
    return bound


def _warn_inactive(beta0, y, signs, relu):
    if not relu:
        return
    fits = signs[:, None] * y[None, :] > 0  # neuron j can fit example i
    needy = fits.any(axis=0)
    stuck = needy & ~(fits & (beta0 > 0)).any(axis=0)
    if stuck.any():
        idx = np.flatnonzero(stuck)
        shown = ", ".join(map(str, idx[:10])) + (", ..." if idx.size > 10 else "")
        warnings.warn(
            f"w0 leaves {idx.size} example(s) that must be fitted inactive on every neuron of "
            f"matching sign (indices {shown}); they can only re-activate through cross-terms, "
            "so GD will probably stop at a non-global stationary point",
            InactivePositiveWarning, stacklevel=3)


# ---------------------------------------------------------------------------
# the steps (module level so that the benchmark times exactly this code)


def _scaled_gradient_coefficients(beta, y, s_col, eta, relu):
    """ηG with G_j = s_j D_j r, r = Σ_j s_j σ(β_j) - y: lr ∇_{w_j} L = Xᵀ (ηG)_j for η = lr/n."""
    if relu:
        r = s_col[:, 0] @ np.maximum(beta, 0.0) - y
        G = (s_col * r) * (beta > 0)
    else:
        G = s_col * (s_col[:, 0] @ beta - y)
    G *= eta
    return G


def _primal_dual_step(K, y, s_col, beta, alpha, eta, relu):
    """One GD step in the dual, in place: α ← α - ηG, β ← β - (ηG) K. O(m n²).

    Returns ‖w_{t+1} - w_t‖² = Σ_j (ηG_j)ᵀ K (ηG_j), from the product we need anyway.
    """
    G = _scaled_gradient_coefficients(beta, y, s_col, eta, relu)
    KG = G @ K  # K symmetric: row j is K (ηG_j)
    alpha -= G
    beta -= KG
    return float(np.vdot(G, KG))


class _DualIterate:
    """State (α, β) of the primal–dual form, with w_j = w0_j + Xᵀα_j never formed."""

    def __init__(self, K, y, beta0, w0_sq, s_col, eta, relu):
        self.K, self.y, self.s_col, self.eta, self.relu = K, y, s_col, eta, relu
        self.beta0, self.w0_sq = beta0, w0_sq
        self.beta, self.alpha = beta0.copy(), np.zeros_like(beta0)

    def step(self):
        return _primal_dual_step(self.K, self.y, self.s_col, self.beta, self.alpha, self.eta, self.relu)

    def w_sq(self):
        # ‖w_j‖² = ‖w0_j‖² + 2 α_j·β0_j + α_jᵀKα_j = ‖w0_j‖² + α_j·(β_j + β0_j), as Kα_j = β_j - β0_j
        return self.w0_sq + float(np.vdot(self.alpha, self.beta + self.beta0))

    def finite(self):
        return math.isfinite(self.beta.sum()) and math.isfinite(self.alpha.sum())


def _loss(beta, y, signs, relu):
    h = np.maximum(beta, 0.0) if relu else beta
    r = signs @ h - y
    return float(r @ r) / (2 * y.size)


class _PatternTracker:
    """Last-change steps, re-activation counts and the recorded history."""

    def __init__(self, active, record_every):
        self.active = active.copy()
        self.ever_active = active.copy()
        self.last_change = np.zeros(active.shape, dtype=np.int64)
        self.reactivations = np.zeros(active.shape, dtype=np.int64)
        self.record_every = record_every
        self.records = []

    def update(self, t, active):
        changed = active != self.active
        if changed.any():
            self.last_change[changed] = t
            self.reactivations += changed & active & self.ever_active
            self.ever_active |= active
            self.active = active

    def record(self, t, beta, alpha, loss):
        if self.record_every and (not self.records or self.records[-1][0] != t):
            self.records.append((t, beta.copy(), alpha.copy(), beta > 0, loss))

    def history(self, squeeze, relu):
        if not self.record_every:
            return None
        cut = (lambda a: a[:, 0]) if squeeze else (lambda a: a)
        steps, betas, alphas, actives, losses = zip(*self.records)
        active = np.stack(actives) if relu else np.ones((len(steps),) + actives[0].shape, bool)
        return GDHistory(step=np.array(steps), beta=cut(np.stack(betas)), alpha=cut(np.stack(alphas)),
                         active=cut(active), loss=np.array(losses))


def _iterate(state, *, y, signs, relu, lr, bound, max_steps, tol, record_every):
    """The GD loop shared by both forms: steps, divergence check, bookkeeping, stopping rule."""
    tracker = _PatternTracker(state.beta > 0 if relu else np.ones(state.beta.shape, bool), record_every)
    tracker.record(0, state.beta, state.alpha, _loss(state.beta, y, signs, relu))
    converged, t = False, 0
    # overflow is caught after every step and reported with its step, so numpy need not warn
    with np.errstate(over="ignore", invalid="ignore"):
        while t < max_steps:
            step_sq = state.step()
            t += 1
            # ‖Δw‖² overflows long before w does (at |w| ~ 1e154), so the loss is still finite here
            if not (math.isfinite(step_sq) and state.finite()):
                raise DivergenceError(
                    f"gradient descent diverged: the step length or the iterates overflowed "
                    f"(lr={lr:.6g}, stability bound 2n/(m*lambda_max(K)) = {bound:.6g})", step=t, unit="GD step")
            if relu:
                tracker.update(t, state.beta > 0)
            if record_every and t % record_every == 0:
                tracker.record(t, state.beta, state.alpha, _loss(state.beta, y, signs, relu))
            if tol > 0 and step_sq <= tol * tol * max(state.w_sq(), 0.0):
                converged = True
                break
    tracker.record(t, state.beta, state.alpha, _loss(state.beta, y, signs, relu))
    return tracker, converged, t


def _result(state, tracker, converged, steps, *, w, alpha0, y, signs, lr, activation, squeeze):
    relu = activation == "relu"
    cut = (lambda a: a[0]) if squeeze else (lambda a: a)
    h = np.maximum(state.beta, 0.0) if relu else state.beta
    return GDResult(
        w=None if w is None else cut(w), beta=cut(state.beta), alpha=cut(state.alpha),
        alpha0=None if alpha0 is None else cut(alpha0), signs=signs, predictions=signs @ h,
        converged=converged, steps=steps, loss=_loss(state.beta, y, signs, relu),
        last_change=cut(tracker.last_change), reactivations=cut(tracker.reactivations),
        history=tracker.history(squeeze, relu), lr=lr, activation=activation)


def _setup(y, init, init_name, width, n, lr, signs, max_steps, tol, record_every, activation):
    """Validate what the three entry points share; return (y, initial array, squeeze, options)."""
    y = finite_array("y", y, shape=(n,))
    W0, squeeze = _validated_init(init_name, init, width)
    lr, max_steps, tol, record_every, signs = _validated_options(
        lr, max_steps, tol, record_every, activation, signs, W0.shape[0])
    options = dict(y=y, signs=signs, relu=activation == "relu", lr=lr, max_steps=max_steps, tol=tol,
                   record_every=record_every)
    return W0, squeeze, options


# ---------------------------------------------------------------------------
# public entry points

_SHARED_PARAMETERS = """lr : float
        Step size (> 0 and below :func:`stability_bound`); see
        :func:`lr_from_contraction` to set it from c = lr‖x‖²/n.
    signs : array of shape (m,), optional
        Fixed output signs s_j ∈ {+1, -1}; default :func:`default_signs`.
    max_steps : int
        Step budget.
    tol : float
        Stop after the first step t → t+1 whose length is small relative to
        the weights: lr‖∇L(w_t)‖ ≤ tol · ‖w_{t+1}‖ (Frobenius norms over all
        neurons). The test is invariant under rescaling X and y. Since the
        iterates contract by about (1 - c) per step, the distance left to the
        limit is about tol·‖w‖/c (e.g. positive residuals ~1e-10 at c = 0.01).
        ``tol=0`` runs exactly ``max_steps`` steps.
    record_every : int
        Record (β, α, pattern, loss) at steps 0, k, 2k, ... and at the last
        step; 0 records nothing (``history`` is ``None``).
    activation : {"relu", "identity"}
        σ; ``"identity"`` gives linear regression (the classical min-norm control).
    check_stability : bool
        Raise ``ValueError`` if lr ≥ 2n/(m λ_max(K)). Turn off only to show divergence.

    Returns
    -------
    GDResult

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, lr ≤ 0, lr above the stability bound, bad signs.
    DivergenceError
        If the iterates overflow; ``.step`` is the step at which it happened.

    Warns
    -----
    InactivePositiveWarning
        If w0 leaves an example that must be fitted inactive on all neurons
        of matching sign. The run still happens."""


def _shared_doc(func):
    """Fill the ``{shared}`` slot of a docstring with the parameters all entry points share."""
    func.__doc__ = func.__doc__.replace("{shared}", _SHARED_PARAMETERS)
    return func


@_shared_doc
def gradient_descent(X, y, w0, *, lr, signs=None, max_steps=100_000, tol=1e-12, record_every=1,
                     activation="relu", check_stability=True) -> GDResult:
    """GD on f(x) = Σ_j s_j σ(w_j·x) with loss (1/2n)Σ(f(x_i) - y_i)², in primal–dual form.

    Forms K = X Xᵀ once (O(n² d)), then iterates (α, β) at O(m n²) per step;
    the weights w = w0 + Xᵀα are formed only at the end. See the module
    docstring for the update.

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.
    w0 : array of shape (d,) or (m, d)
        Initial weights; a 1-D array means one neuron, and the result then
        has (d,)-shaped weights and (n,)-shaped per-example arrays.
    {shared}
    """
    X = finite_array("X", X, ndim=2)
    n, d = X.shape
    W0, squeeze, opt = _setup(y, w0, "w0", d, n, lr, signs, max_steps, tol, record_every, activation)
    m = W0.shape[0]
    K = X @ X.T
    bound = _check_stability(opt["lr"], K, m, check_stability)
    beta0 = W0 @ X.T
    _warn_inactive(beta0, opt["y"], opt["signs"], opt["relu"])
    state = _DualIterate(K, opt["y"], beta0, float(np.vdot(W0, W0)), opt["signs"][:, None], opt["lr"] / n,
                         opt["relu"])
    tracker, converged, steps = _iterate(state, bound=bound, **opt)
    return _result(state, tracker, converged, steps, w=W0 + state.alpha @ X, alpha0=None, y=opt["y"],
                   signs=opt["signs"], lr=opt["lr"], activation=activation, squeeze=squeeze)


@_shared_doc
def gradient_descent_gram(K, y, alpha0, *, lr, signs=None, max_steps=100_000, tol=1e-12,
                          record_every=1, activation="relu", check_stability=True) -> GDResult:
    """The same GD, given only the Gram matrix K = X Xᵀ and w0 = Xᵀ α0.

    This is all the Theorem 2 experiment needs, so d can be 10^8
    (draw K with :func:`~ibcore.relu.gram.sample_gram`). The weights are never
    formed (``result.w is None``); use ``result.coef`` (w_T = Xᵀ coef) with
    :func:`~ibcore.relu.metrics.relative_gap_gram`.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric positive semidefinite Gram matrix.
    y : array of shape (n,)
        Labels.
    alpha0 : array of shape (n,) or (m, n)
        Coefficients of the initial weights, w_j(0) = Xᵀ alpha0_j (so
        β(0) = K alpha0). A 1-D array means one neuron.
    {shared}
    """
    K = validated_gram(K)
    n = K.shape[0]
    A0, squeeze, opt = _setup(y, alpha0, "alpha0", n, n, lr, signs, max_steps, tol, record_every, activation)
    m = A0.shape[0]
    eig = scipy.linalg.eigvalsh(K)
    if eig[0] < -1e-10 * max(eig[-1], 0.0) or eig[-1] <= 0:
        raise ValueError(f"K must be positive semidefinite and non-zero, got eigenvalues in "
                         f"[{eig[0]:.3g}, {eig[-1]:.3g}]")
    bound = _check_stability(opt["lr"], K, m, check_stability, lam_max=eig[-1])
    beta0 = A0 @ K
    _warn_inactive(beta0, opt["y"], opt["signs"], opt["relu"])
    state = _DualIterate(K, opt["y"], beta0, float(np.vdot(A0, beta0)), opt["signs"][:, None], opt["lr"] / n,
                         opt["relu"])
    tracker, converged, steps = _iterate(state, bound=bound, **opt)
    return _result(state, tracker, converged, steps, w=None, alpha0=A0, y=opt["y"], signs=opt["signs"],
                   lr=opt["lr"], activation=activation, squeeze=squeeze)
