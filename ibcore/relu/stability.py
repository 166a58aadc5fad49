r"""Step sizes: the stability bound, the per-example contraction c, and our default c.

GD on the shallow ReLU model is written with the step lr, but every chapter
thinks in the dimensionless *per-example contraction* c = lr‖x‖²/n: an example
that is active alone moves as β ← (1 - c)β + c y.  A finite c leaves an
overshoot of relative size ≈ c/√3 in the gap (chapter 1, orthogonal data), so
the √(n/‖λ‖₁) law is only visible while c ≪ √(n/‖λ‖₁).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..validation import finite_array, positive_float, positive_int
from .features import _as_spectrum
from .gram import _validated_gram

__all__ = ["lr_from_contraction", "lr_from_contraction_gram", "default_contraction"]


def _lambda_max(K) -> float:
    n = K.shape[0]
    return float(scipy.linalg.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0])


def _stability_bound(K, *, m=1, lam_max=None) -> float:
    r"""Largest stable step size, :math:`2n / (m\,\lambda_{\max}(K))`, for a validated Gram matrix K.

    On a fixed activation pattern the loss is the quadratic
    :math:`\frac1{2n}\lVert\sum_j s_j D_j X w_j - y\rVert^2`, whose Hessian in
    :math:`(w_1, \dots, w_m)` has largest eigenvalue at most :math:`m\,\lambda_{\max}(K)/n`
    (since :math:`\lambda_{\max}(DKD) \le \lambda_{\max}(K)`), with equality for the
    all-active pattern. GD on a quadratic is stable iff
    :math:`\eta < 2/\lambda_{\max}(\text{Hessian})`, so :math:`\eta < 2n/(m\,\lambda_{\max}(K))`
    is exactly the condition for GD to be stable on every activation pattern (the
    all-active one attains the bound), and for the identity activation.  The ReLU loss is not smooth across patterns,
    so this is a per-pattern condition, not a global convergence proof.
    In contraction units, :math:`c < 2\,\mathrm{mean}\lVert x\rVert^2/(m\,\lambda_{\max}(K)) \approx 2/m`
    for :math:`d \gg n`. ``lam_max`` is :math:`\lambda_{\max}(K)`, when the caller already has it.
    """
    m = positive_int("m", m)
    lam_max = _lambda_max(K) if lam_max is None else lam_max
    return 2.0 * K.shape[0] / (m * lam_max)


def _check_stability(lr, K, m, *, check=True, lam_max=None) -> float:
    """Return the stability bound 2n/(m λ_max(K)); raise ``ValueError`` if ``check`` and lr is at or above it.

    Parameters
    ----------
    lr : float
    K : array of shape (n, n)
        A validated Gram matrix.
    m : int
    check : bool
        ``False`` only computes the bound (to study the unstable regime).
    lam_max : float, optional
        λ_max(K), when the caller already has it.
    """
    bound = _stability_bound(K, m=m, lam_max=lam_max)
    if check and lr >= bound:
        raise ValueError(
            f"lr={lr:.6g} is at or above the stability bound 2n/(m*lambda_max(K)) = {bound:.6g}; "
            "use a smaller lr (see lr_from_contraction) or pass check_stability=False "
            "to study the unstable regime")
    return bound


def lr_from_contraction(c, X) -> float:
    r"""Step size with per-example contraction ``c``: :math:`\eta = cn/\mathrm{mean}_i\lVert x_i\rVert^2`.

    An example that is active alone then moves as :math:`\beta_i \leftarrow (1 - c)\beta_i + cy_i`.
    Finite c leaves an :math:`O(c)` overshoot in the gap (:math:`\approx c/\sqrt3` on orthogonal
    data, chapter 1), so the :math:`\sqrt{n/\lVert\lambda\rVert_1}` scaling is only visible while
    :math:`c \ll \sqrt{n/\lVert\lambda\rVert_1}`: see :func:`~ibcore.relu.default_contraction`.

    Parameters
    ----------
    c : float
        The contraction, :math:`c > 0` (dimensionless).
    X : array of shape (n, d)
        Features.

    Returns
    -------
    float
        The step size :math:`\eta` (``lr``).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = 2.0 * np.eye(4)   # |x_i|^2 = 4
    >>> R.lr_from_contraction(0.01, X)   # c n / mean |x_i|^2
    0.01
    """
    X = finite_array("X", X, ndim=2)
    return _lr_from_sq_norms(c, np.einsum("ij,ij->i", X, X))


def lr_from_contraction_gram(c, K) -> float:
    r""":func:`~ibcore.relu.lr_from_contraction` from the Gram matrix: :math:`\eta = cn/\mathrm{mean}_iK_{ii}`.

    Parameters
    ----------
    c : float
        The contraction, :math:`c > 0` (dimensionless).
    K : array of shape (n, n)
        The Gram matrix :math:`K = XX^\top` (:math:`K_{ii} = \lVert x_i\rVert^2`).

    Returns
    -------
    float
        The step size :math:`\eta` (``lr``).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.lr_from_contraction_gram(0.01, 4.0 * np.eye(4))   # c n / mean K_ii
    0.01
    """
    return _lr_from_sq_norms(c, np.diag(_validated_gram(K)))


def _lr_from_sq_norms(c, sq_norms) -> float:
    c = positive_float("c", c)
    mean_sq = float(sq_norms.mean())
    if mean_sq <= 0:
        raise ValueError("the features are all zero; lr_from_contraction needs mean ||x_i||^2 > 0")
    return c * sq_norms.size / mean_sq


def default_contraction(n, d, *, spectrum=None) -> float:
    r"""Our default step: :math:`c = \min(0.01, 0.2\sqrt{n/R_0})` to one significant digit.

    Here :math:`R_0 = \lVert\lambda\rVert_1^2/\lVert\lambda\rVert_2^2`. The overshoot floor
    :math:`c/\sqrt3` adds to the gap :math:`A\sqrt{n/R_0}` in quadrature (chapter 4), so with
    :math:`c \le 0.2\sqrt{n/R_0}` and :math:`A \approx 0.5` it moves the gap by at most about 3%.
    :math:`\sqrt{n/R_0} = \sqrt n\lVert\lambda\rVert_2/\lVert\lambda\rVert_1` is the cross-talk scale;
    it is invariant when λ is rescaled (as c is), equals :math:`\sqrt{n/d}` for isotropic data
    and is at most :math:`\sqrt{n/\lVert\lambda\rVert_1}` when :math:`\lVert\lambda\rVert_\infty = 1`.
    The number of GD steps grows like 1/c.  Rounding to one digit keeps the values readable
    in tables.

    Parameters
    ----------
    n : int
        Number of examples.
    d : int
        Dimension.
    spectrum : None, str, array or :class:`~ibcore.relu.Spectrum`
        The covariance spectrum λ, as for :func:`~ibcore.relu.sample_features`.

    Returns
    -------
    float
        The contraction c, to pass to :func:`~ibcore.relu.lr_from_contraction`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> R.default_contraction(20, 10**6)
    0.0009
    >>> R.default_contraction(100, 1000)
    0.01
    """
    n = positive_int("n", n)
    spec = _as_spectrum(spectrum, d)
    scale = np.sqrt(n / spec.R0)
    return float(f"{min(0.01, 0.2 * scale):.1g}")
