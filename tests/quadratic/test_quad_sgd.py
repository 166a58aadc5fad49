"""The blocked SGD simulator: equality with the plain recursion, and agreement with the ODEs."""
import warnings

import numpy as np
import pytest

import ibcore.quadratic as q
from ibcore.quadratic.clock import _sgd_time
from ibcore import DivergenceError

from .independent import sgd_one_pass_reference


@pytest.mark.parametrize("noise", [0.0, 0.2])
@pytest.mark.parametrize("block", [16, 5, 1])
def test_blocked_equals_step_by_step(noise, block):
    W0, W_star = q.random_init(4, 2, 300, informative=0.3, rng=0)
    kw = dict(lr=0.2, n_steps=2000, rng=7, noise=noise, record_every=37)
    ref = sgd_one_pass_reference(W0, W_star, **kw)
    fast = q.sgd_one_pass(W0, W_star, block=block, **kw)
    np.testing.assert_array_equal(fast.step, ref.step)
    np.testing.assert_array_equal(fast.t, ref.t)
    assert fast.step[0] == 0 and fast.n_steps == 2000 and fast.success and ref.success
    assert np.max(np.abs(fast.W - ref.W)) < 1e-12 * np.max(np.abs(ref.W))
    assert np.max(np.abs(fast.Q - ref.Q)) < 1e-12
    assert np.max(np.abs(fast.risk - ref.risk)) < 1e-12
    # the run actually moved (the check is not comparing two copies of W0)
    assert np.max(np.abs(ref.W - W0)) > 0.1


def test_runs_are_reproducible_and_seeds_differ():
    W0, W_star = q.random_init(3, 2, 200, rng=1)
    a = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=3)
    b = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=np.random.default_rng(3))
    c = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=500, rng=4)
    np.testing.assert_array_equal(a.W, b.W)
    assert np.max(np.abs(a.W - c.W)) > 1e-3


def test_record_steps_and_stop_below():
    W0, W_star = q.random_init(3, 2, 200, informative=0.5, rng=2)
    rec = np.array([0, 10, 100, 1000, 4000])
    run = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0, record_steps=rec)
    np.testing.assert_array_equal(run.step, rec)
    assert run.step.dtype.kind == "i" and isinstance(run.n_steps, int)
    np.testing.assert_allclose(run.t, 0.15 / 3 * rec / 200)
    Q, R, T = q.overlaps(run.W, W_star)
    np.testing.assert_allclose(run.Q[-1], Q, atol=1e-14)
    assert run.risk[0] == pytest.approx(q.population_risk(*q.overlaps(W0, W_star)))
    level = 0.5 * run.risk[0]
    stopped = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0, record_every=20, stop_below=level)
    assert stopped.success and stopped.risk[-1] < level <= stopped.risk[-2]
    assert stopped.n_steps < 4000
    missed = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=40, rng=0, record_every=20, stop_below=level)
    assert not missed.success and missed.n_steps == 40
    # a start already below the level stops at its first record, and has reached its goal
    at_once = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0, record_every=20, stop_below=2 * run.risk[0])
    assert at_once.success and at_once.step.tolist() == [0] and at_once.n_steps == 0
    assert at_once.Q.shape == (1, 3, 3) and at_once.R.shape == (1, 3, 2)
    # record_every=None records the end state only, the same state as a recorded run's last
    end = q.sgd_one_pass(W0, W_star, lr=0.15, n_steps=4000, rng=0)
    np.testing.assert_array_equal(end.step, [4000])
    np.testing.assert_allclose(end.Q[0], run.Q[-1], atol=1e-12)


def test_t_max_is_the_one_clock():
    """t_max in t' = (lr/p) steps/N gives round(t_max p N / lr) steps, and the records carry t'."""
    W0, W_star = q.random_init(4, 2, 300, rng=3)
    run = q.sgd_one_pass(W0, W_star, lr=0.4, t_max=1.0, rng=1, record_every=100)
    assert run.n_steps == q.sgd_steps(1.0, p=4, lr=0.4, N=300) == 3000
    assert run.t[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(run.t, _sgd_time(run.step, p=4, lr=0.4, N=300))
    same = q.sgd_one_pass(W0, W_star, lr=0.4, n_steps=3000, rng=1, record_every=100)
    np.testing.assert_array_equal(run.W, same.W)
    # one rounding rule: the nearest whole step, at least one
    assert q.sgd_steps(1.0, p=4, lr=0.4, N=299) == round(1.0 * 4 / 0.4 * 299)
    assert q.sgd_steps(1e-9, p=1, lr=1.0, N=10) == 1


def test_divergence_reports_the_same_step_as_the_reference():
    W0, W_star = q.random_init(4, 2, 500, informative=0.3, rng=0)
    steps = []
    for run in (q.sgd_one_pass, sgd_one_pass_reference):
        with pytest.raises(DivergenceError) as info:
            run(W0, W_star, lr=5.0, n_steps=3000, rng=5)
        steps.append(info.value.step)
    assert steps[0] == steps[1]
    assert 1 < steps[0] < 3000
    with pytest.raises(DivergenceError) as info:
        q.sgd_one_pass(W0, W_star, lr=5.0, n_steps=3000, rng=5, block=1)
    err = info.value
    assert err.step == steps[0] and err.unit == "SGD step"
    assert err.time == pytest.approx(5.0 / 4 * steps[0] / 500) and "t′" in str(err)


def test_sgd_tracks_the_second_order_ode():
    """N = 1000, informative start (notes' addendum): |risk_SGD - risk_ODE| < 0.02 all along.

    Controls: the gradient-flow ODE (no lr^2 term) and an ODE with a 25% wrong
    learning rate are detectably further from the same SGD run.
    """
    p, p_star, N = 4, 2, 1000
    lr = 0.02 * p
    W0, W_star = q.random_init(p, p_star, N, informative=0.3, rng=0)
    run = q.sgd_one_pass(W0, W_star, lr=lr, t_max=3.0, rng=100, record_every=250)
    Q0, R0, T = q.overlaps(W0, W_star)

    def gap(clock=1.0, **kw):
        ode = q.integrate_odes(Q0, R0, T, t_eval=clock * run.t, **kw)
        return np.max(np.abs(ode.risk - run.risk))

    right = gap(lr=lr)
    gradient_flow = gap()
    wrong_lr = gap(lr=1.25 * lr, clock=1.25)   # a wrong lr also runs the clock t' = (lr/p) steps/N fast
    assert run.risk[-1] < 0.05 * run.risk[0]        # the run escapes and converges
    assert right < 0.02
    assert gradient_flow > 2 * right and gradient_flow > 0.02
    assert wrong_lr > 0.05


# ---- against an independent plain SGD (the module docstring's recursion, written out here)

def _plain_sgd(W0, W_star, lr, X, xi, record):
    """w_i <- w_i - lr grad_{w_i} (y_hat - y)^2 / 2, one input (row of X) at a time, in float64.

    Returns the weights after each step in ``record`` (0 = before the first step)."""
    W = np.array(W0, dtype=float)
    p, N = W.shape
    p_star = W_star.shape[0]
    out = {0: W.copy()}
    for mu, x in enumerate(X, start=1):
        lam, nu = W @ x / np.sqrt(N), W_star @ x / np.sqrt(N)
        err = lam @ lam / p - (nu @ nu / p_star + xi[mu - 1])
        # grad_W (y_hat - y)^2 / 2 = err * (2/p) lam x^T / sqrt(N)
        W = W - lr * err * (2.0 / p) * np.outer(lam, x) / np.sqrt(N)
        out[mu] = W.copy()
    return [out[s] for s in record]


def _risk_from_weights(W, W_star, noise):
    """E (y_hat - y)^2 / 2 for x ~ N(0, I_N): y_hat - y_clean = x^T A x / N with
    A = W^T W / p - W*^T W* / p*, and E (x^T A x)^2 = (tr A)^2 + 2 tr A^2."""
    p, N = W.shape
    A = W.T @ W / p - W_star.T @ W_star / W_star.shape[0]
    return 0.5 * (np.trace(A) ** 2 + 2 * np.sum(A * A)) / N**2 + noise / 2


def _streams(seed, n, N, noise):
    """The documented random numbers: inputs from rng in step order, label noise
    sqrt(noise) * standard normals from one child spawned from rng."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, N))
    xi = np.sqrt(noise) * rng.spawn(1)[0].standard_normal(n) if noise else np.zeros(n)
    return X, xi


def _assert_is_plain_sgd(run, W0, W_star, lr, noise, seed, record):
    p, N = W0.shape
    X, xi = _streams(seed, record[-1], N, noise)
    Ws = _plain_sgd(W0, W_star, lr, X, xi, record)
    np.testing.assert_array_equal(run.step, record)
    np.testing.assert_allclose(run.t, lr / p * np.asarray(record) / N, rtol=1e-14)
    scale = np.max(np.abs(Ws[-1]))
    assert np.max(np.abs(run.W - Ws[-1])) < 1e-11 * scale
    np.testing.assert_allclose(run.Q, [W @ W.T / N for W in Ws], rtol=0, atol=1e-11)
    np.testing.assert_allclose(run.R, [W @ W_star.T / N for W in Ws], rtol=0, atol=1e-11)
    np.testing.assert_allclose(run.T, W_star @ W_star.T / N, rtol=1e-14)
    np.testing.assert_allclose(run.risk, [_risk_from_weights(W, W_star, noise) for W in Ws],
                               rtol=1e-9, atol=1e-12)
    assert run.lr == lr and run.noise == noise and run.N == N and run.kind == "sgd"
    assert np.max(np.abs(Ws[-1] - W0)) > 0.05 * np.max(np.abs(W0))   # the run moved


def _gaussian_pair(p, p_star, N, seed):
    """Student and teacher with Gaussian entries: T = W* W*^T / N is not the identity."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((p, N)), 1.3 * rng.standard_normal((p_star, N))


@pytest.mark.parametrize("lr", [0.05, 0.3])
@pytest.mark.parametrize("noise", [0.0, 0.3])
def test_simulators_are_plain_sgd_on_the_documented_random_numbers(noise, lr):
    """Blocked (three block sizes, none dividing the record interval) and step-by-step
    simulators against _plain_sgd: weights, Q, R, T, risk, clock, at every record."""
    p, p_star, N, n = 3, 2, 40, 600
    W0, W_star = _gaussian_pair(p, p_star, N, seed=5)
    assert np.max(np.abs(W_star @ W_star.T / N - np.eye(p_star))) > 0.1
    record = list(range(0, n, 37)) + [n]
    kw = dict(lr=lr, rng=11, noise=noise)
    for block in (16, 7, 1):
        run = q.sgd_one_pass(W0, W_star, n_steps=n, record_every=37, block=block, **kw)
        _assert_is_plain_sgd(run, W0, W_star, lr, noise, 11, record)
    ref = sgd_one_pass_reference(W0, W_star, n_steps=n, record_steps=record, **kw)
    _assert_is_plain_sgd(ref, W0, W_star, lr, noise, 11, record)
    # the horizon in t' = (lr/p) steps/N: the same run
    t_max = lr / p * n / N
    for run in (q.sgd_one_pass(W0, W_star, t_max=t_max, **kw),
                sgd_one_pass_reference(W0, W_star, t_max=t_max, **kw)):
        _assert_is_plain_sgd(run, W0, W_star, lr, noise, 11, [n])


def test_label_noise_enters_with_variance_delta():
    """The label noise read back from the recorded overlaps has mean 0 and variance Delta.

    p = p* = 1 and a record at every step: R_{mu+1} - R_mu = -(2 lr/p) e_mu lam_mu nu_mu / N
    gives each step's error e_mu = y_hat - y (inputs replayed, weights rebuilt from e);
    the noise is e_clean - e. n = 4000 draws: the sample variance of a normal sample has
    relative standard error sqrt(2/(n-1)) = 2.2%, the mean sqrt(Delta/n); both within 5 of them.
    """
    N, n, lr, noise = 30, 4000, 0.05, 0.25
    W_star = np.random.default_rng(3).standard_normal((1, N))
    run = q.sgd_one_pass(W_star, W_star, lr=lr, n_steps=n, rng=21, noise=noise, record_every=1)
    X = np.random.default_rng(21).standard_normal((n, N))
    w, w_star, c = W_star[0].copy(), W_star[0], 2 * lr
    eta = np.empty(n)
    for mu, x in enumerate(X):
        lam, nu = w @ x / np.sqrt(N), w_star @ x / np.sqrt(N)
        e = -(run.R[mu + 1, 0, 0] - run.R[mu, 0, 0]) * N / (c * lam * nu)
        eta[mu] = (lam**2 - nu**2) - e
        w = w - c * e * lam * x / np.sqrt(N)
    np.testing.assert_allclose(run.Q[-1, 0, 0], w @ w / N, rtol=1e-8)  # the read-back is the run
    assert abs(eta.var(ddof=1) / noise - 1) < 5 * np.sqrt(2 / (n - 1))
    assert abs(eta.mean()) < 5 * np.sqrt(noise / n)
    assert abs(np.corrcoef(eta[1:], eta[:-1])[0, 1]) < 5 / np.sqrt(n)  # a fresh draw per step


def test_stop_below_uses_the_risk_with_noise_and_teacher():
    """The run stops at the first record whose risk (Delta/2 and T != I included), computed
    from the plain SGD's weights, is below the level."""
    p, p_star, N, n, lr, noise = 3, 2, 40, 3000, 0.2, 0.2
    W0, W_star = _gaussian_pair(p, p_star, N, seed=6)
    record = list(range(0, n, 50)) + [n]
    X, xi = _streams(4, n, N, noise)
    risks = np.array([_risk_from_weights(W, W_star, noise)
                      for W in _plain_sgd(W0, W_star, lr, X, xi, record)])
    first = int(np.flatnonzero(risks < 0.75 * risks[0])[0])
    level = risks[first - 1] - noise / 4
    assert 1 < first < len(record) - 1 and risks[first] < level < np.min(risks[:first])
    assert risks[first - 1] - noise / 2 < level   # without Delta/2 the run would stop a record early
    run = q.sgd_one_pass(W0, W_star, lr=lr, n_steps=n, rng=4, noise=noise, record_every=50,
                         stop_below=level)
    assert run.success and run.n_steps == record[first]
    assert run.message.startswith(f"reached its goal after {record[first]} SGD steps")
    missed = q.sgd_one_pass(W0, W_star, lr=lr, n_steps=record[first - 1], rng=4, noise=noise,
                            record_every=50, stop_below=level)
    assert not missed.success and missed.n_steps == record[first - 1]
    assert missed.message == (f"the risk stayed above stop_below for all {record[first - 1]} "
                              f"SGD steps (t′ = {missed.t[-1]:.6g})")


def test_record_every_records_its_multiples_and_the_last_step():
    W0, W_star = q.random_init(2, 1, 30, rng=0)
    run = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=100, rng=0, record_every=30)
    assert run.step.tolist() == [0, 30, 60, 90, 100]
    run = q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=5, rng=0, record_steps=np.arange(6))
    assert run.step.tolist() == [0, 1, 2, 3, 4, 5]
    assert q.sgd_one_pass(W0, W_star, lr=0.1, n_steps=5, rng=0, record_steps=[5]).step.tolist() == [5]


@pytest.mark.parametrize("simulator", [q.sgd_one_pass, sgd_one_pass_reference])
def test_overflow_is_a_divergence_error_without_numpy_warnings(simulator):
    """With a blowup level near the float limit the error overflows before it is caught:
    reported as divergence, and numpy's overflow warnings stay inside the simulator."""
    W0, W_star = q.random_init(4, 2, 100, informative=0.3, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DivergenceError, match=r"^SGD diverged: \|y_hat - y\| = (inf|nan)"):
            simulator(W0, W_star, lr=50.0, n_steps=400, rng=5, blowup=1e300)


def test_default_block_is_the_largest_within_the_cache_budget():
    """Documented rule: the largest b <= 16 whose b x N float64 block fits ~640 kB, at least 4."""
    for N in [10, 100, 4000, 5000, 5001, 8889, 10_000, 20_000, 20_001, 30_000, 10**6]:
        b = q.sgd._default_block(N)
        assert isinstance(b, int) and 4 <= b <= 16
        assert b == 4 or b * N * 8 <= 640_000
        assert b == 16 or (b + 1) * N * 8 > 640_000


@pytest.mark.parametrize("noise, stop", [(0.0, None), (0.4, 0.6)])
def test_runs_stepped_together_are_the_runs_alone(noise, stop):
    """SGD on the weights of several runs stepped together (the snapshot trial's batch) gives each
    run the numbers it has alone, bit for bit, label noise included; a run that reaches stop_below
    stops there while the others go on."""
    from ibcore.quadratic.sgd import _sgd_one_pass_runs

    starts = [tuple(q.random_init(3, 2, 80, informative=0.3, rng=s)) for s in range(3)]
    kw = dict(lr=0.3, n_steps=700, record_every=50, noise=noise, stop_below=stop)
    together = _sgd_one_pass_runs(*zip(*starts), rngs=[7, 8, 9], **kw)
    for (W0, W_star), seed, run in zip(starts, [7, 8, 9], together):
        alone = q.sgd_one_pass(W0, W_star, rng=seed, **kw)
        np.testing.assert_array_equal(run.step, alone.step)
        np.testing.assert_array_equal(run.Q, alone.Q)
        np.testing.assert_array_equal(run.R, alone.R)
        np.testing.assert_array_equal(run.W, alone.W)
        assert run.success == alone.success
    if stop is not None:
        assert len({run.n_steps for run in together}) > 1, "the runs stopped at different steps"
    with pytest.raises(ValueError, match="same non-zero length"):
        _sgd_one_pass_runs([starts[0][0]], [starts[0][1]] * 2, rngs=[1], **kw)
    wider = tuple(q.random_init(3, 2, 90, informative=0.3, rng=0))  # another N: two shapes
    with pytest.raises(ValueError, match=r"^every run needs the same shapes, got W0 and W_star shapes "):
        _sgd_one_pass_runs([starts[0][0], wider[0]], [starts[0][1], wider[1]], rngs=[1, 2], **kw)


def test_a_run_that_starts_below_stop_below_stops_at_once_in_a_batch():
    """In a batch, a run whose start is already below ``stop_below`` keeps its one record while
    the others go on, and each run's numbers are those it has alone."""
    from ibcore.quadratic.sgd import _sgd_one_pass_runs

    W0, W_star = q.random_init(3, 2, 80, informative=0.3, rng=0)
    at_goal = np.vstack([W_star, np.zeros((1, 80))])  # a zero-loss point: its risk is the noise's
    kw = dict(lr=0.3, n_steps=700, record_every=50, noise=0.4, stop_below=0.6)
    runs = _sgd_one_pass_runs([at_goal, W0], [W_star, W_star], rngs=[1, 2], **kw)
    assert runs[0].success and runs[0].step.tolist() == [0] and runs[0].Q.shape == (1, 3, 3)
    np.testing.assert_array_equal(runs[0].W, at_goal)
    for run, start, seed in zip(runs, [at_goal, W0], [1, 2]):
        alone = q.sgd_one_pass(start, W_star, rng=seed, **kw)
        np.testing.assert_array_equal(run.step, alone.step)
        np.testing.assert_array_equal(run.Q, alone.Q)
    assert runs[1].step.size > 1
