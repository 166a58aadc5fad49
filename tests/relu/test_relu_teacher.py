"""The test error against a ReLU teacher (ibcore.relu.teacher): Monte Carlo, exact cases, the
gradient against central differences, and refusal of bad input by name."""
import numpy as np
import pytest

import ibcore.relu as R
from ibcore.relu import teacher as T

_OK3, _NAN3 = np.ones(3), np.array([1.0, np.nan, 0.0])


def _risk_monte_carlo(w, theta, draws, seed):
    x = np.random.default_rng(seed).standard_normal((draws, w.size))
    diff = np.maximum(x @ w, 0) - np.maximum(x @ theta, 0)
    return diff ** 2


@pytest.mark.parametrize("seed", [0, 1])
def test_teacher_risk_matches_monte_carlo(seed):
    rng = np.random.default_rng(100 + seed)
    d = 5
    theta, w = rng.standard_normal(d), rng.standard_normal(d) * 0.7
    sq = _risk_monte_carlo(w, theta, 400_000, seed)
    # 5 standard errors of the Monte Carlo mean
    assert R.relu_teacher_risk(w, theta) == pytest.approx(sq.mean(), abs=5 * sq.std() / np.sqrt(sq.size))


def test_teacher_risk_exact_cases():
    theta = np.array([2.0, 0.0, 0.0])
    assert R.relu_teacher_risk(theta, theta) == 0.0
    # w = -theta: (relu(-z) - relu(z))^2 = z^2, so the risk is |theta|^2
    assert R.relu_teacher_risk(-theta, theta) == pytest.approx(4.0, rel=1e-14)
    # orthogonal: |w|^2/2 + |theta|^2/2 - 2 |w||theta|/(2 pi)
    w = np.array([0.0, 3.0, 0.0])
    assert R.relu_teacher_risk(w, theta) == pytest.approx(4.5 + 2.0 - 2 * 6 / (2 * np.pi), rel=1e-14)
    # w = 0 or theta = 0: E relu(.)^2 = |.|^2 / 2
    assert R.relu_teacher_risk(np.zeros(3), theta) == pytest.approx(2.0, rel=1e-14)
    assert R.relu_teacher_risk(w, np.zeros(3)) == pytest.approx(4.5, rel=1e-14)
    # parallel with another length: (a - b)^2 E relu(z)^2
    assert R.relu_teacher_risk(3 * theta, theta) == pytest.approx(4 * 4 / 2, rel=1e-12)
    assert isinstance(R.relu_teacher_risk(w, theta), float)


def test_teacher_risk_at_sixty_degrees():
    # phi = pi/3: E relu(a) relu(b) = (sin phi + (pi - phi) cos phi) / (2 pi) for unit vectors
    theta, w = np.array([1.0, 0.0]), np.array([0.5, np.sqrt(3) / 2])
    phi = np.pi / 3
    cross = (np.sin(phi) + (np.pi - phi) * np.cos(phi)) / (2 * np.pi)
    assert R.relu_teacher_risk(w, theta) == pytest.approx(1 - 2 * cross, rel=1e-13)


# w = ±3 theta: the computed cosine rounds to ±(1 + 2^-52), outside arccos's domain
_THETA_ROUNDS = np.array([0.1, 0.3, 0.2])


def test_teacher_risk_of_parallel_neurons_whose_cosine_rounds_past_one():
    theta = _THETA_ROUNDS
    for sign in (1, -1):
        w = sign * 3 * theta
        assert abs(w @ theta / (np.linalg.norm(w) * np.linalg.norm(theta))) > 1   # the premise
    # z = theta.x ~ N(0, |theta|^2): (relu(3z) - relu(z))^2 = 4 relu(z)^2, (relu(-3z) - relu(z))^2 = 9 relu(-z)^2 + relu(z)^2
    assert R.relu_teacher_risk(3 * theta, theta) == pytest.approx(4 * 0.14 / 2, rel=1e-14)
    assert R.relu_teacher_risk(-3 * theta, theta) == pytest.approx(10 * 0.14 / 2, rel=1e-14)


def test_teacher_risk_gradient_of_parallel_neurons_whose_cosine_rounds_past_one():
    theta = _THETA_ROUNDS
    # R(a theta) = (a - 1)^2 |theta|^2 / 2 for a > 0: gradient (a - 1) theta; R(-a theta) = (a^2 + 1)|theta|^2/2: gradient w
    np.testing.assert_allclose(T._relu_teacher_risk_gradient(3 * theta, theta), 2 * theta, rtol=1e-14)
    np.testing.assert_allclose(T._relu_teacher_risk_gradient(-3 * theta, theta), -3 * theta, rtol=1e-14, atol=1e-16)


def test_teacher_risk_gradient_of_a_unit_neuron_against_central_differences():
    # |w| = 1 exactly (a unit vector; a special norm for a wrong branch to catch)
    w, theta = np.array([0.6, 0.8, 0.0]), np.array([0.5, -1.0, 0.7])
    assert np.linalg.norm(w) == 1.0
    h = 1e-6   # central differences: error ~ h^2 |third derivative| ~ 1e-12, rounding ~ 1e-16/h = 1e-10
    fd = [(R.relu_teacher_risk(w + h * e, theta) - R.relu_teacher_risk(w - h * e, theta)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(T._relu_teacher_risk_gradient(w, theta), fd, atol=1e-8)


def test_teacher_risk_gradient_at_the_kink_and_for_a_zero_teacher():
    g = T._relu_teacher_risk_gradient(np.zeros(3), np.array([1.0, 0.0, 0.0]))
    assert g.dtype == float and g.shape == (3,) and np.all(np.isnan(g))   # R has a kink at w = 0
    w = np.array([0.3, -0.2, 1.0])
    np.testing.assert_array_equal(T._relu_teacher_risk_gradient(w, np.zeros(3)), w)   # R = |w|^2/2


@pytest.mark.parametrize("fn", [R.relu_teacher_risk, T._relu_teacher_risk_gradient])
def test_teacher_risk_rejects_mismatched_vectors(fn):
    with pytest.raises(ValueError, match=r"^w must have shape \(3,\)"):
        fn(np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match=r"^theta must have 1 dimension"):
        fn(np.ones((2, 2)), np.ones((2, 2)))


@pytest.mark.parametrize("name, call", [
    ("theta", lambda: R.relu_teacher_risk(_OK3, _NAN3)),
    ("w", lambda: R.relu_teacher_risk(_NAN3, _OK3)),
    ("theta", lambda: T._relu_teacher_risk_gradient(_OK3, _NAN3)),
    ("w", lambda: T._relu_teacher_risk_gradient(_NAN3, _OK3)),
])
def test_a_non_finite_array_is_refused_by_its_name(name, call):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
