r"""The minimum-ℓ2-norm global minimiser of the one-neuron ReLU regression loss.

With linearly independent rows x_i (so d ≥ n), the global minimisers of
L(w) = (1/2n) Σ_i (σ(x_i·w) - y_i)² are exactly the w with

    x_i·w = y_i  for y_i > 0   (the set I₊),      x_i·w ≤ 0  for y_i ≤ 0   (I₋),

and L_min = (1/2n) Σ_{y_i<0} y_i².  The min-norm one, w* = argmin ‖w‖ over that
set, is what GD is compared with.  (That the paper compares with this w*,
rather than with the projection of w_0, is our reading of the abstract.)

Dual.  The Lagrangian ½‖w‖² - Σ_i ν_i (x_i·w - ỹ_i), ỹ = y·1{y > 0}, with ν_i
free on I₊ and ν_i ≤ 0 on I₋, gives w* = Xᵀν and the bounded problem

    ν = argmin ½ νᵀKν - ỹ·ν   s.t. ν_i ≤ 0 (i ∈ I₋),     K = X Xᵀ = L Lᵀ,

i.e. the bounded least-squares problem min ½‖Lᵀν - L⁻¹ỹ‖².  Its KKT
conditions are those of w*: β* = Kν satisfies β*_{I₊} = y_{I₊}, β*_{I₋} ≤ 0,
ν_{I₋} ≤ 0 and ν_i β*_i = 0 (complementary slackness).

We solve it with the active-set method BVLS (``scipy.optimize.lsq_linear``),
which terminates on the exact solution of the final free set's equality
system: the KKT residual is at rounding level (≈1e-14 on random instances).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.optimize import lsq_linear

from ..validation import finite_array
from .gram import validated_gram

__all__ = [
    "MinNormSolution",
    "min_norm_solution",
    "min_norm_solution_gram",
    "positive_subset_least_squares",
    "positive_subset_least_squares_gram",
    "min_norm_pair",
    "min_norm_pair_gram",
]

@dataclass
class MinNormSolution:
    """A min-norm solution in primal (w, β) and dual (ν) form.

    Attributes
    ----------
    w : numpy.ndarray of shape (d,) or None
        The weights, w = Xᵀν (``None`` when only K was given).
    beta : numpy.ndarray of shape (n,)
        Pre-activations β = X w.
    nu : numpy.ndarray of shape (n,)
        Multipliers / data-span coefficients: w = Xᵀν, ν_i ≤ 0 on y_i ≤ 0.
    kkt_residual : float
        Largest violation of the KKT conditions, made dimensionless:
        max(|β_i - y_i| on I₊, (β_i)₊ on I₋)/‖y‖∞, (ν_i)₊ on I₋ / ‖ν‖∞ and
        |ν_i β_i| on I₋ /(‖ν‖∞‖y‖∞). For ``positive_subset_least_squares`` only
        the equalities on I₊ are part of the problem and counted.
    tight : numpy.ndarray of bool, shape (n,)
        Negative-label examples held at β_i = 0 by the constraint (ν_i < 0).
    loss : float
        One-neuron ReLU loss (1/2n) Σ (σ(β_i) - y_i)² at w; equals L_min for
        :func:`min_norm_solution`.
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


def _inputs(X, y):
    X = finite_array("X", X, ndim=2)
    y = finite_array("y", y, shape=(X.shape[0],))
    return X, y


def _gram_inputs(K, y):
    K = validated_gram(K)
    y = finite_array("y", y, shape=(K.shape[0],))
    return K, y


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


def _solve_dual(K, y, name):
    """ν for the min-norm ReLU interpolator, from the Gram matrix K."""
    n = y.size
    pos = y > 0
    if not pos.any():
        return np.zeros(n)  # w* = 0 satisfies every constraint
    target = np.where(pos, y, 0.0)
    c, lower = _cho(K, name)
    L = np.tril(c)
    rhs = scipy.linalg.solve_triangular(L, target, lower=True)
    upper = np.where(pos, np.inf, 0.0)
    # BVLS (Stark & Parker) is a finite active-set method: it ends on the exact
    # solution of the equality system of its final free set, so ν is exact up to rounding.
    return lsq_linear(L.T, rhs, bounds=(-np.inf, upper), method="bvls", tol=1e-12).x


def _solution(nu, beta, y, w, problem):
    pos = y > 0
    return MinNormSolution(
        w=w, beta=beta, nu=nu, kkt_residual=_kkt(beta, nu, y, pos, inequalities=problem == "relu"),
        tight=~pos & (nu < 0), loss=_relu_loss(beta, y), problem=problem)


def min_norm_solution(X, y) -> MinNormSolution:
    """The minimum-ℓ2-norm global minimiser w* of the one-neuron ReLU square loss.

    w* = argmin ‖w‖ s.t. x_i·w = y_i (y_i > 0), x_i·w ≤ 0 (y_i ≤ 0), solved
    exactly in the n-dimensional dual (see the module docstring).

    Parameters
    ----------
    X : array of shape (n, d)
        Features with linearly independent rows (d ≥ n).
    y : array of shape (n,)
        Labels.

    Returns
    -------
    MinNormSolution
        ``w``, ``beta = X w``, multipliers ``nu`` (w = Xᵀν), ``kkt_residual``.
    """
    X, y = _inputs(X, y)
    nu = _solve_dual(X @ X.T, y, "X")
    w = nu @ X
    return _solution(nu, X @ w, y, w, "relu")


def min_norm_solution_gram(K, y) -> MinNormSolution:
    """:func:`min_norm_solution` from the Gram matrix K = X Xᵀ alone (``w`` is ``None``).

    The weights are w* = Xᵀ ν; distances between such vectors are quadratic
    forms in K (:func:`~ibcore.relu.metrics.relative_gap_gram`).
    """
    K, y = _gram_inputs(K, y)
    nu = _solve_dual(K, y, "K")
    return _solution(nu, K @ nu, y, None, "relu")


def _positive_subset_nu(K, y, name):
    pos = y > 0
    nu = np.zeros(y.size)
    if pos.any():
        nu[pos] = scipy.linalg.cho_solve(_cho(K[np.ix_(pos, pos)], name), y[pos])
    return nu


def positive_subset_least_squares(X, y) -> MinNormSolution:
    """Min-norm interpolator of the positive-label examples alone (the Theorem 1 comparison).

    w = X₊ᵀ (X₊X₊ᵀ)⁻¹ y₊ with X₊ the rows with y_i > 0. Unlike
    :func:`min_norm_solution` it ignores the constraints x_i·w ≤ 0 on the
    other examples, which it may violate (``beta`` shows by how much).

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)

    Returns
    -------
    MinNormSolution
        With ``problem="positive_subset"``, ν = 0 off I₊.
    """
    X, y = _inputs(X, y)
    nu = _positive_subset_nu(X @ X.T, y, "X")
    w = nu @ X
    return _solution(nu, X @ w, y, w, "positive_subset")


def positive_subset_least_squares_gram(K, y) -> MinNormSolution:
    """:func:`positive_subset_least_squares` from the Gram matrix alone (``w`` is ``None``)."""
    K, y = _gram_inputs(K, y)
    nu = _positive_subset_nu(K, y, "K")
    return _solution(nu, K @ nu, y, None, "positive_subset")


def min_norm_pair(X, y) -> np.ndarray:
    """The two-neuron target (w*(y), w*(-y)), shape (2, d).

    For f = σ(w₊·x) - σ(w₋·x) the positive neuron should fit y and the
    negative neuron -y (the "decoupling" of the notes, unverified against the paper).
    """
    return np.stack([min_norm_solution(X, y).w, min_norm_solution(X, -np.asarray(y, float)).w])


def min_norm_pair_gram(K, y) -> np.ndarray:
    """Dual coefficients (ν(y), ν(-y)) of :func:`min_norm_pair`, shape (2, n)."""
    return np.stack([min_norm_solution_gram(K, y).nu,
                     min_norm_solution_gram(K, -np.asarray(y, float)).nu])
