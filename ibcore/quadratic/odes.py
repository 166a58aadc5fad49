"""The N → ∞ ODEs for the overlaps (Q, R), with or without the γ² term.

In the rescaled time :math:`t' = (\\gamma/p)\\alpha` the ODEs read [D]

.. math::

    \\frac{dR}{dt'} &= -2\\Big[\\tau R + 2\\Big(\\frac{QR}{p} - \\frac{RT}{p^*}\\Big)\\Big],\\\\
    \\frac{dQ}{dt'} &= -4\\Big[\\tau Q + 2\\Big(\\frac{Q^2}{p} - \\frac{RR^T}{p^*}\\Big)\\Big]
                     + 4\\frac{\\gamma}{p}\\,(\\Phi + \\Delta Q),

with :math:`\\tau = \\mathrm{Tr}Q/p - \\mathrm{Tr}T/p^*` and :math:`\\Phi` from
:func:`~ibcore.quadratic.overlaps.phi_matrix`. The first-order part is exactly
population gradient flow; the :math:`\\gamma^2` part comes from
:math:`|x|^2/N \\to 1` in :math:`\\delta w_i\\cdot\\delta w_j`. In
:math:`\\alpha` every rate is multiplied by :math:`\\gamma/p`. These are the
equations of ``committee_learning/ode/square.py`` [P], re-derived in the
science notes (§3).

The integrator works in :math:`t'` (rates of order one whatever γ and p) with
an explicit high-order adaptive Runge-Kutta method and samples the dense
output on a grid of :math:`\\alpha` values.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from ..validation import (DivergenceError, finite_array, nonnegative_float, positive_float,
                           positive_int)
from .overlaps import _phi_coefficients, population_risk
from .trajectory import Trajectory

__all__ = ["alpha_grid", "ode_rhs", "integrate_odes"]

#: Q or R entries beyond this size count as a blow-up of the ODE.
BLOWUP = 1e8


def alpha_grid(alpha_max, n_points=200, *, grid="log", alpha_min=None):
    """Sampling times :math:`\\alpha` for ODE output.

    Parameters
    ----------
    alpha_max : float
        Last time.
    n_points : int
        Number of points, including :math:`\\alpha = 0`.
    grid : {"log", "linear"}
        ``"log"``: 0 followed by ``n_points - 1`` log-spaced points from
        ``alpha_min`` to ``alpha_max`` (for log-x plots); ``"linear"``: evenly
        spaced from 0.
    alpha_min : float, optional
        First non-zero point of the log grid; ``alpha_max / 1e4`` by default.

    Returns
    -------
    ndarray, shape (n_points,)
    """
    alpha_max = positive_float("alpha_max", alpha_max)
    n_points = positive_int("n_points", n_points)
    if n_points < 2:
        raise ValueError(f"n_points must be at least 2, got {n_points!r}")
    if grid == "linear":
        return np.linspace(0.0, alpha_max, n_points)
    if grid != "log":
        raise ValueError(f"grid must be 'log' or 'linear', got {grid!r}")
    alpha_min = alpha_max * 1e-4 if alpha_min is None else positive_float("alpha_min", alpha_min)
    if alpha_min >= alpha_max:
        raise ValueError(f"alpha_min must be smaller than alpha_max = {alpha_max}, got {alpha_min!r}")
    return np.concatenate([[0.0], np.geomspace(alpha_min, alpha_max, n_points - 1)])


def _check_initial(Q0, R0, T):
    Q0 = finite_array("Q0", Q0, ndim=2)
    p = Q0.shape[0]
    if Q0.shape != (p, p):
        raise ValueError(f"Q0 must be square, got shape {Q0.shape}")
    if not np.allclose(Q0, Q0.T, rtol=0, atol=1e-10 * max(1.0, np.abs(Q0).max())):
        raise ValueError("Q0 must be symmetric")
    R0 = finite_array("R0", R0, ndim=2)
    if R0.shape[0] != p:
        raise ValueError(f"R0 must have shape ({p}, p_star) to match Q0, got shape {R0.shape}")
    p_star = R0.shape[1]
    T = np.eye(p_star) if T is None else finite_array("T", T, shape=(p_star, p_star))
    if not np.allclose(T, T.T, rtol=0, atol=1e-10 * max(1.0, np.abs(T).max())):
        raise ValueError("T must be symmetric")
    return Q0, R0, T, p, p_star


class _FullRHS:
    """Right-hand side in t' on the flat state (Q.ravel(), R.ravel())."""

    def __init__(self, p, p_star, T, g, noise):
        self.p, self.ps, self.T, self.g, self.noise = p, p_star, T, g, noise
        self.nQ = p * p
        self.trT = float(np.trace(T))
        self.trT2 = float(np.sum(T * T))
        self.identity_T = np.array_equal(T, np.eye(p_star))

    def split(self, y):
        p, ps = self.p, self.ps
        return y[: self.nQ].reshape(p, p), y[self.nQ:].reshape(p, ps)

    def __call__(self, t, y):
        p, ps = self.p, self.ps
        Q, R = self.split(y)
        trQ = np.trace(Q)
        tau = trQ / p - self.trT / ps
        RT = R if self.identity_T else R @ self.T
        RRt = R @ R.T
        RTRt = RRt if self.identity_T or not self.g else RT @ R.T
        QQ = Q @ Q
        out = np.empty_like(y)
        dQ = out[: self.nQ].reshape(p, p)
        dR = out[self.nQ:].reshape(p, ps)
        np.multiply(RT, 4.0 / ps, out=dR)
        dR -= (4.0 / p) * (Q @ R)
        dR -= (2.0 * tau) * R
        # gradient-flow part of dQ: -4 tau Q + 8 (RR^T/p* - Q^2/p)
        cQ, cRR, cRTR, cQQ = -4.0 * tau, 8.0 / ps, 0.0, -8.0 / p
        if self.g:
            c = _phi_coefficients(trQ, np.sum(Q * Q), np.sum(R * R), self.trT, self.trT2,
                                  p, ps, self.noise)
            g4 = 4.0 * self.g
            cQ += g4 * c[0]
            cRR += g4 * c[1]
            cRTR += g4 * c[2]
            cQQ += g4 * c[3]
            X = RRt @ Q
            np.multiply(X + X.T, g4 * c[4], out=dQ)
            dQ += (g4 * c[5]) * (QQ @ Q)
            dQ += cQ * Q
        else:
            np.multiply(Q, cQ, out=dQ)
        dQ += cRR * RRt
        if cRTR:
            dQ += cRTR * RTRt
        dQ += cQQ * QQ
        return out


def ode_rhs(Q, R, T=None, *, lr=None, noise=0.0):
    """Time derivatives :math:`(dQ/dt', dR/dt')` of the overlap ODEs.

    Parameters
    ----------
    Q, R, T : array_like
        Overlaps, shapes (p, p), (p, p_star), (p_star, p_star); ``T``
        defaults to the identity.
    lr : float or None
        Learning rate γ. ``None`` gives gradient flow (no γ² term).
    noise : float
        Label-noise variance Δ (enters only through the γ² term).

    Returns
    -------
    dQ, dR : ndarray
        Derivatives with respect to :math:`t' = (\\gamma/p)\\alpha`.
    """
    Q, R, T, p, p_star = _check_initial(Q, R, T)
    g = 0.0 if lr is None else positive_float("lr", lr) / p
    rhs = _FullRHS(p, p_star, T, g, nonnegative_float("noise", noise))
    y = np.concatenate([Q.ravel(), R.ravel()])
    return rhs.split(rhs(0.0, y))


def _blowup_event(t, y):
    return BLOWUP - np.max(np.abs(y))


_blowup_event.terminal = True


def _solve(rhs, y0, t_eval, *, method, rtol, atol, events=()):
    """solve_ivp over [0, t_eval[-1]] with a terminal blow-up event.

    Returns the solution and ``None``, or the solution and the time of a blow-up.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), y0, method=method, t_eval=t_eval,
                        rtol=rtol, atol=atol, events=(_blowup_event, *events))
    if sol.t_events[0].size:
        return sol, float(sol.t_events[0][0])
    if sol.status == -1:
        # The right-hand side is a polynomial, so an explicit method can only run out of step
        # size at a finite-time singularity, i.e. a blow-up (e.g. lr too large for a plateau).
        return sol, float(sol.t[-1]) if sol.t.size else 0.0
    return sol, None


def _raise_divergence(sol, t_bad, lr, p):
    raise DivergenceError(
        f"ODE solution blew up (overlaps beyond {BLOWUP:g} or a finite-time singularity; lr too "
        f"large?) near alpha = {t_bad * p / lr:.6g}", time=t_bad)


def integrate_odes(Q0, R0, T=None, *, lr, alpha_max, noise=0.0, second_order=True,
                   n_points=200, grid="log", alpha_min=None, alpha_eval=None,
                   method="DOP853", rtol=1e-9, atol=1e-12):
    """Integrate the full matrix ODEs for :math:`(Q(\\alpha), R(\\alpha))`.

    Parameters
    ----------
    Q0 : array_like, shape (p, p)
        Initial student overlap (symmetric).
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap; the identity by default.
    lr : float
        Learning rate :math:`\\gamma > 0`. It sets the clock
        :math:`\\alpha = (p/\\gamma) t'` and, if ``second_order``, the weight
        :math:`\\gamma/p` of the :math:`\\gamma^2` term.
    alpha_max : float
        Final time in :math:`\\alpha` (steps / N).
    noise : float
        Label-noise variance :math:`\\Delta`.
    second_order : bool
        Keep the :math:`4(\\gamma/p)(\\Phi + \\Delta Q)` term (finite-γ SGD).
        ``False`` gives population gradient flow.
    n_points, grid, alpha_min
        Output grid, see :func:`alpha_grid` (log-spaced by default).
    alpha_eval : array_like, optional
        Explicit increasing output times in ``[0, alpha_max]`` (e.g. the
        recorded times of an SGD run); overrides the grid options.
    method : str
        :func:`scipy.integrate.solve_ivp` method. The explicit 8th-order
        ``"DOP853"`` is the fastest at these tolerances (the system is at most
        mildly stiff).
    rtol, atol : float
        Integrator tolerances (in :math:`t'`, where the state is of order one).

    Returns
    -------
    Trajectory
        ``.alpha``, ``.t_prime``, ``.Q`` (n_t, p, p), ``.R`` (n_t, p, p_star), ``.risk``.

    Raises
    ------
    DivergenceError
        If an overlap exceeds ``BLOWUP`` or the integrator hits a finite-time
        singularity (e.g. γ too large for a plateau to exist). ``err.time``
        holds the time t′ of the blow-up (for a singularity, the last time
        reached).
    """
    Q0, R0, T, p, p_star = _check_initial(Q0, R0, T)
    lr = positive_float("lr", lr)
    noise = nonnegative_float("noise", noise)
    alpha_max = positive_float("alpha_max", alpha_max)
    rtol = positive_float("rtol", rtol)
    atol = positive_float("atol", atol)
    alpha = _output_times(alpha_max, n_points, grid, alpha_min, alpha_eval)
    g = lr / p if second_order else 0.0
    rhs = _FullRHS(p, p_star, T, g, noise)
    t_eval = alpha * lr / p
    y0 = np.concatenate([Q0.ravel(), R0.ravel()])
    sol, t_bad = _solve(rhs, y0, t_eval, method=method, rtol=rtol, atol=atol)
    if t_bad is not None:
        _raise_divergence(sol, t_bad, lr, p)
    n_t = sol.y.shape[1]
    Q = sol.y[: p * p].T.reshape(n_t, p, p)
    R = sol.y[p * p:].T.reshape(n_t, p, p_star)
    Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
    risk = population_risk(Q, R, T, noise)
    return Trajectory(alpha=alpha, Q=Q, R=R, risk=np.atleast_1d(risk), T=T, lr=lr, noise=noise,
                      second_order=bool(second_order), kind="ode",
                      extra={"nfev": sol.nfev, "method": method})


def _output_times(alpha_max, n_points, grid, alpha_min, alpha_eval):
    if alpha_eval is None:
        return alpha_grid(alpha_max, n_points, grid=grid, alpha_min=alpha_min)
    alpha = finite_array("alpha_eval", alpha_eval, ndim=1)
    if np.any(np.diff(alpha) <= 0) or alpha[0] < 0 or alpha[-1] > alpha_max * (1 + 1e-12):
        raise ValueError(
            f"alpha_eval must be strictly increasing within [0, alpha_max={alpha_max}], "
            f"got values from {alpha[0]!r} to {alpha[-1]!r}")
    return np.minimum(alpha, alpha_max)
