"""What a GD run returns: :class:`~ibcore.relu.results.GDResult`, with the recorded states in
:class:`~ibcore.relu.results.GDHistory`, and the warning it may give (:class:`~ibcore.relu.InactivePositiveWarning`).

ibcore's one result style (CONTRIBUTING.md): frozen dataclasses with named fields;
counts are ints named ``n_*``, arrays of recorded step indices are named ``step``,
``success`` says whether the run reached its goal (here: the stopping criterion) and
``message`` says why it stopped.
"""
from __future__ import annotations

import numpy as np

from .._result import result

__all__ = ["InactivePositiveWarning"]


class InactivePositiveWarning(UserWarning):
    r"""Some example that the network must fit starts inactive on every neuron able to fit it.

    For one neuron (s = +1) these are the positive-label examples with
    :math:`x_i\cdot w_0 \le 0`; in general, examples i with :math:`s_jy_i > 0` for some j but
    :math:`\beta_{j,i}(0) \le 0` for every such j.  A frozen example only moves through the
    cross-terms :math:`K_{ik}`, so GD usually cannot fit it and stops at a
    non-global stationary point (the tiny start of chapter 6, our analogue of the paper's Appendix F.2).
    """


@result
class GDHistory:
    """States recorded every ``record_every`` steps, and the final one.

    Arrays have a leading axis over records; the per-record shape is (n,) for
    a single neuron given as a 1-D ``w0``, else (m, n).  With
    ``record_every=None`` only the final state is recorded (one record).

    Attributes
    ----------
    step : numpy.ndarray of int, shape (k,)
        GD step t of each record (0 is the initialisation).
    beta : numpy.ndarray
        Pre-activations β_t = X w_t.
    alpha : numpy.ndarray
        Data-span coefficients α_t, with w_t = w_0 + Xᵀ α_t and α_0 = 0.
    active : numpy.ndarray of bool
        Activation patterns 1{β_t > 0} (all True for the identity activation).
    loss : numpy.ndarray, shape (k,)
        L(w_t).
    """

    step: np.ndarray
    beta: np.ndarray
    alpha: np.ndarray
    active: np.ndarray
    loss: np.ndarray


@result
class GDResult:
    """Outcome of a GD run.

    Shapes: a single neuron given as a 1-D ``w0`` (or ``alpha0``) gives (d,)
    weights and (n,) per-example arrays; otherwise (m, d) and (m, n).

    Attributes
    ----------
    w : numpy.ndarray or None
        Final weights w_T = w_0 + Xᵀ α_T (``None`` for Gram-only runs).
    beta : numpy.ndarray
        Final pre-activations β_T = X w_T.
    alpha : numpy.ndarray
        Final data-span coefficients α_T (the change since w_0).
    alpha0 : numpy.ndarray or None
        Coefficients of w_0 = Xᵀ α0 (Gram-only runs), else ``None``.
    signs : numpy.ndarray, shape (m,)
        Output signs s_j.
    predictions : numpy.ndarray, shape (n,)
        f(x_i) = Σ_j s_j σ(β_{j,i}) at the end.
    success : bool
        Whether the stopping criterion was met (never, when ``tol == 0``).
    message : str
        Why the run stopped, in words.
    n_steps : int
        Number of GD steps taken.
    loss : float
        Final loss L(w_T).
    last_change : numpy.ndarray of int
        For each (neuron,) example: the last step t at which 1{β_t > 0}
        differed from 1{β_{t-1} > 0}; 0 if it never changed.
    reactivations : numpy.ndarray of int
        For each (neuron,) example: how many times it switched from inactive
        back to active (i.e. became active after having been active before).
    history : GDHistory
        Recorded states (only the final one when ``record_every=None``).
    lr : float
        The step size.
    activation : str
        ``"relu"`` or ``"identity"``.
    """

    w: np.ndarray | None
    beta: np.ndarray
    alpha: np.ndarray
    alpha0: np.ndarray | None
    signs: np.ndarray
    predictions: np.ndarray
    success: bool
    message: str
    n_steps: int
    loss: float
    last_change: np.ndarray
    reactivations: np.ndarray
    history: GDHistory
    lr: float
    activation: str

    @property
    def coef(self) -> np.ndarray | None:
        """Total data-span coefficients a = α0 + α_T with w_T = Xᵀ a (Gram-only runs), else ``None``."""
        return None if self.alpha0 is None else self.alpha0 + self.alpha
