"""Phase analysis: norm learning, plateau and escape.

All formulas are for an orthonormal teacher (:math:`T = I`) and are written in
:math:`t' = (\\gamma/p)\\alpha`. Tags: [D] re-derived in the science notes and
checked numerically here; [V] from the paper's abstract; [I] our reading.

* **Norm learning** [D]: with :math:`R = 0`, :math:`Q = qI`, gradient flow gives the
  logistic law :math:`\\dot q = 4q(1 - q/\\bar Q)`, :func:`~ibcore.quadratic.norm_learning_overlap`.
* **Plateau** [D]: :math:`\\bar Q = p/(p+2)` under gradient flow; the γ² term
  shifts it up (:func:`~ibcore.quadratic.plateau_overlap`), risk :func:`~ibcore.quadratic.plateau_risk`.
* **Escape** [D]: under gradient flow :math:`R` grows like :math:`e^{4t'/p^*}`
  (rate set by the teacher width only), :func:`~ibcore.quadratic.linear_escape_overlap`; at a
  finite learning rate the lifted plateau lowers the rate a little, and p
  enters it (:func:`~ibcore.quadratic.plateau_growth_rate`). The book's escape time
  is the first time the risk falls below half the plateau risk
  (:func:`~ibcore.quadratic.escape_time`); under gradient flow it grows like
  :math:`t'_{esc}\\simeq (p^*/8)\\ln N + c(p,p^*)` [D], overparameterisation
  only changing the offset :math:`c`
  ("modestly accelerates escape ... by modifying the prefactor" [V]; the
  identification of that sentence with this prefactor is [I]).

The late-time laws are in :mod:`~ibcore.quadratic.convergence`; the trials
built on these laws (escape times over many draws, SGD against the ODEs) in
:mod:`ibcore.experiments.quadratic`. ``lr=None`` is gradient flow everywhere.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, nonnegative_float, positive_float, positive_int
from .order_parameters import population_risk, _validated_sizes

__all__ = [
    "plateau_overlap",
    "plateau_risk",
    "norm_learning_overlap",
    "norm_learning_risk",
    "plateau_growth_rate",
    "linear_escape_overlap",
    "escape_time",
    "escape_time_law",
]


def plateau_overlap(p, p_star, *, lr=None, noise=0.0):
    """Plateau value :math:`\\bar Q` of the diagonal of :math:`Q` (with :math:`R = 0`, :math:`T = I`).

    Gradient flow (``lr=None``): :math:`\\bar Q = p/(p+2)` [D]. With the γ² term,
    :math:`\\bar Q` is the root near :math:`p/(p+2)` of

    .. math::

        (1-q) - \\frac{2q}{p} + g\\Big[\\Big(1+\\frac2{p^*}\\Big) + \\Delta
        - 2q\\Big(1+\\frac2p\\Big) + q^2\\frac{(p+2)(p+4)}{p^2}\\Big] = 0

    with :math:`g = \\gamma/p`, i.e. the smaller root of this quadratic (the other one
    runs off to infinity as g → 0). E.g. (p, p*) = (4, 2), γ/p = 0.02 gives 0.684698.

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths.
    lr : float or None
        Learning rate γ > 0; ``None`` means gradient flow.
    noise : float
        Label-noise variance Δ.

    Returns
    -------
    float
        :math:`\\bar Q`, the diagonal entry of the plateau :math:`Q = \\bar Q I`.

    Raises
    ------
    ValueError
        If γ is so large that no plateau exists (the quadratic has no real
        root: the dynamics blows up instead).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> q.plateau_overlap(4, 2)   # p / (p + 2)
    0.6666666666666666
    >>> print(round(q.plateau_overlap(4, 2, lr=0.4), 4))   # lifted by the lr^2 term
    0.7639
    """
    p, p_star = _validated_sizes(p, p_star)
    noise = nonnegative_float("noise", noise)
    if lr is None:
        return p / (p + 2.0)
    g = positive_float("lr", lr) / p
    a = g * (p + 2.0) * (p + 4.0) / p**2
    b = -(1.0 + 2.0 / p) * (1.0 + 2.0 * g)
    c = 1.0 + g * (1.0 + 2.0 / p_star + noise)
    disc = b * b - 4.0 * a * c
    if disc < 0:
        raise ValueError(f"lr = {lr!r} is too large: the plateau equation has no real root (no plateau)")
    # smaller root, written in the cancellation-free form 2c / (-b + sqrt(disc))
    return 2.0 * c / (-b + np.sqrt(disc))


def plateau_risk(p, p_star, *, lr=None, noise=0.0):
    """Population risk at the plateau :math:`R = 0`, :math:`Q = \\bar Q I`, :math:`T = I`.

    .. math::

        \\epsilon_{plat} = \\tfrac12(\\bar Q - 1)^2 + \\frac{\\bar Q^2}{p} + \\frac1{p^*} + \\frac{\\Delta}2,

    which is :math:`\\frac1{p+2} + \\frac1{p^*}` (+Δ/2) for gradient flow.

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths.
    lr : float or None
        Learning rate γ > 0 (the plateau is lifted, :func:`~ibcore.quadratic.plateau_overlap`);
        ``None`` means gradient flow.
    noise : float
        Label-noise variance Δ.

    Returns
    -------
    float
        :math:`\\epsilon_{plat}`, floor Δ/2 included.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> print(round(q.plateau_risk(4, 2), 6))
    0.666667
    """
    q = plateau_overlap(p, p_star, lr=lr, noise=noise)
    return 0.5 * (q - 1.0) ** 2 + q * q / p + 1.0 / p_star + 0.5 * noise


def norm_learning_overlap(t, p, *, q0=1.0):
    """Closed-form norm-learning stage under gradient flow with :math:`R = 0` [D].

    .. math::

        q(t') = \\frac{\\bar Q q_0 e^{4t'}}{\\bar Q + q_0(e^{4t'} - 1)},\\qquad \\bar Q = \\frac{p}{p+2},

    the solution of :math:`\\dot q = 4q(1 - q/\\bar Q)` with :math:`Q = qI`, :math:`T = I`.

    Parameters
    ----------
    t : float or array_like
        Times :math:`t'`.
    p : int
        Student width.
    q0 : float
        Initial value :math:`q_0 > 0` of the diagonal of Q.

    Returns
    -------
    float or ndarray, the shape of ``t``
        :math:`q(t')`, the diagonal of :math:`Q(t')`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> print(np.round(q.norm_learning_overlap(np.array([0.0, 1.0, 100.0]), 4), 4))   # from q0 = 1 to p/(p+2)
    [1.     0.6708 0.6667]
    """
    t = np.asarray(finite_array("t", t), dtype=float)
    p = positive_int("p", p)
    q0 = positive_float("q0", q0)
    qbar = p / (p + 2.0)
    e = np.exp(-4.0 * t)
    return qbar * q0 / (qbar * e + q0 * (1.0 - e))


def norm_learning_risk(t, p, p_star, *, q0=1.0):
    """Population risk along the exact norm-learning solution :math:`R = 0`, :math:`Q = q(t')I` [D].

    .. math::

        \\epsilon_{R=0}(q) = \\tfrac12(q - 1)^2 + \\frac{q^2}{p} + \\frac1{p^*},

    with :math:`q(t')` from :func:`~ibcore.quadratic.norm_learning_overlap` (gradient flow,
    :math:`T = I`). It tends to the plateau risk :math:`\\frac1{p+2} + \\frac1{p^*}`;
    a run with a small :math:`R` departs from it by :math:`2\\|R\\|_F^2/(pp^*)`.

    Parameters
    ----------
    t : float or array_like
        Times :math:`t'`.
    p, p_star : int
        Student and teacher widths.
    q0 : float
        Initial value :math:`q_0 > 0` of the diagonal of Q.

    Returns
    -------
    float or ndarray of shape (n_t,)
        :math:`\\epsilon_{R=0}(q(t'))`; a float for a scalar ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> print(np.round(q.norm_learning_risk(np.array([0.0, 100.0]), 4, 2), 4))
    [0.75   0.6667]
    """
    p_star = positive_int("p_star", p_star)
    q = np.atleast_1d(norm_learning_overlap(t, p, q0=q0))
    p = int(p)
    risk = population_risk(q[:, None, None] * np.eye(p), np.zeros((q.size, p, p_star)))
    return risk if np.ndim(t) else float(risk[0])


def plateau_growth_rate(p, p_star, *, lr=None, noise=0.0):
    """Growth rate per unit :math:`t'` of the student-teacher overlap R on the plateau [D].

    On the plateau :math:`R\\approx 0`, :math:`Q = \\bar Q_\\gamma I`, :math:`T = I`, the
    R-equation of the ODEs is linear, :math:`dR/dt' = rR`, with

    .. math::

        r = -2(\\bar Q_\\gamma - 1) - \\frac4p\\bar Q_\\gamma + \\frac4{p^*}
          = \\frac4{p^*} - 2\\Big(1 + \\frac2p\\Big)(\\bar Q_\\gamma - \\bar Q_0),
        \\qquad \\bar Q_0 = \\frac p{p+2},

    exactly (the R-equation has no :math:`\\gamma^2` term; the learning rate
    acts only through the lifted plateau :math:`\\bar Q_\\gamma` of
    :func:`~ibcore.quadratic.plateau_overlap`). For gradient flow (``lr=None``) the student
    terms cancel and :math:`r = 4/p^*`, set by the teacher width alone. At
    finite γ, to first order in :math:`g = \\gamma/p`,
    :math:`r \\approx \\frac4{p^*}\\big[1 - g\\big(1 + \\frac{p^*}{p+2}\\big)\\big]`: the
    student width enters the exponent too, slightly. The loss departs from
    the plateau at twice this rate.

    Parameters
    ----------
    p, p_star : int
        Student and teacher widths.
    lr : float or None
        Learning rate γ (as in :func:`~ibcore.quadratic.plateau_overlap`); ``None`` is gradient flow.
    noise : float
        Label-noise variance Δ (it lifts the plateau further).

    Returns
    -------
    float
        The rate r in :math:`t'`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> print(round(q.plateau_growth_rate(4, 2), 4))
    2.0
    """
    p, p_star = _validated_sizes(p, p_star)
    lift = plateau_overlap(p, p_star, lr=lr, noise=noise) - p / (p + 2.0)
    return 4.0 / p_star - 2.0 * (1.0 + 2.0 / p) * lift


def linear_escape_overlap(t, R0, p, *, q0=1.0):
    """Small-R solution during norm learning and plateau, gradient flow, :math:`Q(0) = q_0 I` [D].

    .. math::

        R(t') = R(0)\\sqrt{q(t')/q_0}\\;e^{4t'/p^*},

    valid while :math:`\\|R\\|\\ll 1` (corrections are :math:`O(R^3)`), with :math:`q(t')` from
    :func:`~ibcore.quadratic.norm_learning_overlap` and :math:`T = I`.

    Parameters
    ----------
    t : float or array_like, shape (n_t,)
        Times :math:`t'`.
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap :math:`R(0)`.
    p, q0
        Student width and initial diagonal :math:`q_0 > 0` of Q, as for
        :func:`~ibcore.quadratic.norm_learning_overlap`.

    Returns
    -------
    ndarray, shape (n_t, p, p_star)
        :math:`R(t')`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> R0 = np.full((4, 2), 1e-3)
    >>> R = q.linear_escape_overlap(np.array([0.0, 1.0]), R0, 4)
    >>> R.shape
    (2, 4, 2)
    >>> print(np.round(R[:, 0, 0] / 1e-3, 4))
    [1.     6.0516]
    """
    t = np.atleast_1d(finite_array("t", t))
    R0 = finite_array("R0", R0, ndim=2)
    p_star = R0.shape[1]
    q = norm_learning_overlap(t, p, q0=q0)
    return R0[None] * (np.sqrt(q / q0) * np.exp(4.0 * t / p_star))[:, None, None]


def _escape_level(plateau_risk, fraction=0.5):
    """The risk below which a run has escaped: ``fraction`` × the plateau risk.

    The book's definition of escape uses ``fraction = 0.5``.

    Parameters
    ----------
    plateau_risk : float
        Reference plateau risk (:func:`~ibcore.quadratic.plateau_risk`, with the learning rate of the run).
    fraction : float
        In (0, 1].
    """
    plateau_risk = positive_float("plateau_risk", plateau_risk)
    fraction = positive_float("fraction", fraction)
    if fraction > 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    return fraction * plateau_risk


def escape_time(t, risk, plateau_risk, *, fraction=0.5):
    """First time the risk falls below ``fraction × plateau_risk``.

    The book's definition of the escape time uses ``fraction = 0.5``. The
    crossing is located by linear interpolation between the two samples that
    bracket it, so it is as accurate as the sampling of ``t``.

    Parameters
    ----------
    t : array_like, shape (n_t,)
        Increasing times (in whatever unit; usually :math:`t'`).
    risk : array_like, shape (n_t,)
        Population risk :math:`\\epsilon_g` at those times.
    plateau_risk : float
        Reference plateau risk (:func:`~ibcore.quadratic.plateau_risk`).
    fraction : float
        Threshold fraction in (0, 1].

    Returns
    -------
    float
        The escape time, in the unit of ``t``; ``nan`` if the threshold is never reached,
        ``t[0]`` if the risk starts below it.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> t = np.linspace(0.0, 10.0, 11)
    >>> risk = 0.2 / (1 + np.exp(t - 5))
    >>> print(round(q.escape_time(t, risk, 0.2), 3))   # interpolated crossing of 0.1
    5.0
    """
    t = finite_array("t", t, ndim=1)
    risk = finite_array("risk", risk, shape=(t.shape[0],))
    level = _escape_level(plateau_risk, fraction)
    below = np.flatnonzero(risk < level)
    if below.size == 0:
        return float("nan")
    i = int(below[0])
    if i == 0:
        return float(t[0])
    r0, r1 = risk[i - 1], risk[i]
    return float(t[i - 1] + (t[i] - t[i - 1]) * (r0 - level) / (r0 - r1))


def escape_time_law(p_star, N, *, q0=1.0):
    """Large-p asymptote of the escape time, :math:`t'_{esc}\\approx\\frac{p^*}{8}\\ln\\frac{N}{p^* q_0}` [D].

    The slope :math:`dt'_{esc}/d\\ln N = p^*/8` holds for every p; the offset
    is the :math:`p\\to\\infty` value (for finite p the measured escape is a
    little later, the notes' table §4.3). In the convention with loss
    :math:`(\\hat y - y)^2` (no ½) every rate doubles and the slope becomes
    :math:`p^*/16`, the likely origin of the seeds' "τ ∝ p*/16" [I].

    Parameters
    ----------
    p_star : int
        Teacher width.
    N : float
        Input dimension (any positive size).
    q0 : float
        Initial weight variance :math:`q_0` (:math:`Q(0) = q_0 I`).

    Returns
    -------
    float
        The predicted :math:`t'_{esc}` under gradient flow, in :math:`t'`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> print(round(q.escape_time_law(2, 10_000), 4))   # (p*/8) ln(N / (p* q0))
    2.1293
    """
    p_star = positive_int("p_star", p_star)
    N = positive_float("N", N)
    q0 = positive_float("q0", q0)
    return p_star / 8.0 * np.log(N / (p_star * q0))
