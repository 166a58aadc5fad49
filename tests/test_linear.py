"""ibcore.linear, the prologue's solver layer: GD on underdetermined least squares and its limit."""
import numpy as np
import pytest

from ibcore import DivergenceError, linear


@pytest.fixture
def problem():
    rng = np.random.default_rng(0)
    n, d = 12, 60
    X = rng.standard_normal((n, d))
    y = rng.uniform(-1, 1, n)
    w0 = rng.standard_normal(d) / np.sqrt(d)
    return X, y, w0


def null_space_vector(X, rng):
    """A random v with X v = 0 (independent of ibcore: from the SVD)."""
    _, _, Vt = np.linalg.svd(X)
    N = Vt[X.shape[0]:]  # rows spanning the null space of X
    return N.T @ rng.standard_normal(N.shape[0])


def test_min_norm_interpolator_interpolates_and_is_shortest(problem):
    X, y, _ = problem
    w_star = linear.min_norm_interpolator(X, y)
    np.testing.assert_allclose(X @ w_star, y, atol=1e-12)
    np.testing.assert_allclose(w_star, np.linalg.pinv(X) @ y, atol=1e-12)  # an independent formula
    rng = np.random.default_rng(1)
    for _ in range(5):  # every other interpolator w* + v, Xv = 0, is longer by exactly |v|² (Pythagoras)
        v = null_space_vector(X, rng)
        assert np.sum((w_star + v) ** 2) == pytest.approx(np.sum(w_star ** 2) + np.sum(v ** 2), rel=1e-10)


def test_row_space_projection_is_the_orthogonal_projector(problem):
    X, _, w0 = problem
    P = linear.row_space_projection(X, w0)
    np.testing.assert_allclose(linear.row_space_projection(X, P), P, atol=1e-12)  # idempotent
    np.testing.assert_allclose(X @ (w0 - P), 0, atol=1e-12)  # the remainder is orthogonal to the rows
    np.testing.assert_allclose(P, X.T @ np.linalg.lstsq(X.T, w0, rcond=None)[0], atol=1e-12)
    v = null_space_vector(X, np.random.default_rng(2))
    np.testing.assert_allclose(linear.row_space_projection(X, v), 0, atol=1e-12)


def test_gd_limit_is_the_interpolator_closest_to_w0(problem):
    X, y, w0 = problem
    limit = linear.gd_limit(X, y, w0)
    np.testing.assert_allclose(X @ limit, y, atol=1e-12)
    # = w* + (I - P_X) w0, the theorem of the prologue
    expected = linear.min_norm_interpolator(X, y) + w0 - linear.row_space_projection(X, w0)
    np.testing.assert_allclose(limit, expected, atol=1e-12)
    rng = np.random.default_rng(3)
    dist = np.linalg.norm(limit - w0)
    for _ in range(5):  # any other interpolator is further from w0
        other = limit + null_space_vector(X, rng)
        assert np.linalg.norm(other - w0) > dist
    # from w0 in the row space, the limit is the min-norm interpolator
    np.testing.assert_allclose(linear.gd_limit(X, y, X.T @ rng.standard_normal(X.shape[0])),
                               linear.min_norm_interpolator(X, y), atol=1e-12)


def test_stability_bound_is_2n_over_the_top_eigenvalue(problem):
    X, y, w0 = problem
    mu = np.linalg.eigvalsh(X @ X.T)
    bound = linear.least_squares_stability_bound(X)
    assert bound == pytest.approx(2 * X.shape[0] / mu[-1], rel=1e-12)
    # just below: GD converges (with the check on); just above: it diverges (with the check off)
    assert linear.least_squares_gd(X, y, w0, lr=0.99 * bound, record_every=None).success
    with pytest.raises(ValueError, match="stability bound"):
        linear.least_squares_gd(X, y, w0, lr=1.01 * bound)
    with pytest.raises(DivergenceError) as info:
        linear.least_squares_gd(X, y, w0, lr=1.01 * bound, check_stability=False, record_every=None)
    assert info.value.unit == "GD step" and info.value.step > 0


def test_gradient_descent_reaches_the_limit_at_the_predicted_rate(problem):
    X, y, w0 = problem
    lr = 0.5 * linear.least_squares_stability_bound(X)
    run = linear.least_squares_gd(X, y, w0, lr=lr, record_every=1)
    assert run.success and run.activation == "identity" and isinstance(run.n_steps, int)
    limit = linear.gd_limit(X, y, w0)
    assert np.linalg.norm(run.w - limit) / np.linalg.norm(limit) < 1e-9
    # the residual beta_t - y contracts by max_i |1 - lr mu_i / n| per step, not faster, not slower
    mu = np.linalg.eigvalsh(X @ X.T)
    rate = max(abs(1 - lr * mu[0] / X.shape[0]), abs(1 - lr * mu[-1] / X.shape[0]))
    resid = np.linalg.norm(run.history.beta - y, axis=1)
    t = run.history.step
    tail = (t > 20) & (resid > 1e-11)
    measured = np.exp(np.polyfit(t[tail], np.log(resid[tail]), 1)[0])
    assert abs(measured - rate) < 0.01 * (1 - rate)
    # plain weight-space GD, written out here, gives the same iterates
    w = w0.copy()
    for _ in range(50):
        w -= lr * X.T @ (X @ w - y) / X.shape[0]
    short = linear.least_squares_gd(X, y, w0, lr=lr, max_steps=50, tol=0, record_every=None)
    np.testing.assert_allclose(short.w, w, rtol=1e-10)


@pytest.mark.parametrize("call, match", [
    (lambda X, y, w0: linear.min_norm_interpolator(X[:, :5], y), r"linearly independent rows"),
    (lambda X, y, w0: linear.min_norm_interpolator(np.vstack([X[:-1], X[:1]]), y), r"linearly independent"),
    (lambda X, y, w0: linear.min_norm_interpolator(X, y[:-1]), r"^y must have shape \(12,\)"),
    (lambda X, y, w0: linear.min_norm_interpolator(X[0], y), r"^X must have 2 dimension"),
    (lambda X, y, w0: linear.min_norm_interpolator(np.where(X > 1, np.inf, X), y), r"^X must be finite"),
    (lambda X, y, w0: linear.gd_limit(X, y, w0[:-1]), r"^w0 must have shape \(60,\)"),
    (lambda X, y, w0: linear.gd_limit(X, np.where(y > 0, np.nan, y), w0), r"^y must be finite"),
    (lambda X, y, w0: linear.gd_limit(X, y[:-1], w0), r"^y must have shape \(12,\)"),
    (lambda X, y, w0: linear.gd_limit(X[0], y, w0), r"^X must have 2 dimension"),
    (lambda X, y, w0: linear.row_space_projection(X, w0[:3]), r"^v must have shape"),
    (lambda X, y, w0: linear.row_space_projection(X[0], w0), r"^X must have 2 dimension"),
    (lambda X, y, w0: linear.row_space_projection(np.where(X > 1, np.nan, X), w0), r"^X must be finite"),
    (lambda X, y, w0: linear.least_squares_gd(X, y, w0, lr=-1.0), r"^lr must be a positive"),
    (lambda X, y, w0: linear.least_squares_gd(X, y, w0, lr=1e-3, record_every=0), r"^record_every"),
])
def test_bad_input_raises_value_error_naming_the_parameter(problem, call, match):
    with pytest.raises(ValueError, match=match):
        call(*problem)
