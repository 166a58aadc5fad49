"""One SGD run next to the ODEs started from its own finite-N overlaps, as an object and as a trial.

:func:`~ibcore.experiments.quadratic.sgd_ode_comparison` draws a teacher and a student, runs one-pass SGD
on their overlaps (:func:`~ibcore.quadratic.sgd_overlaps`, exact in law) and integrates,
from the run's exact :math:`(Q(0), R(0), T)` and at its record times, the ODEs with the
:math:`\\gamma^2` term and without it (gradient flow).
It is the computation behind :func:`~ibcore.experiments.quadratic.sgd_ode_gap_trial`
and the SGD-against-ODE figures of chapters 1 and 2.
"""
from __future__ import annotations

import numpy as np

from ..._result import result
from ...quadratic.clock import sgd_steps
from ...quadratic.odes import integrate_odes
from ...quadratic.order_parameters import _validated_sizes
from ...quadratic.overlap_chain import _BATCH_RUNS, _runs_from_random_init
from ...quadratic.sgd import SGDTrajectory
from ...quadratic.trajectory import Trajectory
from ...validation import nonnegative_float, positive_float, positive_int

__all__ = ["sgd_ode_comparison", "SGDODEComparison", "sgd_ode_gap_trial", "plateau_norm_trial"]


@result
class SGDODEComparison:
    """One SGD run and the ODEs started from its exact finite-N overlaps.

    Attributes
    ----------
    sgd : SGDTrajectory
        The SGD run (records at ``sgd.t``).
    ode : Trajectory
        ODE with the γ² term, sampled at the same times.
    gradient_flow : Trajectory
        ODE without the γ² term (population gradient flow, same clock).

    Examples
    --------
    >>> import ibcore.experiments.quadratic as E
    >>> c = E.sgd_ode_comparison(p=4, p_star=2, N=200, lr=0.4, t_max=1.0, n_records=20, rng=0)
    >>> bool(c.gap("ode") < 0.5), c.sgd.t.shape == c.ode.t.shape == c.gradient_flow.t.shape
    (True, True)
    """

    sgd: SGDTrajectory
    ode: Trajectory
    gradient_flow: Trajectory

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


def sgd_ode_comparison(*, p, p_star, N, lr, t_max, informative=0.3, q0=1.0, n_records=200,
                       rng=None):
    """Run one-pass SGD at finite N and the ODEs from the same initial overlaps.

    Draws an orthonormal teacher and a student
    :math:`W_0 = c\\,Q_rW^* + \\sqrt{q_0}G`
    (:func:`~ibcore.quadratic.random_init`, :math:`c` =
    ``informative``), runs SGD on their overlaps
    (:func:`~ibcore.quadratic.sgd_overlaps`: one-pass SGD in law) up to
    :math:`t'` = ``t_max``, recording about
    ``n_records`` times, and integrates the ODEs, with and without the γ² term,
    from the run's exact :math:`(Q(0), R(0), T)` at the record times.

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
        Final time in :math:`t'`.
    informative : float
        Initial teacher overlap c ≥ 0 (0: random start).
    q0 : float
        Variance of the random part of the student weights.
    n_records : int
        The run records every ``n_steps // n_records`` steps.
    rng : None, int or numpy.random.Generator
        One stream: first the weights, then the SGD inputs.

    Returns
    -------
    :class:`~ibcore.experiments.quadratic.SGDODEComparison`

    Notes
    -----
    ``sgd_ode_comparison.batch(..., rngs=[...])`` takes the same keyword arguments with a list
    of generators (or seeds) in place of ``rng`` and returns one comparison per generator,
    their SGD runs stepped together: each is the one a call with that generator returns, bit
    for bit, and many cost little more than one. A trial built on this function can hand it
    to :func:`ibcore.sweep.sweep` as the trial's ``batch`` (Part II ch. 2 does).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.quadratic as E
    >>> c = E.sgd_ode_comparison(p=4, p_star=2, N=200, lr=0.4, t_max=1.0, n_records=20, rng=0)
    >>> c.sgd.t.shape == c.ode.t.shape
    True
    """
    (comparison,) = _sgd_ode_comparisons(p=p, p_star=p_star, N=N, lr=lr, t_max=t_max, informative=informative,
                                         q0=q0, n_records=n_records, rngs=[rng])
    return comparison


def _sgd_ode_comparisons(*, p, p_star, N, lr, t_max, informative=0.3, q0=1.0, n_records=200, rngs):
    """:func:`sgd_ode_comparison` for each generator of ``rngs``, the SGD runs stepped together
    (:func:`~ibcore.quadratic.overlap_chain._sgd_overlaps_runs`): the same results as one call each."""
    p, p_star, N = _validated_sizes(p, p_star, N)
    n_steps = sgd_steps(t_max, p=p, lr=lr, N=N)
    n_records = positive_int("n_records", n_records)
    positive_float("q0", q0)
    starts, runs = _runs_from_random_init(p, p_star, N, q0=q0, informative=informative, rngs=rngs, lr=lr,
                                          n_steps=n_steps, record_every=max(1, n_steps // n_records))
    return [SGDODEComparison(sgd=run, ode=integrate_odes(*start, lr=lr, t_eval=run.t),
                             gradient_flow=integrate_odes(*start, t_eval=run.t))
            for run, start in zip(runs, starts)]


sgd_ode_comparison.batch = _sgd_ode_comparisons


def sgd_ode_gap_trial(*, p, p_star, N, lr, t_max=1.5, informative=0.3, q0=1.0, n_records=200,
                      rng=None):
    """Gap between one SGD run and the ODEs from its initial overlaps.

    Runs :func:`~ibcore.experiments.quadratic.sgd_ode_comparison` (same
    parameters) and measures the risk gaps along the run.

    Parameters
    ----------
    p, p_star, N, lr, t_max, informative, q0, n_records, rng
        As for :func:`~ibcore.experiments.quadratic.sgd_ode_comparison`, which this runs with them:
        ``t_max`` is the length of the run in :math:`t'` (1.5 by default), ``informative``
        the built-in teacher overlap (0.3 by default, as a trajectory comparison needs).

    Returns
    -------
    dict
        ``gap`` (max over the records of :math:`|\\epsilon_g^{SGD} - \\epsilon_g^{ODE}|`,
        ODE with the γ² term), ``rms_gap`` (its root mean square over the
        records), ``gap_gradient_flow`` and ``rms_gap_gradient_flow`` (the same
        against gradient flow), ``risk_start`` and ``risk_end`` of the SGD run.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.sgd_ode_gap_trial(p=4, p_star=2, N=200, lr=0.4, t_max=1.0, n_records=20, rng=0)
    >>> sorted(out)
    ['gap', 'gap_gradient_flow', 'risk_end', 'risk_start', 'rms_gap', 'rms_gap_gradient_flow']
    """
    (record,) = _sgd_ode_gap_runs(p=p, p_star=p_star, N=N, lr=lr, t_max=t_max, informative=informative, q0=q0,
                                  n_records=n_records, rngs=[rng])
    return record


def _sgd_ode_gap_runs(*, p, p_star, N, lr, t_max=1.5, informative=0.3, q0=1.0, n_records=200, rngs):
    """:func:`sgd_ode_gap_trial` for each generator of ``rngs``, the SGD runs stepped together:
    its ``batch``, for the sweep."""
    comparisons = _sgd_ode_comparisons(p=p, p_star=p_star, N=N, lr=lr, t_max=t_max, informative=informative,
                                       q0=q0, n_records=n_records, rngs=rngs)
    return [{"gap": c.gap("ode"), "rms_gap": c.gap("ode", norm="rms"),
             "gap_gradient_flow": c.gap("gradient_flow"),
             "rms_gap_gradient_flow": c.gap("gradient_flow", norm="rms"),
             "risk_start": float(c.sgd.risk[0]), "risk_end": float(c.sgd.risk[-1])} for c in comparisons]


sgd_ode_gap_trial.batch = _sgd_ode_gap_runs
sgd_ode_gap_trial.batch_size = _BATCH_RUNS  # the runs of a point in one batch per worker


def plateau_norm_trial(*, p, p_star, N, lr, window=(0.75, 1.5), q0=1.0, rng=None):
    """Mean norm :math:`\\operatorname{Tr}Q/p` on the plateau: one SGD run and its two ODEs.

    Runs :func:`~ibcore.experiments.quadratic.sgd_ode_comparison` from a random start
    (``informative=0``) up to :math:`t'` = ``window[1]`` and averages
    :math:`\\operatorname{Tr}Q(t')/p` over the record times :math:`t'` in ``window``, for the SGD
    run, the ODE with the :math:`\\gamma^2` term and gradient flow, all three from the run's exact
    initial overlaps.

    Parameters
    ----------
    p, p_star, N : int
        Student width, teacher width, input dimension.
    lr : float
        Learning rate γ.
    window : (float, float)
        The window :math:`[t'_0, t'_1]` of the average, :math:`0 \\le t'_0 < t'_1`.
    q0 : float
        Variance of the student's initial weights.
    rng : None, int or numpy.random.Generator
        As for :func:`~ibcore.experiments.quadratic.sgd_ode_comparison`.

    Returns
    -------
    dict
        ``sgd``, ``ode`` and ``gradient_flow``: the window means of :math:`\\operatorname{Tr}Q/p`.

    Notes
    -----
    ``plateau_norm_trial.batch(..., rngs=[...])`` returns the same records for a list of
    generators, their SGD runs stepped together (:func:`ibcore.sweep.sweep` uses it).

    Examples
    --------
    >>> import ibcore.experiments.quadratic as E
    >>> out = E.plateau_norm_trial(p=4, p_star=4, N=200, lr=0.4, window=(0.5, 1.0), rng=0)
    >>> sorted(out), bool(abs(out["sgd"] - out["ode"]) < 0.1)
    (['gradient_flow', 'ode', 'sgd'], True)
    """
    (record,) = _plateau_norm_runs(p=p, p_star=p_star, N=N, lr=lr, window=window, q0=q0, rngs=[rng])
    return record


def _plateau_norm_runs(*, p, p_star, N, lr, window=(0.75, 1.5), q0=1.0, rngs):
    """:func:`plateau_norm_trial` for each generator of ``rngs``, the SGD runs stepped together."""
    try:
        start, end = (float(v) for v in window)
    except (TypeError, ValueError):
        raise ValueError(f"window must be two times (t0, t1), got {window!r}") from None
    nonnegative_float("window[0]", start)
    if not end > start:
        raise ValueError(f"window must have t1 > t0, got {window!r}")
    comparisons = _sgd_ode_comparisons(p=p, p_star=p_star, N=N, lr=lr, t_max=end, informative=0.0, q0=q0,
                                       rngs=rngs)
    records = []
    for c in comparisons:
        inside = (c.sgd.t >= start) & (c.sgd.t <= end)
        records.append({name: float(np.mean(np.trace(run.Q[inside], axis1=1, axis2=2)) / run.p)
                        for name, run in (("sgd", c.sgd), ("ode", c.ode), ("gradient_flow", c.gradient_flow))})
    return records


plateau_norm_trial.batch = _plateau_norm_runs
plateau_norm_trial.batch_size = _BATCH_RUNS  # the runs of a point in one batch per worker
