r"""Two neurons, many neurons and bad initialisations: the trials of Part I, chapters 4–6.

Everything here is *our reconstruction*: the paper's two-neuron and general-m
models, its "disjoint initialization" and its Appendix F experiments were not
available (science notes §2, §4 and the addendum).  The model is the one of
:mod:`ibcore.relu.gd`, f(x) = Σ_j s_j σ(w_j·x) with fixed signs s_j.

* Two neurons (chapter 4): f = σ(w₊·x) - σ(w₋·x) from w₊(0) = w₋(0) = b0 Xᵀ1/d,
  compared with the decoupled target (w*(y), w*(-y)).  On orthogonal data
  gradient flow is solvable in closed form (:func:`two_neuron_orthogonal_limit`):
  while both neurons are active on example i, β₊ + β₋ is conserved, so the
  wrong neuron switches off only if |y_i| > 2 b0.
* Many neurons (chapter 5): a sign-aligned disjoint initialisation
  (:func:`~ibcore.relu.initialisation.disjoint_coef`); while the pattern does
  not change, every neuron runs linear regression on its own subset
  (:func:`disjoint_linear_limit_gram`), and the comparison target is the
  per-neuron min-norm solution given the assignment (:func:`disjoint_targets_gram`).
* Bad initialisations (chapter 6): random, partly inactive and tiny
  initialisations, after which GD stops at non-global points.

The trials return dicts of scalars for :func:`ibcore.sweep.sweep`; each has a
thin ``*_sweep`` wrapper.  Trials silence :class:`~ibcore.relu.gd.InactivePositiveWarning`
and count the examples concerned instead.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..validation import as_generator, finite_array, positive_float, positive_int
from ..sweep import sweep_trial
from .features import sample_features
from .gd import InactivePositiveWarning, default_signs, gradient_descent, gradient_descent_gram, lr_from_contraction
from .gram import sample_gram, validated_gram
from .initialisation import (
    all_active_init,
    disjoint_coef,
    disjoint_init,
    gaussian_init,
    sign_aligned_assignment,
    two_neuron_coef,
)
from .metrics import reactivation_count, relative_gap, relative_gap_gram, stabilisation_step
from .min_norm import min_norm_pair, min_norm_pair_gram, min_norm_solution, min_norm_solution_gram

__all__ = [
    "FIT_TOL",
    "two_neuron_orthogonal_limit",
    "two_neuron_orthogonal_gap",
    "two_neuron_trial",
    "two_neuron_sweep",
    "disjoint_targets_gram",
    "disjoint_linear_limit_gram",
    "disjoint_trial",
    "disjoint_sweep",
    "bad_init_weights",
    "bad_init_trial",
    "bad_init_sweep",
]

#: An example counts as fitted when |f(x_i) - y_i| ≤ FIT_TOL.  GD stopped by
#: ``tol=1e-12`` leaves residuals ≈ tol·‖y‖/c ≈ 1e-10 (c = 0.01), so 1e-6 has
#: four orders of slack and is still far below any label of a failed example.
FIT_TOL = 1e-6

BAD_INITS = ("all_active", "gaussian", "inactive_positive")


# ---------------------------------------------------------------------------
# helpers shared by the trials


def _labels_and_gram(n, d, rng):
    """y ~ U[-1, 1]ⁿ, then K = X Xᵀ for isotropic X (drawn without X, any d)."""
    y = rng.uniform(-1.0, 1.0, size=n)
    return y, sample_gram(n, d, rng=rng)


def _norm_gram(K, coef) -> float:
    """‖Xᵀ coef‖_F for coefficients of shape (n,) or (m, n)."""
    coef = np.atleast_2d(coef)
    return float(np.sqrt(max(np.einsum("ji,ik,jk->", coef, K, coef), 0.0)))


def _quiet_gd(gd, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InactivePositiveWarning)
        return gd(*args, **kwargs)


def _needy(y, signs):
    """(fits, needy): fits[j, i] = neuron j can fit example i (s_j y_i > 0); needy = some neuron can."""
    fits = signs[:, None] * y[None, :] > 0
    return fits, fits.any(axis=0)


def _fit_summary(res, y, signs) -> dict:
    """Residual statistics over the examples that the network must fit (s_j y_i > 0 for some j)."""
    _, needy = _needy(y, signs)
    resid = np.abs(res.predictions - y)[needy]
    return {"max_residual": float(resid.max(initial=0.0)), "unfit": int(np.sum(resid > FIT_TOL))}


def _run_summary(res) -> dict:
    return {"steps": res.steps, "converged": bool(res.converged),
            "stabilisation_step": stabilisation_step(res), "reactivations": reactivation_count(res)}


_SWEEP_DOC = """
    Parameters
    ----------
    grid : dict of sequences or list of dicts
        Values of the trial's keywords (``n``, ``d``, ...).
    trials, seed, n_jobs, backend, cache, progress
        As in :func:`ibcore.sweep.sweep` (processes, Dask, on-disk cache).
    **fixed
        Keywords of the trial held constant; they become constant columns
        (``None`` values are left out).

    Returns
    -------
    numpy.ndarray
        Structured array, one row per (grid point, trial): the parameters,
        ``trial``, and the keys returned by the trial.
    """


def _sweep_doc(func):
    func.__doc__ = func.__doc__.rstrip() + "\n" + _SWEEP_DOC
    return func


# ---------------------------------------------------------------------------
# two neurons (chapter 4)


def two_neuron_orthogonal_limit(y, scale) -> np.ndarray:
    r"""Gradient-flow limit (β₊, β₋) of f = σ(β₊) - σ(β₋) on orthogonal data, from β₊ = β₋ = scale.

    With K = ‖x‖² I each example evolves alone.  While both neurons are active,
    GD moves β₊ by -c r and β₋ by +c r (r = β₊ - β₋ - y), so β₊ + β₋ = 2b
    is conserved and β₊ - β₋ → y.  Hence

    * y_i ≥ 2b: β₋ hits 0 first and freezes, β₊ → y_i: limit (y_i, 0);
    * y_i ≤ -2b: limit (0, -y_i);
    * |y_i| < 2b: both stay active, limit (b + y_i/2, b - y_i/2): no decoupling.

    Finite steps add an overshoot O(c|y_i|) where a neuron freezes.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    scale : float
        b, the common initial pre-activation.

    Returns
    -------
    numpy.ndarray, shape (2, n)
    """
    y = finite_array("y", y, ndim=1)
    b = positive_float("scale", scale)
    coupled = np.abs(y) < 2 * b
    plus = np.where(coupled, b + y / 2, np.maximum(y, 0.0))
    minus = np.where(coupled, b - y / 2, np.maximum(-y, 0.0))
    return np.stack([plus, minus])


def two_neuron_orthogonal_gap(y, scale) -> float:
    r"""Relative gap of :func:`two_neuron_orthogonal_limit` to the decoupled target (y₊, y₋).

    On orthogonal data with equal norms ‖w‖ ∝ ‖β‖, and the target
    (w*(y), w*(-y)) has β* = (max(y, 0), max(-y, 0)), so

        gap = √(2 Σ_{|y_i|<2b} (b - |y_i|/2)²) / ‖y‖.

    For y ~ U[-1, 1] and b ≤ 1/2 its mean square is 4b³: gap ≈ 2 b^{3/2},
    whatever d.  This is the part of the two-neuron gap that comes from the
    initialisation scale alone.
    """
    y = finite_array("y", y, ndim=1)
    if not np.any(y != 0):
        raise ValueError("y is all zero, so the relative gap is undefined")
    target = np.stack([np.maximum(y, 0.0), np.maximum(-y, 0.0)])
    return float(np.linalg.norm(two_neuron_orthogonal_limit(y, scale) - target) / np.linalg.norm(y))


def two_neuron_trial(n, d, *, scale=0.03, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    """One run of the two-neuron experiment (chapter 4): f = σ(w₊·x) - σ(w₋·x).

    Isotropic Gaussian data drawn as K = X Xᵀ (:func:`~ibcore.relu.gram.sample_gram`,
    cost independent of d), labels y ~ U[-1, 1], w₊(0) = w₋(0) = b0 Xᵀ1/d
    (:func:`~ibcore.relu.initialisation.two_neuron_coef`), lr = c n/mean‖x‖²,
    GD to convergence, compared with (w*(y), w*(-y)).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (d ≥ n).
    scale : float
        b0, the initial pre-activation of both neurons.
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
        ``orthogonal_gap`` (:func:`two_neuron_orthogonal_gap` for these labels:
        the part set by b0 alone), ``decoupled`` (fraction of examples whose
        wrong neuron, w₋ for y_i > 0 and w₊ for y_i < 0, ends inactive),
        ``predicted_decoupled`` (fraction with |y_i| > 2 b0), ``wrong_share``
        = Σ_i σ(β_wrong,i) / Σ_i |y_i| (the output carried by wrong neurons;
        0 when everything decouples), ``success``
        (converged with every example fitted to :data:`FIT_TOL`), ``unfit``,
        ``max_residual``, ``steps``, ``converged``, ``stabilisation_step``,
        ``reactivations``.
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    scale = positive_float("scale", scale)
    c = positive_float("c", c)
    rng = as_generator(rng)
    y, K = _labels_and_gram(n, d, rng)
    res = _quiet_gd(gradient_descent_gram, K, y, two_neuron_coef(K, scale=scale, trace=d),
                    lr=lr_from_contraction(c, K=K), tol=tol, max_steps=max_steps, record_every=0)
    gap = relative_gap_gram(K, res.coef, min_norm_pair_gram(K, y))
    wrong = np.where(y > 0, res.beta[1], res.beta[0])
    fit = _fit_summary(res, y, res.signs)
    return {
        "gap": gap,
        "gap_scaled": gap / np.sqrt(n / d),
        "orthogonal_gap": two_neuron_orthogonal_gap(y, scale),
        "decoupled": float(np.mean(wrong <= 0)),
        "predicted_decoupled": float(np.mean(np.abs(y) > 2 * scale)),
        "wrong_share": float(np.sum(np.maximum(wrong, 0.0)) / np.sum(np.abs(y))),
        "success": bool(res.converged and fit["unfit"] == 0),
        **fit,
        **_run_summary(res),
    }


@_sweep_doc
def two_neuron_sweep(grid, *, trials=4, seed=0, n_jobs=-1, backend=None, cache=True, progress=True,
                     **fixed) -> np.ndarray:
    """Run :func:`two_neuron_trial` over a grid (e.g. the init scale × d phase diagram).

    Examples
    --------
    >>> table = two_neuron_sweep({"scale": [0.1, 0.03], "d": [400, 1600]}, n=20)  # doctest: +SKIP
    """
    return sweep_trial(two_neuron_trial, grid, fixed, desc="two neurons", trials=trials, seed=seed,
                        n_jobs=n_jobs, backend=backend, cache=cache, progress=progress)


# ---------------------------------------------------------------------------
# many neurons with a disjoint initialisation (chapter 5)


def _own_sets(y, assignment, signs):
    y = finite_array("y", y, ndim=1)
    signs = finite_array("signs", signs, ndim=1)
    a = finite_array("assignment", assignment, shape=(y.size,)).astype(np.int64)
    if a.min() < -1 or a.max() >= signs.size:
        raise ValueError(f"assignment entries must lie in [-1, m-1] = [-1, {signs.size - 1}], "
                         f"got range [{a.min()}, {a.max()}]")
    own = a[None, :] == np.arange(signs.size)[:, None]
    if np.any(own & (signs[:, None] * y[None, :] <= 0)):
        raise ValueError("every assigned example needs s_j y_i > 0 on its neuron j "
                         "(use sign_aligned_assignment)")
    return y, signs, own


def disjoint_targets_gram(K, y, assignment, signs) -> np.ndarray:
    r"""Per-neuron min-norm targets given the assignment: dual coefficients (m, n), w*_j = Xᵀν_j.

    w*_j = argmin ‖w‖ s.t. x_i·w = s_j y_i for i ∈ S_j and x_i·w ≤ 0 for
    i ∉ S_j, the min-norm ReLU solution (:func:`~ibcore.relu.min_norm.min_norm_solution_gram`)
    with labels s_j y on S_j and 0 ("stay inactive") elsewhere.  Together they
    are the smallest network that fits y *with the pattern of the
    assignment*.  They are not the smallest network overall: splitting every
    label equally among the neurons of its sign divides the squared norm by
    about the number of such neurons (see :func:`disjoint_trial`).

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    assignment : array of int, shape (n,)
        Neuron of each example, or -1; every assigned example must satisfy
        s_j y_i > 0 (as :func:`~ibcore.relu.initialisation.sign_aligned_assignment` ensures).
    signs : array of shape (m,)
    """
    K = validated_gram(K)
    y, signs, own = _own_sets(y, assignment, signs)
    return np.stack([min_norm_solution_gram(K, np.where(own[j], signs[j] * y, 0.0)).nu
                     for j in range(signs.size)])


def disjoint_linear_limit_gram(K, y, assignment, signs, alpha0) -> tuple[np.ndarray, np.ndarray]:
    r"""Where GD goes if the disjoint pattern never changes: (limit, frozen) coefficients, each (m, n).

    If neuron j stays active exactly on S_j, it runs linear regression on S_j
    from w_j(0) = Xᵀα0_j (the prologue's theorem, on the rows of S_j), whose
    limit is w_j(0) + X_Sᵀ K_SS⁻¹ (s_j y_S - β_S(0)), i.e.

        w_j(∞) = (I - P_{S_j}) w_j(0)  +  X_Sᵀ K_SS⁻¹ s_j y_S.

    The first term, the part of the initialisation orthogonal to the rows of
    S_j, never moves (``frozen``); the second is the min-norm interpolator of
    the subset.  Both are returned as data-span coefficients (w = Xᵀ coef).

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    assignment : array of int, shape (n,)
    signs : array of shape (m,)
    alpha0 : array of shape (m, n)
        Initial coefficients, e.g. :func:`~ibcore.relu.initialisation.disjoint_coef`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``limit`` and ``frozen``.
    """
    K = validated_gram(K)
    y, signs, own = _own_sets(y, assignment, signs)
    alpha0 = finite_array("alpha0", alpha0, shape=(signs.size, y.size))
    beta0 = alpha0 @ K
    limit, frozen = alpha0.copy(), alpha0.copy()
    for j in range(signs.size):
        S = own[j]
        if S.any():
            K_SS = K[np.ix_(S, S)]
            frozen[j, S] -= np.linalg.solve(K_SS, beta0[j, S])  # remove P_S w_j(0)
            limit[j, S] += np.linalg.solve(K_SS, signs[j] * y[S] - beta0[j, S])
    return limit, frozen


def disjoint_trial(n, d, m, *, scale=0.3, c=0.01, tol=1e-12, max_steps=200_000, rng=None) -> dict:
    """One run of the many-neuron experiment (chapter 5) with a sign-aligned disjoint initialisation.

    Isotropic data (K drawn directly), y ~ U[-1, 1], signs (+1, -1, +1, ...),
    every example given to one neuron of its sign
    (:func:`~ibcore.relu.initialisation.sign_aligned_assignment`), and
    w_j(0) with pre-activations +scale on its own subset S_j and -scale
    elsewhere (:func:`~ibcore.relu.initialisation.disjoint_coef`).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension (d ≥ n).
    m : int
        Number of neurons (≥ 2, so that both label signs have a neuron).
    scale : float
        |β(0)|.
    c, tol, max_steps, rng
        As in :func:`two_neuron_trial`.

    Returns
    -------
    dict of scalars
        ``gap``: relative distance ‖W - W*‖_F/‖W*‖_F to the per-neuron targets
        (:func:`disjoint_targets_gram`); ``init_term`` = ‖frozen‖/‖W*‖ and
        ``relu_term`` = ‖W - frozen - W*‖/‖W*‖, the parts of the gap due to the
        never-moving part of the initialisation and to the rest
        (:func:`disjoint_linear_limit_gram`); ``gap_scaled`` and
        ``relu_scaled`` (divided by √(n/d)); ``linear_limit_error`` =
        ‖W - W_lin‖/‖W_lin‖ (≈ 1e-10 when the pattern never changed);
        ``pattern_kept`` (no neuron–example pair ever switched);
        ``foreign_active`` (pairs active at the end outside the assignment);
        ``symmetric_norm_ratio`` = ‖W*‖²/‖W_sym‖², with W_sym the network that
        splits w*(±y) equally among the neurons of each sign; ``success``,
        ``unfit``, ``max_residual`` and the run summary.
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    m = positive_int("m", m)
    if m < 2:
        raise ValueError(f"m must be at least 2 (one neuron per label sign), got {m}")
    scale = positive_float("scale", scale)
    c = positive_float("c", c)
    rng = as_generator(rng)
    y, K = _labels_and_gram(n, d, rng)
    signs = default_signs(m)
    assignment = sign_aligned_assignment(y, signs)
    alpha0 = disjoint_coef(K, assignment, m=m, scale=scale)
    res = _quiet_gd(gradient_descent_gram, K, y, alpha0, lr=lr_from_contraction(c, K=K), tol=tol,
                    max_steps=max_steps, record_every=0)
    target = disjoint_targets_gram(K, y, assignment, signs)
    limit, frozen = disjoint_linear_limit_gram(K, y, assignment, signs, alpha0)
    coef = res.coef
    norm_target = _norm_gram(K, target)
    own = assignment[None, :] == np.arange(m)[:, None]
    pair = min_norm_pair_gram(K, y)
    k_plus, k_minus = np.sum(signs > 0), np.sum(signs < 0)
    symmetric_sq = _norm_gram(K, pair[0]) ** 2 / k_plus + _norm_gram(K, pair[1]) ** 2 / k_minus
    gap = _norm_gram(K, coef - target) / norm_target
    relu_term = _norm_gram(K, coef - frozen - target) / norm_target
    fit = _fit_summary(res, y, signs)
    return {
        "gap": gap,
        "init_term": _norm_gram(K, frozen) / norm_target,
        "relu_term": relu_term,
        "gap_scaled": gap / np.sqrt(n / d),
        "relu_scaled": relu_term / np.sqrt(n / d),
        "linear_limit_error": _norm_gram(K, coef - limit) / _norm_gram(K, limit),
        "pattern_kept": bool(np.all(res.last_change == 0)),
        "foreign_active": int(np.sum((res.beta > 0) & ~own)),
        "symmetric_norm_ratio": norm_target ** 2 / symmetric_sq,
        "success": bool(res.converged and fit["unfit"] == 0),
        **fit,
        **_run_summary(res),
    }


@_sweep_doc
def disjoint_sweep(grid, *, trials=4, seed=0, n_jobs=-1, backend=None, cache=True, progress=True,
                   **fixed) -> np.ndarray:
    """Run :func:`disjoint_trial` over a grid (e.g. d × scale at fixed n and m).

    Examples
    --------
    >>> table = disjoint_sweep({"d": [400, 1600, 6400]}, n=40, m=4, scale=0.3)  # doctest: +SKIP
    """
    return sweep_trial(disjoint_trial, grid, fixed, desc="disjoint init", trials=trials, seed=seed,
                        n_jobs=n_jobs, backend=backend, cache=cache, progress=progress)


# ---------------------------------------------------------------------------
# bad initialisations (chapter 6)


def bad_init_weights(init, X, y, *, scale=1.0, m=1, inactive=2, rng=None) -> np.ndarray:
    """The initial weights of :func:`bad_init_trial`: shape (d,) for m = 1, (m, d) for m = 2.

    Parameters
    ----------
    init : {"all_active", "gaussian", "inactive_positive"}
        ``"all_active"``: w0 = scale·Xᵀ1/d, so β(0) ≈ scale on every example
        (the control at scale 1, the tiny initialisation at scale 1e-3);
        ``"gaussian"``: i.i.d. N(0, scale²/d) entries, so β_i(0) ≈ N(0, scale²)
        and about half of the examples start inactive; ``"inactive_positive"``
        (m = 1 only): the shortest w0 with β(0) = +scale, except -scale on the
        first ``inactive`` positive-label examples.
    X : array of shape (n, d)
    y : array of shape (n,)
    scale : float
    m : {1, 2}
        One neuron or the two-neuron model (identical neurons for ``"all_active"``).
    inactive : int
        Number of positive-label examples switched off by ``"inactive_positive"``
        (fewer if there are fewer positive labels).
    rng : None, int or numpy.random.Generator
        Used by ``"gaussian"`` only.
    """
    X = finite_array("X", X, ndim=2)
    n, d = X.shape
    y = finite_array("y", y, shape=(n,))
    scale = positive_float("scale", scale)
    m = positive_int("m", m)
    inactive = positive_int("inactive", inactive)
    if m not in (1, 2):
        raise ValueError(f"m must be 1 or 2, got {m}")
    if init not in BAD_INITS:
        raise ValueError(f"init must be one of {BAD_INITS}, got {init!r}")
    neurons = None if m == 1 else m
    if init == "all_active":
        return all_active_init(X, scale=scale, m=neurons, trace=d)
    if init == "gaussian":
        return gaussian_init(d, m=neurons, scale=scale, rng=rng)
    if m != 1:
        raise ValueError(f"init='inactive_positive' is defined for one neuron (m=1), got m={m}")
    assignment = np.zeros(n)
    assignment[np.flatnonzero(y > 0)[:inactive]] = -1
    return disjoint_init(X, assignment, m=1, scale=scale)[0]


def bad_init_trial(n, d, *, init="gaussian", scale=1.0, m=1, inactive=2, c=0.01, tol=1e-12,
                   max_steps=200_000, rng=None) -> dict:
    """One run from a (possibly) bad initialisation (chapter 6; analogue of the paper's Appendix F).

    Isotropic features X (drawn explicitly: a random w0 has a part outside
    span(X), which GD keeps), y ~ U[-1, 1], one neuron (m = 1) or the
    two-neuron model (m = 2), lr = c n/mean‖x‖², GD to convergence.

    Parameters
    ----------
    n, d : int
    init, scale, m, inactive
        The initialisation, as in :func:`bad_init_weights`; m = 2 is the model
        f = σ(w₊·x) - σ(w₋·x).
    c, tol, max_steps, rng
        As in :func:`two_neuron_trial`.

    Returns
    -------
    dict of scalars
        ``loss_excess`` = L(w_T) - L_min (L_min = (1/2n)Σ_{y_i<0} y_i² for one
        neuron, 0 for two), ``max_residual`` and ``unfit`` over the examples
        that the network must fit (y_i > 0 for one neuron, y_i ≠ 0 for two),
        ``inactive_at_init`` (such examples inactive at t = 0 on every neuron
        of their sign), ``never_active`` (such examples whose dual coefficients
        on the neurons of their sign are still exactly 0: they never moved),
        ``stuck_loss`` = (1/2n) Σ y_i² over the never-active ones (a lower bound
        on ``loss_excess``), ``max_unfit_label`` (largest |y_i| among the unfit,
        0 if none), ``gap`` (relative, to w* or (w*(y), w*(-y))), ``success``,
        and the run summary.
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    c = positive_float("c", c)
    if init not in BAD_INITS:  # fail before drawing the data (bad_init_weights checks the rest)
        raise ValueError(f"init must be one of {BAD_INITS}, got {init!r}")
    rng = as_generator(rng)
    y = rng.uniform(-1.0, 1.0, size=n)
    X = sample_features(n, d, rng=rng)
    w0 = bad_init_weights(init, X, y, scale=scale, m=m, inactive=inactive, rng=rng)
    res = _quiet_gd(gradient_descent, X, y, w0, lr=lr_from_contraction(c, X), tol=tol, max_steps=max_steps,
                    record_every=0)
    signs = res.signs
    fits, needy = _needy(y, signs)
    beta0 = np.atleast_2d(w0) @ X.T
    alpha = np.atleast_2d(res.alpha)
    never = needy & ~(fits & (alpha != 0)).any(axis=0)
    if m == 1:
        star = min_norm_solution(X, y)
        target, loss_min = star.w, star.loss
    else:
        target, loss_min = min_norm_pair(X, y), 0.0
    fit = _fit_summary(res, y, signs)
    unfit_labels = np.abs(y)[needy & (np.abs(res.predictions - y) > FIT_TOL)]
    return {
        "loss_excess": res.loss - loss_min,
        **fit,
        "inactive_at_init": int(np.sum(needy & ~(fits & (beta0 > 0)).any(axis=0))),
        "never_active": int(np.sum(never)),
        "stuck_loss": float(np.sum(y[never] ** 2) / (2 * n)),
        "max_unfit_label": float(unfit_labels.max(initial=0.0)),
        "gap": relative_gap(res.w, target),
        "success": bool(res.converged and fit["unfit"] == 0),
        **_run_summary(res),
    }


@_sweep_doc
def bad_init_sweep(grid, *, trials=4, seed=0, n_jobs=-1, backend=None, cache=True, progress=True,
                   **fixed) -> np.ndarray:
    """Run :func:`bad_init_trial` over a grid (e.g. initialisation × scale × d).

    Examples
    --------
    >>> table = bad_init_sweep([{"init": "gaussian", "scale": 1.0},
    ...                         {"init": "all_active", "scale": 1e-3}], n=20, d=1600)  # doctest: +SKIP
    """
    return sweep_trial(bad_init_trial, grid, fixed, desc="bad init", trials=trials, seed=seed,
                        n_jobs=n_jobs, backend=backend, cache=cache, progress=progress)
