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
from .order_parameters import population_risk, _risk, _validated_weights
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
    """Apply b SGD steps to each run in place, run r with inputs ``X[r]`` (b × N); return the
    errors y_hat - y, shape (runs, b).

    ``WW`` is the (runs, p + p_star, N) stack of each run's student rows over its teacher
    rows, so that one product gives both pre-activations; only the student rows change.
    The walk through the block is vectorised over the runs: its numpy calls are shared by
    all of them (many runs cost little more than one, the trials' ``batch``).
    """
    b = X.shape[1]
    LV = X @ WW.transpose(0, 2, 1)          # (runs, b, p + p_star)
    LV *= 1.0 / sqrtN
    L = np.ascontiguousarray(LV[:, :, :p])  # row t becomes lambda_t
    V = LV[:, :, p:]
    y = np.einsum("rtk,rtk->rt", V, V) / p_star
    if xi is not None:
        y += xi
    err = np.empty_like(y)
    a = np.zeros_like(y)                    # a_s for s < t, zeros beyond: full rows avoid slicing
    inv_p = 1.0 / p
    if b > 1:
        G = X @ X.transpose(0, 2, 1)
        G *= 1.0 / (sqrtN * sqrtN)
    for t in range(b):
        lam = L[:, t]
        if t:
            lam -= np.einsum("rs,rsk->rk", a * G[:, t], L)  # sum_{s<t} a_s G_st lambda_s
        e = np.einsum("rk,rk->r", lam, lam) * inv_p - y[:, t]
        err[:, t] = e
        a[:, t] = coef * e
    L *= (a / sqrtN)[:, :, None]
    WW[:, :p] -= L.transpose(0, 2, 1) @ X
    return err


def _record(W, W_star, N):
    """Q and R of one run's weights (the step-by-step reference of the tests records with it)."""
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
    (run,) = _sgd_one_pass_runs([W0], [W_star], lr=lr, t_max=t_max, n_steps=n_steps, rngs=[rng],
                                record_every=record_every, record_steps=record_steps, noise=noise, block=block,
                                stop_below=stop_below, blowup=blowup)
    return run


def _sgd_one_pass_runs(W0s, W_stars, *, lr, t_max=None, n_steps=None, rngs, record_every=None, record_steps=None,
                       noise=0.0, block=None, stop_below=None, blowup=_BLOWUP):
    """:func:`sgd_one_pass` for each ``(W0s[r], W_stars[r], rngs[r])``, the runs stepped together.

    Each run draws its inputs (and label noise) from its own generator, as alone; the runs
    share the numpy calls of each block (:func:`_sgd_block`). A run that reaches
    ``stop_below`` stops there (its records end) and is no longer stepped; the others go
    on. Returns one :class:`~ibcore.quadratic.SGDTrajectory` per run, the one the run has
    alone, bit for bit (every product is the run's own; the tests hold it to that).
    """
    if not len(rngs) or len({len(W0s), len(W_stars), len(rngs)}) > 1:
        raise ValueError(f"W0s, W_stars and rngs must have the same non-zero length, got "
                         f"{len(W0s)}, {len(W_stars)} and {len(rngs)}")
    checked = [_check_sgd_args(W0, W_star, lr, t_max, n_steps, noise, record_every, record_steps, blowup)
               for W0, W_star in zip(W0s, W_stars)]
    if len({(W0.shape, W_star.shape) for W0, W_star, *_ in checked}) > 1:
        raise ValueError(f"every run needs the same shapes, got W0 and W_star shapes "
                         f"{sorted({(W0.shape, W_star.shape) for W0, W_star, *_ in checked})}")
    _, _, lr, noise, rec, blowup = checked[0]
    p, N = checked[0][0].shape
    p_star = checked[0][1].shape[0]
    block = _default_block(N) if block is None else positive_int("block", block)
    stop = None if stop_below is None else positive_float("stop_below", stop_below)
    gens = [np.random.default_rng(g) for g in rngs]
    noise_gens = [_noise_stream(g, noise) for g in gens]
    runs = len(gens)
    sqrtN = np.sqrt(N)
    coef = 2.0 * lr / p
    sd = np.sqrt(noise)
    WW_all = np.stack([np.vstack([W0, W_star]) for W0, W_star, *_ in checked])  # (runs, p + p_star, N)
    Ts = [W_star @ W_star.T / N for _, W_star, *_ in checked]
    T_all = np.stack(Ts)
    active = np.arange(runs)  # the runs not stopped, stepped on (their weights in WW)
    WW = WW_all.copy()
    Q_all, R_all = np.empty((runs, p, p)), np.empty((runs, p, p_star))
    last = np.full(runs, -1)  # index of a stopped run's last record
    Qs, Rs, done = [], [], []
    pos = 0
    with np.errstate(over="ignore", invalid="ignore"), one_blas_thread():
        for target in rec:
            while pos < target:
                b = min(block, int(target) - pos)
                X = np.empty((active.size, b, N))
                for k, i in enumerate(active):
                    gens[i].standard_normal(out=X[k])
                xi = sd * np.stack([noise_gens[i].standard_normal(b) for i in active]) if noise else None
                err = _sgd_block(WW, X, xi, coef, p, p_star, sqrtN)
                bad = ~(np.abs(err) <= blowup)
                if bad.any():  # the earliest step that blew up, in the first run where it did
                    t = int(np.flatnonzero(bad.any(axis=0))[0])
                    raise _diverged(err[np.flatnonzero(bad[:, t])[0], t], pos + 1 + t, blowup, p, lr, N)
                pos += b
            W = WW[:, :p]
            Q_all[active] = W @ W.transpose(0, 2, 1) / N
            R_all[active] = W @ WW[:, p:].transpose(0, 2, 1) / N
            WW_all[active] = WW
            Qs.append(Q_all.copy())
            Rs.append(R_all.copy())
            done.append(pos)
            if stop is not None:
                below = _risk(Q_all[active], R_all[active], T_all[active], noise) < stop
                if below.any():
                    last[active[below]] = len(done) - 1
                    active, WW = active[~below], WW[~below]
                if not active.size:
                    break
    Q_rec, R_rec = np.stack(Qs, axis=1), np.stack(Rs, axis=1)  # (runs, n_rec, ...)
    out = []
    for i in range(runs):
        end = len(done) if last[i] < 0 else last[i] + 1
        out.append(_make_result(done[:end], Q_rec[i, :end], R_rec[i, :end], Ts[i], WW_all[i, :p].copy(), lr,
                                noise, stop is None or last[i] >= 0))
    return out


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
