r"""Part I of the book: gradient descent on shallow ReLU regression in high dimensions.

Lai, Wang, Tao and Muthukumar (COLT 2026) show that GD on a shallow ReLU
model with the square loss, on high-dimensional random features, ends within
:math:`\Theta(\sqrt{n/\lVert\lambda\rVert_1})` of the minimum-ℓ2-norm solution.  This package provides the
solvers behind the chapters, one module per concept:

* features, gram -- the data: :func:`~ibcore.relu.sample_labels`, :func:`~ibcore.relu.sample_features`,
  :class:`~ibcore.relu.Spectrum`, :func:`~ibcore.relu.sample_gram` (:math:`K = XX^\top` without X, for d up to :math:`10^8`);
* model, stability -- :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)`, its loss, and step sizes
  (:func:`~ibcore.relu.lr_from_contraction`, :func:`~ibcore.relu.default_contraction`);
* gd, results -- :func:`~ibcore.relu.gradient_descent` (primal–dual,
  :math:`O(mn^2)` per step) and :func:`~ibcore.relu.gradient_descent_gram`, and what they return, :class:`~ibcore.relu.GDResult`
  (its loop is the internal module ``_iteration``);
* min_norm, disjoint -- the targets: :func:`~ibcore.relu.min_norm_solution` (exact dual solve),
  :func:`~ibcore.relu.positive_subset_least_squares`, the two-neuron target, and the targets of
  several neurons with a disjoint pattern;
* orthogonal, perturbation -- closed forms on orthogonal data (no cross-talk), and to
  first order in the cross-talk (:func:`~ibcore.relu.first_order_gap`);
* initialisation -- all-active, two-neuron, disjoint, Gaussian, tiny and bad starts;
* metrics -- relative gap, pattern stabilisation, re-activations, fit statistics;
* teacher -- the test error against a ReLU teacher, in closed form (:func:`~ibcore.relu.relu_teacher_risk`).

Where a computation needs X only through the Gram matrix :math:`K = XX^\top`, it has two entry
points: the feature form takes X and works with weights (``gradient_descent(X, y, w0, ...)``),
the Gram form, named with the suffix ``_gram``, takes K and works with data-span coefficients
α, :math:`w = X^\top\alpha` (``gradient_descent_gram(K, y, alpha0, ...)``), so that d can be
:math:`10^8`.

The experiments of the chapters built on these, one run each for :func:`ibcore.sweep.sweep`
(the gap, the activation pattern, two neurons, a disjoint start, bad starts), are in
:mod:`ibcore.experiments.relu`.

Notation: :math:`\beta = Xw` pre-activations ("predictions"), α data-span coefficients
(:math:`w = w_0 + X^\top\alpha`), :math:`K = XX^\top`, λ covariance spectrum,
:math:`c = \mathrm{lr}\,\lVert x\rVert^2/n`, :math:`b_0` the initial pre-activation scale.  Where a definition is our reconstruction rather than
the paper's, the docstring says so.
"""
# Each module lists its public names in its own __all__; the package re-exports
# exactly those, so there is one list per name to keep up to date. Everything else
# (names with a leading underscore, the module _iteration) is ibcore's own.
from . import (disjoint, features, gd, gram, initialisation, metrics, min_norm, model, orthogonal, perturbation,
               results, stability, teacher)
from .disjoint import *  # noqa: F401,F403
from .features import *  # noqa: F401,F403
from .gd import *  # noqa: F401,F403
from .gram import *  # noqa: F401,F403
from .initialisation import *  # noqa: F401,F403
from .metrics import *  # noqa: F401,F403
from .min_norm import *  # noqa: F401,F403
from .model import *  # noqa: F401,F403
from .orthogonal import *  # noqa: F401,F403
from .perturbation import *  # noqa: F401,F403
from .results import *  # noqa: F401,F403
from .stability import *  # noqa: F401,F403
from .teacher import *  # noqa: F401,F403

__all__ = [
    *features.__all__, *gram.__all__,             # the data
    *model.__all__, *stability.__all__,           # the network and its step sizes
    *gd.__all__, *results.__all__,                # gradient descent and its result
    *min_norm.__all__, *disjoint.__all__,         # the targets
    *orthogonal.__all__,                          # closed forms without cross-talk
    *perturbation.__all__,                        # ... and to first order in it
    *initialisation.__all__,                      # initial weights
    *metrics.__all__,                             # what the chapters measure
    *teacher.__all__,                             # test error against a ReLU teacher
]
