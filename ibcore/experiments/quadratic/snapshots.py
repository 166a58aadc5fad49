"""Snapshots of SGD runs from one fixed start: samples of the law of one-pass SGD at a few times.

:func:`~ibcore.experiments.quadratic.sgd_snapshot_trial` draws a teacher and a student once,
from the seed ``start`` (the same for every trial), runs one-pass SGD from them with the
trial's own random inputs, and returns the norms, the teacher overlap and the risk at a few
equally spaced times. The run is made by the weights (:func:`~ibcore.quadratic.sgd_one_pass`)
or by their overlaps (:func:`~ibcore.quadratic.sgd_overlaps`, exact in law): over many
trials each simulator gives a sample of the same law, which two-sample tests compare
(Part II ch. 1).
"""
from __future__ import annotations

import numpy as np

from ...quadratic.clock import sgd_steps
from ...quadratic.initialisation import random_init
from ...quadratic.order_parameters import _validated_sizes, overlaps
from ...quadratic.overlap_chain import _BATCH_RUNS, _sgd_overlaps_runs
from ...quadratic.sgd import _sgd_one_pass_runs
from ...validation import positive_int

__all__ = ["sgd_snapshot_trial"]

#: The simulators of :func:`sgd_snapshot_trial`.
SIMULATORS = ("weights", "overlaps")


def sgd_snapshot_trial(*, p, p_star, N, lr, t_max, n_records=3, noise=0.0, informative=0.3, q0=1.0,
                       start=0, simulator="overlaps", rng=None, _squared_norm="exact"):
    """The state of one SGD run from a fixed start at ``n_records`` equally spaced times.

    The teacher and the student are drawn from the seed ``start``
    (:func:`~ibcore.quadratic.random_init`, with ``informative`` and ``q0``), the same for
    every trial; the run's inputs and label noise come from ``rng``. The run is one-pass SGD
    on the weights (``simulator="weights"``, :func:`~ibcore.quadratic.sgd_one_pass`) or on
    their overlaps (``"overlaps"``, :func:`~ibcore.quadratic.sgd_overlaps`), which has the
    same law.

    Parameters
    ----------
    p, p_star, N : int
        Student width, teacher width, input dimension.
    lr : float
        Learning rate γ.
    t_max : float
        Length of the run in :math:`t' = (\\gamma/p)\\,\\text{steps}/N`.
    n_records : int
        Number of snapshots, at the steps :math:`k\\,n/n_{\\rm records}` (:math:`t' \\approx
        k\\,t_{\\max}/n_{\\rm records}`), :math:`k = 1, \\dots, n_{\\rm records}`, with :math:`n`
        the run's steps.
    noise : float
        Variance :math:`\\sigma^2` of the label noise.
    informative, q0 : float
        The start's built-in teacher overlap and the variance of its random part.
    start : int
        Seed of the start, shared by every trial.
    simulator : {"weights", "overlaps"}
        Which simulator runs SGD.
    rng : None, int or numpy.random.Generator
        The run's inputs and label noise.
    _squared_norm : str
        Not a setting: the hook for negative controls of the overlap chain
        (``simulator="overlaps"`` only), which then builds the chain with the law of
        :math:`|x|^2` wrong (chapter 1's control).

    Returns
    -------
    dict
        For :math:`k = 1, \\dots, n_{\\rm records}`: ``norm_k`` (:math:`\\mathrm{Tr}\\,Q/p`),
        ``overlap_k`` (:math:`\\|R\\|_F^2/p`) and ``risk_k`` (the population risk, label noise
        included).

    Notes
    -----
    ``sgd_snapshot_trial.batch(..., rngs=[...])`` takes the same arguments with a list of
    generators in place of ``rng`` and returns the record of each, the same as one call each,
    bit for bit: the runs stepped together, on the overlaps or on the weights.
    :func:`ibcore.sweep.sweep` uses it.

    Examples
    --------
    >>> import ibcore.experiments.quadratic as E
    >>> kw = dict(p=4, p_star=2, N=50, lr=0.4, t_max=1.5, noise=0.5, start=7)
    >>> by_weights = E.sgd_snapshot_trial(**kw, simulator="weights", rng=1)
    >>> by_overlaps = E.sgd_snapshot_trial(**kw, simulator="overlaps", rng=1)
    >>> sorted(by_weights) == sorted(by_overlaps)
    True
    >>> sorted(by_weights)[:3]
    ['norm_1', 'norm_2', 'norm_3']
    """
    (record,) = _sgd_snapshot_runs(p=p, p_star=p_star, N=N, lr=lr, t_max=t_max, n_records=n_records, noise=noise,
                                   informative=informative, q0=q0, start=start, simulator=simulator, rngs=[rng],
                                   _squared_norm=_squared_norm)
    return record


def _sgd_snapshot_runs(*, p, p_star, N, lr, t_max, n_records=3, noise=0.0, informative=0.3, q0=1.0, start=0,
                       simulator="overlaps", rngs, _squared_norm="exact"):
    """:func:`sgd_snapshot_trial` for each generator of ``rngs``: its ``batch``, for the sweep."""
    if simulator not in SIMULATORS:
        raise ValueError(f"simulator must be one of {SIMULATORS}, got {simulator!r}")
    if simulator == "weights" and _squared_norm != "exact":
        raise ValueError(f"_squared_norm is a hook of the overlaps' chain; the weights have no other law, "
                         f"got _squared_norm={_squared_norm!r} with simulator='weights'")
    p, p_star, N = _validated_sizes(p, p_star, N)
    n_records = positive_int("n_records", n_records)
    n_steps = sgd_steps(t_max, p=p, lr=lr, N=N)
    if n_steps < n_records:
        raise ValueError(f"n_records must be at most the run's {n_steps} steps, got n_records={n_records}")
    at = np.arange(n_records + 1) * n_steps // n_records
    W0, W_star = random_init(p, p_star, N, q0=q0, informative=informative, rng=start)
    kw = dict(lr=lr, n_steps=n_steps, record_steps=at, noise=noise)
    if simulator == "weights":
        runs = _sgd_one_pass_runs([W0] * len(rngs), [W_star] * len(rngs), rngs=rngs, **kw)
    else:
        Q0, R0, T = overlaps(W0, W_star)
        runs = _sgd_overlaps_runs([Q0] * len(rngs), [R0] * len(rngs), [T] * len(rngs), N=N, rngs=rngs,
                                  _squared_norm=_squared_norm, **kw)
    records = []
    for run in runs:
        norm = np.trace(run.Q, axis1=1, axis2=2) / p
        overlap = np.sum(run.R ** 2, axis=(1, 2)) / p
        records.append({f"{name}_{k}": float(values[k]) for k in range(1, n_records + 1)
                        for name, values in (("norm", norm), ("overlap", overlap), ("risk", run.risk))})
    return records


sgd_snapshot_trial.batch = _sgd_snapshot_runs
sgd_snapshot_trial.batch_size = _BATCH_RUNS  # the runs of a point in one batch per worker
