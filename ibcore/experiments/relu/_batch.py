r"""Trials of one GD run, written so that a point's runs can be stepped together (internal).

A trial that runs GD once is written as a *body*: a generator that validates its
arguments, draws its data, yields the keyword arguments of its
:func:`~ibcore.relu.gradient_descent` (``X``, ``w0``) or :func:`~ibcore.relu.gradient_descent_gram`
(``K``, ``alpha0``) call, receives the result and returns the
trial's record.  :func:`run_trial` drives one body with that run: that is
the trial.  :func:`batch_of` gives the trial its ``batch`` (see :func:`ibcore.sweep.sweep`):
the bodies of a point's trials run up to their GD call, the runs are stepped together
(``gd._gradient_descent_runs``), and each body finishes with its own run.  A run's
arithmetic does not depend on the runs beside it, so the records are the trial's, bit
for bit.  Both silence :class:`~ibcore.relu.InactivePositiveWarning`: trials count the
examples concerned instead.
"""
from __future__ import annotations

import inspect

from ...relu.gd import _gradient_descent_runs
from ...relu._iteration import without_inactive_warning


def _finish(body, result):
    """Send its GD result to a body and return its record."""
    try:
        body.send(result)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("a trial body yields exactly one GD call")


def run_trial(body) -> dict:
    """The record of one trial: its body driven with its GD run."""
    (result,) = without_inactive_warning(_gradient_descent_runs, [next(body)])
    return _finish(body, result)


def batch_of(trial, body):
    """The ``batch`` method of ``trial``, whose body is the generator function ``body``.

    The batch takes the trial's parameters (its defaults fill those not given, and an
    unknown one raises ``TypeError`` as the trial would) and ``rngs``, one generator per
    trial, and returns the trials' records in that order.
    """
    signature = inspect.signature(trial)

    def batch(*, rngs, **params):
        arguments = signature.bind(**params, rng=None)
        arguments.apply_defaults()
        kwargs = {k: v for k, v in arguments.arguments.items() if k != "rng"}
        bodies = [body(**kwargs, rng=rng) for rng in rngs]
        results = without_inactive_warning(_gradient_descent_runs, [next(b) for b in bodies])
        return [_finish(b, r) for b, r in zip(bodies, results)]

    batch.__doc__ = f"The records of ``{trial.__name__}`` for each generator of ``rngs``, their GD runs stepped together."
    return batch
