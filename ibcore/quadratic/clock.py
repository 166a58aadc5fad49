"""The one clock of Part II: :math:`t' = (\\gamma/p)\\,\\alpha`, with :math:`\\alpha` = steps / N.

Every function of :mod:`ibcore.quadratic` that runs the dynamics (the ODE
integrators, the SGD simulator, the trials) takes its horizon as ``t_max`` in
:math:`t'`, the time in which gradient flow depends on neither γ nor p. SGD
needs a whole number of steps; :func:`~ibcore.quadratic.sgd_steps` is the only place where that
number is computed, with one rounding rule (the nearest integer, at least 1).
``_sgd_time`` is its inverse. The internal ``_time_grid`` and
``_evaluation_times`` build and check the output times of the ODEs (the ``n_points``,
``grid``, ``t_min`` and ``t_eval`` options of the integrators).

Gradient flow (no :math:`\\gamma^2` term) is ``lr=None`` everywhere; it has no
learning rate, hence no clock in samples, only :math:`t'`.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_float, positive_int

__all__ = ["sgd_steps"]


def sgd_steps(t_max, *, p, lr, N):
    """Number of one-pass SGD steps that reach :math:`t' =` ``t_max``.

    .. math::

        n = \\operatorname{round}\\Big(t_{max}\\,\\frac{p}{\\gamma}\\,N\\Big),\\qquad n \\ge 1,

    since one step advances :math:`\\alpha = \\text{steps}/N` by :math:`1/N` and
    :math:`t' = (\\gamma/p)\\alpha`. This is the package's one rounding rule.

    Parameters
    ----------
    t_max : float
        Horizon in :math:`t'`.
    p : int
        Student width.
    lr : float
        Learning rate :math:`\\gamma > 0`.
    N : int
        Input dimension.

    Returns
    -------
    int
        The number of SGD steps :math:`n` (fresh samples), at least 1.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> q.sgd_steps(1.0, p=4, lr=0.4, N=1000)   # t' p N / lr
    10000
    """
    t_max = positive_float("t_max", t_max)
    p = positive_int("p", p)
    lr = positive_float("lr", lr)
    N = positive_int("N", N)
    return max(1, int(round(t_max * p / lr * N)))


def _sgd_time(step, *, p, lr, N):
    """Time :math:`t' = (\\gamma/p)\\,\\text{step}/N` of SGD step counts, the inverse of :func:`~ibcore.quadratic.sgd_steps`.

    One step advances :math:`\\alpha = \\text{steps}/N` by :math:`1/N`, and
    :math:`t' = (\\gamma/p)\\alpha`. No rounding: any step count, whole or not, maps to its time.

    Parameters
    ----------
    step : int, float or array_like
        SGD step counts (fresh samples), e.g. the record steps ``run.step`` of a run.
    p, lr, N
        Student width, learning rate :math:`\\gamma > 0` and input dimension, as for
        :func:`~ibcore.quadratic.sgd_steps`.

    Returns
    -------
    float or ndarray of float, the shape of ``step``
        The times :math:`t'`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> from ibcore.quadratic.clock import _sgd_time
    >>> print(_sgd_time(10_000, p=4, lr=0.4, N=1000))
    1.0
    """
    p = positive_int("p", p)
    lr = positive_float("lr", lr)
    N = positive_int("N", N)
    return lr / p * np.asarray(step, dtype=float) / N


def _time_grid(t_max, n_points=200, *, grid="log", t_min=None):
    """Output times :math:`t'` for the ODE integrators (their ``n_points``, ``grid`` and ``t_min``).

    Parameters
    ----------
    t_max : float
        Last time.
    n_points : int
        Number of points (at least 2), including :math:`t' = 0`.
    grid : {"log", "linear"}
        ``"log"``: 0 followed by ``n_points - 1`` log-spaced points from
        ``t_min`` to ``t_max`` (for log-x plots); ``"linear"``: evenly spaced
        from 0.
    t_min : float, optional
        First non-zero point of the log grid; ``t_max / 1e4`` by default.

    Returns
    -------
    ndarray, shape (n_points,)
    """
    t_max = positive_float("t_max", t_max)
    n_points = positive_int("n_points", n_points)
    if n_points < 2:
        raise ValueError(f"n_points must be at least 2, got {n_points!r}")
    if grid == "linear":
        return np.linspace(0.0, t_max, n_points)
    if grid != "log":
        raise ValueError(f"grid must be 'log' or 'linear', got {grid!r}")
    t_min = t_max * 1e-4 if t_min is None else positive_float("t_min", t_min)
    if t_min >= t_max:
        raise ValueError(f"t_min must be smaller than t_max = {t_max}, got {t_min!r}")
    return np.concatenate([[0.0], np.geomspace(t_min, t_max, n_points - 1)])


def _evaluation_times(t_max=None, t_eval=None, *, n_points=200, grid="log", t_min=None):
    """The output times of an ODE run: ``t_eval`` checked, or ``_time_grid`` of ``t_max``.

    ``t_eval`` (e.g. the record times ``run.t`` of an SGD run) must be
    non-negative and strictly increasing; ``t_max``, if given with it, must not
    be smaller than its last entry. One of the two is required.
    """
    if t_eval is None:
        if t_max is None:
            raise ValueError("t_max must be given (the horizon in t′) when t_eval is not, got None")
        return _time_grid(t_max, n_points, grid=grid, t_min=t_min)
    t = finite_array("t_eval", t_eval, ndim=1)
    if np.any(np.diff(t) <= 0) or t[0] < 0:
        raise ValueError(f"t_eval must be non-negative and strictly increasing, "
                         f"got values from {t[0]!r} to {t[-1]!r}")
    if t_max is not None:
        t_max = positive_float("t_max", t_max)
        if t[-1] > t_max * (1 + 1e-12):
            raise ValueError(f"t_eval must lie within [0, t_max={t_max}], got values up to {t[-1]!r}")
        t = np.minimum(t, t_max)
    if t[-1] <= 0:
        raise ValueError(f"t_eval must reach a positive time, got {t_eval!r}")
    return t
