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

__all__ = ["ode_rhs", "integrate_odes"]

#: Q or R entries beyond this size count as a blow-up of the ODE.
_BLOWUP = 1e8


def _initial(Q0, R0, T):
    """Checked initial overlaps: symmetric Q0 and T, matching shapes."""
    return _validated_overlaps(Q0, R0, T, names=("Q0", "R0"), time_axis=False, symmetric=True)


def _gamma_weight(lr, p):
    """Weight g = γ/p of the γ² term: 0 for gradient flow (``lr=None``)."""
    return 0.0 if lr is None else positive_float("lr", lr) / p


class _FullRHS:
    """Right-hand side in t' on the flat state: the rows of the p × (p + p*) block [Q | R].

    With that layout one product gives :math:`[Q^2 | QR] = Q\\,[Q | R]`, and the
    γ² polynomial folds into one more: for the symmetric
    :math:`M = \\tfrac{c_1}2 I + \\tfrac{c_3}2 Q + \\tfrac{c_4}2 Q^2 + c_5 RR^T`,

    .. math::

        c_1 Q + c_3 Q^2 + c_4 Q^3 + c_5(RR^TQ + QRR^T) = QM + (QM)^T,

    since a polynomial in Q commutes with Q. Three products of p × p size per call.
    """

    def __init__(self, p, p_star, T, g, noise):
        self.p, self.ps, self.T, self.g, self.noise = p, p_star, T, g, noise
        self.trT = float(np.trace(T))
        self.trT2 = float(np.sum(T * T))
        self.identity_T = np.array_equal(T, np.eye(p_star))

    def state(self, Q, R):
        """Flat state of the overlaps."""
        return np.hstack([Q, R]).ravel()

    def split(self, y):
        """``(Q, R)`` views of a flat state (or of states along a last time axis)."""
        p = self.p
        block = y.reshape(p, p + self.ps, *y.shape[1:])
        return block[:, :p], block[:, p:]

    def __call__(self, t, y):
        p, ps, g = self.p, self.ps, self.g
        block = y.reshape(p, p + ps)
        Q, R = block[:, :p], block[:, p:]
        QQ_QR = Q @ block                      # [Q^2 | QR]
        QQ, QR = QQ_QR[:, :p], QQ_QR[:, p:]
        RRt = R @ R.T
        trQ = float(Q.trace())
        tau = trQ / p - self.trT / ps
        RT = R if self.identity_T else R @ self.T
        # dQ = c1 Q + c2 RR^T + c2T RTR^T + c3 Q^2 + c4 Q^3 + c5 (RR^TQ + QRR^T)
        c1, c2, c2T, c3, c4, c5 = -4.0 * tau, 8.0 / ps, 0.0, -8.0 / p, 0.0, 0.0
        if g:
            cQ, cRR, cRTR, cQQ, cX, cQQQ = _phi_coefficients(
                trQ, float(QQ.trace()), float(RRt.trace()), self.trT, self.trT2, p, ps, self.noise)
            g4 = 4.0 * g
            c1 += g4 * cQ
            c2 += g4 * cRR
            c2T += g4 * cRTR
            c3 += g4 * cQQ
            c4 += g4 * cQQQ
            c5 += g4 * cX
            if self.identity_T:
                c2, c2T = c2 + c2T, 0.0
        M = (0.5 * c3) * Q
        if c4:
            M += (0.5 * c4) * QQ
        if c5:
            M += c5 * RRt
        M.flat[:: p + 1] += 0.5 * c1
        QM = Q @ M
        out = np.empty((p, p + ps))
        dQ = out[:, :p]
        np.add(QM, QM.T, out=dQ)
        dQ += c2 * RRt
        if c2T:
            dQ += c2T * (RT @ R.T)
        dR = out[:, p:]
        np.multiply(RT, 4.0 / ps, out=dR)
        dR -= (4.0 / p) * QR
        dR -= (2.0 * tau) * R
        return out.ravel()


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
    :class:`~ibcore.quadratic.odes.OverlapRates`
        ``dQ`` and ``dR``, derivatives with respect to :math:`t' = (\\gamma/p)\\alpha`.
    """
    Q, R, T, p, p_star = _validated_overlaps(Q, R, T, time_axis=False, symmetric=True)
    rhs = _FullRHS(p, p_star, T, _gamma_weight(lr, p), nonnegative_float("noise", noise))
    return OverlapRates(*(x.copy() for x in rhs.split(rhs(0.0, rhs.state(Q, R)))))


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
    :class:`~ibcore.quadratic.trajectory.Trajectory`
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
    sol = _solve_overlap_odes(rhs, rhs.state(Q0, R0), t, method=method, rtol=rtol, atol=atol)
    Q, R = (np.moveaxis(x, -1, 0) for x in rhs.split(sol.y))
    Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
    R = np.ascontiguousarray(R)
    risk = population_risk(Q, R, T, noise)
    return Trajectory(t=t, Q=Q, R=R, risk=np.atleast_1d(risk), T=T,
                      lr=None if lr is None else float(lr), noise=noise, kind="ode", nfev=int(sol.nfev), message=sol.message)
