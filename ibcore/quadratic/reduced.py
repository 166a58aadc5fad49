"""Exact reduction of the ODEs to 2p*+1 scalars for isotropic starts (T = I) [D].

Write :math:`R = U\\,\\mathrm{diag}(r)\\,V^T` (singular value decomposition,
:math:`U\\in\\mathbb R^{p\\times p^*}` with orthonormal columns) and split
:math:`Q` into the teacher-aligned frame :math:`U` and its complement,

.. math::

    Q = U\\,\\mathrm{diag}(r^2 + d)\\,U^T + a\\,(I - UU^T).

If :math:`Q(0)` has this form (true for :math:`Q(0) = q_0 I`, where
:math:`d_k = q_0 - r_k^2` and :math:`a = q_0`) the ODEs keep it with
:math:`U, V` fixed, and close on :math:`(r_k, d_k, a)`. With
:math:`q_k = r_k^2 + d_k`, :math:`s = \\sum_k q_k + (p-p^*)a` and
:math:`\\tau = s/p - 1`, in :math:`t' = (\\gamma/p)\\alpha`:

.. math::

    \\dot r_k &= \\Big[-2\\tau + \\frac4{p^*} - \\frac4p q_k\\Big] r_k,\\\\
    \\dot d_k &= -4\\Big[\\tau + \\frac2p q_k\\Big] d_k + 4g\\,\\Phi(q_k, r_k^2),\\\\
    \\dot a &= -4\\Big[\\tau + \\frac2p a\\Big] a + 4g\\,\\Phi(a, 0),

where :math:`g = \\gamma/p` (0 for gradient flow) and :math:`\\Phi(q, \\rho)` is
the eigenvalue of :math:`\\Phi + \\Delta Q` in the corresponding direction
(all matrices in :math:`\\Phi` commute here). The notes give the gradient-flow
part; the γ² part is our extension, checked against the full system in the
tests. The risk is

.. math::

    \\epsilon_g = \\tfrac12\\tau^2 + \\frac{\\sum_k q_k^2 + (p-p^*)a^2}{p^2}
                 - \\frac{2\\sum_k r_k^2}{pp^*} + \\frac1{p^*} + \\frac\\Delta2.

The polar factor :math:`S = UV^T` of R never changes: this is the conserved
frame of :mod:`~ibcore.quadratic.symmetry`. Requires :math:`p \\ge p^*`.
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import nonnegative_float, positive_float
from .clock import _evaluation_times
from .moments import _phi_coefficients
from .odes import _solve_overlap_odes
from .order_parameters import _validated_overlaps
from .phases import _escape_level, plateau_risk
from .trajectory import Trajectory

__all__ = ["integrate_reduced", "reduced_escape_time", "ReducedTrajectory"]


@result
class _ReducedState:
    """Reduced coordinates of an isotropic start and its fixed frame (``_reduce_overlaps``)."""

    r: np.ndarray
    """Singular values of R, shape (p_star,)."""
    d: np.ndarray
    """:math:`q_k - r_k^2` in the teacher-aligned frame, shape (p_star,)."""
    a: float
    """Norm of Q in the complement of the frame."""
    U: np.ndarray
    """Left singular vectors of R, shape (p, p_star): the fixed frame."""
    V: np.ndarray
    """Right singular vectors of R, shape (p_star, p_star)."""


def _reduce_overlaps(Q0, R0, T=None, *, tol=1e-9):
    """Reduced coordinates :math:`(r, d, a)` and the fixed frame of an isotropic start.

    Parameters
    ----------
    Q0, R0, T : array_like
        Initial overlaps; ``T`` must be the identity (default).
    tol : float
        Relative tolerance for the check that :math:`Q_0` has the reducible
        form :math:`U\\mathrm{diag}(q)U^T + a(I - UU^T)`.

    Returns
    -------
    _ReducedState
        ``r``, ``d`` (shape (p_star,)), ``a`` (float), ``U`` (p, p_star) and
        ``V`` (p_star, p_star); unpacks in this order.

    Raises
    ------
    ValueError
        If ``p < p_star``, ``T`` is not the identity, or ``Q0`` is not of the
        reducible form.
    """
    Q0, R0, T, p, p_star = _validated_overlaps(Q0, R0, T, names=("Q0", "R0"), time_axis=False,
                                              symmetric=True)
    if p < p_star:
        raise ValueError(f"p must be >= p_star = {p_star} for the reduction, got p = {p}")
    if not np.allclose(T, np.eye(p_star), rtol=0, atol=1e-12):
        raise ValueError("T must be the identity (orthonormal teacher) for the reduction")
    U, r, Vt = np.linalg.svd(R0, full_matrices=False)
    q = np.einsum("ik,ij,jk->k", U, Q0, U)
    P_perp = np.eye(p) - U @ U.T
    a = float(np.trace(P_perp @ Q0) / (p - p_star)) if p > p_star else 0.0
    model = U @ np.diag(q) @ U.T + (a * P_perp if p > p_star else 0.0)
    scale = max(1.0, float(np.abs(Q0).max()))
    if np.abs(Q0 - model).max() > tol * scale:
        raise ValueError(
            "Q0 is not of the reducible form U diag(q) U^T + a (I - U U^T) in the singular frame "
            "of R0 (e.g. Q0 = q0 I); use integrate_odes instead")
    return _ReducedState(r, q - r**2, a, U, Vt.T)


class _ReducedRHS:
    """Right-hand side on the state :math:`y = (r_1..r_{p^*}, d_1..d_{p^*}, a)`.

    The complement counts as one more direction :math:`x_{p^*} = a` with :math:`r = 0`
    (so :math:`q = a`) and multiplicity :math:`p - p^*`: the equations of ``d`` and ``a``
    are then one vector equation on :math:`x = (d, a)`.
    """

    def __init__(self, p, p_star, g, noise):
        self.p, self.ps, self.g, self.noise = p, p_star, g, noise
        self.mult = np.ones(p_star + 1)
        self.mult[-1] = p - p_star

    def overlaps(self, y):
        """(r, rho = r², x = (d, a), q = (r² + d, a), Tr Q) of states y (along the last axis)."""
        ps = self.ps
        r, x = y[..., :ps], y[..., ps:]
        rho = r * r
        q = x.copy()
        q[..., :ps] += rho
        return r, rho, x, q, q @ self.mult

    def risk(self, y):
        """Population risk of states y (along the last axis)."""
        p, ps = self.p, self.ps
        _, rho, _, q, s = self.overlaps(y)
        tau = s / p - 1.0
        return (0.5 * tau * tau + ((q * q) @ self.mult) / p**2
                - 2.0 * rho.sum(axis=-1) / (p * ps) + 1.0 / ps + 0.5 * self.noise)

    def __call__(self, t, y):
        p, ps = self.p, self.ps
        r, rho, x, q, s = self.overlaps(y)
        tau = float(s) / p - 1.0
        out = np.empty_like(y)
        out[:ps] = (4.0 / ps - 2.0 * tau - (4.0 / p) * q[:ps]) * r
        dx = out[ps:]
        np.multiply((-4.0 * tau) - (8.0 / p) * q, x, out=dx)
        if self.g:
            qq = q * q
            cQ, cRR, cRTR, cQQ, cX, cQQQ = _phi_coefficients(
                float(s), float(qq @ self.mult), float(rho.sum()), ps, ps, p, ps, self.noise)
            phi = q * (cQ + cQQ * q + cQQQ * qq)      # eigenvalue of Phi + Delta Q per direction
            phi[:ps] += rho * ((cRR + cRTR) + 2.0 * cX * q[:ps])
            dx += (4.0 * self.g) * phi
        return out


@result(kw_only=True)
class ReducedTrajectory(Trajectory):
    """:class:`~ibcore.quadratic.Trajectory` of the reduced system, with the reduced coordinates.

    Extra attributes: ``r`` and ``d`` (n_t, p_star), ``a`` (n_t,), and the
    fixed frame ``U`` (p, p_star), ``V`` (p_star, p_star). ``Q`` and ``R`` are
    the full matrices rebuilt from them.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> traj = q.integrate_reduced(*q.initial_overlaps(8, 2, 1000, rng=0), t_max=10.0, n_points=20)
    >>> traj.kind, traj.Q.shape
    ('reduced', (20, 8, 8))
    """

    r: np.ndarray
    d: np.ndarray
    a: np.ndarray
    U: np.ndarray
    V: np.ndarray


def integrate_reduced(Q0, R0, T=None, *, t_max=None, lr=None, noise=0.0, n_points=200, grid="log",
                      t_min=None, t_eval=None, method="LSODA", rtol=1e-10, atol=1e-13):
    """Integrate the exact reduced system of :math:`2p^*+1` scalars.

    Same call and same output as :func:`~ibcore.quadratic.integrate_odes`
    (the full ``Q``, ``R`` are rebuilt from the reduced coordinates), but only
    for an orthonormal teacher and a reducible start such as
    :math:`Q_0 = q_0 I` (see ``_reduce_overlaps``), and much faster for large p.
    ``lr=None`` is gradient flow.

    The default integrator is LSODA, which switches to an implicit (BDF) method once
    the run has converged towards a zero-loss point and the explicit steps would be
    limited by stability: at the same tolerances it needs about half the right-hand-side
    evaluations of ``"DOP853"`` over an escape and convergence, and is more accurate.
    From random starts (``initial_overlaps``, p = 4 to 32, N = 10³ to 10⁷, t' = 30), against
    ``"DOP853"`` at ``rtol=1e-13``: 52-64% of its evaluations, errors 2e-10 to 1e-9 against
    3e-9 to 6e-7.  From a start with identical rows (a saddle, which rounding alone breaks)
    both lose digits and ``"DOP853"`` loses fewer.

    Parameters
    ----------
    Q0 : array_like, shape (p, p)
        Initial student overlap, of the reducible form
        :math:`U\\,\\mathrm{diag}(q)\\,U^T + a(I - UU^T)` with U the left singular vectors
        of ``R0`` (e.g. :math:`q_0 I`); needs :math:`p \\ge p^*`.
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap.
    T : array_like, shape (p_star, p_star), optional
        Teacher overlap; must be the identity (the default).
    t_max : float
        Final time in :math:`t'` (optional when ``t_eval`` is given).
    lr : float or None
        Learning rate :math:`\\gamma > 0` of the :math:`\\gamma^2` term; ``None`` (default) is
        gradient flow.
    noise : float
        Label-noise variance :math:`\\Delta`.
    n_points, grid, t_min
        The output grid in :math:`t'`, as for :func:`~ibcore.quadratic.integrate_odes`
        (200 log-spaced times by default).
    t_eval : array_like, optional
        Explicit increasing output times :math:`t'`; overrides the grid options.
    method : str
        :func:`scipy.integrate.solve_ivp` method.
    rtol, atol : float
        Integrator tolerances (on the reduced coordinates, of order one).

    Returns
    -------
    :class:`~ibcore.quadratic.ReducedTrajectory`
        ``.t``, the full ``.Q`` (n_t, p, p) and ``.R`` (n_t, p, p_star) rebuilt from the
        reduced coordinates, ``.risk``, and the coordinates ``.r``, ``.d``, ``.a`` with the
        fixed frame ``.U``, ``.V``.

    Raises
    ------
    ValueError
        If :math:`p < p^*`, ``T`` is not the identity or ``Q0`` is not of the reducible form.
    DivergenceError
        If the solution blows up, as for :func:`~ibcore.quadratic.integrate_odes`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> Q0, R0, T = q.initial_overlaps(8, 2, 1000, rng=0)
    >>> fast = q.integrate_reduced(Q0, R0, t_max=10.0, n_points=20)
    >>> full = q.integrate_odes(Q0, R0, t_max=10.0, n_points=20)
    >>> bool(np.abs(fast.Q - full.Q).max() < 1e-7)
    True
    """
    r0, d0, a0, U, V = _reduce_overlaps(Q0, R0, T)
    p, p_star = U.shape
    rhs = _ReducedRHS(p, p_star, 0.0 if lr is None else positive_float("lr", lr) / p,
                      nonnegative_float("noise", noise))
    t = _evaluation_times(t_max, t_eval, n_points=n_points, grid=grid, t_min=t_min)
    y0 = np.concatenate([r0, d0, [a0]])
    sol = _solve_overlap_odes(rhs, y0, t, method=method, rtol=rtol, atol=atol)
    y = sol.y.T
    r, d, a = y[:, :p_star], y[:, p_star:2 * p_star], y[:, 2 * p_star]
    R = np.einsum("ik,tk,kl->til", U, r, V.T)
    P_perp = np.eye(p) - U @ U.T
    Q = np.einsum("ik,tk,jk->tij", U, r * r + d, U) + a[:, None, None] * P_perp
    risk = rhs.risk(y)
    return ReducedTrajectory(t=t, Q=Q, R=R, risk=risk, T=np.eye(p_star),
                             lr=None if lr is None else float(lr), noise=rhs.noise, kind="reduced",
                             nfev=int(sol.nfev), message=sol.message, r=r, d=d, a=a, U=U, V=V)


def reduced_escape_time(Q0, R0, T=None, *, lr=None, noise=0.0, fraction=0.5, t_max=100.0,
                        rtol=1e-8, atol=1e-11):
    """Escape time :math:`t'` (first time :math:`\\epsilon_g < \\text{fraction}\\times\\epsilon_{plat}`) from the reduced system.

    The crossing is found by a terminal event of the integrator (no output
    grid), so this is cheap enough for many draws of :math:`R(0)`. The
    plateau is that of the same dynamics: lifted by the :math:`\\gamma^2` term
    when ``lr`` is set, gradient flow for ``lr=None``.

    Parameters
    ----------
    Q0, R0, T : array_like
        Initial overlaps, shapes (p, p), (p, p_star), (p_star, p_star), reducible as for
        :func:`~ibcore.quadratic.integrate_reduced` (e.g. :math:`Q_0 = q_0 I`, ``T`` the
        identity, its default).
    lr : float or None
        Learning rate :math:`\\gamma > 0`; ``None`` (default) is gradient flow.
    noise : float
        Label-noise variance :math:`\\Delta` (it also lifts the plateau risk).
    fraction : float
        Escape threshold as a fraction of the plateau risk
        :math:`\\epsilon_{plat}` (:func:`~ibcore.quadratic.plateau_risk`), in (0, 1]; the
        book's escape uses 0.5.
    t_max : float
        How long to integrate, in :math:`t'`.
    rtol, atol : float
        Integrator tolerances (LSODA). The defaults give :math:`t'_{esc}` to about
        :math:`10^{-7}` relative, far below the scatter between draws of :math:`R(0)`,
        in 0.7x the time of ``rtol=1e-10, atol=1e-13`` (2.6e-8 apart over 108 draws).

    Returns
    -------
    float
        Escape time in :math:`t'`; 0 if the start is already below the threshold, ``nan``
        if not reached by ``t_max``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> Q0, R0, T = q.initial_overlaps(8, 2, 10_000, rng=0)
    >>> print(round(q.reduced_escape_time(Q0, R0), 2))
    2.19
    """
    r0, d0, a0, U, _ = _reduce_overlaps(Q0, R0, T)
    p, p_star = U.shape
    noise = nonnegative_float("noise", noise)
    t_max = positive_float("t_max", t_max)
    rhs = _ReducedRHS(p, p_star, 0.0 if lr is None else positive_float("lr", lr) / p, noise)
    level = _escape_level(plateau_risk(p, p_star, lr=lr, noise=noise), fraction)

    def below(t, y):
        return rhs.risk(y) - level
    below.terminal = True
    below.direction = -1
    y0 = np.concatenate([r0, d0, [a0]])
    if rhs.risk(y0) < level:
        return 0.0
    sol = _solve_overlap_odes(rhs, y0, np.array([t_max]), method="LSODA", rtol=rtol, atol=atol,
                             events=(below,))
    hits = sol.t_events[1]
    return float(hits[0]) if hits.size else float("nan")
