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
from scipy.integrate import DOP853, solve_ivp
from scipy.integrate._ivp.rk import MAX_FACTOR, MIN_FACTOR, SAFETY, rk_step

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
    """Right-hand side in t' on the flat state: the rows of the p × (p + p*) block B = [Q | R].

    Everything is two products with B. For the symmetric
    :math:`M = \\tfrac{c_1}2 I + \\tfrac{c_3}2 Q + \\tfrac{c_4}2 Q^2 + c_5 RR^T`
    and :math:`C = \\tfrac{c_2}2 I + \\tfrac{c_{2T}}2 T`,

    .. math::

        [K \\mid dR] = B \\begin{pmatrix} M & -\\tfrac4p R\\\\ CR^T & \\tfrac4{p^*}T - 2\\tau I\\end{pmatrix},
        \\qquad dQ = K + K^T,

    since :math:`c_1 Q + c_3 Q^2 + c_4 Q^3 + c_5(RR^TQ + QRR^T) = QM + MQ` (a polynomial
    in Q commutes with Q) and :math:`c_2RR^T + c_{2T}RTR^T = RCR^T + (RCR^T)^T`. The
    quadratic part of M is one more product, :math:`\\tfrac{c_4}2 Q^2 + c_5 RR^T = B\\,DB^T`
    with :math:`D = \\mathrm{diag}(\\tfrac{c_4}2 1_p, c_5 1_{p^*})` (constants). The
    matrices are filled in place in preallocated buffers: at p = 32 each numpy call
    costs more than its arithmetic.
    """

    def __init__(self, p, p_star, T, g, noise):
        self.p, self.ps, self.T, self.g, self.noise = p, p_star, T, g, noise
        self.trT = float(np.trace(T))
        self.trT2 = float(np.sum(T * T))
        self.identity_T = np.array_equal(T, np.eye(p_star))
        n = p + p_star
        self._S = np.zeros((n, n))                     # the matrix B is multiplied by
        self._S_diag = self._S.reshape(-1)[:: n + 1]
        self._P = np.zeros((n, p))                     # D B^T + (c3/2) [I; 0], so that B P = M - c1/2 I
        self._P_diag = self._P.reshape(-1)[: p * (p + 1): p + 1]
        # indicators on the flat state: of the diagonal of Q, and of the entries of Q and of R
        cells = np.zeros((3, p, n))
        cells[0, :, :p] = np.eye(p)
        cells[1, :, :p] = 1.0
        cells[2, :, p:] = 1.0
        self._diagonal_cells, self._block_cells = cells[0].ravel(), cells[1:].reshape(2, -1)
        _, _, _, _, cX, cQQQ = _phi_coefficients(0.0, 0.0, 0.0, self.trT, self.trT2, p, p_star, noise)
        self._D = np.concatenate([np.full(p, 2.0 * g * cQQQ), np.full(p_star, 4.0 * g * cX)])[:, None]

    def state(self, Q, R):
        """Flat state of the overlaps."""
        return np.hstack([Q, R]).ravel()

    def split(self, y):
        """``(Q, R)`` views of a flat state (or of states along a last time axis)."""
        p = self.p
        block = y.reshape(p, p + self.ps, *y.shape[1:])
        return block[:, :p], block[:, p:]

    def __call__(self, t, y):
        p, ps, S = self.p, self.ps, self._S
        B = y.reshape(p, p + ps)
        Q, R = B[:, :p], B[:, p:]
        trQ = float(self._diagonal_cells @ y)
        tau = trQ / p - self.trT / ps
        # dQ = c1 Q + c2 RR^T + c2T RTR^T + c3 Q^2 + c4 Q^3 + c5 (RR^TQ + QRR^T)
        c1, c2, c2T, c3 = -4.0 * tau, 8.0 / ps, 0.0, -8.0 / p
        M = S[:p, :p]
        if self.g:
            trQ2, R2 = (self._block_cells @ (y * y)).tolist()   # Tr Q^2 = |Q|_F^2 (Q symmetric), |R|_F^2
            cQ, cRR, cRTR, cQQ, _, _ = _phi_coefficients(
                trQ, trQ2, R2, self.trT, self.trT2, p, ps, self.noise)
            g4 = 4.0 * self.g
            c1 += g4 * cQ
            c2 += g4 * cRR
            c2T += g4 * cRTR
            c3 += g4 * cQQ
            np.multiply(B.T, self._D, out=self._P)
            self._P_diag += 0.5 * c3
            np.matmul(B, self._P, out=M)
        else:
            np.multiply(Q, 0.5 * c3, out=M)
        self._S_diag[:p] += 0.5 * c1
        np.multiply(R, -4.0 / p, out=S[:p, p:])
        if self.identity_T:
            np.multiply(R.T, 0.5 * (c2 + c2T), out=S[p:, :p])
            self._S_diag[p:] = 4.0 / ps - 2.0 * tau
        else:
            np.matmul(0.5 * c2 * np.eye(ps) + 0.5 * c2T * self.T, R.T, out=S[p:, :p])
            np.multiply(self.T, 4.0 / ps, out=S[p:, p:])
            self._S_diag[p:] -= 2.0 * tau
        out = B @ S
        K = out[:, :p]
        K += K.T
        return out.ravel()


class _StabilisedDOP853(DOP853):
    """scipy's DOP853 with a stabilised (PI) step-size control (Gustafsson; Hairer & Wanner II, §IV.2).

    Once a run has converged its step size is set by the stability of the method (the
    fastest mode of the linearised ODEs, about -6 at (p, p*) = (32, 4)), not by accuracy.
    scipy's controller, which looks at the last error only, then oscillates about the
    stability limit and rejects about one step in five (12 evaluations each). Remembering
    the previous error damps the oscillation: the step grows by
    :math:`0.9\\,e_n^{-(1/8 - 0.75\\beta)}\\,\\max(e_{n-1}, 10^{-4})^{\\beta}` with
    :math:`\\beta = 0.04` (the default of the BETA option of Hairer's DOPRI5 code; β = 0 is
    scipy's controller). Everything else (stages, error estimate, dense output) is scipy's.
    """

    beta = 0.04

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.previous_error = 1e-4

    def _step_impl(self):
        t, y = self.t, self.y
        min_step = 10 * np.abs(np.nextafter(t, self.direction * np.inf) - t)
        h_abs = min(max(self.h_abs, min_step), self.max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                return False, self.TOO_SMALL_STEP
            t_new = t + h_abs * self.direction
            if self.direction * (t_new - self.t_bound) > 0:
                t_new = self.t_bound
            h = t_new - t
            h_abs = abs(h)
            y_new, f_new = rk_step(self.fun, t, y, self.f, h, self.A, self.B, self.C, self.K)
            scale = self.atol + np.maximum(np.abs(y), np.abs(y_new)) * self.rtol
            error = self._estimate_error_norm(self.K, h, scale)
            if error < 1:
                factor = (SAFETY * max(error, 1e-10) ** (0.75 * self.beta - 1 / 8)
                          * self.previous_error ** self.beta)
                h_abs *= min(1.0 if rejected else MAX_FACTOR, factor)
                self.previous_error = max(error, 1e-4)
                break
            h_abs *= max(MIN_FACTOR, SAFETY * error ** (-1 / 8))
            rejected = True
        self.h_previous, self.y_old = h, y
        self.t, self.y, self.h_abs, self.f = t_new, y_new, h_abs, f_new
        return True, None


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
        Passed to :func:`scipy.integrate.solve_ivp`; ``"DOP853"`` is scipy's DOP853 with
        the stabilised step-size control of ``_StabilisedDOP853`` (pass the class
        :class:`scipy.integrate.DOP853` for scipy's own controller).
    events : tuple of callables
        Further events (the blow-up event is ``sol.t_events[0]``, these follow).

    Returns
    -------
    scipy.integrate.OdeResult

    Raises
    ------
    DivergenceError
        If a state entry exceeds 10⁸ (``_BLOWUP``) or the integrator hits a
        finite-time singularity; ``err.time`` is the time :math:`t'` reached (the
        latest time at which ``rhs`` was evaluated, not the last output time).
    """
    rtol = positive_float("rtol", rtol)
    atol = positive_float("atol", atol)
    # sol.t holds only the output times reached: the time the integrator reached before a
    # singularity is the latest time at which it evaluated the right-hand side
    reached = [0.0]

    def tracked(t, y):
        reached[0] = max(reached[0], t)
        return rhs(t, y)

    with np.errstate(over="ignore", invalid="ignore"):
        solver = _StabilisedDOP853 if method == "DOP853" else method
        sol = solve_ivp(tracked, (0.0, float(t_eval[-1])), y0, method=solver, t_eval=t_eval,
                        rtol=rtol, atol=atol, events=(_blowup_event, *events))
    if sol.t_events[0].size:
        t_bad = float(sol.t_events[0][0])
    elif sol.status == -1:
        # The right-hand side is a polynomial, so an explicit method can only run out of step
        # size at a finite-time singularity, i.e. a blow-up (e.g. lr too large for a plateau).
        t_bad = float(reached[0])
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
    n_points : int
        Number of output times (at least 2), including :math:`t' = 0`.
    grid : {"log", "linear"}
        ``"log"`` (default): 0 followed by ``n_points - 1`` log-spaced times from
        ``t_min`` to ``t_max`` (for log-x plots); ``"linear"``: evenly spaced from 0.
    t_min : float, optional
        First non-zero time of the log grid, in :math:`t'`; ``t_max / 1e4`` by default.
    t_eval : array_like, optional
        Explicit increasing output times :math:`t'` (e.g. the record times
        ``run.t`` of an SGD run); overrides the grid options.
    method : str
        :func:`scipy.integrate.solve_ivp` method. The explicit 8th-order
        ``"DOP853"`` is the fastest at these tolerances (the system is at most
        mildly stiff; LSODA's stiff mode would difference a Jacobian of
        :math:`p(p+p^*)` columns); its step-size control is stabilised for the
        converged tail (``_StabilisedDOP853``).
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
        holds the time t′ of the blow-up (for a singularity, the latest time
        at which the integrator evaluated the right-hand side, whatever ``t_eval``).
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
