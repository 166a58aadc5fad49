"""First-order closed forms (ibcore.relu.perturbation), the Gram deviation and the settling certificate."""
import numpy as np
import pytest

import ibcore.relu as R


def draw(n, d, seed):
    rng = np.random.default_rng(seed)
    return R.sample_labels(n, rng=rng), R.sample_gram(n, d, rng=rng)


def test_first_order_limit_on_orthogonal_data_is_exact():
    """No cross-talk: GD and w* both put every negative label at 0, whatever b0."""
    y = R.sample_labels(12, rng=0)
    for b0 in (1.0, 0.05):
        limit = R.first_order_limit(500.0 * np.eye(12), y, b0=b0)
        np.testing.assert_array_equal(limit.gd, np.where(y > 0, y, 0.0))
        np.testing.assert_array_equal(limit.star, limit.gd)
        assert R.first_order_gap(500.0 * np.eye(12), y, b0=b0) == 0.0


def test_first_order_star_is_w_star_to_first_order():
    """beta*_i ~ min(0, sum_{j in I+} eps_ij y_j): error O(n/d) against the exact dual solve."""
    n, d = 20, 10**5
    y, K = draw(n, d, 1)
    star = R.min_norm_solution_gram(K, y)
    approx = R.first_order_limit(K, y).star
    assert np.max(np.abs(star.beta - approx)) < 5 * n / d ** 0.5 * np.sqrt(n / d)


@pytest.mark.parametrize("b0", [1.0, 0.1])
def test_first_order_gap_predicts_the_gd_gap(b0):
    """The freezing model reproduces the measured gap: over 6 draws at d = 20n the median ratio is
    within 25% of 1 (second-order terms are O(sqrt(n/d)) = 22% of the first-order ones here)."""
    n, d, c = 20, 2000, 0.002
    ratios = []
    for seed in range(6):
        y, K = draw(n, d, seed)
        run = R.gradient_descent_gram(K, y, R.all_active_init_gram(K, b0=b0, trace=d), lr=R.lr_from_contraction_gram(c, K), tol=1e-10, record_every=None)
        gap = R.relative_gap_gram(K, run.coef, R.min_norm_solution_gram(K, y).nu)
        ratios.append(R.first_order_gap(K, y, b0=b0) / gap)
    assert abs(np.median(ratios) - 1) < 0.25, ratios


def test_first_order_gap_vanishes_with_b0():
    """Every mismatch carries b0/(b0 + |y_i|): the predicted gap falls with b0, towards 0."""
    y, K = draw(20, 5000, 3)
    gaps = [R.first_order_gap(K, y, b0=b0) for b0 in (1.0, 0.1, 0.01, 1e-4)]
    # the all-active start at b0 = 1 unless given
    assert R.first_order_gap(K, y) == gaps[0]
    np.testing.assert_array_equal(R.first_order_limit(K, y).gd, R.first_order_limit(K, y, b0=1.0).gd)
    assert gaps[0] > gaps[1] > gaps[2] > gaps[3] and gaps[3] < 0.05 * gaps[0]


def test_gram_deviation():
    assert R.gram_deviation(7.0 * np.eye(5)) == pytest.approx(0.0, abs=1e-15)
    K = np.diag([1.0, 2.0, 3.0])
    assert R.gram_deviation(K) == pytest.approx(0.5) and R.gram_deviation(K, scale=1.0) == pytest.approx(2.0)
    # Gaussian data: close to the Marchenko-Pastur edge 2 sqrt(n/d), below the Frobenius bound sqrt(n(n+1)/d)
    n, d = 20, 10**5
    deltas = [R.gram_deviation(R.sample_gram(n, d, rng=s), scale=d) for s in range(5)]
    assert 0.7 < np.median(deltas) / (2 * np.sqrt(n / d)) < 1.2
    assert np.max(deltas) < np.sqrt(n * (n + 1) / d)
    with pytest.raises(ValueError, match="scale must be a positive"):
        R.gram_deviation(np.eye(3), scale=0.0)


def test_gram_frobenius_identity():
    """E|K/|l|_1 - I|_F^2 = n(n+1)/R0 for Gaussian features (the Gram lemma), here on a power law."""
    n, d = 8, 3000
    lam = R.Spectrum.power_law(d, 0.5)
    sq = [np.sum((R.sample_gram(n, d, spectrum=lam, rng=s) / lam.trace - np.eye(n)) ** 2) for s in range(400)]
    expected = n * (n + 1) / lam.R0
    # the mean of 400 draws: its standard error is ~ 5% of the mean here
    assert np.mean(sq) == pytest.approx(expected, rel=0.2)


def test_effective_ranks():
    d = 1000
    iso, spk, pl = R.Spectrum.isotropic(d, 3.0), R.Spectrum.spiked(d), R.Spectrum.power_law(d)
    assert iso.r0 == pytest.approx(d) and iso.R0 == pytest.approx(d)
    assert spk.r0 == pytest.approx((d - 1 + np.sqrt(d)) / np.sqrt(d))
    assert spk.R0 == pytest.approx((d - 1 + np.sqrt(d)) ** 2 / (2 * d - 1))
    for lam in (iso, spk, pl):  # |l|_2^2 <= |l|_inf |l|_1
        assert lam.R0 >= lam.r0 * (1 - 1e-12)


def test_settling_certificate_brackets_the_last_pattern_change():
    """The lemma proves the pattern final from the certified step on, so the last change is no later."""
    n, d, c = 20, 2000, 0.01
    rng = np.random.default_rng(3)
    X = R.sample_features(n, d, rng=rng)
    y = rng.uniform(-1, 1, n)
    run = R.gradient_descent(X, y, R.all_active_init(X, trace=d), lr=R.lr_from_contraction(c, X), record_every=1)
    cert = R.settling_certificate(X @ X.T, y, run)
    assert cert.step is not None and R.stabilisation_step(run) <= cert.step < run.n_steps
    assert cert.bound.shape == cert.margin.shape == run.history.step.shape
    # the drift of every example after the certified step is below the bound at that step
    t = np.flatnonzero(cert.record_step == cert.step)[0]
    drift = np.abs(run.history.beta[t:] - run.history.beta[t]).max(axis=0)
    inactive = run.history.beta[t] <= 0
    assert np.all(drift[inactive] <= cert.bound[t])
    two = R.gradient_descent(X, y, R.two_neuron_init(X, trace=d), lr=R.lr_from_contraction(c, X), max_steps=2)
    with pytest.raises(ValueError, match="one-neuron ReLU run"):
        R.settling_certificate(X @ X.T, y, two)


def _recorded_run(n, d, c, seed, *, correlated=0.0):
    rng = np.random.default_rng(seed)
    X = R.sample_features(n, d, rng=rng) + correlated * rng.standard_normal(d)  # a shared direction
    y = rng.uniform(-1, 1, n)
    run = R.gradient_descent(X, y, R.all_active_init(X, trace=d), lr=R.lr_from_contraction(c, X),
                             record_every=1, max_steps=20_000)
    return X @ X.T, y, run


def test_settling_certificate_margins_and_bounds_are_the_lemmas():
    """Margins and bounds along the run from their definitions, with Δ from an eigendecomposition:
    margin_t = min_i (min(β_i, y_i) if active else -β_i), -inf while a negative label is active;
    B_t = Δ/(1 - Δ) ‖D_t r_t‖; the certificate is the first step with margin > B_t."""
    K, y, run = _recorded_run(12, 3000, 0.05, seed=1)
    kappa = np.mean(np.diag(K))
    delta = np.abs(np.linalg.eigvalsh(K / kappa - np.eye(12))).max()
    beta = run.history.beta
    active = beta > 0
    margin = np.where(active, np.minimum(beta, y), -beta).min(axis=1)
    margin[(active & (y <= 0)).any(axis=1)] = -np.inf
    bound = delta / (1 - delta) * np.linalg.norm(np.where(active, beta - y, 0.0), axis=1)
    cert = R.settling_certificate(K, y, run)
    assert margin[0] == -np.inf and np.isfinite(margin[-1])   # all active at first, negatives off at the end
    np.testing.assert_array_equal(cert.margin, margin)
    np.testing.assert_allclose(cert.bound, bound, rtol=1e-12)
    first = np.flatnonzero(margin > bound)[0]
    assert cert.step == run.history.step[first] > 0


def test_settling_certificate_needs_a_small_cross_talk_and_a_small_step():
    """No certificate when Δ ≥ 1 (the bound is infinite), nor when c(1 + Δ) > 1 on data that is
    certified at a smaller step."""
    K, y, run = _recorded_run(8, 40, 0.05, seed=2, correlated=3.0)
    assert R.gram_deviation(K, scale=np.mean(np.diag(K))) >= 1
    cert = R.settling_certificate(K, y, run)
    assert cert.step is None and np.all(np.isinf(cert.bound))
    K, y, run = _recorded_run(8, 20_000, 0.5, seed=3)
    assert R.settling_certificate(K, y, run).step is not None
    K, y, run = _recorded_run(8, 20_000, 0.999, seed=3)
    delta = R.gram_deviation(K, scale=np.mean(np.diag(K)))
    cert = R.settling_certificate(K, y, run)
    assert 0.999 * (1 + delta) > 1 and cert.step is None
    assert np.any(cert.margin > cert.bound)          # the margins alone would have certified it


@pytest.mark.parametrize("b0", [1.0, 0.1])
def test_first_order_constant_is_the_mean_squared_mismatch(b0):
    """A_inf(b0)^2 = 3 E_u E(min(0, a) - min(0, s))^2, by Monte Carlo over u ~ U[0, 1] and the
    Gaussian pair (a, s) built from its covariance (no arc-cosine kernel): 10^6 samples give
    the mean to about 0.2%, so 1% on A."""
    rng = np.random.default_rng(0)
    u = rng.uniform(0, 1, 10**6)
    rho = u / (b0 + u)
    var_a = 0.5 * (rho**2 * (1 / 3 - b0 + b0**2) + (b0 / (b0 + u)) ** 2 * u**3 / 3)
    cov = 0.5 * rho * (1 / 3 - b0 / 2)
    s = np.sqrt(1 / 6) * rng.standard_normal(u.size)
    # a = (cov / var_s) s + an independent part with the remaining variance
    a = cov * 6 * s + np.sqrt(np.maximum(var_a - cov**2 * 6, 0)) * rng.standard_normal(u.size)
    reference = np.sqrt(3 * np.mean((np.minimum(0, a) - np.minimum(0, s)) ** 2))
    assert R.first_order_constant(b0) == pytest.approx(reference, rel=0.01)


@pytest.mark.parametrize("b0", [0.01, 0.3, 1.0, 3.0])
def test_first_order_constant_from_the_moments_of_its_definition(b0):
    """The covariance of (a_i, s_i) computed by quadrature from their definition in
    first_order_limit, not from the closed forms: a_i = Σ_{j+} ε_ij ρ (y_j - b0) - Σ_{j-, u_j < u}
    ε_ij b0 (u - u_j)/(b0 + u), s_i = Σ_{j+} ε_ij y_j, the ε_ij independent with variance 1/d, half
    the labels positive and |y_j| ~ U[0, 1]; then A² = 3 ∫ m(u) du to quadrature accuracy."""
    from scipy.integrate import quad

    from ibcore.relu.teacher import _relu_pair_mean_square

    def mismatch(u):
        rho = u / (b0 + u)
        var_a = (0.5 * quad(lambda y: (rho * (y - b0)) ** 2, 0, 1)[0]
                 + 0.5 * quad(lambda v: (b0 * (u - v) / (b0 + u)) ** 2, 0, u)[0])
        var_s = 0.5 * quad(lambda y: y * y, 0, 1)[0]
        cov = 0.5 * quad(lambda y: rho * (y - b0) * y, 0, 1)[0]
        sa, ss = np.sqrt(var_a), np.sqrt(var_s)
        return _relu_pair_mean_square(sa, ss, cov / (sa * ss) if sa > 0 else 0.0)

    A2 = 3 * quad(mismatch, 0, 1, points=[b0] if b0 < 1 else None, limit=200, epsabs=1e-14)[0]
    assert R.first_order_constant(b0) == pytest.approx(np.sqrt(A2), rel=1e-7)


@pytest.mark.parametrize("b0", [1.0, 0.1])
def test_first_order_constant_is_the_many_example_limit_of_the_first_order_gap(b0):
    """first_order_gap / sqrt(n/d) on K = d(I + E), E with independent N(0, 1/d) entries: its
    root mean square over 200 draws at n = 200 lies within 5% of the constant (a ratio of sums
    of n/2 terms: bias about 1%, standard error about 1%; over seeds 0-4 within 2%)."""
    n, d = 200, 1e12
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(200):
        E = np.triu(rng.standard_normal((n, n)), 1) / np.sqrt(d)
        K = d * (np.eye(n) + E + E.T)
        y = R.sample_labels(n, rng=rng)
        ratios.append(R.first_order_gap(K, y, b0=b0) / np.sqrt(n / d))
    rms = np.sqrt(np.mean(np.square(ratios)))
    assert rms == pytest.approx(R.first_order_constant(b0), rel=0.05)


def test_first_order_constant_limits_and_validation():
    """It vanishes like sqrt(b0)/2 as b0 -> 0 and grows with b0; b0 must be positive."""
    assert R.first_order_constant(1e-5) == pytest.approx(0.5 * np.sqrt(1e-5), rel=0.01)
    values = [R.first_order_constant(b0) for b0 in (0.01, 0.1, 1.0, 10.0)]
    assert np.all(np.diff(values) > 0)
    assert R.first_order_constant() == R.first_order_constant(1.0)   # the all-active start at b0 = 1
    with pytest.raises(ValueError, match=r"^b0\b"):
        R.first_order_constant(0.0)


@pytest.mark.slow
@pytest.mark.parametrize("coupling", ["positive", "negative"])
def test_first_order_limit_is_gradient_flow_to_second_order(coupling):
    """Three examples, y = (-0.8, -0.2, 0.5), and one cross-talk ε = 0.01 between example 0 and
    either the positive example (the ρ_i Σ ε_ij (y_j - b0) term) or the negative one that freezes
    later (the -Σ ε_ij b0 (u_i - u_j)/(b0 + u_i) term). GD at c = 2e-5 follows gradient flow up to
    an overshoot of order c at each freezing, so the change of β_0 that ε causes matches the
    first-order limit's to O(ε) + O(c/ε): within 3% (measured 1.1% and 0.6% at c = 1e-5)."""
    y, d, eps, c = np.array([-0.8, -0.2, 0.5]), 1e4, 0.01, 2e-5
    E = np.zeros((3, 3))
    j = 2 if coupling == "positive" else 1
    E[0, j] = E[j, 0] = eps

    def limits(E):
        K = d * (np.eye(3) + E)
        run = R.gradient_descent_gram(K, y, R.all_active_init_gram(K, trace=d), lr=R.lr_from_contraction_gram(c, K),
                                      tol=1e-10, max_steps=10**7)
        assert run.success
        return run.beta[0], R.first_order_limit(K, y).gd[0]

    (gd, first), (gd_0, first_0) = limits(E), limits(0 * E)
    assert first_0 == 0.0 and first < 0
    assert gd - gd_0 == pytest.approx(first, rel=0.03)


@pytest.mark.parametrize("kw, name", [(dict(y=np.ones(3)), "y"), (dict(y=np.array([1.0, np.nan, -1.0, 0.5])), "y"),
                                      (dict(b0=0.0), "b0"), (dict(K=np.ones((4, 3))), "K")])
def test_first_order_limit_refuses_bad_arguments_by_name(kw, name):
    args = {"K": 100.0 * np.eye(4), "y": np.array([1.0, -0.5, -1.0, 0.5]), **kw}
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        R.first_order_limit(args.pop("K"), args.pop("y"), **args)
    with pytest.raises(ValueError, match=r"no positive label"):
        R.first_order_gap(100.0 * np.eye(3), np.array([-1.0, 0.0, -0.5]))


def test_first_order_limit_is_the_docstring_formula_term_by_term():
    """The module docstring's two sums, written as plain loops over j, on a random Gram matrix:
    β_i^GD = min(0, ρ_i Σ_{j+} ε_ij (y_j - b0) - Σ_{j-, |y_j| < |y_i|} ε_ij b0 (|y_i| - |y_j|)/(b0 + |y_i|))
    and β*_i = min(0, Σ_{j+} ε_ij y_j) on the negative labels, y on the positive ones.
    (That the formula is gradient flow's to first order is the slow test above.)"""
    n, d, b0 = 9, 400, 0.7
    y, K = draw(n, d, 5)
    eps = K / np.mean(np.diag(K))
    gd, star = np.empty(n), np.empty(n)
    for i in range(n):
        if y[i] > 0:
            gd[i] = star[i] = y[i]
            continue
        u = abs(y[i])
        rho = u / (b0 + u)
        pos = sum(eps[i, j] * (y[j] - b0) for j in range(n) if j != i and y[j] > 0)
        neg = sum(eps[i, j] * b0 * (u - abs(y[j])) / (b0 + u) for j in range(n)
                  if j != i and y[j] <= 0 and abs(y[j]) < u)
        gd[i] = min(0.0, rho * pos - neg)
        star[i] = min(0.0, sum(eps[i, j] * y[j] for j in range(n) if j != i and y[j] > 0))
    limit = R.first_order_limit(K, y, b0=b0)
    assert np.sum(gd < 0) >= 2 and np.sum(star < 0) >= 2      # both minima are not all clipped
    np.testing.assert_allclose(limit.gd, gd, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(limit.star, star, rtol=1e-12, atol=1e-15)
