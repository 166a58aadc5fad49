"""ibcore: the solver layer of the book *Implicit Bias, Executable*.

Subpackages mirror the book:

* :mod:`ibcore.relu` -- Part I, gradient descent on shallow ReLU networks
  (Lai, Wang, Tao and Muthukumar, COLT 2026);
* :mod:`ibcore.quadratic` -- Part II, one-pass SGD in teacher-student
  quadratic networks (Bocchi, Regimbeau, Lucibello, Saglietti and Cammarota, 2026);
* :mod:`ibcore.linear` -- the prologue, GD on underdetermined least squares;
* :mod:`ibcore.experiments` -- the chapters' experiments built on these, as trials for
  :func:`ibcore.sweep.sweep`, which runs them over grids (:mod:`ibcore.summary` reduces the tables);
* :mod:`ibcore.book` -- the book's helpers around the solvers: plot style, explorers,
  numbers and tables in the page.

A solver that leaves the finite numbers raises :class:`~ibcore.DivergenceError`, with the step
or time at which it happened.
"""
from .validation import DivergenceError

__version__ = "0.1.0"

__all__ = ["DivergenceError", "__version__"]
