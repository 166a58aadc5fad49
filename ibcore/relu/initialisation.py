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
    "all_active_init_gram",
    "two_neuron_init",
    "two_neuron_init_gram",
    "disjoint_init",
    "disjoint_init_gram",
    "sign_aligned_assignment",
    "gaussian_init",
    "bad_init_weights",
]

#: The initialisations of :func:`~ibcore.relu.bad_init_weights` (chapter 7).
_BAD_INITS = ("all_active", "gaussian", "inactive_positive")


def _trace(sq_norms, trace):
    if trace is None:
        return float(np.mean(sq_norms))
    return positive_float("trace", trace)


def _stack(coef, m):
    return coef if m is None else np.tile(coef, (positive_int("m", m), 1))


def all_active_init(X, *, b0=1.0, m=None, trace=None) -> np.ndarray:
    r"""The all-active start :math:`w_0 = b_0 X^\top\mathbb 1/\mathrm{trace}`: every :math:`\beta_i(0) \approx b_0`.

    :math:`\beta_i(0) = b_0(\lVert x_i\rVert^2 + \sum_{k\ne i} x_i\cdot x_k)/\mathrm{trace}
    = b_0(1 \pm O(\sqrt{n/d}))` for isotropic data, so every example starts
    active when :math:`d \gg n`. With trace = d this is the book's
    :math:`w_0 = X^\top\mathbb 1/d` (chapters 1-3).

    Parameters
    ----------
    X : array of shape (n, d)
        Features.
    b0 : float
        The typical initial pre-activation :math:`b_0 > 0`.
    m : int, optional
        Number of identical neurons; ``None`` gives one neuron.
    trace : float, optional
        Normaliser, default :math:`\mathrm{mean}_i\lVert x_i\rVert^2`.
        Pass :math:`\lVert\lambda\rVert_1` (= d for isotropic data) to get
        exactly the book's :math:`w_0 = X^\top\mathbb 1/d`.

    Returns
    -------
    numpy.ndarray
        :math:`w_0`, shape (d,) or (m, d).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(5, 10**4, rng=0)
    >>> w0 = R.all_active_init(X)
    >>> print(np.round(X @ w0, 2))   # every beta_i(0) close to b0 = 1
    [0.98 0.95 1.01 1.   1.01]
    """
    X = finite_array("X", X, ndim=2)
    scale = _all_active_scale(np.einsum("ij,ij->i", X, X), b0, trace)
    return _stack(X.sum(axis=0) * scale, m)


def all_active_init_gram(K, *, b0=1.0, m=None, trace=None) -> np.ndarray:
    r"""The all-active start as coefficients: :math:`\alpha_0 = b_0\mathbb 1/\mathrm{trace}`, i.e. :math:`w_0 = X^\top\alpha_0`.

    The start of :func:`~ibcore.relu.all_active_init`, to pass to
    :func:`~ibcore.relu.gradient_descent_gram` as ``alpha0``.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`.
    b0, m, trace
        As in :func:`~ibcore.relu.all_active_init`; the default trace is
        :math:`\mathrm{mean}\,\mathrm{diag}\,K`.

    Returns
    -------
    numpy.ndarray
        :math:`\alpha_0`, shape (n,) or (m, n).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> K = R.sample_gram(5, 10**4, rng=0)
    >>> alpha0 = R.all_active_init_gram(K, trace=10**4)
    >>> print(np.round(K @ alpha0, 2))   # every beta_i(0) close to b0 = 1
    [0.99 1.   0.99 0.98 1.02]
    """
    sq_norms = np.diag(_validated_gram(K))
    return _stack(np.full(sq_norms.size, _all_active_scale(sq_norms, b0, trace)), m)


def _all_active_scale(sq_norms, b0, trace) -> float:
    """b0 / trace, validated: the coefficient of every example in the all-active start."""
    b0 = positive_float("b0", b0)
    return b0 / _trace(sq_norms, trace)


def two_neuron_init(X, *, b0=0.1, trace=None) -> np.ndarray:
    r"""The two-neuron start :math:`w_+(0) = w_-(0) = b_0X^\top\mathbb 1/\mathrm{trace}`.

    For the model :math:`f = \sigma(w_+\cdot x) - \sigma(w_-\cdot x)`.

    While both neurons are active on example i, :math:`\beta_+ + \beta_-` is
    conserved, so the wrong neuron reaches 0 and freezes only if
    :math:`b_0 < \lvert y_i\rvert/2`; too small a :math:`b_0` (below the
    :math:`\sqrt{n/d}` cross-talk) switches examples off on both neurons.
    Chapter 5 maps the window of :math:`b_0` at n = 20, d = 400..6400; the
    default 0.1 lies in it.

    Parameters
    ----------
    X : array of shape (n, d)
        Features.
    b0 : float
        The initial pre-activation of each neuron.
    trace : float, optional
        As in :func:`~ibcore.relu.all_active_init`.

    Returns
    -------
    numpy.ndarray
        Shape (2, d).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = np.eye(3)
    >>> print(R.two_neuron_init(X, b0=0.1, trace=3))
    [[0.03333333 0.03333333 0.03333333]
     [0.03333333 0.03333333 0.03333333]]
    """
    return all_active_init(X, b0=b0, m=2, trace=trace)


def two_neuron_init_gram(K, *, b0=0.1, trace=None) -> np.ndarray:
    r"""The two-neuron start of :func:`~ibcore.relu.two_neuron_init` as coefficients :math:`\alpha_0`, shape (2, n).

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`.
    b0, trace
        As in :func:`~ibcore.relu.two_neuron_init`.

    Returns
    -------
    numpy.ndarray
        Coefficients of shape (2, n), :math:`w_\pm(0) = X^\top\alpha_{0,\pm}`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.two_neuron_init_gram(np.eye(3), b0=0.1, trace=3))
    [[0.03333333 0.03333333 0.03333333]
     [0.03333333 0.03333333 0.03333333]]
    """
    return all_active_init_gram(K, b0=b0, m=2, trace=trace)


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


def disjoint_init(X, assignment, *, m=None, b0=1.0) -> np.ndarray:
    r"""Each neuron starts active on its own, chosen set of examples.

    Our reconstruction of the paper's "disjoint initialisation" (whose
    definition we could not read): with :math:`S_j = \{i : \text{assignment}_i = j\}`
    the sets are disjoint by construction, and :math:`w_j(0)` is the
    minimum-norm vector with pre-activations exactly :math:`\beta_{j,i}(0) = +b_0`
    on :math:`S_j` and :math:`-b_0` elsewhere, :math:`w_j(0) = X^\top K^{-1} b_j`.
    An example with assignment -1 starts inactive on every neuron.

    Parameters
    ----------
    X : array of shape (n, d)
        Features with linearly independent rows (:math:`d \ge n`).
    assignment : array of int, shape (n,)
        Neuron index in [0, m) of each example, or -1.
    m : int, optional
        Number of neurons, default ``max(assignment) + 1``.
    b0 : float
        :math:`\lvert\beta(0)\rvert`.

    Returns
    -------
    numpy.ndarray
        :math:`w(0)`, shape (m, d).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = np.eye(4)
    >>> print(R.disjoint_init(X, [0, 1, 0, -1], m=2, b0=0.5))
    [[ 0.5 -0.5  0.5 -0.5]
     [-0.5  0.5 -0.5 -0.5]]
    """
    X = finite_array("X", X, ndim=2)
    return _disjoint_coef(X @ X.T, assignment, m, b0) @ X


def disjoint_init_gram(K, assignment, *, m=None, b0=1.0) -> np.ndarray:
    r"""The disjoint start of :func:`~ibcore.relu.disjoint_init` as coefficients :math:`\alpha_{0,j} = K^{-1}b_j`.

    Parameters
    ----------
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top`, positive definite.
    assignment, m, b0
        As in :func:`~ibcore.relu.disjoint_init`.

    Returns
    -------
    numpy.ndarray
        :math:`\alpha_0`, shape (m, n), with :math:`w_j(0) = X^\top\alpha_{0,j}`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> print(R.disjoint_init_gram(4.0 * np.eye(4), [0, 1, 0, -1], m=2, b0=0.5))   # X = 2 I
    [[ 0.125 -0.125  0.125 -0.125]
     [-0.125  0.125 -0.125 -0.125]]
    """
    return _disjoint_coef(_validated_gram(K), assignment, m, b0)


def _disjoint_coef(K, assignment, m, b0) -> np.ndarray:
    """The coefficients K⁻¹b_j of the disjoint start, for a validated Gram matrix K."""
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


def sign_aligned_assignment(y, signs) -> np.ndarray:
    """Give each example to a neuron whose output sign matches its label, round robin.

    Example i with :math:`y_i > 0` goes to one of the neurons with :math:`s_j = +1`, one with
    :math:`y_i < 0` to a neuron with :math:`s_j = -1` (cycling through them in order of the
    examples); :math:`y_i = 0`, or a sign no neuron has, gives -1.  Feed the result to
    :func:`~ibcore.relu.disjoint_init`.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    signs : array of shape (m,)
        Output signs :math:`s_j`, e.g. :func:`~ibcore.relu.default_signs`.

    Returns
    -------
    numpy.ndarray of int, shape (n,)
        The neuron of each example, or -1.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.sign_aligned_assignment(np.array([1.0, -1.0, 0.5, 0.2]), R.default_signs(3))
    array([0, 1, 2, 0])
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
    r"""Random :math:`w_0` with i.i.d. :math:`N(0, \text{scale}^2/d)` entries.

    For isotropic features :math:`\beta_i(0) \approx N(0, \text{scale}^2)`, so about half of the
    examples start inactive (expect an :class:`~ibcore.relu.InactivePositiveWarning`).

    Parameters
    ----------
    d : int
        Dimension.
    m : int, optional
        Number of neurons; ``None`` gives one neuron.
    scale : float
        Standard deviation of the initial pre-activations.
    rng : None, int or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    numpy.ndarray
        :math:`w_0`, shape (d,) or (m, d).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> w0 = R.gaussian_init(10**4, m=2, rng=0)
    >>> w0.shape
    (2, 10000)
    >>> print(np.round(np.sum(w0 ** 2, axis=1), 2))   # |w_j|^2 close to scale^2 = 1
    [1.   0.99]
    """
    d = positive_int("d", d)
    scale = positive_float("scale", scale)
    rng = np.random.default_rng(rng)
    shape = (d,) if m is None else (positive_int("m", m), d)
    return rng.standard_normal(shape) * (scale / np.sqrt(d))


def bad_init_weights(init, X, y, *, b0=1.0, m=1, inactive=2, rng=None) -> np.ndarray:
    r"""Initial weights from a (possibly) bad initialisation (chapter 7).

    Parameters
    ----------
    init : {"all_active", "gaussian", "inactive_positive"}
        ``"all_active"``: :math:`w_0 = b_0X^\top\mathbb 1/d`, so :math:`\beta(0) \approx b_0` on every
        example (the control at :math:`b_0 = 1`, the tiny initialisation at :math:`b_0 = 10^{-3}`);
        ``"gaussian"``: i.i.d. :math:`N(0, b_0^2/d)` entries, so :math:`\beta_i(0) \approx N(0, b_0^2)`
        and about half of the examples start inactive; ``"inactive_positive"``
        (m = 1 only): the shortest :math:`w_0` with :math:`\beta(0) = +b_0`, except :math:`-b_0` on the
        first ``inactive`` positive-label examples.
    X : array of shape (n, d)
        Features.
    y : array of shape (n,)
        Labels.
    b0 : float
        The scale :math:`b_0` of the initial pre-activations.
    m : {1, 2}
        One neuron or the two-neuron model (identical neurons for ``"all_active"``).
    inactive : int
        Number of positive-label examples switched off by ``"inactive_positive"``
        (fewer if there are fewer positive labels).
    rng : None, int or numpy.random.Generator
        Used by ``"gaussian"`` only.

    Returns
    -------
    numpy.ndarray
        :math:`w_0`, shape (d,) for m = 1, (2, d) for m = 2.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = np.eye(4)
    >>> y = np.array([1.0, 0.5, 0.2, -1.0])
    >>> w0 = R.bad_init_weights("inactive_positive", X, y, inactive=1)
    >>> print(X @ w0)   # the first positive starts inactive
    [-1.  1.  1.  1.]
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
