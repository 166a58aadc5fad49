r"""Trials of one neuron: the gap to w* (:func:`~ibcore.relu.gap_trial`) and the activation pattern (:func:`~ibcore.relu.pattern_trial`).

A *trial* follows the book's protocol (CONTRIBUTING, "ibcore's design"):
keyword-only parameters, ``rng=None``, arguments validated before anything is
drawn, and a flat dict of numbers as the result, ready for
:func:`ibcore.sweep.sweep`.  A trial only composes public ibcore functions, in
an order a chapter can repeat by hand: labels first
(:func:`~ibcore.relu.sample_labels`), then the data, then GD and the
min-norm solution.

Setup (our reconstruction of the paper's experiment, chapters 1-3):
x_i = Σ^{1/2} z_i with spectrum λ, labels y_i ~ U[-1, 1], one neuron,
w0 = b0·Xᵀ1/‖λ‖₁ (pre-activations ≈ b0), lr = c n / mean‖x_i‖², GD to
convergence, then the relative gap ‖w_GD - w*‖/‖w*‖.  Every quantity is a
function of K = X Xᵀ, so for large d the trials draw K directly
(:func:`~ibcore.relu.sample_gram`), at a cost independent of d for
isotropic and spiked spectra.  The trials silence
:class:`~ibcore.relu.InactivePositiveWarning` and count the examples
concerned instead.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import nonnegative_float, positive_float, positive_int
from .features import Spectrum, sample_features, sample_labels, _validated_sizes
from .gd import gradient_descent, gradient_descent_gram
from .gram import sample_gram
from .initialisation import all_active_coef, all_active_init
from ._iteration import without_inactive_warning
from .metrics import (_fit_statistics, _fit_threshold, relative_gap, relative_gap_gram, relu_teacher_risk,
                      _run_statistics, _slack_statistics)
from .min_norm import min_norm_solution, min_norm_solution_gram, positive_subset_least_squares_gram
from .orthogonal import orthogonal_stabilisation_step
from .perturbation import first_order_gap
from .stability import default_contraction, lr_from_contraction

__all__ = ["gap_trial", "pattern_trial", "structure_trial", "test_error_trial"]

_METHODS = ("auto", "gram", "features")
_DATA = ("gaussian", "orthogonal")

# With "auto", sample K directly once X would hold more than this many entries.
_AUTO_GRAM_ENTRIES = 2_000_000


def _default_max_steps(c, tol) -> int:
    """A step budget that a converging run never reaches: max(10⁵, ⌈10 log(1/tol)/c⌉).

    The iterates contract by about (1 - c) per step, so reaching ``tol``
    takes about log(1/tol)/c steps; ten times that leaves room for the slow
    modes of K.
    """
    c = positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    if tol == 0:
        return 100_000
    return max(100_000, math.ceil(10 * math.log(1 / tol) / c))


def gap_trial(*, n, d, b0=1.0, c=None, spectrum="isotropic", spectrum_param=None, method="auto",
              tol=1e-12, max_steps=None, rng=None) -> dict:
    r"""One run of the gap experiment: one neuron from w0 = b0·Xᵀ1/‖λ‖₁, compared with w*.

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension.
    b0 : float
        Initial pre-activation scale: β_i(0) ≈ b0 for every i.
    c : float, optional
        Per-example contraction, lr = c n / mean‖x_i‖².  Default
        :func:`~ibcore.relu.default_contraction`,
        min(0.01, 0.2·√(n/R₀)) with R₀ = ‖λ‖₁²/‖λ‖₂², so that the O(c)
        step-size floor c/√3 never dominates the gap.
    spectrum : {"isotropic", "spiked", "power_law"}
        Covariance profile (a name, so that it can be a sweep column).
    spectrum_param : float, optional
        Its parameter (see :meth:`~ibcore.relu.Spectrum.named`).
    method : {"auto", "gram", "features"}
        ``"gram"`` draws K with ``sample_gram`` and runs
        ``gradient_descent_gram``; ``"features"`` draws X and runs the
        X-based code; ``"auto"`` uses ``"gram"`` when n·d > 2·10⁶.
    tol : float
        Stopping tolerance of GD.
    max_steps : int, optional
        Step budget, default ``_default_max_steps`` (c, tol).
    rng : None, int or numpy.random.Generator
        Draws the labels (:func:`~ibcore.relu.sample_labels`), then
        the data.

    Returns
    -------
    dict of scalars
        ``gap`` = ‖w_GD - w*‖/‖w*‖; ``gap_scaled`` = gap/√(n/r₀), the
        abstract's √(n/‖λ‖₁) under the normalisation ‖λ‖∞ = 1 (r₀ =
        ‖λ‖₁/‖λ‖∞, :attr:`~ibcore.relu.Spectrum.r0`; = gap/√(n/d) for
        isotropic data); ``gap_scaled_R0`` = gap/√(n/R₀) = gap/(√n ‖λ‖₂/‖λ‖₁),
        the cross-talk scale; ``first_order_gap``
        (:func:`~ibcore.relu.first_order_gap` for this draw); ``c_used``,
        ``loss_excess`` = L(w_T) - L_min (> 0 when GD stalled),
        ``inactive_at_init`` (positive-label examples with β_i(0) ≤ 0),
        ``success`` (converged with every positive label fitted to
        ``_fit_threshold``), and those of
        ``_fit_statistics`` and
        ``_run_statistics``.
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    b0 = positive_float("b0", b0)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if not isinstance(spectrum, str):
        raise ValueError(f"spectrum must be a profile name here (a sweep column), got {spectrum!r}")
    spec = Spectrum.named(spectrum, d, spectrum_param)
    c = default_contraction(n, d, spectrum=spec) if c is None else positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    max_steps = _default_max_steps(c, tol) if max_steps is None else positive_int("max_steps", max_steps)
    rng = np.random.default_rng(rng)
    if method == "auto":
        method = "gram" if n * d > _AUTO_GRAM_ENTRIES else "features"

    y = sample_labels(n, rng=rng)
    run = dict(tol=tol, max_steps=max_steps, record_every=None)
    if method == "gram":
        K = sample_gram(n, d, spectrum=spec, rng=rng)
        alpha0 = all_active_coef(K, b0=b0, trace=spec.trace)
        res = without_inactive_warning(gradient_descent_gram, K, y, alpha0, lr=lr_from_contraction(c, K=K), **run)
        star = min_norm_solution_gram(K, y)
        gap = relative_gap_gram(K, res.coef, star.nu)
        beta0 = K @ alpha0
    else:
        X = sample_features(n, d, spectrum=spec, rng=rng)
        K = X @ X.T
        w0 = all_active_init(X, b0=b0, trace=spec.trace)
        res = without_inactive_warning(gradient_descent, X, y, w0, lr=lr_from_contraction(c, X), **run)
        star = min_norm_solution(X, y)
        gap = relative_gap(res.w, star.w)
        beta0 = X @ w0
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / spec.r0),
        "gap_scaled_R0": gap / np.sqrt(n / spec.R0),
        "first_order_gap": first_order_gap(K, y, b0),
        "c_used": c,
        "loss_excess": res.loss - star.loss,
        "inactive_at_init": int(np.sum((y > 0) & (beta0 <= 0))),
        "success": bool(res.success and fit["unfit"] == 0),
        **fit,
        **_run_statistics(res),
    }


def pattern_trial(*, n, d, data="gaussian", b0=1.0, c=0.01, tol=1e-12, max_steps=100_000, rng=None) -> dict:
    """One neuron from the all-active start: the structure of w* and how GD's activation pattern settles.

    The chapters on the setting and on one neuron measure, on one draw of
    the data: how many negative-label constraints of the min-norm solution
    w* are strictly inactive, how far the GD limit is from w* and from the
    positive-subset least-squares solution w_PLS, and when the activation
    pattern stops changing.

    Setup (our reconstruction): labels y_i ~ U[-1, 1] (drawn first), then
    K; w0 = b0·Xᵀ1/d, lr = c n / mean‖x‖², GD from the Gram matrix alone.
    ``data="gaussian"`` draws K = X Xᵀ for isotropic Gaussian features
    (:func:`~ibcore.relu.sample_gram`); ``data="orthogonal"`` uses
    K = d·I_n exactly, the Gram matrix of
    :func:`~ibcore.relu.orthogonal_features` (the Boursier et al.
    control).

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension (d ≥ n).
    data : {"gaussian", "orthogonal"}
    b0 : float
        Initial pre-activation.
    c : float
        Per-example contraction (lr = c n / mean‖x‖²).
    tol, max_steps : float, int
        Passed to :func:`~ibcore.relu.gradient_descent_gram`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of scalars
        ``gap`` = ‖w_GD - w*‖/‖w*‖, ``gap_scaled`` = gap/√(n/d),
        ``gap_over_c`` = gap/c, ``gap_to_pls`` = ‖w_GD - w_PLS‖/‖w_PLS‖,
        ``pls_to_star`` = ‖w_PLS - w*‖/‖w*‖, those of
        ``_slack_statistics`` (``strictly_inactive``,
        ``pls_violations``, ``pls_predicts_slack``), ``negatives_exactly_zero``
        (every y_i < 0 ends with σ(x_i·w_T) == 0.0 exactly),
        ``positives_always_active`` (no y_i > 0 was ever inactive),
        ``loss_excess`` (L(w_T) - L_min), ``orthogonal_stabilisation_step``
        (:func:`~ibcore.relu.orthogonal_stabilisation_step` for
        these labels), ``success`` (converged, every positive label fitted),
        and those of ``_fit_statistics`` and
        ``_run_statistics``.
    """
    n, d = _validated_sizes(n, d)
    if data not in _DATA:
        raise ValueError(f"data must be one of {_DATA}, got {data!r}")
    b0 = positive_float("b0", b0)
    c = positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    max_steps = positive_int("max_steps", max_steps)
    rng = np.random.default_rng(rng)

    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng) if data == "gaussian" else float(d) * np.eye(n)
    alpha0 = all_active_coef(K, b0=b0, trace=d)  # w0 = b0 · Xᵀ1/d
    res = without_inactive_warning(gradient_descent_gram, K, y, alpha0, lr=lr_from_contraction(c, K=K), tol=tol,
                 max_steps=max_steps, record_every=None)
    star = min_norm_solution_gram(K, y)
    pls = positive_subset_least_squares_gram(K, y)
    pos, neg = y > 0, y < 0
    gap = relative_gap_gram(K, res.coef, star.nu)
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "gap_scaled": gap / float(np.sqrt(n / d)),
        "gap_over_c": gap / c,
        "gap_to_pls": relative_gap_gram(K, res.coef, pls.nu),
        "pls_to_star": relative_gap_gram(K, pls.nu, star.nu),
        **_slack_statistics(y, star, pls),
        "negatives_exactly_zero": bool(np.all(np.maximum(res.beta[neg], 0.0) == 0.0)),
        "positives_always_active": bool(np.all(res.beta[pos] > 0) and np.all(res.last_change[pos] == 0)
                                        and np.all(K[pos] @ alpha0 > 0)),
        "loss_excess": res.loss - star.loss,
        "orthogonal_stabilisation_step": orthogonal_stabilisation_step(y, c, b0=b0),
        "success": bool(res.success and fit["unfit"] == 0),
        **fit,
        **_run_statistics(res),
    }


def structure_trial(*, n, d, rng=None) -> dict:
    """The structure of the min-norm solution w* on one draw, without running GD (cheap: O(n³)).

    Labels y ~ U[-1, 1] first, then K for isotropic Gaussian features, then
    w* and the positive-subset fit w_PLS from their exact dual solves.

    Returns
    -------
    dict
        Those of ``_slack_statistics``
        (``strictly_inactive``, ``pls_violations``, ``pls_predicts_slack``) and
        ``pls_to_star`` = ‖w_PLS - w*‖/‖w*‖.
    """
    n, d = _validated_sizes(n, d)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng)
    star = min_norm_solution_gram(K, y)
    pls = positive_subset_least_squares_gram(K, y)
    return {**_slack_statistics(y, star, pls), "pls_to_star": relative_gap_gram(K, pls.nu, star.nu)}


def test_error_trial(*, n, d, b0=1.0, c=None, noise=0.0, tol=1e-12, max_steps=None, rng=None) -> dict:
    r"""Test error of the GD neuron and of w* when the labels come from a teacher.

    Data model (ours, for this experiment only): isotropic Gaussian x, a
    teacher direction θ uniform on the sphere with ‖θ‖² = 1/3 (so that
    y = θ·x has the variance of U[-1, 1]), labels y_i = θ·x_i + √Δ ξ_i.
    One neuron runs GD from w0 = b0·Xᵀ1/d; w* is the min-norm global
    minimiser.  Each is scored against the best ReLU response to the
    teacher, R(w) = E_x (σ(w·x) - σ(θ·x))², in closed form
    (:func:`~ibcore.relu.relu_teacher_risk`).  Since √R is
    1-Lipschitz in w, ∣√R(w_GD) - √R(w*)∣ ≤ ‖w_GD - w*‖ = gap·‖w*‖.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (d ≥ n).
    b0, c, tol, max_steps
        As in :func:`~ibcore.relu.gap_trial` (isotropic data).
    noise : float
        Variance Δ ≥ 0 of the label noise, as everywhere in ibcore (Part II's
        convention: y = f(x) + √Δ ξ with ξ ~ N(0, 1)).
    rng : None, int or numpy.random.Generator
        Draws θ, then X, then the noise.

    Returns
    -------
    dict of scalars
        ``gap`` (relative), ``distance`` = ‖w_GD - w*‖, ``risk_gd``,
        ``risk_star``, ``risk_null`` = R(0) = ‖θ‖²/2 (predicting 0),
        ``root_risk_difference`` = ∣√R(w_GD) - √R(w*)∣ (at most ``distance``),
        ``success`` and the run statistics.
    """
    n, d = _validated_sizes(n, d)
    b0 = positive_float("b0", b0)
    c = default_contraction(n, d) if c is None else positive_float("c", c)
    noise = nonnegative_float("noise", noise)
    tol = nonnegative_float("tol", tol)
    max_steps = _default_max_steps(c, tol) if max_steps is None else positive_int("max_steps", max_steps)
    rng = np.random.default_rng(rng)
    theta = rng.standard_normal(d)
    theta *= np.sqrt(1 / 3) / np.linalg.norm(theta)
    X = sample_features(n, d, rng=rng)
    y = X @ theta + np.sqrt(noise) * rng.standard_normal(n)
    res = without_inactive_warning(gradient_descent, X, y, all_active_init(X, b0=b0, trace=d),
                                   lr=lr_from_contraction(c, X), tol=tol, max_steps=max_steps, record_every=None)
    star = min_norm_solution(X, y)
    risk_gd, risk_star = relu_teacher_risk(res.w, theta), relu_teacher_risk(star.w, theta)
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": relative_gap(res.w, star.w),
        "distance": float(np.linalg.norm(res.w - star.w)),
        "risk_gd": risk_gd,
        "risk_star": risk_star,
        "risk_null": float(theta @ theta / 2),
        "root_risk_difference": abs(np.sqrt(risk_gd) - np.sqrt(risk_star)),
        "success": bool(res.success and fit["unfit"] == 0),
        **_run_statistics(res),
    }
