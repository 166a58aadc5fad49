"""Gradient and Hessian of the population risk with respect to the weights [D].

Work in normalised weights :math:`U = W/\\sqrt N` (rows of norm O(1)), where
:math:`\\hat y - y = x^T\\mathcal M x` with
:math:`\\mathcal M = U^TU/p - U^{*T}U^*/p^*` and
:math:`\\epsilon_g = \\tfrac12(\\mathrm{Tr}\\mathcal M)^2 + \\|\\mathcal M\\|_F^2`.
Expanding to second order in a perturbation E (notes §11.5):

.. math::

    \\nabla_U\\epsilon_g &= \\frac2p\\tau U + \\frac4p U\\mathcal M
                         = \\frac2p\\tau U + \\frac4p\\Big(\\frac{QU}{p} - \\frac{RU^*}{p^*}\\Big),\\\\
    E\\cdot H_U E &= \\frac2p\\tau\\|E\\|^2 + \\frac4p\\mathrm{Tr}(E\\mathcal ME^T)
                  + \\frac4{p^2}\\langle U, E\\rangle^2 + \\frac2{p^2}\\|U^TE + E^TU\\|_F^2,

with :math:`\\tau = \\mathrm{Tr}\\mathcal M`. The Hessian is a :math:`pN\\times pN`
matrix indexed by the row-major flattening of the p × N weights
(entry ``i * N + n`` is :math:`U_{in}`). Eigenvalues w.r.t. U are O(1) (those
of the table, :func:`~ibcore.quadratic.hessian_spectrum_table`); w.r.t. the raw W they are
divided by N (``wrt="W"``). Multiply the U-eigenvalues by p for linear rates
in :math:`t'`, by γ for rates in α. A loss without the ½ doubles them.
"""
from __future__ import annotations


import numpy as np

from .._result import result
from ..validation import finite_array, orthonormal_columns, positive_int
from .initialisation import StudentTeacher, random_frame
from .order_parameters import overlaps, population_risk, _validated_sizes, _validated_weights
from .symmetry import conserved_frame

__all__ = [
    "population_hessian",
    "group_spectrum",
    "critical_point",
    "hessian_spectrum_table",
    "teacher_directions",
    "zero_mode_directions",
    "GroupedSpectrum",
    "ZeroModes",
]

#: Largest p·N for which the dense Hessian is built (a 8000² matrix is 512 MB).
_MAX_HESSIAN_SIZE = 8000


def _scale(wrt, N):
    if wrt == "U":
        return 1.0
    if wrt == "W":
        return 1.0 / N
    raise ValueError(f"wrt must be 'U' (normalised weights W/sqrt(N)) or 'W', got {wrt!r}")


def population_hessian(W, W_star, *, wrt="U"):
    """Analytic Hessian of the population risk, shape (pN, pN).

    .. math::

        H_U = \\frac2p\\tau\\,I_{pN} + \\frac4p\\,I_p\\otimes\\mathcal M
              + \\frac4{p^2}\\,u u^T + \\frac4{p^2}\\big(UU^T\\otimes I_N + K\\big),

    where :math:`u` is the flattened U and
    :math:`K_{(i,n),(j,m)} = U_{im}U_{jn}` (from :math:`\\mathrm{Tr}(U^TEU^TE)`).

    Parameters
    ----------
    W, W_star : array_like, shapes (p, N) and (p_star, N)
        Raw weights; the point at which the Hessian is taken.
    wrt : {"U", "W"}
        With respect to :math:`U = W/\\sqrt N` (default; O(1) eigenvalues, the
        table's units) or the raw W (divided by N).

    Returns
    -------
    ndarray, shape (p*N, p*N), symmetric, row-major flattening of the weights.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.critical_point("zero_loss", 2, 2, 6, rng=0)
    >>> H = q.population_hessian(W, W_star)
    >>> H.shape, bool(np.allclose(H, H.T))
    ((12, 12), True)
    """
    W, W_star = _validated_weights(W, W_star)
    p, N = W.shape
    p_star = W_star.shape[0]
    scale = _scale(wrt, N)
    if p * N > _MAX_HESSIAN_SIZE:
        raise ValueError(f"W has p*N = {p * N} entries, too many for a dense Hessian (limit {_MAX_HESSIAN_SIZE})")
    U, U_star = W / np.sqrt(N), W_star / np.sqrt(N)
    M = U.T @ U / p - U_star.T @ U_star / p_star
    tau = np.trace(M)
    u = U.ravel()
    H = (4.0 / p) * np.kron(np.eye(p), M)
    H += (4.0 / p**2) * np.kron(U @ U.T, np.eye(N))
    H += (4.0 / p**2) * np.einsum("im,jn->injm", U, U).reshape(p * N, p * N)
    H += (4.0 / p**2) * np.outer(u, u)
    H[np.diag_indices_from(H)] += (2.0 / p) * tau
    H = 0.5 * (H + H.T)
    return H * scale


@result
class GroupedSpectrum:
    """Distinct eigenvalues and their multiplicities.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> values, multiplicities = q.group_spectrum(np.array([0.0, 1.0, 1.0]))
    >>> print(values, multiplicities)
    [0. 1.] [1 2]
    """

    values: np.ndarray
    """Increasing distinct eigenvalues."""
    multiplicities: np.ndarray
    """How many times each occurs (ints)."""


def group_spectrum(eigvals, *, tol=1e-6):
    """Group eigenvalues into distinct values with multiplicities.

    Sorted eigenvalues are split wherever two neighbours differ by more than
    ``tol``; each group is reported by its mean.

    Parameters
    ----------
    eigvals : array_like, shape (n,)
        Eigenvalues, e.g. of :func:`~ibcore.quadratic.population_hessian`, in any order.
    tol : float
        Absolute gap that separates two groups.

    Returns
    -------
    :class:`~ibcore.quadratic.GroupedSpectrum`
        ``values`` (increasing distinct eigenvalues) and ``multiplicities``
        (ints); unpacks as ``values, multiplicities``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> q.group_spectrum(np.array([0.0, 1e-9, 1.0, 1.0, 2.5]))
    GroupedSpectrum(values=array([5.0e-10, 1.0e+00, 2.5e+00]), multiplicities=array([2, 2, 1]))
    """
    ev = np.sort(finite_array("eigvals", eigvals, ndim=1))
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    cuts = np.flatnonzero(np.diff(ev) > tol) + 1
    groups = np.split(ev, cuts)
    return GroupedSpectrum(np.array([g.mean() for g in groups]), np.array([g.size for g in groups]))


_KINDS = ("zero", "plateau", "zero_loss")


def _validated_point(kind, p, p_star, N):
    """Checks shared by the reference points and their analytic table."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    p, p_star, N = _validated_sizes(p, p_star, N)
    if N < p + p_star:
        raise ValueError(f"N must be at least p + p_star = {p + p_star}, got {N!r}")
    return p, p_star, N


def critical_point(kind, p, p_star, N, *, rng=None):
    """Weights at one of the three reference points of the landscape (orthonormal teacher).

    Parameters
    ----------
    kind : {"zero", "plateau", "zero_loss"}
        ``"zero"``: :math:`W = 0` (local maximum). ``"plateau"``: student rows
        orthogonal to each other and to the teacher span with
        :math:`Q = \\frac p{p+2}I`, :math:`R = 0` (the gradient-flow plateau, a
        saddle; needs :math:`N\\ge p+p^*`). ``"zero_loss"``:
        :math:`W = \\sqrt{p/p^*}\\,SW^*` with a random frame S (marginal minimum;
        needs :math:`p\\ge p^*`).
    p, p_star, N : int
        Student width, teacher width, input dimension (:math:`N \\ge p + p^*`).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    :class:`~ibcore.quadratic.StudentTeacher`
        ``W`` (p, N) and ``W_star`` (p_star, N), with :math:`W^*W^{*T}/N = I`
        exactly; unpacks as ``W, W_star``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.critical_point("plateau", 3, 2, 10, rng=0)
    >>> Q, R, T = q.overlaps(W, W_star)
    >>> print(np.round(np.diag(Q), 4), np.abs(R).max() < 1e-12)   # Q = p/(p+2) I, R = 0
    [0.6 0.6 0.6] True
    """
    p, p_star, N = _validated_point(kind, p, p_star, N)
    rng = np.random.default_rng(rng)
    basis = np.sqrt(N) * orthonormal_columns(N, p + p_star, rng).T
    W_star = basis[:p_star]
    if kind == "zero":
        W = np.zeros((p, N))
    elif kind == "plateau":
        W = np.sqrt(p / (p + 2.0)) * basis[p_star:]
    else:
        if p < p_star:
            raise ValueError(f"p must be >= p_star = {p_star} on the zero-loss manifold, got p = {p}")
        W = np.sqrt(p / p_star) * random_frame(p, p_star, rng=rng) @ W_star
    return StudentTeacher(W, W_star)


def hessian_spectrum_table(kind, p, p_star, N, *, wrt="U"):
    """Analytic Hessian spectrum at the three reference points (notes §6, :math:`T = I`, :math:`N\\ge p+p^*`).

    (a) ``"zero"`` (local maximum, :math:`\\epsilon_g = \\frac12 + \\frac1{p^*}`):
    :math:`-\\frac2p(1+\\frac2{p^*})` × :math:`pp^*`; :math:`-\\frac2p` × :math:`p(N-p^*)`.

    (b) ``"plateau"`` (saddle): :math:`-\\frac4{pp^*}` × :math:`pp^*` (escape directions);
    0 × :math:`p(N-p-p^*) + \\frac{p(p-1)}2`;
    :math:`\\frac8{p(p+2)}` × :math:`\\frac{p(p+1)}2 - 1`; :math:`\\frac4p` × 1.

    (c) ``"zero_loss"`` (marginal minimum, :math:`p\\ge p^*`):
    0 × :math:`(p-p^*)N + \\frac{p^*(p^*-1)}2`; :math:`\\frac4{pp^*}` × :math:`p^*(N-p^*)`;
    :math:`\\frac8{pp^*}` × :math:`\\frac{p^*(p^*+1)}2 - 1`; :math:`\\frac{4(p^*+2)}{pp^*}` × 1.

    The eigenvalues are w.r.t. :math:`U = W/\\sqrt N`; multiply by p for linear rates in
    :math:`t'` (module docstring).

    Parameters
    ----------
    kind : {"zero", "plateau", "zero_loss"}
        The reference point, as for :func:`~ibcore.quadratic.critical_point`.
    p, p_star, N : int
        Student width, teacher width, input dimension (:math:`N \\ge p + p^*`;
        :math:`p \\ge p^*` for ``"zero_loss"``).
    wrt : {"U", "W"}
        Eigenvalues with respect to :math:`U = W/\\sqrt N` (default, O(1)) or the raw W
        (divided by N), as for :func:`~ibcore.quadratic.population_hessian`.

    Returns
    -------
    :class:`~ibcore.quadratic.GroupedSpectrum`
        ``values``, increasing distinct eigenvalues (w.r.t. U, or W if
        ``wrt="W"``), and ``multiplicities``, summing to pN (entries of
        multiplicity 0 are dropped).

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> q.hessian_spectrum_table("zero_loss", 2, 2, 6)
    GroupedSpectrum(values=array([0., 1., 2., 4.]), multiplicities=array([1, 8, 2, 1]))
    """
    p, ps, N = _validated_point(kind, p, p_star, N)
    scale = _scale(wrt, N)
    if kind == "zero":
        rows = [(-2.0 / p * (1 + 2.0 / ps), p * ps), (-2.0 / p, p * (N - ps))]
    elif kind == "plateau":
        rows = [(-4.0 / (p * ps), p * ps), (0.0, p * (N - p - ps) + p * (p - 1) // 2),
                (8.0 / (p * (p + 2)), p * (p + 1) // 2 - 1), (4.0 / p, 1)]
    else:
        if p < ps:
            raise ValueError(f"p must be >= p_star = {ps} on the zero-loss manifold, got p = {p}")
        rows = [(0.0, (p - ps) * N + ps * (ps - 1) // 2), (4.0 / (p * ps), ps * (N - ps)),
                (8.0 / (p * ps), ps * (ps + 1) // 2 - 1), (4.0 * (ps + 2) / (p * ps), 1)]
    # the rows of each kind are distinct eigenvalues for every p, p* >= 1 (never merged)
    rows = sorted((v * scale, m) for v, m in rows if m > 0)
    return GroupedSpectrum(np.array([v for v, _ in rows]), np.array([m for _, m in rows], dtype=int))


def _orthonormal_rows(A, rank_tol=1e-10):
    """Orthonormal basis (as rows) of the row space of A, dropping directions below ``rank_tol``."""
    _, s, Vt = np.linalg.svd(A, full_matrices=False)
    keep = s > rank_tol * max(1.0, s[0] if s.size else 0.0)
    return Vt[keep]


def _teacher_complement(W_star):
    """Orthonormal bases of the teacher span (rows, p* × N) and of its complement ((N - p*) × N)."""
    _, _, Vt = np.linalg.svd(W_star, full_matrices=True)
    k = int(np.linalg.matrix_rank(W_star))
    return Vt[:k], Vt[k:]


def teacher_directions(p, W_star):
    """Perturbations of the student whose rows lie in the teacher span.

    The directions :math:`E = e_i\\,v_k^T` (student row i, unit vector
    :math:`v_k` of the teacher span), :math:`pp^*` of them. At the plateau
    (:math:`R = 0`, :math:`Q = \\bar QI`) they are the Hessian eigenvectors of
    eigenvalue :math:`-4/(pp^*)`, i.e. the **escape directions**; at zero
    weights those of :math:`-\\frac2p(1+\\frac2{p^*})` [D].

    Parameters
    ----------
    p : int
        Student width.
    W_star : array_like, shape (p_star, N)
        Teacher weights (full row rank).

    Returns
    -------
    ndarray, shape (p * p_star, p * N)
        Orthonormal rows, in the row-major flattening of
        :func:`~ibcore.quadratic.population_hessian`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.critical_point("zero_loss", 2, 2, 6, rng=0)
    >>> V = q.teacher_directions(2, W_star)
    >>> V.shape
    (4, 12)
    """
    p = positive_int("p", p)
    W_star = finite_array("W_star", W_star, ndim=2)
    span, _ = _teacher_complement(W_star)
    if span.shape[0] < W_star.shape[0]:
        raise ValueError("W_star must have full row rank")
    return np.kron(np.eye(p), span)


@result
class ZeroModes:
    """The flat directions of the Hessian on the zero-loss manifold (:func:`~ibcore.quadratic.zero_mode_directions`).

    Examples
    --------
    >>> import ibcore.quadratic as q
    >>> modes = q.zero_mode_directions(*q.critical_point("zero_loss", 3, 2, 8, rng=0))
    >>> modes.tangent.shape, modes.marginal.shape
    ((3, 24), (6, 24))
    """

    tangent: np.ndarray
    """Rotations along the manifold, shape (p p* - p*(p*+1)/2, p N)."""
    marginal: np.ndarray
    """Quartic directions out of it, shape ((p - p*)(N - p*), p N)."""


def zero_mode_directions(W, W_star):
    """The two kinds of flat directions of the Hessian on the zero-loss manifold.

    At :math:`W = \\sqrt{p/p^*}\\,SW^*` (:math:`S^TS = I`, :math:`T = I`) the
    Hessian null space splits into [D]

    * ``tangent``: :math:`E = \\Omega W` with Ω antisymmetric (p × p), the
      tangent space of the manifold, i.e. of the orbit of the rotational
      symmetry :math:`W\\to OW`; dimension :math:`pp^* - p^*(p^*+1)/2`. The loss
      is exactly zero along the orbit :math:`e^{t\\Omega}W`.
    * ``marginal``: :math:`E = S_\\perp C` with :math:`S_\\perp` the
      :math:`p - p^*` directions of :math:`\\mathbb R^p` orthogonal to S and the
      rows of C orthogonal to the teacher span; dimension
      :math:`(p-p^*)(N-p^*)`. These leave the manifold, but the loss grows
      only quartically along them: for a unit rank-one E,
      :math:`\\epsilon_g(U + tE) = \\frac{3}{2p^2}t^4` exactly (in normalised
      weights :math:`U = W/\\sqrt N`). Absent when :math:`p = p^*`.

    Parameters
    ----------
    W : array_like, shape (p, N)
        A point of the zero-loss manifold (e.g. :func:`~ibcore.quadratic.critical_point` with
        ``"zero_loss"``); checked to have zero risk.
    W_star : array_like, shape (p_star, N)
        Orthonormal teacher (:math:`W^*W^{*T}/N = I`).

    Returns
    -------
    :class:`~ibcore.quadratic.ZeroModes`
        ``tangent`` (p p* - p*(p*+1)/2, p N) and ``marginal``
        ((p - p*)(N - p*), p N): orthonormal rows (row-major flattening of
        :func:`~ibcore.quadratic.population_hessian`), mutually orthogonal; unpacks as
        ``tangent, marginal``.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.quadratic as q
    >>> W, W_star = q.critical_point("zero_loss", 3, 2, 8, rng=0)
    >>> modes = q.zero_mode_directions(W, W_star)
    >>> [m.shape for m in modes]
    [(3, 24), (6, 24)]
    """
    W, W_star = _validated_weights(W, W_star)
    p, N = W.shape
    p_star = W_star.shape[0]
    if p < p_star:
        raise ValueError(f"W must have p >= p_star = {p_star} rows on the zero-loss manifold, got p = {p}")
    Q, R, T = overlaps(W, W_star)
    if not np.allclose(T, np.eye(p_star), atol=1e-10):
        raise ValueError("W_star must be an orthonormal teacher (W_star W_star^T / N = I)")
    if abs(population_risk(Q, R, T)) > 1e-10:
        raise ValueError("W must lie on the zero-loss manifold (population risk 0)")
    rotations = []
    for a in range(p):
        for b in range(a + 1, p):
            Omega = np.zeros((p, p))
            Omega[a, b], Omega[b, a] = 1.0, -1.0
            rotations.append((Omega @ W).ravel())
    tangent = _orthonormal_rows(np.array(rotations)) if rotations else np.zeros((0, p * N))
    S = conserved_frame(R)
    U_full, _, _ = np.linalg.svd(S, full_matrices=True)
    S_perp = U_full[:, p_star:]
    _, complement = _teacher_complement(W_star)
    marginal = np.einsum("ij,mn->jmin", S_perp, complement).reshape(-1, p * N)
    return ZeroModes(tangent, marginal)
