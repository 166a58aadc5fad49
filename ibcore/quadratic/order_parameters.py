"""Order parameters and the closed-form population risk.

Everything here is a function of the overlaps only,

.. math::

    Q = \\frac{W W^T}{N},\\qquad R = \\frac{W W^{*T}}{N},\\qquad T = \\frac{W^* W^{*T}}{N},

because the pre-activations :math:`(\\lambda, \\nu)` are jointly Gaussian with
covariance :math:`\\begin{pmatrix} Q & R\\\\ R^T & T\\end{pmatrix}` (convention in
:mod:`ibcore.quadratic`). Wick's theorem turns every expectation into a
polynomial in :math:`Q, R, T` [D] (the moments that drive the ODEs are in
:mod:`~ibcore.quadratic.moments`); the risk below is checked against Monte
Carlo (:func:`~ibcore.quadratic.monte_carlo_risk`) in ``tests/quadratic``.

Functions accept a trajectory as well as a single point: ``Q`` may be
``(p, p)`` or ``(n_t, p, p)`` (same leading axis for ``R``).
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, nonnegative_float, positive_int

__all__ = ["overlaps", "population_risk", "monte_carlo_risk", "Overlaps", "MonteCarloEstimate"]


@result
class Overlaps:
    """The order parameters :math:`(Q, R, T)` of a student and a teacher.

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> Q, R, T = q.overlaps(*q.random_init(3, 2, 1000, rng=0))
    >>> Q.shape, R.shape, T.shape
    ((3, 3), (3, 2), (2, 2))
    """

    Q: np.ndarray
    """Student-student overlap :math:`WW^T/N`, shape (p, p)."""
    R: np.ndarray
    """Student-teacher overlap :math:`WW^{*T}/N`, shape (p, p_star)."""
    T: np.ndarray
    """Teacher-teacher overlap :math:`W^*W^{*T}/N`, shape (p_star, p_star)."""


def overlaps(W, W_star):
    """Overlap matrices of a student and a teacher.

    Parameters
    ----------
    W : array_like, shape (p, N)
        Student first-layer weights, rows :math:`w_i` with :math:`O(1)` entries.
    W_star : array_like, shape (p_star, N)
        Teacher weights.

    Returns
    -------
    :class:`~ibcore.quadratic.Overlaps`
        ``Q`` (p, p) :math:`= WW^T/N`, ``R`` (p, p_star) :math:`= WW^{*T}/N`
        (called :math:`\\rho` in some papers) and ``T`` (p_star, p_star)
        :math:`= W^*W^{*T}/N`; unpacks as ``Q, R, T``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.random_init(3, 2, 1000, rng=0)
    >>> Q, R, T = q.overlaps(W, W_star)
    >>> Q.shape, R.shape
    ((3, 3), (3, 2))
    >>> print(np.round(T, 6))   # an orthonormal teacher
    [[1. 0.]
     [0. 1.]]
    """
    W, W_star = _validated_weights(W, W_star)
    N = W.shape[1]
    return Overlaps(W @ W.T / N, W @ W_star.T / N, W_star @ W_star.T / N)


def _validated_sizes(p, p_star, N=None, *, p_at_least_p_star=None):
    """Check the widths p, p* (and the input dimension N): positive integers.

    Parameters
    ----------
    p, p_star : int
    N : int, optional
    p_at_least_p_star : str, optional
        If given, also require :math:`p \\ge p^*`; the string says why, in the error message.

    Returns
    -------
    tuple of int
        ``(p, p_star)``, or ``(p, p_star, N)`` when N is given.
    """
    p, p_star = positive_int("p", p), positive_int("p_star", p_star)
    if p_at_least_p_star and p < p_star:
        raise ValueError(f"p must be >= p_star = {p_star} ({p_at_least_p_star}), got p = {p}")
    return (p, p_star) if N is None else (p, p_star, positive_int("N", N))


def _validated_weights(W, W_star, *, name="W"):
    """Check student and teacher weights: finite, 2-d, the same input dimension N.

    ``name`` is the student parameter's name in error messages (``"W"`` or ``"W0"``).
    """
    W = finite_array(name, W, ndim=2)
    W_star = finite_array("W_star", W_star, ndim=2)
    if W_star.shape[1] != W.shape[1]:
        raise ValueError(
            f"W_star must have N = {W.shape[1]} columns like {name}, got shape {W_star.shape}")
    return W, W_star


def _symmetric(name, A):
    if not np.allclose(A, np.swapaxes(A, -1, -2), rtol=0, atol=1e-10 * max(1.0, np.abs(A).max())):
        raise ValueError(f"{name} must be symmetric")


def _validated_overlaps(Q, R, T=None, *, names=("Q", "R"), time_axis=True, symmetric=False):
    """Check overlaps ``(Q, R, T)`` and return ``(Q, R, T, p, p_star)``.

    Parameters
    ----------
    Q, R : array_like
        Shapes (p, p) and (p, p_star), or (n_t, p, p) and (n_t, p, p_star)
        when ``time_axis`` allows a leading time axis.
    T : array_like, shape (p_star, p_star), optional
        The identity (orthonormal teacher) by default.
    names : (str, str)
        Names of Q and R in the error messages (e.g. ``("Q0", "R0")``).
    time_axis : bool
        Allow a leading time axis.
    symmetric : bool
        Also require Q and T to be symmetric (initial conditions of the ODEs).
    """
    q_name, r_name = names
    ndim = (2, 3) if time_axis else 2
    Q = finite_array(q_name, Q, ndim=ndim)
    p = Q.shape[-1]
    if Q.shape[-2] != p:
        raise ValueError(f"{q_name} must be square, got shape {Q.shape}")
    R = finite_array(r_name, R, ndim=ndim)
    if R.ndim != Q.ndim or R.shape[:-1] != Q.shape[:-1]:
        raise ValueError(f"{r_name} must have shape {Q.shape[:-1] + ('p_star',)} to match {q_name} "
                         f"of shape {Q.shape}, got shape {R.shape}")
    p_star = R.shape[-1]
    T = np.eye(p_star) if T is None else finite_array("T", T, shape=(p_star, p_star))
    if symmetric:
        _symmetric(q_name, Q)
        _symmetric("T", T)
    return Q, R, T, p, p_star


def population_risk(Q, R, T=None, *, noise=0.0):
    """Closed-form population risk :math:`\\epsilon_g = \\tfrac12 E[(\\hat y - y)^2]`.

    .. math::

        \\epsilon_g = \\frac12\\Big(\\frac{\\mathrm{Tr}Q}{p}-\\frac{\\mathrm{Tr}T}{p^*}\\Big)^2
        + \\frac{\\mathrm{Tr}Q^2}{p^2} - \\frac{2\\|R\\|_F^2}{p p^*}
        + \\frac{\\mathrm{Tr}T^2}{p^{*2}} + \\frac{\\Delta}{2}

    (Isserlis: :math:`E[\\lambda_i^2\\lambda_j^2] = Q_{ii}Q_{jj} + 2Q_{ij}^2`).
    The label-noise floor :math:`\\Delta/2` is included so that SGD and ODE
    report the same quantity; it is 0 by default.

    Parameters
    ----------
    Q : array_like, shape (p, p) or (n_t, p, p)
        Student overlap :math:`Q = WW^T/N`, at one time or along a trajectory.
    R : array_like, shape (p, p_star) or (n_t, p, p_star)
        Student-teacher overlap :math:`R = WW^{*T}/N`.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap; the identity (orthonormal teacher) by default.
    noise : float
        Label-noise variance :math:`\\Delta \\ge 0`.

    Returns
    -------
    float or ndarray of shape (n_t,)
        :math:`\\epsilon_g`, one value per time.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> p_star = 2
    >>> q.population_risk(np.eye(p_star), np.eye(p_star))   # the student is the teacher
    0.0
    >>> print(round(q.population_risk(np.eye(3), np.zeros((3, 2))), 4))   # a student blind to the teacher
    0.8333
    """
    Q, R, T, p, p_star = _validated_overlaps(Q, R, T)
    risk = _risk(Q, R, T, nonnegative_float("noise", noise))
    return float(risk) if np.ndim(risk) == 0 else risk


def _risk(Q, R, T, noise):
    """:func:`population_risk` without its checks, along any leading axes of Q, R and T (the
    integrators' stopping rules call it at every step, the overlap chain on a stack of runs)."""
    p, p_star = Q.shape[-1], T.shape[-1]
    trQ = np.trace(Q, axis1=-2, axis2=-1)
    trQ2 = np.sum(Q * np.swapaxes(Q, -1, -2), axis=(-2, -1))
    R2 = np.sum(R * R, axis=(-2, -1))
    tau = trQ / p - np.trace(T, axis1=-2, axis2=-1) / p_star
    risk = (0.5 * tau**2 + trQ2 / p**2 - 2.0 * R2 / (p * p_star)
            + np.sum(T * np.swapaxes(T, -1, -2), axis=(-2, -1)) / p_star**2)
    return risk + 0.5 * noise


@result
class MonteCarloEstimate:
    """A Monte Carlo mean and its standard error.

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.random_init(3, 2, 100, rng=0)
    >>> mean, stderr = q.monte_carlo_risk(W, W_star, 10_000, rng=1)
    >>> bool(0 < stderr < mean)
    True
    """

    mean: float
    stderr: float


def monte_carlo_risk(W, W_star, n_samples, *, noise=0.0, rng=None, batch=20_000):
    """Monte Carlo estimate of the population risk :math:`\\tfrac12E[(\\hat y - y)^2]` on fresh inputs.

    The empirical counterpart of the closed form
    :func:`~ibcore.quadratic.population_risk`: draws
    :math:`x\\sim\\mathcal N(0, I_N)`, evaluates student and teacher (and label
    noise of variance Δ) and averages the loss.

    Parameters
    ----------
    W : array_like, shape (p, N)
        Student weights.
    W_star : array_like, shape (p_star, N)
        Teacher weights.
    n_samples : int
        Number of fresh inputs.
    noise : float
        Label-noise variance Δ.
    rng : None, int or numpy.random.Generator
    batch : int
        Inputs drawn at once (memory ``batch × N`` doubles).

    Returns
    -------
    :class:`~ibcore.quadratic.MonteCarloEstimate`
        ``mean``, the estimate, and ``stderr``, its standard error (sample
        standard deviation of the loss / √n); unpacks as ``mean, stderr``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.random_init(3, 2, 100, rng=0)
    >>> mc = q.monte_carlo_risk(W, W_star, 200_000, rng=1)
    >>> exact = q.population_risk(*q.overlaps(W, W_star))
    >>> bool(abs(mc.mean - exact) < 4 * mc.stderr)
    True
    """
    W, W_star = _validated_weights(W, W_star)
    n_samples = positive_int("n_samples", n_samples)
    noise = nonnegative_float("noise", noise)
    batch = positive_int("batch", batch)
    rng = np.random.default_rng(rng)
    p, N = W.shape
    p_star = W_star.shape[0]
    WW = np.vstack([W, W_star]) / np.sqrt(N)
    total = total_sq = 0.0
    for start in range(0, n_samples, batch):
        b = min(batch, n_samples - start)
        LV = rng.standard_normal((b, N)) @ WW.T
        err = np.sum(LV[:, :p] ** 2, axis=1) / p - np.sum(LV[:, p:] ** 2, axis=1) / p_star
        if noise:
            err -= np.sqrt(noise) * rng.standard_normal(b)
        loss = 0.5 * err * err
        total += float(loss.sum())
        total_sq += float(np.dot(loss, loss))
    mean = total / n_samples
    var = max(total_sq / n_samples - mean * mean, 0.0)
    return MonteCarloEstimate(mean, float(np.sqrt(var / n_samples)))
