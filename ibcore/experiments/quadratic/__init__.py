"""The experiments of Part II: one random draw each, for :func:`ibcore.sweep.sweep`.

* comparison -- :func:`~ibcore.experiments.quadratic.sgd_ode_comparison` (one SGD run next to the
  ODEs from its own start, for the figures) and :func:`~ibcore.experiments.quadratic.sgd_ode_gap_trial`
  (the gap between them, as numbers) and :func:`~ibcore.experiments.quadratic.plateau_norm_trial`
  (the mean norm on the plateau, of the SGD run and of its two ODEs);
* escape -- :func:`~ibcore.experiments.quadratic.ode_escape_time_trial`,
  :func:`~ibcore.experiments.quadratic.sgd_escape_time_trial`,
  :func:`~ibcore.experiments.quadratic.sgd_frame_drift_trial` and
  :func:`~ibcore.experiments.quadratic.ode_frame_drift_trial`;
* snapshots -- :func:`~ibcore.experiments.quadratic.sgd_snapshot_trial` (the state of SGD runs
  from one fixed start at a few times, by the weights or by their overlaps: samples of the law
  of one-pass SGD).

Times are :math:`t'` (:mod:`~ibcore.quadratic.clock`); ``lr=None`` is gradient flow.
"""
from . import comparison, escape, snapshots
from .comparison import *  # noqa: F401,F403
from .escape import *  # noqa: F401,F403
from .snapshots import *  # noqa: F401,F403

__all__ = [*comparison.__all__, *escape.__all__, *snapshots.__all__]
