"""What a GD run returns: :class:`~ibcore.relu.GDResult`, with the recorded states in
:class:`~ibcore.relu.GDHistory`, and the warning it may give (:class:`~ibcore.relu.InactivePositiveWarning`).

ibcore's one result style (CONTRIBUTING.md): frozen dataclasses with named fields;
counts are ints named ``n_*``, arrays of recorded step indices are named ``step``,
``success`` says whether the run reached its goal (here: the stopping criterion) and
``message`` says why it stopped.
"""
from __future__ import annotations

import numpy as np

from .._result import result

__all__ = ["GDResult", "GDHistory", "InactivePositiveWarning"]


class InactivePositiveWarning(UserWarning):
    r"""Some example that the network must fit starts inactive on every neuron able to fit it.

    For one neuron (s = +1) these are the positive-label examples with
    :math:`x_i\cdot w_0 \le 0`; in general, examples i with :math:`s_jy_i > 0` for some j but
    :math:`\beta_{j,i}(0) \le 0` for every such j.  A frozen example only moves through the
    cross-terms :math:`K_{ik}`, so GD usually cannot fit it and stops at a
    non-global stationary point (the tiny start of chapter 7, our analogue of the paper's Appendix F.2).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> import warnings
    >>> X, y = np.eye(2), np.array([1.0, 0.5])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = R.gradient_descent(X, y, np.array([1.0, -1.0]), lr=0.5, max_steps=10)
    ...
    >>> caught[0].category.__name__
    'InactivePositiveWarning'
    """


@result
class GDHistory:
    r"""States recorded every ``record_every`` steps, and the final one.

    Arrays have a leading axis over records; the per-record shape is (n,) for
    a single neuron given as a 1-D ``w0``, else (m, n).  With
    ``record_every=None`` only the final state is recorded (one record).

    Attributes
    ----------
    step : numpy.ndarray of int, shape (k,)
        GD step t of each record (0 is the initialisation).
    beta : numpy.ndarray
        Pre-activations :math:`\beta_t = Xw_t`.
    alpha : numpy.ndarray
        Data-span coefficients :math:`\alpha_t`, with :math:`w_t = w_0 + X^\top\alpha_t` (zero at the start).
    active : numpy.ndarray of bool
        Activation patterns :math:`\mathbb 1\{\beta_t > 0\}` (all True for the identity activation).
    loss : numpy.ndarray, shape (k,)
        :math:`L(w_t)`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> res = R.gradient_descent(np.eye(2), np.array([1.0, 0.5]), np.full(2, 0.1), lr=0.5, record_every=10)
    >>> h = res.history
    >>> h.step[:3], h.beta.shape == (h.step.size, 2)
    (array([ 0, 10, 20]), True)
    """

    step: np.ndarray
    beta: np.ndarray
    alpha: np.ndarray
    active: np.ndarray
    loss: np.ndarray


@result
class GDResult:
    r"""Outcome of a GD run.

    Shapes: a single neuron given as a 1-D ``w0`` (or ``alpha0``) gives (d,)
    weights and (n,) per-example arrays; otherwise (m, d) and (m, n).

    Attributes
    ----------
    w : numpy.ndarray or None
        Final weights :math:`w_T = w_0 + X^\top\alpha_T` (``None`` for Gram-only runs).
    beta : numpy.ndarray
        Final pre-activations :math:`\beta_T = Xw_T`.
    alpha : numpy.ndarray
        Final data-span coefficients :math:`\alpha_T` (the change since :math:`w_0`).
    alpha0 : numpy.ndarray or None
        Coefficients of :math:`w_0 = X^\top\alpha_0` (Gram-only runs), else ``None``.
    signs : numpy.ndarray, shape (m,)
        Output signs :math:`s_j`.
    predictions : numpy.ndarray, shape (n,)
        :math:`f(x_i) = \sum_j s_j\,\sigma(\beta_{j,i})` at the end.
    success : bool
        Whether the stopping criterion was met (never, when ``tol == 0``).
    message : str
        Why the run stopped, in words.
    n_steps : int
        Number of GD steps taken.
    loss : float
        Final loss :math:`L(w_T)`.
    last_change : numpy.ndarray of int
        For each (neuron,) example: the last step t at which :math:`\mathbb 1\{\beta_t > 0\}`
        differed from :math:`\mathbb 1\{\beta_{t-1} > 0\}`; 0 if it never changed.
    reactivations : numpy.ndarray of int
        For each (neuron,) example: how many times it switched from inactive
        back to active (i.e. became active after having been active before).
    history : GDHistory
        Recorded states (only the final one when ``record_every=None``).
    lr : float
        The step size.
    activation : str
        ``"relu"`` or ``"identity"``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> res = R.gradient_descent(np.eye(2), np.array([1.0, 0.5]), np.full(2, 0.1), lr=0.5)
    >>> res.success, np.round(res.w, 6)
    (True, array([1. , 0.5]))
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
        r"""Total data-span coefficients :math:`a = \alpha_0 + \alpha_T` with :math:`w_T = X^\top a`
        (Gram-only runs), else ``None``."""
        return None if self.alpha0 is None else self.alpha0 + self.alpha
