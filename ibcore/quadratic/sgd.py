"""One-pass SGD for the quadratic teacher-student network, blocked for speed.

One step with a fresh input :math:`x\\sim\\mathcal N(0, I_N)` is

.. math::

    \\lambda = Wx/\\sqrt N,\\quad \\nu = W^*x/\\sqrt N,\\quad
    \\hat y = \\tfrac1p|\\lambda|^2,\\quad y = \\tfrac1{p^*}|\\nu|^2 + \\sqrt\\Delta\\,\\xi,\\\\
    W \\leftarrow W - a\\,\\lambda x^T/\\sqrt N,\\qquad a = \\frac{2\\gamma}{p}(\\hat y - y),

i.e. :math:`w_i \\leftarrow w_i - \\gamma\\nabla_{w_i}\\tfrac12(\\hat y - y)^2`.

**Blocking** (addendum of the notes). The simulator draws a block of b inputs
:math:`X_b` (b × N) at once, precomputes :math:`W_0X_b^T` and the Gram matrix
:math:`G = X_bX_b^T/N`, and walks through the block in p-dimensional
arithmetic using

.. math::

    \\lambda_t = \\frac{W_0x_t}{\\sqrt N} - \\sum_{s<t} a_s\\,G_{st}\\,\\lambda_s,

which is exact because :math:`W_t = W_0 - \\sum_{s<t}a_s\\lambda_s x_s^T/\\sqrt N`.
The block ends with one rank-b update :math:`W \\leftarrow W - (a\\lambda)^T X_b/\\sqrt N`.
This costs :math:`O(N(2p + p^* + b))` flops per step instead of per-step
matrix-vector products, and reproduces the plain step-by-step recursion
(the reference the tests hold it to) to rounding error, on the same random numbers.

Time: the run's horizon is ``t_max`` in :math:`t' = (\\gamma/p)\\,\\text{steps}/N`
(converted to steps by :func:`~ibcore.quadratic.sgd_steps`, the one
rounding rule), or an exact ``n_steps``; records carry both ``step`` and ``t``.

Random numbers: inputs are drawn from ``rng`` in step order (a ``(b, N)``
draw equals b consecutive draws of N), label noise from a child generator
spawned from ``rng`` once per run, so the trajectory does not depend on the
block size.
"""
from __future__ import annotations

import numpy as np

from .._blas import one_blas_thread
from .._result import result
from ..validation import DivergenceError, nonnegative_float, positive_float, positive_int
from .clock import sgd_steps, _sgd_time
from .order_parameters import population_risk, _validated_weights
from .trajectory import Trajectory

__all__ = ["sgd_one_pass", "SGDTrajectory"]

#: The default of ``blowup``, the error |y_hat - y| past which a step counts as divergence:
#: one value for the SGD on the weights and the chain on the overlaps.
_BLOWUP = 1e6


@result(kw_only=True)
class SGDTrajectory(Trajectory):
    """:class:`~ibcore.quadratic.Trajectory` of an SGD run: its attributes, and those below.

    Attributes
    ----------
    step : ndarray of int, shape (n_t,)
        The recorded step indices μ (``t`` holds the same records in :math:`t'`).
    W : ndarray, shape (p, N), or None
        Final weights; ``None`` for a run of the overlaps alone
        (:func:`~ibcore.quadratic.sgd_overlaps`), which has none.
    N : int
        Input dimension.
    success : bool
        The run reached its goal: the level ``stop_below`` when one was given
        (``False`` if the run ended above it), otherwise its last step.

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> W0, W_star = q.random_init(4, 2, 500, informative=0.3, rng=0)
    >>> run = q.sgd_one_pass(W0, W_star, lr=0.4, t_max=1.0, rng=1, record_every=250)
    >>> run.kind, run.success, run.n_steps, run.step[:3]
    ('sgd', True, 5000, array([  0, 250, 500]))
    """

    step: np.ndarray
    W: np.ndarray | None
    N: int

    @property
    def n_steps(self) -> int:
        """Number of SGD steps taken (the last recorded step)."""
        return int(self.step[-1])


def _default_block(N):
    """Default SGD block size: ``clip(80_000 // N, 4, 16)`` (input block of at most ~640 kB)."""
    return int(np.clip(80_000 // N, 4, 16))


def _check_sgd_args(W0, W_star, lr, t_max, n_steps, noise, record_every, record_steps, blowup):
    W0, W_star = _validated_weights(W0, W_star, name="W0")
    p, N = W0.shape
    lr, noise, rec, blowup = _check_run_args(p, N, lr, t_max, n_steps, noise, record_every, record_steps,
                                             blowup)
    return W0, W_star, lr, noise, rec, blowup


def _check_run_args(p, N, lr, t_max, n_steps, noise, record_every, record_steps, blowup):
    """The checks of an SGD run's settings, shared with :mod:`.overlap_chain`; returns
    ``lr, noise, rec, blowup`` with ``rec`` the steps to record at."""
    lr = positive_float("lr", lr)
    if (t_max is None) == (n_steps is None):
        raise ValueError(f"t_max must be given (the horizon in t′), or else n_steps, not both; "
                         f"got t_max={t_max!r}, n_steps={n_steps!r}")
    n_steps = sgd_steps(t_max, p=p, lr=lr, N=N) if n_steps is None else positive_int("n_steps", n_steps)
    noise = nonnegative_float("noise", noise)
    blowup = positive_float("blowup", blowup)
    if record_steps is not None:
        rec = np.asarray(record_steps)
        if rec.ndim != 1 or rec.size == 0 or not np.issubdtype(rec.dtype, np.integer):
            raise ValueError(f"record_steps must be a non-empty 1-d array of integers, got {record_steps!r}")
        if np.any(np.diff(rec) <= 0) or rec[0] < 0 or rec[-1] > n_steps:
            raise ValueError(
                f"record_steps must be strictly increasing within [0, n_steps={n_steps}], got {record_steps!r}")
        rec = rec.astype(np.int64)
    elif record_every is None:
        rec = np.array([n_steps], dtype=np.int64)
    else:
        every = positive_int("record_every", record_every)
        rec = np.unique(np.concatenate([np.arange(0, n_steps, every), [n_steps]])).astype(np.int64)
    return lr, noise, rec, blowup


def _noise_stream(rng, noise):
    """Child generator for label noise (None without noise), spawned once per run."""
    return rng.spawn(1)[0] if noise else None


def _diverged(err, step, blowup, p, lr, N):
    """The DivergenceError of SGD step ``step`` (1-based), with its time t′."""
    return DivergenceError(
        f"SGD diverged: |y_hat - y| = {float(err)!r} exceeds {blowup:g} (lr too large?)",
        step=step, time=float(_sgd_time(step, p=p, lr=lr, N=N)), unit="SGD step")


def _sgd_block(WW, X, xi, coef, p, p_star, sqrtN):
    """Apply len(X) SGD steps with inputs X (b × N) in place; return the errors y_hat - y.

    ``WW`` is the (p + p_star) × N stack of student rows over teacher rows, so
    that one product gives both pre-activations; only the student rows change.
    """
    b = X.shape[0]
    LV = X @ WW.T                   # (b, p + p_star)
    LV *= 1.0 / sqrtN
    L = np.ascontiguousarray(LV[:, :p])  # row t becomes lambda_t
    V = LV[:, p:]
    y = np.einsum("tk,tk->t", V, V) / p_star
    if xi is not None:
        y += xi
    err = np.empty(b)
    a = np.zeros(b)                 # a_s for s < t, zeros beyond: full rows avoid slicing
    inv_p = 1.0 / p
    y = y.tolist()
    dot = np.dot
    if b > 1:
        G = X @ X.T
        G *= 1.0 / (sqrtN * sqrtN)
    for t in range(b):
        lam = L[t]
        if t:
            lam -= dot(a * G[t], L)  # sum_{s<t} a_s G_st lambda_s (rows s >= t have a_s = 0)
        e = float(dot(lam, lam)) * inv_p - y[t]
        err[t] = e
        a[t] = coef * e
    L *= (a / sqrtN)[:, None]
    WW[:p] -= L.T @ X
    return err


def _record(W, W_star, N):
    """Q and R of one run's weights."""
    return W @ W.T / N, W @ W_star.T / N


def sgd_one_pass(W0, W_star, *, lr, t_max=None, n_steps=None, rng=None, record_every=None,
                 record_steps=None, noise=0.0, block=None, stop_below=None, blowup=_BLOWUP):
    """Run one-pass (online) SGD and record overlaps and population risk.

    Parameters
    ----------
    W0 : array_like, shape (p, N)
        Initial student weights (see :func:`~ibcore.quadratic.random_init`).
    W_star : array_like, shape (p_star, N)
        Teacher weights.
    lr : float
        Learning rate :math:`\\gamma > 0`.
    t_max : float
        Horizon in :math:`t' = (\\gamma/p)\\,\\text{steps}/N`; the run takes
        :func:`~ibcore.quadratic.sgd_steps` steps (= fresh samples).
    n_steps : int
        Alternatively, the exact number of steps (give one of ``t_max`` and ``n_steps``).
    rng : None, int or numpy.random.Generator
        Source of the inputs (and of the label noise, via a spawned child).
    record_every : int, optional
        Record the overlaps at steps 0, ``record_every``, 2 ``record_every``,
        ... and at the last step. ``None`` (default) records the end state only.
    record_steps : array_like of int, optional
        Explicit increasing step indices to record at (e.g. a log grid);
        overrides ``record_every``.
    noise : float
        Label-noise variance :math:`\\Delta`.
    block : int, optional
        Steps per block (see module docstring). By default
        ``_default_block``: the largest b <= 16 whose input block
        (b × N doubles) stays within about 640 kB, so that the three passes
        over it hit the CPU cache. ``block=1`` runs the same recursion one
        step at a time.
    stop_below : float, optional
        Stop at the first record whose population risk is below this value
        (used for escape times); ``success`` says whether it was reached.
    blowup : float
        A step whose error :math:`|\\hat y - y|` is not finite or exceeds this
        counts as divergence; :math:`10^6` by default.

    Returns
    -------
    :class:`~ibcore.quadratic.SGDTrajectory`
        ``.step`` and ``.t`` (the records, in steps and in :math:`t'`), ``.Q``
        (n_rec, p, p), ``.R`` (n_rec, p, p_star), ``.risk`` (population risk
        from the overlaps, :math:`\\Delta/2` included), ``.W`` (final weights),
        ``.n_steps``, ``.success``.

    Raises
    ------
    DivergenceError
        With ``.step`` the (1-based) index of the first SGD step whose error
        blew up and ``.time`` its :math:`t'`.

    Notes
    -----
    Memory is :math:`O(pN + bN + \\text{records}\\cdot p^2)`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W0, W_star = q.random_init(4, 2, 500, informative=0.3, rng=0)
    >>> run = q.sgd_one_pass(W0, W_star, lr=0.4, t_max=1.0, rng=1, record_every=250)
    >>> run.n_steps, run.Q.shape
    (5000, (21, 4, 4))
    >>> print(f"{run.risk[0]:.3f} -> {run.risk[-1]:.3f}")
    0.734 -> 0.345
    """
    W0, W_star, lr, noise, rec, blowup = _check_sgd_args(
        W0, W_star, lr, t_max, n_steps, noise, record_every, record_steps, blowup)
    block = _default_block(W0.shape[1]) if block is None else positive_int("block", block)
    stop = None if stop_below is None else positive_float("stop_below", stop_below)
    rng = np.random.default_rng(rng)
    noise_rng = _noise_stream(rng, noise)
    p, N = W0.shape
    p_star = W_star.shape[0]
    sqrtN = np.sqrt(N)
    coef = 2.0 * lr / p
    sd = np.sqrt(noise)
    T = W_star @ W_star.T / N
    WW = np.vstack([W0, W_star])
    W = WW[:p]
    Qs, Rs, done = [], [], []
    pos = 0
    success = stop is None
    with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():
        for target in rec:
            while pos < target:
                b = min(block, int(target) - pos)
                X = rng.standard_normal((b, N))
                xi = sd * noise_rng.standard_normal(b) if noise_rng is not None else None
                err = _sgd_block(WW, X, xi, coef, p, p_star, sqrtN)
                if not np.all(np.abs(err) <= blowup):
                    i = int(np.flatnonzero(~(np.abs(err) <= blowup))[0])
                    raise _diverged(err[i], pos + 1 + i, blowup, p, lr, N)
                pos += b
            Q, R = _record(W, W_star, N)
            Qs.append(Q)
            Rs.append(R)
            done.append(pos)
            if stop is not None and population_risk(Q, R, T, noise=noise) < stop:
                success = True
                break
    return _make_result(done, Qs, Rs, T, W.copy(), lr, noise, success)


def _make_result(done, Qs, Rs, T, W, lr, noise, success, *, N=None):
    """The SGDTrajectory of a run's records (``W=None`` and ``N`` given for the overlap chain)."""
    Q = np.array(Qs)
    R = np.array(Rs)
    p = Q.shape[-1]
    N = W.shape[1] if N is None else N
    step = np.array(done, dtype=np.int64)
    t = _sgd_time(step, p=p, lr=lr, N=N)
    message = (f"reached its goal after {step[-1]} SGD steps (t′ = {t[-1]:.6g})" if success
               else f"the risk stayed above stop_below for all {step[-1]} SGD steps (t′ = {t[-1]:.6g})")
    return SGDTrajectory(t=t, Q=Q, R=R,
                         risk=np.atleast_1d(population_risk(Q, R, T, noise=noise)), T=T, lr=lr,
                         noise=noise, kind="sgd", step=step, W=W, N=N, success=bool(success), message=message)
