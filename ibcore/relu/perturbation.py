r"""First order in the cross-talk: where one neuron's GD and w* put the negative examples.

Write :math:`K = d(I + E)` with :math:`E = K/d - I`, whose off-diagonal entries
:math:`\varepsilon_{ij}` are the cross-talk (of size :math:`1/\sqrt d` for isotropic data;
chapter 2's Gram lemma).  On orthogonal data (:math:`E = 0`) GD from :math:`\beta(0) = b_0\mathbf 1`
fits the positive labels, and a negative label :math:`y_i` freezes at 0 at the time :math:`T_i`
when the self-term alone brings it there,
:math:`e^{-cT_i} = \rho_i := |y_i|/(b_0 + |y_i|)` (gradient flow).
To first order in E (our derivation, chapter 3):

* **GD.**  After :math:`T_i`, example i moves only through the cross-talk of the
  examples still active.  A positive j still has the residual
  :math:`(b_0 - y_j)\rho_i` left to shed, a negative j that freezes later
  (:math:`|y_j| < |y_i|`) still has :math:`b_0(|y_i| - |y_j|)/(b_0 + |y_i|)`.  Their
  cross-talk moves :math:`\beta_i` from 0 to their sum, and a move above 0 re-activates
  i, which the self-term clips back to 0:

  .. math::

      \begin{aligned}
      \beta_i^{GD} \approx \min\Big(0,\ &\rho_i \sum_{j\in I_+} \varepsilon_{ij}(y_j - b_0)\\
      &- \sum_{j\in I_-,\,|y_j|<|y_i|} \varepsilon_{ij}\, b_0\,\frac{|y_i| - |y_j|}{b_0 + |y_i|}\Big).
      \end{aligned}

* **w*.**  The positive-subset fit predicts
  :math:`\beta_i^{PLS} \approx \sum_{j\in I_+} \varepsilon_{ij} y_j` on a
  negative example; w* keeps it where it is negative (slack) and pins it at 0
  where it is positive (tight): :math:`\beta^*_i \approx \min(0, \beta_i^{PLS})`.

Both arguments of the min differ by :math:`\frac{b_0}{b_0 + |y_i|}\,G_i` with

.. math::

    \begin{aligned}
    G_i = &\sum_{j\in I_+} \varepsilon_{ij}(y_j + |y_i|)\\
    &+ \sum_{j\in I_-,\,|y_j|<|y_i|} \varepsilon_{ij}(|y_i| - |y_j|),
    \end{aligned}

a sum of O(n) cross-terms: the mismatch, and with it the gap, vanishes as
:math:`b_0 \to 0` and is of order :math:`\sqrt{n/d}` for :math:`b_0 = \Theta(1)`.
Summed over many examples, the first-order gap divided by :math:`\sqrt{n/d}` concentrates on
a constant of :math:`b_0` alone, :func:`~ibcore.relu.first_order_constant`.
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, positive_float
from .gram import _validated_gram
from .teacher import _relu_pair_mean_square

__all__ = ["first_order_limit", "first_order_gap", "first_order_constant", "FirstOrderLimit"]


@result
class FirstOrderLimit:
    """Pre-activations (n,) at first order in the cross-talk; only the negative labels differ from y.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> first = R.first_order_limit(100.0 * np.eye(3), np.array([1.0, -0.5, 2.0]))
    >>> bool(np.allclose(first.gd, first.star))   # no cross-talk: GD's limit is w*
    True
    """

    gd: np.ndarray
    r"""β of the one-neuron GD limit from :math:`\beta(0) = b_0\mathbf 1` (gradient flow)."""
    star: np.ndarray
    """β* of the min-norm solution w*."""


def first_order_limit(K, y, *, b0=1.0) -> FirstOrderLimit:
    r"""The GD limit and :math:`w^\star` to first order in the cross-talk :math:`\varepsilon = K/d - I`.

    The formulas are those of the module docstring (:mod:`ibcore.relu.perturbation`).

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix; d is taken as :math:`\mathrm{mean}_i K_{ii}` (:math:`= \lVert\lambda\rVert_1` on average).
    y : array of shape (n,)
        Labels.
    b0 : float
        Initial pre-activation :math:`b_0` of the all-active start.

    Returns
    -------
    :class:`~ibcore.relu.FirstOrderLimit`
        ``gd`` and ``star``: y on the positive labels, the formulas above on the others.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> n, d = 10, 10**6
    >>> K = R.sample_gram(n, d, rng=0)
    >>> y = R.sample_labels(n, rng=1)
    >>> first = R.first_order_limit(K, y)
    >>> print(f"{R.norm_gram(K, first.gd - first.star) / R.norm_gram(K, first.star):.4f}")
    0.0006
    """
    K = _validated_gram(K)
    y = finite_array("y", y, shape=(K.shape[0],))
    b0 = positive_float("b0", b0)
    eps = K / np.mean(np.diag(K))
    np.fill_diagonal(eps, 0.0)
    pos, neg = y > 0, y <= 0
    u = np.abs(y)
    rho = u / (b0 + u)                                 # e^{-c T_i}: the positives' residual left at T_i
    from_pos = rho * (eps[:, pos] @ (y[pos] - b0))
    later = neg[None, :] & (u[None, :] < u[:, None])   # later[i, j]: negative j freezes after i
    left = np.where(later, b0 * (u[:, None] - u[None, :]) / (b0 + u[:, None]), 0.0)
    from_neg = -np.sum(eps * left, axis=1)
    gd = np.where(pos, y, np.minimum(0.0, from_pos + from_neg))
    star = np.where(pos, y, np.minimum(0.0, eps[:, pos] @ y[pos]))
    return FirstOrderLimit(gd=gd, star=star)


def first_order_gap(K, y, *, b0=1.0) -> float:
    r"""The relative gap :math:`\lVert w_{GD} - w^\star\rVert/\lVert w^\star\rVert` at first order in the cross-talk.

    .. math::

        \text{gap} \approx \sqrt{\frac{\sum_{y_i\le 0} (\beta_i^{GD} - \beta^\star_i)^2}{\sum_{y_i>0} y_i^2}}:

    with :math:`K \approx dI`, :math:`\lVert X^\top a\rVert^2 \approx \lVert Ka\rVert^2/d`, so the gap is the
    distance of the pre-activations of :func:`~ibcore.relu.first_order_limit` over the norm of
    the positive labels.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix.
    y : array of shape (n,)
        Labels, at least one positive.
    b0 : float
        Initial pre-activation :math:`b_0` of the all-active start.

    Returns
    -------
    float
        The relative gap (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> n, d = 10, 10**6
    >>> K = R.sample_gram(n, d, rng=0)
    >>> y = R.sample_labels(n, rng=1)
    >>> print(f"{R.first_order_gap(K, y):.4f}")   # of order sqrt(n/d)
    0.0006
    """
    limit = first_order_limit(K, y, b0=b0)
    y = np.asarray(y, float)
    if not np.any(y > 0):
        raise ValueError("y has no positive label, so w* = 0 and the relative gap is undefined")
    return float(np.linalg.norm(limit.gd - limit.star) / np.linalg.norm(y[y > 0]))


def first_order_constant(b0=1.0) -> float:
    r"""The constant :math:`A_\infty(b_0)` of the first-order gap for many examples: :math:`\text{gap} \approx A_\infty(b_0)\sqrt{n/d}`.

    The limit of :func:`~ibcore.relu.first_order_gap` :math:`/\sqrt{n/d}` for isotropic Gaussian data
    and labels :math:`y_i \sim U[-1, 1]`, as :math:`d \to \infty` and then
    :math:`n \to \infty` (our derivation, chapter 3).  The cross-terms
    :math:`\varepsilon_{ij}` are then independent with variance :math:`1/d`, so on a
    negative example with :math:`u = |y_i|` the two arguments of the minima of
    :func:`~ibcore.relu.first_order_limit`, :math:`a_i` (GD) and :math:`s_i = \beta^{PLS}_i` (w*), form a
    centred Gaussian pair.  In units of :math:`n/d` (the sums over j replaced by their means),

    .. math::

        \begin{aligned}
        \sigma_s^2 &= \tfrac16, \qquad
        \operatorname{cov}(a, s) = \tfrac12\,\rho\big(\tfrac13 - \tfrac{b_0}{2}\big), \\
        \sigma_a^2 &= \tfrac12\Big[\rho^2\big(\tfrac13 - b_0 + b_0^2\big)
        + \Big(\frac{b_0}{b_0 + u}\Big)^2\frac{u^3}{3}\Big],
        \end{aligned}

    with :math:`\rho = u/(b_0 + u)`.  The mean squared mismatch
    :math:`m(u) = E(\min(0, a) - \min(0, s))^2` is that of two ReLUs of a Gaussian pair (the
    arc-cosine kernel, as in :func:`~ibcore.relu.relu_teacher_risk`), and summing it over the
    :math:`n/2` negative labels against :math:`\sum_{I_+} y_i^2 \approx n/6`,

    .. math::

        A_\infty(b_0)^2 = 3\int_0^1 m(u)\,du, \qquad A_\infty(b_0) \approx \tfrac12\sqrt{b_0}
        \ \text{as}\ b_0 \to 0.

    At finite n the ratio is a random variable whose median approaches this value from below;
    the first-order terms describe GD only where they dominate the neglected ones, of
    order :math:`n/d`, that is for :math:`A_\infty(b_0) \gg \sqrt{n/d}`.

    Parameters
    ----------
    b0 : float
        Initial pre-activation :math:`b_0` of the all-active start.

    Returns
    -------
    float
        :math:`A_\infty(b_0)` (dimensionless).

    Examples
    --------
    >>> import ibcore.relu as R
    >>> print(f"{R.first_order_constant(1.0):.3f}")
    0.519
    >>> print(f"{R.first_order_constant(1e-4) / 0.5e-2:.2f}")   # -> sqrt(b0)/2 as b0 -> 0
    1.00
    """
    from scipy.integrate import quad

    b0 = positive_float("b0", b0)

    def mismatch(u):
        rho = u / (b0 + u)
        var_a = 0.5 * (rho ** 2 * (1 / 3 - b0 + b0 ** 2) + (b0 / (b0 + u)) ** 2 * u ** 3 / 3)
        var_s = 1 / 6
        cov = 0.5 * rho * (1 / 3 - b0 / 2)
        sa, ss = np.sqrt(var_a), np.sqrt(var_s)
        return float(_relu_pair_mean_square(sa, ss, cov / (sa * ss) if sa > 0 else 0.0))

    # the integrand changes on the scale u ~ b0: a break point there keeps quad accurate
    integral, _ = quad(mismatch, 0.0, 1.0, points=[b0] if b0 < 1 else None, limit=200, epsabs=1e-13)
    return float(np.sqrt(3 * integral))
