"""The Theorem 2 experiment: how far is GD from the min-norm solution, as a function of n and d?

Setup (science notes §7, our reconstruction of the paper's experiment):
x_i = Σ^{1/2} z_i with spectrum λ, labels y_i ~ U[-1, 1], one neuron,
w0 = Xᵀ1/‖λ‖₁ (= Xᵀ1/d for isotropic data, pre-activations ≈ 1),
lr = c n / mean‖x_i‖² with c = 0.01, GD to convergence, then the relative gap
‖w_GD - w*‖/‖w*‖ and its ratio to √(n/‖λ‖₁).  The notes report a median ratio
of 0.40–0.57 and a log–log slope of -0.49 in d at c = 0.01 (d ≤ 12,800).

Step size and large d: the finite step leaves an O(c) floor in the gap (about
c/2, see the orthogonal control), so the ratio gap/√(n/‖λ‖₁) stays Θ(1) only
while c ≪ √(n/‖λ‖₁).  At n = 50 we measured a median ratio ≈ 0.5 at d = 10⁴ for
c = 10⁻², at d = 10⁶ for c ≤ 10⁻³ and at d = 10⁸ for c = 10⁻⁴, but ≈ 0.85 at
d = 10⁶ and ≈ 8 at d = 10⁸ with c = 10⁻² (the floor).  The number of steps
grows like log(1/tol)/c.

Anisotropic spectra: in our runs (n = 20, c = 0.002, d = 4·10³ and 6.4·10⁴) the
gap tracks the cross-talk scale √n‖λ‖₂/‖λ‖₁ (median ratio 0.42–0.52 for power
laws with exponents 0.3–0.7, ``gap_scaled_l2``), whereas gap/√(n/‖λ‖₁) drifts
down with d (0.17 → 0.08).  With λ_max = 1, √n‖λ‖₂/‖λ‖₁ ≤ √(n/‖λ‖₁), so this
agrees with an O(√(n/‖λ‖₁)) upper bound but not with a matching lower bound
for power laws; the paper's exact conditions were not available to us.

Every quantity is a function of K = X Xᵀ, so for large d the trial draws K
directly (:func:`~ibcore.relu.gram.sample_gram`), at a cost independent of d
for isotropic and spiked spectra.

The one-neuron chapters (the setting, and Theorem 1 of the seed summaries)
use :func:`one_neuron_trial` / :func:`one_neuron_sweep`: the same run on
isotropic Gaussian or exactly orthogonal data (K = d·I), measured against w*
and against least squares on the positive labels, with the activation-pattern
statistics and the no-cross-talk reference :func:`orthogonal_stabilisation_step`.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..validation import as_generator, finite_array, positive_float, positive_int
from ..sweep import sweep_trial
from .features import Spectrum, sample_features
from .gd import InactivePositiveWarning, gradient_descent, gradient_descent_gram, lr_from_contraction
from .gram import sample_gram
from .metrics import positive_residual, reactivation_count, relative_gap, relative_gap_gram, stabilisation_step
from .min_norm import min_norm_solution, min_norm_solution_gram, positive_subset_least_squares_gram

__all__ = ["theorem2_trial", "theorem2_sweep", "one_neuron_trial", "one_neuron_sweep",
           "orthogonal_stabilisation_step"]

METHODS = ("auto", "gram", "features")

# With "auto", sample K directly once X would hold more than this many entries.
_AUTO_GRAM_ENTRIES = 2_000_000


def theorem2_trial(n, d, *, c=0.01, spectrum="isotropic", spectrum_param=None, method="auto",
                   tol=1e-12, max_steps=100_000, rng=None) -> dict:
    """One run of the Theorem 2 experiment (one neuron, all-active init).

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension.
    c : float
        Per-example contraction; lr = c n / mean‖x_i‖². Keep c ≪ √(n/‖λ‖₁)
        to measure the √(n/‖λ‖₁) gap rather than the O(c) step-size floor.
    spectrum : {"isotropic", "spiked", "power_law"}
        Covariance profile (a name, so that it can be a sweep column).
    spectrum_param : float, optional
        Its parameter (see :meth:`~ibcore.relu.features.Spectrum.named`).
    method : {"auto", "gram", "features"}
        ``"gram"`` draws K with ``sample_gram`` and runs
        ``gradient_descent_gram``; ``"features"`` draws X and runs the
        X-based code; ``"auto"`` uses ``"gram"`` when n·d > 2·10⁶.
    tol, max_steps : float, int
        Passed to gradient descent.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of scalars
        ``gap`` (relative), ``gap_scaled`` = gap/√(n/‖λ‖₁),
        ``gap_scaled_l2`` = gap/(√n ‖λ‖₂/‖λ‖₁) (the cross-talk scale of the
        notes §3; equal to ``gap_scaled`` for isotropic data), ``steps``,
        ``converged``, ``stabilisation_step``, ``reactivations``,
        ``positive_residual`` (max over y_i > 0 of |f(x_i) - y_i|),
        ``loss_excess`` (L(w_T) - L_min, > 0 when GD stalled) and
        ``inactive_at_init`` (positive-label examples with β_i(0) ≤ 0; the
        warning is silenced inside sweeps and counted here instead).
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    c = positive_float("c", c)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not isinstance(spectrum, str):
        raise ValueError(f"spectrum must be a profile name here (a sweep column), got {spectrum!r}")
    spec = Spectrum.named(spectrum, d, spectrum_param)
    rng = as_generator(rng)
    if method == "auto":
        method = "gram" if n * d > _AUTO_GRAM_ENTRIES else "features"

    y = rng.uniform(-1.0, 1.0, size=n)
    run = dict(tol=tol, max_steps=max_steps, record_every=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InactivePositiveWarning)
        if method == "gram":
            K = sample_gram(n, d, spectrum=spec, rng=rng)
            alpha0 = np.full(n, 1.0 / spec.trace)  # w0 = Xᵀ1/‖λ‖₁
            beta0 = K @ alpha0
            res = gradient_descent_gram(K, y, alpha0, lr=lr_from_contraction(c, K=K), **run)
            star = min_norm_solution_gram(K, y)
            gap = relative_gap_gram(K, res.coef, star.nu)
        else:
            X = sample_features(n, d, spectrum=spec, rng=rng)
            w0 = X.sum(axis=0) / spec.trace
            beta0 = X @ w0
            res = gradient_descent(X, y, w0, lr=lr_from_contraction(c, X), **run)
            star = min_norm_solution(X, y)
            gap = relative_gap(res.w, star.w)
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / spec.trace),
        "gap_scaled_l2": gap / (np.sqrt(n) * spec.norm2 / spec.trace),
        "steps": res.steps,
        "converged": bool(res.converged),
        "stabilisation_step": stabilisation_step(res),
        "reactivations": reactivation_count(res),
        "positive_residual": positive_residual(res, y),
        "loss_excess": res.loss - star.loss,
        "inactive_at_init": int(np.sum((y > 0) & (beta0 <= 0))),
    }


def theorem2_sweep(grid, *, trials=8, seed=0, n_jobs=-1, backend=None, cache=True, progress=True,
                   **fixed) -> np.ndarray:
    """Run :func:`theorem2_trial` over a grid with :func:`ibcore.sweep.sweep`; return a tidy table.

    Parameters
    ----------
    grid : dict of sequences or list of dicts
        Values of ``n``, ``d`` and optionally any other keyword of
        ``theorem2_trial`` (``c``, ``spectrum``, ...).
    trials, seed, n_jobs, backend, cache, progress
        As in :func:`ibcore.sweep.sweep` (processes, Dask, on-disk cache).
    **fixed
        Keywords of ``theorem2_trial`` held constant; they become constant
        columns of the table (``None`` values are left out).

    Returns
    -------
    numpy.ndarray
        Structured array, one row per (grid point, trial): the parameters,
        ``trial``, and the keys returned by ``theorem2_trial``.

    Examples
    --------
    >>> table = theorem2_sweep({"n": [20], "d": [10**4, 10**6]}, trials=4, c=0.01)  # doctest: +SKIP
    >>> np.median(table["gap_scaled"][table["d"] == 10**6])                         # doctest: +SKIP
    """
    return sweep_trial(theorem2_trial, grid, fixed, desc="theorem 2", trials=trials, seed=seed, n_jobs=n_jobs,
                     backend=backend, cache=cache, progress=progress)


# ---------------------------------------------------------------------------
# one neuron: the structure of w*, the orthogonal control, the activation pattern

DATA = ("gaussian", "orthogonal")


def orthogonal_stabilisation_step(y, c, *, scale=1.0) -> int:
    """Step at which the activation pattern stops changing on exactly orthogonal data.

    With K = d·I and pre-activations starting at β_i(0) = ``scale``, an active
    example moves alone, β_t = y_i + (scale - y_i)(1 - c)^t.  A positive
    label never crosses 0; a negative one switches off at the first t with
    (1 - c)^t ≤ |y_i|/(scale + |y_i|) and never comes back, so the pattern
    is final after

        T_orth = max_{y_i < 0} ⌈ log(|y_i|/(scale + |y_i|)) / log(1 - c) ⌉

    steps (0 when no label is negative).  This is the time the slowest
    negative example needs, with no cross-talk at all.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    c : float
        Per-example contraction, 0 < c < 1.
    scale : float
        Initial pre-activation b0 (1 for w0 = Xᵀ1/d).

    Returns
    -------
    int
    """
    y = finite_array("y", y, ndim=1)
    c = positive_float("c", c)
    if c >= 1:
        raise ValueError(f"c must lie in (0, 1) for the active examples to contract, got {c!r}")
    scale = positive_float("scale", scale)
    neg = -y[y < 0]
    if neg.size == 0:
        return 0
    steps = np.log(neg / (scale + neg)) / np.log1p(-c)
    return int(np.ceil(steps.max()))


def one_neuron_trial(n, d, *, data="gaussian", c=0.01, scale=1.0, tol=1e-12, max_steps=100_000,
                     rng=None) -> dict:
    """One neuron, GD from the all-active init, compared with w* and with least squares on I₊.

    The chapters on the setting and on one neuron (Theorem 1 of the seed
    summaries) measure, on one draw of the data: the structure of the
    min-norm solution w* (how many negative-label constraints are strictly
    inactive), how far the GD limit is from w* and from the positive-subset
    least-squares solution w_PLS, and how the activation pattern settles.

    Setup (our reconstruction): labels y_i ~ U[-1, 1] (drawn first, as in
    :func:`theorem2_trial`), w0 = scale · Xᵀ1/d, lr = c n / mean‖x_i‖², GD
    run from the Gram matrix alone.  ``data="gaussian"`` draws K = X Xᵀ for
    isotropic Gaussian features (:func:`~ibcore.relu.gram.sample_gram`);
    ``data="orthogonal"`` uses K = d·I_n exactly, the Gram matrix of
    :func:`~ibcore.relu.features.orthogonal_features` (the Boursier et al.
    control).

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension (d ≥ n).
    data : {"gaussian", "orthogonal"}
    c : float
        Per-example contraction (lr = c n / mean‖x‖²).
    scale : float
        Initial pre-activation b0.
    tol, max_steps : float, int
        Passed to :func:`~ibcore.relu.gd.gradient_descent_gram`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of scalars
        ``gap`` = ‖w_GD - w*‖/‖w*‖, ``gap_scaled`` = gap/√(n/d),
        ``gap_over_c`` = gap/c, ``gap_to_pls`` = ‖w_GD - w_PLS‖/‖w_PLS‖,
        ``pls_to_star`` = ‖w_PLS - w*‖/‖w*‖, ``strictly_inactive`` (fraction
        of the negative-label constraints with x_i·w* < 0), ``pls_violations``
        (fraction of negative labels with x_i·w_PLS > 0, where w_PLS is not a
        global minimiser), ``negatives_exactly_zero`` (every y_i < 0 ends
        with σ(x_i·w_T) == 0.0 exactly), ``positives_always_active`` (no
        y_i > 0 was ever inactive), ``positive_residual``, ``loss_excess``
        (L(w_T) - L_min), ``steps``, ``converged``, ``stabilisation_step``,
        ``orthogonal_stabilisation_step`` (:func:`orthogonal_stabilisation_step`
        for these labels) and ``reactivations``.
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    if d < n:
        raise ValueError(f"d must be at least n for linearly independent examples, got n={n}, d={d}")
    if data not in DATA:
        raise ValueError(f"data must be one of {DATA}, got {data!r}")
    c = positive_float("c", c)
    scale = positive_float("scale", scale)
    rng = as_generator(rng)

    y = rng.uniform(-1.0, 1.0, size=n)
    K = sample_gram(n, d, rng=rng) if data == "gaussian" else float(d) * np.eye(n)
    alpha0 = np.full(n, scale / d)  # w0 = scale · Xᵀ1/d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InactivePositiveWarning)
        res = gradient_descent_gram(K, y, alpha0, lr=lr_from_contraction(c, K=K), tol=tol,
                                    max_steps=max_steps, record_every=0)
    star = min_norm_solution_gram(K, y)
    pls = positive_subset_least_squares_gram(K, y)
    pos, neg = y > 0, y < 0
    zero = 1e-9 * np.abs(y).max()  # "strictly" negative/positive, above rounding of the dual solve
    gap = relative_gap_gram(K, res.coef, star.nu)
    return {
        "gap": gap,
        "gap_scaled": gap / float(np.sqrt(n / d)),
        "gap_over_c": gap / c,
        "gap_to_pls": relative_gap_gram(K, res.coef, pls.nu),
        "pls_to_star": relative_gap_gram(K, pls.nu, star.nu),
        "strictly_inactive": float(np.mean(star.beta[neg] < -zero)) if neg.any() else 0.0,
        "pls_violations": float(np.mean(pls.beta[neg] > zero)) if neg.any() else 0.0,
        "negatives_exactly_zero": bool(np.all(np.maximum(res.beta[neg], 0.0) == 0.0)),
        "positives_always_active": bool(np.all(res.beta[pos] > 0) and np.all(res.last_change[pos] == 0)
                                        and np.all(K[pos] @ alpha0 > 0)),
        "positive_residual": positive_residual(res, y),
        "loss_excess": res.loss - star.loss,
        "steps": res.steps,
        "converged": bool(res.converged),
        "stabilisation_step": stabilisation_step(res),
        "orthogonal_stabilisation_step": orthogonal_stabilisation_step(y, c, scale=scale),
        "reactivations": reactivation_count(res),
    }


def one_neuron_sweep(grid, *, trials=8, seed=0, n_jobs=-1, backend=None, cache=True, progress=True,
                     **fixed) -> np.ndarray:
    """Run :func:`one_neuron_trial` over a grid with :func:`ibcore.sweep.sweep`; return a tidy table.

    Parameters
    ----------
    grid : dict of sequences or list of dicts
        Values of ``n``, ``d`` and of any other keyword of ``one_neuron_trial``
        (``data``, ``c``, ``scale``, ``tol``, ``max_steps``).
    trials, seed, n_jobs, backend, cache, progress, **fixed
        As in :func:`theorem2_sweep`.

    Returns
    -------
    numpy.ndarray
        One row per (grid point, trial): the parameters, ``trial`` and the keys of
        ``one_neuron_trial``.

    Examples
    --------
    >>> table = one_neuron_sweep({"n": [20], "c": [0.1, 0.01]}, d=10**4, data="orthogonal")  # doctest: +SKIP
    >>> np.median(table["gap_over_c"][table["c"] == 0.01])                                  # doctest: +SKIP
    """
    return sweep_trial(one_neuron_trial, grid, fixed, desc="one neuron", trials=trials, seed=seed, n_jobs=n_jobs,
                     backend=backend, cache=cache, progress=progress)
