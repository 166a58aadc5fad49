r"""The minimum-ℓ2-norm global minimiser of the one-neuron ReLU regression loss.

With linearly independent rows :math:`x_i` (so :math:`d \ge n`), the global minimisers of
:math:`L(w) = \frac1{2n}\sum_i (\sigma(x_i\cdot w) - y_i)^2` are exactly the :math:`w` with

.. math::

    x_i\cdot w = y_i \ \text{ for } y_i > 0 \ (\text{the set } I_+), \qquad
    x_i\cdot w \le 0 \ \text{ for } y_i \le 0 \ (I_-),

and :math:`L_{\min} = \frac1{2n}\sum_{y_i<0} y_i^2`. The min-norm one,
:math:`w^\star = \operatorname{arg\,min}\lVert w\rVert` over that set, is what GD is compared with.
(That the paper compares with this :math:`w^\star`, rather than with the projection of :math:`w_0`,
is our reading of the abstract.)

Dual. The Lagrangian :math:`\frac12\lVert w\rVert^2 - \sum_i \nu_i (x_i\cdot w - \tilde y_i)`,
:math:`\tilde y = y\,\mathbb 1\{y > 0\}`, with :math:`\nu_i` free on :math:`I_+` and
:math:`\nu_i \le 0` on :math:`I_-`, gives :math:`w^\star = X^\top\nu` and the bounded problem

.. math::

    \nu = \operatorname{arg\,min}\ \tfrac12 \nu^\top K\nu - \tilde y\cdot\nu
    \quad\text{s.t. } \nu_i \le 0 \ (i \in I_-), \qquad K = XX^\top = LL^\top,

i.e. the bounded least-squares problem :math:`\min \frac12\lVert L^\top\nu - L^{-1}\tilde y\rVert^2`.
Its KKT conditions are those of :math:`w^\star`: :math:`\beta^\star = K\nu` satisfies
:math:`\beta^\star_{I_+} = y_{I_+}`, :math:`\beta^\star_{I_-} \le 0`, :math:`\nu_{I_-} \le 0` and
:math:`\nu_i \beta^\star_i = 0` (complementary slackness).

We solve it with the active-set method BVLS (``scipy.optimize.lsq_linear``),
which terminates on the exact solution of the final free set's equality
system: the KKT residual is at rounding level (≈1e-14 on random instances).
"""
from __future__ import annotations

import sys

import numpy as np
import scipy.linalg
from scipy.optimize import lsq_linear

from .._result import result
from ..validation import finite_array
from .gram import _validated_gram

__all__ = [
    "min_norm_solution",
    "min_norm_solution_gram",
    "positive_subset_least_squares",
    "positive_subset_least_squares_gram",
    "min_norm_pair",
    "min_norm_pair_gram",
    "MinNormSolution",
]


@result
class MinNormSolution:
    r"""A min-norm solution in primal :math:`(w, \beta)` and dual (:math:`\nu`) form.

    Attributes
    ----------
    w : numpy.ndarray of shape (d,) or None
        The weights, :math:`w = X^\top\nu` (``None`` when only K was given).
    beta : numpy.ndarray of shape (n,)
        Pre-activations :math:`\beta = Xw`.
    nu : numpy.ndarray of shape (n,)
        Multipliers / data-span coefficients: :math:`w = X^\top\nu`, :math:`\nu_i \le 0` on
        :math:`y_i \le 0`.
    kkt_residual : float
        Largest violation of the KKT conditions, made dimensionless: the largest of
        :math:`\lvert\beta_i - y_i\rvert` on :math:`I_+` and :math:`(\beta_i)_+` on :math:`I_-`,
        over :math:`\lVert y\rVert_\infty`; of :math:`(\nu_i)_+` on :math:`I_-`, over
        :math:`\lVert\nu\rVert_\infty`; and of :math:`\lvert\nu_i\beta_i\rvert` on :math:`I_-`,
        over :math:`\lVert\nu\rVert_\infty\lVert y\rVert_\infty`.
        For ``positive_subset_least_squares`` only the equalities on :math:`I_+` are part of the problem
        and counted.
    tight : numpy.ndarray of bool, shape (n,)
        Negative-label examples held at :math:`\beta_i = 0` by the constraint (:math:`\nu_i < 0`).
    loss : float
        One-neuron ReLU loss :math:`\frac1{2n}\sum_i (\sigma(\beta_i) - y_i)^2` at w; equals
        :math:`L_{\min}` for :func:`~ibcore.relu.min_norm_solution`.
    problem : str
        ``"relu"`` or ``"positive_subset"``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> sol = R.min_norm_solution(np.eye(3), np.array([1.0, -0.5, 2.0]))
    >>> print(sol.nu, sol.tight, sol.kkt_residual < 1e-12)
    [1. 0. 2.] [False False False] True
    """

    w: np.ndarray | None
    beta: np.ndarray
    nu: np.ndarray
    kkt_residual: float
    tight: np.ndarray
    loss: float
    problem: str


def _solve(dual, problem, y, *, X=None, K=None) -> MinNormSolution:
    """Find ν with ``dual``(K, y, name) from the validated features X or Gram matrix K, and assemble the solution."""
    K, name = (X @ X.T, "X") if X is not None else (K, "K")
    y = finite_array("y", y, shape=(len(K),))
    nu = dual(K, y, name)
    w = None if X is None else nu @ X
    beta = K @ nu   # = X w
    pos = y > 0
    return MinNormSolution(
        w=w, beta=beta, nu=nu, kkt_residual=_kkt(beta, nu, y, pos, inequalities=problem == "relu"),
        tight=~pos & (nu < 0), loss=_relu_loss(beta, y), problem=problem)


def _cho(K, name):
    try:
        return scipy.linalg.cho_factor(K, lower=True)
    except scipy.linalg.LinAlgError as exc:
        raise ValueError(
            f"{name} must give a positive definite Gram matrix (linearly independent examples, "
            f"so d >= n); the min-norm problem is not well posed otherwise") from exc


def _kkt(beta, nu, y, pos, *, inequalities=True):
    y_scale = max(np.abs(y).max(), sys.float_info.min)   # the smallest normal float: 0/0 never happens
    nu_scale = max(np.abs(nu).max(), sys.float_info.min)
    terms = [np.abs(beta[pos] - y[pos]).max(initial=0.0) / y_scale]
    if inequalities:
        neg = ~pos
        terms += [
            max(beta[neg].max(initial=0.0), 0.0) / y_scale,
            max(nu[neg].max(initial=0.0), 0.0) / nu_scale,
            np.abs(nu[neg] * beta[neg]).max(initial=0.0) / (nu_scale * y_scale),
        ]
    return float(max(terms))


def _relu_loss(beta, y):
    r = np.maximum(beta, 0.0) - y
    return float(r @ r) / (2 * y.size)


def _bounded_dual(K, target, inequality, name):
    r""":math:`\nu = \operatorname{arg\,min}\ \tfrac12\nu^\top K\nu - t\cdot\nu` s.t. :math:`\nu_i \le 0`
    where ``inequality``: the dual of :math:`\min \tfrac12\lVert v\rVert^2` s.t. :math:`x_i\cdot v = t_i`
    (equalities), :math:`x_i\cdot v \le t_i` (inequalities), :math:`v = X^\top\nu`."""
    c, lower = _cho(K, name)
    L = np.tril(c)
    rhs = scipy.linalg.solve_triangular(L, target, lower=True)
    upper = np.where(inequality, 0.0, np.inf)
    # BVLS (Stark & Parker) is a finite active-set method: it ends on the exact
    # solution of the equality system of its final free set, so ν is exact up to rounding.
    return lsq_linear(L.T, rhs, bounds=(-np.inf, upper), method="bvls", tol=1e-12).x


def _solve_dual(K, y, name):
    """ν for the min-norm ReLU interpolator, from the Gram matrix K."""
    pos = y > 0
    if not pos.any():
        return np.zeros(y.size)  # w* = 0 satisfies every constraint
    return _bounded_dual(K, np.where(pos, y, 0.0), ~pos, name)


def min_norm_solution(X, y) -> MinNormSolution:
    r"""The minimum-ℓ2-norm global minimiser :math:`w^\star` of the one-neuron ReLU square loss.

    .. math::

        w^\star = \operatorname{arg\,min}\lVert w\rVert \quad\text{s.t. }
        x_i\cdot w = y_i \ (y_i > 0), \quad x_i\cdot w \le 0 \ (y_i \le 0),

    solved exactly in the n-dimensional dual (see the module docstring):
    :math:`w^\star = X^\top\nu`, :math:`\beta^\star = K\nu`.

    The rows of X must be linearly independent (:math:`d \ge n`, K positive definite).

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    :class:`~ibcore.relu.MinNormSolution`
        :math:`w^\star` = ``w``, :math:`\beta^\star` = ``beta``, multipliers
        :math:`\nu` = ``nu``, ``kkt_residual``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.min_norm_solution(np.eye(3), np.array([1.0, -0.5, 2.0])).w)   # the negative label at 0
    [1. 0. 2.]
    """
    return _solve(_solve_dual, "relu", y, X=finite_array("X", X, ndim=2))


def min_norm_solution_gram(K, y) -> MinNormSolution:
    r""":func:`~ibcore.relu.min_norm_solution` from the Gram matrix :math:`K = XX^\top` alone.

    The solution is known through its coefficients, :math:`w^\star = X^\top\nu`, and
    distances through :func:`~ibcore.relu.relative_gap_gram`.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix, positive definite.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    :class:`~ibcore.relu.MinNormSolution`
        With ``w = None``; :math:`\nu` = ``nu``, :math:`\beta^\star = K\nu` = ``beta``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> star = R.min_norm_solution_gram(4.0 * np.eye(3), np.array([1.0, -0.5, 2.0]))   # X = 2 I
    >>> print(star.nu, star.beta)
    [0.25 0.   0.5 ] [1. 0. 2.]
    """
    return _solve(_solve_dual, "relu", y, K=_validated_gram(K))


def _positive_subset_nu(K, y, name):
    pos = y > 0
    nu = np.zeros(y.size)
    if pos.any():
        nu[pos] = scipy.linalg.cho_solve(_cho(K[np.ix_(pos, pos)], name), y[pos])
    return nu


def positive_subset_least_squares(X, y) -> MinNormSolution:
    r"""Min-norm interpolator of the positive-label examples alone (the Theorem 1 comparison).

    :math:`w = X_+^\top (X_+X_+^\top)^{-1} y_+` with :math:`X_+` the rows with
    :math:`y_i > 0`, i.e. :math:`\nu_+ = K_{++}^{-1}y_+`. Unlike
    :func:`~ibcore.relu.min_norm_solution` it ignores the constraints
    :math:`x_i\cdot w \le 0` on the other examples, which it may violate
    (``beta`` shows by how much).

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    :class:`~ibcore.relu.MinNormSolution`
        With ``problem="positive_subset"``, :math:`\nu = 0` off :math:`I_+`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.positive_subset_least_squares(np.eye(3), np.array([1.0, -0.5, 2.0])).w)
    [1. 0. 2.]
    """
    return _solve(_positive_subset_nu, "positive_subset", y, X=finite_array("X", X, ndim=2))


def positive_subset_least_squares_gram(K, y) -> MinNormSolution:
    r""":func:`~ibcore.relu.positive_subset_least_squares` from the Gram matrix alone: :math:`\nu_+ = K_{++}^{-1}y_+`.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    :class:`~ibcore.relu.MinNormSolution`
        With ``w = None`` and ``problem="positive_subset"``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.positive_subset_least_squares_gram(np.eye(3), np.array([1.0, -0.5, 2.0])).nu)
    [1. 0. 2.]
    """
    return _solve(_positive_subset_nu, "positive_subset", y, K=_validated_gram(K))


def min_norm_pair(X, y) -> np.ndarray:
    r"""The two-neuron target :math:`(w^\star(y), w^\star(-y))`.

    For :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)` the positive neuron
    should fit y and the negative neuron -y (the "decoupling" of the seed
    summaries, unverified; chapter 5).

    Parameters
    ----------
    X : array of shape (n, d)
        Features, one example per row.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    numpy.ndarray
        The weights, shape (2, d).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.min_norm_pair(np.eye(3), np.array([1.0, -0.5, 2.0])))   # w*(y) and w*(-y)
    [[1.  0.  2. ]
     [0.  0.5 0. ]]
    """
    return np.stack([min_norm_solution(X, labels).w for labels in _both_signs(y)])


def min_norm_pair_gram(K, y) -> np.ndarray:
    r"""The two-neuron target of :func:`~ibcore.relu.min_norm_pair` as coefficients :math:`(\nu(y), \nu(-y))`.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`.
    y : array of shape (n,)
        Labels.

    Returns
    -------
    numpy.ndarray
        The data-span coefficients, shape (2, n): :math:`w^\star(\pm y) = X^\top\nu(\pm y)`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.min_norm_pair_gram(np.eye(3), np.array([1.0, -0.5, 2.0])))
    [[1.  0.  2. ]
     [0.  0.5 0. ]]
    """
    return np.stack([min_norm_solution_gram(K, labels).nu for labels in _both_signs(y)])


def _both_signs(y):
    """y and -y, for the two neurons of the pair (its shape is checked by the solver)."""
    y = finite_array("y", y)
    return y, -y
