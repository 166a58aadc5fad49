"""Part II: one-pass SGD in teacher-student networks with quadratic activation.

Reproduces Bocchi, Regimbeau, Lucibello, Saglietti and Cammarota, *Escape
dynamics and implicit bias of one-pass SGD in overparameterized quadratic
networks* (arXiv:2604.03068, 2026). The paper's body was not available; the
formulas here follow the re-derivation in the project's science notes
(``paper2-quadratic-escape.md``), checked numerically in ``tests/quadratic``.

Convention (the only one used in this package)
----------------------------------------------
* Input :math:`x\\sim\\mathcal N(0, I_N)`, a **fresh** sample at every step (one pass).
* Student :math:`W\\in\\mathbb R^{p\\times N}`, teacher :math:`W^*\\in\\mathbb R^{p^*\\times N}`,
  entries O(1); pre-activations :math:`\\lambda_i = w_i\\cdot x/\\sqrt N`,
  :math:`\\nu_k = w^*_k\\cdot x/\\sqrt N`.
* Outputs :math:`\\hat y = \\frac1p\\sum_{i=1}^p\\lambda_i^2` and
  :math:`y = \\frac1{p^*}\\sum_{k=1}^{p^*}\\nu_k^2 + \\sqrt\\Delta\\,\\xi`
  (optional label noise of variance Δ, ``noise``).
* Loss :math:`\\ell = \\frac12(\\hat y - y)^2`; update
  :math:`w_i \\leftarrow w_i - \\gamma\\nabla_{w_i}\\ell` (γ = ``lr``).
* Time: one clock, :math:`t' = (\\gamma/p)\\,\\text{steps}/N` (the paper's
  :math:`\\alpha` is steps/N). Every function that runs the dynamics takes its
  horizon as ``t_max`` in :math:`t'` (:mod:`.clock`). In :math:`t'` gradient
  flow depends on neither γ nor p, and the γ² term carries the factor γ/p.
  Gradient flow is ``lr=None``.
* Order parameters :math:`Q = WW^T/N`, :math:`R = WW^{*T}/N`,
  :math:`T = W^*W^{*T}/N` (= I for the orthonormal teachers built here);
  :math:`\\tau = \\mathrm{Tr}Q/p - \\mathrm{Tr}T/p^*`; "risk" is the population
  risk :math:`\\epsilon_g = \\frac12E[(\\hat y - y)^2]`, with the floor Δ/2.

This convention gives the seeds' plateau value :math:`\\bar Q = p/(p+2)`.

What is the paper's and what is ours
------------------------------------
* **The paper's claims** (abstract, [V]): overparameterisation (p > p*) only
  modestly accelerates the escape from the plateau, through the prefactor of
  an exponential; the unconstrained norms give a continuous rotational
  symmetry and a manifold of zero-loss solutions for p > 1; the dynamics
  selects the solution closest to the initialisation, enforced by a conserved
  quantity; the plateau is a saddle and the solution manifold consists of
  marginal minima of the population loss.
* **Our re-derivation** ([D], in this convention, checked numerically):
  the ODEs and the γ² term Φ (:mod:`.odes`, :mod:`.moments`), the exact
  2p*+1 reduction (:mod:`.reduced`), the conserved frame
  :math:`S = R(R^TR)^{-1/2}` (:mod:`.symmetry`), the Hessian table
  (:mod:`.hessian`), the escape law :math:`t'_{esc}\\simeq\\frac{p^*}8\\ln N + c(p,p^*)`
  in :math:`t'`, the late-time laws :math:`e^{-8t'/p^*}` for p = p* and
  :math:`\\frac{(p-p^*)(p^*+2)}{64(p+2)}t'^{-2}` for p > p* (:mod:`.phases`,
  :mod:`.convergence`).
  The :math:`t'^{-2}` tail may look at odds with the abstract's "exponential";
  we read "exponential" as the escape stage [I].
* **Factor 2**: the seeds quote "τ ∝ p*/16". In this convention the escape
  time constant of the loss is p*/8 in :math:`t'`; a loss without the ½ (or
  an update :math:`2\\gamma\\nabla`) doubles every rate, giving p*/16. That is
  the likely origin of the seeds' number [I]; the paper's own normalisation
  is unknown.

Modules
-------
* :mod:`.clock`: the one clock :math:`t'` and the SGD step count
* :mod:`.order_parameters`: the overlaps Q, R, T and the closed-form risk
* :mod:`.moments`: Gaussian moments (exact Wick pairings, Φ)
* :mod:`.initialisation`: teachers, students and ODE initial conditions
* :mod:`.odes`: full matrix ODEs (``integrate_odes``)
* :mod:`.reduced`: exact 2p*+1 reduction for isotropic starts
* :mod:`.sgd`: blocked one-pass SGD simulator
* :mod:`.overlap_chain`: one-pass SGD run on the overlaps alone, exact in law
* :mod:`.phases`: norm learning, plateau and escape
* :mod:`.plateau_noise`: the noise SGD adds to the overlap before the escape
* :mod:`.convergence`: late-time laws and fits
* :mod:`.symmetry`: conserved frame, closest zero-loss solution
* :mod:`.hessian`: analytic Hessian, spectra at the reference points
* :mod:`.trajectory`: what the ODE integrators and the SGD simulator return

The experiments built on these (escape times over many draws, one SGD run against the ODEs from
its own start, the frame's drift) are in :mod:`ibcore.experiments.quadratic`.
"""
# Each module lists its public names in its own __all__; the package re-exports
# exactly those, so there is one list per name to keep up to date. Names with a
# leading underscore are ibcore's own.
from . import (clock, convergence, hessian, initialisation, moments, odes, order_parameters, overlap_chain, phases,
               plateau_noise, reduced, sgd, symmetry, trajectory)
from .clock import *  # noqa: F401,F403
from .convergence import *  # noqa: F401,F403
from .hessian import *  # noqa: F401,F403
from .initialisation import *  # noqa: F401,F403
from .moments import *  # noqa: F401,F403
from .odes import *  # noqa: F401,F403
from .order_parameters import *  # noqa: F401,F403
from .overlap_chain import *  # noqa: F401,F403
from .phases import *  # noqa: F401,F403
from .plateau_noise import *  # noqa: F401,F403
from .reduced import *  # noqa: F401,F403
from .sgd import *  # noqa: F401,F403
from .symmetry import *  # noqa: F401,F403
from .trajectory import *  # noqa: F401,F403

__all__ = [
    *clock.__all__,           # sgd_steps: the one clock t'
    *order_parameters.__all__,  # overlaps, population_risk, monte_carlo_risk
    *moments.__all__,         # gaussian_moment (Wick pairings), phi_matrix
    *initialisation.__all__,  # random_frame, random_init, initial_overlaps
    *trajectory.__all__,      # Trajectory: what the ODEs and SGD return
    *odes.__all__,            # ode_rhs, integrate_odes
    *reduced.__all__,         # integrate_reduced, reduced_escape_time
    *sgd.__all__,             # sgd_one_pass
    *overlap_chain.__all__,   # sgd_overlaps
    *phases.__all__,          # plateau, norm learning, escape
    *plateau_noise.__all__,   # plateau_noise_variance: SGD's noise before the escape
    *convergence.__all__,     # late-time laws and fits
    *symmetry.__all__,        # conserved frame, closest zero-loss solution
    *hessian.__all__,         # Hessian and its spectra
]
