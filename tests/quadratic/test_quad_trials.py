"""The trials of Part II follow the book's protocol, and equal the computation they stand for."""
import inspect

import numpy as np
import pytest

import ibcore.experiments.quadratic as E
import ibcore.quadratic as q
from ibcore.summary import summarise
from ibcore.sweep import sweep

TRIALS = [E.ode_escape_time_trial, E.sgd_escape_time_trial, E.sgd_ode_gap_trial, E.sgd_frame_drift_trial,
          E.sgd_snapshot_trial, E.ode_frame_drift_trial]
SMALL = {
    E.ode_escape_time_trial: dict(p=3, p_star=2, N=1000),
    E.sgd_escape_time_trial: dict(p=3, p_star=2, N=100, lr=0.3),
    E.sgd_ode_gap_trial: dict(p=3, p_star=2, N=100, lr=0.3, t_max=0.5),
    E.sgd_frame_drift_trial: dict(p=3, p_star=2, N=100, lr=0.3, t_max=2.0),
    E.sgd_snapshot_trial: dict(p=3, p_star=2, N=40, lr=0.3, t_max=0.5, noise=0.2),
    E.ode_frame_drift_trial: dict(p=3, p_star=2, N=100, t_max=2.0),
}


@pytest.mark.parametrize("trial", TRIALS, ids=lambda f: f.__name__)
def test_protocol(trial):
    """Keyword-only parameters, rng=None, a flat dict of numbers, the same numbers for the same seed."""
    params = inspect.signature(trial).parameters.values()
    assert all(v.kind is v.KEYWORD_ONLY for v in params)
    assert inspect.signature(trial).parameters["rng"].default is None
    record = trial(**SMALL[trial], rng=np.random.default_rng(0))
    assert isinstance(record, dict) and record
    assert all(isinstance(v, (int, float, bool)) for v in record.values()), record
    assert trial(**SMALL[trial], rng=0) == trial(**SMALL[trial], rng=np.random.default_rng(0))
    with pytest.raises(TypeError):
        trial(*SMALL[trial].values())


@pytest.mark.parametrize("trial,bad,name", [
    (E.sgd_escape_time_trial, dict(lr=0.0), "lr"),          # once an OverflowError (1/lr before checks)
    (E.sgd_escape_time_trial, dict(lr=100.0), "lr"),        # no plateau at this lr
    (E.sgd_escape_time_trial, dict(N=0), "N"),
    (E.sgd_escape_time_trial, dict(fraction=1.5), "fraction"),
    (E.ode_escape_time_trial, dict(p=1), "p"),
    (E.ode_escape_time_trial, dict(lr=-1.0), "lr"),
    (E.ode_escape_time_trial, dict(t_max=0.0), "t_max"),
    (E.ode_escape_time_trial, dict(q0=0.0), "q0"),
    (E.sgd_ode_gap_trial, dict(lr=0.0), "lr"),
    (E.sgd_ode_gap_trial, dict(t_max=-1.0), "t_max"),
    (E.sgd_ode_gap_trial, dict(informative=-0.1), "informative"),
    (E.sgd_ode_gap_trial, dict(n_records=0), "n_records"),
    (E.sgd_frame_drift_trial, dict(p=1), "p"),
    (E.sgd_frame_drift_trial, dict(t_max=0.0), "t_max"),
    (E.sgd_frame_drift_trial, dict(lr=0.0), "lr"),
    (E.ode_frame_drift_trial, dict(p=1), "p"),
    (E.ode_frame_drift_trial, dict(lr=0.0), "lr"),
    (E.ode_frame_drift_trial, dict(t_max=-1.0), "t_max"),
    (E.ode_frame_drift_trial, dict(q0=0.0), "q0"),
    (E.sgd_snapshot_trial, dict(simulator="weight"), "simulator"),
    (E.sgd_snapshot_trial, dict(simulator="weights", _squared_norm="N"), "_squared_norm"),
    (E.sgd_snapshot_trial, dict(_squared_norm="chi2"), "_squared_norm"),
    (E.sgd_snapshot_trial, dict(n_records=0), "n_records"),
    (E.sgd_snapshot_trial, dict(n_records=10**6), "n_records"),
    (E.sgd_snapshot_trial, dict(noise=-1.0), "noise"),
    (E.sgd_snapshot_trial, dict(t_max=0.0), "t_max"),
    (E.sgd_snapshot_trial, dict(N=4), "N"),
])
def test_bad_input_raises_before_any_draw(trial, bad, name):
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=rf"^{name} "):
        trial(**{**SMALL[trial], **bad}, rng=rng)
    assert rng.bit_generator.state == state, "the trial drew random numbers before validating"


@pytest.mark.parametrize("lr", [None, 0.4])
def test_ode_escape_time_trial_against_the_full_odes(lr):
    """The trial integrates the reduced system with an event; the full matrix ODEs from the trial's
    own draw, sampled densely, cross half the plateau risk at the same time; s_min and s_max are
    the extreme singular values of sqrt(N) R(0)."""
    p, p_star, N = 4, 2, 10**5
    record = E.ode_escape_time_trial(p=p, p_star=p_star, N=N, lr=lr, rng=np.random.default_rng(4))
    Q0, R0, T = q.initial_overlaps(p, p_star, N, rng=np.random.default_rng(4))
    full = q.integrate_odes(Q0, R0, T, lr=lr, t_max=12.0, grid="linear", n_points=4801)
    level = 0.5 * q.plateau_risk(p, p_star, lr=lr)
    i = np.flatnonzero(full.risk < level)[0]
    t_cross = np.interp(level, full.risk[[i, i - 1]], full.t[[i, i - 1]])
    assert record["t_esc"] == pytest.approx(t_cross, abs=1e-3)
    sv = np.linalg.svd(np.sqrt(N) * R0, compute_uv=False)
    assert (record["s_min"], record["s_max"]) == pytest.approx((sv.min(), sv.max()), rel=1e-12)


def test_sgd_escape_time_trial_is_one_run_and_its_ode():
    p, p_star, N, lr = 3, 2, 200, 0.3
    rng = np.random.default_rng(8)
    W0, W_star = q.random_init(p, p_star, N, rng=rng)
    level = 0.5 * q.plateau_risk(p, p_star, lr=lr)
    t_max = p_star * np.log(N) + 10
    run = q.sgd_overlaps(*q.overlaps(W0, W_star), N=N, lr=lr, t_max=t_max, rng=rng, record_every=N // 10,
                         stop_below=level)
    ode = q.integrate_odes(*q.overlaps(W0, W_star), lr=lr, t_max=t_max, grid="linear",
                           n_points=int(20 * t_max) + 1)   # the full run: the trial stops its ODE at the escape
    record = E.sgd_escape_time_trial(p=p, p_star=p_star, N=N, lr=lr, rng=np.random.default_rng(8))
    assert record["t_esc_sgd"] == run.escape_time()
    assert record["t_esc_ode"] == pytest.approx(ode.escape_time(), abs=1e-9)
    assert run.success and 0.2 < record["t_esc_sgd"] < 5 and 0.2 < record["t_esc_ode"] < 5


def test_sgd_ode_gap_trial_is_the_comparison():
    kw = dict(p=3, p_star=2, N=150, lr=0.3, t_max=0.8)
    c = E.sgd_ode_comparison(**kw, rng=np.random.default_rng(2))
    record = E.sgd_ode_gap_trial(**kw, rng=np.random.default_rng(2))
    assert record["gap"] == np.max(np.abs(c.ode.risk - c.sgd.risk))
    assert record["gap_gradient_flow"] == np.max(np.abs(c.gradient_flow.risk - c.sgd.risk))
    assert record["rms_gap"] < record["gap"] and record["risk_start"] == c.sgd.risk[0]


@pytest.mark.parametrize("simulator", ["weights", "overlaps"])
def test_sgd_snapshot_trial_is_one_run_from_the_fixed_start(simulator):
    """The trial's numbers, recomputed by hand from the same run of the simulator it names, from
    the start drawn from ``start`` (whatever the trial's rng), at the steps k n / n_records."""
    kw = dict(p=3, p_star=2, N=60, lr=0.3, t_max=0.9, noise=0.2)
    W0, W_star = q.random_init(3, 2, 60, informative=0.3, rng=11)
    n = q.sgd_steps(0.9, p=3, lr=0.3, N=60)
    steps = np.array([0, n // 3, 2 * n // 3, n])
    if simulator == "weights":
        run = q.sgd_one_pass(W0, W_star, lr=0.3, n_steps=n, record_steps=steps, noise=0.2, rng=5)
    else:
        run = q.sgd_overlaps(*q.overlaps(W0, W_star), N=60, lr=0.3, n_steps=n, record_steps=steps, noise=0.2,
                             rng=5)
    record = E.sgd_snapshot_trial(**kw, start=11, simulator=simulator, rng=5)
    assert len(record) == 9
    for k in (1, 2, 3):
        assert record[f"norm_{k}"] == np.trace(run.Q[k]) / 3
        assert record[f"overlap_{k}"] == np.sum(run.R[k] ** 2) / 3
        assert record[f"risk_{k}"] == run.risk[k]
    assert record != E.sgd_snapshot_trial(**kw, start=12, simulator=simulator, rng=5)


def test_sgd_frame_drift_trial_is_the_drift_of_one_run():
    """The trial's numbers, recomputed from the same SGD run by hand."""
    p, p_star, N, lr = 3, 2, 200, 0.15
    rng = np.random.default_rng(0)
    W0, W_star = q.random_init(p, p_star, N, informative=0.6, rng=rng)
    run = q.sgd_overlaps(*q.overlaps(W0, W_star), N=N, lr=lr, t_max=2.0, rng=rng, record_every=N // 10)
    S = q.conserved_frame(run.R)
    drift = np.linalg.norm(S - S[-1], axis=(1, 2))
    k = np.searchsorted(run.t, run.escape_time())        # first record at or after the escape
    rec = E.sgd_frame_drift_trial(p=p, p_star=p_star, N=N, lr=lr, t_max=2.0, informative=0.6,
                                  rng=np.random.default_rng(0))
    same = dict(rel=0, abs=0)  # the trial's run is this run, bit for bit
    assert rec["drift_start"] == pytest.approx(drift[0], **same)
    assert rec["drift_escape"] == pytest.approx(drift[k], **same)
    assert rec["drift_after"] == pytest.approx(drift[k:].max(), **same)
    assert rec["risk_end"] == pytest.approx(run.risk[-1], **same)
    # the ODE with the gamma^2 term from the run's own overlaps: its frame's motion, and how far
    # the run's final frame ends from the ODE's
    ode = q.integrate_odes(*q.overlaps(W0, W_star), lr=lr, t_max=2.0, n_points=50)
    S_ode = q.conserved_frame(ode.R)
    assert rec["drift_ode"] == pytest.approx(np.linalg.norm(S_ode[0] - S_ode[-1]), rel=1e-6, abs=1e-9)
    assert rec["sgd_to_ode"] == pytest.approx(np.linalg.norm(S[-1] - S_ode[-1]), rel=1e-6, abs=1e-9)
    # an O(1) overlap: no plateau, an early escape, S moves by O(N^-1/2) only, and the run converges
    assert rec["t_esc"] < 1.0 and rec["drift_start"] < 0.25 and rec["drift_after"] < 0.1
    assert rec["risk_end"] < 0.05


def test_sgd_frame_drift_random_start_moves_the_frame_before_escape():
    table = sweep(E.sgd_frame_drift_trial, {"N": [200]}, fixed=dict(p=3, p_star=2, lr=0.15, t_max=3.0),
                  trials=6, seed=0, n_jobs=1, cache=False, progress=False)
    assert len(table) == 6
    assert set(table.columns) >= {"p", "p_star", "N", "lr", "trial", "drift_start", "drift_after"}
    assert np.all(np.isfinite(table["t_esc"]))
    # the frame is scrambled on the plateau, not after the escape (notes §5, §9.13)
    assert np.mean(table["drift_start"]) > 3 * np.mean(table["drift_after"])
    assert np.all(table["drift_after"] < 0.2)
    mean = summarise(table, (), "drift_start", stat="mean")
    assert mean["count"][0] == 6 and mean["mean"][0] == pytest.approx(table["drift_start"].mean())


def test_ode_frame_drift_trial_turns_the_frame_by_the_anisotropy_of_a_finite_n_start():
    """The N-floor: the ODE from the exact overlaps of random_init (the draw of the SGD trials).
    Its turn equals the SGD trial's drift_ode from the same generator (same start, same ODE);
    it falls like N^-1/2, so a hundredfold N divides the median turn by about ten; and from
    the isotropic Q(0) with the same R(0) the frame does not turn at all (the theorem)."""
    kw = dict(p=3, p_star=2, t_max=2.5)
    rec = E.ode_frame_drift_trial(**kw, N=64, lr=0.12, rng=3)
    sgd = E.sgd_frame_drift_trial(**kw, N=64, lr=0.12, rng=3)
    assert rec["floor"] == pytest.approx(sgd["drift_ode"], rel=1e-9)
    assert rec["s_min"] == sgd["s_min"]
    small, large = ([E.ode_frame_drift_trial(**kw, N=N, rng=s)["floor"] for s in range(8)] for N in (100, 10_000))
    assert 4 < np.median(small) / np.median(large) < 25
    Q0, R0, T = q.overlaps(*q.random_init(3, 2, 100, rng=np.random.default_rng(0)))
    iso = q.integrate_odes(np.trace(Q0) / 3 * np.eye(3), R0, np.eye(2), t_eval=[0.0, 2.5])
    assert q.frame_drift(iso.R).max() < 1e-9 < small[0]
    assert E.ode_frame_drift_trial(**kw, N=100, rng=0)["s_min"] == pytest.approx(
        np.linalg.svd(np.sqrt(100) * R0, compute_uv=False).min(), rel=1e-12)
