"""ibcore: the solver layer of the book *Implicit Bias, Executable*.

Subpackages mirror the book:

* :mod:`ibcore.relu` -- Part I, gradient descent on shallow ReLU networks
  (Lai, Wang, Tao and Muthukumar, COLT 2026);
* :mod:`ibcore.quadratic` -- Part II, one-pass SGD in teacher-student
  quadratic networks (Bocchi, Regimbeau, Lucibello, Saglietti and Cammarota, 2026);
* :mod:`ibcore.linear` -- the prologue, GD on underdetermined least squares;
* :mod:`ibcore.book` -- the book's helpers around the solvers: plot style, explorers,
  numbers and tables in the page.
"""
from .validation import DivergenceError

__version__ = "0.1.0"

__all__ = ["DivergenceError", "__version__"]
