"""Gaussian moments behind the ODEs, by Wick's (Isserlis') theorem.

The pre-activations :math:`z = (\\lambda, \\nu)` are jointly Gaussian with
covariance :math:`C = \\begin{pmatrix} Q & R\\\\ R^T & T\\end{pmatrix}`, so every
moment of the error :math:`\\Delta = \\hat y - y` is a sum over the pairings of
its factors (Isserlis' theorem),

.. math::

    E[z_{a_1}\\cdots z_{a_{2m}}] = \\sum_{\\text{pairings}}\\ \\prod_{(k,l)} C_{a_ka_l}.

:func:`~ibcore.quadratic.gaussian_moment` enumerates the pairings exactly (:func:`~ibcore.quadratic.wick_pairings`),
which is how a student can check any moment without Monte Carlo;
:func:`~ibcore.quadratic.phi_matrix` is the closed form of the γ² moment the ODEs need [D],
and ``_phi_coefficients`` its scalar coefficients, which the integrators share.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, nonnegative_float, nonnegative_int
from .order_parameters import _validated_overlaps

__all__ = [
    "wick_pairings",
    "gaussian_moment",
    "phi_matrix",
]


def wick_pairings(n):
    """All perfect matchings of ``range(n)``: the :math:`(n-1)!!` Wick pairings of n factors.

    Parameters
    ----------
    n : int
        Number of factors (even, >= 0).

    Returns
    -------
    list of tuple of (int, int)
        Each pairing as a tuple of index pairs ``(k, l)`` with ``k < l``;
        ``[()]`` for ``n = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> q.wick_pairings(4)
    [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
    >>> len(q.wick_pairings(6))   # 5!! = 15
    15
    """
    n = nonnegative_int("n", n)
    if n % 2:
        raise ValueError(f"n must be even (an odd Gaussian moment has no pairing), got {n!r}")

    def pairings(rest):
        if not rest:
            yield ()
            return
        first = rest[0]
        for k in range(1, len(rest)):
            for others in pairings(rest[1:k] + rest[k + 1:]):
                yield ((first, rest[k]),) + others

    return list(pairings(tuple(range(n))))


def gaussian_moment(cov, indices):
    """Exact moment :math:`E[z_{a_1}z_{a_2}\\cdots z_{a_n}]` of a centred Gaussian vector.

    Isserlis' theorem: the sum over the pairings of the n factors of the
    products of covariances; zero for odd n. Exact (no sampling) and cheap
    for the six-point moments behind :math:`\\Phi` (15 pairings).

    Parameters
    ----------
    cov : array_like, shape (k, k)
        Covariance matrix of z (symmetric).
    indices : sequence of int
        The components :math:`a_1, \\dots, a_n` (repeats allowed), each in
        ``range(k)``.

    Returns
    -------
    float

    Examples
    --------
    >>> gaussian_moment([[1.0]], [0, 0, 0, 0])   # E[x^4] = 3
    3.0
    """
    cov = finite_array("cov", cov, ndim=2)
    k = cov.shape[0]
    if cov.shape != (k, k) or not np.allclose(cov, cov.T, rtol=0, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError(f"cov must be a symmetric square matrix, got shape {cov.shape}")
    idx = [int(a) for a in indices]
    if any(a < 0 or a >= k for a in idx) or len(idx) != len(indices):
        raise ValueError(f"indices must be integers in range({k}), got {list(indices)!r}")
    if len(idx) % 2:
        return 0.0
    return float(sum(np.prod([cov[idx[a], idx[b]] for a, b in pairing])
                     for pairing in wick_pairings(len(idx))))


def _phi_coefficients(trQ, trQ2, R2, trT, trT2, p, p_star, noise):
    """The six scalar coefficients of :math:`\\Phi + \\Delta Q` as a matrix polynomial.

    .. math::

        \\Phi + \\Delta Q = c_Q Q + c_{RR} RR^T + c_{RTR} RTR^T + c_{QQ} Q^2
        + c_X (RR^TQ + QRR^T) + c_{QQQ} Q^3,

    given the scalar invariants :math:`\\mathrm{Tr}Q`, :math:`\\mathrm{Tr}Q^2`,
    :math:`\\|R\\|_F^2`, :math:`\\mathrm{Tr}T`, :math:`\\mathrm{Tr}T^2`. Shared by
    :func:`~ibcore.quadratic.phi_matrix`, the full ODEs and the reduced system, which evaluate
    the polynomial each in its own coordinates.

    Returns
    -------
    tuple of float
        ``(cQ, cRR, cRTR, cQQ, cX, cQQQ)``.
    """
    ps = p_star
    cQ = ((trT**2 + 2.0 * trT2) / ps**2
          - 2.0 * (trT * trQ + 2.0 * R2) / (p * ps)
          + (trQ**2 + 2.0 * trQ2) / p**2
          + noise)
    cRR = 4.0 * trT / ps**2 - 4.0 * trQ / (p * ps)
    cRTR = 8.0 / ps**2
    cQQ = -4.0 * trT / (p * ps) + 4.0 * trQ / p**2
    cX = -8.0 / (p * ps)
    cQQQ = 8.0 / p**2
    return cQ, cRR, cRTR, cQQ, cX, cQQQ


def phi_matrix(Q, R, T=None, *, noise=0.0):
    """The :math:`\\gamma^2` ("lr²") moment :math:`\\Phi_{ij} = E[(\\hat y - y)^2\\lambda_i\\lambda_j]`.

    Six-point Wick contractions give :math:`\\Phi = \\Phi^{tt} + \\Phi^{st} + \\Phi^{ss}` with

    .. math::

        \\Phi^{tt} &= \\tfrac{1}{p^{*2}}\\big[((\\mathrm{Tr}T)^2 + 2\\mathrm{Tr}T^2)Q
                      + 4\\mathrm{Tr}T\\,RR^T + 8RTR^T\\big]\\\\
        \\Phi^{st} &= -\\tfrac{2}{pp^*}\\big[(\\mathrm{Tr}T\\,\\mathrm{Tr}Q + 2\\|R\\|_F^2)Q
                      + 2\\mathrm{Tr}Q\\,RR^T\\\\
                  &\\qquad + 2\\mathrm{Tr}T\\,Q^2 + 4(RR^TQ + QRR^T)\\big]\\\\
        \\Phi^{ss} &= \\tfrac{1}{p^2}\\big[((\\mathrm{Tr}Q)^2 + 2\\mathrm{Tr}Q^2)Q + 4\\mathrm{Tr}Q\\,Q^2 + 8Q^3\\big]

    With label noise of variance :math:`\\Delta` the moment of the noisy error
    is :math:`\\Phi + \\Delta Q`, which is what is returned. In the ODEs it enters as
    :math:`4(\\gamma/p)(\\Phi + \\Delta Q)` in :math:`dQ/dt'`.

    Parameters
    ----------
    Q : array_like, shape (p, p)
        Student overlap :math:`Q = WW^T/N` (symmetric).
    R : array_like, shape (p, p_star)
        Student-teacher overlap :math:`R = WW^{*T}/N`.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap :math:`T = W^*W^{*T}/N`; the identity (orthonormal teacher) by default.
    noise : float
        Label-noise variance :math:`\\Delta \\ge 0`.

    Returns
    -------
    ndarray, shape (p, p)
        :math:`\\Phi + \\Delta Q`, symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> Phi = q.phi_matrix(np.eye(2), np.eye(2))   # the student is the teacher: y_hat = y
    >>> print(np.round(Phi, 12))
    [[0. 0.]
     [0. 0.]]
    """
    Q, R, T, p, p_star = _validated_overlaps(Q, R, T, time_axis=False)
    noise = nonnegative_float("noise", noise)
    RRt = R @ R.T
    QQ = Q @ Q
    X = RRt @ Q
    c = _phi_coefficients(np.trace(Q), np.sum(Q * Q.T), np.sum(R * R), np.trace(T),
                          np.sum(T * T.T), p, p_star, noise)
    return (c[0] * Q + c[1] * RRt + c[2] * (R @ T @ R.T) + c[3] * QQ
            + c[4] * (X + X.T) + c[5] * (QQ @ Q))
