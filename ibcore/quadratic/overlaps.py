"""Order parameters, the closed-form population risk and the Gaussian moments behind the ODEs.

Everything here is a function of the overlaps only,

.. math::

    Q = \\frac{W W^T}{N},\\qquad R = \\frac{W W^{*T}}{N},\\qquad T = \\frac{W^* W^{*T}}{N},

because the pre-activations :math:`(\\lambda, \\nu)` are jointly Gaussian with
covariance :math:`\\begin{pmatrix} Q & R\\\\ R^T & T\\end{pmatrix}` (convention in
:mod:`ibcore.quadratic`). Wick's theorem turns every expectation into a
polynomial in :math:`Q, R, T` [D]; each formula below is checked against Monte
Carlo in ``tests/quadratic``.

Functions accept a trajectory as well as a single point: ``Q`` may be
``(p, p)`` or ``(n_t, p, p)`` (same leading axis for ``R``).
"""
from __future__ import annotations

import numpy as np

from ..validation import as_generator, finite_array, nonnegative_float, positive_int

__all__ = [
    "overlaps",
    "population_risk",
    "error_first_moments",
    "phi_matrix",
    "monte_carlo_risk",
    "validated_weights",
]


def overlaps(W, W_star):
    """Overlap matrices of a student and a teacher.

    Parameters
    ----------
    W : array_like, shape (p, N)
        Student first-layer weights, rows :math:`w_i` with :math:`O(1)` entries.
    W_star : array_like, shape (p_star, N)
        Teacher weights.

    Returns
    -------
    Q : ndarray, shape (p, p)
        :math:`Q = W W^T / N`.
    R : ndarray, shape (p, p_star)
        :math:`R = W W^{*T} / N` (called :math:`\\rho` in some papers).
    T : ndarray, shape (p_star, p_star)
        :math:`T = W^* W^{*T} / N`.
    """
    W, W_star = validated_weights(W, W_star)
    N = W.shape[1]
    return W @ W.T / N, W @ W_star.T / N, W_star @ W_star.T / N


def validated_weights(W, W_star, *, name="W"):
    """Check student and teacher weights: finite, 2-d, the same input dimension N.

    ``name`` is the student parameter's name in error messages (``"W"`` or ``"W0"``).
    """
    W = finite_array(name, W, ndim=2)
    W_star = finite_array("W_star", W_star, ndim=2)
    if W_star.shape[1] != W.shape[1]:
        raise ValueError(
            f"W_star must have N = {W.shape[1]} columns like {name}, got shape {W_star.shape}")
    return W, W_star


def _check_overlaps(Q, R, T):
    """Validate (Q, R, T), allowing a leading time axis on Q and R; return arrays and (p, p_star)."""
    Q = finite_array("Q", Q, ndim=(2, 3))
    R = finite_array("R", R, ndim=(2, 3))
    p = Q.shape[-1]
    if Q.shape[-2] != p:
        raise ValueError(f"Q must be square in its last two axes, got shape {Q.shape}")
    if R.ndim != Q.ndim or R.shape[:-1] != Q.shape[:-1]:
        raise ValueError(
            f"R must have shape {Q.shape[:-1] + ('p_star',)} to match Q of shape {Q.shape}, "
            f"got shape {R.shape}")
    p_star = R.shape[-1]
    if T is None:
        T = np.eye(p_star)
    else:
        T = finite_array("T", T, shape=(p_star, p_star))
    return Q, R, T, p, p_star


def population_risk(Q, R, T=None, noise=0.0):
    """Closed-form population risk :math:`\\epsilon_g = \\tfrac12 E[(\\hat y - y)^2]`.

    .. math::

        \\epsilon_g = \\frac12\\Big(\\frac{\\mathrm{Tr}Q}{p}-\\frac{\\mathrm{Tr}T}{p^*}\\Big)^2
        + \\frac{\\mathrm{Tr}Q^2}{p^2} - \\frac{2\\|R\\|_F^2}{p p^*}
        + \\frac{\\mathrm{Tr}T^2}{p^{*2}} + \\frac{\\Delta}{2}

    (Isserlis: :math:`E[\\lambda_i^2\\lambda_j^2] = Q_{ii}Q_{jj} + 2Q_{ij}^2`).
    The label-noise floor :math:`\\Delta/2` is included so that SGD and ODE
    report the same quantity; it is 0 by default.

    Parameters
    ----------
    Q : array_like, shape (p, p) or (n_t, p, p)
    R : array_like, shape (p, p_star) or (n_t, p, p_star)
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap; the identity (orthonormal teacher) by default.
    noise : float
        Label-noise variance :math:`\\Delta \\ge 0`.

    Returns
    -------
    float or ndarray of shape (n_t,)
    """
    Q, R, T, p, p_star = _check_overlaps(Q, R, T)
    noise = nonnegative_float("noise", noise)
    trQ = np.trace(Q, axis1=-2, axis2=-1)
    trQ2 = np.sum(Q * np.swapaxes(Q, -1, -2), axis=(-2, -1))
    R2 = np.sum(R * R, axis=(-2, -1))
    tau = trQ / p - np.trace(T) / p_star
    risk = 0.5 * tau**2 + trQ2 / p**2 - 2.0 * R2 / (p * p_star) + np.sum(T * T.T) / p_star**2
    risk = risk + 0.5 * noise
    return float(risk) if np.ndim(risk) == 0 else risk


def error_first_moments(Q, R, T=None):
    """First-order moments that drive gradient flow.

    With the error :math:`\\Delta = \\hat y - y` and :math:`\\tau = \\mathrm{Tr}Q/p - \\mathrm{Tr}T/p^*`,

    .. math::

        E[\\Delta\\,\\lambda_i\\nu_k] = \\Big[\\tau R + 2\\Big(\\frac{QR}{p} - \\frac{RT}{p^*}\\Big)\\Big]_{ik},\\qquad
        E[\\Delta\\,\\lambda_i\\lambda_j] = \\Big[\\tau Q + 2\\Big(\\frac{Q^2}{p} - \\frac{RR^T}{p^*}\\Big)\\Big]_{ij}.

    Label noise has zero mean and does not enter.

    Returns
    -------
    m_R : ndarray, shape (p, p_star)
        :math:`E[\\Delta\\lambda\\nu^T]`.
    m_Q : ndarray, shape (p, p)
        :math:`E[\\Delta\\lambda\\lambda^T]`.
    """
    Q, R, T, p, p_star = _check_overlaps(Q, R, T)
    if Q.ndim != 2:
        raise ValueError(f"Q must have 2 dimension(s), got array of shape {Q.shape}")
    tau = np.trace(Q) / p - np.trace(T) / p_star
    m_R = tau * R + 2.0 * (Q @ R / p - R @ T / p_star)
    m_Q = tau * Q + 2.0 * (Q @ Q / p - R @ R.T / p_star)
    return m_R, m_Q


def _phi_coefficients(trQ, trQ2, R2, trT, trT2, p, p_star, noise):
    """Scalar coefficients of Phi = cQ Q + cRR RR^T + cRTR RTR^T + cQQ Q^2 + cX (RR^T Q + Q RR^T) + cQQQ Q^3."""
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


def phi_matrix(Q, R, T=None, noise=0.0):
    """The :math:`\\gamma^2` ("lr²") moment :math:`\\Phi_{ij} = E[(\\hat y - y)^2\\lambda_i\\lambda_j]`.

    Six-point Wick contractions give :math:`\\Phi = \\Phi^{tt} + \\Phi^{st} + \\Phi^{ss}` with

    .. math::

        \\Phi^{tt} &= \\tfrac{1}{p^{*2}}\\big[((\\mathrm{Tr}T)^2 + 2\\mathrm{Tr}T^2)Q
                      + 4\\mathrm{Tr}T\\,RR^T + 8RTR^T\\big]\\\\
        \\Phi^{st} &= -\\tfrac{2}{pp^*}\\big[(\\mathrm{Tr}T\\,\\mathrm{Tr}Q + 2\\|R\\|_F^2)Q
                      + 2\\mathrm{Tr}Q\\,RR^T + 2\\mathrm{Tr}T\\,Q^2 + 4(RR^TQ + QRR^T)\\big]\\\\
        \\Phi^{ss} &= \\tfrac{1}{p^2}\\big[((\\mathrm{Tr}Q)^2 + 2\\mathrm{Tr}Q^2)Q + 4\\mathrm{Tr}Q\\,Q^2 + 8Q^3\\big]

    With label noise of variance :math:`\\Delta` the moment of the noisy error
    is :math:`\\Phi + \\Delta Q`, which is what is returned.

    Returns
    -------
    ndarray, shape (p, p)
    """
    Q, R, T, p, p_star = _check_overlaps(Q, R, T)
    if Q.ndim != 2:
        raise ValueError(f"Q must have 2 dimension(s), got array of shape {Q.shape}")
    noise = nonnegative_float("noise", noise)
    RRt = R @ R.T
    QQ = Q @ Q
    X = RRt @ Q
    c = _phi_coefficients(np.trace(Q), np.sum(Q * Q.T), np.sum(R * R), np.trace(T),
                          np.sum(T * T.T), p, p_star, noise)
    return (c[0] * Q + c[1] * RRt + c[2] * (R @ T @ R.T) + c[3] * QQ
            + c[4] * (X + X.T) + c[5] * (QQ @ Q))


def monte_carlo_risk(W, W_star, n_samples, *, noise=0.0, rng=None, batch=20_000):
    """Monte Carlo estimate of the population risk :math:`\\tfrac12E[(\\hat y - y)^2]` on fresh inputs.

    The empirical counterpart of the closed form
    :func:`~ibcore.quadratic.overlaps.population_risk`: draws
    :math:`x\\sim\\mathcal N(0, I_N)`, evaluates student and teacher (and label
    noise of variance Δ) and averages the loss.

    Parameters
    ----------
    W : array_like, shape (p, N)
        Student weights.
    W_star : array_like, shape (p_star, N)
        Teacher weights.
    n_samples : int
        Number of fresh inputs.
    noise : float
        Label-noise variance Δ.
    rng : None, int or numpy.random.Generator
    batch : int
        Inputs drawn at once (memory ``batch × N`` doubles).

    Returns
    -------
    mean : float
        The estimate.
    stderr : float
        Its standard error (sample standard deviation of the loss / √n).
    """
    W, W_star = validated_weights(W, W_star)
    n_samples = positive_int("n_samples", n_samples)
    noise = nonnegative_float("noise", noise)
    batch = positive_int("batch", batch)
    rng = as_generator(rng)
    p, N = W.shape
    p_star = W_star.shape[0]
    WW = np.vstack([W, W_star]) / np.sqrt(N)
    total = total_sq = 0.0
    for start in range(0, n_samples, batch):
        b = min(batch, n_samples - start)
        LV = rng.standard_normal((b, N)) @ WW.T
        err = np.sum(LV[:, :p] ** 2, axis=1) / p - np.sum(LV[:, p:] ** 2, axis=1) / p_star
        if noise:
            err -= np.sqrt(noise) * rng.standard_normal(b)
        loss = 0.5 * err * err
        total += float(loss.sum())
        total_sq += float(np.dot(loss, loss))
    mean = total / n_samples
    var = max(total_sq / n_samples - mean * mean, 0.0)
    return mean, float(np.sqrt(var / n_samples))
