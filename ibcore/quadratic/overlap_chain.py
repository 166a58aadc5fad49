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
standard errors; Part II ch. 1 compares the laws of Q, R and the risk by two-sample tests.

**The factor.** Any :math:`L` with :math:`LL^T = \\Sigma` will do: :math:`u = Lz` has the law
:math:`\\mathcal N(0, \\Sigma)`, and the components of :math:`z` that :math:`L` ignores are
independent of :math:`u` and stand for part of :math:`x`'s remainder, so :math:`|x|^2` keeps its
law. The chain takes Cholesky's :math:`L` when :math:`\\Sigma` is positive definite, and one from
the eigendecomposition when it is singular. :math:`\\Sigma` is singular whenever the rows of
:math:`[W; W^*]` are linearly dependent, and then for the whole run: if :math:`v^TW = 0`, then
:math:`v^T\\lambda = 0` for every input and :math:`v^TW' = 0` after every step. A start on the
zero-loss manifold with :math:`p > p^*` (student rows in the teacher's span) is such a start;
rounding can also leave a regular :math:`\\Sigma` just outside the cone. The choice is made for
each run by itself.

**Cost.** A step of the chain costs the same at every N, but it is a dozen small numpy
calls, and a run alone pays their Python overhead: measured as ratios in one run
(``benchmarks/bench_quadratic.py``, groups ``quad-chain-alone-N*``, (p, p*) = (4, 2)), a
run alone on the chain costs about 1.9 times a run on the weights at N = 100, 0.94 times at
N = 1,000 and 0.15 times at N = 10^4. Run by run it pays off only from N of about a
thousand. The gain at small N comes from stepping many runs together, which shares the
Python work of a step among them (the trials' ``batch``): 16 runs stepped together cost
about 0.13 (N = 64) and 0.10 (N = 512) of the same runs on the weights one after the
other (groups ``quad-sgd-runs-N*``; ``make bench``, 2026-12-05).

What it gives up: the weights (the result's ``W`` is ``None``), and step-by-step equality
with :func:`~ibcore.quadratic.sgd_one_pass` for the same seed (other random numbers).

Random numbers: each run draws from its own generator, in blocks of ``_BLOCK`` steps:
:math:`z` (``_BLOCK`` × r), then ``_BLOCK`` values of :math:`\\chi^2_{N-r}`; label noise
from a child generator spawned once (as :mod:`.sgd`). A run's trajectory is the same alone
or stepped together with others (a trial's ``batch``), whatever the others are.
"""
from __future__ import annotations

import numpy as np

from ..validation import positive_float, positive_int
from .initialisation import random_init
from .order_parameters import _risk, _validated_overlaps, overlaps
from .sgd import _BLOWUP, _check_run_args, _diverged, _make_result, _noise_stream

__all__ = ["sgd_overlaps"]

# Steps drawn at once per run: a fixed size, so that a run's numbers do not depend on its
# records or on the other runs of a batch.
_BLOCK = 256

#: Runs that a trial's batch steps together at most (its ``batch_size`` for ibcore.sweep): a
#: step's dozen numpy calls cost the same for one run or hundreds, and each run adds little
#: (the module docstring's "Cost"), so a sweep hands the chain all the trials of a point
#: that one worker runs, not 16 at a time.
_BATCH_RUNS = 512


def sgd_overlaps(Q0, R0, T=None, *, N, lr, t_max=None, n_steps=None, rng=None, record_every=None,
                 record_steps=None, noise=0.0, stop_below=None, blowup=_BLOWUP):
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
                       record_steps=None, noise=0.0, stop_below=None, blowup=_BLOWUP, _squared_norm="exact"):
    """:func:`sgd_overlaps` for each ``(Q0s[r], R0s[r], Ts[r], rngs[r])``, the runs stepped together.

    The runs share the Python work of each step; each run's trajectory is the one it has
    alone. A run that reaches ``stop_below`` stops there (its records end); the batch goes on
    while one run has not. Returns one :class:`~ibcore.quadratic.SGDTrajectory` per run.

    ``_squared_norm`` is a hook for negative controls, not a setting: a key of
    ``_SQUARED_NORMS`` other than ``"exact"`` builds the chain with the law of :math:`|x|^2`
    wrong in one way (a constant N, :math:`\\chi^2_N` in place of :math:`\\chi^2_{N-r}`, or
    drawn apart from u), which is no longer SGD; Part II ch. 1 shows that its test of the
    chain's law rejects each of them.
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
    if _squared_norm not in _SQUARED_NORMS:
        raise ValueError(f"_squared_norm must be one of {sorted(_SQUARED_NORMS)}, got {_squared_norm!r}")
    gens = [np.random.default_rng(g) for g in rngs]
    noise_gens = [_noise_stream(g, noise) for g in gens]
    runs = len(gens)

    S_all = np.empty((runs, r, r))  # Sigma of each run: [[Q, R], [R^T, T]]
    for S_run, (Q, R, T, *_) in zip(S_all, starts):
        S_run[:p, :p], S_run[:p, p:], S_run[p:, :p], S_run[p:, p:] = Q, R, R.T, T
    Ts_checked = [T for _, _, T, *_ in starts]
    weights = np.r_[np.full(p, 1.0 / p), np.full(p_star, -1.0 / p_star)]  # u.u weighted = y_hat - y
    student = np.r_[np.ones(p), np.zeros(p_star)]
    # The step adds (u u^T) * K to Sigma elementwise, K = c on the Q block, -a/N on the R blocks, 0 on T.
    in_Q, in_R = np.outer(student, student), np.outer(student, 1 - student) + np.outer(1 - student, student)
    coef, inv_N = 2.0 * lr / p, 1.0 / N
    # Only the runs that have not stopped step on (``active``, their Sigma in S): a stopped run
    # costs nothing, so a batch pays for its slowest run's steps, not for all its runs' steps.
    active = np.arange(runs)
    S = S_all.copy()
    last = np.full(runs, -1)  # index of a stopped run's last record
    records, done = [], []
    pos, k = 0, _BLOCK
    Z = X2 = XI = None  # no block drawn yet: a run may stop at its first record
    with np.errstate(over="ignore", invalid="ignore"):
        for target in rec:
            while pos < target:
                if k == _BLOCK:
                    Z, X2, XI = _draw_block([gens[i] for i in active], [noise_gens[i] for i in active], r, N,
                                            noise, _squared_norm)
                    # step-major copies: each step reads contiguous rows
                    Z, X2 = Z.transpose(1, 0, 2).copy(), X2.T.copy()
                    XI = None if XI is None else XI.T.copy()
                    k = 0
                for j in range(k, k + min(int(target) - pos, _BLOCK - k)):
                    # einsum's own loops, not BLAS: a run's numbers do not depend on the batch
                    u = np.einsum("bij,bj->bi", _factor(S, pos, p, lr, N), Z[j])
                    err = np.einsum("bi,bi,i->b", u, u, weights)
                    if XI is not None:
                        err -= XI[j]
                    if not np.abs(err).max() <= blowup:
                        bad = int(np.flatnonzero(~(np.abs(err) <= blowup))[0])
                        raise _diverged(err[bad], pos + 1, blowup, p, lr, N)
                    a = coef * err
                    d = a * inv_N
                    c = d * (a * X2[j] * inv_N - 2.0)  # Q' = Q + c lam lam^T, c = (a^2|x|^2/N - 2a)/N
                    uu = u[:, :, None] * u[:, None, :]  # exactly symmetric, and so stays Sigma
                    uu *= c[:, None, None] * in_Q - d[:, None, None] * in_R
                    S += uu
                    pos += 1
                    k += 1
            S_all[active] = S
            records.append(S_all.copy())
            done.append(pos)
            if stop is not None:
                below = _risk(S[:, :p, :p], S[:, :p, p:], S[:, p:, p:], noise) < stop
                if below.any():
                    last[active[below]] = len(records) - 1
                    keep = ~below
                    active, S = active[keep], S[keep]
                    if Z is not None:
                        Z, X2 = Z[:, keep], X2[:, keep]
                        XI = None if XI is None else XI[:, keep]
                if not active.size:
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


#: The laws of |x|^2 that ``_squared_norm`` selects: the exact one, and three with one term
#: wrong, the negative controls of Part II ch. 1 (each changes E[|x|^2 u u^T] = (N + 2) Sigma).
_SQUARED_NORMS = {
    "exact": "|z|^2 + chi^2_{N-r}",
    "N": "the constant N (no fluctuation, no correlation with u)",
    "chi2_N": "|z|^2 + chi^2_N (the degrees of freedom of the whole input, not of its remainder)",
    "independent": "|z'|^2 + chi^2_{N-r} with z' independent of z (drawn apart from u)",
}


def _draw_block(gens, noise_gens, r, N, noise, squared_norm):
    """The random numbers of ``_BLOCK`` steps of each run: ``z`` (runs, _BLOCK, r), ``|x|^2``
    (runs, _BLOCK) and the label noise (runs, _BLOCK), or None without noise. ``squared_norm``
    other than ``"exact"`` draws |x|^2 from a wrong law (``_SQUARED_NORMS``), after the exact
    draws, which it leaves as they are."""
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
        if squared_norm == "N":
            X2[i] = N
        elif squared_norm == "chi2_N":
            X2[i] += g.chisquare(r, _BLOCK)
        elif squared_norm == "independent":
            apart = g.standard_normal((_BLOCK, r))
            X2[i] += np.einsum("kj,kj->k", apart, apart) - np.einsum("kj,kj->k", Z[i], Z[i])
    return Z, X2, XI


def _factor(S, pos, p, lr, N):
    """A factor L of each run's Sigma (L L^T = Sigma), chosen for each run by itself: Cholesky's
    when its Sigma is positive definite, else from its eigendecomposition (module docstring:
    "The factor"). One batched Cholesky serves a batch of regular runs; when it fails, each run
    is factored alone, so that a singular run does not change the factor, and the numbers, of
    the regular runs beside it. A non-finite Sigma is a divergence at step ``pos + 1``."""
    try:
        return np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        if not np.all(np.isfinite(S)):
            raise _diverged(np.nan, pos + 1, np.inf, p, lr, N) from None
    L = np.empty_like(S)
    for L_run, S_run in zip(L, S):
        try:
            L_run[...] = np.linalg.cholesky(S_run)
        except np.linalg.LinAlgError:
            w, V = np.linalg.eigh(S_run)
            L_run[...] = V * np.sqrt(np.clip(w, 0.0, None))
    return L
