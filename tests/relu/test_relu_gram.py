"""sample_gram draws K with the law of X Xᵀ from sample_features, at any d.

Moments of K = Σ_k λ_k z^{(k)} z^{(k)ᵀ} (Gaussian z): a diagonal entry has mean ‖λ‖₁
and variance 2‖λ‖₂²; an off-diagonal entry has mean 0 and variance ‖λ‖₂².  The
variances of the sample variances follow from the fourth moments:
diag μ₄ - σ⁴ = 48‖λ‖₄⁴ + 8‖λ‖₂⁴, off-diagonal μ₄ - σ⁴ = 6‖λ‖₄⁴ + 2‖λ‖₂⁴.
We use K_ii (independent across i) and disjoint pairs K_{2k,2k+1} (independent),
so that every standard error below is exact.
"""
import numpy as np
import pytest
from scipy.stats import ks_2samp

import ibcore.experiments.relu as E
import ibcore.relu as R

N_EX, DRAWS, Z = 8, 1500, 5.0  # 5 standard errors: a broken sampler fails, a correct one does not

SPECTRA = {
    "isotropic": lambda d: R.Spectrum.isotropic(d),
    "spiked": lambda d: R.Spectrum.spiked(d, [12.0, 5.0]),
    "power_law": lambda d: R.Spectrum.power_law(d, 0.7),
    "array_blocks": lambda d: R.Spectrum.from_array(np.r_[np.full(12, 3.0), np.full(d - 14, 1.0), 0.5, 0.2]),
}


def entries(sampler):
    diag, off, top = [], [], []
    for _ in range(DRAWS):
        K = sampler()
        diag.append(np.diag(K))
        off.append(K[np.arange(0, N_EX, 2), np.arange(1, N_EX, 2)])
        top.append(np.linalg.eigvalsh(K)[-1])
    return np.concatenate(diag), np.concatenate(off), np.array(top)


@pytest.mark.parametrize("name", list(SPECTRA))
def test_sample_gram_matches_sample_features(name):
    d = 30
    spec = SPECTRA[name](d)
    lam = spec.values()
    l1, l2sq, l4 = lam.sum(), np.sum(lam ** 2), np.sum(lam ** 4)
    rng_k, rng_x = np.random.default_rng(1), np.random.default_rng(2)
    from_k = entries(lambda: R.sample_gram(N_EX, d, spectrum=spec, rng=rng_k))
    from_x = entries(lambda: (lambda X: X @ X.T)(R.sample_features(N_EX, d, spectrum=spec, rng=rng_x)))

    for diag, off, _ in (from_k, from_x):
        # against theory
        assert abs(diag.mean() - l1) < Z * np.sqrt(2 * l2sq / diag.size)
        assert abs(diag.var() - 2 * l2sq) < Z * np.sqrt((48 * l4 + 8 * l2sq ** 2) / diag.size)
        assert abs(off.mean()) < Z * np.sqrt(l2sq / off.size)
        assert abs(off.var() - l2sq) < Z * np.sqrt((6 * l4 + 2 * l2sq ** 2) / off.size)
    # a joint statistic with no formula: the largest eigenvalue, sampler against sampler
    top_k, top_x = from_k[2], from_x[2]
    se = np.sqrt(top_k.var() / top_k.size + top_x.var() / top_x.size)
    assert abs(top_k.mean() - top_x.mean()) < Z * se


def test_moment_test_detects_a_wrong_sampler():
    """The tolerance above is tight enough to catch a Wishart with d - n degrees of freedom."""
    d = 30
    rng = np.random.default_rng(3)
    diag = np.concatenate([np.diag(R.gram._wishart_bartlett(N_EX, d - N_EX, rng=rng)) for _ in range(DRAWS)])
    assert abs(diag.mean() - d) > Z * np.sqrt(2 * d / diag.size)


def test_sample_gram_is_symmetric_psd_and_cheap_at_huge_d():
    K = R.sample_gram(30, 10 ** 9, rng=0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K)[0] > 0
    # ‖x_i‖² = d(1 ± O(1/√d)): relative spread of the diagonal ≈ sqrt(2/d)
    assert np.abs(np.diag(K) / 1e9 - 1).max() < 6 * np.sqrt(2 / 1e9)


def test_gap_distribution_gram_vs_features():
    """The gap experiment gives the same gap distribution whether K is sampled or X is."""
    common = dict(n=20, d=200, c=0.01)
    gram = [E.gap_trial(**common, method="gram", rng=s)["gap_scaled"] for s in range(40)]
    feat = [E.gap_trial(**common, method="features", rng=1000 + s)["gap_scaled"] for s in range(40)]
    assert ks_2samp(gram, feat).pvalue > 1e-3
    assert abs(np.median(gram) - np.median(feat)) < 0.15  # medians ≈ 0.5, IQR ≈ 0.25 at 40 trials


def test_spectrum_summaries():
    d = 1000
    iso, spk, pl = R.Spectrum.isotropic(d), R.Spectrum.spiked(d, [50.0]), R.Spectrum.power_law(d, 0.5)
    assert iso.trace == d and iso.norm2 == pytest.approx(np.sqrt(d)) and iso.max == 1
    assert spk.trace == pytest.approx(d - 1 + 50) and spk.max == 50
    k = np.arange(1, d + 1)
    assert pl.trace == pytest.approx(np.sum(k ** -0.5)) and pl.norm2 == pytest.approx(np.sqrt(np.sum(1.0 / k)))
    np.testing.assert_array_equal(spk.values()[:2], [50.0, 1.0])
    huge = R.Spectrum.power_law(10 ** 8, 0.5)
    assert huge.trace == pytest.approx(2 * np.sqrt(1e8) - 1.46, rel=1e-6)  # Σ k^{-1/2} ≈ 2√d + ζ(1/2)


def test_bartlett_allows_as_many_degrees_of_freedom_as_rows():
    """dof = n is the smallest Wishart the decomposition draws (its last χ² has 1 degree of freedom)."""
    W = R.gram._wishart_bartlett(5, 5, rng=0)
    assert W.shape == (5, 5) and np.all(np.linalg.eigvalsh(W) > 0)
