r"""The shallow ReLU model of Part I: output signs, loss and gradient in the dual.

Model and loss (the 1/(2n) normalisation and the fixed ±1 output signs are
our reconstruction; the paper's full text was not available):

.. math::

    \begin{gathered}
    f(x) = \sum_j s_j\,\sigma(w_j\cdot x),\quad s_j \in \{+1, -1\}\ \text{fixed},\\
    \sigma(z) = \max(z, 0),\quad \sigma'(0) = 0,\qquad
    L(w) = \frac1{2n}\sum_i \big(f(x_i) - y_i\big)^2.
    \end{gathered}

Write :math:`\beta_j = Xw_j \in \mathbb R^n` (pre-activations, the paper's "predictions"),
:math:`D_j = \mathrm{diag}(\mathbb 1\{\beta_j > 0\})` (activation pattern) and
:math:`r = \sum_j s_j\,\sigma(\beta_j) - y` (residual).  Then
:math:`\nabla_{w_j} L = \frac1n s_j X^\top D_j r`: every gradient is a combination of the rows
of X, with coefficients :math:`s_j D_j r/n`, which is why GD can run in the dual
(:mod:`~ibcore.relu.gd`).
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_int

__all__ = ["default_signs"]

#: σ: ``"relu"`` (the model) or ``"identity"`` (linear regression, the prologue's control).
_ACTIVATIONS = ("relu", "identity")


def default_signs(m) -> np.ndarray:
    r"""Output signs :math:`s_j = (+1, -1, +1, -1, \dots)`: (+1) for m = 1, (+1, -1) for m = 2.

    The alternation for m > 2 is our convention; the paper's general-m
    output layer was not available.

    Parameters
    ----------
    m : int
        Number of neurons.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The signs :math:`s_j \in \{+1, -1\}` of :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.default_signs(1), R.default_signs(4)
    (array([1.]), array([ 1., -1.,  1., -1.]))
    """
    m = positive_int("m", m)
    return np.where(np.arange(m) % 2 == 0, 1.0, -1.0)


def _validated_signs(signs, m) -> np.ndarray:
    """``signs`` checked to be m entries of ±1, or :func:`~ibcore.relu.default_signs` (m) for ``None``."""
    if signs is None:
        return default_signs(m)
    signs = finite_array("signs", signs, shape=(m,))
    if not np.all(np.abs(signs) == 1):
        raise ValueError(f"signs must contain only +1 and -1, got {signs!r}")
    return signs


def _is_relu(activation) -> bool:
    """Check ``activation`` against ``_ACTIVATIONS``; True for the ReLU."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {_ACTIVATIONS}, got {activation!r}")
    return activation == "relu"


def _network_loss(beta, y, signs, activation="relu") -> float:
    """L = (1/2n) Σ_i (Σ_j s_j σ(β_{j,i}) - y_i)² from the pre-activations β (shape (m, n)).

    Parameters
    ----------
    beta : array of shape (m, n)
        Pre-activations β_j = X w_j.
    y : array of shape (n,)
    signs : array of shape (m,)
    activation : {"relu", "identity"}
    """
    relu = _is_relu(activation)
    h = np.maximum(beta, 0.0) if relu else beta
    r = signs @ h - y
    return float(r @ r) / (2 * y.size)
