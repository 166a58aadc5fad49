r"""The GD loop of the primal–dual solver (internal): one loop for one run or a stack of runs.

:func:`prepare_gd` validates what every GD entry point shares. :func:`run_gd` iterates a
*state* holding B runs of one shape (arrays ``beta`` and ``alpha`` of shape (B, m, n), updated
in place) and owns everything the runs share: the divergence check, the stopping rule, the
activation-pattern bookkeeping, the recorded histories and the
:class:`~ibcore.relu.GDResult` of each run. The state has four methods: ``step()``
takes one GD step of every run and returns the list of ‖w_{t+1} - w_t‖² (Frobenius, over all
neurons), one float per run, ``w_sq()`` the list of ‖w_{t+1}‖², ``finite(w_sq)`` says per run whether its
iterate is still finite, given the values ``w_sq()`` just returned, and ``keep(rows)`` forgets
the runs that the bool array ``rows`` leaves out. A single run is a stack of one: at small n a
step costs little more than numpy's per-call overhead, and a sweep's runs stepped together
share it.
"""
from __future__ import annotations

import numbers
import warnings
from math import isfinite
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


class _PatternTracker:
    """Last-change steps and re-activation counts of a stack of runs (arrays (B, m, n))."""

    def __init__(self, active):
        self.active = active.copy()
        self.ever_active = active.copy()
        self.last_change = np.zeros(active.shape, dtype=np.int64)
        self.reactivations = np.zeros(active.shape, dtype=np.int64)
        self._bytes = active.tobytes()

    def update(self, t, beta):
        """Count the changes of pattern that step t made, from its pre-activations β."""
        active = beta > 0.0
        if active.tobytes() == self._bytes:  # the usual case, and far cheaper to test than to count
            return
        changed = active != self.active
        self.last_change[changed] = t
        self.reactivations += changed & active & self.ever_active
        self.ever_active |= active
        self.active = active
        self._bytes = active.tobytes()

    def keep(self, rows):
        """Forget the runs that ``rows`` (bool, one per run) leaves out."""
        for name in ("active", "ever_active", "last_change", "reactivations"):
            setattr(self, name, getattr(self, name)[rows])
        self._bytes = self.active.tobytes()


def _history(setup, records) -> GDHistory:
    """The :class:`~ibcore.relu.GDHistory` of records (t, β, α, loss)."""
    cut = (lambda a: a[:, 0]) if setup.squeeze else (lambda a: a)
    steps, betas, alphas, losses = zip(*records)
    beta = np.stack(betas)
    active = beta > 0 if setup.relu else np.ones(beta.shape, bool)
    return GDHistory(step=np.array(steps), beta=cut(beta), alpha=cut(np.stack(alphas)),
                     active=cut(active), loss=np.array(losses))


def run_gd(state, setups, *, bounds, weights, alpha0s) -> list[GDResult]:
    """Iterate a stack of runs to their stopping rules, together; the :class:`~ibcore.relu.GDResult` of each.

    Each run stops at its own step, with its own results: every row's arithmetic is that of
    its run alone, so each result is the same whatever other runs share the stack.

    Parameters
    ----------
    state : object
        The B iterates (see the module docstring).
    setups : list of GDSetup
        One per run, in the stack's order; they share everything but ``y``, ``init`` and ``lr``.
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
    tracker = _PatternTracker(state.beta > 0)   # updated only for ReLU: the identity has no pattern
    relu, record_every, tol, max_steps = s.relu, s.record_every, s.tol, s.max_steps
    tol_sq = tol * tol  # the stopping test's left factor, as (tol·tol)·‖w‖²
    records, results = [[] for _ in setups], [None] * len(setups)
    running, t = np.arange(len(setups)), 0

    def record(i):  # the state of row i at step t, in its run's records
        k = running[i]
        if not records[k] or records[k][-1][0] != t:
            beta, alpha = state.beta[i].copy(), state.alpha[i].copy()
            records[k].append((t, beta, alpha, _network_loss(beta, setups[k].y, s.signs, s.activation)))

    def end(i, success):  # the result of the run in row i, which ended after step t
        record(i)
        k = running[i]
        _, beta, alpha, _ = records[k][-1]
        results[k] = _result(setups[k], t, success, beta, alpha, tracker.last_change[i].copy(),
                             tracker.reactivations[i].copy(), _history(setups[k], records[k]),
                             w=None if weights[k] is None else weights[k](alpha), alpha0=alpha0s[k])

    if record_every:
        for i in range(running.size):
            record(i)
    # overflow is caught after every step and reported with its step, so numpy need not warn
    with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():  # small products: see ibcore._blas
        while t < max_steps and running.size:
            step_sq = state.step()
            t += 1
            norm_sq = state.w_sq()
            # ‖Δw‖² overflows long before w does (at |w| ~ 1e154), so the loss is still finite here
            if not isfinite(sum(step_sq) + sum(norm_sq)):   # finite in the usual case
                ok = np.isfinite(step_sq) & state.finite(norm_sq)
                if not ok.all():
                    k = running[np.argmin(ok)]
                    raise DivergenceError(
                        f"gradient descent diverged: the step length or the iterates overflowed "
                        f"(lr={setups[k].lr:.6g}, stability bound 2n/(m*lambda_max(K)) = {bounds[k]:.6g})",
                        step=t, unit="GD step")
            if relu:
                tracker.update(t, state.beta)
            if record_every and t % record_every == 0:
                for i in range(running.size):
                    record(i)
            if tol > 0:
                done = [a <= tol_sq * max(b, 0.0) for a, b in zip(step_sq, norm_sq)]
                if any(done):
                    done = np.array(done)
                    for i in np.flatnonzero(done):
                        end(i, True)
                    state.keep(~done)
                    tracker.keep(~done)
                    running = running[~done]
    for i in range(running.size):
        end(i, False)
    return results


def _result(s, t, success, beta, alpha, last_change, reactivations, history, *, w, alpha0) -> GDResult:
    """The :class:`~ibcore.relu.GDResult` of a run of setup ``s`` that ended after step t."""
    cut = (lambda a: a[0]) if s.squeeze else (lambda a: a)
    h = np.maximum(beta, 0.0) if s.relu else beta
    return GDResult(
        w=None if w is None else cut(w), beta=cut(beta), alpha=cut(alpha),
        alpha0=None if alpha0 is None else cut(alpha0), signs=s.signs, predictions=s.signs @ h,
        success=success, message=_message(success, t, s), n_steps=t, loss=_network_loss(beta, s.y, s.signs, s.activation),
        last_change=cut(last_change), reactivations=cut(reactivations),
        history=history, lr=s.lr, activation=s.activation)


def _message(success, t, s) -> str:
    if success:
        return f"the step length fell below tol = {s.tol:g} times the weights' norm after {t} GD steps"
    return f"stopped at the step budget max_steps = {s.max_steps}" + (" (tol = 0 runs every step)" if s.tol == 0 else "")
