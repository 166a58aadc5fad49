"""Rotational symmetry, the zero-loss manifold, the conserved frame and the implicit bias.

* :math:`\\hat y` depends on W only through :math:`W^TW`, so :math:`W\\to OW`,
  :math:`O\\in O(p)`, leaves the network unchanged: a continuous symmetry for
  p > 1 [V]. For :math:`p\\ge p^*` and :math:`T = I` the zero-loss set is the
  manifold :math:`W = \\sqrt{p/p^*}\\,S\\,W^*` with :math:`S^TS = I_{p^*}`, i.e.
  :math:`R = \\sqrt{p/p^*}S`, :math:`Q = RR^T` in overlaps [D].
* The polar factor :math:`S = R(R^TR)^{-1/2}` of R is **exactly conserved** by
  the ODEs when :math:`T\\propto I` and :math:`Q(0)` is isotropic (e.g.
  :math:`q_0 I`), with or without the γ² term [D]. The dynamics therefore ends
  at :math:`R_\\infty = \\sqrt{p/p^*}\\,S(0)`, which is the orthogonal-Procrustes
  point of the manifold closest to :math:`R(0)`, and also the closest
  zero-loss weights to :math:`W_0` [D]. The abstract's "selects the closest
  solution to the random initialization" [V] is read as this statement; the
  paper's exact notion of "closest" is unknown [I].
* S is not the Noether charge of the rotations: the symmetry holds for every
  teacher and start, but S is conserved only because :math:`T\\propto I` and an
  isotropic :math:`Q(0)` make an invariant set of the ODEs [D].
* The selection is therefore a statement about the ODE limit. At finite N,
  SGD scrambles S on the plateau when the start is random
  (:math:`R(0)\\sim N^{-1/2}` is as small as the SGD noise), by an amount that
  does not shrink with N; after the escape S is conserved up to
  :math:`O(N^{-1/2})`, so SGD ends near the Procrustes point of its frame at
  the escape, not of :math:`R(0)` [D, measured over N].
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array
from .order_parameters import _validated_weights

__all__ = [
    "conserved_frame",
    "frame_drift",
    "closest_zero_loss_solution",
    "closest_zero_loss_weights",
    "ZeroLossPoint",
]


def conserved_frame(R):
    """Polar factor :math:`S = R\\,(R^TR)^{-1/2}` of the student-teacher overlap.

    Computed as :math:`S = UV^T` from the thin SVD :math:`R = U\\Sigma V^T`.

    Parameters
    ----------
    R : array_like, shape (p, p_star) or (n_t, p, p_star)
        Needs :math:`p \\ge p^*` and full column rank: its smallest singular value above
        :math:`10^{-14}` times its largest.

    Returns
    -------
    ndarray, same shape as R, with :math:`S^TS = I_{p^*}`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> R = np.array([[2.0, 0.0], [0.0, 0.5], [0.0, 0.0]])
    >>> print(q.conserved_frame(R))
    [[1. 0.]
     [0. 1.]
     [0. 0.]]
    """
    R = finite_array("R", R, ndim=(2, 3))
    p, p_star = R.shape[-2:]
    if p < p_star:
        raise ValueError(f"R must have p >= p_star rows (a frame needs p >= p*), got shape {R.shape}")
    U, s, Vt = np.linalg.svd(R, full_matrices=False)
    if np.any(s[..., -1] <= 1e-14 * np.maximum(s[..., 0], 1e-300)):
        raise ValueError("R must have full column rank: its polar factor is not unique")
    return U @ Vt


def frame_drift(R, reference=None):
    """Frobenius distance :math:`\\|S(t) - S_{ref}\\|_F` along a trajectory of R.

    Parameters
    ----------
    R : array_like, shape (n_t, p, p_star)
        Student-teacher overlaps along a run (e.g. ``run.R``), :math:`p \\ge p^*`.
    reference : array_like, shape (p, p_star), optional
        Reference frame; by default the frame of ``R[0]``.

    Returns
    -------
    ndarray, shape (n_t,)
        :math:`\\|S(R_t) - S_{ref}\\|_F`, one value per record (dimensionless).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> R = np.array([[[1.0], [0.0]], [[2.0], [0.0]], [[1.0], [1.0]]])   # three times, p = 2, p* = 1
    >>> print(np.round(q.frame_drift(R), 4))
    [0.     0.     0.7654]
    """
    S = conserved_frame(finite_array("R", R, ndim=3))
    S_ref = S[0] if reference is None else finite_array("reference", reference, shape=S.shape[1:])
    return np.linalg.norm(S - S_ref, axis=(1, 2))


@result
class ZeroLossPoint:
    """Overlaps of a point of the zero-loss manifold.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> point = q.closest_zero_loss_solution(np.array([[0.1, 0.0], [0.0, 0.2], [0.0, 0.0]]))
    >>> point.Q.shape, point.R.shape
    ((3, 3), (3, 2))
    """

    Q: np.ndarray
    """:math:`Q_\\infty = R_\\infty R_\\infty^T`, shape (p, p)."""
    R: np.ndarray
    """:math:`R_\\infty = \\sqrt{p/p^*}\\,S`, shape (p, p_star)."""


def closest_zero_loss_solution(R0):
    """Zero-loss overlaps closest to :math:`R_0` (orthonormal teacher, :math:`T = I`).

    .. math::

        R_\\infty = \\sqrt{p/p^*}\\,S(R_0) = \\mathop{\\arg\\min}_{R^TR = (p/p^*)I}\\|R - R_0\\|_F,
        \\qquad Q_\\infty = R_\\infty R_\\infty^T.

    This is where the ODE from an isotropic start ends (conserved frame).

    Parameters
    ----------
    R0 : array_like, shape (p, p_star)
        Initial student-teacher overlap, :math:`p \\ge p^*`, of full column rank.

    Returns
    -------
    :class:`~ibcore.quadratic.ZeroLossPoint`
        ``Q`` (p, p) and ``R`` (p, p_star); unpacks as ``Q_inf, R_inf``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> R0 = np.array([[0.1, 0.0], [0.0, 0.2], [0.0, 0.0]])
    >>> sol = q.closest_zero_loss_solution(R0)
    >>> print(np.round(sol.R, 6))
    [[1.224745 0.      ]
     [0.       1.224745]
     [0.       0.      ]]
    """
    R0 = finite_array("R0", R0, ndim=2)
    p, p_star = R0.shape
    R_inf = np.sqrt(p / p_star) * conserved_frame(R0)
    return ZeroLossPoint(R_inf @ R_inf.T, R_inf)


def closest_zero_loss_weights(W0, W_star):
    """Zero-loss weights closest to :math:`W_0` in Frobenius norm.

    The zero-loss set is :math:`\\{W = \\sqrt{p/p^*}\\,S W^*: S^TS = I\\}` (for any
    full-rank teacher), and on it
    :math:`\\|W - W_0\\|_F^2 = \\text{const} - 2N\\sqrt{p/p^*}\\,\\mathrm{Tr}(S R_0^T)`,
    maximised by :math:`S = S(R_0)`, :math:`R_0 = W_0W^{*T}/N`.

    Parameters
    ----------
    W0 : array_like, shape (p, N)
        Student weights (O(1) entries), :math:`p \\ge p^*`.
    W_star : array_like, shape (p_star, N)
        Teacher weights, of full row rank.

    Returns
    -------
    ndarray, shape (p, N)
        :math:`\\sqrt{p/p^*}\\,S(R_0)\\,W^*`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W0, W_star = q.random_init(3, 2, 200, rng=0)
    >>> W = q.closest_zero_loss_weights(W0, W_star)
    >>> abs(q.population_risk(*q.overlaps(W, W_star))) < 1e-12
    True
    """
    W0, W_star = _validated_weights(W0, W_star, name="W0")
    p, N = W0.shape
    p_star = W_star.shape[0]
    S = conserved_frame(W0 @ W_star.T / N)
    return np.sqrt(p / p_star) * S @ W_star
