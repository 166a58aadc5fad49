r"""The GD loop of the primal–dual solver (internal), shared with the tests' weight-space form.

Both forms of GD (:mod:`~ibcore.relu.gd`, and ``tests/relu/weight_space.py``)
validate their arguments with :func:`prepare_gd`, wrap their iterate in a
*state* object and hand it to :func:`run_gd`, which owns everything they
share: the divergence check, the stopping rule, the activation-pattern
bookkeeping, the recorded history and the :class:`~ibcore.relu.results.GDResult`.

A state has arrays ``beta`` and ``alpha`` of shape (m, n), updated in place,
and three methods: ``step()`` takes one GD step and returns ‖w_{t+1} - w_t‖²
(Frobenius, over all neurons), ``w_sq()`` returns ‖w_{t+1}‖², and
``finite(w_sq)`` says whether the iterate is still finite, given the value
``w_sq()`` just returned for it (a state whose ‖w‖² is finite only when every
entry is may answer from that number alone).

The arithmetic of one step is :func:`gradient_kernel`: with
G_j = (lr/n) s_j D_j r, one GD step is α ← α - G in the dual and
w_j ← w_j - Xᵀ G_j in weight space.  Kernels trust their inputs (the entry
points validate them once), because they run in the inner loop.  For small n
a step costs little more than numpy's per-call overhead, so the loop avoids
creating arrays: the kernels write into buffers allocated once per run.
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from .._blas import one_blas_thread
from ..validation import DivergenceError, finite_array, nonnegative_float, positive_float, positive_int
from .model import _is_relu, _network_loss, _validated_signs
from .results import GDHistory, GDResult, InactivePositiveWarning


@dataclass(frozen=True)
class GDSetup:
    """The validated arguments of a GD run (see :func:`prepare_gd`)."""

    y: np.ndarray
    init: np.ndarray
    squeeze: bool
    signs: np.ndarray
    activation: str
    relu: bool
    lr: float
    max_steps: int
    tol: float
    record_every: int | None

    @property
    def m(self) -> int:
        return self.init.shape[0]


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


def _record_every(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"record_every must be a positive integer, or None to record only the end state, "
                         f"got {value!r}")
    return int(value)


def prepare_gd(y, init, *, init_name, width, n, lr, signs, max_steps, tol, record_every,
               activation) -> GDSetup:
    """Validate what every GD entry point shares; ``init`` (w0 or α0) becomes an (m, width) array."""
    y = finite_array("y", y, shape=(n,))
    W0, squeeze = _validated_init(init_name, init, width)
    relu = _is_relu(activation)
    return GDSetup(y=y, init=W0, squeeze=squeeze, signs=_validated_signs(signs, W0.shape[0]),
                   activation=activation, relu=relu, lr=positive_float("lr", lr),
                   max_steps=positive_int("max_steps", max_steps), tol=nonnegative_float("tol", tol),
                   record_every=_record_every(record_every))


def warn_inactive(beta0, setup: GDSetup) -> None:
    """Warn (:class:`~ibcore.relu.InactivePositiveWarning`) about examples no neuron of matching sign can reach."""
    if not setup.relu:
        return
    fits = setup.signs[:, None] * setup.y[None, :] > 0  # neuron j can fit example i
    stuck = fits.any(axis=0) & ~(fits & (beta0 > 0)).any(axis=0)
    if stuck.any():
        idx = np.flatnonzero(stuck)
        shown = ", ".join(map(str, idx[:10])) + (", ..." if idx.size > 10 else "")
        warnings.warn(
            f"w0 leaves {idx.size} example(s) that must be fitted inactive on every neuron of "
            f"matching sign (indices {shown}); they can only re-activate through cross-terms, "
            "so GD will probably stop at a non-global stationary point",
            InactivePositiveWarning, stacklevel=3)


def without_inactive_warning(func, /, *args, **kwargs):
    """``func(*args, **kwargs)`` with :class:`~ibcore.relu.InactivePositiveWarning` silenced.

    For trials, which count the examples concerned instead of warning about
    them in every run of a sweep.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InactivePositiveWarning)
        return func(*args, **kwargs)


#: σ'(0) of the ReLU: an example with β_{j,i} = 0 exactly counts as inactive on neuron j
RELU_SLOPE_AT_0 = 0.0


def gradient_kernel(y, signs, eta, relu=True):
    """The kernel of the inner loop, G with lr ∇_{w_j} L = Xᵀ G_j: G_j = η s_j D_j r, r = Σ_j s_j σ(β_j) - y.

    Returns a function of β (m, n) that returns G (m, n) in a buffer which
    the next call overwrites.  ``y`` (n,), ``signs`` (m,) of ±1 and η = lr/n
    are not validated, and β must be finite (:func:`run_gd` stops a run
    whose iterate is not).  For the identity activation every example counts
    as active (D_j = I).

    Every factor of G except r and η is exactly ±1 or 0/1, so grouping them
    as is cheapest changes no bit: after r, the only rounding is that of the
    product with η, as in the textbook order ((s_j r) D_j) η.
    """
    if signs.size == 1:
        return _one_neuron_kernel(y, signs[0], eta, relu)
    return _network_kernel(y, signs, eta, relu)


def _one_neuron_kernel(y, sign, eta, relu):
    # s r = σ(β) - s y, as s² = 1: no product over neurons.  Only the sign of a zero entry
    # of G can differ from the network kernel's, and it reaches neither α (α - (±0) = α, as α
    # starts at +0 and so is never -0) nor K G and the step length (sums that start at +0).
    n = y.size
    sy = sign * y
    # constants as arrays of β's shape: numpy is faster with them than with a Python float
    zero, slope_at_0, eta_row = np.zeros((1, n)), np.full((1, n), RELU_SLOPE_AT_0), np.full((1, n), eta)
    sr, D, G = (np.empty((1, n)) for _ in range(3))
    maximum, subtract, multiply, heaviside = np.maximum, np.subtract, np.multiply, np.heaviside

    if not relu:
        def kernel(beta):
            subtract(beta, sy, out=G)
            return multiply(G, eta_row, out=G)
        return kernel

    def kernel(beta):
        subtract(maximum(beta, zero, out=sr), sy, out=sr)
        multiply(sr, heaviside(beta, slope_at_0, out=D), out=G)
        return multiply(G, eta_row, out=G)
    return kernel


def _network_kernel(y, signs, eta, relu):
    m, n = signs.size, y.size
    s_eta = np.repeat(signs[:, None] * eta, n, axis=1)  # s_j η in row j (exact): no broadcast of a column
    r = np.empty(n)
    r_row = r[None, :]  # (1, n) view: numpy broadcasts it over the rows faster than an (n,) array
    h, scale, G = (np.empty((m, n)) for _ in range(3))
    dot, subtract, multiply = np.dot, np.subtract, np.multiply  # np.dot: the BLAS call of @, sooner

    if not relu:
        def kernel(beta):
            subtract(dot(signs, beta, out=r), y, out=r)
            return multiply(r_row, s_eta, out=G)
        return kernel

    zero, slope_at_0 = np.zeros((m, n)), np.full((m, n), RELU_SLOPE_AT_0)  # arrays: see _one_neuron_kernel
    maximum, heaviside = np.maximum, np.heaviside

    def kernel(beta):
        subtract(dot(signs, maximum(beta, zero, out=h), out=r), y, out=r)
        multiply(heaviside(beta, slope_at_0, out=scale), s_eta, out=scale)  # s_j η D_j
        return multiply(r_row, scale, out=G)
    return kernel


def gradient_kernel_runs(y, signs, eta, relu=True):
    """:func:`gradient_kernel` for a stack of B runs: β (B, m, n) → G (B, m, n), row b with ``y[b]`` and ``eta[b]``.

    ``y`` is (B, n), ``eta`` (B,) and ``signs`` (m,), shared.  Each row's G is, bit for
    bit, what :func:`gradient_kernel` gives for that run alone: the same products in the same
    order (numpy's stacked ``matmul`` makes the same BLAS call per row as ``dot``).
    """
    B, n = y.shape
    m = signs.size
    G = np.empty((B, m, n))
    multiply, subtract, maximum, heaviside = np.multiply, np.subtract, np.maximum, np.heaviside
    if m == 1:  # as _one_neuron_kernel: s r = σ(β) - s y
        sy, eta_col = (signs[0] * y)[:, None, :], eta[:, None, None]
        sr, D = np.empty_like(G), np.empty_like(G)
        if not relu:
            def kernel(beta):
                return multiply(subtract(beta, sy, out=G), eta_col, out=G)
            return kernel

        def kernel(beta):
            subtract(maximum(beta, 0.0, out=sr), sy, out=sr)
            multiply(sr, heaviside(beta, RELU_SLOPE_AT_0, out=D), out=G)
            return multiply(G, eta_col, out=G)
        return kernel

    s_eta = signs[None, :, None] * eta[:, None, None]  # s_j η_b (exact)
    r, h, scale = np.empty((B, n)), np.empty_like(G), np.empty_like(G)
    r_rows = r[:, None, :]
    if not relu:
        def kernel(beta):
            subtract(np.matmul(signs, beta, out=r), y, out=r)
            return multiply(r_rows, s_eta, out=G)
        return kernel

    def kernel(beta):
        subtract(np.matmul(signs, maximum(beta, 0.0, out=h), out=r), y, out=r)
        multiply(heaviside(beta, RELU_SLOPE_AT_0, out=scale), s_eta, out=scale)
        return multiply(r_rows, scale, out=G)
    return kernel


class _PatternTracker:
    """Last-change steps, re-activation counts and the recorded history."""

    def __init__(self, active, setup):
        self.active = active.copy()
        self.ever_active = active.copy()
        self.last_change = np.zeros(active.shape, dtype=np.int64)
        self.reactivations = np.zeros(active.shape, dtype=np.int64)
        self.setup = setup
        self.records = []
        self._new = np.empty_like(active)
        self._bytes = active.tobytes()

    def update(self, t, beta):
        """Count the changes of pattern that step t made, from its pre-activations β."""
        active = np.greater(beta, 0.0, out=self._new)
        if active.tobytes() == self._bytes:  # the usual case, and far cheaper to test than to count
            return
        changed = active != self.active
        self.last_change[changed] = t
        self.reactivations += changed & active & self.ever_active
        self.ever_active |= active
        self.active = active.copy()
        self._bytes = active.tobytes()

    def record(self, t, beta, alpha):
        if not self.records or self.records[-1][0] != t:
            s = self.setup
            self.records.append((t, beta.copy(), alpha.copy(), _network_loss(beta, s.y, s.signs, s.activation)))

    def keep(self, rows):
        """Forget the runs of a stack of runs (axis 0) that ``rows`` (bool) leaves out."""
        for name in ("active", "ever_active", "last_change", "reactivations"):
            setattr(self, name, getattr(self, name)[rows])
        self._new = np.empty_like(self.active)
        self._bytes = self.active.tobytes()

    def history(self) -> GDHistory:
        return _history(self.setup, self.records)


def _history(setup, records) -> GDHistory:
    """The :class:`~ibcore.relu.results.GDHistory` of records (t, β, α, loss)."""
    cut = (lambda a: a[:, 0]) if setup.squeeze else (lambda a: a)
    steps, betas, alphas, losses = zip(*records)
    beta = np.stack(betas)
    active = beta > 0 if setup.relu else np.ones(beta.shape, bool)
    return GDHistory(step=np.array(steps), beta=cut(beta), alpha=cut(np.stack(alphas)),
                     active=cut(active), loss=np.array(losses))


def run_gd(state, setup: GDSetup, *, bound, weights=None, alpha0=None) -> GDResult:
    """Iterate ``state`` to the stopping rule of ``setup`` and return the :class:`~ibcore.relu.results.GDResult`.

    Parameters
    ----------
    state : object
        The iterate (see the module docstring).
    setup : GDSetup
    bound : float
        The stability bound, quoted if the iteration diverges.
    weights : callable, optional
        Maps the state to the final weights (m, d); ``None`` for Gram-only runs.
    alpha0 : numpy.ndarray, optional
        Coefficients of w_0 (Gram-only runs).
    """
    s = setup
    tracker = _PatternTracker(state.beta > 0 if s.relu else np.ones(state.beta.shape, bool), s)
    if s.record_every:
        tracker.record(0, state.beta, state.alpha)
    # looked up once: the loop runs 10⁴-10⁵ times at a few µs a step
    step, w_sq, finite, isfinite = state.step, state.w_sq, state.finite, math.isfinite
    relu, record_every, tol, max_steps = s.relu, s.record_every, s.tol, s.max_steps
    tol_sq = tol * tol  # the stopping test's left factor, as (tol·tol)·‖w‖²
    success, t = False, 0
    # overflow is caught after every step and reported with its step, so numpy need not warn
    with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():  # small products: see ibcore._blas
        while t < max_steps:
            step_sq = step()
            t += 1
            norm_sq = w_sq()
            # ‖Δw‖² overflows long before w does (at |w| ~ 1e154), so the loss is still finite here
            if not (isfinite(step_sq) and finite(norm_sq)):
                raise DivergenceError(
                    f"gradient descent diverged: the step length or the iterates overflowed "
                    f"(lr={s.lr:.6g}, stability bound 2n/(m*lambda_max(K)) = {bound:.6g})", step=t, unit="GD step")
            if relu:
                tracker.update(t, state.beta)
            if record_every and t % record_every == 0:
                tracker.record(t, state.beta, state.alpha)
            if tol > 0 and step_sq <= tol_sq * max(norm_sq, 0.0):
                success = True
                break
    tracker.record(t, state.beta, state.alpha)
    return _result(s, t, success, state.beta, state.alpha, tracker.last_change, tracker.reactivations,
                   tracker.history(), w=None if weights is None else weights(state), alpha0=alpha0)


def _result(s, t, success, beta, alpha, last_change, reactivations, history, *, w, alpha0) -> GDResult:
    """The :class:`~ibcore.relu.results.GDResult` of a run of setup ``s`` that ended after step t."""
    cut = (lambda a: a[0]) if s.squeeze else (lambda a: a)
    h = np.maximum(beta, 0.0) if s.relu else beta
    return GDResult(
        w=None if w is None else cut(w), beta=cut(beta), alpha=cut(alpha),
        alpha0=None if alpha0 is None else cut(alpha0), signs=s.signs, predictions=s.signs @ h,
        success=success, message=_message(success, t, s), n_steps=t, loss=_network_loss(beta, s.y, s.signs, s.activation),
        last_change=cut(last_change), reactivations=cut(reactivations),
        history=history, lr=s.lr, activation=s.activation)


def run_gd_runs(state, setups, *, bounds, weights, alpha0s) -> list[GDResult]:
    """Iterate a stack of runs to their stopping rules, together: :func:`run_gd` for each, in one loop.

    ``state`` holds B runs of one shape (arrays ``beta`` and ``alpha`` of shape (B, m, n)); its
    ``step()`` and ``w_sq()`` return arrays (B,) and ``finite(w_sq)`` a bool array, row by row
    as :func:`run_gd`'s state does for one run, and ``keep(rows)`` forgets the runs that the
    bool array ``rows`` leaves out.  Each run stops at its own step, with its own results:
    every row's arithmetic is that of its run alone, so each result is the one :func:`run_gd`
    gives, whatever other runs share the stack.  The setups share everything but ``y``,
    ``init`` and ``lr``; nothing is recorded but the end state.

    Parameters
    ----------
    state : object
        The B iterates.
    setups : list of GDSetup
        One per run, in the stack's order.
    bounds : list of float
        The stability bound of each run, quoted if it diverges.
    weights : list
        Per run, ``None`` (Gram-only) or a function of its final α (m, n) giving its weights (m, d).
    alpha0s : list
        Per run, the coefficients of w_0 (Gram-only runs) or ``None``.

    Raises
    ------
    DivergenceError
        At the first step at which a run's iterate overflows (the first such run, if several).
    """
    s = setups[0]
    tracker = _PatternTracker(state.beta > 0 if s.relu else np.ones(state.beta.shape, bool), None)
    relu, tol, max_steps = s.relu, s.tol, s.max_steps
    tol_sq = tol * tol
    results, running, t = [None] * len(setups), np.arange(len(setups)), 0

    def end(i, success):  # the result of the run in row i of the stack, as run_gd gives it
        k = running[i]
        beta, alpha = state.beta[i].copy(), state.alpha[i].copy()
        setup = setups[k]
        history = _history(setup, [(t, beta, alpha, _network_loss(beta, setup.y, setup.signs, setup.activation))])
        w = None if weights[k] is None else weights[k](alpha)
        results[k] = _result(setup, t, success, beta, alpha, tracker.last_change[i].copy(),
                             tracker.reactivations[i].copy(), history, w=w, alpha0=alpha0s[k])

    with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():  # small products: see ibcore._blas
        while t < max_steps and running.size:
            step_sq = state.step()
            t += 1
            norm_sq = state.w_sq()
            ok = np.isfinite(step_sq) & state.finite(norm_sq)
            if not ok.all():
                k = running[np.argmin(ok)]
                raise DivergenceError(
                    f"gradient descent diverged: the step length or the iterates overflowed "
                    f"(lr={setups[k].lr:.6g}, stability bound 2n/(m*lambda_max(K)) = {bounds[k]:.6g})",
                    step=t, unit="GD step")
            if relu:
                tracker.update(t, state.beta)
            if tol > 0:
                done = step_sq <= tol_sq * np.maximum(norm_sq, 0.0)
                if done.any():
                    for i in np.flatnonzero(done):
                        end(i, True)
                    state.keep(~done)
                    tracker.keep(~done)
                    running = running[~done]
    for i in range(running.size):
        end(i, False)
    return results


def _message(success, t, s) -> str:
    if success:
        return f"the step length fell below tol = {s.tol:g} times the weights' norm after {t} GD steps"
    return f"stopped at the step budget max_steps = {s.max_steps}" + (" (tol = 0 runs every step)" if s.tol == 0 else "")


_GD_PARAMETERS = r"""lr : float
        Step size η (> 0 and below :func:`~ibcore.relu.stability_bound`);
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
    :class:`~ibcore.relu.results.GDResult`

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
        of matching sign. The run still happens."""


def gd_parameters_doc(func):
    """Fill the ``{shared}`` slot of a GD entry point's docstring with the parameters all of them share.

    Called after the definition, not as a decorator: mutmut leaves decorated functions unmutated.
    """
    func.__doc__ = func.__doc__.replace("{shared}", _GD_PARAMETERS)
    return func
