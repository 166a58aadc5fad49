r"""Closed forms on exactly orthogonal data, :math:`K = \lVert x\rVert^2 I`: no cross-talk at all.

On orthogonal data every example evolves alone under GD, so the dynamics of
Part I can be solved example by example (the control of Boursier et al.,
2022).  These closed forms are the yardsticks of the chapters:

* one neuron: an active example moves as :math:`\beta_i \leftarrow (1 - c)\beta_i + c y_i`; a negative
  label crosses 0 once and freezes in :math:`(c y_i, 0]`, which gives the settling
  step :func:`~ibcore.relu.orthogonal_stabilisation_step` and the overshoot floor, about
  :math:`c/\sqrt3` (chapter 1);
* two neurons :math:`f = \sigma(\beta_+) - \sigma(\beta_-)` from :math:`\beta_+ = \beta_- = b_0`:
  :math:`\beta_+ + \beta_-` is conserved while both are active, so an example decouples only if
  :math:`\lvert y_i\rvert \ge 2b_0`
  (:func:`~ibcore.relu.two_neuron_orthogonal_limit`, :func:`~ibcore.relu.two_neuron_orthogonal_gap`).
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_float

__all__ = [
    "orthogonal_stabilisation_step",
    "two_neuron_orthogonal_limit",
    "two_neuron_orthogonal_gap",
]


def _one_neuron_inputs(y, c, b0):
    y = finite_array("y", y, ndim=1)
    c = positive_float("c", c)
    if c >= 1:
        raise ValueError(f"c must lie in (0, 1) for the active examples to contract, got {c!r}")
    return y, c, positive_float("b0", b0)


def orthogonal_stabilisation_step(y, c, *, b0=1.0) -> int:
    r"""Step at which the activation pattern stops changing on exactly orthogonal data.

    With :math:`K = dI` and pre-activations starting at :math:`\beta_i(0) = b_0`, an active
    example moves alone, :math:`\beta_{i,t} = y_i + (b_0 - y_i)(1 - c)^t`.  A positive
    label never crosses 0; a negative one switches off at the first t with
    :math:`(1 - c)^t \le \lvert y_i\rvert/(b_0 + \lvert y_i\rvert)` and never comes back, so the
    pattern is final after

    .. math::

        T_{\rm orth} = \max_{y_i < 0} \left\lceil
        \frac{\log(\lvert y_i\rvert/(b_0 + \lvert y_i\rvert))}{\log(1 - c)} \right\rceil

    steps (0 when no label is negative).  This is the time the slowest
    negative example needs, with no cross-talk at all.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    c : float
        Per-example contraction :math:`c = \eta\lVert x\rVert^2/n`, :math:`0 < c < 1`.
    b0 : float
        Initial pre-activation :math:`b_0` (1 for :math:`w_0 = X^\top\mathbb 1/d`).

    Returns
    -------
    int
        :math:`T_{\rm orth}`, a number of GD steps.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.orthogonal_stabilisation_step(np.array([0.5, -0.5]), 0.1)
    11
    >>> R.orthogonal_stabilisation_step(np.array([0.5, 0.2]), 0.1)   # no negative label
    0
    """
    y, c, b0 = _one_neuron_inputs(y, c, b0)
    neg = -y[y < 0]
    if neg.size == 0:
        return 0
    steps = np.log(neg / (b0 + neg)) / np.log1p(-c)
    return int(np.ceil(steps.max()))


def two_neuron_orthogonal_limit(y, *, b0) -> np.ndarray:
    r"""Gradient-flow limit :math:`(\beta_+, \beta_-)` of the two-neuron model on orthogonal data.

    The model is :math:`f = \sigma(\beta_+) - \sigma(\beta_-)`.

    From :math:`\beta_+ = \beta_- = b_0`, with :math:`K = \lVert x\rVert^2 I`, each example
    evolves alone.  While both neurons are active, GD moves :math:`\beta_+` by :math:`-cr`
    and :math:`\beta_-` by :math:`+cr` (:math:`r = \beta_+ - \beta_- - y`), so
    :math:`\beta_+ + \beta_- = 2b_0` is conserved and :math:`\beta_+ - \beta_- \to y`.  Hence

    * :math:`y_i \ge 2b_0`: :math:`\beta_-` hits 0 first and freezes, :math:`\beta_+ \to y_i`: limit :math:`(y_i, 0)`;
    * :math:`y_i \le -2b_0`: limit :math:`(0, -y_i)`;
    * :math:`\lvert y_i\rvert < 2b_0`: both stay active, limit :math:`(b_0 + y_i/2, b_0 - y_i/2)`: no decoupling.

    Finite steps add an overshoot :math:`O(c\lvert y_i\rvert)` where a neuron freezes.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    b0 : float
        The common initial pre-activation :math:`b_0 > 0`.

    Returns
    -------
    numpy.ndarray, shape (2, n)
        :math:`(\beta_+, \beta_-)` in the limit, one column per example.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.two_neuron_orthogonal_limit(np.array([1.0, -0.5, 0.05]), b0=0.1))
    [[1.    0.    0.125]
     [0.    0.5   0.075]]
    """
    y = finite_array("y", y, ndim=1)
    b = positive_float("b0", b0)
    coupled = np.abs(y) < 2 * b
    plus = np.where(coupled, b + y / 2, np.maximum(y, 0.0))
    minus = np.where(coupled, b - y / 2, np.maximum(-y, 0.0))
    return np.stack([plus, minus])


def two_neuron_orthogonal_gap(y, *, b0) -> float:
    r"""Relative gap of :func:`~ibcore.relu.two_neuron_orthogonal_limit` to the decoupled target.

    On orthogonal data with equal norms :math:`\lVert w\rVert \propto \lVert\beta\rVert`, and the
    target :math:`(w^\star(y), w^\star(-y))` has :math:`\beta^\star = (\max(y, 0), \max(-y, 0))`, so

    .. math::

        \text{gap} = \frac{\sqrt{2\sum_{\lvert y_i\rvert<2b_0} (b_0 - \lvert y_i\rvert/2)^2}}{\lVert y\rVert}.

    For :math:`y \sim U[-1, 1]` and :math:`b_0 \le 1/2` its mean square is :math:`4b_0^3`:
    gap :math:`\approx 2b_0^{3/2}`, whatever d.  This is the part of the two-neuron gap that
    comes from the initialisation scale alone.

    Parameters
    ----------
    y : array of shape (n,)
        Labels, not all zero.
    b0 : float
        The common initial pre-activation :math:`b_0 > 0`.

    Returns
    -------
    float
        The relative gap (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(round(R.two_neuron_orthogonal_gap(np.array([1.0, -0.5, 0.05]), b0=0.1), 4))
    0.0948
    """
    y = finite_array("y", y, ndim=1)
    if not np.any(y != 0):
        raise ValueError("y is all zero, so the relative gap is undefined")
    target = np.stack([np.maximum(y, 0.0), np.maximum(-y, 0.0)])
    return float(np.linalg.norm(two_neuron_orthogonal_limit(y, b0=b0) - target) / np.linalg.norm(y))
