"""The noise SGD adds to the teacher overlap before the escape (ibcore.quadratic.plateau_noise),
against references that share none of its code: Isserlis' moments, a closed form on the plateau,
and a quadrature along the logistic norm learning."""
import itertools

import numpy as np
import pytest
from scipy.integrate import quad

import ibcore.quadratic as q
from ibcore.quadratic.plateau_noise import _noise_moment


@pytest.mark.parametrize("p,p_star,qq", [(3, 2, 0.7), (2, 2, 1.0), (4, 1, 0.55)])
def test_the_noise_moment_is_isserlis(p, p_star, qq):
    """m(q) = E[Δ² λ_i² ν_k²] at R = 0, Q = qI, T = I, summed from the Wick pairings of the
    eighth moments (Δ = Σ λ_j²/p - Σ ν_l²/p*)."""
    cov = np.diag([qq] * p + [1.0] * p_star)
    weight = [1.0 / p] * p + [-1.0 / p_star] * p_star
    i, k = 0, p  # student unit 0, teacher unit 0
    exact = sum(weight[a] * weight[b] * q.gaussian_moment(cov, [a, a, b, b, i, i, k, k])
                for a, b in itertools.product(range(p + p_star), repeat=2))
    assert _noise_moment(qq, p, p_star) == pytest.approx(exact, rel=1e-12)


def test_label_noise_adds_its_variance_times_the_second_moment():
    """With labels y + sqrt(Δ) ξ the error gains -sqrt(Δ) ξ, independent of everything else:
    m grows by Δ E[λ_i² ν_k²] = Δ q (checked by Monte Carlo on 400,000 draws)."""
    rng = np.random.default_rng(0)
    p, p_star, qq, noise = 3, 2, 0.8, 0.3
    lam = np.sqrt(qq) * rng.standard_normal((400_000, p))
    nu = rng.standard_normal((400_000, p_star))
    err = (lam**2).mean(1) - (nu**2).mean(1) - np.sqrt(noise) * rng.standard_normal(400_000)
    sample = err**2 * lam[:, 0] ** 2 * nu[:, 0] ** 2
    se = sample.std() / np.sqrt(sample.size)
    assert _noise_moment(qq, p, p_star, noise) == pytest.approx(sample.mean(), abs=4 * se)


@pytest.mark.parametrize("p,p_star,lr", [(3, 2, 0.12), (4, 2, 0.4), (2, 1, 0.02)])
def test_on_the_plateau_from_the_start_the_variance_is_a_closed_form(p, p_star, lr):
    """From q0 = the lifted plateau nothing relaxes: sigma^2 = 4 g m(Q_gamma) / (2 r)."""
    plateau = q.plateau_overlap(p, p_star, lr=lr)
    r = q.plateau_growth_rate(p, p_star, lr=lr)
    closed = 4 * lr / p * _noise_moment(plateau, p, p_star) / (2 * r)
    assert q.plateau_noise_variance(p, p_star, lr=lr, q0=plateau) == pytest.approx(closed, rel=1e-7)


def test_small_learning_rates_follow_the_logistic_norm_learning():
    """As gamma -> 0, sigma^2 / g tends to 4 ∫ m(q(s)) exp(-2 ∫ rho) ds along the gradient-flow
    logistic q(s) (ibcore.quadratic.norm_learning_overlap), computed here by quadrature, with
    rho(q) = 4/p* + 2(1 - q) - 4q/p; the gamma^2 term moves it by O(g)."""
    p, p_star, g = 3, 2, 1e-4

    def rho(s):
        qq = q.norm_learning_overlap(s, p)
        return 4 / p_star + 2 * (1 - qq) - 4 * qq / p

    def integrand(s):
        grown = quad(rho, 0, s)[0]
        return _noise_moment(q.norm_learning_overlap(s, p), p, p_star) * np.exp(-2 * grown)

    reference = 4 * quad(integrand, 0, 40, limit=200)[0]
    assert q.plateau_noise_variance(p, p_star, lr=g * p) / g == pytest.approx(reference, rel=1e-3)


def test_the_variance_is_about_proportional_to_the_learning_rate():
    """sigma^2 / g rises only through the lifted plateau: by a few percent over a factor 16."""
    ratio = [q.plateau_noise_variance(3, 2, lr=3 * g) / g for g in (0.005, 0.08)]
    assert 1.0 < ratio[1] / ratio[0] < 1.2


@pytest.mark.parametrize("kwargs,name", [(dict(lr=None), "lr"), (dict(lr=0.0), "lr"), (dict(lr=50.0), "lr"),
                                         (dict(lr=0.1, q0=0.0), "q0"), (dict(lr=0.1, noise=-1.0), "noise"),
                                         (dict(lr=0.1, p=0), "p")])
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"p": 3, "p_star": 2, **kwargs}
    with pytest.raises(ValueError, match=rf"^{name} "):
        q.plateau_noise_variance(args.pop("p"), args.pop("p_star"), **args)
