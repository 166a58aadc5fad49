"""Initial conditions shared by SGD and the ODEs.

* :func:`~ibcore.quadratic.random_init` draws a teacher :math:`W^*` with :math:`T = W^*W^{*T}/N = I`
  exactly (needed for the exact conservation of the frame :math:`S`, §5 of the
  notes) and a student :math:`W_0 = c\\,Q_r W^* + \\sqrt{q_0}\\,G`
  (G standard Gaussian); ``informative = c > 0`` gives the :math:`O(1)`
  initial overlap that SGD-vs-ODE *trajectory* comparisons need (addendum of
  the notes), ``informative = 0`` the usual random start with
  :math:`R(0) = O(N^{-1/2})`.
* :func:`~ibcore.quadratic.initial_overlaps` samples the ODE initial condition of a random start
  directly, without weights, so that N can be 10⁷ or more.

Run the ODE from ``overlaps(W0, W_star)`` to start it from exactly the
finite-N point an SGD run starts from.
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import nonnegative_float, orthonormal_columns, positive_float, positive_int
from .order_parameters import Overlaps, _validated_sizes

__all__ = ["random_frame", "random_init", "initial_overlaps", "StudentTeacher"]


@result
class StudentTeacher:
    """Student and teacher first-layer weights.

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> W0, W_star = q.random_init(3, 2, 1000, rng=0)
    >>> W0.shape, W_star.shape
    ((3, 1000), (2, 1000))
    """

    W: np.ndarray
    """Student weights, shape (p, N)."""
    W_star: np.ndarray
    """Teacher weights, shape (p_star, N)."""


def _orthonormal_teacher(p_star, N, *, rng=None):
    """Teacher weights with exactly orthonormal rows scaled by √N, so that :math:`T = I_{p^*}`.

    The teacher of :func:`~ibcore.quadratic.random_init`, which is how users get one.

    Parameters
    ----------
    p_star : int
        Teacher width.
    N : int
        Input dimension, ``N >= p_star``.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, shape (p_star, N)
    """
    p_star = positive_int("p_star", p_star)
    N = positive_int("N", N)
    if N < p_star:
        raise ValueError(f"N must be at least p_star = {p_star}, got {N!r}")
    rng = np.random.default_rng(rng)
    return np.sqrt(N) * orthonormal_columns(N, p_star, rng).T


def random_frame(p, p_star, *, rng=None):
    """A Haar-random :math:`p\\times p^*` matrix with orthonormal columns (orthonormal rows if p < p*).

    The frames :math:`Q_r` of :func:`~ibcore.quadratic.random_init` and S of the zero-loss
    manifold, :math:`W = \\sqrt{p/p^*}\\,SW^*` (:func:`~ibcore.quadratic.critical_point`).

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths: the number of rows and of columns.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray, shape (p, p_star)
        :math:`S^TS = I_{p^*}` if :math:`p \\ge p^*`, else :math:`SS^T = I_p`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> S = q.random_frame(4, 2, rng=0)
    >>> S.shape, bool(np.allclose(S.T @ S, np.eye(2)))
    ((4, 2), True)
    """
    p, p_star = _validated_sizes(p, p_star)
    rng = np.random.default_rng(rng)
    if p >= p_star:
        return orthonormal_columns(p, p_star, rng)
    return orthonormal_columns(p_star, p, rng).T


def random_init(p, p_star, N, *, q0=1.0, informative=0.0, rng=None):
    """Student and teacher weights for an SGD run.

    .. math::

        W^* = \\sqrt N\\,(\\text{orthonormal rows}),\\qquad
        W_0 = c\\,Q_r W^* + \\sqrt{q_0}\\,G,\\quad G_{in}\\sim\\mathcal N(0,1),

    with :math:`Q_r` a random :math:`p\\times p^*` matrix with orthonormal
    columns and :math:`c` = ``informative``. Then :math:`T = I` exactly,
    :math:`R(0) = c\\,Q_r + O(N^{-1/2})` and
    :math:`Q(0) = q_0 I + c^2 Q_rQ_r^T + O(N^{-1/2})`.

    Parameters
    ----------
    p, p_star, N : int
        Student width, teacher width, input dimension (``N >= p_star``).
    q0 : float
        Variance of the random part of the student weights.
    informative : float
        Size :math:`c \\ge 0` of the built-in teacher overlap. Use e.g. 0.3 to
        compare a single SGD run with the ODE trajectory.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    :class:`~ibcore.quadratic.StudentTeacher`
        ``W`` (p, N), the student, and ``W_star`` (p_star, N); unpacks as
        ``W0, W_star``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W0, W_star = q.random_init(3, 2, 1000, informative=0.3, rng=0)
    >>> W0.shape, W_star.shape
    ((3, 1000), (2, 1000))
    >>> Q, R, T = q.overlaps(W0, W_star)
    >>> print(np.round(np.diag(Q), 2))   # q0 = 1
    [1.04 1.06 1.04]
    """
    p, p_star, N = _validated_sizes(p, p_star, N)
    q0 = positive_float("q0", q0)
    informative = nonnegative_float("informative", informative)
    rng = np.random.default_rng(rng)
    W_star = _orthonormal_teacher(p_star, N, rng=rng)
    W0 = np.sqrt(q0) * rng.standard_normal((p, N))
    if informative:
        W0 += informative * random_frame(p, p_star, rng=rng) @ W_star
    return StudentTeacher(W0, W_star)


def initial_overlaps(p, p_star, N, *, q0=1.0, rng=None):
    """ODE initial condition of a random start, without drawing weights.

    Gaussian weights :math:`w_i\\sim\\mathcal N(0, q_0 I_N)` and an orthonormal
    teacher give :math:`R_{ik}(0) = w_i\\cdot w^*_k/N\\sim\\mathcal N(0, q_0/N)`
    exactly and :math:`Q(0) = q_0 I + O(N^{-1/2})`; here :math:`Q(0)` is set to
    :math:`q_0 I` (the isotropic start for which the frame :math:`S` is conserved
    and the reduced system of :mod:`~ibcore.quadratic.reduced` is exact).

    Parameters
    ----------
    p, p_star, N : int
        Student width, teacher width, input dimension (any size, e.g. 10⁹).
    q0 : float
        Initial weight variance.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    :class:`~ibcore.quadratic.Overlaps`
        ``Q`` (p, p) :math:`= q_0 I`, ``R`` (p, p_star) and ``T``, the
        identity; unpacks as ``Q0, R0, T``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> Q0, R0, T = q.initial_overlaps(3, 2, 10_000, rng=0)
    >>> Q0.shape, R0.shape
    ((3, 3), (3, 2))
    >>> print(f"{np.abs(R0).max():.3f}")   # R(0) of order 1/sqrt(N)
    0.006
    """
    p, p_star, N = _validated_sizes(p, p_star, N)
    q0 = positive_float("q0", q0)
    rng = np.random.default_rng(rng)
    R0 = np.sqrt(q0 / N) * rng.standard_normal((p, p_star))
    return Overlaps(q0 * np.eye(p), R0, np.eye(p_star))
