r"""The test error of a student neuron against a ReLU teacher, in closed form.

For Gaussian inputs the pre-activations of two neurons are a centred Gaussian pair, so the
expected square difference of their ReLUs is exact (the degree-1 arc-cosine kernel); chapter 2
compares the test errors of GD's neuron and of the min-norm neuron with it.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array

__all__ = ["relu_teacher_risk"]


def relu_teacher_risk(w, theta) -> float:
    r"""Test error :math:`\mathcal R(w) = E_x(\sigma(w\cdot x) - \sigma(\theta\cdot x))^2` against a ReLU teacher θ.

    For :math:`x \sim N(0, I_d)`, :math:`(w\cdot x, \theta\cdot x)` is a centred Gaussian
    pair, so the expectation is exact: :math:`E\,\sigma(w\cdot x)^2 = \lVert w\rVert^2/2` and

    .. math::

        E\,\sigma(w\cdot x)\sigma(\theta\cdot x)
        = \lVert w\rVert\lVert\theta\rVert\,\frac{\sin\varphi + (\pi - \varphi)\cos\varphi}{2\pi}

    with φ the angle between w and θ (the degree-1 arc-cosine kernel of Cho
    and Saul, 2009).  Since σ is 1-Lipschitz, :math:`\sqrt{\mathcal R}` is 1-Lipschitz in w:
    :math:`\lvert\sqrt{\mathcal R(w)} - \sqrt{\mathcal R(w')}\rvert \le \lVert w - w'\rVert`, so
    two neurons at a small distance have nearly the same test error.

    Parameters
    ----------
    w : array of shape (d,)
        The student neuron.
    theta : array of shape (d,)
        The teacher neuron θ.

    Returns
    -------
    float
        :math:`\mathcal R(w)`, in squared units of the output.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> theta = np.array([1.0, 0.0])
    >>> print(R.relu_teacher_risk(theta, theta))
    0.0
    >>> print(round(R.relu_teacher_risk(np.zeros(2), theta), 4))   # E relu(z)^2 = 1/2
    0.5
    """
    theta = finite_array("theta", theta, ndim=1)
    w = finite_array("w", w, shape=theta.shape)
    nw, nt = float(np.linalg.norm(w)), float(np.linalg.norm(theta))
    cos = float(w @ theta / (nw * nt)) if nw > 0 and nt > 0 else 0.0   # clipped to [-1, 1] below
    return float(_relu_pair_mean_square(nw, nt, cos))


def _relu_teacher_risk_gradient(w, theta):
    r"""The gradient :math:`\nabla\mathcal R(w)` of :func:`relu_teacher_risk`, in closed form.

    With :math:`\varphi` the angle between w and θ and :math:`\hat w`, :math:`\hat\theta` the
    unit vectors, :math:`\nabla_w E\,\sigma(w\cdot x)\sigma(\theta\cdot x) =
    \lVert\theta\rVert(\sin\varphi\,\hat w + (\pi - \varphi)\hat\theta)/(2\pi)`, so

    .. math::

        \nabla\mathcal R(w) = w - \frac{\lVert\theta\rVert}{\pi}
        \bigl(\sin\varphi\,\hat w + (\pi - \varphi)\,\hat\theta\bigr)

    (w ≠ 0; at w = 0 the risk has a kink and the result is NaN). The first-order change of the test error along a
    step δ is :math:`\langle\nabla\mathcal R(w), \delta\rangle`; its Hessian lies between
    :math:`(1 - 2\lVert\theta\rVert/(\pi\lVert w\rVert))I` and :math:`I` (the cross term's
    Hessian is :math:`E[\delta(w\cdot x)\,xx^\top\sigma(\theta\cdot x)] \succeq 0`, of largest
    eigenvalue at most :math:`\lVert\theta\rVert/(\pi\lVert w\rVert)`).

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([1.0, 0.0])
    >>> print(np.round(_relu_teacher_risk_gradient(theta, theta), 12) + 0.0)   # the minimum
    [0. 0.]
    """
    theta = finite_array("theta", theta, ndim=1)
    w = finite_array("w", w, shape=theta.shape)
    nw, nt = float(np.linalg.norm(w)), float(np.linalg.norm(theta))
    if nt == 0:
        return w.copy()  # R = |w|^2/2
    if nw == 0:
        return np.full(w.shape, np.nan)  # the kink at w = 0
    cos = float(np.clip(w @ theta / (nw * nt), -1.0, 1.0))
    phi = np.arccos(cos)
    return w - nt / np.pi * (np.sin(phi) * w / nw + (np.pi - phi) * theta / nt)


def _relu_pair_mean_square(sa, sb, cos):
    r""":math:`E(\sigma(a) - \sigma(b))^2` for a centred Gaussian pair of standard deviations
    ``sa``, ``sb`` and correlation ``cos`` (arrays broadcast): :math:`E\sigma(a)^2 = s_a^2/2` and
    :math:`E\sigma(a)\sigma(b) = s_as_b(\sin\varphi + (\pi - \varphi)\cos\varphi)/(2\pi)`,
    :math:`\cos\varphi` = ``cos`` (the degree-1 arc-cosine kernel)."""
    cos = np.clip(cos, -1.0, 1.0)   # a cosine computed from two near-parallel vectors can round past ±1
    phi = np.arccos(cos)
    cross = sa * sb * (np.sin(phi) + (np.pi - phi) * cos) / (2 * np.pi)
    return np.maximum(sa ** 2 / 2 + sb ** 2 / 2 - 2 * cross, 0.0)
