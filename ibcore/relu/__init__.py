"""Part I of the book: gradient descent on shallow ReLU regression in high dimensions.

Lai, Wang, Tao and Muthukumar (COLT 2026) show that GD on a shallow ReLU
model with the square loss, on high-dimensional random features, ends within
Θ(√(n/‖λ‖₁)) of the minimum-ℓ2-norm solution.  This package provides the
solvers behind the chapters:

* features   -- :func:`sample_features`, :func:`orthogonal_features`, :class:`Spectrum`;
* gram       -- :func:`sample_gram` (K = X Xᵀ without X, for d up to 10^8);
* gd         -- :func:`gradient_descent` (primal–dual, O(m n²) per step),
  :func:`gradient_descent_gram`;
* reference  -- :func:`gradient_descent_weight_space`, the O(m n d) check;
* min_norm   -- :func:`min_norm_solution` (exact dual solve, KKT residual),
  :func:`positive_subset_least_squares`;
* initialisation -- all-active, two-neuron, disjoint, Gaussian and tiny initialisations;
* metrics    -- relative gap, pattern stabilisation step, re-activation counts;
* experiments -- :func:`theorem2_trial`, :func:`theorem2_sweep` (the gap),
  :func:`one_neuron_trial`, :func:`one_neuron_sweep` (setting, one neuron).

Notation: β = X w pre-activations ("predictions"), α data-span coefficients
(w = w0 + Xᵀα), K = X Xᵀ, λ covariance spectrum, c = lr‖x‖²/n.  Where a
definition is our reconstruction rather than the paper's, the docstring says so.
"""
# Each module lists its public names in its own __all__; the package re-exports
# exactly those, so there is one list per name to keep up to date.
from ..validation import DivergenceError
from . import experiments, features, gd, gram, initialisation, metrics, min_norm, reference
from .experiments import *  # noqa: F401,F403
from .features import *  # noqa: F401,F403
from .gd import *  # noqa: F401,F403
from .gram import *  # noqa: F401,F403
from .initialisation import *  # noqa: F401,F403
from .metrics import *  # noqa: F401,F403
from .min_norm import *  # noqa: F401,F403
from .reference import *  # noqa: F401,F403
from . import neurons
from .neurons import *  # noqa: F401,F403

__all__ = [
    "DivergenceError",
    *features.__all__,   # data: Spectrum, sample_features, orthogonal_features
    *gram.__all__,       # sample_gram (K without X)
    *gd.__all__,         # gradient_descent and friends, GDResult
    *reference.__all__,  # gradient_descent_weight_space, the O(mnd) reference
    *min_norm.__all__,   # min_norm_solution, positive_subset_least_squares
    *initialisation.__all__,  # initialisations
    *metrics.__all__,    # relative gap, stabilisation, re-activations
    *experiments.__all__,  # theorem2_trial/sweep, one_neuron_trial/sweep, orthogonal_stabilisation_step
    # multi-neuron experiments
    *neurons.__all__,    # two-neuron, disjoint-init and bad-init trials and sweeps
]
