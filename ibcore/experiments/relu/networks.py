r"""Trials of networks that must fit every label: two neurons, a disjoint start, bad starts.

Everything here is *our reconstruction*: the paper's two-neuron and general-m
models, its "disjoint initialization" and its Appendix F experiments were not
available (see the statement boxes of chapters 5-7).  The model is the one of
:mod:`ibcore.relu.model`, :math:`f(x) = \sum_j s_j\,\sigma(w_j\cdot x)` with fixed signs :math:`s_j`.
The theory these trials are compared with lives elsewhere: the orthogonal-data
closed forms in :mod:`~ibcore.relu.orthogonal`, the targets in
:mod:`~ibcore.relu.min_norm`, the initial weights in
:mod:`~ibcore.relu.initialisation`.

* :func:`~ibcore.experiments.relu.two_neuron_trial`: :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)` from
  :math:`w_+(0) = w_-(0) = b_0X^\top\mathbb 1/d`, compared with the decoupled target
  :math:`(w^\star(y), w^\star(-y))`.
* :func:`~ibcore.experiments.relu.disjoint_trial`: m neurons from a sign-aligned disjoint start;
  while the pattern does not change every neuron runs linear regression on
  its own subset.
* :func:`~ibcore.experiments.relu.bad_init_trial`: random, partly inactive and tiny starts, after
  which GD stops at non-global points.

Each trial follows the protocol of :mod:`ibcore.experiments.relu.one_neuron` (labels first,
then the data) and reports ``success``: the run converged and fitted every
example some neuron can fit, to ``_fit_threshold``.
"""
from __future__ import annotations

import numpy as np

from ...relu.disjoint import disjoint_closest_targets_gram, disjoint_linear_limit_gram, disjoint_targets_gram
from ...relu.features import sample_features, sample_labels, _validated_sizes
from ...relu.gram import sample_gram
from ...relu.initialisation import (_BAD_INITS, bad_init_weights, disjoint_init_gram, sign_aligned_assignment,
                                    two_neuron_init_gram)
from ...relu.metrics import (_can_fit, _fit_statistics, _fit_threshold, norm_gram, relative_gap, relative_gap_gram,
                             _run_statistics)
from ...relu.min_norm import min_norm_pair, min_norm_pair_gram, min_norm_solution
from ...relu.model import default_signs
from ...relu.orthogonal import two_neuron_orthogonal_gap
from ...relu.stability import lr_from_contraction, lr_from_contraction_gram
from ...validation import nonnegative_float, positive_float, positive_int
from ._batch import batch_of, run_trial

__all__ = ["two_neuron_trial", "disjoint_trial", "bad_init_trial"]


def _checked(n, d, c, tol, max_steps):
    n, d = _validated_sizes(n, d)
    return n, d, positive_float("c", c), nonnegative_float("tol", tol), positive_int("max_steps", max_steps)


def _success(res, fit) -> bool:
    return bool(res.success and fit["unfit"] == 0)


def two_neuron_trial(*, n, d, b0=0.03, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    r"""One run of the two-neuron model :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)` (chapter 5).

    Isotropic Gaussian data drawn as :math:`K = XX^\top` (cost independent of d), labels
    :math:`y_i \sim U[-1, 1]`, :math:`w_+(0) = w_-(0) = b_0X^\top\mathbb 1/d`
    (:func:`~ibcore.relu.two_neuron_init_gram`), :math:`\eta = cn/\mathrm{mean}\lVert x\rVert^2`,
    GD to convergence, compared with :math:`(w^\star(y), w^\star(-y))`.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (:math:`d \ge n`).
    b0 : float
        The initial pre-activation :math:`b_0` of both neurons.
    c : float
        Per-example contraction, :math:`\eta = cn/\mathrm{mean}\lVert x_i\rVert^2`.
    tol, max_steps : float, int
        Stopping tolerance and step budget of the GD run.
    rng : None, int or numpy.random.Generator
        Draws y, then K.

    Returns
    -------
    dict of scalars
        ``gap`` (relative, to :math:`(w^\star(y), w^\star(-y))`), ``gap_scaled`` = gap :math:`/\sqrt{n/d}`,
        ``orthogonal_gap`` (:func:`~ibcore.relu.two_neuron_orthogonal_gap`
        for these labels: the part set by b0 alone), ``decoupled`` (fraction
        of examples whose wrong neuron, :math:`w_-` for :math:`y_i > 0` and :math:`w_+` for :math:`y_i < 0`,
        ends inactive), ``predicted_decoupled`` (fraction with :math:`\lvert y_i\rvert > 2b_0`),
        ``wrong_share`` :math:`= \sum_i \sigma(\beta_{{\rm wrong},i})/\sum_i\lvert y_i\rvert` (the output
        carried by wrong neurons), ``success`` and the fit and run statistics.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.two_neuron_trial(n=10, d=10**4, rng=0)
    >>> out["success"], sorted(out)[:3]
    (True, ['converged', 'decoupled', 'gap'])
    """
    return run_trial(_two_neuron_trial(n=n, d=d, b0=b0, c=c, tol=tol, max_steps=max_steps, rng=rng))


def _two_neuron_trial(*, n, d, b0, c, tol, max_steps, rng):
    """The body of :func:`two_neuron_trial` (see ``_batch``): it yields its GD call."""
    n, d, c, tol, max_steps = _checked(n, d, c, tol, max_steps)
    b0 = positive_float("b0", b0)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng)
    res = yield dict(K=K, y=y, alpha0=two_neuron_init_gram(K, b0=b0, trace=d), lr=lr_from_contraction_gram(c, K),
                     tol=tol, max_steps=max_steps, record_every=None)
    gap = relative_gap_gram(K, res.coef, min_norm_pair_gram(K, y))
    wrong = np.where(y > 0, res.beta[1], res.beta[0])
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / d),
        "orthogonal_gap": two_neuron_orthogonal_gap(y, b0=b0),
        "decoupled": float(np.mean(wrong <= 0)),
        "predicted_decoupled": float(np.mean(np.abs(y) > 2 * b0)),
        "wrong_share": float(np.sum(np.maximum(wrong, 0.0)) / np.sum(np.abs(y))),
        "success": _success(res, fit),
        **fit,
        **_run_statistics(res),
    }

two_neuron_trial.batch = batch_of(two_neuron_trial, _two_neuron_trial)


def disjoint_trial(*, n, d, m, b0=0.3, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    r"""One run of m neurons from a sign-aligned disjoint initialisation (chapter 6).

    Isotropic data (K drawn directly), :math:`y_i \sim U[-1, 1]`, signs (+1, -1, +1, ...),
    every example given to one neuron of its sign
    (:func:`~ibcore.relu.sign_aligned_assignment`), and
    :math:`w_j(0)` with pre-activations :math:`+b_0` on its own subset :math:`S_j` and :math:`-b_0`
    elsewhere (:func:`~ibcore.relu.disjoint_init_gram`).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (:math:`d \ge n`).
    m : int
        Number of neurons (:math:`m \ge 2`, so that both label signs have a neuron).
    b0 : float
        :math:`\lvert\beta(0)\rvert`.
    c, tol, max_steps, rng
        As in :func:`~ibcore.experiments.relu.two_neuron_trial`.

    Returns
    -------
    dict of scalars
        ``gap``: relative distance :math:`\lVert W - W^\star\rVert_F/\lVert W^\star\rVert_F` to the per-neuron
        min-norm targets (:func:`~ibcore.relu.disjoint_targets_gram`);
        ``closest_gap``: relative distance to the pattern's network closest
        to :math:`W(0)` (:func:`~ibcore.relu.disjoint_closest_targets_gram`,
        :math:`\approx 10^{-10}` when the pattern is kept: GD's implicit bias); ``init_term``
        :math:`= \lVert W_{\rm frozen}\rVert/\lVert W^\star\rVert` and ``relu_term``
        :math:`= \lVert W - W_{\rm frozen} - W^\star\rVert/\lVert W^\star\rVert`, the parts of
        the gap due to the never-moving part of the initialisation and to the
        rest (:func:`~ibcore.relu.disjoint_linear_limit_gram`);
        ``gap_scaled`` and ``relu_scaled`` (divided by :math:`\sqrt{n/d}`);
        ``linear_limit_error`` :math:`= \lVert W - W_{\rm lin}\rVert/\lVert W_{\rm lin}\rVert` (:math:`\approx 10^{-10}` when the pattern
        never changed); ``pattern_kept`` (no neuron–example pair ever
        switched); ``foreign_active`` (pairs active at the end outside the
        assignment); ``symmetric_norm_ratio`` :math:`= \lVert W^\star\rVert^2/\lVert W_{\rm sym}\rVert^2`, with
        :math:`W_{\rm sym}` the network that splits :math:`w^\star(\pm y)` equally among the neurons of each sign;
        ``success`` and the fit and run statistics.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.disjoint_trial(n=10, d=10**4, m=4, rng=0)
    >>> out["success"]
    True
    """
    return run_trial(_disjoint_trial(n=n, d=d, m=m, b0=b0, c=c, tol=tol, max_steps=max_steps, rng=rng))


def _disjoint_trial(*, n, d, m, b0, c, tol, max_steps, rng):
    """The body of :func:`disjoint_trial` (see ``_batch``): it yields its GD call."""
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
    alpha0 = disjoint_init_gram(K, assignment, m=m, b0=b0)
    res = yield dict(K=K, y=y, alpha0=alpha0, lr=lr_from_contraction_gram(c, K), tol=tol, max_steps=max_steps,
                     record_every=None)
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

disjoint_trial.batch = batch_of(disjoint_trial, _disjoint_trial)


def bad_init_trial(*, n, d, init="gaussian", b0=1.0, m=1, inactive=2, c=0.01, tol=1e-12, max_steps=200_000,
                   rng=None) -> dict:
    r"""One run from a (possibly) bad initialisation (chapter 7; analogue of the paper's Appendix F).

    Isotropic features X (drawn explicitly: a random :math:`w_0` has a part outside
    :math:`\operatorname{span}(X)`, which GD keeps), :math:`y_i \sim U[-1, 1]`, one neuron (m = 1) or the
    two-neuron model (m = 2), :math:`\eta = cn/\mathrm{mean}\lVert x\rVert^2`, GD to convergence.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension.
    init, b0, m, inactive
        The initialisation, as in
        :func:`~ibcore.relu.bad_init_weights`; m = 2 is the
        model :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)`.
    c, tol, max_steps, rng
        As in :func:`~ibcore.experiments.relu.two_neuron_trial`; ``rng`` draws y, then X, then w0.

    Returns
    -------
    dict of scalars
        ``loss_excess`` :math:`= L(w_T) - L_{\min}` (:math:`L_{\min} = \frac1{2n}\sum_{y_i<0} y_i^2` for one
        neuron, 0 for two), ``inactive_at_init`` (examples that must be fitted
        and are inactive at t = 0 on every neuron of their sign),
        ``never_active`` (such examples whose dual coefficients on the neurons
        of their sign are still exactly 0: they never moved), ``stuck_loss``
        :math:`= \frac1{2n}\sum y_i^2` over the never-active ones (a lower bound on
        ``loss_excess``), ``gap`` (relative, to :math:`w^\star` or :math:`(w^\star(y), w^\star(-y))`),
        ``success`` and the fit and run statistics.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.bad_init_trial(n=10, d=10**4, init="all_active", rng=0)
    >>> out["success"]
    True
    """
    return run_trial(_bad_init_trial(n=n, d=d, init=init, b0=b0, m=m, inactive=inactive, c=c, tol=tol,
                                     max_steps=max_steps, rng=rng))


def _bad_init_trial(*, n, d, init, b0, m, inactive, c, tol, max_steps, rng):
    """The body of :func:`bad_init_trial` (see ``_batch``): it yields its GD call."""
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
    res = yield dict(X=X, y=y, w0=w0, lr=lr_from_contraction(c, X), tol=tol, max_steps=max_steps, record_every=None)
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

bad_init_trial.batch = batch_of(bad_init_trial, _bad_init_trial)
