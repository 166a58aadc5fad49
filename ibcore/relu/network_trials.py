r"""Trials of networks that must fit every label: two neurons, a disjoint start, bad starts.

Everything here is *our reconstruction*: the paper's two-neuron and general-m
models, its "disjoint initialization" and its Appendix F experiments were not
available (see the statement boxes of chapters 4-6).  The model is the one of
:mod:`ibcore.relu.model`, f(x) = Σ_j s_j σ(w_j·x) with fixed signs s_j.  The
theory these trials are compared with lives elsewhere: the orthogonal-data
closed forms in :mod:`~ibcore.relu.orthogonal`, the targets in
:mod:`~ibcore.relu.min_norm`, the initial weights in
:mod:`~ibcore.relu.initialisation`.

* :func:`~ibcore.relu.two_neuron_trial`: f = σ(w₊·x) - σ(w₋·x) from w₊(0) = w₋(0) = b0 Xᵀ1/d,
  compared with the decoupled target (w*(y), w*(-y)).
* :func:`~ibcore.relu.disjoint_trial`: m neurons from a sign-aligned disjoint start;
  while the pattern does not change every neuron runs linear regression on
  its own subset.
* :func:`~ibcore.relu.bad_init_trial`: random, partly inactive and tiny starts, after
  which GD stops at non-global points.

Each trial follows the protocol of :mod:`ibcore.relu.trials` (labels first,
then the data) and reports ``success``: the run converged and fitted every
example some neuron can fit, to ``_fit_threshold``.
"""
from __future__ import annotations

import numpy as np

from ..validation import nonnegative_float, positive_float, positive_int
from .features import sample_features, sample_labels, _validated_sizes
from .gd import gradient_descent, gradient_descent_gram
from .gram import sample_gram
from ._iteration import without_inactive_warning
from .initialisation import _BAD_INITS, bad_init_weights, disjoint_coef, sign_aligned_assignment, two_neuron_coef
from .metrics import (_can_fit, _fit_statistics, _fit_threshold, norm_gram, relative_gap, relative_gap_gram,
                      _run_statistics)
from .min_norm import (disjoint_closest_targets_gram, disjoint_linear_limit_gram, disjoint_targets_gram,
                       min_norm_pair, min_norm_pair_gram, min_norm_solution)
from .model import default_signs
from .orthogonal import two_neuron_orthogonal_gap
from .stability import lr_from_contraction

__all__ = ["two_neuron_trial", "disjoint_trial", "bad_init_trial"]


def _checked(n, d, c, tol, max_steps):
    n, d = _validated_sizes(n, d)
    return n, d, positive_float("c", c), nonnegative_float("tol", tol), positive_int("max_steps", max_steps)


def _success(res, fit) -> bool:
    return bool(res.success and fit["unfit"] == 0)


def two_neuron_trial(*, n, d, b0=0.03, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    """One run of the two-neuron model f = σ(w₊·x) - σ(w₋·x) (chapter 4).

    Isotropic Gaussian data drawn as K = X Xᵀ (cost independent of d), labels
    y ~ U[-1, 1], w₊(0) = w₋(0) = b0 Xᵀ1/d
    (:func:`~ibcore.relu.two_neuron_coef`), lr = c n/mean‖x‖²,
    GD to convergence, compared with (w*(y), w*(-y)).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (d ≥ n).
    b0 : float
        The initial pre-activation of both neurons.
    c : float
        Per-example contraction, lr = c n / mean‖x_i‖².
    tol, max_steps : float, int
        Stopping tolerance and step budget of the GD run.
    rng : None, int or numpy.random.Generator
        Draws y, then K.

    Returns
    -------
    dict of scalars
        ``gap`` (relative, to (w*(y), w*(-y))), ``gap_scaled`` = gap/√(n/d),
        ``orthogonal_gap`` (:func:`~ibcore.relu.two_neuron_orthogonal_gap`
        for these labels: the part set by b0 alone), ``decoupled`` (fraction
        of examples whose wrong neuron, w₋ for y_i > 0 and w₊ for y_i < 0,
        ends inactive), ``predicted_decoupled`` (fraction with ∣y_i∣ > 2 b0),
        ``wrong_share`` = Σ_i σ(β_wrong,i) / Σ_i ∣y_i∣ (the output carried by
        wrong neurons), ``success`` and the fit and run statistics.
    """
    n, d, c, tol, max_steps = _checked(n, d, c, tol, max_steps)
    b0 = positive_float("b0", b0)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng)
    res = without_inactive_warning(gradient_descent_gram, K, y, two_neuron_coef(K, b0=b0, trace=d),
                 lr=lr_from_contraction(c, K=K), tol=tol, max_steps=max_steps, record_every=None)
    gap = relative_gap_gram(K, res.coef, min_norm_pair_gram(K, y))
    wrong = np.where(y > 0, res.beta[1], res.beta[0])
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / d),
        "orthogonal_gap": two_neuron_orthogonal_gap(y, b0),
        "decoupled": float(np.mean(wrong <= 0)),
        "predicted_decoupled": float(np.mean(np.abs(y) > 2 * b0)),
        "wrong_share": float(np.sum(np.maximum(wrong, 0.0)) / np.sum(np.abs(y))),
        "success": _success(res, fit),
        **fit,
        **_run_statistics(res),
    }


def disjoint_trial(*, n, d, m, b0=0.3, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    """One run of m neurons from a sign-aligned disjoint initialisation (chapter 5).

    Isotropic data (K drawn directly), y ~ U[-1, 1], signs (+1, -1, +1, ...),
    every example given to one neuron of its sign
    (:func:`~ibcore.relu.sign_aligned_assignment`), and
    w_j(0) with pre-activations +b0 on its own subset S_j and -b0 elsewhere
    (:func:`~ibcore.relu.disjoint_coef`).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (d ≥ n).
    m : int
        Number of neurons (≥ 2, so that both label signs have a neuron).
    b0 : float
        ∣β(0)∣.
    c, tol, max_steps, rng
        As in :func:`~ibcore.relu.two_neuron_trial`.

    Returns
    -------
    dict of scalars
        ``gap``: relative distance ‖W - W*‖_F/‖W*‖_F to the per-neuron
        min-norm targets (:func:`~ibcore.relu.disjoint_targets_gram`);
        ``closest_gap``: relative distance to the pattern's network closest
        to W(0) (:func:`~ibcore.relu.disjoint_closest_targets_gram`,
        ≈ 1e-10 when the pattern is kept: GD's implicit bias); ``init_term`` =
        ‖frozen‖/‖W*‖ and ``relu_term`` = ‖W - frozen - W*‖/‖W*‖, the parts of
        the gap due to the never-moving part of the initialisation and to the
        rest (:func:`~ibcore.relu.disjoint_linear_limit_gram`);
        ``gap_scaled`` and ``relu_scaled`` (divided by √(n/d));
        ``linear_limit_error`` = ‖W - W_lin‖/‖W_lin‖ (≈ 1e-10 when the pattern
        never changed); ``pattern_kept`` (no neuron–example pair ever
        switched); ``foreign_active`` (pairs active at the end outside the
        assignment); ``symmetric_norm_ratio`` = ‖W*‖²/‖W_sym‖², with W_sym the
        network that splits w*(±y) equally among the neurons of each sign;
        ``success`` and the fit and run statistics.
    """
    n, d, c, tol, max_steps = _checked(n, d, c, tol, max_steps)
    m = positive_int("m", m)
    if m < 2:
        raise ValueError(f"m must be at least 2 (one neuron per label sign), got {m}")
    b0 = positive_float("b0", b0)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng)
    signs = default_signs(m)
    assignment = sign_aligned_assignment(y, signs)
    alpha0 = disjoint_coef(K, assignment, m=m, b0=b0)
    res = without_inactive_warning(gradient_descent_gram, K, y, alpha0, lr=lr_from_contraction(c, K=K), tol=tol,
                 max_steps=max_steps, record_every=None)
    target = disjoint_targets_gram(K, y, assignment, signs)
    closest = disjoint_closest_targets_gram(K, y, assignment, signs, alpha0)
    limit, frozen = disjoint_linear_limit_gram(K, y, assignment, signs, alpha0)
    norm_target = norm_gram(K, target)
    own = assignment[None, :] == np.arange(m)[:, None]
    pair = min_norm_pair_gram(K, y)
    symmetric_sq = norm_gram(K, pair[0]) ** 2 / np.sum(signs > 0) + norm_gram(K, pair[1]) ** 2 / np.sum(signs < 0)
    gap = norm_gram(K, res.coef - target) / norm_target
    relu_term = norm_gram(K, res.coef - frozen - target) / norm_target
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "closest_gap": norm_gram(K, res.coef - closest) / norm_gram(K, closest),
        "init_term": norm_gram(K, frozen) / norm_target,
        "relu_term": relu_term,
        "gap_scaled": gap / np.sqrt(n / d),
        "relu_scaled": relu_term / np.sqrt(n / d),
        "linear_limit_error": norm_gram(K, res.coef - limit) / norm_gram(K, limit),
        "pattern_kept": bool(np.all(res.last_change == 0)),
        "foreign_active": int(np.sum((res.beta > 0) & ~own)),
        "symmetric_norm_ratio": norm_target ** 2 / symmetric_sq,
        "success": _success(res, fit),
        **fit,
        **_run_statistics(res),
    }


def bad_init_trial(*, n, d, init="gaussian", b0=1.0, m=1, inactive=2, c=0.01, tol=1e-12, max_steps=200_000,
                   rng=None) -> dict:
    """One run from a (possibly) bad initialisation (chapter 6; analogue of the paper's Appendix F).

    Isotropic features X (drawn explicitly: a random w0 has a part outside
    span(X), which GD keeps), y ~ U[-1, 1], one neuron (m = 1) or the
    two-neuron model (m = 2), lr = c n/mean‖x‖², GD to convergence.

    Parameters
    ----------
    n, d : int
    init, b0, m, inactive
        The initialisation, as in
        :func:`~ibcore.relu.bad_init_weights`; m = 2 is the
        model f = σ(w₊·x) - σ(w₋·x).
    c, tol, max_steps, rng
        As in :func:`~ibcore.relu.two_neuron_trial`; ``rng`` draws y, then X, then w0.

    Returns
    -------
    dict of scalars
        ``loss_excess`` = L(w_T) - L_min (L_min = (1/2n)Σ_{y_i<0} y_i² for one
        neuron, 0 for two), ``inactive_at_init`` (examples that must be fitted
        and are inactive at t = 0 on every neuron of their sign),
        ``never_active`` (such examples whose dual coefficients on the neurons
        of their sign are still exactly 0: they never moved), ``stuck_loss`` =
        (1/2n) Σ y_i² over the never-active ones (a lower bound on
        ``loss_excess``), ``gap`` (relative, to w* or (w*(y), w*(-y))),
        ``success`` and the fit and run statistics.
    """
    n, d, c, tol, max_steps = _checked(n, d, c, tol, max_steps)
    if init not in _BAD_INITS:  # fail before drawing the data (bad_init_weights checks the rest)
        raise ValueError(f"init must be one of {_BAD_INITS}, got {init!r}")
    b0 = positive_float("b0", b0)
    if positive_int("m", m) not in (1, 2):
        raise ValueError(f"m must be 1 or 2, got {m!r}")
    inactive = positive_int("inactive", inactive)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    X = sample_features(n, d, rng=rng)
    w0 = bad_init_weights(init, X, y, b0=b0, m=m, inactive=inactive, rng=rng)
    res = without_inactive_warning(gradient_descent, X, y, w0, lr=lr_from_contraction(c, X), tol=tol, max_steps=max_steps,
                 record_every=None)
    fits = _can_fit(y, res.signs)
    needy = fits.any(axis=0)
    beta0 = np.atleast_2d(w0) @ X.T
    never = needy & ~(fits & (np.atleast_2d(res.alpha) != 0)).any(axis=0)
    if m == 1:
        star = min_norm_solution(X, y)
        target, loss_min = star.w, star.loss
    else:
        target, loss_min = min_norm_pair(X, y), 0.0
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "loss_excess": res.loss - loss_min,
        "inactive_at_init": int(np.sum(needy & ~(fits & (beta0 > 0)).any(axis=0))),
        "never_active": int(np.sum(never)),
        "stuck_loss": float(np.sum(y[never] ** 2) / (2 * n)),
        "gap": relative_gap(res.w, target),
        "success": _success(res, fit),
        **fit,
        **_run_statistics(res),
    }
