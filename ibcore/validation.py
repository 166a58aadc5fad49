"""Input checks shared by every public function of ibcore, and the error a divergence raises.

:class:`~ibcore.DivergenceError` is defined here and public as ``ibcore.DivergenceError``.

Each check raises :class:`ValueError` whose message names the offending
parameter and shows its value (or its shape), so that a wrong call in a
notebook points straight at the argument to fix.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "finite_array",
    "positive_int",
    "nonnegative_int",
    "positive_float",
    "nonnegative_float",
    "orthonormal_columns",
]


class DivergenceError(FloatingPointError):
    """An iteration left the finite numbers (or blew past a bound).

    The message and the attributes say where, in the solver's own units.

    Attributes
    ----------
    step : int or None
        For iterative solvers, the iteration at which the divergence was
        detected, counted in ``unit`` (e.g. ``"GD step"``, ``"SGD step"``);
        ``None`` for ODE integrators.
    time : float or None
        For solvers with a clock (Part II: t′ = (γ/p)·steps/N), the time at
        which it was detected; ``None`` otherwise.
    unit : str
        What ``step`` counts.

    Examples
    --------
    >>> from ibcore import DivergenceError
    >>> err = DivergenceError("the iterates overflowed", step=12, unit="GD step")
    >>> err.step, str(err)
    (12, 'the iterates overflowed (diverged at GD step 12)')
    """

    def __init__(self, message: str, *, step: int | None = None, time: float | None = None,
                 unit: str = "step"):
        if step is None and time is None:
            raise TypeError("DivergenceError needs a step or a time")
        where = [f"{unit} {int(step)}"] if step is not None else []
        if time is not None:
            where.append(f"t′ = {float(time):.6g}")
        super().__init__(f"{message} (diverged at {', '.join(where)})")
        self.step = None if step is None else int(step)
        self.time = None if time is None else float(time)
        self.unit = unit


def _describe(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(value)
    return f"array of shape {arr.shape}"


def finite_array(name: str, value, *, ndim=None, shape=None) -> np.ndarray:
    """Return ``value`` as a float64 array, checking dimension, shape and finiteness.

    Parameters
    ----------
    name : str
        Parameter name used in the error message.
    value : array_like
        The input.
    ndim : int or tuple of int, optional
        Allowed number(s) of dimensions.
    shape : tuple, optional
        Required shape; ``None`` entries are wildcards.

    Examples
    --------
    >>> from ibcore.validation import finite_array
    >>> finite_array("y", [1, 2, 3], shape=(3,))
    array([1., 2., 3.])
    >>> finite_array("y", [1.0, float("nan")])
    Traceback (most recent call last):
        ...
    ValueError: y must be finite, got 1 NaN/inf entry
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real array, got {value!r}") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name} must have {want} dimension(s), got {_describe(value)}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != a for s, a in zip(shape, arr.shape)
        ):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise ValueError(f"{name} must have shape {want}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} NaN/inf entr{'y' if bad == 1 else 'ies'}")
    return arr


def positive_int(name: str, value) -> int:
    """Check that ``value`` is an integer >= 1 and return it as ``int``.

    Examples
    --------
    >>> from ibcore.validation import positive_int
    >>> positive_int("n", 3)
    3
    >>> positive_int("n", 0)
    Traceback (most recent call last):
        ...
    ValueError: n must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def nonnegative_int(name: str, value) -> int:
    """Check that ``value`` is an integer >= 0 and return it as ``int``.

    Examples
    --------
    >>> from ibcore.validation import nonnegative_int
    >>> nonnegative_int("k", 0)
    0
    >>> nonnegative_int("k", 1.5)
    Traceback (most recent call last):
        ...
    ValueError: k must be a non-negative integer, got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def positive_float(name: str, value) -> float:
    """Check that ``value`` is a finite real number > 0 and return it as ``float``.

    Examples
    --------
    >>> from ibcore.validation import positive_float
    >>> positive_float("lr", 1)
    1.0
    >>> positive_float("lr", -0.1)
    Traceback (most recent call last):
        ...
    ValueError: lr must be a positive finite number, got -0.1
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def nonnegative_float(name: str, value) -> float:
    """Check that ``value`` is a finite real number >= 0 and return it as ``float``.

    Examples
    --------
    >>> from ibcore.validation import nonnegative_float
    >>> nonnegative_float("noise", 0)
    0.0
    >>> nonnegative_float("noise", float("inf"))
    Traceback (most recent call last):
        ...
    ValueError: noise must be a non-negative finite number, got inf
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative finite number, got {value!r}")
    return float(value)


def orthonormal_columns(n: int, k: int, rng) -> np.ndarray:
    """An n × k matrix with orthonormal columns, Haar-distributed (k ≤ n).

    QR of a Gaussian matrix, with the signs of R's diagonal folded into Q so
    that the distribution is exactly Haar (plain QR is biased).

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore.validation import orthonormal_columns
    >>> U = orthonormal_columns(5, 2, np.random.default_rng(0))
    >>> U.shape, bool(np.allclose(U.T @ U, np.eye(2)))
    ((5, 2), True)
    """
    n, k = positive_int("n", n), positive_int("k", k)
    if k > n:
        raise ValueError(f"k must be at most n for orthonormal columns, got n={n}, k={k}")
    Q, R = np.linalg.qr(np.random.default_rng(rng).standard_normal((n, k)))
    return Q * np.sign(np.diag(R))
