"""One-pass SGD on the overlaps alone (ibcore.quadratic.overlap_chain) against the weights' SGD.

Three independent checks of the derivation in the module's docstring:

* the steps are the weights' steps: fed the z = L^-1 (lambda, nu) and |x|^2 of real inputs x, the
  chain records W W^T / N and W W*^T / N of the plain SGD steps on those x (to rounding);
* the draws have the law of the real ones: E[u u^T] = Sigma and E[|x|^2 u u^T] = (N + 2) Sigma
  (Isserlis, with u = M x and |x|^2 = x^T x), which the real draws also meet;
* whole runs: the mean risk of the chain and of sgd_one_pass at the same records agree within
  their standard errors over many runs, and a chain with a wrong update does not.
"""
import warnings

import numpy as np
import pytest

import ibcore.experiments.quadratic as E
import ibcore.quadratic as q
from ibcore.quadratic.clock import _sgd_time
from ibcore import DivergenceError
from ibcore.quadratic import overlap_chain as oc


def _sigma(W, W_star):
    M = np.vstack([W, W_star]) / np.sqrt(W.shape[1])
    return M @ M.T


def _weights_steps(W, W_star, X, lr, xi=None):
    """Plain SGD on the weights over the inputs X (rows), with label noise xi (or none): the
    z = L^-1 (lambda, nu) that each step meets, and Sigma before the first step and after each."""
    p, p_star, N = W.shape[0], W_star.shape[0], W.shape[1]
    Z, sigmas = [], [_sigma(W, W_star)]
    for x, e in zip(X, np.zeros(len(X)) if xi is None else xi):
        lam, nu = W @ x / np.sqrt(N), W_star @ x / np.sqrt(N)
        Z.append(np.linalg.solve(np.linalg.cholesky(sigmas[-1]), np.r_[lam, nu]))
        W = W - 2.0 * lr / p * (lam @ lam / p - nu @ nu / p_star - e) * np.outer(lam, x) / np.sqrt(N)
        sigmas.append(_sigma(W, W_star))
    return Z, sigmas


def _chain_fed(monkeypatch, W0, W_star, Z, X, lr, xi=None, noise=0.0):
    """The library's chain from the overlaps of (W0, W*), its draws replaced by Z, the |x|^2 of
    the inputs X and the noise xi, recording after every step."""
    n_steps, N = len(X), W0.shape[1]
    block = [np.zeros((1, oc._BLOCK, len(Z[0]))), np.full((1, oc._BLOCK), float(N)),
             None if xi is None else np.zeros((1, oc._BLOCK))]
    block[0][0, :n_steps], block[1][0, :n_steps] = Z, np.einsum("ij,ij->i", X, X)
    if xi is not None:
        block[2][0, :n_steps] = xi
    monkeypatch.setattr(oc, "_draw_block", lambda *args: tuple(block))
    return q.sgd_overlaps(*q.overlaps(W0, W_star), N=N, lr=lr, n_steps=n_steps, noise=noise, rng=0,
                          record_every=1)


def _assert_records_are(run, sigmas, p):
    for k, S in enumerate(sigmas):
        np.testing.assert_allclose(run.Q[k], S[:p, :p], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(run.R[k], S[:p, p:], rtol=1e-10, atol=1e-12)


def _chain_step(S, u, x2, p, p_star, lr, N):
    """The chain's update of Sigma, written out as in the module docstring, for one run."""
    weights = np.r_[np.full(p, 1.0 / p), np.full(p_star, -1.0 / p_star)]
    student = np.r_[np.ones(p), np.zeros(p_star)]
    a = 2.0 * lr / p * float(u * u @ weights)
    c = (a * a * x2 / N - 2.0 * a) / N
    lam = u * student
    v = u * (0.5 * c * student - a / N * (1.0 - student))
    return S + np.outer(lam, v) + np.outer(v, lam)


@pytest.mark.parametrize("p, p_star, N", [(4, 2, 50), (3, 3, 400)])
def test_steps_fed_real_inputs_are_the_weights_steps(p, p_star, N, monkeypatch):
    """The library's chain, its draws replaced by the z = L^-1 u and |x|^2 of real inputs x, records
    after every step the overlaps of the weights' SGD on those inputs (to rounding)."""
    W0, W_star = q.random_init(p, p_star, N, informative=0.4, rng=0)
    lr = 0.8  # a large lr: the a^2 |x|^2 term matters
    X = np.random.default_rng(1).standard_normal((40, N))
    Z, sigmas = _weights_steps(W0, W_star, X, lr)
    _assert_records_are(_chain_fed(monkeypatch, W0, W_star, Z, X, lr), sigmas, p)
    assert np.max(np.abs(sigmas[-1] - sigmas[0])) > 0.01  # the steps moved the overlaps


def test_the_update_written_out_is_the_weights_step():
    """The update of the module docstring, written out here (_chain_step, used below), is the
    weights' step for a real input, to rounding."""
    p, p_star, N, lr = 4, 2, 50, 0.8
    W, W_star = q.random_init(p, p_star, N, informative=0.4, rng=0)
    x = np.random.default_rng(1).standard_normal(N)
    lam, nu = W @ x / np.sqrt(N), W_star @ x / np.sqrt(N)
    S = _chain_step(_sigma(W, W_star), np.r_[lam, nu], x @ x, p, p_star, lr, N)
    np.testing.assert_allclose(S, _weights_steps(W, W_star, x[None], lr)[1][-1], rtol=1e-12, atol=1e-14)


def _moment_misses(U, x2, S, N):
    """How far draws (u, |x|^2) are from the moments of a real input, in standard errors (the
    largest of the four): E[u u^T] = Sigma, E[|x|^2 u u^T] = (N + 2) Sigma (Isserlis, with u = M x
    and |x|^2 = x^T x), E|x|^2 = N and Var |x|^2 = 2N."""
    n = len(x2)
    scale = np.sqrt(np.outer(np.diag(S), np.diag(S)))
    second = U.T @ U / n
    fourth = (U * x2[:, None]).T @ U / n
    # standard errors about sqrt(2 / n) and sqrt(2.2 / n) of scale
    return max(np.max(np.abs(second - S) / scale) / np.sqrt(2 / n),
               np.max(np.abs(fourth / (N + 2) - S) / scale) / np.sqrt(2.2 / n),
               abs(x2.mean() - N) / np.sqrt(2 * N / n),
               abs(x2.var() / (2 * N) - 1) / np.sqrt(2 * (1 + 6 / N) / n))


def _chain_draws(S, N, squared_norm="exact", runs=800):
    """The library's draws (_draw_block) for ``runs`` generators, as u = L z and |x|^2."""
    r = len(S)
    Z, x2, _ = oc._draw_block([np.random.default_rng(s) for s in range(runs)], [None] * runs, r, N, 0.0,
                              squared_norm)
    n = Z.shape[0] * Z.shape[1]
    return Z.reshape(n, -1) @ np.linalg.cholesky(S).T, x2.reshape(n)


def test_the_draws_have_the_moments_of_a_real_input():
    """The library's draws (_draw_block) and real inputs x, with u = L z and u = M x, meet the
    moments of a real input within 6 standard errors."""
    p, p_star, N = 3, 2, 30
    W, W_star = q.random_init(p, p_star, N, informative=0.5, rng=2)
    S = _sigma(W, W_star)
    U, x2 = _chain_draws(S, N)
    X = np.random.default_rng(3).standard_normal((len(x2), N))
    U_real = X @ np.vstack([W, W_star]).T / np.sqrt(N)
    x2_real = np.einsum("ij,ij->i", X, X)
    assert _moment_misses(U, x2, S, N) < 6
    assert _moment_misses(U_real, x2_real, S, N) < 6


@pytest.mark.parametrize("squared_norm", ["N", "chi2_N", "independent"])
def test_the_negative_controls_have_the_wrong_moments(squared_norm):
    """The hook for negative controls (_squared_norm) does break the law of |x|^2: at N = 30 each
    wrong law misses a moment of a real input by 10 standard errors or more (|x|^2 := N and
    |x|^2 drawn apart from u give E[|x|^2 u u^T] = N Sigma, chi^2_N gives (N + r + 2) Sigma), while
    the exact draws stay within 6 (the test above). A misspelt law is refused."""
    p, p_star, N = 3, 2, 30
    S = _sigma(*q.random_init(p, p_star, N, informative=0.5, rng=2))
    U, x2 = _chain_draws(S, N, squared_norm)
    assert _moment_misses(U, x2, S, N) > 10
    with pytest.raises(ValueError, match="_squared_norm"):
        oc._sgd_overlaps_runs([np.eye(3)], [np.zeros((3, 2))], [None], N=N, lr=0.3, n_steps=3, rngs=[0],
                              _squared_norm="chi2")


def test_runs_agree_with_the_weights_sgd_within_their_spread():
    """48 runs each, (p, p*) = (4, 2), N = 200, gamma/p = 0.1, informative start, to t' = 1.5: the
    mean risk at 6 records agrees within 4 standard errors of the difference (the largest of the
    6 was below 0.8 for 8 sets of seeds; the next test shows that a wrong chain fails it)."""
    p, p_star, N, lr, runs = 4, 2, 200, 0.4, 48
    n_steps = q.sgd_steps(1.5, p=p, lr=lr, N=N)
    starts = [q.random_init(p, p_star, N, informative=0.3, rng=s) for s in range(runs)]
    sgd = np.array([q.sgd_one_pass(W0, Ws, lr=lr, n_steps=n_steps, rng=100 + s, record_every=n_steps // 6).risk
                    for s, (W0, Ws) in enumerate(starts)])
    chain = oc._sgd_overlaps_runs(*zip(*(q.overlaps(W0, Ws) for W0, Ws in starts)), N=N, lr=lr, n_steps=n_steps,
                                  rngs=[200 + s for s in range(runs)], record_every=n_steps // 6)
    chain = np.array([run.risk for run in chain])
    np.testing.assert_array_equal(chain[:, 0], sgd[:, 0])  # the same starts
    se = np.sqrt(sgd[:, 1:].var(0, ddof=1) / runs + chain[:, 1:].var(0, ddof=1) / runs)
    z = np.abs(sgd[:, 1:].mean(0) - chain[:, 1:].mean(0)) / se
    assert np.all(z < 4), z
    assert sgd[:, -1].mean() < 0.5 * sgd[:, 0].mean()  # the runs learned


def test_a_wrong_update_is_caught_by_the_run_comparison():
    """The comparison above can fail: with twice the a^2 |x|^2 term (twice the gamma^2 term of the
    ODEs) the chain's mean risk leaves the weights' SGD by more than 4 standard errors."""
    p, p_star, N, lr, runs = 4, 2, 100, 0.4, 24
    n_steps = q.sgd_steps(1.5, p=p, lr=lr, N=N)
    starts = [q.random_init(p, p_star, N, informative=0.3, rng=s) for s in range(runs)]
    sgd = np.array([q.sgd_one_pass(W0, Ws, lr=lr, n_steps=n_steps, rng=100 + s, record_every=n_steps // 4).risk
                    for s, (W0, Ws) in enumerate(starts)])
    rng = np.random.default_rng(0)
    wrong = []
    for W0, Ws in starts:
        S, risks = _sigma(W0, Ws), []
        for step in range(1, n_steps + 1):
            z = rng.standard_normal(p + p_star)
            x2 = z @ z + rng.chisquare(N - p - p_star)
            S = _chain_step(S, np.linalg.cholesky(S) @ z, 2.0 * x2, p, p_star, lr, N)
            if step % (n_steps // 4) == 0:
                risks.append(q.population_risk(S[:p, :p], S[:p, p:], S[p:, p:]))
        wrong.append(risks)
    wrong = np.array(wrong)
    se = np.sqrt(sgd[:, 1:].var(0, ddof=1) / runs + wrong.var(0, ddof=1) / runs)
    assert np.max(np.abs(sgd[:, 1:].mean(0) - wrong.mean(0)) / se) > 4


@pytest.mark.parametrize("noise", [0.0, 0.3])
def test_a_run_is_the_same_alone_or_in_a_batch_and_stops_on_its_own(noise):
    """A batch steps only the runs that have not stopped (and draws only for them): the others
    keep the numbers they have alone, bit for bit, label noise included."""
    N, lr = 100, 0.3
    starts = [q.overlaps(*q.random_init(3, 2, N, rng=s)) for s in range(3)]
    level = 0.5 * q.plateau_risk(3, 2, lr=lr, noise=noise)
    together = oc._sgd_overlaps_runs(*zip(*starts), N=N, lr=lr, t_max=12.0, rngs=[5, 6, 7], record_every=10,
                                     stop_below=level, noise=noise)
    for start, seed, run in zip(starts, [5, 6, 7], together):
        alone = q.sgd_overlaps(*start, N=N, lr=lr, t_max=12.0, rng=seed, record_every=10, stop_below=level,
                               noise=noise)
        np.testing.assert_array_equal(run.Q, alone.Q)
        np.testing.assert_array_equal(run.step, alone.step)
        assert run.success and run.risk[-1] < level <= run.risk[-2] and run.W is None
    assert len({run.n_steps for run in together}) > 1, "the runs escaped at different steps"
    assert together[0].N == N and together[0].kind == "sgd"


def test_a_singular_run_stays_singular_and_leaves_its_batch_alone():
    """From a start whose student rows are linearly dependent (here all in the teacher's span,
    W0 = A W* with A of rank p* < p), Sigma stays singular at every step: v^T W = 0 gives
    v^T lambda = 0, so no step undoes it, and the chain factors it by eigh throughout. A batch
    that holds such a run and regular ones gives every run the numbers it has alone, bit for bit:
    a batch that switched all its runs to eigh once one of them is singular fails here."""
    p, p_star, N, lr = 3, 2, 64, 0.3
    W_star = q.random_init(p, p_star, N, rng=1).W_star
    A = np.random.default_rng(2).standard_normal((p, p_star))
    singular = q.overlaps(A @ W_star, W_star)
    regular = [q.overlaps(*q.random_init(p, p_star, N, rng=s)) for s in (3, 4)]
    starts, seeds = [regular[0], singular, regular[1]], [5, 6, 7]
    kw = dict(N=N, lr=lr, n_steps=400, record_every=1)
    together = oc._sgd_overlaps_runs(*zip(*starts), rngs=seeds, **kw)
    for start, seed, run in zip(starts, seeds, together):
        alone = q.sgd_overlaps(*start, rng=seed, **kw)
        np.testing.assert_array_equal(run.Q, alone.Q)
        np.testing.assert_array_equal(run.R, alone.R)
    Q = together[1].Q
    assert np.max(np.abs(Q[-1] - Q[0])) > 0.05  # the singular run moved
    smallest = np.linalg.eigvalsh(Q)[:, 0] / np.linalg.eigvalsh(Q)[:, -1]
    assert np.max(np.abs(smallest)) < 1e-12, "Q stays singular at every step"
    assert np.min(np.linalg.eigvalsh(together[0].Q)[:, 0]) > 0.1  # the regular runs stay regular


def test_records_clock_and_noise_floor():
    Q0, R0, T = q.overlaps(*q.random_init(4, 2, 400, informative=0.3, rng=0))
    run = q.sgd_overlaps(Q0, R0, T, N=400, lr=0.4, t_max=1.0, rng=1, record_steps=np.array([0, 7, 1000, 4000]))
    np.testing.assert_array_equal(run.step, [0, 7, 1000, 4000])
    np.testing.assert_allclose(run.t, _sgd_time(run.step, p=4, lr=0.4, N=400))
    np.testing.assert_array_equal(run.Q[0], Q0)
    np.testing.assert_allclose(run.Q, np.swapaxes(run.Q, 1, 2), rtol=0, atol=0)  # Sigma stays exactly symmetric
    noisy = q.sgd_overlaps(Q0, R0, T, N=400, lr=0.4, t_max=1.0, rng=1, noise=0.5, record_every=1000)
    assert noisy.risk[0] == pytest.approx(run.risk[0] + 0.25)
    with pytest.raises(DivergenceError) as info:
        q.sgd_overlaps(Q0, R0, T, N=400, lr=40.0, n_steps=3000, rng=5)
    assert info.value.unit == "SGD step" and 1 <= info.value.step <= 3000


@pytest.mark.parametrize("kwargs, match", [
    (dict(N=5), r"^N must be at least p \+ p_star = 6"),
    (dict(N=0), r"^N\b"),
    (dict(lr=0.0), r"^lr\b"),
    (dict(t_max=None), r"^t_max\b"),
    (dict(Q0=np.ones((4, 3))), r"^Q0\b"),
    (dict(Q0=np.array([[1.0, 0.5], [0.0, 1.0]]), R0=np.zeros((2, 2))), r"^Q0\b"),
    (dict(Q0=np.full((4, 4), np.nan)), r"^Q0\b"),
    # one start per call: a leading time axis is refused, not taken for a batch
    (dict(Q0=np.stack([np.eye(4)] * 2), R0=np.zeros((2, 4, 2))), r"^Q0\b"),
    (dict(R0=np.zeros((3, 2))), r"^R0\b"),
    (dict(R0=np.full((4, 2), np.inf)), r"^R0\b"),
    (dict(T=np.array([[1.0, np.nan], [0.0, 1.0]])), r"^T\b"),
    (dict(T=np.array([[1.0, 0.5], [0.0, 1.0]])), r"^T\b"),
    (dict(stop_below=-1.0), r"^stop_below\b"),
    (dict(blowup=0.0), r"^blowup\b"),
])
def test_bad_arguments_name_themselves(kwargs, match):
    """Each bad argument is refused by a ValueError whose message starts with its name."""
    args = dict(Q0=np.eye(4), R0=np.zeros((4, 2)), N=100, lr=0.4, t_max=1.0, rng=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        q.sgd_overlaps(args.pop("Q0"), args.pop("R0"), **args)
    with pytest.raises(ValueError, match="same non-zero length"):
        oc._sgd_overlaps_runs([np.eye(4)], [np.zeros((4, 2))], [None], N=100, lr=0.4, t_max=1.0, rngs=[1, 2])


def test_a_batch_of_two_shapes_is_refused_by_its_shapes():
    """Runs stepped together share Sigma's shape; a batch of two (p, p*) is refused with both."""
    with pytest.raises(ValueError, match=r"every run needs the same shapes.*\(3, 2\).*\(4, 2\)"):
        oc._sgd_overlaps_runs([np.eye(3), np.eye(4)], [np.zeros((3, 2)), np.zeros((4, 2))], [None, None],
                              N=100, lr=0.4, t_max=1.0, rngs=[1, 2])


def test_blowup_is_the_chain_s_threshold():
    """``blowup`` reaches the chain: a start off the plateau has errors |y_hat - y| of order 1 at
    every step, so a threshold of 1e-3 stops the run at its first step (the first error would
    have to fall below 1e-3, which it does with probability of order 1e-3), while the default
    threshold, 1e6, lets the same run through."""
    start = q.overlaps(*q.random_init(4, 2, 200, informative=0.3, rng=0))
    kw = dict(N=200, lr=0.4, n_steps=50, rng=1)
    assert q.sgd_overlaps(*start, **kw).n_steps == 50
    with pytest.raises(DivergenceError) as info:
        q.sgd_overlaps(*start, **kw, blowup=1e-3)
    assert info.value.step == 1
    assert info.value.time == pytest.approx(_sgd_time(1, p=4, lr=0.4, N=200))


def test_trials_draw_their_starts_with_their_q0():
    """The trials' protocol draws W0 = sqrt(q0) G with G standard normal (informative = 0), so
    Q(0) = q0 G G^T / N: each diagonal entry is q0 chi^2_N / N, mean q0 and standard deviation
    q0 sqrt(2 / N) (0.0035 here), and the off-diagonal ones have standard deviation q0 / sqrt(N).
    The runs start from those overlaps."""
    q0, N = 0.25, 10_000
    starts, runs = oc._runs_from_random_init(3, 2, N, q0=q0, informative=0.0, rngs=[1, 2], lr=0.1, n_steps=1,
                                             record_steps=np.array([0, 1]))
    for (Q0, R0, T), run in zip(starts, runs):
        np.testing.assert_allclose(np.diag(Q0), q0, atol=6 * q0 * np.sqrt(2 / N))
        np.testing.assert_allclose(Q0 - np.diag(np.diag(Q0)), 0.0, atol=6 * q0 / np.sqrt(N))
        np.testing.assert_allclose(R0, 0.0, atol=6 * np.sqrt(q0 / N))
        np.testing.assert_allclose(T, np.eye(2), atol=1e-12)
        np.testing.assert_array_equal(run.Q[0], Q0)
        np.testing.assert_array_equal(run.R[0], R0)


def test_trial_batches_are_the_trials_alone():
    """The sweep's batches of the SGD trials give each trial's own record, bit for bit."""
    for trial, kw in [(E.sgd_ode_gap_trial, dict(p=3, p_star=2, N=64, lr=0.3, t_max=0.5)),
                      (E.sgd_escape_time_trial, dict(p=3, p_star=2, N=64, lr=0.3)),
                      (E.sgd_frame_drift_trial, dict(p=3, p_star=2, N=64, lr=0.12, t_max=2.5)),
                      (E.sgd_snapshot_trial, dict(p=3, p_star=2, N=32, lr=0.3, t_max=0.5, noise=0.3)),
                      (E.sgd_snapshot_trial, dict(p=3, p_star=2, N=32, lr=0.3, t_max=0.5, simulator="weights")),
                      (E.sgd_snapshot_trial, dict(p=3, p_star=2, N=32, lr=0.3, t_max=0.5, _squared_norm="N"))]:
        assert trial.batch(**kw, rngs=[3, 4]) == [trial(**kw, rng=3), trial(**kw, rng=4)], trial.__name__
    kw = dict(p=3, p_star=2, N=64, lr=0.3, t_max=0.5, informative=0.0)
    for together, alone in zip(E.sgd_ode_comparison.batch(**kw, rngs=[3, 4]),
                               [E.sgd_ode_comparison(**kw, rng=3), E.sgd_ode_comparison(**kw, rng=4)]):
        for part in ("sgd", "ode", "gradient_flow"):
            np.testing.assert_array_equal(getattr(together, part).risk, getattr(alone, part).risk)


def test_the_factor_is_choleskys_and_on_the_cone_s_edge_still_a_factor():
    """``_factor``: Cholesky's L for a positive definite Sigma (the chain's draws depend on which
    factor); for a singular one, where Cholesky fails, an L with L L^T = Sigma from the
    eigendecomposition, finite though rounding leaves eigenvalues just below 0; a non-finite
    Sigma is a divergence at the step about to be taken."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((3, 5, 5))
    S = A @ A.transpose(0, 2, 1) + 0.1 * np.eye(5)
    np.testing.assert_array_equal(oc._factor(S, 0, 3, 0.3, 100), np.linalg.cholesky(S))

    B = rng.standard_normal((3, 5, 2))  # rank 2: teacher rows that are student rows, say
    S = B @ B.transpose(0, 2, 1)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(S)
    L = oc._factor(S, 0, 3, 0.3, 100)
    assert np.all(np.isfinite(L))
    np.testing.assert_allclose(L @ L.transpose(0, 2, 1), S, atol=1e-12)

    S[1, 0, 0] = np.nan
    with pytest.raises(DivergenceError) as err:
        oc._factor(S, 41, 3, 0.3, 100)
    assert err.value.step == 42
    assert err.value.time == pytest.approx(_sgd_time(42, p=3, lr=0.3, N=100))


def test_steps_with_label_noise_are_the_weights_steps(monkeypatch):
    """With label noise y = |nu|^2/p* + sqrt(Delta) xi, the chain fed real inputs' z, |x|^2 and
    the noise xi records the weights' overlaps after every step (to rounding). Without the noise
    the overlaps end more than 0.01 away; a chain that ignores xi, adds it to the error, or takes
    it for the error fails here (checked by hand)."""
    p, p_star, N, lr, noise = 3, 2, 60, 0.8, 0.5
    W0, W_star = q.random_init(p, p_star, N, informative=0.4, rng=4)
    X = np.random.default_rng(5).standard_normal((30, N))
    xi = np.sqrt(noise) * np.random.default_rng(6).standard_normal(len(X))
    Z, sigmas = _weights_steps(W0, W_star, X, lr, xi)
    _assert_records_are(_chain_fed(monkeypatch, W0, W_star, Z, X, lr, xi, noise), sigmas, p)
    quiet = _weights_steps(W0, W_star, X, lr)[1][-1]
    assert np.max(np.abs(quiet - sigmas[-1])) > 0.01  # the noise mattered


def _spy_on_draws(monkeypatch):
    """The blocks of random numbers (z, |x|^2, label noise) that runs draw, kept as they go."""
    blocks, draw = [], oc._draw_block
    monkeypatch.setattr(oc, "_draw_block", lambda *args: blocks.append(draw(*args)) or blocks[-1])
    return blocks


@pytest.mark.parametrize("squared_norm, law_holds", [("exact", True), ("N", False)])
def test_a_run_draws_from_the_law_it_is_given(squared_norm, law_holds, monkeypatch):
    """The draws a run steps with have the moments of a real input (|x|^2 := N misses them: its
    variance is 0, not 2N) and label noise of variance Delta, mean 0 (each within 6 standard
    errors, 200 runs of 256 draws)."""
    p, p_star, N, noise, runs = 3, 2, 30, 0.5, 200
    start = q.overlaps(*q.random_init(p, p_star, N, informative=0.5, rng=2))
    Q, R, T = start
    S = np.block([[Q, R], [R.T, T]])
    blocks = _spy_on_draws(monkeypatch)
    oc._sgd_overlaps_runs(*zip(*[start] * runs), N=N, lr=0.3, n_steps=1, rngs=range(runs), noise=noise,
                          _squared_norm=squared_norm)
    ((Z, x2, xi),) = blocks
    n = x2.size
    U = Z.reshape(n, -1) @ np.linalg.cholesky(S).T
    assert (_moment_misses(U, x2.reshape(n), S, N) < 6) == law_holds
    assert abs(xi.mean()) < 6 * np.sqrt(noise / n)
    assert abs(xi.var() / noise - 1) < 6 * np.sqrt(2 / n)
    assert abs(np.mean(xi[:, 1:] * xi[:, :-1])) < 6 * noise / np.sqrt(n)  # a fresh noise at each step


def test_n_may_be_p_plus_p_star(monkeypatch):
    """N = p + p* is allowed: the weights' rows then span the whole input space, x = O z, and
    |x|^2 = |z|^2 exactly (no remainder to draw)."""
    blocks = _spy_on_draws(monkeypatch)
    run = q.sgd_overlaps(np.eye(4), np.zeros((4, 2)), N=6, lr=0.05, n_steps=5, rng=0)
    assert run.n_steps == 5
    ((Z, x2, _),) = blocks
    np.testing.assert_allclose(x2, np.einsum("bkj,bkj->bk", Z, Z), rtol=1e-14)


def test_an_error_equal_to_blowup_is_not_a_divergence(monkeypatch):
    """``blowup`` is the largest error allowed: fed z = 0 (so u = 0 and the error is minus the
    label noise, 0.5, at every step), a run with blowup = 0.5 goes through, and one with the next
    float below 0.5 diverges at its first step."""
    blocks = (np.zeros((1, oc._BLOCK, 6)), np.full((1, oc._BLOCK), 100.0), np.full((1, oc._BLOCK), 0.5))
    monkeypatch.setattr(oc, "_draw_block", lambda *args: blocks)
    kw = dict(N=100, lr=0.4, n_steps=10, rng=0, noise=0.25)
    assert q.sgd_overlaps(np.eye(4), np.zeros((4, 2)), **kw, blowup=0.5).n_steps == 10
    with pytest.raises(DivergenceError) as info:
        q.sgd_overlaps(np.eye(4), np.zeros((4, 2)), **kw, blowup=np.nextafter(0.5, 0.0))
    assert info.value.step == 1


@pytest.mark.parametrize("strict_cholesky", [False, True])
def test_a_run_past_overflow_diverges_at_its_step_without_warnings(strict_cholesky, monkeypatch):
    """With blowup = 1e300 the steps overflow Sigma before an error exceeds it: the run still ends
    in a DivergenceError, at the first step whose Sigma or error is not finite (the same run
    stopped two steps earlier goes through: one step earlier, its last step has made Sigma
    non-finite), with that step's time t', and without numpy's
    overflow or invalid-value warnings. Whether Cholesky's factor of a non-finite Sigma fails
    depends on the LAPACK; ``strict_cholesky`` makes it fail, as reference LAPACK does."""
    if strict_cholesky:
        cholesky = np.linalg.cholesky

        def strict(S):
            if not np.all(np.isfinite(S)):
                raise np.linalg.LinAlgError("not finite")
            return cholesky(S)
        monkeypatch.setattr(np.linalg, "cholesky", strict)
    start = q.overlaps(*q.random_init(4, 2, 200, informative=0.3, rng=0))
    kw = dict(N=200, lr=5.0, rng=1, blowup=1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DivergenceError) as info:
            q.sgd_overlaps(*start, n_steps=5000, **kw)
        step = info.value.step
        assert 1 < step < 5000
        assert info.value.time == pytest.approx(_sgd_time(step, p=4, lr=5.0, N=200), rel=1e-12)
    with np.errstate(over="ignore"):  # the risk of so large a Sigma overflows
        assert q.sgd_overlaps(*start, n_steps=step - 2, **kw).n_steps == step - 2


def test_stop_below_is_strict_and_counts_the_start():
    """``stop_below`` compares each record's population risk, with the run's own T and its noise
    floor Delta/2, to the level, strictly. A start at a zero-loss point (W = W*: Q = R = T, here
    T = I/2, where the risk with T = I would be 0.5) is below 1e-3 at record 0: it stops there, a
    success without a step, while the run beside it (risk about 1) goes on to its end, not a
    success. With label noise Delta = 0.5 the risk is never below its floor, 0.25: a run from
    the zero-loss point with stop_below = 0.25 takes all its steps, and fails. A run without
    stop_below succeeds."""
    half, N = 0.5 * np.eye(2), 100
    other = q.overlaps(*q.random_init(2, 2, N, rng=3))
    stopped, going = oc._sgd_overlaps_runs([half, other.Q], [half, other.R], [half, other.T], N=N, lr=0.3,
                                           n_steps=50, rngs=[1, 2], record_every=10, stop_below=1e-3)
    np.testing.assert_array_equal(stopped.step, [0])
    assert stopped.success and stopped.risk[0] == 0.0
    np.testing.assert_array_equal(going.step, [0, 10, 20, 30, 40, 50])
    assert not going.success and going.risk.min() > 0.1
    floor = q.sgd_overlaps(np.eye(2), np.eye(2), N=N, lr=0.3, n_steps=50, rng=1, record_every=10, noise=0.5,
                           stop_below=0.25)
    np.testing.assert_array_equal(floor.step, [0, 10, 20, 30, 40, 50])
    assert not floor.success and floor.risk[0] == 0.25 and floor.risk.min() >= 0.25
    assert q.sgd_overlaps(np.eye(2), np.eye(2), N=N, lr=0.3, n_steps=50, rng=1).success


def test_a_batch_reports_the_error_that_exceeded(monkeypatch):
    """Of runs stepped together, the divergence names the first run whose error exceeds
    ``blowup``: fed z = 0, the errors are minus the label noise, 0.5 (= blowup, allowed) in the
    first run and 0.7 in the second."""
    xi = np.array([[0.5], [0.7]]) * np.ones((2, oc._BLOCK))
    monkeypatch.setattr(oc, "_draw_block", lambda *args: (np.zeros((2, oc._BLOCK, 6)),
                                                           np.full((2, oc._BLOCK), 100.0), xi))
    with pytest.raises(DivergenceError, match=r"= -0\.7 exceeds 0\.5") as info:
        oc._sgd_overlaps_runs([np.eye(4)] * 2, [np.zeros((4, 2))] * 2, [None] * 2, N=100, lr=0.4, n_steps=10,
                              rngs=[0, 1], noise=0.25, blowup=0.5)
    assert info.value.step == 1


@pytest.mark.parametrize("squared_norm, fourth, mean, dof", [
    ("exact", 32, 30, 30), ("chi2_N", 37, 35, 35), ("independent", 30, 30, 30), ("N", 30, 30, None)])
def test_each_law_of_the_squared_norm_has_its_own_moments(squared_norm, fourth, mean, dof):
    """Each law of ``_SQUARED_NORMS`` (N = 30, r = 5) has the moments that it says, within 6
    standard errors: u ~ N(0, Sigma); E[|x|^2 u u^T] = m Sigma with m = N + 2 (exact), N + r + 2
    (chi^2_N: |z|^2 + chi^2_{N-r} + chi^2_r), N (|x|^2 drawn apart from u, or the constant N);
    |x|^2 a chi^2 of N, N + r or N degrees of freedom (mean and variance 2 dof), or N exactly;
    and the draws of a block independent of one another (lag-one covariance of |x|^2 zero)."""
    p, p_star, N = 3, 2, 30
    S = _sigma(*q.random_init(p, p_star, N, informative=0.5, rng=2))
    U, x2 = _chain_draws(S, N, squared_norm, runs=200)
    n, scale = len(x2), np.sqrt(np.outer(np.diag(S), np.diag(S)))
    assert np.max(np.abs(U.T @ U / n - S) / scale) < 6 * np.sqrt(2 / n)
    assert np.max(np.abs((U * x2[:, None]).T @ U / n / fourth - S) / scale) < 6 * np.sqrt(2.2 / n)
    if dof is None:
        np.testing.assert_array_equal(x2, N)
        return
    var = 2.0 * dof
    assert abs(x2.mean() - mean) < 6 * np.sqrt(var / n)
    assert abs(x2.var() / var - 1) < 6 * np.sqrt(2 * (1 + 6 / dof) / n)
    dev = (x2 - mean).reshape(200, oc._BLOCK)
    assert abs(np.mean(dev[:, 1:] * dev[:, :-1])) < 6 * var / np.sqrt(n)
