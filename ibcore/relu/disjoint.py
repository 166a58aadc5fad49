r"""Several neurons with a disjoint activation pattern (chapter 6): their targets and the GD limit.

With m neurons of fixed signs :math:`s_j` and an *assignment* of each example to one neuron
(the sets :math:`S_j`, e.g. :func:`~ibcore.relu.sign_aligned_assignment`), a network that fits y
with the pattern of the assignment has neuron j active exactly on :math:`S_j`. Each neuron's
problem is then a one-neuron min-norm problem (:mod:`~ibcore.relu.min_norm`), solved in the
same dual. Everything here takes the Gram matrix :math:`K = XX^\top` and returns data-span
coefficients (:math:`w_j = X^\top\nu_j`).
"""
from __future__ import annotations

import numpy as np

from .._result import result
from ..validation import finite_array
from .gram import _validated_gram
from .min_norm import _bounded_dual, _solve, _solve_dual

__all__ = [
    "disjoint_targets_gram",
    "disjoint_closest_targets_gram",
    "disjoint_linear_limit_gram",
    "LinearLimit",
]


def _own_sets(y, assignment, signs):
    y = finite_array("y", y, ndim=1)
    signs = finite_array("signs", signs, ndim=1)
    a = finite_array("assignment", assignment, shape=(y.size,)).astype(np.int64)
    if a.min() < -1 or a.max() >= signs.size:
        raise ValueError(f"assignment entries must lie in [-1, m-1] = [-1, {signs.size - 1}], "
                         f"got range [{a.min()}, {a.max()}]")
    own = a[None, :] == np.arange(signs.size)[:, None]
    if np.any(own & (signs[:, None] * y[None, :] <= 0)):
        raise ValueError("every assigned example needs s_j y_i > 0 on its neuron j "
                         "(use sign_aligned_assignment)")
    return y, signs, own


def disjoint_targets_gram(K, y, assignment, signs) -> np.ndarray:
    r"""Per-neuron min-norm targets given the assignment, as coefficients :math:`w^\star_j = X^\top\nu_j`.

    :math:`w^\star_j = \operatorname{arg\,min}\lVert w\rVert` s.t. :math:`x_i\cdot w = s_jy_i` for
    :math:`i \in S_j` and :math:`x_i\cdot w \le 0` for :math:`i \notin S_j`, the min-norm ReLU solution
    (:func:`~ibcore.relu.min_norm_solution`) with labels :math:`s_jy` on :math:`S_j` and 0
    ("stay inactive") elsewhere.  Together they
    are the smallest network that fits y *with the pattern of the
    assignment*.  They are not the smallest network overall: splitting every
    label equally among the neurons of its sign divides the squared norm by
    about the number of such neurons (chapter 6).

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    y : array of shape (n,)
        Labels.
    assignment : array of int, shape (n,)
        Neuron of each example, or -1; every assigned example must satisfy
        :math:`s_jy_i > 0` (as :func:`~ibcore.relu.sign_aligned_assignment` ensures).
    signs : array of shape (m,)
        Output signs :math:`s_j`.

    Returns
    -------
    numpy.ndarray, shape (m, n)
        Coefficients :math:`\nu_j` of :math:`w^\star_j = X^\top\nu_j`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K, y, signs = np.eye(4), np.array([1.0, -1.0, 0.5, -0.5]), R.default_signs(2)
    >>> assignment = R.sign_aligned_assignment(y, signs)   # [0, 1, 0, 1]
    >>> print(R.disjoint_targets_gram(K, y, assignment, signs))
    [[1.  0.  0.5 0. ]
     [0.  1.  0.  0.5]]
    """
    K = _validated_gram(K)
    y, signs, own = _own_sets(y, assignment, signs)
    return np.stack([_solve(_solve_dual, "relu", np.where(own[j], signs[j] * y, 0.0), K=K).nu
                     for j in range(signs.size)])


def disjoint_closest_targets_gram(K, y, assignment, signs, alpha0) -> np.ndarray:
    r"""The network with the assignment's pattern closest to the initialisation, as coefficients.

    :math:`W^\circ = \operatorname{arg\,min}\lVert W - W(0)\rVert_F` over the networks that fit y
    with the pattern of the assignment, i.e. for each neuron j

    .. math::

        w^\circ_j = \operatorname{arg\,min}\lVert w - w_j(0)\rVert \ \text{ s.t. }\
        x_i\cdot w = s_jy_i \ (i \in S_j), \quad x_i\cdot w \le 0 \ (i \notin S_j),

    the projection of :math:`w_j(0)` onto the solution set of its pattern: the
    prologue's "interpolator closest to the initialisation", with the ReLU's
    inequality constraints.  Solved exactly in the dual, for :math:`v = w - w_j(0)`.
    When the GD run keeps the pattern, its limit
    (:func:`~ibcore.relu.disjoint_linear_limit_gram`) satisfies the inequalities, so it *is*
    this projection.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    y : array of shape (n,)
        Labels.
    assignment : array of int, shape (n,)
        Neuron of each example (the sets :math:`S_j`), or -1.
    signs : array of shape (m,)
        Output signs :math:`s_j`.
    alpha0 : array of shape (m, n)
        Coefficients of the initial weights, :math:`w_j(0) = X^\top\alpha_{0,j}`.

    Returns
    -------
    numpy.ndarray, shape (m, n)
        Coefficients of :math:`w^\circ_j = X^\top` ``coef[j]`` (they include ``alpha0``).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K, y, signs = np.eye(4), np.array([1.0, -1.0, 0.5, -0.5]), R.default_signs(2)
    >>> assignment = R.sign_aligned_assignment(y, signs)   # [0, 1, 0, 1]
    >>> alpha0 = R.disjoint_init_gram(K, assignment, m=2, b0=0.1)
    >>> print(np.round(R.disjoint_closest_targets_gram(K, y, assignment, signs, alpha0), 3))
    [[ 1.  -0.1  0.5 -0.1]
     [-0.1  1.  -0.1  0.5]]
    """
    K = _validated_gram(K)
    y, signs, own = _own_sets(y, assignment, signs)
    alpha0 = finite_array("alpha0", alpha0, shape=(signs.size, y.size))
    beta0 = alpha0 @ K
    targets = np.where(own, signs[:, None] * y[None, :], 0.0) - beta0
    return alpha0 + np.stack([_bounded_dual(K, targets[j], ~own[j], "K") for j in range(signs.size)])


@result
class LinearLimit:
    r"""The GD limit under a fixed disjoint pattern, as data-span coefficients (m, n):
    :math:`w = X^\top` ``coef``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K, y, signs = np.eye(4), np.array([1.0, -1.0, 0.5, -0.5]), R.default_signs(2)
    >>> assignment = R.sign_aligned_assignment(y, signs)
    >>> alpha0 = R.disjoint_init_gram(K, assignment, m=2, b0=0.1)
    >>> limit, frozen = R.disjoint_linear_limit_gram(K, y, assignment, signs, alpha0)
    >>> print(frozen)   # on orthogonal data, the initial weights off each neuron's own examples
    [[ 0.  -0.1  0.  -0.1]
     [-0.1  0.  -0.1  0. ]]
    """

    limit: np.ndarray
    r"""The limit :math:`w_j(\infty)`: the part of :math:`w_j(0)` that never moves plus
    :math:`X_S^\top K_{SS}^{-1} s_j y_S` (:func:`~ibcore.relu.disjoint_linear_limit_gram`)."""
    frozen: np.ndarray
    r""":math:`(I - P_{S_j})\,w_j(0)`, the part of the initialisation that never moves."""


def disjoint_linear_limit_gram(K, y, assignment, signs, alpha0) -> LinearLimit:
    r"""Where GD goes if the disjoint pattern never changes: (limit, frozen) coefficients, each (m, n).

    If neuron j stays active exactly on :math:`S_j`, it runs linear regression on :math:`S_j`
    from :math:`w_j(0) = X^\top\alpha_{0,j}` (the prologue's theorem, on the rows of :math:`S_j`),
    whose limit is :math:`w_j(0) + X_S^\top K_{SS}^{-1}(s_jy_S - \beta_S(0))`, i.e.

    .. math::

        w_j(\infty) = (I - P_{S_j})\,w_j(0) + X_S^\top K_{SS}^{-1} s_j y_S.

    The first term, the part of the initialisation orthogonal to the rows of
    :math:`S_j`, never moves (``frozen``); the second is the min-norm interpolator of
    the subset.  Both are returned as data-span coefficients (:math:`w = X^\top` ``coef``).

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    y : array of shape (n,)
        Labels.
    assignment : array of int, shape (n,)
        Neuron of each example (the sets :math:`S_j`), or -1.
    signs : array of shape (m,)
        Output signs :math:`s_j`.
    alpha0 : array of shape (m, n)
        Initial coefficients, e.g. :func:`~ibcore.relu.disjoint_init_gram`.

    Returns
    -------
    :class:`~ibcore.relu.LinearLimit`
        ``limit`` and ``frozen``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K, y, signs = np.eye(4), np.array([1.0, -1.0, 0.5, -0.5]), R.default_signs(2)
    >>> assignment = R.sign_aligned_assignment(y, signs)   # [0, 1, 0, 1]
    >>> alpha0 = R.disjoint_init_gram(K, assignment, m=2, b0=0.1)
    >>> print(np.round(R.disjoint_linear_limit_gram(K, y, assignment, signs, alpha0).limit, 3))
    [[ 1.  -0.1  0.5 -0.1]
     [-0.1  1.  -0.1  0.5]]
    """
    K = _validated_gram(K)
    y, signs, own = _own_sets(y, assignment, signs)
    alpha0 = finite_array("alpha0", alpha0, shape=(signs.size, y.size))
    beta0 = alpha0 @ K
    limit, frozen = alpha0.copy(), alpha0.copy()
    for j in range(signs.size):
        S = own[j]
        if S.any():
            K_SS = K[np.ix_(S, S)]
            frozen[j, S] -= np.linalg.solve(K_SS, beta0[j, S])  # remove P_S w_j(0)
            limit[j, S] += np.linalg.solve(K_SS, signs[j] * y[S] - beta0[j, S])
    return LinearLimit(limit, frozen)
