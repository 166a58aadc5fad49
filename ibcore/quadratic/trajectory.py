"""The result object shared by the ODE integrators and the SGD simulator.

A :class:`~ibcore.quadratic.Trajectory` holds overlaps sampled at times :math:`t'` (the one
clock of :mod:`~ibcore.quadratic.clock`) and the population risk computed from
them, so that ODE and SGD curves are plotted and compared with the same code.
"""
from __future__ import annotations


import numpy as np

from .._result import result

__all__ = ["Trajectory"]


@result(kw_only=True)
class Trajectory:
    """Overlaps and population risk along one run.

    Attributes
    ----------
    t : ndarray, shape (n_t,)
        Time :math:`t' = (\\gamma/p)\\,\\text{steps}/N`.
    Q : ndarray, shape (n_t, p, p)
        Student-student overlap :math:`Q = WW^T/N`.
    R : ndarray, shape (n_t, p, p_star)
        Student-teacher overlap :math:`R = WW^{*T}/N`.
    risk : ndarray, shape (n_t,)
        Population risk :math:`\\epsilon_g(Q, R, T)` (label-noise floor
        :math:`\\Delta/2` included).
    T : ndarray, shape (p_star, p_star)
        Teacher overlap (constant).
    lr : float or None
        Learning rate :math:`\\gamma` of the :math:`\\gamma^2` term (always set
        for SGD, which has that term built in); ``None`` for gradient flow.
    noise : float
        Label-noise variance :math:`\\Delta`.
    kind : str
        ``"ode"``, ``"reduced"`` or ``"sgd"``.
    success : bool
        Whether the run reached its goal: for the ODEs the end of the horizon, or the
        level ``stop_below`` of :func:`~ibcore.quadratic.integrate_odes` when one was
        given (a blow-up raises :class:`~ibcore.DivergenceError` instead); for SGD, see
        :class:`~ibcore.quadratic.SGDTrajectory`.
    message : str
        Why the run stopped, in words.
    nfev : int or None
        Right-hand-side evaluations of the ODE solver, as SciPy counts them
        (``None`` for SGD).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> traj = q.integrate_odes(*q.initial_overlaps(4, 2, 1000, rng=0), t_max=20.0, n_points=50)
    >>> traj.kind, traj.t.shape, traj.p, traj.p_star
    ('ode', (50,), 4, 2)
    """

    t: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    risk: np.ndarray
    T: np.ndarray
    lr: float | None
    noise: float = 0.0
    kind: str = "ode"
    success: bool = True
    message: str = ""
    nfev: int | None = None

    @property
    def p(self) -> int:
        """Student width."""
        return self.Q.shape[-1]

    @property
    def p_star(self) -> int:
        """Teacher width."""
        return self.R.shape[-1]

    def plateau_risk(self) -> float:
        """Risk of the plateau :math:`R=0,\\ Q=\\bar Q I` of these dynamics (needs :math:`T=I`).

        The :math:`\\gamma^2`-lifted plateau when ``lr`` is set, the
        gradient-flow one otherwise (:func:`~ibcore.quadratic.plateau_risk`).
        """
        from .phases import plateau_risk

        if not np.allclose(self.T, np.eye(self.p_star), atol=1e-8):
            raise ValueError("plateau_risk needs an orthonormal teacher (T = I)")
        return plateau_risk(self.p, self.p_star, lr=self.lr, noise=self.noise)

    def escape_time(self, fraction: float = 0.5, plateau_risk=None) -> float:
        """First time :math:`t'` at which the risk falls below ``fraction`` × the plateau risk.

        Parameters
        ----------
        fraction : float
            Threshold as a fraction of the plateau risk (the default ½ is the
            book's definition of escape).
        plateau_risk : float, optional
            Reference plateau risk; by default :meth:`~ibcore.quadratic.plateau_risk`.

        Returns
        -------
        float
            Linear interpolation between the two samples that bracket the
            crossing; ``nan`` if the risk never goes below the threshold.
        """
        from .phases import escape_time

        ref = self.plateau_risk() if plateau_risk is None else plateau_risk
        return escape_time(self.t, self.risk, ref, fraction=fraction)
