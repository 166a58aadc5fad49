"""The min-norm ReLU interpolator: KKT, an independent solver, and the Gram and positive-subset variants."""
import numpy as np
import pytest
from scipy.optimize import minimize

import ibcore.relu as R
from ibcore import linear


def random_problem(n, d, seed, spectrum=None):
    X = R.sample_features(n, d, spectrum=spectrum, rng=seed)
    y = np.random.default_rng(seed + 1000).uniform(-1, 1, n)
    return X, y


@pytest.mark.parametrize("n,d,spectrum", [(10, 30, None), (30, 60, None), (60, 600, None),
                                          (40, 42, None), (25, 400, "power_law"), (25, 400, "spiked")])
def test_kkt_conditions_hold_to_1e_10(n, d, spectrum):
    X, y = random_problem(n, d, seed=n + d, spectrum=spectrum)
    sol = R.min_norm_solution(X, y)
    pos, neg = y > 0, y <= 0
    assert sol.kkt_residual < 1e-10 and sol.problem == "relu"
    # and each condition separately, in the notes' form (§7.5)
    assert np.abs(sol.beta[pos] - y[pos]).max() < 1e-10
    assert sol.beta[neg].max() < 1e-10
    assert sol.nu[neg].max() <= 0.0
    assert np.abs(sol.nu[neg] * sol.beta[neg]).max() < 1e-10 * np.abs(sol.nu).max()
    np.testing.assert_allclose(sol.w, X.T @ sol.nu, rtol=0, atol=1e-14 * np.abs(sol.w).max())
    assert sol.loss == pytest.approx(np.sum(y[y < 0] ** 2) / (2 * n), rel=1e-12)


def test_some_but_not_all_negative_constraints_are_tight():
    """Notes §4 [S]: w* is not "interpolate the positives, put the negatives at 0";
    roughly half of the negative constraints are strictly inactive."""
    fractions = []
    for seed in range(5):
        X, y = random_problem(60, 600, seed)
        sol = R.min_norm_solution(X, y)
        fractions.append(sol.tight.sum() / np.sum(y <= 0))
    assert 0.2 < np.mean(fractions) < 0.8


def slsqp_min_norm(X, y):
    """w* by a general-purpose solver (SLSQP) on the primal problem, as an independent reference."""
    pos = y > 0
    cons = [{"type": "eq", "fun": lambda w: X[pos] @ w - y[pos], "jac": lambda w: X[pos]},
            {"type": "ineq", "fun": lambda w: -X[~pos] @ w, "jac": lambda w: -X[~pos]}]
    ref = minimize(lambda w: 0.5 * w @ w, np.zeros(X.shape[1]), jac=lambda w: w, constraints=cons,
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
    assert ref.success
    return ref.x


@pytest.mark.parametrize("seed", range(3))
def test_matches_slsqp_on_small_cases(seed):
    X, y = random_problem(8, 20, seed)
    ref = slsqp_min_norm(X, y)
    sol = R.min_norm_solution(X, y)
    assert np.linalg.norm(sol.w - ref) / np.linalg.norm(ref) < 1e-7


def test_gram_version_matches_feature_version():
    X, y = random_problem(30, 300, seed=4)
    a, b = R.min_norm_solution(X, y), R.min_norm_solution_gram(X @ X.T, y)
    assert b.w is None and b.kkt_residual < 1e-10 and b.problem == "relu"
    np.testing.assert_allclose(b.nu, a.nu, rtol=1e-9, atol=1e-12 * np.abs(a.nu).max())
    np.testing.assert_array_equal(a.tight, b.tight)


def test_min_norm_is_the_smallest_global_minimiser():
    """Any other feasible point (here: w* plus a feasible direction) is longer."""
    X, y = random_problem(12, 50, seed=5)
    sol = R.min_norm_solution(X, y)
    ls = R.positive_subset_least_squares(X, y)
    # positive-subset LS interpolates I+ but is never shorter; where it is feasible it equals w*
    assert np.linalg.norm(ls.w) <= np.linalg.norm(sol.w) + 1e-12
    if np.all(ls.beta[y <= 0] <= 0):
        np.testing.assert_allclose(ls.w, sol.w, rtol=1e-10)
    rng = np.random.default_rng(0)
    for _ in range(20):
        v = rng.standard_normal(50)
        v -= X[y > 0].T @ np.linalg.lstsq(X[y > 0].T, v, rcond=None)[0]  # keeps x_i·w = y_i on I+
        w = sol.w + 1e-3 * v
        if np.all(X[y <= 0] @ w <= 0):
            assert np.linalg.norm(w) > np.linalg.norm(sol.w)


def test_positive_subset_least_squares():
    X, y = random_problem(15, 200, seed=6)
    ls = R.positive_subset_least_squares(X, y)
    pos = y > 0
    expected = X[pos].T @ np.linalg.solve(X[pos] @ X[pos].T, y[pos])
    np.testing.assert_allclose(ls.w, expected, rtol=1e-10)
    assert ls.problem == "positive_subset" and ls.kkt_residual < 1e-10
    assert np.all(ls.nu[~pos] == 0)
    assert ls.beta[~pos].max() > 0  # it violates some ReLU constraint, unlike w*
    gram = R.positive_subset_least_squares_gram(X @ X.T, y)
    np.testing.assert_allclose(gram.nu, ls.nu, rtol=1e-9)


def test_zero_labels_are_inequality_constraints():
    """y_i = 0 belongs to I-: x_i.w <= 0 for w* (against SLSQP), and is left out of the
    positive-subset interpolation (against lstsq on the rows with y_i > 0)."""
    X, y = random_problem(12, 30, seed=10)
    y[np.flatnonzero(y > 0)[:2]] = 0.0
    pos = y > 0
    assert pos.sum() >= 3
    ref = slsqp_min_norm(X, y)
    sol = R.min_norm_solution(X, y)
    assert np.linalg.norm(sol.w - ref) / np.linalg.norm(ref) < 1e-7
    assert sol.beta[y == 0].max() < -1e-2  # strictly inactive: an equality x_i.w = 0 would differ
    assert sol.kkt_residual < 1e-10 and not sol.tight[y == 0].any()
    ls = R.positive_subset_least_squares(X, y)
    np.testing.assert_allclose(ls.w, np.linalg.lstsq(X[pos], y[pos], rcond=None)[0], rtol=1e-10)
    gram = R.positive_subset_least_squares_gram(X @ X.T, y)
    assert gram.problem == "positive_subset" and gram.w is None
    np.testing.assert_allclose(gram.nu @ X, ls.w, rtol=1e-10)


@pytest.mark.parametrize("eq_error,beta_neg,nu_neg,expected", [
    (0.5, [0.2, -0.1], [0.5, -4.0], 0.25),   # |beta_i - y_i| on I+: 0.5 / ||y||_inf = 0.5 / 2
    (0.0, [0.6, -0.1], [0.5, -4.0], 0.3),    # (beta_i)_+ on I-: 0.6 / 2
    (0.0, [0.0, -0.1], [1.0, -4.0], 0.25),   # (nu_i)_+ on I-: 1 / ||nu||_inf = 1 / 4
    (0.0, [-0.2, -3.0], [0.0, -4.0], 1.5),   # |nu_i beta_i| on I-: 12 / (4 * 2)
])
def test_kkt_residual_is_the_documented_violation(eq_error, beta_neg, nu_neg, expected):
    """MinNormSolution.kkt_residual on points that are not the solution, by hand from its definition."""
    from ibcore.relu.min_norm import _kkt
    y = np.array([2.0, -1.0, 0.0, 1.0])
    beta = np.array([2.0 + eq_error, *beta_neg, 1.0])
    nu = np.array([1.0, *nu_neg, 0.0])
    assert _kkt(beta, nu, y, y > 0) == pytest.approx(expected, rel=1e-12)
    assert _kkt(beta, nu, y, y > 0, inequalities=False) == pytest.approx(eq_error / 2, abs=1e-15)


def test_degenerate_labels():
    X, y = random_problem(6, 20, seed=7)
    none_positive = R.min_norm_solution(X, -np.abs(y))
    assert np.all(none_positive.w == 0) and none_positive.kkt_residual == 0
    all_positive = R.min_norm_solution(X, np.abs(y))
    np.testing.assert_allclose(all_positive.w, X.T @ np.linalg.solve(X @ X.T, np.abs(y)), rtol=1e-10)


def test_min_norm_pair_and_gram_pair():
    X, y = random_problem(10, 80, seed=8)
    pair = R.min_norm_pair(X, y)
    np.testing.assert_allclose(pair[1], R.min_norm_solution(X, -y).w)
    np.testing.assert_allclose(R.min_norm_pair_gram(X @ X.T, y) @ X, pair, rtol=1e-9,
                               atol=1e-12 * np.abs(pair).max())


# ---------------------------------------------------------------------------
# several neurons with a disjoint pattern


def disjoint_problem(n=24, d=2000, m=4, seed=2):
    rng = np.random.default_rng(seed)
    y = rng.uniform(-1, 1, n)
    X = R.sample_features(n, d, rng=rng)
    signs = R.default_signs(m)
    return y, X, signs, R.sign_aligned_assignment(y, signs)


def test_disjoint_targets_satisfy_their_constraints():
    y, X, signs, a = disjoint_problem()
    K = X @ X.T
    nu = R.disjoint_targets_gram(K, y, a, signs)
    beta = nu @ K
    for j, s in enumerate(signs):
        own = a == j
        np.testing.assert_allclose(beta[j, own], s * y[own], atol=1e-10)
        assert np.all(beta[j, ~own] <= 1e-10)
        assert np.all(nu[j, ~own] <= 1e-12)  # multipliers of the inequality constraints
        assert np.all(np.abs(nu[j, ~own] * beta[j, ~own]) < 1e-10)  # complementary slackness
        # neuron j's target is the one-neuron w* of the labels s_j y on S_j and 0 elsewhere
        np.testing.assert_allclose(nu[j] @ X, R.min_norm_solution(X, np.where(own, s * y, 0.0)).w, atol=1e-12)


def test_unassigned_examples_stay_inactive_on_every_neuron():
    """assignment -1: the example belongs to no S_j, so every neuron's target keeps x_i.w <= 0;
    on an orthonormal X, w*_j is s_j y on S_j and 0 elsewhere (the one-neuron w* by hand)."""
    y = np.array([1.0, -2.0, 0.5, -0.3, 0.7])
    a = np.array([0, 1, -1, -1, 0])
    X = np.eye(5, 8)
    nu = R.disjoint_targets_gram(X @ X.T, y, a, np.array([1.0, -1.0]))
    np.testing.assert_allclose(nu, [[1.0, 0, 0, 0, 0.7], [0, 2.0, 0, 0, 0]], atol=1e-12)


def test_disjoint_targets_need_a_sign_aligned_assignment():
    y, X, signs, a = disjoint_problem()
    K = X @ X.T
    wrong = a.copy()
    wrong[np.flatnonzero(y > 0)[0]] = 1  # a positive label on the negative neuron 1
    with pytest.raises(ValueError, match="s_j y_i > 0"):
        R.disjoint_targets_gram(K, y, wrong, signs)
    with pytest.raises(ValueError, match="assignment"):
        R.disjoint_targets_gram(K, y, np.full(y.size, 7), signs)


def test_linear_limit_is_the_prologue_limit_on_each_subset():
    """Neuron j's limit is linear GD on the rows of S_j from w_j(0) (the prologue's gd_limit), and its
    frozen part is (I - P_S) w_j(0): checked in weight space against ibcore.linear, from X itself."""
    y, X, signs, a = disjoint_problem()
    K = X @ X.T
    alpha0 = R.disjoint_init_gram(K, a, m=signs.size, b0=0.3)
    result = R.disjoint_linear_limit_gram(K, y, a, signs, alpha0)
    W0 = alpha0 @ X
    for j, s in enumerate(signs):
        S = a == j
        expected = linear.gd_limit(X[S], s * y[S], W0[j])
        np.testing.assert_allclose(result.limit[j] @ X, expected, atol=1e-10 * np.linalg.norm(expected))
        frozen = W0[j] - linear.row_space_projection(X[S], W0[j])
        np.testing.assert_allclose(result.frozen[j] @ X, frozen, atol=1e-10 * np.linalg.norm(W0[j]))


def test_gd_reaches_the_linear_limit_when_the_pattern_is_kept():
    y, X, signs, a = disjoint_problem()
    K = X @ X.T
    alpha0 = R.disjoint_init_gram(K, a, m=signs.size, b0=0.3)
    run = R.gradient_descent_gram(K, y, alpha0, lr=R.lr_from_contraction_gram(0.05, K), record_every=None)
    assert np.all(run.last_change == 0)
    limit = R.disjoint_linear_limit_gram(K, y, a, signs, alpha0).limit
    assert R.norm_gram(K, run.coef - limit) / R.norm_gram(K, limit) < 1e-8


def test_closest_targets_are_the_projection_of_the_initialisation():
    """W° satisfies the pattern's constraints, is closer to W(0) than the min-norm targets, and equals
    the linear limit (the equality-only projection) when that limit already satisfies the inequalities."""
    y, X, signs, a = disjoint_problem()
    K = X @ X.T
    alpha0 = R.disjoint_init_gram(K, a, m=signs.size, b0=0.3)
    closest = R.disjoint_closest_targets_gram(K, y, a, signs, alpha0)
    beta = closest @ K
    for j, s in enumerate(signs):
        own = a == j
        np.testing.assert_allclose(beta[j, own], s * y[own], atol=1e-10)
        assert np.all(beta[j, ~own] <= 1e-10)
    targets = R.disjoint_targets_gram(K, y, a, signs)
    assert R.norm_gram(K, closest - alpha0) <= R.norm_gram(K, targets - alpha0)
    limit = R.disjoint_linear_limit_gram(K, y, a, signs, alpha0).limit
    assert np.all((limit @ K)[a[None, :] != np.arange(signs.size)[:, None]] < 0)  # b0 = 0.3 keeps it inside
    assert R.norm_gram(K, closest - limit) < 1e-10 * R.norm_gram(K, limit)


def test_closest_targets_with_inequalities_that_bind():
    """A start that violates the pattern (beta_j(0) = +b0 off S_j): the projection must pull those
    pre-activations down to 0 exactly, which the equality-only limit does not do."""
    y, X, signs, a = disjoint_problem(n=10, d=400, m=2)
    K = X @ X.T
    alpha0 = np.linalg.solve(K, np.full((2, 10), 0.2).T).T  # beta_j(0) = 0.2 on every example
    closest = R.disjoint_closest_targets_gram(K, y, a, signs, alpha0)
    beta = closest @ K
    off = a[None, :] != np.arange(2)[:, None]
    assert np.all(beta[off] <= 1e-10) and np.any(np.abs(beta[off]) < 1e-10)


# ---------------------------------------------------------------------------
# every array is checked, by name

_X = np.eye(3, 4)
_Y = np.array([1.0, -0.5, 2.0])
_FEATURE_FORMS = [R.min_norm_solution, R.positive_subset_least_squares, R.min_norm_pair]
_GRAM_FORMS = [R.min_norm_solution_gram, R.positive_subset_least_squares_gram, R.min_norm_pair_gram]


@pytest.mark.parametrize("fn", _FEATURE_FORMS + _GRAM_FORMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("which, bad, message", [
    ("data", lambda a: np.where(a == 0, np.nan, a), "must be finite"),
    ("data", lambda a: a[0], "must have 2 dimension"),
    ("y", lambda a: np.where(a < 0, np.nan, a), "must be finite"),
    ("y", lambda a: a[:2], r"must have shape \(3,\)"),
])
def test_a_bad_array_is_refused_by_its_name(fn, which, bad, message):
    data, name = (_X @ _X.T, "K") if fn in _GRAM_FORMS else (_X, "X")
    args = {"data": data, "y": _Y}
    args[which] = bad(args[which])
    name = name if which == "data" else "y"
    with pytest.raises(ValueError, match=rf"^{name} {message}"):
        fn(args["data"], args["y"])


@pytest.mark.parametrize("seed", [0, 2])
def test_kkt_residual_of_the_solvers_is_the_documented_violation(seed):
    """MinNormSolution.kkt_residual recomputed from its definition (the attribute's docstring), for
    the solvers' own output: the min-norm solution counts its inequalities (on these draws they give
    the largest violation, at rounding level), the positive-subset fit only its equalities."""
    X, y = random_problem(30, 60, seed)
    pos = y > 0
    star, pls = R.min_norm_solution(X, y), R.positive_subset_least_squares(X, y)
    for sol, inequalities in ((star, True), (pls, False)):
        ys, ns = np.abs(y).max(), np.abs(sol.nu).max()
        terms = [np.abs(sol.beta[pos] - y[pos]).max() / ys]
        if inequalities:
            neg = ~pos
            terms += [max(sol.beta[neg].max(), 0.0) / ys, max(sol.nu[neg].max(), 0.0) / ns,
                      np.abs(sol.nu[neg] * sol.beta[neg]).max() / (ns * ys)]
        assert sol.kkt_residual == max(terms)
    assert star.kkt_residual < 1e-13
