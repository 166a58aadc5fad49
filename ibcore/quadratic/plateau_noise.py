"""The noise that one-pass SGD adds to the teacher overlap before the escape [D].

From a random start, :math:`\\sqrt N R(0)` is an :math:`O(1)` Gaussian matrix, and SGD at
finite N adds to :math:`\\sqrt N R` a noise of the same order while R is small. One step
changes :math:`R_{ik}` by :math:`-\\frac{2\\gamma}{pN}\\Delta\\lambda_i\\nu_k`
(:mod:`.overlap_chain`). At :math:`R = 0`, :math:`Q = qI`, :math:`T = I` the mean of
:math:`\\Delta\\lambda_i\\nu_k` vanishes and its entries are uncorrelated (:math:`\\Delta` is
even in each pre-activation), so over one unit of :math:`t'` (:math:`pN/\\gamma` steps)
each entry of :math:`\\sqrt N R` receives an independent noise of variance
:math:`4g\\,m(q)`, with :math:`g = \\gamma/p` and

.. math::

    \\begin{aligned}
    m(q) = E[\\Delta^2\\lambda_i^2\\nu_k^2]
         &= q^3\\frac{(p+2)(p+4)}{p^2} - 2q^2\\frac{(p+2)(p^*+2)}{pp^*} \\\\
         &\\quad + q\\,\\frac{(p^*+2)(p^*+4)}{p^{*2}} + \\Delta_{\\rm noise}\\,q
    \\end{aligned}

(Isserlis; :math:`\\Delta_{\\rm noise}` the label-noise variance). The drift of R is
linear, :math:`dR/dt' = \\rho(q)R` with :math:`\\rho(q) = 4/p^* - 2(q - 1) - 4q/p`, the
growth rate of :func:`~ibcore.quadratic.plateau_growth_rate` once q has settled. Measured
against the growth, :math:`e^{-\\int_0^{t'}\\rho}\\sqrt N R(t') = \\sqrt N R(0) + Z(t')`, and
:math:`Z` converges: at the escape, SGD's overlap is that of a start
:math:`\\sqrt N R(0) + Z` with independent :math:`\\mathcal N(0, \\sigma^2)` entries,

.. math::

    \\sigma^2 = 4g\\int_0^\\infty m(q(s))\\,e^{-2\\int_0^s\\rho(q(u))\\,du}\\,ds ,

with :math:`q(s)` the norm learning along :math:`R = 0` (with the :math:`\\gamma^2` term). No
N appears: the noise is as large as the overlap it adds to, at every N. On the plateau
from the start (:math:`q_0 = \\bar Q_\\gamma`) the integral is :math:`\\sigma^2 = 4g\\,m(\\bar
Q_\\gamma)/(2r)`, so :math:`\\sigma \\propto \\sqrt{\\gamma/p}` to leading order.
The linearisation is ours [D]; the chapters compare it with SGD runs.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from ..validation import nonnegative_float, positive_float
from .odes import ode_rhs
from .order_parameters import _validated_sizes
from .phases import plateau_overlap

__all__ = ["plateau_noise_variance"]

# past this t' the norms have settled (they relax at a rate of about 4): the rest of the
# integral is a geometric tail, added in closed form
_SETTLED = 12.0


def _noise_moment(q, p, p_star, noise=0.0):
    """:math:`m(q) = E[\\Delta^2\\lambda_i^2\\nu_k^2]` at :math:`R = 0`, :math:`Q = qI`, :math:`T = I`."""
    return (q**3 * (p + 2) * (p + 4) / p**2 - 2 * q**2 * (p + 2) * (p_star + 2) / (p * p_star)
            + q * (p_star + 2) * (p_star + 4) / p_star**2 + noise * q)


def _growth(q, p, p_star):
    """:math:`\\rho(q)`: the growth rate of R at :math:`Q = qI`, :math:`R \\approx 0`, :math:`T = I`."""
    return 4.0 / p_star - 2.0 * (q - 1.0) - 4.0 * q / p


def plateau_noise_variance(p, p_star, *, lr, q0=1.0, noise=0.0):
    """Variance :math:`\\sigma^2` of the noise SGD adds to each entry of :math:`\\sqrt N R(0)` before the escape.

    In the linearised dynamics (module docstring), SGD from :math:`Q(0) = q_0I` escapes like
    the ODE from the start :math:`\\sqrt N R(0) + Z`, with :math:`Z` a :math:`p\\times p^*`
    matrix of independent :math:`\\mathcal N(0, \\sigma^2)` entries,

    .. math::

        \\sigma^2 = 4\\frac\\gamma p\\int_0^\\infty m(q(s))\\,e^{-2\\int_0^s\\rho(q(u))\\,du}\\,ds,

    whatever N. The integral runs along the norm learning with the :math:`\\gamma^2` term,
    from :math:`q_0` to the lifted plateau :math:`\\bar Q_\\gamma`, and the geometric tail
    beyond :math:`t' = 12` is added in closed form.

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths.
    lr : float
        Learning rate γ > 0 (gradient flow adds no noise).
    q0 : float
        Initial norm, :math:`Q(0) = q_0 I`.
    noise : float
        Label-noise variance Δ.

    Returns
    -------
    float
        :math:`\\sigma^2`, in units of the entries of :math:`\\sqrt N R` (whose start has
        variance :math:`q_0`).

    Raises
    ------
    ValueError
        If γ is so large that the lifted plateau does not exist, or the overlap does not grow
        on it (the noise would accumulate without bound).

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> s2 = q.plateau_noise_variance(3, 2, lr=0.015)   # gamma/p = 0.005
    >>> print(round(s2, 4), round(q.plateau_noise_variance(3, 2, lr=0.06) / s2, 2))
    0.0163 4.1
    """
    p, p_star = _validated_sizes(p, p_star)
    lr = positive_float("lr", lr)
    q0 = positive_float("q0", q0)
    noise = nonnegative_float("noise", noise)
    plateau = plateau_overlap(p, p_star, lr=lr, noise=noise)  # raises when there is none
    rate = _growth(plateau, p, p_star)
    if not rate > 0:
        raise ValueError(f"lr = {lr!r} is too large: the overlap does not grow on the lifted plateau "
                         f"(rate {rate:.3g}), so the noise never stops accumulating")
    zeros = np.zeros((p, p_star))

    def rhs(t, y):  # y = (q, integral of rho, integral of m e^{-2 int rho})
        q, grown, _ = y
        dq = ode_rhs(q * np.eye(p), zeros, lr=lr, noise=noise).dQ[0, 0]
        return [dq, _growth(q, p, p_star), _noise_moment(q, p, p_star, noise) * np.exp(-2.0 * grown)]

    sol = solve_ivp(rhs, (0.0, _SETTLED), [q0, 0.0, 0.0], method="DOP853", rtol=1e-10, atol=1e-12)
    q_end, grown, acc = sol.y[:, -1]
    tail = _noise_moment(q_end, p, p_star, noise) * np.exp(-2.0 * grown) / (2.0 * _growth(q_end, p, p_star))
    return float(4.0 * lr / p * (acc + tail))
