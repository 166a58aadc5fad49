"""The N → ∞ ODEs for the overlaps (Q, R), with or without the γ² term.

In the rescaled time :math:`t' = (\\gamma/p)\\alpha` the ODEs read [D]

.. math::

    \\frac{dR}{dt'} &= -2\\Big[\\tau R + 2\\Big(\\frac{QR}{p} - \\frac{RT}{p^*}\\Big)\\Big],\\\\
    \\frac{dQ}{dt'} &= -4\\Big[\\tau Q + 2\\Big(\\frac{Q^2}{p} - \\frac{RR^T}{p^*}\\Big)\\Big]
                     + 4\\frac{\\gamma}{p}\\,(\\Phi + \\Delta Q),

with :math:`\\tau = \\mathrm{Tr}Q/p - \\mathrm{Tr}T/p^*` and :math:`\\Phi` from
:func:`~ibcore.quadratic.phi_matrix`. The first-order part is exactly
population gradient flow; the :math:`\\gamma^2` part comes from
:math:`|x|^2/N \\to 1` in :math:`\\delta w_i\\cdot\\delta w_j`. In
:math:`\\alpha` every rate is multiplied by :math:`\\gamma/p`. These are the
equations of ``committee_learning/ode/square.py`` [P], re-derived in the
science notes (§3).

The integrator works in :math:`t'` (rates of order one whatever γ and p) with
an explicit high-order adaptive Runge-Kutta method, from :math:`t' = 0` to
``t_max``, and samples the dense output at the times of
``_evaluation_times``. ``lr=None`` is gradient flow.
"""
from __future__ import annotations


import numpy as np
from scipy.integrate import solve_ivp

from .._result import result
from ..validation import DivergenceError, nonnegative_float, positive_float
from .clock import _evaluation_times
from .moments import _phi_coefficients
from .order_parameters import population_risk, _validated_overlaps
from .trajectory import Trajectory

__all__ = ["OverlapRates", "ode_rhs", "integrate_odes"]

#: Q or R entries beyond this size count as a blow-up of the ODE.
_BLOWUP = 1e8


def _initial(Q0, R0, T):
    """Checked initial overlaps: symmetric Q0 and T, matching shapes."""
    return _validated_overlaps(Q0, R0, T, names=("Q0", "R0"), time_axis=False, symmetric=True)


def _gamma_weight(lr, p):
    """Weight g = γ/p of the γ² term: 0 for gradient flow (``lr=None``)."""
    return 0.0 if lr is None else positive_float("lr", lr) / p


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


@result
class OverlapRates:
    """Time derivatives of the overlaps with respect to :math:`t'`."""

    dQ: np.ndarray
    dR: np.ndarray


def ode_rhs(Q, R, T=None, *, lr=None, noise=0.0):
    """Time derivatives :math:`(dQ/dt', dR/dt')` of the overlap ODEs.

    Parameters
    ----------
    Q, R, T : array_like
        Overlaps, shapes (p, p), (p, p_star), (p_star, p_star); ``T``
        defaults to the identity.
    lr : float or None
        Learning rate γ of the :math:`\\gamma^2` term; ``None`` gives gradient flow.
    noise : float
        Label-noise variance Δ (enters only through the γ² term).

    Returns
    -------
    OverlapRates
        ``dQ`` and ``dR``, derivatives with respect to :math:`t' = (\\gamma/p)\\alpha`.
    """
    Q, R, T, p, p_star = _validated_overlaps(Q, R, T, time_axis=False, symmetric=True)
    rhs = _FullRHS(p, p_star, T, _gamma_weight(lr, p), nonnegative_float("noise", noise))
    y = np.concatenate([Q.ravel(), R.ravel()])
    return OverlapRates(*rhs.split(rhs(0.0, y)))


def _blowup_event(t, y):
    return _BLOWUP - np.max(np.abs(y))


_blowup_event.terminal = True


def _solve_overlap_odes(rhs, y0, t_eval, *, method="DOP853", rtol=1e-9, atol=1e-12, events=()):
    """``solve_ivp`` of an overlap system over :math:`[0, t'_{max}]`, with a terminal blow-up event.

    The integrator shared by :func:`~ibcore.quadratic.integrate_odes` and
    :func:`~ibcore.quadratic.integrate_reduced`.

    Parameters
    ----------
    rhs : callable
        ``rhs(t, y)``, the right-hand side in :math:`t'` on a flat state.
    y0 : ndarray
        Initial state.
    t_eval : ndarray
        Increasing output times in :math:`t'`; the run ends at ``t_eval[-1]``.
    method, rtol, atol
        Passed to :func:`scipy.integrate.solve_ivp`.
    events : tuple of callables
        Further events (the blow-up event is ``sol.t_events[0]``, these follow).

    Returns
    -------
    scipy.integrate.OdeResult

    Raises
    ------
    DivergenceError
        If a state entry exceeds 10⁸ (``_BLOWUP``) or the integrator hits a
        finite-time singularity; ``err.time`` is the time :math:`t'` reached.
    """
    rtol = positive_float("rtol", rtol)
    atol = positive_float("atol", atol)
    with np.errstate(over="ignore", invalid="ignore"):
        sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), y0, method=method, t_eval=t_eval,
                        rtol=rtol, atol=atol, events=(_blowup_event, *events))
    if sol.t_events[0].size:
        t_bad = float(sol.t_events[0][0])
    elif sol.status == -1:
        # The right-hand side is a polynomial, so an explicit method can only run out of step
        # size at a finite-time singularity, i.e. a blow-up (e.g. lr too large for a plateau).
        t_bad = float(sol.t[-1]) if sol.t.size else 0.0
    else:
        return sol
    raise DivergenceError(f"ODE solution blew up (overlaps beyond {_BLOWUP:g} or a finite-time "
                          f"singularity; lr too large?)", time=t_bad)


def integrate_odes(Q0, R0, T=None, *, t_max=None, lr=None, noise=0.0, n_points=200, grid="log",
                   t_min=None, t_eval=None, method="DOP853", rtol=1e-9, atol=1e-12):
    """Integrate the full matrix ODEs for :math:`(Q(t'), R(t'))`.

    Parameters
    ----------
    Q0 : array_like, shape (p, p)
        Initial student overlap (symmetric).
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap; the identity by default.
    t_max : float
        Final time :math:`t'` (optional when ``t_eval`` is given).
    lr : float or None
        Learning rate :math:`\\gamma > 0`: keeps the :math:`4(\\gamma/p)(\\Phi + \\Delta Q)`
        term of finite-γ SGD. ``None`` (default) is population gradient flow.
    noise : float
        Label-noise variance :math:`\\Delta`.
    n_points, grid, t_min
        Output grid, see :func:`~ibcore.quadratic.time_grid` (log-spaced by default).
    t_eval : array_like, optional
        Explicit increasing output times :math:`t'` (e.g. the record times
        ``run.t`` of an SGD run); overrides the grid options.
    method : str
        :func:`scipy.integrate.solve_ivp` method. The explicit 8th-order
        ``"DOP853"`` is the fastest at these tolerances (the system is at most
        mildly stiff).
    rtol, atol : float
        Integrator tolerances (in :math:`t'`, where the state is of order one).

    Returns
    -------
    Trajectory
        ``.t``, ``.Q`` (n_t, p, p), ``.R`` (n_t, p, p_star), ``.risk``.

    Raises
    ------
    DivergenceError
        If an overlap exceeds 10⁸ (``_BLOWUP``) or the integrator hits a finite-time
        singularity (e.g. γ too large for a plateau to exist). ``err.time``
        holds the time t′ of the blow-up (for a singularity, the last time
        reached).
    """
    Q0, R0, T, p, p_star = _initial(Q0, R0, T)
    g = _gamma_weight(lr, p)
    noise = nonnegative_float("noise", noise)
    t = _evaluation_times(t_max, t_eval, n_points=n_points, grid=grid, t_min=t_min)
    rhs = _FullRHS(p, p_star, T, g, noise)
    y0 = np.concatenate([Q0.ravel(), R0.ravel()])
    sol = _solve_overlap_odes(rhs, y0, t, method=method, rtol=rtol, atol=atol)
    n_t = sol.y.shape[1]
    Q = sol.y[: p * p].T.reshape(n_t, p, p)
    R = sol.y[p * p:].T.reshape(n_t, p, p_star)
    Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
    risk = population_risk(Q, R, T, noise)
    return Trajectory(t=t, Q=Q, R=R, risk=np.atleast_1d(risk), T=T,
                      lr=None if lr is None else float(lr), noise=noise, kind="ode", nfev=int(sol.nfev), message=sol.message)
