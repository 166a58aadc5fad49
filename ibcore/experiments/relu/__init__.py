r"""The experiments of Part I: one GD run each, for :func:`ibcore.sweep.sweep`.

* one_neuron -- :func:`~ibcore.experiments.relu.gap_trial` (the gap to :math:`w^\star`, the
  paper's headline), :func:`~ibcore.experiments.relu.pattern_trial` (how the activation pattern
  settles), :func:`~ibcore.experiments.relu.structure_trial` (the structure of :math:`w^\star`,
  without GD) and :func:`~ibcore.experiments.relu.test_error_trial` (labels from a teacher);
* networks -- :func:`~ibcore.experiments.relu.two_neuron_trial`,
  :func:`~ibcore.experiments.relu.disjoint_trial` and :func:`~ibcore.experiments.relu.bad_init_trial`.

A chapter imports the trials it runs::

    from ibcore.experiments.relu import gap_trial
    from ibcore.sweep import sweep
    table = sweep(gap_trial, {"d": [400, 1600]}, trials=8, fixed={"n": 20})
"""
from . import networks, one_neuron
from .networks import *  # noqa: F401,F403
from .one_neuron import *  # noqa: F401,F403

__all__ = [*one_neuron.__all__, *networks.__all__]
