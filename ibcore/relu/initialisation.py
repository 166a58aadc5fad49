"""Initialisations the chapters need, in weight space (w0) and in the dual (α0, w0 = Xᵀα0).

The paper's initialisation conditions were not available. What we know
(Part I, chapters 2, 4 and 6) is: "all examples initially active"
[unverified summary], a scale that matters (pre-activations ≈ 1 works for one
neuron, ≈ 1e-3 stalls), and for two neurons a window of scales small against
the labels but large against the √(n/d) cross-talk.  Every helper below is
therefore *our* construction, named for what it does.
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_float, positive_int
from .gram import _validated_gram

__all__ = [
    "all_active_init",
    "all_active_coef",
    "two_neuron_init",
    "two_neuron_coef",
    "disjoint_init",
    "disjoint_coef",
    "sign_aligned_assignment",
    "gaussian_init",
    "bad_init_weights",
]

#: The initialisations of :func:`~ibcore.relu.bad_init_weights` (chapter 6).
_BAD_INITS = ("all_active", "gaussian", "inactive_positive")


def _trace(sq_norms, trace):
    if trace is None:
        return float(np.mean(sq_norms))
    return positive_float("trace", trace)


def _stack(coef, m):
    return coef if m is None else np.tile(coef, (positive_int("m", m), 1))


def all_active_coef(K, *, b0=1.0, m=None, trace=None) -> np.ndarray:
    """Dual coefficients α0 = b0 · 1 / trace of :func:`~ibcore.relu.all_active_init`.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix (only its diagonal is used, for the default ``trace``).
    b0 : float
        Target initial pre-activation.
    m : int, optional
        Number of (identical) neurons; ``None`` gives one neuron, shape (n,).
    trace : float, optional
        Normaliser, default mean_i ‖x_i‖² = mean diag K. Pass ‖λ‖₁ (= d for
        isotropic data) to get exactly the book's w0 = Xᵀ1/d.
    """
    K = _validated_gram(K)
    b0 = positive_float("b0", b0)
    return _stack(np.full(K.shape[0], b0 / _trace(np.diag(K), trace)), m)


def all_active_init(X, *, b0=1.0, m=None, trace=None) -> np.ndarray:
    """w0 = b0 · Xᵀ1 / trace, whose pre-activations are β_i(0) ≈ b0 for every i.

    β_i(0) = b0 · (‖x_i‖² + Σ_{k≠i} x_i·x_k)/trace = b0 · (1 ± O(√(n/d)))
    for isotropic data, so every example starts active when d ≫ n.  With
    trace = d this is the book's w0 = Xᵀ1/d (chapters 1-3).

    Parameters
    ----------
    X : array of shape (n, d)
    b0 : float
        The typical initial pre-activation.
    m : int, optional
        Number of identical neurons; ``None`` gives shape (d,), else (m, d).
    trace : float, optional
        Default mean_i ‖x_i‖².
    """
    X = finite_array("X", X, ndim=2)
    b0 = positive_float("b0", b0)
    t = _trace(np.einsum("ij,ij->i", X, X), trace)
    return _stack(X.sum(axis=0) * (b0 / t), m)


def two_neuron_init(X, *, b0=0.1, trace=None) -> np.ndarray:
    """w₊(0) = w₋(0) = b0 Xᵀ1/trace, shape (2, d), for f = σ(w₊·x) - σ(w₋·x).

    While both neurons are active on example i, β₊ + β₋ is conserved, so
    the wrong neuron reaches 0 and freezes only if b0 < ∣y_i∣/2; too small a
    b0 (below the √(n/d) cross-talk) switches examples off on both neurons.
    Chapter 4 maps the window of b0 at n = 20, d = 400..6400; the default 0.1
    lies in it.
    """
    return all_active_init(X, b0=b0, m=2, trace=trace)


def two_neuron_coef(K, *, b0=0.1, trace=None) -> np.ndarray:
    """Dual coefficients (2, n) of :func:`~ibcore.relu.two_neuron_init`."""
    return all_active_coef(K, b0=b0, m=2, trace=trace)


def _assignment(assignment, n, m):
    a = finite_array("assignment", assignment, shape=(n,))
    if not np.all(a == np.round(a)):
        raise ValueError(f"assignment must hold integer neuron indices, got {assignment!r}")
    a = a.astype(np.int64)
    m = int(a.max()) + 1 if m is None else positive_int("m", m)
    if a.min() < -1 or a.max() >= m:
        raise ValueError(f"assignment entries must lie in [-1, m-1] = [-1, {m - 1}], "
                         f"got range [{a.min()}, {a.max()}]")
    if m < 1:
        raise ValueError("assignment assigns no example to any neuron; give m explicitly")
    return a, m


def disjoint_coef(K, assignment, *, m=None, b0=1.0) -> np.ndarray:
    """Dual coefficients (m, n) of :func:`~ibcore.relu.disjoint_init`: α0_j = K⁻¹ b_j."""
    K = _validated_gram(K)
    n = K.shape[0]
    a, m = _assignment(assignment, n, m)
    b0 = positive_float("b0", b0)
    targets = np.where(a[None, :] == np.arange(m)[:, None], b0, -b0)  # b_j
    try:
        cho = np.linalg.cholesky(K)
    except np.linalg.LinAlgError as exc:
        raise ValueError("disjoint initialisation needs a positive definite K "
                         "(linearly independent examples, d >= n)") from exc
    z = np.linalg.solve(cho, targets.T)
    return np.linalg.solve(cho.T, z).T


def disjoint_init(X, assignment, *, m=None, b0=1.0) -> np.ndarray:
    """Each neuron starts active on its own, chosen set of examples, shape (m, d).

    Our reconstruction of the paper's "disjoint initialisation" (whose
    definition we could not read): with S_j = {i : assignment[i] = j} the sets
    are disjoint by construction, and w_j(0) is the minimum-norm vector with
    pre-activations exactly β_{j,i}(0) = +b0 on S_j and -b0 elsewhere,
    w_j(0) = Xᵀ K⁻¹ b_j.  An example with assignment -1 starts inactive on
    every neuron.

    Parameters
    ----------
    X : array of shape (n, d)
        Features with linearly independent rows (d ≥ n).
    assignment : array of int, shape (n,)
        Neuron index in [0, m) of each example, or -1.
    m : int, optional
        Number of neurons, default ``max(assignment) + 1``.
    b0 : float
        ∣β(0)∣.
    """
    X = finite_array("X", X, ndim=2)
    return disjoint_coef(X @ X.T, assignment, m=m, b0=b0) @ X


def sign_aligned_assignment(y, signs) -> np.ndarray:
    """Give each example to a neuron whose output sign matches its label, round robin.

    Example i with y_i > 0 goes to one of the neurons with s_j = +1, one with
    y_i < 0 to a neuron with s_j = -1 (cycling through them in order of the
    examples); y_i = 0, or a sign no neuron has, gives -1.  Feed the result to
    :func:`~ibcore.relu.disjoint_init`.
    """
    y = finite_array("y", y, ndim=1)
    signs = finite_array("signs", signs, ndim=1)
    out = np.full(y.size, -1, dtype=np.int64)
    for sign in (1.0, -1.0):
        neurons = np.flatnonzero(signs == sign)
        examples = np.flatnonzero(np.sign(y) == sign)
        if neurons.size:
            out[examples] = neurons[np.arange(examples.size) % neurons.size]
    return out


def gaussian_init(d, *, m=None, scale=1.0, rng=None) -> np.ndarray:
    """Random w0 with i.i.d. N(0, scale²/d) entries: shape (d,) or (m, d).

    For isotropic features β_i(0) ≈ N(0, scale²), so about half of the
    examples start inactive (expect an ``InactivePositiveWarning``).
    """
    d = positive_int("d", d)
    scale = positive_float("scale", scale)
    rng = np.random.default_rng(rng)
    shape = (d,) if m is None else (positive_int("m", m), d)
    return rng.standard_normal(shape) * (scale / np.sqrt(d))


def _tiny_init(X, *, b0=1e-3, m=None, trace=None) -> np.ndarray:
    """:func:`~ibcore.relu.all_active_init` at b0 = 1e-3 (the tiny start of chapter 6).

    The cross-terms of size √(n/d) switch off some positive-label examples in
    the first steps, and GD then stalls at a non-global stationary point.
    """
    return all_active_init(X, b0=b0, m=m, trace=trace)


def bad_init_weights(init, X, y, *, b0=1.0, m=1, inactive=2, rng=None) -> np.ndarray:
    """Initial weights from a (possibly) bad initialisation: shape (d,) for m = 1, (2, d) for m = 2.

    Parameters
    ----------
    init : {"all_active", "gaussian", "inactive_positive"}
        ``"all_active"``: w0 = b0·Xᵀ1/d, so β(0) ≈ b0 on every example
        (the control at b0 = 1, the tiny initialisation at b0 = 1e-3);
        ``"gaussian"``: i.i.d. N(0, b0²/d) entries, so β_i(0) ≈ N(0, b0²)
        and about half of the examples start inactive; ``"inactive_positive"``
        (m = 1 only): the shortest w0 with β(0) = +b0, except -b0 on the
        first ``inactive`` positive-label examples.
    X : array of shape (n, d)
    y : array of shape (n,)
    b0 : float
        The scale of the initial pre-activations.
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
    b0 = positive_float("b0", b0)
    m = positive_int("m", m)
    inactive = positive_int("inactive", inactive)
    if m not in (1, 2):
        raise ValueError(f"m must be 1 or 2, got {m}")
    if init not in _BAD_INITS:
        raise ValueError(f"init must be one of {_BAD_INITS}, got {init!r}")
    neurons = None if m == 1 else m
    if init == "all_active":
        return all_active_init(X, b0=b0, m=neurons, trace=d)
    if init == "gaussian":
        return gaussian_init(d, m=neurons, scale=b0, rng=rng)
    if m != 1:
        raise ValueError(f"init='inactive_positive' is defined for one neuron (m=1), got m={m}")
    assignment = np.zeros(n)
    assignment[np.flatnonzero(y > 0)[:inactive]] = -1
    return disjoint_init(X, assignment, m=1, b0=b0)[0]
