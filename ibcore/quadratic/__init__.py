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
* Time :math:`\\alpha = \\text{steps}/N`. The ODEs are simplest in
  :math:`t' = (\\gamma/p)\\,\\alpha`: there gradient flow depends on neither γ
  nor p, and the γ² term carries the factor γ/p.
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
  the ODEs and the γ² term Φ (:mod:`.odes`, :mod:`.overlaps`), the exact
  2p*+1 reduction (:mod:`.reduced`), the conserved frame
  :math:`S = R(R^TR)^{-1/2}` (:mod:`.symmetry`), the Hessian table
  (:mod:`.hessian`), the escape law :math:`t'_{esc}\\simeq\\frac{p^*}8\\ln N + c(p,p^*)`
  in :math:`t'`, the late-time laws :math:`e^{-8t'/p^*}` for p = p* and
  :math:`\\frac{(p-p^*)(p^*+2)}{64(p+2)}t'^{-2}` for p > p* (:mod:`.phases`).
  The :math:`t'^{-2}` tail may look at odds with the abstract's "exponential";
  we read "exponential" as the escape stage [I].
* **Factor 2**: the seeds quote "τ ∝ p*/16". In this convention the escape
  time constant of the loss is p*/8 in :math:`t'`; a loss without the ½ (or
  an update :math:`2\\gamma\\nabla`) doubles every rate, giving p*/16. That is
  the likely origin of the seeds' number [I]; the paper's own normalisation
  is unknown.

Modules
-------
:mod:`.overlaps`   overlaps, closed-form risk, Gaussian moments, Φ
:mod:`.odes`       full matrix ODEs (``integrate_odes``)
:mod:`.reduced`    exact 2p*+1 reduction for isotropic starts
:mod:`.sgd`        blocked one-pass SGD simulator and its step-by-step reference
:mod:`.init`       teachers, students and ODE initial conditions
:mod:`.phases`     plateau, escape time, late-time laws and fits
:mod:`.symmetry`   conserved frame, closest zero-loss solution
:mod:`.experiments` trials over seeds: escape times, SGD against the ODEs, frame drift
:mod:`.hessian`    analytic Hessian, spectra at the reference points
"""
from .experiments import (SGDODEComparison, escape_times, ode_escape_trial, sgd_escape_times,
                          sgd_escape_trial, sgd_frame_drifts, sgd_frame_trial, sgd_ode_comparison,
                          sgd_ode_gap_trial, sgd_ode_gaps)
from .hessian import (critical_point, group_spectrum, hessian_spectrum_table, population_gradient,
                      population_hessian, teacher_directions, zero_mode_directions)
from .init import initial_overlaps, orthonormal_teacher, random_frame, random_init
from .odes import alpha_grid, integrate_odes, ode_rhs
from .overlaps import (error_first_moments, monte_carlo_risk, overlaps, phi_matrix, population_risk,
                       validated_weights)
from .phases import (DecayFit, escape_time, escape_time_law, fit_decay, late_time_law,
                     linear_escape_overlap, norm_learning_overlap, plateau_overlap, plateau_risk)
from .reduced import ReducedTrajectory, integrate_reduced, reduce_overlaps, reduced_escape_time
from .sgd import SGDTrajectory, default_block, sgd_one_pass, sgd_one_pass_reference
from .symmetry import closest_zero_loss_solution, closest_zero_loss_weights, conserved_frame, frame_drift
from .trajectory import Trajectory

__all__ = [
    # overlaps and risk
    "overlaps", "population_risk", "error_first_moments", "phi_matrix", "monte_carlo_risk",
    "validated_weights",
    # ODEs
    "alpha_grid", "ode_rhs", "integrate_odes", "Trajectory",
    "reduce_overlaps", "integrate_reduced", "reduced_escape_time", "ReducedTrajectory",
    # SGD
    "sgd_one_pass", "sgd_one_pass_reference", "SGDTrajectory", "default_block",
    # initial conditions
    "orthonormal_teacher", "random_frame", "random_init", "initial_overlaps",
    # phases
    "plateau_overlap", "plateau_risk", "norm_learning_overlap", "linear_escape_overlap",
    "escape_time", "escape_time_law", "late_time_law", "DecayFit", "fit_decay",
    # symmetry
    "conserved_frame", "frame_drift", "closest_zero_loss_solution", "closest_zero_loss_weights",
    # experiments (trials for ibcore.sweep, and their multi-seed wrappers)
    "ode_escape_trial", "escape_times", "sgd_escape_trial", "sgd_escape_times",
    "SGDODEComparison", "sgd_ode_comparison", "sgd_ode_gap_trial", "sgd_ode_gaps",
    "sgd_frame_trial", "sgd_frame_drifts",
    # Hessian
    "population_gradient", "population_hessian", "group_spectrum", "critical_point",
    "hessian_spectrum_table", "teacher_directions", "zero_mode_directions",
]
