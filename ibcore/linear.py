"""The prologue: gradient descent on underdetermined least squares.

For :math:`X\\in\\mathbb R^{n\\times d}` of rank :math:`n < d`, the loss
:math:`L(w) = \\frac{1}{2n}\\lVert Xw - y\\rVert^2` has a whole affine
subspace of minimisers. Gradient descent from :math:`w_0` stays in
:math:`w_0 + \\operatorname{row}(X)` and converges to

.. math:: w_\\infty = X^\\top K^{-1} y + (I - P_X) w_0, \\qquad K = XX^\\top,

the interpolator closest to :math:`w_0`; from :math:`w_0 = 0` it is the
minimum-norm interpolator :math:`w^\\star = X^\\top K^{-1} y`.
"""
from __future__ import annotations

import numpy as np

from .validation import finite_array

__all__ = ["min_norm_interpolator", "gd_limit", "row_space_projection", "least_squares_stability_bound",
           "least_squares_gd"]


def _gram_cholesky(X: np.ndarray) -> np.ndarray:
    K = X @ X.T
    try:
        return np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        raise ValueError(f"X must have linearly independent rows (rank n = {X.shape[0]}); "
                         "its Gram matrix K = X X^T is singular") from None


def _solve_gram(X: np.ndarray, b: np.ndarray) -> np.ndarray:
    from scipy.linalg import cho_solve

    return cho_solve((_gram_cholesky(X), True), b)


def min_norm_interpolator(X, y) -> np.ndarray:
    """The minimum-:math:`\\ell_2`-norm solution of :math:`Xw = y`, :math:`w^\\star = X^\\top K^{-1}y`.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Data, rows linearly independent (so :math:`n \\le d`).
    y : array_like, shape (n,)
        Targets.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore import linear
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> y = np.array([1.0, 2.0])
    >>> w = linear.min_norm_interpolator(X, y)
    >>> print(np.round(w, 4) + 0.0, np.allclose(X @ w, y))
    [0. 1. 1.] True
    """
    X = finite_array("X", X, ndim=2)
    y = finite_array("y", y, shape=(X.shape[0],))
    return X.T @ _solve_gram(X, y)


def row_space_projection(X, v) -> np.ndarray:
    """:math:`P_X v = X^\\top K^{-1} X v`, the projection of ``v`` onto the row space of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore import linear
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> y = np.array([1.0, 2.0])
    >>> print(np.round(linear.row_space_projection(X, np.array([1.0, -1.0, 0.0])), 4) + 0.0)
    [ 1. -1.  0.]
    """
    X = finite_array("X", X, ndim=2)
    v = finite_array("v", v, shape=(X.shape[1],))
    return X.T @ _solve_gram(X, X @ v)


def gd_limit(X, y, w0) -> np.ndarray:
    """The limit of gradient descent from ``w0``: :math:`X^\\top K^{-1}y + (I - P_X)w_0`.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore import linear
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> y = np.array([1.0, 2.0])
    >>> w0 = np.array([0.0, 0.0, 3.0])
    >>> print(np.round(linear.gd_limit(X, y, w0), 4) + 0.0)
    [-1.  0.  2.]
    """
    X = finite_array("X", X, ndim=2)
    y = finite_array("y", y, shape=(X.shape[0],))
    w0 = finite_array("w0", w0, shape=(X.shape[1],))
    return w0 + X.T @ _solve_gram(X, y - X @ w0)


def least_squares_stability_bound(X) -> float:
    """Largest stable step size :math:`2n/\\mu_{\\max}(K)` of GD on :math:`L(w)=\\frac1{2n}\\lVert Xw-y\\rVert^2`.

    The loss is quadratic with Hessian :math:`K/n` in the row space, and GD on
    a quadratic is stable iff the step is below 2 / (largest Hessian
    eigenvalue). This is the bound that :func:`ibcore.relu.gradient_descent` checks, with one
    neuron, where it is exact (for m neurons that bound is only sufficient).

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore import linear
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> y = np.array([1.0, 2.0])
    >>> print(round(linear.least_squares_stability_bound(X), 4))   # 2n / mu_max(K)
    1.3333
    """
    from .relu.stability import _stability_bound

    X = finite_array("X", X, ndim=2)
    return _stability_bound(X @ X.T, m=1)


def least_squares_gd(X, y, w0, *, lr, max_steps=100_000, tol=1e-12, record_every=None, check_stability=True):
    """Gradient descent on least squares: the ReLU solver with the identity activation.

    Same arguments and result (:class:`ibcore.relu.GDResult`) as
    :func:`ibcore.relu.gradient_descent` with one neuron and
    :math:`\\sigma(z) = z`, whose primal--dual iteration
    :math:`w_t = w_0 + X^\\top\\alpha_t`, :math:`\\beta_{t+1} = \\beta_t - \\frac{\\eta}{n}K(\\beta_t - y)`
    is exactly the derivation of the prologue.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore import linear
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    >>> y = np.array([1.0, 2.0])
    >>> res = linear.least_squares_gd(X, y, np.zeros(3), lr=0.5)
    >>> print(np.round(res.w, 6) + 0.0)   # the min-norm interpolator, from w0 = 0
    [0. 1. 1.]
    """
    from .relu import gradient_descent as _gd

    return _gd(X, y, w0, lr=lr, max_steps=max_steps, tol=tol, record_every=record_every,
               activation="identity", check_stability=check_stability)
