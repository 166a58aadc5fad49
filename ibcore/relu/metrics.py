r"""What the chapters measure: the gap to the min-norm solution and the activation-pattern dynamics.

The gap is the *relative* distance :math:`\lVert w_{GD} - w^\star\rVert/\lVert w^\star\rVert`.
That the paper's :math:`\Theta(\sqrt{n/\lVert\lambda\rVert_1})` refers to this relative distance is
our reading: with :math:`O(1)` labels :math:`\lVert w^\star\rVert` is itself of order :math:`\sqrt{n/d}`,
so an absolute gap of that order would say nothing (chapter 3, exercise on the absolute gap).
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, nonnegative_float, positive_float
from .gram import gram_deviation, _validated_gram

__all__ = [
    "FIT_TOL",
    "relative_gap",
    "relative_gap_gram",
    "norm_gram",
    "stabilisation_step",
    "reactivation_count",
    "positive_residual",
    "settling_certificate",
    "SettlingCertificate",
]

#: An example counts as fitted when :math:`\lvert f(x_i) - y_i\rvert` ≤ FIT_TOL.  GD stopped
#: by ``tol=1e-12`` leaves residuals ≈ :math:`\text{tol}\cdot\lVert y\rVert/c` ≈ 1e-10 (c = 0.01),
#: so 1e-6 has four orders of slack and is still far below any label of a failed example.
FIT_TOL = 1e-6


def relative_gap(w, w_star) -> float:
    r"""The relative gap :math:`\lVert w - w^\star\rVert_F / \lVert w^\star\rVert_F`.

    Parameters
    ----------
    w : array of shape (d,) or (m, d)
        The weights of one neuron or several, e.g. ``GDResult.w``.
    w_star : array of the same shape
        The target: ``MinNormSolution.w`` or :func:`~ibcore.relu.min_norm_pair`.

    Returns
    -------
    float
        The relative distance (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.relative_gap(np.array([1.0, 0.1]), np.array([1.0, 0.0]))
    0.1
    """
    w_star = finite_array("w_star", w_star, ndim=(1, 2))
    w = finite_array("w", w, shape=w_star.shape)
    norm = np.linalg.norm(w_star)
    if norm == 0:
        raise ValueError("w_star is zero, so the relative gap is undefined (no positive labels?)")
    return float(np.linalg.norm(w - w_star) / norm)


def relative_gap_gram(K, coef, coef_star) -> float:
    r"""The relative gap of :func:`~ibcore.relu.relative_gap` for weights known by their coefficients.

    With :math:`K = XX^\top`, :math:`w = X^\top a` and :math:`w^\star = X^\top\nu`,

    .. math::

        \lVert w - w^\star\rVert^2 = \sum_j (a_j - \nu_j)^\top K (a_j - \nu_j), \qquad
        \lVert w^\star\rVert^2 = \sum_j \nu_j^\top K \nu_j.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix.
    coef : array of shape (n,) or (m, n)
        The coefficients of the weights, e.g. ``GDResult.coef`` (:math:`\alpha_0 + \alpha_T`).
    coef_star : array of the same shape
        The coefficients of the target: ``MinNormSolution.nu`` or :func:`~ibcore.relu.min_norm_pair_gram`.

    Returns
    -------
    float
        The relative distance (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.relative_gap_gram(4 * np.eye(2), np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]]))
    1.118033988749895
    """
    return _relative_gap_gram(_validated_gram(K), coef, coef_star)


def _relative_gap_gram(K, coef, coef_star) -> float:
    """:func:`relative_gap_gram` for a validated K."""
    n = len(K)
    coef_star = np.atleast_2d(finite_array("coef_star", coef_star, ndim=(1, 2)))
    if coef_star.shape[1] != n:
        raise ValueError(f"coef_star must have n={n} columns to match K, got shape {coef_star.shape}")
    coef = np.atleast_2d(finite_array("coef", coef, ndim=(1, 2)))
    if coef.shape != coef_star.shape:
        raise ValueError(f"coef must have the shape of coef_star {coef_star.shape}, got {coef.shape}")
    num = _squared_norm_gram(K, coef - coef_star)
    den = _squared_norm_gram(K, coef_star)
    if den <= 0:
        raise ValueError("the target has zero norm (coef_star^T K coef_star = 0); the relative gap is undefined")
    return float(np.sqrt(max(num, 0.0) / den))


def norm_gram(K, coef) -> float:
    r"""The norm :math:`\lVert X^\top\alpha\rVert_F = (\sum_j \alpha_j^\top K\alpha_j)^{1/2}` from K alone.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`.
    coef : array of shape (n,) or (m, n)
        Data-span coefficients :math:`\alpha` of one neuron or several (:math:`w_j = X^\top\alpha_j`).

    Returns
    -------
    float
        :math:`\lVert w\rVert_F`, in the units of X.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K = 4.0 * np.eye(2)   # X = 2 I
    >>> R.norm_gram(K, np.array([[1.0, 0.0], [0.0, 1.0]]))
    2.8284271247461903
    """
    K = _validated_gram(K)
    coef = np.atleast_2d(finite_array("coef", coef, ndim=(1, 2)))
    if coef.shape[1] != len(K):
        raise ValueError(f"coef must have n={len(K)} columns to match K, got shape {coef.shape}")
    return float(np.sqrt(max(_squared_norm_gram(K, coef), 0.0)))


def _squared_norm_gram(K, coef) -> float:
    r""":math:`\sum_j \alpha_j^\top K\alpha_j` for the rows :math:`\alpha_j` of ``coef`` (shape (m, n))."""
    return float(np.sum((coef @ K) * coef))


def stabilisation_step(result) -> int:
    """The step after which no activation pattern changes: the largest ``last_change``.

    Parameters
    ----------
    result : :class:`~ibcore.relu.GDResult`
        A run of :func:`~ibcore.relu.gradient_descent`.

    Returns
    -------
    int
        The GD step of the last pattern change, over all neurons and examples (0: none).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 50, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.2, X))
    >>> R.stabilisation_step(res) <= res.n_steps
    True
    """
    return int(np.max(result.last_change))



def reactivation_count(result) -> int:
    r"""Total number of re-activations (:math:`\beta_{j,i} \le 0` then :math:`> 0` again) over all neurons and examples.

    Parameters
    ----------
    result : :class:`~ibcore.relu.GDResult`
        A run of :func:`~ibcore.relu.gradient_descent`.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 50, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.2, X))
    >>> R.reactivation_count(res)
    4
    """
    return int(np.sum(result.reactivations))



def positive_residual(result, y) -> float:
    r"""How well the positive labels are fitted: :math:`\max_{i:\,y_i > 0} \lvert f(x_i) - y_i\rvert`.

    Parameters
    ----------
    result : :class:`~ibcore.relu.GDResult`
        A run of :func:`~ibcore.relu.gradient_descent`.
    y : array of shape (n,)
        Its labels.

    Returns
    -------
    float
        The largest residual on a positive label, in the units of y (0 if there is none).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 50, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.2, X))
    >>> R.positive_residual(res, y) < 1e-9
    True
    """
    y = finite_array("y", y, shape=(np.size(result.predictions),))
    pos = y > 0
    return float(np.abs(result.predictions[pos] - y[pos]).max(initial=0.0))



def _can_fit(y, signs) -> np.ndarray:
    r"""Boolean (m, n): neuron j can fit example i, :math:`s_jy_i > 0`.

    An example that some neuron can fit (``_can_fit(y, signs).any(axis=0)``)
    must be fitted exactly at a global minimum; the others (:math:`y_i \le 0` for one
    neuron, :math:`y_i = 0` for two) are best served by outputs that stay at 0.
    """
    y = finite_array("y", y, ndim=1)
    signs = finite_array("signs", signs, ndim=1)
    return signs[:, None] * y[None, :] > 0


def _fit_threshold(y, *, tol, c) -> float:
    r"""The residual below which an example counts as fitted:
    max(:data:`~ibcore.relu.FIT_TOL`, :math:`100\cdot\text{tol}\cdot\lVert y\rVert/c`).

    GD stopped by its rule :math:`\text{lr}\lVert\nabla L\rVert \le \text{tol}\lVert w\rVert` leaves
    residuals of about :math:`\text{tol}\cdot\lVert y\rVert/c` (the iterates contract by :math:`(1 - c)`
    per step), so a run with a loose ``tol`` or a small ``c`` needs a looser threshold than FIT_TOL;
    100 times that residual still lies far below the labels of lost examples.
    """
    y = finite_array("y", y, ndim=1)
    c = positive_float("c", c)
    tol = nonnegative_float("tol", tol)
    return max(FIT_TOL, 100 * tol * float(np.linalg.norm(y)) / c)


def _fit_statistics(result, y, *, threshold=FIT_TOL) -> dict:
    r"""Residuals over the examples the network must fit.

    Returns ``max_residual``; ``unfit``, the number of those examples with a
    residual above ``threshold``; and ``max_unfit_label``, the largest :math:`\lvert y_i\rvert`
    among them (0 if none).
    """
    needy = _can_fit(y, result.signs).any(axis=0)
    resid = np.abs(result.predictions - y)[needy]
    unfit = resid > threshold
    return {"max_residual": float(resid.max(initial=0.0)), "unfit": int(np.sum(unfit)),
            "max_unfit_label": float(np.abs(y[needy][unfit]).max(initial=0.0))}


def _slack_statistics(y, star, pls) -> dict:
    r"""The structure of :math:`w^\star` on the negative labels, against the positive-subset fit
    :math:`w_{PLS}`.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    star : MinNormSolution
        :func:`~ibcore.relu.min_norm_solution` (or its Gram form) for y.
    pls : MinNormSolution
        :func:`~ibcore.relu.positive_subset_least_squares` of the same data.

    Returns
    -------
    dict
        ``strictly_inactive``: fraction of the negative-label constraints with
        :math:`x_i\cdot w^\star < 0` (slack); ``pls_violations``: fraction of negative labels with
        :math:`x_i\cdot w_{PLS} > 0` (where :math:`w_{PLS}` is not a global minimiser);
        ``pls_predicts_slack``: :math:`w_{PLS}` predicts :math:`\le 0` on exactly the negatives that
        are slack at :math:`w^\star` (the first-order picture of chapter 1).  "Strictly"
        means beyond :math:`10^{-9}\cdot\max\lvert y\rvert`, above the rounding of the dual solve.
    """
    y = finite_array("y", y, shape=(np.size(star.beta),))
    neg = y < 0
    zero = 1e-9 * np.abs(y).max()
    slack = star.beta[neg] < -zero
    return {"strictly_inactive": float(np.mean(slack)) if neg.any() else 0.0,
            "pls_violations": float(np.mean(pls.beta[neg] > zero)) if neg.any() else 0.0,
            "pls_predicts_slack": bool(np.array_equal(pls.beta[neg] <= 0, slack))}


def _run_statistics(result) -> dict:
    """The run in numbers: ``n_steps``, ``converged`` (``result.success``), ``stabilisation_step``, ``reactivations``."""
    return {"n_steps": int(result.n_steps), "converged": bool(result.success),
            "stabilisation_step": stabilisation_step(result), "reactivations": reactivation_count(result)}


@result
class SettlingCertificate:
    """When the cumulative cross-talk lemma (chapter 2) proves that a one-neuron pattern is final.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 10**4, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.1, X), record_every=1)
    >>> cert = R.settling_certificate(X @ X.T, y, res)
    >>> cert.step <= res.n_steps
    True
    """

    step: int | None
    """First recorded step from which the pattern provably never changes (``None``: never certified)."""
    record_step: np.ndarray
    """The recorded steps t (``history.step``)."""
    bound: np.ndarray
    r""":math:`B_t = \frac{\Delta}{1 - \Delta}\lVert D_t r_t\rVert_2`, the most cross-talk any example can
    still receive after t."""
    margin: np.ndarray
    r"""The smallest distance to a switch at t, :math:`-\beta_i` on inactive examples,
    :math:`\min(\beta_i, y_i)` on active ones (-inf if a negative label is active: it must still switch
    off)."""


def settling_certificate(K, y, result) -> SettlingCertificate:
    r"""Check the cumulative cross-talk lemma along a recorded one-neuron GD run.

    With :math:`\kappa = \mathrm{mean}_i K_{ii}`, :math:`\Delta = \lVert K/\kappa - I\rVert_{op}`
    (:func:`~ibcore.relu.gram_deviation`) and :math:`c = \eta\kappa/n`, if :math:`\Delta < 1` and
    :math:`c(1 + \Delta) \le 1`, then from any step t at which no negative label is active and
    every example's margin exceeds :math:`B_t = \frac{\Delta}{1 - \Delta}\lVert D_t r_t\rVert_2`,
    the activation pattern never changes again (chapter 2 proves it: the residuals of the
    active examples contract by :math:`1 - c(1 - \Delta)` per step and each step moves any
    example by at most :math:`c\Delta\lVert D_t r_t\rVert_2` through the cross-talk).

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix of the run.
    y : array of shape (n,)
        Labels.
    result : :class:`~ibcore.relu.GDResult`
        A one-neuron run (ReLU) with a recorded history (``record_every`` ≥ 1).

    Returns
    -------
    :class:`~ibcore.relu.SettlingCertificate`
        The first certified step, with the bound :math:`B_t` and the margins along the run.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(10, 10**4, rng=0)
    >>> y = R.sample_labels(10, rng=1)
    >>> res = R.gradient_descent(X, y, R.all_active_init(X), lr=R.lr_from_contraction(0.1, X), record_every=1)
    >>> cert = R.settling_certificate(X @ X.T, y, res)
    >>> cert.step is not None and cert.step >= R.stabilisation_step(res)
    True
    """
    K = _validated_gram(K)
    n = len(K)
    y = finite_array("y", y, shape=(n,))
    h = result.history
    if result.activation != "relu" or np.ndim(h.beta) != 2 or h.step.size < 2:
        raise ValueError("settling_certificate needs a one-neuron ReLU run (1-D w0) recorded along the way "
                         f"(record_every=1, say), got {h.step.size} record(s) of shape {np.shape(h.beta)[1:]}")
    kappa = float(np.mean(np.diag(K)))
    delta = gram_deviation(K)   # its scale is this κ
    c = result.lr * kappa / n
    beta = h.beta
    active = beta > 0
    resid = np.where(active, beta - y, 0.0)
    bound = delta / (1 - delta) * np.linalg.norm(resid, axis=1) if delta < 1 else np.full(len(beta), np.inf)
    margin = np.where(active, np.minimum(beta, y), -beta).min(axis=1)
    margin[np.any(active & (y <= 0), axis=1)] = -np.inf
    ok = (margin > bound) & (c * (1 + delta) <= 1)
    step = int(h.step[np.argmax(ok)]) if ok.any() else None
    return SettlingCertificate(step=step, record_step=h.step, bound=bound, margin=margin)
