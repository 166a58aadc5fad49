"""Experiments of Part II, as module-level trials for :func:`ibcore.sweep.sweep`.

* escape times over many random starts, from the ODEs (:func:`escape_times`)
  or from finite-N SGD (:func:`sgd_escape_times`);
* one SGD run next to the ODEs started from its exact finite-N overlaps, with
  and without the γ² term (:func:`sgd_ode_comparison`), and the gap over
  seeds (:func:`sgd_ode_gaps`);
* how far the conserved frame :math:`S` moves along SGD, before and after the
  escape (:func:`sgd_frame_drifts`).

Each ``*_trial`` function takes the grid parameters and an ``rng`` and returns
a dict of scalars; the wrapper next to it runs it over seeds through
:func:`ibcore.sweep.sweep` (cached on disk, on local processes or Dask).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import as_generator, positive_float, positive_int
from ..sweep import sweep
from .init import initial_overlaps, random_init
from .odes import integrate_odes
from .overlaps import overlaps
from .phases import escape_time, plateau_risk
from .reduced import reduced_escape_time
from .sgd import sgd_one_pass
from .symmetry import conserved_frame

__all__ = [
    "ode_escape_trial",
    "escape_times",
    "sgd_escape_trial",
    "sgd_escape_times",
    "SGDODEComparison",
    "sgd_ode_comparison",
    "sgd_ode_gap_trial",
    "sgd_ode_gaps",
    "sgd_frame_trial",
    "sgd_frame_drifts",
]


# ---------------------------------------------------------------------------
# Multi-seed escape-time helpers (module-level trials for ibcore.sweep.sweep)
# ---------------------------------------------------------------------------

def ode_escape_trial(p, p_star, N, lr=1.0, second_order=False, q0=1.0, fraction=0.5, t_max=None, *,
                     rng):
    """One ODE escape time from a random isotropic start (trial for :func:`ibcore.sweep.sweep`).

    Draws :math:`R(0)\\sim\\mathcal N(0, q_0/N)`, :math:`Q(0) = q_0 I`, and
    integrates the exact reduced system (:mod:`~ibcore.quadratic.reduced`)
    until the risk falls below ``fraction`` × the plateau risk.

    Parameters
    ----------
    p, p_star, N : int
    lr : float
        Learning rate; sets :math:`\\alpha = (p/\\gamma)t'` and, with
        ``second_order``, the weight of the γ² term.
    second_order : bool
        Include the γ² term (default: gradient flow, for which
        :math:`t'_{esc}` does not depend on γ).
    q0, fraction : float
    t_max : float, optional
        Give up at this :math:`t'`; default :math:`p^*\\ln N + 20`.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``t_esc`` (in :math:`t'`), ``alpha_esc``, ``r_min`` and ``r_max``
        (extreme singular values of :math:`\\sqrt{N/q_0}\\,R(0)`).
    """

    Q0, R0, _ = initial_overlaps(p, p_star, N, q0=q0, rng=rng)
    t_max = p_star * np.log(N) + 20.0 if t_max is None else t_max
    t_esc = reduced_escape_time(Q0, R0, lr=lr, second_order=bool(second_order),
                                fraction=fraction, t_max=t_max)
    sv = np.linalg.svd(R0 * np.sqrt(N / q0), compute_uv=False)
    return {"t_esc": t_esc, "alpha_esc": t_esc * p / lr,
            "r_min": float(sv.min()), "r_max": float(sv.max())}


def escape_times(p, p_star, N, *, trials=20, lr=1.0, second_order=False, q0=1.0, fraction=0.5,
                 **sweep_options):
    """ODE escape times over random :math:`R(0)` draws, for every combination of p, p*, N.

    Thin wrapper around :func:`ibcore.sweep.sweep` with :func:`ode_escape_trial`.

    Parameters
    ----------
    p, p_star, N : int or sequence of int
        Grid values (scalars are promoted to one-element lists).
    trials : int
        Draws of :math:`R(0)` per grid point.
    lr, second_order, q0, fraction
        See :func:`ode_escape_trial`.
    **sweep_options
        ``seed``, ``n_jobs``, ``backend``, ``cache``, ``progress``: passed to
        :func:`~ibcore.sweep.sweep`, with its defaults.

    Returns
    -------
    numpy structured array
        Columns ``p, p_star, N, lr, second_order, q0, fraction, trial, t_esc, alpha_esc,
        r_min, r_max``.
    """

    return _sweep_grid(ode_escape_trial, "ODE escape times", trials, sweep_options, p=p, p_star=p_star, N=N,
                       lr=lr, second_order=bool(second_order), q0=q0, fraction=fraction)


def sgd_escape_trial(p, p_star, N, lr, q0=1.0, fraction=0.5, t_max=None, *, rng):
    """Escape time of one SGD run from a random start, and of the ODE from the same overlaps.

    The SGD risk is recorded ten times per unit of :math:`\\alpha` and the run
    stops once it is below ``fraction`` × the (γ²-shifted) plateau risk. The
    ODE (with the γ² term) starts from the run's exact finite-N
    :math:`(Q(0), R(0))`.

    Returns
    -------
    dict
        ``t_esc_sgd``, ``t_esc_ode`` (in :math:`t'`).
    """

    W0, W_star = random_init(p, p_star, N, q0=q0, rng=rng)
    level = fraction * plateau_risk(p, p_star, lr=lr)
    t_max = p_star * np.log(N) + 10.0 if t_max is None else t_max
    steps = int(np.ceil(t_max * p / lr * N))
    run = sgd_one_pass(W0, W_star, lr=lr, steps=steps, rng=rng, record_every=max(1, N // 10),
                       stop_below=level)
    Q0, R0, T = overlaps(W0, W_star)
    ode = integrate_odes(Q0, R0, T, lr=lr, alpha_max=t_max * p / lr, grid="linear",
                         n_points=int(20 * t_max) + 1)
    ref = plateau_risk(p, p_star, lr=lr)
    return {"t_esc_sgd": escape_time(run.t_prime, run.risk, ref, fraction=fraction),
            "t_esc_ode": escape_time(ode.t_prime, ode.risk, ref, fraction=fraction)}


def sgd_escape_times(p, p_star, N, lr, *, trials=10, q0=1.0, fraction=0.5, **sweep_options):
    """SGD and ODE escape times over seeds (wrapper of :func:`ibcore.sweep.sweep` with :func:`sgd_escape_trial`).

    Each trial draws a new teacher, student and SGD input stream. Slow for
    large N: one run costs about :math:`p\\,t'_{esc}N^2/\\gamma` Gaussian draws.
    ``sweep_options`` (``seed``, ``n_jobs``, ``backend``, ``cache``,
    ``progress``) go to :func:`~ibcore.sweep.sweep`.

    Returns
    -------
    numpy structured array
        Columns ``p, p_star, N, lr, q0, fraction, trial, t_esc_sgd, t_esc_ode``.
    """

    return _sweep_grid(sgd_escape_trial, "SGD escape times", trials, sweep_options, p=p, p_star=p_star, N=N,
                       lr=lr, q0=q0, fraction=fraction)


@dataclass(frozen=True)
class SGDODEComparison:
    """One SGD run and the ODEs started from its exact finite-N overlaps.

    Attributes
    ----------
    sgd : SGDTrajectory
        The SGD run (overlaps recorded at ``sgd.alpha``).
    ode : Trajectory
        ODE with the γ² term, sampled at the same times.
    gradient_flow : Trajectory
        ODE without the γ² term (population gradient flow, same clock).
    """

    sgd: object
    ode: object
    gradient_flow: object

    def gap(self, which="ode", *, norm="max"):
        """Gap between the SGD risk and an ODE risk along the run.

        Parameters
        ----------
        which : {"ode", "gradient_flow"}
            The ODE to compare with.
        norm : {"max", "rms"}
            ``"max"``: :math:`\\max_t|\\epsilon_g^{SGD}(t) - \\epsilon_g^{ODE}(t)|`;
            ``"rms"``: the root mean square of the same difference over the
            record times (evenly spaced in t'), a less noisy measure of the
            size of the fluctuations.

        Returns
        -------
        float
        """
        if which not in ("ode", "gradient_flow"):
            raise ValueError(f"which must be 'ode' or 'gradient_flow', got {which!r}")
        if norm not in ("max", "rms"):
            raise ValueError(f"norm must be 'max' or 'rms', got {norm!r}")
        diff = getattr(self, which).risk - self.sgd.risk
        if norm == "max":
            return float(np.max(np.abs(diff)))
        return float(np.sqrt(np.mean(diff * diff)))


def sgd_ode_comparison(p, p_star, N, lr, *, t_max, informative=0.3, q0=1.0, n_records=200,
                       rng=None):
    """Run one-pass SGD at finite N and the ODEs from the same initial overlaps.

    Draws an orthonormal teacher and a student
    :math:`W_0 = c\\,Q_rW^* + \\sqrt{q_0}G` (:func:`~ibcore.quadratic.init.random_init`,
    :math:`c` = ``informative``), runs SGD up to :math:`t' = (\\gamma/p)\\alpha` =
    ``t_max`` and integrates the ODEs, with and without the γ² term, from the
    run's exact :math:`(Q(0), R(0), T)`, sampled at the SGD record times.

    An informative start (:math:`c = O(1)`) is what a *trajectory* comparison
    needs: from a random start :math:`R(0) = O(N^{-1/2})` is as small as the
    SGD noise on the plateau, and the noise then decides part of the escape
    (addendum of the science notes).

    Parameters
    ----------
    p, p_star, N : int
        Student width, teacher width, input dimension.
    lr : float
        Learning rate γ.
    t_max : float
        Final time in :math:`t'`; the run has ``round(t_max p N / lr)`` steps.
    informative : float
        Initial teacher overlap c ≥ 0 (0: random start).
    q0 : float
        Variance of the random part of the student weights.
    n_records : int
        Approximate number of recorded times (evenly spaced in steps).
    rng : None, int or numpy.random.Generator
        Seeds the weights and the SGD input stream.

    Returns
    -------
    SGDODEComparison
    """

    lr = positive_float("lr", lr)
    t_max = positive_float("t_max", t_max)
    n_records = positive_int("n_records", n_records)
    rng = as_generator(rng)  # one stream: first the weights, then the SGD inputs
    W0, W_star = random_init(p, p_star, N, q0=q0, informative=informative, rng=rng)
    steps = max(1, int(round(t_max * p / lr * W0.shape[1])))
    run = sgd_one_pass(W0, W_star, lr=lr, steps=steps, rng=rng,
                       record_every=max(1, steps // n_records))
    Q0, R0, T = overlaps(W0, W_star)
    kw = dict(lr=lr, alpha_max=run.alpha[-1], alpha_eval=run.alpha)
    return SGDODEComparison(sgd=run, ode=integrate_odes(Q0, R0, T, **kw),
                            gradient_flow=integrate_odes(Q0, R0, T, second_order=False, **kw))


def sgd_ode_gap_trial(p, p_star, N, lr, informative=0.3, t_max=1.5, q0=1.0, *, rng):
    """Gap between one SGD run and the ODEs (trial for :func:`ibcore.sweep.sweep`).

    Returns
    -------
    dict
        ``gap`` (max over time of :math:`|\\epsilon_g^{SGD} - \\epsilon_g^{ODE}|`, ODE
        with the γ² term), ``rms_gap`` (its root mean square over time),
        ``gap_gradient_flow`` and ``rms_gap_gradient_flow`` (the same against
        gradient flow), ``risk_start`` and ``risk_end`` of the SGD run.
    """
    c = sgd_ode_comparison(p, p_star, N, lr, t_max=t_max, informative=informative, q0=q0,
                           rng=rng)
    return {"gap": c.gap("ode"), "rms_gap": c.gap("ode", norm="rms"),
            "gap_gradient_flow": c.gap("gradient_flow"),
            "rms_gap_gradient_flow": c.gap("gradient_flow", norm="rms"),
            "risk_start": float(c.sgd.risk[0]), "risk_end": float(c.sgd.risk[-1])}


def sgd_ode_gaps(p, p_star, N, lr, *, trials=8, informative=0.3, t_max=1.5, q0=1.0,
                 **sweep_options):
    """SGD-vs-ODE gaps over seeds for every combination of p, p*, N, lr.

    Thin wrapper around :func:`ibcore.sweep.sweep` with :func:`sgd_ode_gap_trial`.
    One trial costs about :math:`t_{max}pN^2/\\gamma` Gaussian draws.

    Parameters
    ----------
    p, p_star, N, lr : scalar or sequence
        Grid values (scalars are promoted to one-element lists).
    trials : int
        Seeds per grid point (each draws a new teacher, student and input stream).
    informative, t_max, q0
        See :func:`sgd_ode_comparison`.
    **sweep_options
        ``seed``, ``n_jobs``, ``backend``, ``cache``, ``progress``: passed to
        :func:`~ibcore.sweep.sweep`.

    Returns
    -------
    numpy structured array
        Columns ``p, p_star, N, lr, informative, t_max, q0, trial, gap, rms_gap,
        gap_gradient_flow, rms_gap_gradient_flow, risk_start, risk_end``.
    """

    return _sweep_grid(sgd_ode_gap_trial, "SGD vs ODE", trials, sweep_options, p=p, p_star=p_star, N=N,
                       lr=lr, informative=informative, t_max=t_max, q0=q0)


def _sweep_grid(trial, desc, trials, sweep_options, **params):
    """:func:`ibcore.sweep.sweep` of ``trial`` over every combination of ``params``.

    A scalar is a one-value axis, so fixed settings become columns of the table too.
    """
    grid = {name: list(value) if np.ndim(value) else [value] for name, value in params.items()}
    sweep_options.setdefault("desc", desc)
    return sweep(trial, grid, trials=trials, **sweep_options)


def sgd_frame_trial(p, p_star, N, lr, t_max=4.0, informative=0.0, q0=1.0, *, rng):
    """How far the frame S moves in one SGD run, before and after the escape.

    Trial for :func:`ibcore.sweep.sweep` (see :func:`sgd_frame_drifts`). Draws
    a teacher and a student with :func:`~ibcore.quadratic.init.random_init`,
    runs one-pass SGD to :math:`t' = ` ``t_max`` (ten records per unit of
    :math:`\\alpha`) and compares the frame :math:`S(t) = R(R^TR)^{-1/2}` with
    its final value :math:`S(\\infty)\\approx S(t'_{max})`. The ODE keeps S
    fixed for an isotropic start; at finite N the SGD noise moves it while R
    is as small as that noise (the plateau of a random start), and hardly
    afterwards [D].

    Parameters
    ----------
    p, p_star, N : int
        Widths and input dimension (``p >= p_star``).
    lr : float
        Learning rate γ.
    t_max : float
        Length of the run in :math:`t' = (\\gamma/p)\\alpha`; it should end well
        after the escape.
    informative : float
        Built-in teacher overlap c of :func:`~ibcore.quadratic.init.random_init`
        (0: random start with :math:`R(0) = O(N^{-1/2})`).
    q0 : float
        Variance of the random part of the student weights.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``t_esc``: escape time in :math:`t'` (risk below half the γ²-shifted
        plateau risk; ``nan`` if not reached); ``s_min``: smallest singular
        value of :math:`\\sqrt{N/q_0}\\,R(0)`; ``drift_start``:
        :math:`\\|S(0) - S(\\infty)\\|_F`; ``drift_escape``:
        :math:`\\|S(t_{esc}) - S(\\infty)\\|_F` at the first record at or after
        the escape; ``drift_after``: the largest :math:`\\|S(t) - S(\\infty)\\|_F`
        from that record on; ``risk_end``: the final population risk.
    """

    p = positive_int("p", p)
    p_star = positive_int("p_star", p_star)
    N = positive_int("N", N)
    if p < p_star:
        raise ValueError(f"p must be >= p_star = {p_star} for a frame S to exist, got p = {p}")
    lr = positive_float("lr", lr)
    t_max = positive_float("t_max", t_max)
    q0 = positive_float("q0", q0)
    W0, W_star = random_init(p, p_star, N, q0=q0, informative=informative, rng=rng)
    steps = int(np.ceil(t_max * p / lr * N))
    run = sgd_one_pass(W0, W_star, lr=lr, steps=steps, rng=rng, record_every=max(1, N // 10))
    S = conserved_frame(run.R)
    drift = np.linalg.norm(S - S[-1], axis=(1, 2))
    t_esc = run.escape_time()
    if np.isnan(t_esc):
        after = np.array([], dtype=int)
    else:
        after = np.flatnonzero(run.t_prime >= t_esc)
    s_min = np.linalg.svd(run.R[0] * np.sqrt(N / q0), compute_uv=False).min()
    return {"t_esc": t_esc, "s_min": float(s_min), "drift_start": float(drift[0]),
            "drift_escape": float(drift[after[0]]) if after.size else float("nan"),
            "drift_after": float(drift[after].max()) if after.size else float("nan"),
            "risk_end": float(run.risk[-1])}


def sgd_frame_drifts(p, p_star, N, lr, *, trials=4, t_max=4.0, informative=0.0, q0=1.0,
                     **sweep_options):
    """Frame drift of SGD over seeds: :func:`sgd_frame_trial` run through :func:`ibcore.sweep.sweep`.

    ``p``, ``p_star``, ``N`` and ``lr`` may be scalars or sequences (the grid is
    their product); ``t_max``, ``informative`` and ``q0`` are those of
    :func:`sgd_frame_trial`; ``trials`` independent seeds (teacher, student and
    input stream) run per grid point; ``sweep_options`` (``seed``, ``n_jobs``,
    ``backend``, ``cache``, ``progress``) go to :func:`~ibcore.sweep.sweep`.

    Returns
    -------
    numpy structured array
        Columns ``p, p_star, N, lr, t_max, informative, q0, trial`` and the keys
        of :func:`sgd_frame_trial`.

    Notes
    -----
    One run costs about :math:`t_{max}\\,pN/\\gamma` SGD steps (15 µs each at
    N = 1000): at N = 1000, p = 3, γ/p = 0.02 and ``t_max = 4``, 2·10⁵ steps, a
    few seconds.
    """

    return _sweep_grid(sgd_frame_trial, "SGD frame drift", trials, sweep_options, p=p, p_star=p_star, N=N,
                       lr=lr, t_max=t_max, informative=informative, q0=q0)
