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
``_evaluation_times``; with ``stop_below`` it stops at the first of those times after the
risk has fallen below that level (an escape time needs nothing later). ``lr=None`` is
gradient flow.
"""
from __future__ import annotations


import numpy as np
from scipy.integrate import solve_ivp

from .._result import result
from ..validation import DivergenceError, nonnegative_float, positive_float
from .clock import _evaluation_times
from .moments import _phi_coefficients
from .order_parameters import population_risk, _risk, _validated_overlaps
from .trajectory import Trajectory

__all__ = ["ode_rhs", "integrate_odes", "OverlapRates"]

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
    with :math:`D = \\mathrm{diag}(\\tfrac{c_4}2 1_p, c_5 1_{p^*})` (constants). The trace
    of that product also gives the invariants :math:`\\mathrm{Tr}Q^2` and :math:`\\|R\\|_F^2`
    in the combination in which :math:`c_Q` holds them (the Wick pairings give
    :math:`\\partial c_Q/\\partial\\mathrm{Tr}Q^2 = c_{QQQ}/4` and
    :math:`\\partial c_Q/\\partial\\|R\\|_F^2 = c_X/2`, so
    :math:`\\mathrm{Tr}(BDB^T) = 8g\\,\\delta c_Q`): the coefficients that need them are
    added after it. The matrices are filled in place in preallocated buffers: at p = 32
    each numpy call costs more than its arithmetic.
    """

    def __init__(self, p, p_star, T, g, noise):
        self.p, self.ps, self.T, self.g, self.noise = p, p_star, T, g, noise
        self.trT = float(np.trace(T))
        self.trT2 = float(np.sum(T * T))
        self.identity_T = np.array_equal(T, np.eye(p_star))
        n = p + p_star
        S = self._S = np.zeros((n, n))                 # the matrix B is multiplied by
        S[p:, p:] = (4.0 / p_star) * T                   # constant but for its diagonal, 4T_kk/p* - 2τ
        self._teacher_diagonal = np.diag(S[p:, p:]).copy()
        # views of S, made once: slicing costs as much as the arithmetic at these sizes
        self._S_left, self._M, self._RT_block, self._R_block = S[:, :p], S[:p, :p], S[p:, :p], S[:p, p:]
        diagonal = S.reshape(-1)[:: n + 1]
        self._M_diagonal, self._T_block_diagonal = diagonal[:p], diagonal[p:]
        self._P = np.zeros((n, p))                     # D B^T + (c3/2) [I; 0], so that B P = M - c1/2 I
        self._P_diagonal = self._P.reshape(-1)[: p * (p + 1): p + 1]
        self._diagonal_cells = np.hstack([np.eye(p), np.zeros((p, p_star))]).ravel()  # Tr Q = this · y
        _, _, _, _, cX, cQQQ = _phi_coefficients(0.0, 0.0, 0.0, self.trT, self.trT2, p, p_star, noise)
        self._D = np.concatenate([np.full(p, 2.0 * g * cQQQ), np.full(p_star, 4.0 * g * cX)])[:, None]
        self._flow_scale = np.concatenate([np.full(p, -4.0 / p), np.full(p_star, 4.0 / p_star)])[:, None]

    def state(self, Q, R):
        """Flat state of the overlaps."""
        return np.hstack([Q, R]).ravel()

    def split(self, y):
        """``(Q, R)`` views of a flat state (or of states along a last time axis)."""
        p = self.p
        block = y.reshape(p, p + self.ps, *y.shape[1:])
        return block[:, :p], block[:, p:]

    def risk(self, y):
        """Population risk of a flat state (the stopping event calls it at every step)."""
        return float(_risk(*self.split(y), self.T, self.noise))

    def __call__(self, t, y):
        p, ps = self.p, self.ps
        B = y.reshape(p, p + ps)
        R = B[:, p:]
        trQ = float(self._diagonal_cells @ y)
        tau = trQ / p - self.trT / ps
        # dQ = c1 Q + c2 RR^T + c2T RTR^T + c3 Q^2 + c4 Q^3 + c5 (RR^TQ + QRR^T)
        c1 = -4.0 * tau
        if self.g:
            # c_Q at Tr Q^2 = |R|_F^2 = 0; the rest of it comes from Tr(B D B^T) below
            cQ, cRR, cRTR, cQQ, _, _ = _phi_coefficients(trQ, 0.0, 0.0, self.trT, self.trT2, p, ps, self.noise)
            g4 = 4.0 * self.g
            c2, c2T, c3 = 8.0 / ps + g4 * cRR, g4 * cRTR, -8.0 / p + g4 * cQQ
            np.multiply(B.T, self._D, out=self._P)
            np.add(self._P_diagonal, 0.5 * c3, out=self._P_diagonal)
            np.matmul(B, self._P, out=self._M)                   # B D B^T + (c3/2) Q
            c1 += g4 * cQ + 0.5 * (float(self._M_diagonal.sum()) - 0.5 * c3 * trQ)
            if self.identity_T:
                np.multiply(R.T, 0.5 * (c2 + c2T), out=self._RT_block)
            else:
                np.matmul(0.5 * c2 * np.eye(ps) + 0.5 * c2T * self.T, R.T, out=self._RT_block)
        else:  # c2T = c4 = c5 = 0 and c2, c3 are constants: [M - c1/2 I; C R^T] = [c3/2 Q; c2/2 R^T]
            np.multiply(B.T, self._flow_scale, out=self._S_left)
        np.add(self._M_diagonal, 0.5 * c1, out=self._M_diagonal)
        np.multiply(R, -4.0 / p, out=self._R_block)
        np.subtract(self._teacher_diagonal, 2.0 * tau, out=self._T_block_diagonal)
        out = B @ self._S
        K = out[:, :p]
        K += K.T
        return out.ravel()


@result
class OverlapRates:
    """Time derivatives of the overlaps with respect to :math:`t'`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> dQ, dR = q.ode_rhs(np.eye(2), np.eye(2))   # a zero-loss point: nothing moves
    >>> print(np.abs(dQ).max(), np.abs(dR).max())
    0.0 0.0
    """

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
    :class:`~ibcore.quadratic.OverlapRates`
        ``dQ`` and ``dR``, derivatives with respect to :math:`t' = (\\gamma/p)\\alpha`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> rates = q.ode_rhs(np.eye(2), np.eye(2))   # a zero-loss point: nothing moves
    >>> print(np.abs(rates.dQ).max(), np.abs(rates.dR).max())
    0.0 0.0
    """
    Q, R, T, p, p_star = _validated_overlaps(Q, R, T, time_axis=False, symmetric=True)
    rhs = _FullRHS(p, p_star, T, _gamma_weight(lr, p), nonnegative_float("noise", noise))
    return OverlapRates(*(x.copy() for x in rhs.split(rhs(0.0, rhs.state(Q, R)))))


def _blowup_event(t, y):
    return _BLOWUP - np.max(np.abs(y))


_blowup_event.terminal = True


def _solve_overlap_odes(rhs, y0, t_eval, *, method="DOP853", rtol=1e-9, atol=1e-12, events=(), stop_below=None):
    """``solve_ivp`` of an overlap system over :math:`[0, t'_{max}]`, with a terminal blow-up event.

    The integrator shared by :func:`~ibcore.quadratic.integrate_odes` and
    :func:`~ibcore.quadratic.integrate_reduced`. With ``stop_below`` a terminal event stops
    the run where ``rhs.risk`` falls below that level; the run then goes on from that point
    to the next output time only, so that the output ends with the first sample after the
    crossing. The samples before it are those of the full run (the solver's steps are the
    same up to the crossing), the last one agrees with it to the tolerances.

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
    stop_below : float, optional
        Stop after the first output time past the first crossing of ``rhs.risk`` below
        this level (at the first output time if the start is below it already).

    Returns
    -------
    scipy.integrate.OdeResult
        With ``stop_below``, ``sol.t`` and ``sol.y`` end at the first output time after the
        crossing, and ``sol.status`` is 1 if it was reached.

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
        if t > reached[0]:
            reached[0] = t
        return rhs(t, y)

    def solve(t0, y_start, times, more_events=()):
        with np.errstate(over="ignore", invalid="ignore"):
            sol = solve_ivp(tracked, (t0, float(times[-1])), y_start, method=method, t_eval=times,
                            rtol=rtol, atol=atol, events=(_blowup_event, *more_events))
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

    if stop_below is None:
        return solve(0.0, y0, t_eval, events)
    if rhs.risk(y0) < stop_below:  # below from the start: the run ends at its first output time
        if t_eval[0] > 0:
            sol = solve(0.0, y0, t_eval[:1], events)
        else:
            sol = solve(0.0, y0, t_eval[:2], events)
            sol.t, sol.y = sol.t[:1], sol.y[:, :1]
        sol.status = 1
        return sol

    def below(t, y):
        return rhs.risk(y) - stop_below

    below.terminal, below.direction = True, -1
    sol = solve(0.0, y0, t_eval, (*events, below))
    crossed = sol.t_events[-1]
    after = t_eval[t_eval > crossed[0]][:1] if crossed.size else t_eval[:0]
    if after.size:  # from the crossing on to the next output time, the first sample below
        rest = solve(float(crossed[0]), sol.y_events[-1][0], after)
        sol.t, sol.y = np.concatenate([sol.t, rest.t]), np.hstack([sol.y, rest.y])
        sol.nfev += rest.nfev
    sol.status = 1 if crossed.size else sol.status
    return sol


def integrate_odes(Q0, R0, T=None, *, t_max=None, lr=None, noise=0.0, n_points=200, grid="log",
                   t_min=None, t_eval=None, method="DOP853", rtol=1e-9, atol=1e-12, stop_below=None):
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
        :math:`p(p+p^*)` columns).
    rtol, atol : float
        Integrator tolerances (in :math:`t'`, where the state is of order one).
    stop_below : float, optional
        Stop at the first output time after the population risk has fallen below this
        value (a terminal event of the integrator finds the crossing), as
        :func:`~ibcore.quadratic.sgd_one_pass` stops at its first record below it: an
        escape time (:meth:`~ibcore.quadratic.Trajectory.escape_time`) needs nothing later.
        The samples up to the crossing are those of the full run, the last one agrees with
        it to the tolerances; ``success`` says whether the level was reached.

    Returns
    -------
    :class:`~ibcore.quadratic.Trajectory`
        ``.t``, ``.Q`` (n_t, p, p), ``.R`` (n_t, p, p_star), ``.risk``; with ``stop_below``,
        up to the first output time below it.

    Raises
    ------
    DivergenceError
        If an overlap exceeds 10⁸ (``_BLOWUP``) or the integrator hits a finite-time
        singularity (e.g. γ too large for a plateau to exist). ``err.time``
        holds the time t′ of the blow-up (for a singularity, the latest time
        at which the integrator evaluated the right-hand side, whatever ``t_eval``).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> Q0, R0, T = q.initial_overlaps(4, 2, 1000, rng=0)
    >>> traj = q.integrate_odes(Q0, R0, T, t_max=20.0, n_points=50)
    >>> traj.Q.shape, traj.R.shape
    ((50, 4, 4), (50, 4, 2))
    >>> print(f"{traj.risk[0]:.3f} -> {traj.risk[-1]:.1e}")
    0.749 -> 6.3e-05

    Stopped once the risk is below half the plateau's, the run gives the same escape time
    as the full one:

    >>> level = 0.5 * q.plateau_risk(4, 2)
    >>> full = q.integrate_odes(Q0, R0, T, t_max=20.0, n_points=401, grid="linear")
    >>> early = q.integrate_odes(Q0, R0, T, t_max=20.0, n_points=401, grid="linear", stop_below=level)
    >>> early.success, early.t.size < full.t.size, bool(early.risk[-1] < level <= early.risk[-2])
    (True, True, True)
    >>> print(f"{early.escape_time():.6f} {full.escape_time():.6f}")
    1.844926 1.844926
    """
    Q0, R0, T, p, p_star = _initial(Q0, R0, T)
    g = _gamma_weight(lr, p)
    noise = nonnegative_float("noise", noise)
    t = _evaluation_times(t_max, t_eval, n_points=n_points, grid=grid, t_min=t_min)
    stop = None if stop_below is None else positive_float("stop_below", stop_below)
    rhs = _FullRHS(p, p_star, T, g, noise)
    sol = _solve_overlap_odes(rhs, rhs.state(Q0, R0), t, method=method, rtol=rtol, atol=atol,
                              stop_below=stop)
    t = t[:sol.t.size]
    Q, R = (np.moveaxis(x, -1, 0) for x in rhs.split(sol.y))
    Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
    R = np.ascontiguousarray(R)
    risk = population_risk(Q, R, T, noise=noise)
    if stop is None:
        success, message = True, sol.message
    else:
        success = sol.status == 1
        message = (f"the risk fell below stop_below by t′ = {t[-1]:.6g}" if success
                   else f"the risk stayed above stop_below up to t′ = {t[-1]:.6g}")
    return Trajectory(t=t, Q=Q, R=R, risk=np.atleast_1d(risk), T=T, lr=None if lr is None else float(lr),
                      noise=noise, kind="ode", success=success, nfev=int(sol.nfev), message=message)
