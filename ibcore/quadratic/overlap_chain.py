"""One-pass SGD run on the overlaps alone: the exact Markov chain of :math:`(Q, R)`.

A step of one-pass SGD (:mod:`.sgd`) meets its fresh input :math:`x` only through the
pre-activations :math:`u = (\\lambda, \\nu) = [W; W^*]\\,x/\\sqrt N` and through :math:`|x|^2`.
Expanding :math:`Q' = W'W'^T/N` with :math:`W' = W - a\\lambda x^T/\\sqrt N` and
:math:`Wx = \\sqrt N\\lambda`:

.. math::

    Q' = Q - \\frac{2a}{N}\\lambda\\lambda^T + \\frac{a^2|x|^2}{N^2}\\lambda\\lambda^T,\\qquad
    R' = R - \\frac aN\\lambda\\nu^T,\\qquad T' = T,

with :math:`a = \\frac{2\\gamma}{p}(\\hat y - y)`. Given the overlaps, :math:`u\\sim\\mathcal N(0, \\Sigma)`
with :math:`\\Sigma = \\begin{pmatrix}Q & R\\\\ R^T & T\\end{pmatrix}`. Write
:math:`\\Sigma = LL^T` (:math:`r\\times r`, :math:`r = p + p^*`), so that
:math:`[W; W^*]/\\sqrt N = LO^T` with :math:`O` an :math:`N\\times r` matrix of orthonormal
columns. Then :math:`z = O^Tx\\sim\\mathcal N(0, I_r)`, :math:`u = Lz` and

.. math::

    |x|^2 = |z|^2 + |x - Oz|^2,\\qquad |x - Oz|^2\\sim\\chi^2_{N-r}\\ \\text{independent of } z.

Drawing :math:`z` and the :math:`\\chi^2` therefore gives :math:`(u, |x|^2)` their exact joint
law given :math:`(Q, R)`: the overlaps are a Markov chain on their own, and running it is
one-pass SGD *in law* (the same distribution of the trajectories of Q, R and the risk) at
:math:`O(r^3)` per step whatever N, instead of :math:`O(N(2p + p^* + b))`. The derivation is
ours [D]; ``tests/quadratic/test_overlap_chain.py`` checks that the chain fed the
:math:`z = L^{-1}u` and :math:`|x|^2` of real inputs records the weights' overlaps step by
step, that the draws have the moments of real ones (:math:`E[|x|^2uu^T] = (N + 2)\\Sigma`),
and that the mean risk along runs matches :func:`~ibcore.quadratic.sgd_one_pass` within its
standard errors.

What it gives up: the weights (the result's ``W`` is ``None``), and step-by-step equality
with :func:`~ibcore.quadratic.sgd_one_pass` for the same seed (other random numbers).

Random numbers: each run draws from its own generator, in blocks of ``_BLOCK`` steps:
:math:`z` (``_BLOCK`` × r), then ``_BLOCK`` values of :math:`\\chi^2_{N-r}`; label noise
from a child generator spawned once (as :mod:`.sgd`). A run's trajectory is the same alone
or stepped together with others (a trial's ``batch``).
"""
from __future__ import annotations

import numpy as np

from ..validation import positive_float, positive_int
from .initialisation import random_init
from .order_parameters import _validated_overlaps, overlaps, population_risk
from .sgd import _check_run_args, _diverged, _make_result, _noise_stream

__all__ = ["sgd_overlaps"]

# Steps drawn at once per run: a fixed size, so that a run's numbers do not depend on its
# records or on the other runs of a batch.
_BLOCK = 256


def sgd_overlaps(Q0, R0, T=None, *, N, lr, t_max=None, n_steps=None, rng=None, record_every=None,
                 record_steps=None, noise=0.0, stop_below=None, blowup=1e6):
    """Run one-pass SGD on the overlaps alone, exact in law (module docstring).

    Parameters
    ----------
    Q0 : array_like, shape (p, p)
        Initial student overlap :math:`Q(0) = W_0W_0^T/N` (symmetric).
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap :math:`R(0) = W_0W^{*T}/N`.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap :math:`T = W^*W^{*T}/N`; the identity by default.
    N : int
        Input dimension, at least :math:`p + p^*`.
    lr, t_max, n_steps, record_every, record_steps, noise, stop_below, blowup
        As for :func:`~ibcore.quadratic.sgd_one_pass`.
    rng : None, int or numpy.random.Generator
        Source of the steps' random numbers (label noise: a spawned child).

    Returns
    -------
    :class:`~ibcore.quadratic.SGDTrajectory`
        As :func:`~ibcore.quadratic.sgd_one_pass` returns, with ``W = None``.

    Raises
    ------
    DivergenceError
        With ``.step`` the (1-based) index of the first step whose error
        :math:`|\\hat y - y|` exceeded ``blowup``, and ``.time`` its :math:`t'`.

    Examples
    --------
    >>> from ibcore import quadratic as q
    >>> W0, W_star = q.random_init(4, 2, 1000, informative=0.3, rng=0)
    >>> run = q.sgd_overlaps(*q.overlaps(W0, W_star), N=1000, lr=0.4, t_max=1.5, rng=1,
    ...                      record_every=500)
    >>> run.risk.shape, run.n_steps
    ((31,), 15000)
    """
    (run,) = _sgd_overlaps_runs([Q0], [R0], [T], N=N, lr=lr, t_max=t_max, n_steps=n_steps, rngs=[rng],
                                record_every=record_every, record_steps=record_steps, noise=noise,
                                stop_below=stop_below, blowup=blowup)
    return run


def _sgd_overlaps_runs(Q0s, R0s, Ts, *, N, lr, t_max=None, n_steps=None, rngs, record_every=None,
                       record_steps=None, noise=0.0, stop_below=None, blowup=1e6):
    """:func:`sgd_overlaps` for each ``(Q0s[r], R0s[r], Ts[r], rngs[r])``, the runs stepped together.

    The runs share the Python work of each step; each run's trajectory is the one it has
    alone. A run that reaches ``stop_below`` stops there (its records end); the batch goes on
    while one run has not. Returns one :class:`~ibcore.quadratic.SGDTrajectory` per run.
    """
    if not len(rngs) or len({len(Q0s), len(R0s), len(Ts), len(rngs)}) > 1:
        raise ValueError(f"Q0s, R0s, Ts and rngs must have the same non-zero length, got "
                         f"{len(Q0s)}, {len(R0s)}, {len(Ts)} and {len(rngs)}")
    starts = [_validated_overlaps(Q0, R0, T, names=("Q0", "R0"), time_axis=False, symmetric=True)
              for Q0, R0, T in zip(Q0s, R0s, Ts)]
    if len({(Q.shape, R.shape) for Q, R, *_ in starts}) > 1:
        raise ValueError(f"every run needs the same shapes, got Q0 and R0 shapes "
                         f"{sorted({(Q.shape, R.shape) for Q, R, *_ in starts})}")
    p, p_star = starts[0][3], starts[0][4]
    r = p + p_star
    N = positive_int("N", N)
    if N < r:
        raise ValueError(f"N must be at least p + p_star = {r} (the weights' rows span r dimensions), got N={N}")
    lr, noise, rec, blowup = _check_run_args(p, N, lr, t_max, n_steps, noise, record_every, record_steps,
                                             blowup)
    stop = None if stop_below is None else positive_float("stop_below", stop_below)
    gens = [np.random.default_rng(g) for g in rngs]
    noise_gens = [_noise_stream(g, noise) for g in gens]
    runs = len(gens)

    S = np.empty((runs, r, r))  # Sigma of each run: [[Q, R], [R^T, T]]
    for S_run, (Q, R, T, *_) in zip(S, starts):
        S_run[:p, :p], S_run[:p, p:], S_run[p:, :p], S_run[p:, p:] = Q, R, R.T, T
    Ts_checked = [T for _, _, T, *_ in starts]
    weights = np.r_[np.full(p, 1.0 / p), np.full(p_star, -1.0 / p_star)]  # u.u weighted = y_hat - y
    student = np.r_[np.ones(p), np.zeros(p_star)]
    # The step adds (u u^T) * K to Sigma elementwise, K = c on the Q block, -a/N on the R blocks, 0 on T.
    in_Q, in_R = np.outer(student, student), np.outer(student, 1 - student) + np.outer(1 - student, student)
    coef, inv_N = 2.0 * lr / p, 1.0 / N
    step_coef = np.full(runs, coef)  # 0 once a run has stopped: its steps change nothing
    last = np.full(runs, -1)  # index of a stopped run's last record
    records, done = [], []
    pos, k = 0, _BLOCK
    with np.errstate(over="ignore", invalid="ignore"):
        for target in rec:
            while pos < target:
                if k == _BLOCK:
                    Z, X2, XI = _draw_block(gens, noise_gens, r, N, noise)
                    k = 0
                for j in range(k, k + min(int(target) - pos, _BLOCK - k)):
                    # einsum's own loops, not BLAS: a run's numbers do not depend on the batch
                    u = np.einsum("bij,bj->bi", _factor(S, pos, p, lr, N), Z[:, j])
                    err = np.einsum("bi,bi,i->b", u, u, weights)
                    if XI is not None:
                        err -= XI[:, j]
                    if not np.abs(err).max() <= blowup:
                        bad = int(np.flatnonzero(~(np.abs(err) <= blowup))[0])
                        raise _diverged(err[bad], pos + 1, blowup, p, lr, N)
                    a = step_coef * err
                    d = a * inv_N
                    c = d * (a * X2[:, j] * inv_N - 2.0)  # Q' = Q + c lam lam^T, c = (a^2|x|^2/N - 2a)/N
                    uu = u[:, :, None] * u[:, None, :]  # exactly symmetric, and so stays Sigma
                    uu *= c[:, None, None] * in_Q - d[:, None, None] * in_R
                    S += uu
                    pos += 1
                    k += 1
            records.append(S.copy())
            done.append(pos)
            if stop is not None:
                below = np.array([population_risk(s[:p, :p], s[:p, p:], T, noise=noise) < stop
                                  for s, T in zip(S, Ts_checked)]) & (last < 0)
                last[below] = len(records) - 1
                step_coef[below] = 0.0
                if np.all(last >= 0):
                    break
    S_rec = np.stack(records, axis=1)  # (runs, n_rec, r, r)
    out = []
    for i in range(runs):
        end = len(records) if last[i] < 0 else last[i] + 1
        out.append(_make_result(done[:end], S_rec[i, :end, :p, :p], S_rec[i, :end, :p, p:], Ts_checked[i], None,
                                lr, noise, stop is None or last[i] >= 0, N=N))
    return out


def _runs_from_random_init(p, p_star, N, *, q0, informative, rngs, **run):
    """Draw a teacher and a student from each generator (:func:`~ibcore.quadratic.random_init`),
    then run SGD on their overlaps from the same generator, the runs stepped together: the
    trials' protocol. ``run`` holds :func:`_sgd_overlaps_runs`'s settings. Returns the starts'
    overlaps and the runs."""
    rngs = [np.random.default_rng(rng) for rng in rngs]
    starts = [overlaps(*random_init(p, p_star, N, q0=q0, informative=informative, rng=rng)) for rng in rngs]
    return starts, _sgd_overlaps_runs(*zip(*starts), N=N, rngs=rngs, **run)


def _draw_block(gens, noise_gens, r, N, noise):
    """The random numbers of ``_BLOCK`` steps of each run: ``z`` (runs, _BLOCK, r), ``|x|^2``
    (runs, _BLOCK) and the label noise (runs, _BLOCK), or None without noise."""
    Z = np.empty((len(gens), _BLOCK, r))
    X2 = np.empty((len(gens), _BLOCK))
    XI = None if not noise else np.empty((len(gens), _BLOCK))
    for i, g in enumerate(gens):
        g.standard_normal(out=Z[i])
        X2[i] = np.einsum("kj,kj->k", Z[i], Z[i])
        if N > r:
            X2[i] += g.chisquare(N - r, _BLOCK)
        if XI is not None:
            XI[i] = np.sqrt(noise) * noise_gens[i].standard_normal(_BLOCK)
    return Z, X2, XI


def _factor(S, pos, p, lr, N):
    """A factor L of each Sigma (L L^T = Sigma): Cholesky's, or from the eigendecomposition when
    rounding has left a Sigma on the edge of the positive semidefinite cone."""
    try:
        return np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        if not np.all(np.isfinite(S)):
            raise _diverged(np.nan, pos + 1, np.inf, p, lr, N) from None
        w, V = np.linalg.eigh(S)
        return V * np.sqrt(np.clip(w, 0.0, None))[:, None, :]
