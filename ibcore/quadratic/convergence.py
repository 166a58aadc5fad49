"""Late-time convergence to the zero-loss manifold: the laws and their fits [D].

Under gradient flow from an isotropic start that reaches the manifold
(:math:`T = I`, time :math:`t'`):

* :math:`p = p^*`: exponential, :math:`\\epsilon_g\\propto e^{-8t'/p^*}` (the
  smallest curvature across the manifold, :mod:`~ibcore.quadratic.hessian`);
* :math:`p > p^*`: power law,
  :math:`\\epsilon_g\\simeq\\frac{(p-p^*)(p^*+2)}{64(p+2)}\\,t'^{-2}`, set by the
  quartic (marginal) directions of the surplus units.

:func:`~ibcore.quadratic.late_time_law` returns the law, :func:`~ibcore.quadratic.fit_decay` measures one.
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, nonnegative_float
from .order_parameters import _validated_sizes

__all__ = ["late_time_law", "fit_decay", "LateTimeLaw", "DecayFit"]


@result
class LateTimeLaw:
    """The predicted late-time decay of the risk (:func:`~ibcore.quadratic.late_time_law`).

    Attributes
    ----------
    kind : str
        ``"exponential"``, :math:`\\epsilon_g\\propto e^{-\\text{rate}\\,t'}`, or ``"power"``,
        :math:`\\epsilon_g\\simeq\\text{prefactor}\\cdot t'^{-\\text{exponent}}`.
    rate : float
        Exponential rate in :math:`t'` (:math:`8/p^*`); ``nan`` for a power law.
    exponent : float
        Power-law exponent (2); ``nan`` for an exponential.
    prefactor : float
        Power-law prefactor :math:`C`; ``nan`` for an exponential (whose
        amplitude depends on the start).

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> law = q.late_time_law(8, 2)
    >>> law.kind, law.exponent
    ('power', 2.0)
    """

    kind: str
    rate: float
    exponent: float
    prefactor: float


def late_time_law(p, p_star):
    """Theoretical late-time decay of the risk under gradient flow [D].

    From an isotropic start with :math:`T = I`, in :math:`t'`: exponential for
    :math:`p = p^*`, a :math:`t'^{-2}` power law for :math:`p > p^*` (module docstring).

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths, :math:`p \\ge p^*`.

    Returns
    -------
    :class:`~ibcore.quadratic.LateTimeLaw`
        For :math:`p = p^*`: ``kind="exponential"``, ``rate`` :math:`= 8/p^*`
        (:math:`\\epsilon_g\\propto e^{-8t'/p^*}`).
        For :math:`p > p^*`: ``kind="power"``, ``exponent = 2``, ``prefactor``
        :math:`= (p-p^*)(p^*+2)/(64(p+2))` (:math:`\\epsilon_g\\simeq C t'^{-2}`).
        The notes flag that the abstract's "exponential decay" likely refers
        to the escape, not to this tail [I].

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> law = q.late_time_law(4, 4)
    >>> law.kind
    'exponential'
    >>> law = q.late_time_law(8, 2)
    >>> law.kind
    'power'
    """
    p, p_star = _validated_sizes(p, p_star, p_at_least_p_star="for convergence to zero loss")
    nan = float("nan")
    if p == p_star:
        return LateTimeLaw(kind="exponential", rate=8.0 / p_star, exponent=nan, prefactor=nan)
    return LateTimeLaw(kind="power", rate=nan, exponent=2.0,
                       prefactor=(p - p_star) * (p_star + 2.0) / (64.0 * (p + 2.0)))


@result
class DecayFit:
    """Least-squares fit of a late-time decay.

    ``kind == "exponential"``: :math:`\\epsilon \\approx A e^{-k t}`, ``value`` is the rate k.
    ``kind == "power"``: :math:`\\epsilon \\approx A t^{-\\beta}`, ``value`` is the exponent β.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> t = np.linspace(1.0, 10.0, 50)
    >>> fit = q.fit_decay(t, 0.3 * np.exp(-2.0 * t), kind="exponential")
    >>> round(fit.value, 6), round(fit.prefactor, 6), fit.n_points
    (2.0, 0.3, 25)
    """

    kind: str
    value: float
    prefactor: float
    n_points: int


def fit_decay(t, risk, *, kind, t_min=None, t_max=None, floor=0.0):
    """Fit the late-time decay of the risk on a window.

    Parameters
    ----------
    t, risk : array_like, shape (n_t,)
        Times (usually :math:`t'`) and risks.
    kind : {"exponential", "power"}
        ``"exponential"`` fits :math:`\\ln(\\epsilon - \\text{floor})` linearly in t
        (use for :math:`p = p^*`); ``"power"`` fits it linearly in
        :math:`\\ln t` (use for :math:`p > p^*`).
    t_min, t_max : float, optional
        Fit window; defaults to the last half of the samples (in index).
    floor : float
        Value subtracted before taking the log (e.g. the label-noise floor Δ/2).

    Returns
    -------
    :class:`~ibcore.quadratic.DecayFit`

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> t = np.linspace(1.0, 10.0, 50)
    >>> fit = q.fit_decay(t, 0.3 * np.exp(-2.0 * t), kind="exponential")
    >>> fit.kind, round(fit.value, 6)
    ('exponential', 2.0)
    """
    t = finite_array("t", t, ndim=1)
    risk = finite_array("risk", risk, shape=(t.shape[0],))
    if kind not in ("exponential", "power"):
        raise ValueError(f"kind must be 'exponential' or 'power', got {kind!r}")
    floor = nonnegative_float("floor", floor)
    lo = t[len(t) // 2] if t_min is None else float(t_min)
    hi = t[-1] if t_max is None else float(t_max)
    mask = (t >= lo) & (t <= hi) & (risk - floor > 0)
    if kind == "power":
        mask &= t > 0
    if mask.sum() < 2:
        raise ValueError(f"the fit window [{lo}, {hi}] holds fewer than 2 usable points")
    y = np.log(risk[mask] - floor)
    x = t[mask] if kind == "exponential" else np.log(t[mask])
    slope, intercept = np.polyfit(x, y, 1)
    return DecayFit(kind=kind, value=float(-slope), prefactor=float(np.exp(intercept)),
                    n_points=int(mask.sum()))
