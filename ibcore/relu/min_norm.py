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

import numpy as np
import scipy.linalg
from scipy.optimize import lsq_linear

from .._result import result
from ..validation import finite_array
from .gram import _features_or_gram, _validated_gram, _x_y_or_k_doc

__all__ = ["min_norm_solution", "positive_subset_least_squares", "min_norm_pair", "disjoint_targets_gram",
           "disjoint_closest_targets_gram", "disjoint_linear_limit_gram"]


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
    """

    w: np.ndarray | None
    beta: np.ndarray
    nu: np.ndarray
    kkt_residual: float
    tight: np.ndarray
    loss: float
    problem: str


def _solve(X, K, y, dual, problem) -> MinNormSolution:
    """Validate (X or K, y), find ν with ``dual``(K, y, name) and assemble the solution."""
    X, K = _features_or_gram(X, K)
    K, name = (X @ X.T, "X") if X is not None else (K, "K")
    if y is None:
        raise ValueError("y (the labels) is required")
    y = finite_array("y", y, shape=(K.shape[0],))
    nu = dual(K, y, name)
    w = None if X is None else nu @ X
    beta = K @ nu if X is None else X @ w
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
    y_scale = max(np.abs(y).max(), np.finfo(float).tiny)
    nu_scale = max(np.abs(nu).max(), np.finfo(float).tiny)
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


def min_norm_solution(X=None, y=None, *, K=None) -> MinNormSolution:
    r"""The minimum-ℓ2-norm global minimiser :math:`w^\star` of the one-neuron ReLU square loss.

    .. math::

        w^\star = \operatorname{arg\,min}\lVert w\rVert \quad\text{s.t. }
        x_i\cdot w = y_i \ (y_i > 0), \quad x_i\cdot w \le 0 \ (y_i \le 0),

    solved exactly in the n-dimensional dual (see the module docstring):
    :math:`w^\star = X^\top\nu`, :math:`\beta^\star = K\nu`.

    The rows of X must be linearly independent (:math:`d \ge n`, K positive definite).

    Parameters
    ----------
    {x_y_or_k}

    Returns
    -------
    :class:`~ibcore.relu.min_norm.MinNormSolution`
        ``w`` (``None`` given ``K``: then :math:`w^\star = X^\top\nu` is known
        through ``nu``, and distances through :func:`~ibcore.relu.relative_gap`
        given ``K``), :math:`\beta^\star` = ``beta``, multipliers
        :math:`\nu` = ``nu``, ``kkt_residual``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.min_norm_solution(np.eye(3), np.array([1.0, -0.5, 2.0])).w)   # the negative label at 0
    [1. 0. 2.]
    """
    return _solve(X, K, y, _solve_dual, "relu")


_x_y_or_k_doc(min_norm_solution)


def _positive_subset_nu(K, y, name):
    pos = y > 0
    nu = np.zeros(y.size)
    if pos.any():
        nu[pos] = scipy.linalg.cho_solve(_cho(K[np.ix_(pos, pos)], name), y[pos])
    return nu


def positive_subset_least_squares(X=None, y=None, *, K=None) -> MinNormSolution:
    r"""Min-norm interpolator of the positive-label examples alone (the Theorem 1 comparison).

    :math:`w = X_+^\top (X_+X_+^\top)^{-1} y_+` with :math:`X_+` the rows with
    :math:`y_i > 0`, i.e. :math:`\nu_+ = K_{++}^{-1}y_+`. Unlike
    :func:`~ibcore.relu.min_norm_solution` it ignores the constraints
    :math:`x_i\cdot w \le 0` on the other examples, which it may violate
    (``beta`` shows by how much).

    Parameters
    ----------
    {x_y_or_k}

    Returns
    -------
    :class:`~ibcore.relu.min_norm.MinNormSolution`
        With ``problem="positive_subset"``, :math:`\nu = 0` off :math:`I_+`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.positive_subset_least_squares(np.eye(3), np.array([1.0, -0.5, 2.0])).w)
    [1. 0. 2.]
    """
    return _solve(X, K, y, _positive_subset_nu, "positive_subset")


_x_y_or_k_doc(positive_subset_least_squares)


def min_norm_pair(X=None, y=None, *, K=None) -> np.ndarray:
    r"""The two-neuron target :math:`(w^\star(y), w^\star(-y))`.

    For :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)` the positive neuron
    should fit y and the negative neuron -y (the "decoupling" of the seed
    summaries, unverified; chapter 4).

    Parameters
    ----------
    {x_y_or_k}

    Returns
    -------
    numpy.ndarray
        The weights, shape (2, d), given ``X``; the data-span coefficients
        :math:`(\nu(y), \nu(-y))`, shape (2, n), given ``K``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.min_norm_pair(np.eye(3), np.array([1.0, -0.5, 2.0])))   # w*(y) and w*(-y)
    [[1.  0.  2. ]
     [0.  0.5 0. ]]
    """
    field = "w" if K is None else "nu"
    minus_y = None if y is None else -np.asarray(y, float)
    return np.stack([getattr(min_norm_solution(X, y, K=K), field),
                     getattr(min_norm_solution(X, minus_y, K=K), field)])


_x_y_or_k_doc(min_norm_pair)


# ---------------------------------------------------------------------------
# several neurons with a disjoint activation pattern (chapter 5)


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
    about the number of such neurons (chapter 5).

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
    return np.stack([min_norm_solution(K=K, y=np.where(own[j], signs[j] * y, 0.0)).nu
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
    >>> alpha0 = R.disjoint_init(K=K, assignment=assignment, m=2, b0=0.1)
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
    :math:`w = X^\top` ``coef``."""

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
        Initial coefficients, e.g. :func:`~ibcore.relu.disjoint_init` with ``K``.

    Returns
    -------
    :class:`~ibcore.relu.min_norm.LinearLimit`
        ``limit`` and ``frozen``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K, y, signs = np.eye(4), np.array([1.0, -1.0, 0.5, -0.5]), R.default_signs(2)
    >>> assignment = R.sign_aligned_assignment(y, signs)   # [0, 1, 0, 1]
    >>> alpha0 = R.disjoint_init(K=K, assignment=assignment, m=2, b0=0.1)
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
