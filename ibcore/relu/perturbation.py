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
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, positive_float
from .gram import _validated_gram

__all__ = ["first_order_limit", "first_order_gap", "FirstOrderLimit"]


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
