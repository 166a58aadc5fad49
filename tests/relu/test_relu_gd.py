"""Gradient descent: primal–dual form against the weight-space reference, and the structural facts of §7."""
import warnings

import numpy as np
import pytest

import ibcore.relu as R
from ibcore.relu import stability

from .independent import plain_gd_network
from .weight_space import gradient_descent_weight_space


def rel(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(b)


def assert_same_run(a, b, rtol=1e-10):
    """Two GDResults describe the same trajectory: states to rtol, patterns exactly."""
    assert a.n_steps == b.n_steps and a.success == b.success
    assert rel(a.w, b.w) < rtol
    assert rel(a.history.beta, b.history.beta) < rtol
    assert rel(a.history.alpha, b.history.alpha) < rtol
    np.testing.assert_array_equal(a.history.step, b.history.step)
    np.testing.assert_array_equal(a.history.active, b.history.active)
    np.testing.assert_array_equal(a.last_change, b.last_change)
    np.testing.assert_array_equal(a.reactivations, b.reactivations)
    assert a.loss == pytest.approx(b.loss, rel=rtol, abs=1e-15)


def test_primal_dual_matches_weight_space_one_neuron(problem):
    X, y, w0, lr = problem
    pd = R.gradient_descent(X, y, w0, lr=lr)
    ws = gradient_descent_weight_space(X, y, w0, lr=lr)
    assert pd.success and pd.w.shape == (X.shape[1],) and pd.beta.shape == (X.shape[0],)
    assert R.reactivation_count(pd) > 0  # the comparison covers re-activation events too
    assert_same_run(pd, ws)


def test_primal_dual_matches_weight_space_two_neurons(problem):
    X, y, _, lr = problem
    w0 = R.two_neuron_init(X, b0=0.1, trace=X.shape[1])
    pd = R.gradient_descent(X, y, w0, lr=lr, max_steps=3000, tol=0, record_every=7)
    ws = gradient_descent_weight_space(X, y, w0, lr=lr, max_steps=3000, tol=0, record_every=7)
    assert pd.w.shape == (2, X.shape[1]) and pd.beta.shape == (2, X.shape[0])
    np.testing.assert_array_equal(pd.signs, [1.0, -1.0])
    assert_same_run(pd, ws)


def test_primal_dual_matches_weight_space_general_m(problem):
    X, y, _, _ = problem
    signs = np.array([1.0, -1.0, 1.0, -1.0])
    w0 = R.gaussian_init(X.shape[1], m=4, rng=3) + R.all_active_init(X, b0=0.2, m=4)
    lr = 0.5 * stability._stability_bound(X @ X.T, m=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.InactivePositiveWarning)
        pd = R.gradient_descent(X, y, w0, lr=lr, signs=signs, max_steps=2000, tol=0, record_every=5)
        ws = gradient_descent_weight_space(X, y, w0, lr=lr, signs=signs, max_steps=2000, tol=0,
                                                        record_every=5)
    assert np.any(pd.last_change > 0)
    assert_same_run(pd, ws)


def test_gram_entry_point_matches_feature_entry_point(problem):
    X, y, _, lr = problem
    K = X @ X.T
    alpha0 = R.all_active_init_gram(K, trace=X.shape[1])
    res_x = R.gradient_descent(X, y, alpha0 @ X, lr=lr)
    res_k = R.gradient_descent_gram(K, y, alpha0, lr=lr)
    assert res_k.w is None and res_x.coef is None
    assert res_k.n_steps == res_x.n_steps
    assert rel(res_k.coef @ X, res_x.w) < 1e-10
    assert rel(res_k.history.beta, res_x.history.beta) < 1e-12


def test_tol_zero_runs_exactly_max_steps(problem):
    X, y, w0, lr = problem
    res = R.gradient_descent(X, y, w0, lr=lr, max_steps=37, tol=0, record_every=10)
    assert res.n_steps == 37 and not res.success
    assert res.message == "stopped at the step budget max_steps = 37 (tol = 0 runs every step)"
    np.testing.assert_array_equal(res.history.step, [0, 10, 20, 30, 37])
    end_only = R.gradient_descent(X, y, w0, lr=lr, max_steps=37, tol=0, record_every=None).history
    np.testing.assert_array_equal(end_only.step, [37])  # only the end state
    np.testing.assert_array_equal(end_only.beta[0], res.beta)


def test_stopping_criterion_is_the_documented_one(problem):
    """The run stops at the first step with lr‖∇L(w_t)‖ ≤ tol‖w_{t+1}‖, and not one step earlier."""
    X, y, w0, lr = problem
    tol = 1e-6
    res = R.gradient_descent(X, y, w0, lr=lr, tol=tol, record_every=1)
    n = X.shape[0]

    def ratio(t):  # step length over weight norm, recomputed in weight space
        beta = res.history.beta[t]
        g = X.T @ ((np.maximum(beta, 0) - y) * (beta > 0)) / n
        w_next = w0 + res.history.alpha[t + 1] @ X
        return lr * np.linalg.norm(g) / np.linalg.norm(w_next)

    T = res.n_steps
    assert res.success and ratio(T - 1) <= tol < ratio(T - 2)
    assert res.message == f"the step length fell below tol = 1e-06 times the weights' norm after {T} GD steps"
    short = R.gradient_descent(X, y, w0, lr=lr, tol=tol, max_steps=T - 1)
    assert not short.success and short.message == f"stopped at the step budget max_steps = {T - 1}"


def test_a_stationary_start_stops_after_one_step_unless_tol_is_zero(problem):
    """w0 = 0 is a stationary point (σ'(0) = 0): the first step has length exactly 0, which is
    ≤ tol·‖w_1‖ = 0 for any tol > 0; tol = 0 still runs every step, as documented."""
    X, y, _, lr = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.InactivePositiveWarning)
        stop = R.gradient_descent(X, y, np.zeros(X.shape[1]), lr=lr, max_steps=5)
        run = R.gradient_descent(X, y, np.zeros(X.shape[1]), lr=lr, max_steps=5, tol=0)
    assert stop.success and stop.n_steps == 1 and not run.success and run.n_steps == 5
    assert np.all(run.w == 0)


def test_a_dead_start_too_large_to_square_is_stationary_not_divergent():
    """w0 = -1e200 (1, ..., 1) on X = [I 0]: every pre-activation is -1e200 < 0, so the gradient is 0
    and GD stays at w0, a stationary point; its ‖w‖² = 5e400 overflows a float, but the iterates
    are finite, so it is no divergence: the step of length 0 ≤ tol·‖w‖ stops the run after one step."""
    X, y = np.eye(3, 5), np.array([1.0, -0.5, 2.0])
    w0 = np.full(5, -1e200)
    for start in (w0, np.stack([w0, w0])):   # one neuron, and two
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", R.InactivePositiveWarning)
            res = R.gradient_descent(X, y, start, lr=0.5)
        assert res.success and res.n_steps == 1
        np.testing.assert_array_equal(res.w, start)
        # nothing fitted: the loss is (1/2n) Σ y_i², or (1/2n) Σ (y_i - 0)² with both neurons dead
        assert res.loss == pytest.approx(np.sum(y ** 2) / 6, rel=1e-15)


def test_identity_activation_gives_classical_min_norm_interpolator():
    X = R.sample_features(10, 200, rng=5)
    y = np.random.default_rng(6).uniform(-1, 1, 10)
    w_classical = X.T @ np.linalg.solve(X @ X.T, y)
    for w0 in (np.zeros(200), R.all_active_init(X)):  # any w0 in span(X)
        res = R.gradient_descent(X, y, w0, lr=R.lr_from_contraction(0.5, X), activation="identity",
                                 tol=1e-14, record_every=None)
        assert res.success
        assert rel(res.w, w_classical) < 1e-10


def test_negative_labels_end_exactly_at_zero_and_freeze(problem):
    X, y, w0, lr = problem
    res = R.gradient_descent(X, y, w0, lr=lr, record_every=1)
    neg, pos = y < 0, y > 0
    assert neg.any() and res.success
    # σ(β_i) is exactly 0.0, in the maintained β and recomputed from the weights
    assert np.all(np.maximum(res.beta[neg], 0.0) == 0.0)
    assert np.all(np.maximum(X[neg] @ res.w, 0.0) == 0.0)
    assert np.all(res.predictions[neg] == 0.0)
    # α_i is constant (bit for bit) after the example's last pattern change
    for i in np.flatnonzero(neg):
        t = res.last_change[i]
        assert t > 0 and not res.history.active[t, i]
        assert np.all(res.history.alpha[t:, i] == res.alpha[i])
    # §7 checks 2-4: positives interpolated, loss = L_min, GD stays in w0 + span(X)
    assert np.abs(X[pos] @ res.w - y[pos]).max() < 1e-9
    assert res.loss == pytest.approx(np.sum(y[neg] ** 2) / (2 * y.size), rel=1e-12)
    delta = res.w - w0
    off_span = delta - X.T @ np.linalg.lstsq(X.T, delta, rcond=None)[0]
    assert np.linalg.norm(off_span) / np.linalg.norm(res.w) < 1e-10


def recount_patterns(act):
    """From the patterns 1{β_t > 0} of every step (leading axis t): the last step at which each
    entry changed (0 if never) and how many times it switched back to active."""
    changed = act[1:] != act[:-1]
    last = np.where(changed.any(axis=0), act.shape[0] - 1 - np.argmax(changed[::-1], axis=0), 0)
    ever_before = np.maximum.accumulate(act, axis=0)[:-1]
    return last, (~act[:-1] & act[1:] & ever_before).sum(axis=0)  # only switches *back* to active


@pytest.mark.parametrize("init", ["all_active", "gaussian"])
def test_pattern_bookkeeping_matches_a_recount_of_the_history(problem, init):
    X, y, _, _ = problem
    X = X[:, :60]  # d = 60: many pattern changes
    w0 = R.all_active_init(X) if init == "all_active" else R.gaussian_init(60, scale=0.3, rng=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.InactivePositiveWarning)
        res = R.gradient_descent(X, y, w0, lr=R.lr_from_contraction(0.01, X), record_every=1)
    act = res.history.active
    last, react = recount_patterns(act)
    assert react.sum() > 0
    if init == "gaussian":  # some examples switch on for the first time: not re-activations
        ever_before = np.maximum.accumulate(act, axis=0)[:-1]
        assert (~act[:-1] & act[1:] & ~ever_before).any()
    np.testing.assert_array_equal(res.last_change, last)
    np.testing.assert_array_equal(res.reactivations, react)
    assert R.stabilisation_step(res) == last.max()
    assert R.reactivation_count(res) == react.sum()


def test_history_records_loss_and_patterns(problem):
    X, y, w0, lr = problem
    res = R.gradient_descent(X, y, w0, lr=lr, record_every=100)
    h = res.history
    assert h.step[0] == 0 and h.step[-1] == res.n_steps
    assert np.all(np.diff(h.step) > 0) and np.all(h.step[:-1] % 100 == 0)
    np.testing.assert_array_equal(h.active, h.beta > 0)
    recomputed = [np.sum((np.maximum(b, 0) - y) ** 2) / (2 * y.size) for b in h.beta]
    np.testing.assert_allclose(h.loss, recomputed, rtol=1e-12)
    assert h.loss[-1] == pytest.approx(res.loss)


def test_two_neuron_sign_aligned_disjoint_init_on_orthogonal_data():
    """Exact theory: each neuron fits its own examples and the others stay frozen at -b0,
    so the gap to (w*(y), w*(-y)) is b0·sqrt(n / Σ y²)."""
    n, d, b0 = 16, 64, 0.05
    X = R.orthogonal_features(n, d, rng=2)
    y = np.random.default_rng(3).uniform(-1, 1, n)
    y[np.abs(y) < 0.1] = 0.5  # keep |y| > b0 so no example crosses zero
    w0 = R.disjoint_init(X, R.sign_aligned_assignment(y, [1, -1]), m=2, b0=b0)
    res = R.gradient_descent(X, y, w0, lr=R.lr_from_contraction(0.2, X), tol=1e-14)
    gap = R.relative_gap(res.w, R.min_norm_pair(X, y))
    assert gap == pytest.approx(b0 * np.sqrt(n / np.sum(y ** 2)), rel=1e-8)
    assert np.abs(res.predictions - y).max() < 1e-10


def test_tiny_initialisation_can_stall(problem):
    """Notes §7.12: with pre-activations ≈ 1e-3, cross-talk switches positives off and GD stalls
    above L_min on some draws, while the ≈ 1 initialisation reaches it on the same draws."""
    stalled = 0
    for seed in range(4):
        X = R.sample_features(20, 100, rng=seed)
        y = np.random.default_rng(100 + seed).uniform(-1, 1, 20)
        lr = R.lr_from_contraction(0.01, X)
        l_min = np.sum(y[y < 0] ** 2) / 40
        good = R.gradient_descent(X, y, R.all_active_init(X, trace=100), lr=lr, record_every=None)
        assert good.loss == pytest.approx(l_min, rel=1e-9)
        tiny = R.gradient_descent(X, y, R.all_active_init(X, b0=1e-3, trace=100), lr=lr, record_every=None)
        stalled += tiny.loss > l_min + 1e-6
    assert stalled >= 1


@pytest.mark.parametrize("entry", ["features", "gram"])
@pytest.mark.parametrize("activation", ["relu", "identity"])
def test_network_gd_is_plain_weight_space_gd(entry, activation):
    """Three neurons of mixed signs, one of them starting at w = 0, against GD written out in numpy
    (tests/relu/independent.py): every returned array, the recorded history and the pattern
    bookkeeping. With σ'(0) = 0 the ReLU neuron at 0 never moves (β stays exactly 0, inactive)."""
    n, d, T, k = 12, 30, 150, 40
    X = R.sample_features(n, d, rng=21)
    y = np.random.default_rng(22).uniform(-1, 1, n)
    A0 = np.vstack([np.random.default_rng(23).normal(0, 0.2, n), np.full(n, 0.3), np.zeros(n)])
    W0, signs = A0 @ X, np.array([1.0, 1.0, -1.0])   # not default_signs(3) = (+, -, +): the signs must reach the solver
    lr = 0.5 * stability._stability_bound(X @ X.T, m=3)
    run = dict(lr=lr, signs=signs, max_steps=T, tol=0, record_every=k, activation=activation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", R.InactivePositiveWarning)
        if entry == "features":
            res = R.gradient_descent(X, y, W0, **run)
        else:
            res = R.gradient_descent_gram(X @ X.T, y, A0, **run)
    relu = activation == "relu"
    W = plain_gd_network(X, y, W0, signs, lr, T, relu=relu)
    B = W @ X.T
    H = np.maximum(B, 0) if relu else B
    loss = np.sum((np.einsum("j,tjn->tn", signs, H) - y) ** 2, axis=1) / (2 * n)
    w_end = res.w if entry == "features" else res.coef @ X
    assert rel(w_end, W[-1]) < 1e-10 and rel(res.beta, B[-1]) < 1e-10
    assert rel(res.alpha @ X, W[-1] - W0) < 1e-10  # w_T = w_0 + Xᵀα_T
    assert rel(res.predictions, signs @ H[-1]) < 1e-10
    assert res.loss == pytest.approx(loss[-1], rel=1e-9, abs=1e-12 * loss[0])
    assert res.n_steps == T and not res.success and res.lr == lr and res.activation == activation
    h, at = res.history, [0, 40, 80, 120, 150]
    np.testing.assert_array_equal(h.step, at)
    assert h.beta.shape == h.alpha.shape == h.active.shape == (5, 3, n)
    assert rel(h.beta, B[at]) < 1e-10 and rel(h.alpha @ X, W[at] - W0) < 1e-10
    np.testing.assert_allclose(h.loss, loss[at], rtol=1e-9, atol=1e-12 * loss[0])
    assert h.active.dtype == bool and res.last_change.dtype.kind == res.reactivations.dtype.kind == "i"
    if relu:
        np.testing.assert_array_equal(h.active, B[at] > 0)
        assert np.all(W[:, 2] == 0) and np.all(res.beta[2] == 0) and not h.active[:, 2].any()
        last, react = recount_patterns(B > 0)
        assert last.max() > 0 and react.sum() > 0
    else:
        assert h.active.all()
        last, react = np.zeros((3, n), int), np.zeros((3, n), int)
    np.testing.assert_array_equal(res.last_change, last)
    np.testing.assert_array_equal(res.reactivations, react)


def test_step_size_helpers_at_their_edges():
    """The stability bound uses a λ_max given by the caller, and refuses by default; the step of a
    contraction c is c n / mean |x_i|², also for features of norm below 1 (all-zero features
    refused); the default contraction follows the spectrum through R0."""
    K = np.diag([4.0, 2.0, 1.0])
    assert stability._stability_bound(K) == 2.0 * 3 / 4.0
    assert stability._check_stability(0.1, K, 1, lam_max=8.0, check=False) == 2.0 * 3 / 8.0
    with pytest.raises(ValueError, match="stability bound"):
        stability._check_stability(1.6, K, 1)
    X = 0.1 * np.ones((4, 5))   # |x_i|^2 = 0.05
    assert R.lr_from_contraction(0.01, X) == pytest.approx(0.01 * 4 / 0.05)
    with pytest.raises(ValueError, match="features are all zero"):
        R.lr_from_contraction(0.01, np.zeros((4, 5)))
    iso = R.default_contraction(10, 10**5)
    spiked = R.default_contraction(10, 10**5, spectrum=R.Spectrum.spiked(10**5, [1000.0]))
    assert iso == pytest.approx(0.002) and spiked > 3 * iso   # R0 ≈ 9,200 against 10^5
