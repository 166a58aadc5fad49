r"""Random high-dimensional features :math:`x_i = \Sigma^{1/2} z_i` and their covariance spectra λ.

The data model [our reconstruction; Part I, chapter "The gap", statement box]: rows
:math:`x_i = \Sigma^{1/2} z_i`, i.i.d., with :math:`z_i \sim \mathcal N(0, I_d)`.  Everything GD does
depends on X only through the Gram matrix :math:`K = XX^\top`, whose law is invariant under
rotations of feature space, so we take :math:`\Sigma = \mathrm{diag}(\lambda)` without loss of
generality. The scale that matters is the trace
:math:`\lVert\lambda\rVert_1 = \mathrm{tr}\,\Sigma = \mathbb E\lVert x\rVert^2`.

A :class:`~ibcore.relu.Spectrum` describes λ without necessarily storing d numbers, so
that :math:`d = 10^8` costs nothing until features are actually drawn.
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from ..validation import finite_array, orthonormal_columns, positive_float, positive_int

__all__ = ["Spectrum", "sample_features", "sample_labels", "orthogonal_features"]

#: Eigenvalues (and Gaussian coordinates) are generated and consumed in chunks of
#: this many coordinates, so that memory stays O(n · _CHUNK) whatever d is.
_CHUNK = 65_536


class Spectrum:
    r"""Covariance eigenvalues :math:`\lambda_1, \dots, \lambda_d` of the features.

    Build one with :meth:`isotropic`, :meth:`spiked`, :meth:`power_law`,
    :meth:`from_array` or :meth:`named`; do not call the constructor directly.

    Piecewise-constant spectra (isotropic, spiked, and arrays with repeated
    values) are stored as *blocks* (value, multiplicity), which is what lets
    :func:`~ibcore.relu.sample_gram` draw K exactly in O(n²) per block.
    The power law is generated on the fly, chunk by chunk.

    Attributes
    ----------
    d : int
        Dimension.
    name : str
        ``"isotropic"``, ``"spiked"``, ``"power_law"`` or ``"array"``.

    Examples
    --------
    >>> from ibcore.relu import Spectrum
    >>> s = Spectrum.spiked(400)   # one spike of size sqrt(d) = 20
    >>> s.d, s.name, s.trace, s.max
    (400, 'spiked', 419.0, 20.0)
    """

    def __init__(self, d, name, *, values=None, counts=None, array=None, exponent=None):
        self.d = int(d)
        self.name = name
        self._values = values      # block values (piecewise-constant spectra)
        self._counts = counts      # block multiplicities, summing to d
        self._array = array        # explicit λ, in coordinate order
        self._exponent = exponent  # power law λ_k = k^(-exponent)

    # ---- constructors -------------------------------------------------
    @classmethod
    def isotropic(cls, d, scale=1.0) -> "Spectrum":
        r""":math:`\lambda_k` = ``scale`` for every k: :math:`\Sigma = \text{scale}\cdot I_d`, :math:`\lVert\lambda\rVert_1 = \text{scale}\cdot d`."""
        d = positive_int("d", d)
        scale = positive_float("scale", scale)
        return cls(d, "isotropic", values=np.array([scale]), counts=np.array([d]))

    @classmethod
    def spiked(cls, d, spikes=None, bulk=1.0) -> "Spectrum":
        """A bulk of value ``bulk`` plus a few large eigenvalues ``spikes``.

        Coordinates 0, ..., k-1 carry the spikes, the remaining d - k the bulk.
        The default is one spike of size √d, which doubles ‖λ‖₂² relative to
        the isotropic case while keeping the effective rank ‖λ‖₁/‖λ‖∞ ≈ √d large.
        """
        d = positive_int("d", d)
        bulk = positive_float("bulk", bulk)
        spikes = np.array([np.sqrt(d)]) if spikes is None else finite_array("spikes", spikes, ndim=1)
        if np.any(spikes <= 0):
            raise ValueError(f"spikes must be positive, got {spikes!r}")
        if spikes.size >= d:
            raise ValueError(f"spikes must have fewer than d={d} entries, got {spikes.size}")
        values = np.concatenate([spikes, [bulk]])
        counts = np.concatenate([np.ones(spikes.size, dtype=np.int64), [d - spikes.size]])
        return cls(d, "spiked", values=values, counts=counts)

    @classmethod
    def power_law(cls, d, exponent=0.5) -> "Spectrum":
        r""":math:`\lambda_k = k^{-\text{exponent}}`, k = 1..d (:math:`\lambda_1 = 1`).

        With the default exponent 0.5, ‖λ‖₁ ≈ 2√d, so the effective rank
        ‖λ‖₁/‖λ‖∞ still grows with d (the high-dimensional regime).
        """
        d = positive_int("d", d)
        exponent = float(exponent)
        if not np.isfinite(exponent) or exponent < 0:
            raise ValueError(f"exponent must be a non-negative finite number, got {exponent!r}")
        return cls(d, "power_law", exponent=exponent)

    @classmethod
    def from_array(cls, lam) -> "Spectrum":
        """An explicit array of d non-negative eigenvalues (not all zero)."""
        lam = finite_array("spectrum", lam, ndim=1)
        if np.any(lam < 0):
            raise ValueError(f"spectrum must be non-negative, got min {lam.min()!r}")
        if not np.any(lam > 0):
            raise ValueError("spectrum must have at least one positive eigenvalue, got all zeros")
        values, counts = np.unique(lam, return_counts=True)
        return cls(lam.size, "array", values=values, counts=counts, array=lam)

    @classmethod
    def named(cls, name, d, param=None) -> "Spectrum":
        """A profile by name: ``"isotropic"`` (param = scale), ``"spiked"``
        (param = size of the single spike), ``"power_law"`` (param = exponent)."""
        if name == "isotropic":
            return cls.isotropic(d) if param is None else cls.isotropic(d, param)
        if name == "spiked":
            return cls.spiked(d) if param is None else cls.spiked(d, [param])
        if name in ("power_law", "powerlaw"):
            return cls.power_law(d) if param is None else cls.power_law(d, param)
        raise ValueError(
            f"spectrum must be 'isotropic', 'spiked', 'power_law', an array or a Spectrum, got {name!r}")

    # ---- eigenvalues ----------------------------------------------------
    def values(self, start=0, stop=None) -> np.ndarray:
        """The eigenvalues :math:`\\lambda_k` for coordinates k in [start, stop) (0-based), as an array."""
        stop = self.d if stop is None else min(stop, self.d)
        if self._array is not None:
            return self._array[start:stop]
        if self._exponent is not None:
            return np.arange(start + 1, stop + 1, dtype=float) ** (-self._exponent)
        edges = np.concatenate([[0], np.cumsum(self._counts)])
        block = np.searchsorted(edges, np.arange(start, stop), side="right") - 1
        return self._values[block]

    def chunks(self, size=_CHUNK):
        """Yield λ in consecutive chunks of at most ``size`` coordinates."""
        for start in range(0, self.d, size):
            yield self.values(start, start + size)

    def blocks(self):
        """(values, multiplicities) of a piecewise-constant spectrum, else ``None``."""
        if self._values is None:
            return None
        return self._values, self._counts

    def _moment(self, p):
        """Σ_k λ_k^p."""
        if self._exponent is not None:
            return _power_sum(p * self._exponent, self.d)
        values, counts = self.blocks()
        return np.dot(values ** p, counts)

    @functools.cached_property
    def trace(self) -> float:
        r""":math:`\lVert\lambda\rVert_1 = \operatorname{tr}\Sigma = E\lVert x\rVert^2`."""
        return float(self._moment(1))

    @functools.cached_property
    def norm2(self) -> float:
        r""":math:`\lVert\lambda\rVert_2 = \lVert\Sigma\rVert_F`, the scale of the cross-terms :math:`x_i\cdot x_j`."""
        return float(np.sqrt(self._moment(2)))

    @functools.cached_property
    def max(self) -> float:
        r""":math:`\lVert\lambda\rVert_\infty = \lVert\Sigma\rVert_{op}`."""
        if self.blocks() is not None:
            return float(self._values.max())
        return 1.0  # power law: λ_1 = 1

    @property
    def r0(self) -> float:
        r"""Effective rank :math:`r_0 = \lVert\lambda\rVert_1/\lVert\lambda\rVert_\infty`.

        It is the value of :math:`\lVert\lambda\rVert_1` under the normalisation :math:`\lVert\lambda\rVert_\infty = 1`.

        With :math:`R_0` (:attr:`R0`) one of the two effective ranks of Bartlett et al.
        (2020); :math:`R_0 \ge r_0` since
        :math:`\lVert\lambda\rVert_2^2 \le \lVert\lambda\rVert_\infty\lVert\lambda\rVert_1`.
        Both are invariant when λ is rescaled.
        """
        return self.trace / self.max

    @property
    def R0(self) -> float:
        r"""Effective rank :math:`R_0 = \lVert\lambda\rVert_1^2/\lVert\lambda\rVert_2^2`.

        The cross-talk scale of the one-neuron gap is :math:`\sqrt{n/R_0}`.
        """
        return self.trace ** 2 / self.norm2 ** 2

    def __repr__(self) -> str:
        return f"Spectrum(name={self.name!r}, d={self.d}, trace={self.trace:.6g})"


def _power_sum(s, d, direct=100_000):
    """Σ_{k=1}^d k^(-s), exactly for d ≤ ``direct`` and by Euler–Maclaurin beyond.

    Σ_{k=M}^d f(k) = ∫_M^d f + (f(M) + f(d))/2 + Σ_j B_2j/(2j)! (f^(2j-1)(d) - f^(2j-1)(M)) + R
    with f(x) = x^(-s), M = 1000 and three Bernoulli terms; R ~ M^(-s-7) is below rounding.
    """
    if d <= direct:
        return float(np.sum(np.arange(1, d + 1, dtype=float) ** -s))
    M = 1000
    head = float(np.sum(np.arange(1, M, dtype=float) ** -s))
    integral = np.log(d / M) if s == 1 else (d ** (1 - s) - M ** (1 - s)) / (1 - s)
    tail = integral + (M ** -s + d ** -s) / 2
    bernoulli = (1 / 6, -1 / 30, 1 / 42)
    poch = 1.0  # s (s+1) ... (s+2j-2): f^(2j-1)(x) = -poch · x^(-s-2j+1)
    for j, b in enumerate(bernoulli, start=1):
        poch = s if j == 1 else poch * (s + 2 * j - 3) * (s + 2 * j - 2)
        order = 2 * j - 1
        tail += b / np.prod(np.arange(1, 2 * j + 1)) * (-poch) * (d ** (-s - order) - M ** (-s - order))
    return head + tail


def _as_spectrum(spectrum, d) -> Spectrum:
    """Turn ``None``, a profile name, an array or a :class:`~ibcore.relu.Spectrum` into a Spectrum of dimension d."""
    d = positive_int("d", d)
    if spectrum is None:
        return Spectrum.isotropic(d)
    if isinstance(spectrum, Spectrum):
        if spectrum.d != d:
            raise ValueError(f"spectrum has dimension {spectrum.d}, expected d={d}")
        return spectrum
    if isinstance(spectrum, str):
        return Spectrum.named(spectrum, d)
    if isinstance(spectrum, numbers.Number):
        raise ValueError(f"spectrum must be a name, an array of length d={d} or a Spectrum, got {spectrum!r}")
    spec = Spectrum.from_array(spectrum)
    if spec.d != d:
        raise ValueError(f"spectrum must have length d={d}, got length {spec.d}")
    return spec


def sample_features(n, d, *, spectrum=None, rng=None) -> np.ndarray:
    r"""Draw features :math:`X \in \mathbb R^{n\times d}` with rows :math:`x_i = \Sigma^{1/2}z_i`.

    Here :math:`z_i \sim N(0, I_d)` and :math:`\Sigma = \operatorname{diag}(\lambda)`.

    Parameters
    ----------
    n, d : int
        Number of examples and feature dimension.
    spectrum : None, str, array of shape (d,), or :class:`~ibcore.relu.Spectrum`
        Covariance eigenvalues λ. ``None`` or ``"isotropic"`` gives :math:`\Sigma = I_d`;
        ``"power_law"`` and ``"spiked"`` use the defaults of :class:`~ibcore.relu.Spectrum`.
    rng : None, int or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    numpy.ndarray, shape (n, d)
        The features X, one example per row.

    Notes
    -----
    Memory is n·d floats; for :math:`d \gg 10^5` sample the Gram matrix directly with
    :func:`~ibcore.relu.sample_gram`.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.sample_features(5, 400, rng=0)
    >>> X.shape
    (5, 400)
    >>> print(np.round(np.mean(X ** 2), 1))   # isotropic: E x_ij^2 = 1
    1.0
    """
    n = positive_int("n", n)
    spec = _as_spectrum(spectrum, d)
    rng = np.random.default_rng(rng)
    X = rng.standard_normal((n, spec.d))
    if not (spec.name == "isotropic" and spec.blocks()[0][0] == 1.0):
        start = 0
        for lam in spec.chunks():
            X[:, start:start + lam.size] *= np.sqrt(lam)
            start += lam.size
    return X


def _validated_sizes(n, d) -> tuple[int, int]:
    """(n, d) checked to be positive integers with d ≥ n, so that n random rows are linearly independent."""
    n, d = positive_int("n", n), positive_int("d", d)
    if d < n:
        raise ValueError(f"d must be at least n for linearly independent examples, got n={n}, d={d}")
    return n, d


def sample_labels(n, *, rng=None) -> np.ndarray:
    """Labels :math:`y_i \\sim U[-1, 1]`, i.i.d. (our reconstruction of the label model, chapter 3).

    Both signs occur, as the ReLU setting needs: the positive labels are fitted,
    the negative ones must be switched off.  Every trial of Part I draws its
    labels with this function *first*, then the data, so that a chapter can
    reproduce a trial by hand from the same generator.

    Parameters
    ----------
    n : int
        Number of examples.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> y = R.sample_labels(6, rng=0)
    >>> y.shape, bool(np.all(np.abs(y) <= 1))
    ((6,), True)
    """
    n = positive_int("n", n)
    return np.random.default_rng(rng).uniform(-1.0, 1.0, size=n)


def orthogonal_features(n, d, *, rng=None) -> np.ndarray:
    r"""Exactly orthogonal rows of squared norm d: :math:`X = \sqrt d\,Q^\top`, Q Haar on the Stiefel manifold.

    This is the control of Boursier et al. (2022): :math:`K = XX^\top = dI_n` (up to
    rounding), so every example evolves independently under GD.

    Parameters
    ----------
    n, d : int
        Number of examples and dimension, :math:`n \le d`.
    rng : None, int or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    numpy.ndarray, shape (n, d)
        The features X.

    Examples
    --------
    >>> import numpy as np
    >>> import ibcore.relu as R
    >>> X = R.orthogonal_features(3, 50, rng=0)
    >>> np.allclose(X @ X.T, 50 * np.eye(3))
    True
    """
    n = positive_int("n", n)
    d = positive_int("d", d)
    if n > d:
        raise ValueError(f"orthogonal_features needs n <= d, got n={n}, d={d}")
    return np.sqrt(d) * orthonormal_columns(d, n, rng).T
