"""The escape from the plateau, as trials of Part II: one random draw each, for :func:`ibcore.sweep.sweep`.

Each trial follows the book's protocol: keyword-only parameters, ``rng=None``,
arguments validated before anything is drawn, and a flat dict of numbers as
result. A chapter runs one of them by hand first (the same calls, in a visible
cell) and then over a grid of settings and seeds::

    from ibcore.experiments.quadratic import ode_escape_time_trial
    from ibcore.summary import summarise
    from ibcore.sweep import sweep
    table = sweep(ode_escape_time_trial, {"p": [2, 16], "N": [10**3, 10**7]},
                  fixed={"p_star": 2}, trials=20, seed=0)
    summarise(table, ("p", "N"), "t_esc", stat="mean")

* :func:`~ibcore.experiments.quadratic.ode_escape_time_trial`: escape time of the ODEs from a random start;
* :func:`~ibcore.experiments.quadratic.sgd_escape_time_trial`: escape time of one SGD run, and of the ODE
  from the run's own initial overlaps;
* :func:`~ibcore.experiments.quadratic.sgd_frame_drift_trial`: how far the frame S moves along one SGD run,
  before and after the escape;
* :func:`~ibcore.experiments.quadratic.ode_frame_drift_trial`: how far the ODE turns S from the exact
  overlaps of a finite-N random start (the N-floor, anisotropic at order :math:`N^{-1/2}`).

Times are :math:`t'` (:mod:`~ibcore.quadratic.clock`); ``lr=None`` is
gradient flow.
"""
from __future__ import annotations

import numpy as np

from ...quadratic.initialisation import initial_overlaps, random_init
from ...quadratic.odes import integrate_odes
from ...quadratic.order_parameters import _validated_sizes, overlaps
from ...quadratic.overlap_chain import _BATCH_RUNS, _runs_from_random_init
from ...quadratic.phases import _escape_level, plateau_risk
from ...quadratic.reduced import reduced_escape_time
from ...quadratic.symmetry import conserved_frame
from ...validation import positive_float

__all__ = [
    "ode_escape_time_trial",
    "sgd_escape_time_trial",
    "sgd_frame_drift_trial",
    "ode_frame_drift_trial",
]


def _escape_setting(p, p_star, N, lr, q0, fraction, *, need_lr):
    """Checks shared by the escape trials; returns the escape level (fraction × plateau risk)."""
    p, p_star, N = _validated_sizes(p, p_star, N, p_at_least_p_star="the escape trials converge to zero loss")
    if need_lr or lr is not None:
        positive_float("lr", lr)
    positive_float("q0", q0)
    # plateau_risk raises a ValueError if lr is too large for a plateau to exist
    return _escape_level(plateau_risk(p, p_star, lr=lr), fraction)


def _singular_values(R0, N, q0):
    """Extreme singular values of sqrt(N/q0) R(0), an O(1) Gaussian matrix for a random start."""
    sv = np.linalg.svd(R0 * np.sqrt(N / q0), compute_uv=False)
    return float(sv.min()), float(sv.max())


def ode_escape_time_trial(*, p, p_star, N, lr=None, q0=1.0, fraction=0.5, t_max=None, rng=None):
    """Escape time of the ODEs from one random isotropic start.

    Draws :math:`R(0)\\sim\\mathcal N(0, q_0/N)`, :math:`Q(0) = q_0 I`
    (:func:`~ibcore.quadratic.initial_overlaps`) and integrates
    the exact reduced system (:func:`~ibcore.quadratic.reduced_escape_time`)
    until the risk falls below ``fraction`` × the plateau risk.

    Parameters
    ----------
    p, p_star, N : int
        Widths (``p >= p_star``) and input dimension (any size: no weights are drawn).
    lr : float or None
        Learning rate γ of the :math:`\\gamma^2` term; ``None`` (default) is
        gradient flow, whose :math:`t'_{esc}` does not depend on γ.
    q0 : float
        Initial weight variance.
    fraction : float
        Escape level as a fraction of the plateau risk, in (0, 1].
    t_max : float, optional
        Give up at this :math:`t'`; default :math:`p^*\\ln N + 20`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``t_esc`` (:math:`t'`, ``nan`` if not reached), ``s_min`` and ``s_max``
        (extreme singular values of :math:`\\sqrt{N/q_0}\\,R(0)`).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.ode_escape_time_trial(p=8, p_star=2, N=10_000, rng=0)
    >>> sorted(out)
    ['s_max', 's_min', 't_esc']
    """
    _escape_setting(p, p_star, N, lr, q0, fraction, need_lr=False)
    t_max = p_star * np.log(N) + 20.0 if t_max is None else positive_float("t_max", t_max)
    Q0, R0, _ = initial_overlaps(p, p_star, N, q0=q0, rng=np.random.default_rng(rng))
    t_esc = reduced_escape_time(Q0, R0, lr=lr, fraction=fraction, t_max=t_max)
    s_min, s_max = _singular_values(R0, N, q0)
    return {"t_esc": t_esc, "s_min": s_min, "s_max": s_max}


def sgd_escape_time_trial(*, p, p_star, N, lr, q0=1.0, fraction=0.5, t_max=None, rng=None):
    """Escape time of one SGD run from a random start, and of the ODE from the same overlaps.

    The SGD risk is recorded ten times per unit of steps/N and the run stops
    once it is below ``fraction`` × the (γ²-lifted) plateau risk. The ODE
    (with the γ² term) starts from the run's exact finite-N
    :math:`(Q(0), R(0))`, is sampled 20 times per unit of :math:`t'` and stops
    at the same level (``stop_below`` of :func:`~ibcore.quadratic.integrate_odes`):
    the escape times need nothing later.

    Parameters
    ----------
    p, p_star, N : int
        Widths (``p >= p_star``) and input dimension.
    lr : float
        Learning rate γ (small enough for a plateau to exist).
    q0, fraction
        As in :func:`~ibcore.experiments.quadratic.ode_escape_time_trial`.
    t_max : float, optional
        Give up at this :math:`t'`; default :math:`p^*\\ln N + 10`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``t_esc_sgd``, ``t_esc_ode`` (in :math:`t'`; ``nan`` if not reached).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.sgd_escape_time_trial(p=4, p_star=2, N=100, lr=0.4, rng=0)
    >>> sorted(out)
    ['t_esc_ode', 't_esc_sgd']
    """
    (record,) = _sgd_escape_time_runs(p=p, p_star=p_star, N=N, lr=lr, q0=q0, fraction=fraction, t_max=t_max,
                                      rngs=[rng])
    return record


def _sgd_escape_time_runs(*, p, p_star, N, lr, q0=1.0, fraction=0.5, t_max=None, rngs):
    """:func:`sgd_escape_time_trial` for each generator of ``rngs``, the SGD runs stepped
    together until the last has escaped: its ``batch``, for the sweep."""
    level = _escape_setting(p, p_star, N, lr, q0, fraction, need_lr=True)
    t_max = p_star * np.log(N) + 10.0 if t_max is None else positive_float("t_max", t_max)
    starts, runs = _runs_from_random_init(p, p_star, N, q0=q0, informative=0.0, rngs=rngs, lr=lr, t_max=t_max,
                                          record_every=max(1, N // 10), stop_below=level)
    odes = [integrate_odes(*start, lr=lr, t_max=t_max, grid="linear", n_points=int(20 * t_max) + 1,
                           stop_below=level) for start in starts]
    return [{"t_esc_sgd": run.escape_time(fraction), "t_esc_ode": ode.escape_time(fraction)}
            for run, ode in zip(runs, odes)]


sgd_escape_time_trial.batch = _sgd_escape_time_runs
sgd_escape_time_trial.batch_size = _BATCH_RUNS  # the runs of a point in one batch per worker


def sgd_frame_drift_trial(*, p, p_star, N, lr, t_max=4.0, informative=0.0, q0=1.0, rng=None):
    """How far the frame S moves in one SGD run, before and after the escape.

    Draws a teacher and a student with
    :func:`~ibcore.quadratic.random_init`, runs one-pass SGD to
    :math:`t'` = ``t_max`` (ten records per unit of steps/N) and compares the
    frame :math:`S(t) = R(R^TR)^{-1/2}` with its final value
    :math:`S(\\infty)\\approx S(t'_{max})`. The ODE keeps S fixed for an
    isotropic start; at finite N the SGD noise moves it while R is as small as
    that noise (the plateau of a random start), and much less afterwards [D].
    The ODE (with the γ² term) from the run's own finite-N overlaps, whose
    :math:`Q(0)` is isotropic only up to :math:`O(N^{-1/2})`, gives the
    deterministic part of that motion, the limit of the SGD run as
    :math:`\\gamma/p \\to 0` at fixed N; the distance of the two final frames
    is the part the noise adds.

    Parameters
    ----------
    p, p_star, N : int
        Widths and input dimension (``p >= p_star``).
    lr : float
        Learning rate γ.
    t_max : float
        Length of the run in :math:`t'`; it should end well after the escape.
    informative : float
        Built-in teacher overlap c of
        :func:`~ibcore.quadratic.random_init` (0: random start
        with :math:`R(0) = O(N^{-1/2})`).
    q0 : float
        Variance of the random part of the student weights.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``t_esc``: escape time in :math:`t'` (risk below half the γ²-lifted
        plateau risk; ``nan`` if not reached); ``s_min``: smallest singular
        value of :math:`\\sqrt{N/q_0}\\,R(0)`; ``drift_start``:
        :math:`\\|S(0) - S(\\infty)\\|_F`; ``drift_escape``:
        :math:`\\|S(t_{esc}) - S(\\infty)\\|_F` at the first record at or after
        the escape; ``drift_after``: the largest :math:`\\|S(t) - S(\\infty)\\|_F`
        from that record on; ``risk_end``: the final population risk;
        ``drift_ode``: :math:`\\|S_{ode}(0) - S_{ode}(t'_{max})\\|_F` along the
        ODE from the run's own overlaps; ``sgd_to_ode``:
        :math:`\\|S(\\infty) - S_{ode}(t'_{max})\\|_F`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.sgd_frame_drift_trial(p=3, p_star=2, N=100, lr=0.12, t_max=2.0, rng=0)
    >>> sorted(out)
    ['drift_after', 'drift_escape', 'drift_ode', 'drift_start', 'risk_end', 's_min', 'sgd_to_ode', 't_esc']
    """
    (record,) = _frame_drift_runs(p=p, p_star=p_star, N=N, lr=lr, t_max=t_max,
                                  informative=informative, q0=q0, rngs=[rng])
    return record


def _frame_drift_runs(*, p, p_star, N, lr, t_max=4.0, informative=0.0, q0=1.0, rngs):
    """:func:`sgd_frame_drift_trial` for each generator of ``rngs``, the runs stepped together
    (:func:`~ibcore.quadratic.overlap_chain._sgd_overlaps_runs`): its ``batch``, for the sweep."""
    p, p_star, N = _validated_sizes(p, p_star, N, p_at_least_p_star="for a frame S to exist")
    positive_float("lr", lr)
    positive_float("t_max", t_max)
    positive_float("q0", q0)
    starts, runs = _runs_from_random_init(p, p_star, N, q0=q0, informative=informative, rngs=rngs, lr=lr,
                                          t_max=t_max, record_every=max(1, N // 10))
    odes = [integrate_odes(*start, lr=lr, t_max=t_max, grid="linear", n_points=2) for start in starts]
    return [_frame_drift_record(run, ode, N, q0) for run, ode in zip(runs, odes)]


def _frame_drift_record(run, ode, N, q0):
    S = conserved_frame(run.R)
    S_ode = conserved_frame(ode.R)
    drift = np.linalg.norm(S - S[-1], axis=(1, 2))
    t_esc = run.escape_time()
    after = np.flatnonzero(run.t >= t_esc) if np.isfinite(t_esc) else np.array([], dtype=int)
    s_min, _ = _singular_values(run.R[0], N, q0)
    return {"t_esc": t_esc, "s_min": s_min, "drift_start": float(drift[0]),
            "drift_escape": float(drift[after[0]]) if after.size else float("nan"),
            "drift_after": float(drift[after].max()) if after.size else float("nan"),
            "risk_end": float(run.risk[-1]),
            "drift_ode": float(np.linalg.norm(S_ode[0] - S_ode[-1])),
            "sgd_to_ode": float(np.linalg.norm(S[-1] - S_ode[-1]))}


sgd_frame_drift_trial.batch = _frame_drift_runs
sgd_frame_drift_trial.batch_size = _BATCH_RUNS  # the runs of a point in one batch per worker


def ode_frame_drift_trial(*, p, p_star, N, lr=None, t_max=6.0, informative=0.0, q0=1.0, rng=None):
    """How far the ODE turns the frame S from the exact overlaps of one finite-N random start.

    Draws a teacher and a student with :func:`~ibcore.quadratic.random_init`, as
    :func:`~ibcore.experiments.quadratic.sgd_frame_drift_trial` does (the same generator
    gives the same start), and integrates the overlap ODEs from their exact overlaps to
    :math:`t'` = ``t_max``. The ODE conserves S from an isotropic :math:`Q(0)`; the
    :math:`Q(0)` of a finite-N start is isotropic only up to :math:`O(N^{-1/2})`, and the
    frame turns by as much, deterministically [D]. This turn, the *N-floor*, is the limit
    of the SGD run's scrambling :math:`\\|S(0) - S(\\infty)\\|_F` as
    :math:`\\gamma/p \\to 0` at fixed N.

    Parameters
    ----------
    p, p_star, N : int
        Widths and input dimension (``p >= p_star``).
    lr : float or None
        Learning rate γ of the γ² term; ``None`` (default) is gradient flow.
    t_max : float
        End of the integration in :math:`t'`; it should be well after the escape, where S
        no longer moves.
    informative, q0
        As in :func:`~ibcore.experiments.quadratic.sgd_frame_drift_trial`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict
        ``floor``: :math:`\\|S(0) - S(t'_{max})\\|_F` along the ODE; ``s_min``: smallest
        singular value of :math:`\\sqrt{N/q_0}\\,R(0)`.

    Examples
    --------
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.ode_frame_drift_trial(p=3, p_star=2, N=64, rng=0)
    >>> sorted(out)
    ['floor', 's_min']
    >>> 0 < out["floor"] < 1
    True
    """
    p, p_star, N = _validated_sizes(p, p_star, N, p_at_least_p_star="for a frame S to exist")
    if lr is not None:
        positive_float("lr", lr)
    positive_float("t_max", t_max)
    positive_float("q0", q0)
    Q0, R0, T = overlaps(*random_init(p, p_star, N, q0=q0, informative=informative,
                                      rng=np.random.default_rng(rng)))
    S = conserved_frame(integrate_odes(Q0, R0, T, lr=lr, t_max=t_max, grid="linear", n_points=2).R)
    return {"floor": float(np.linalg.norm(S[0] - S[-1])), "s_min": _singular_values(R0, N, q0)[0]}
