"""The experiments of the book: trials built on the science of :mod:`ibcore.relu` and :mod:`ibcore.quadratic`.

A *trial* is one random draw of a chapter's experiment: a plain function with keyword-only
parameters and ``rng=None``, which validates its arguments first and returns a flat dict of
numbers, for :func:`ibcore.sweep.sweep` to run over a grid of settings and seeds. It composes
public functions of its part in the order a chapter repeats by hand (labels first, then the
data, then the solver and the quantity the chapter measures); no theory lives here.

* :mod:`ibcore.experiments.relu` -- Part I: the gap to the min-norm solution, the activation
  pattern, the test error, two neurons, a disjoint start, bad starts;
* :mod:`ibcore.experiments.quadratic` -- Part II: escape times, one SGD run against the ODEs
  from its own start, the drift of the conserved frame.

A trial whose runs can share their Python work also carries ``trial.batch(*, **params, rngs)``,
the records of ``trial(**params, rng=r)`` for each ``r``, bit for bit (see :func:`ibcore.sweep.sweep`).
"""
