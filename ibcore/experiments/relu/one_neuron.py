r"""Trials of one neuron: the gap to w* (:func:`~ibcore.experiments.relu.gap_trial`) and the activation pattern (:func:`~ibcore.experiments.relu.pattern_trial`).

A *trial* follows the book's protocol (CONTRIBUTING, "ibcore's design"):
keyword-only parameters, ``rng=None``, arguments validated before anything is
drawn, and a flat dict of numbers as the result, ready for
:func:`ibcore.sweep.sweep`.  A trial only composes public ibcore functions, in
an order a chapter can repeat by hand: labels first
(:func:`~ibcore.relu.sample_labels`), then the data, then GD and the
min-norm solution.

Setup (our reconstruction of the paper's experiment, chapters 1-3):
:math:`x_i = \Sigma^{1/2}z_i` with spectrum λ, labels :math:`y_i \sim U[-1, 1]`, one neuron,
:math:`w_0 = b_0X^\top\mathbb 1/\lVert\lambda\rVert_1` (pre-activations :math:`\approx b_0`),
lr :math:`= cn/\mathrm{mean}\lVert x_i\rVert^2`, GD to convergence, then the relative gap
:math:`\lVert w_{GD} - w^\star\rVert/\lVert w^\star\rVert`.  Every quantity is a
function of :math:`K = XX^\top`, so for large d the trials draw K directly
(:func:`~ibcore.relu.sample_gram`), at a cost independent of d for
isotropic and spiked spectra.  The trials silence
:class:`~ibcore.relu.InactivePositiveWarning` and count the examples
concerned instead.
"""
from __future__ import annotations

import math

import numpy as np

from ...relu.features import Spectrum, sample_features, sample_labels, _validated_sizes
from ...relu.gram import sample_gram
from ...relu.initialisation import all_active_init, all_active_init_gram
from ...relu.metrics import (_fit_statistics, _fit_threshold, relative_gap, relative_gap_gram, _run_statistics,
                             _slack_statistics)
from ...relu.teacher import _relu_teacher_risk_gradient, relu_teacher_risk
from ...relu.min_norm import min_norm_solution, min_norm_solution_gram, positive_subset_least_squares_gram
from ...relu.orthogonal import orthogonal_stabilisation_step
from ...relu.perturbation import first_order_gap
from ...relu.stability import default_contraction, lr_from_contraction, lr_from_contraction_gram
from ...validation import nonnegative_float, positive_float, positive_int
from ._batch import batch_of, run_trial

__all__ = ["gap_trial", "pattern_trial", "structure_trial", "test_error_trial"]

_METHODS = ("auto", "gram", "features")
_DATA = ("gaussian", "orthogonal")

# With "auto", sample K directly once X would hold more than this many entries.
_AUTO_GRAM_ENTRIES = 2_000_000


def _default_max_steps(c, tol) -> int:
    r"""A step budget that a converging run never reaches:
    :math:`\max(10^5, \lceil 10\log(1/\text{tol})/c\rceil)`.

    The iterates contract by about :math:`(1 - c)` per step, so reaching ``tol``
    takes about :math:`\log(1/\text{tol})/c` steps; ten times that leaves room for the slow
    modes of K.
    """
    c = positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    if tol == 0:
        return 100_000
    return max(100_000, math.ceil(10 * math.log(1 / tol) / c))


def gap_trial(*, n, d, b0=1.0, c=None, spectrum="isotropic", spectrum_param=None, method="auto",
              tol=1e-12, max_steps=None, rng=None) -> dict:
    r"""One run of the gap experiment: one neuron from :math:`w_0 = b_0X^\top\mathbb 1/\lVert\lambda\rVert_1`, compared with :math:`w^\star`.

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension.
    b0 : float
        Initial pre-activation scale: :math:`\beta_i(0) \approx b_0` for every i.
    c : float, optional
        Per-example contraction, :math:`\eta = cn/\mathrm{mean}\lVert x_i\rVert^2`.  Default
        :func:`~ibcore.relu.default_contraction`,
        :math:`\min(0.01, 0.2\sqrt{n/R_0})` with :math:`R_0 = \lVert\lambda\rVert_1^2/\lVert\lambda\rVert_2^2`,
        so that the :math:`O(c)` step-size floor :math:`c/\sqrt3` never dominates the gap.
    spectrum : {"isotropic", "spiked", "power_law"}
        Covariance profile (a name, so that it can be a sweep column).
    spectrum_param : float, optional
        Its parameter (see :meth:`~ibcore.relu.Spectrum.named`).
    method : {"auto", "gram", "features"}
        ``"gram"`` draws K with ``sample_gram`` and runs
        ``gradient_descent_gram``; ``"features"`` draws X and runs the
        X-based code; ``"auto"`` uses ``"gram"`` when :math:`nd > 2\cdot10^6`.
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
        ``gap`` :math:`= \lVert w_{GD} - w^\star\rVert/\lVert w^\star\rVert`; ``gap_scaled`` = gap
        :math:`/\sqrt{n/r_0}`, the abstract's :math:`\sqrt{n/\lVert\lambda\rVert_1}` under the
        normalisation :math:`\lVert\lambda\rVert_\infty = 1` (:math:`r_0 = \lVert\lambda\rVert_1/\lVert\lambda\rVert_\infty`,
        :attr:`~ibcore.relu.Spectrum.r0`; = gap :math:`/\sqrt{n/d}` for isotropic data);
        ``gap_scaled_R0`` = gap :math:`/\sqrt{n/R_0}` = gap :math:`/(\sqrt n\lVert\lambda\rVert_2/\lVert\lambda\rVert_1)`,
        the cross-talk scale; ``first_order_gap``
        (:func:`~ibcore.relu.first_order_gap` for this draw); ``c_used``,
        ``loss_excess`` :math:`= L(w_T) - L_{\min}` (> 0 when GD stalled),
        ``inactive_at_init`` (positive-label examples with :math:`\beta_i(0) \le 0`),
        ``success`` (converged with every positive label fitted to
        ``_fit_threshold``), and those of
        ``_fit_statistics`` and
        ``_run_statistics``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.gap_trial(n=10, d=10**4, c=0.01, rng=0)
    >>> out["success"]
    True
    >>> print(f"{out['gap']:.3f}")
    0.015
    """
    return run_trial(_gap_trial(n=n, d=d, b0=b0, c=c, spectrum=spectrum, spectrum_param=spectrum_param,
                                method=method, tol=tol, max_steps=max_steps, rng=rng))


def _gap_trial(*, n, d, b0, c, spectrum, spectrum_param, method, tol, max_steps, rng):
    """The body of :func:`gap_trial` (see ``_batch``): it yields its GD call."""
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
        alpha0 = all_active_init_gram(K, b0=b0, trace=spec.trace)
        res = yield dict(K=K, y=y, alpha0=alpha0, lr=lr_from_contraction_gram(c, K), **run)
        star = min_norm_solution_gram(K, y)
        gap = relative_gap_gram(K, res.coef, star.nu)
        beta0 = K @ alpha0
    else:
        X = sample_features(n, d, spectrum=spec, rng=rng)
        K = X @ X.T
        w0 = all_active_init(X, b0=b0, trace=spec.trace)
        res = yield dict(X=X, y=y, w0=w0, lr=lr_from_contraction(c, X), **run)
        star = min_norm_solution(X, y)
        gap = relative_gap(res.w, star.w)
        beta0 = X @ w0
    fit = _fit_statistics(res, y, threshold=_fit_threshold(y, tol=tol, c=c))
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / spec.r0),
        "gap_scaled_R0": gap / np.sqrt(n / spec.R0),
        "first_order_gap": first_order_gap(K, y, b0=b0),
        "c_used": c,
        "loss_excess": res.loss - star.loss,
        "inactive_at_init": int(np.sum((y > 0) & (beta0 <= 0))),
        "success": bool(res.success and fit["unfit"] == 0),
        **fit,
        **_run_statistics(res),
    }

gap_trial.batch = batch_of(gap_trial, _gap_trial)


def pattern_trial(*, n, d, data="gaussian", b0=1.0, c=0.01, tol=1e-12, max_steps=100_000, rng=None) -> dict:
    r"""One neuron from the all-active start: the structure of w* and how GD's activation pattern settles.

    The chapters on the setting and on one neuron measure, on one draw of
    the data: how many negative-label constraints of the min-norm solution
    :math:`w^\star` are strictly inactive, how far the GD limit is from :math:`w^\star` and
    from the positive-subset least-squares solution :math:`w_{PLS}`, and when the
    activation pattern stops changing.

    Setup (our reconstruction): labels :math:`y_i \sim U[-1, 1]` (drawn first), then
    K; :math:`w_0 = b_0X^\top\mathbb 1/d`, :math:`\eta = cn/\mathrm{mean}\lVert x\rVert^2`, GD from
    the Gram matrix alone. ``data="gaussian"`` draws :math:`K = XX^\top` for isotropic
    Gaussian features (:func:`~ibcore.relu.sample_gram`); ``data="orthogonal"`` uses
    :math:`K = dI_n` exactly, the Gram matrix of
    :func:`~ibcore.relu.orthogonal_features` (the Boursier et al.
    control).

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension (:math:`d \ge n`).
    data : {"gaussian", "orthogonal"}
        The data model.
    b0 : float
        Initial pre-activation :math:`b_0`.
    c : float
        Per-example contraction (:math:`\eta = cn/\mathrm{mean}\lVert x\rVert^2`).
    tol, max_steps : float, int
        Passed to :func:`~ibcore.relu.gradient_descent_gram`.
    rng : None, int or numpy.random.Generator
        Draws the labels, then K.

    Returns
    -------
    dict of scalars
        ``gap`` :math:`= \lVert w_{GD} - w^\star\rVert/\lVert w^\star\rVert`, ``gap_scaled`` = gap
        :math:`/\sqrt{n/d}`, ``gap_over_c`` = gap/c, ``gap_to_pls``
        :math:`= \lVert w_{GD} - w_{PLS}\rVert/\lVert w_{PLS}\rVert`, ``pls_to_star``
        :math:`= \lVert w_{PLS} - w^\star\rVert/\lVert w^\star\rVert`, those of
        ``_slack_statistics`` (``strictly_inactive``,
        ``pls_violations``, ``pls_predicts_slack``), ``negatives_exactly_zero``
        (every :math:`y_i < 0` ends with :math:`\sigma(x_i\cdot w_T)` == 0.0 exactly),
        ``positives_always_active`` (no :math:`y_i > 0` was ever inactive),
        ``loss_excess`` (:math:`L(w_T) - L_{\min}`), ``orthogonal_stabilisation_step``
        (:func:`~ibcore.relu.orthogonal_stabilisation_step` for
        these labels), ``success`` (converged, every positive label fitted),
        and those of ``_fit_statistics`` and
        ``_run_statistics``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.pattern_trial(n=10, d=10**4, rng=0)
    >>> out["stabilisation_step"] <= out["n_steps"]
    True
    """
    return run_trial(_pattern_trial(n=n, d=d, data=data, b0=b0, c=c, tol=tol, max_steps=max_steps, rng=rng))


def _pattern_trial(*, n, d, data, b0, c, tol, max_steps, rng):
    """The body of :func:`pattern_trial` (see ``_batch``): it yields its GD call."""
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
    alpha0 = all_active_init_gram(K, b0=b0, trace=d)  # w0 = b0 · Xᵀ1/d
    res = yield dict(K=K, y=y, alpha0=alpha0, lr=lr_from_contraction_gram(c, K), tol=tol, max_steps=max_steps,
                     record_every=None)
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

pattern_trial.batch = batch_of(pattern_trial, _pattern_trial)


def structure_trial(*, n, d, rng=None) -> dict:
    r"""The structure of the min-norm solution :math:`w^\star` on one draw, without running GD (cheap: :math:`O(n^3)`).

    Labels :math:`y_i \sim U[-1, 1]` first, then K for isotropic Gaussian features, then
    :math:`w^\star` and the positive-subset fit :math:`w_{PLS}` from their exact dual solves.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (:math:`d \ge n`).
    rng : None, int or numpy.random.Generator
        Draws the labels, then K.

    Returns
    -------
    dict
        ``strictly_inactive`` (fraction of the negative-label constraints with
        :math:`x_i\cdot w^\star < 0`), ``pls_violations`` (fraction of negative labels with
        :math:`x_i\cdot w_{PLS} > 0`), ``pls_predicts_slack`` (bool) and ``pls_to_star``
        :math:`= \lVert w_{PLS} - w^\star\rVert/\lVert w^\star\rVert`, 0 on a draw without a
        positive label (probability :math:`2^{-n}`), where :math:`w^\star = w_{PLS} = 0`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.structure_trial(n=10, d=100, rng=0)
    >>> sorted(out)[:3]
    ['pls_predicts_slack', 'pls_to_star', 'pls_violations']
    """
    n, d = _validated_sizes(n, d)
    rng = np.random.default_rng(rng)
    y = sample_labels(n, rng=rng)
    K = sample_gram(n, d, rng=rng)
    star = min_norm_solution_gram(K, y)
    pls = positive_subset_least_squares_gram(K, y)
    # no positive label: both solutions are w = 0, equal, and their relative gap is 0/0
    pls_to_star = relative_gap_gram(K, pls.nu, star.nu) if np.any(y > 0) else 0.0
    return {**_slack_statistics(y, star, pls), "pls_to_star": pls_to_star}


def test_error_trial(*, n, d, b0=1.0, c=None, noise=0.0, tol=1e-12, max_steps=None, rng=None) -> dict:
    r"""Test error of the GD neuron and of :math:`w^\star` when the labels come from a teacher.

    Data model (ours, for this experiment only): isotropic Gaussian x, a
    teacher direction θ uniform on the sphere with :math:`\lVert\theta\rVert^2 = 1/3` (so that
    :math:`y = \theta\cdot x` has the variance of :math:`U[-1, 1]`), labels
    :math:`y_i = \theta\cdot x_i + \sqrt\Delta\,\xi_i`. One neuron runs GD from
    :math:`w_0 = b_0X^\top\mathbb 1/d`; :math:`w^\star` is the min-norm global minimiser.
    Each is scored against the best ReLU response to the teacher,
    :math:`\mathcal R(w) = E_x(\sigma(w\cdot x) - \sigma(\theta\cdot x))^2`, in closed form
    (:func:`~ibcore.relu.relu_teacher_risk`).  Since :math:`\sqrt{\mathcal R}` is 1-Lipschitz in w,
    :math:`\lvert\sqrt{\mathcal R(w_{GD})} - \sqrt{\mathcal R(w^\star)}\rvert \le \lVert w_{GD} - w^\star\rVert
    = \text{gap}\cdot\lVert w^\star\rVert`.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (:math:`d \ge n`).
    b0, c, tol, max_steps
        As in :func:`~ibcore.experiments.relu.gap_trial` (isotropic data).
    noise : float
        Variance :math:`\Delta \ge 0` of the label noise, as everywhere in ibcore (Part II's
        convention: :math:`y = f(x) + \sqrt\Delta\,\xi` with :math:`\xi \sim N(0, 1)`).
    rng : None, int or numpy.random.Generator
        Draws θ, then X, then the noise.

    Returns
    -------
    dict of scalars
        ``gap`` (relative), ``distance`` :math:`= \lVert w_{GD} - w^\star\rVert`, ``risk_gd``,
        ``risk_star``, ``risk_null`` :math:`= \mathcal R(0) = \lVert\theta\rVert^2/2` (predicting 0),
        ``root_risk_difference`` :math:`= \lvert\sqrt{\mathcal R(w_{GD})} - \sqrt{\mathcal R(w^\star)}\rvert`
        (at most ``distance``), ``first_order_risk_difference``
        :math:`= \langle\nabla\mathcal R(w^\star), w_{GD} - w^\star\rangle` (what the gap's
        direction predicts for ``risk_gd - risk_star`` at first order),
        ``success`` and the run statistics.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.experiments.relu as E
    >>> out = E.test_error_trial(n=10, d=200, rng=0)
    >>> print(f"GD {out['risk_gd']:.3f}, w* {out['risk_star']:.3f}")
    GD 0.149, w* 0.149
    """
    return run_trial(_test_error_trial(n=n, d=d, b0=b0, c=c, noise=noise, tol=tol, max_steps=max_steps,
                                       rng=rng))


def _test_error_trial(*, n, d, b0, c, noise, tol, max_steps, rng):
    """The body of :func:`test_error_trial` (see ``_batch``): it yields its GD call."""
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
    res = yield dict(X=X, y=y, w0=all_active_init(X, b0=b0, trace=d), lr=lr_from_contraction(c, X), tol=tol,
                     max_steps=max_steps, record_every=None)
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
        "first_order_risk_difference": float(_relu_teacher_risk_gradient(star.w, theta) @ (res.w - star.w)),
        "success": bool(res.success and fit["unfit"] == 0),
        **_run_statistics(res),
    }

test_error_trial.batch = batch_of(test_error_trial, _test_error_trial)
