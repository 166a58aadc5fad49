"""The result object shared by the ODE integrators and the SGD simulator.

A :class:`Trajectory` holds overlaps sampled at times :math:`\\alpha` (steps / N)
and the population risk computed from them, so that ODE and SGD curves can be
plotted and compared with the same code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Trajectory"]


@dataclass(eq=False)
class Trajectory:
    """Overlaps and population risk along one run.

    Attributes
    ----------
    alpha : ndarray, shape (n_t,)
        Time :math:`\\alpha = \\mu / N` (SGD steps per input dimension).
    Q : ndarray, shape (n_t, p, p)
        Student-student overlap :math:`Q = WW^T/N`.
    R : ndarray, shape (n_t, p, p_star)
        Student-teacher overlap :math:`R = WW^{*T}/N`.
    risk : ndarray, shape (n_t,)
        Population risk :math:`\\epsilon_g(Q, R, T)` (label-noise floor
        :math:`\\Delta/2` included).
    T : ndarray, shape (p_star, p_star)
        Teacher overlap (constant).
    lr : float
        Learning rate :math:`\\gamma`.
    noise : float
        Label-noise variance :math:`\\Delta`.
    second_order : bool
        Whether the :math:`\\gamma^2` term is part of the dynamics (always
        ``True`` for SGD, which has it built in).
    kind : str
        ``"ode"``, ``"reduced"`` or ``"sgd"``.
    """

    alpha: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    risk: np.ndarray
    T: np.ndarray
    lr: float
    noise: float = 0.0
    second_order: bool = True
    kind: str = "ode"
    extra: dict = field(default_factory=dict, repr=False)

    @property
    def p(self) -> int:
        """Student width."""
        return self.Q.shape[-1]

    @property
    def p_star(self) -> int:
        """Teacher width."""
        return self.R.shape[-1]

    @property
    def t_prime(self) -> np.ndarray:
        """Rescaled time :math:`t' = (\\gamma/p)\\,\\alpha`, in which gradient flow does not depend on γ or p."""
        return self.lr / self.p * self.alpha

    def plateau_risk(self) -> float:
        """Risk of the plateau :math:`R=0,\\ Q=\\bar Q I` of these dynamics (needs :math:`T=I`).

        Uses the :math:`\\gamma^2`-shifted plateau when ``second_order`` is true
        (see :func:`ibcore.quadratic.phases.plateau_overlap`).
        """
        from .phases import plateau_risk

        if not np.allclose(self.T, np.eye(self.p_star), atol=1e-8):
            raise ValueError("plateau_risk needs an orthonormal teacher (T = I)")
        lr = self.lr if self.second_order else 0.0
        return plateau_risk(self.p, self.p_star, lr=lr, noise=self.noise)

    def escape_time(self, fraction: float = 0.5, plateau_risk=None, time: str = "t_prime") -> float:
        """First time the risk falls below ``fraction`` × the plateau risk.

        Parameters
        ----------
        fraction : float
            Threshold as a fraction of the plateau risk (the default ½ is the
            book's definition of escape).
        plateau_risk : float, optional
            Reference plateau risk; by default :meth:`plateau_risk`.
        time : {"t_prime", "alpha"}
            Time unit of the answer.

        Returns
        -------
        float
            Linear interpolation between the two samples that bracket the
            crossing; ``nan`` if the risk never goes below the threshold.
        """
        from .phases import escape_time

        if time not in ("t_prime", "alpha"):
            raise ValueError(f"time must be 't_prime' or 'alpha', got {time!r}")
        ref = self.plateau_risk() if plateau_risk is None else plateau_risk
        t = self.t_prime if time == "t_prime" else self.alpha
        return escape_time(t, self.risk, ref, fraction=fraction)

    def __len__(self) -> int:
        return len(self.alpha)
