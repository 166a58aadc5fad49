"""The overlap ODEs: structure, plateau, norm learning, escape, reduction, late time."""
import numpy as np
import pytest

import ibcore.experiments.quadratic as E
import ibcore.quadratic as q
from ibcore import DivergenceError
from ibcore.summary import summarise
from ibcore.sweep import sweep, trial_seed

from .independent import error_first_moments, population_gradient


def _random_overlaps(p, p_star, rng, n=9):
    W = rng.standard_normal((p, n))
    W_star = rng.standard_normal((p_star, n))
    return q.overlaps(W, W_star)


@pytest.mark.parametrize("noise", [0.0, 0.4])
@pytest.mark.parametrize("teacher", ["generic", "identity"])
def test_rhs_is_built_from_the_moments(noise, teacher):
    """dR/dt' = -2 E[D lam nu], dQ/dt' = -4 E[D lam lam] + 4 (lr/p)(Phi + noise Q), for a generic T
    and for T = I (the right-hand side has a path of its own for it)."""
    p, p_star, lr = 3, 2, 0.3
    Q, R, T = _random_overlaps(p, p_star, np.random.default_rng(0))
    if teacher == "identity":
        T = np.eye(p_star)
    m_R, m_Q = error_first_moments(Q, R, T)
    dQ, dR = q.ode_rhs(Q, R, T, lr=lr, noise=noise)
    np.testing.assert_allclose(dR, -2 * m_R, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dQ, -4 * m_Q + 4 * lr / p * q.phi_matrix(Q, R, T, noise=noise),
                               rtol=1e-12, atol=1e-12)
    dQ_gf, dR_gf = q.ode_rhs(Q, R, T)
    np.testing.assert_allclose(dQ_gf, -4 * m_Q, rtol=1e-12, atol=1e-12)
    if not noise:  # the default is no label noise
        np.testing.assert_allclose(q.ode_rhs(Q, R, T, lr=lr).dQ, dQ, rtol=1e-12, atol=1e-12)


def test_risk_falls_along_gradient_flow_at_minus_p_times_the_squared_gradient():
    """dε/dt' = ∇_Uε · dU/dt' = -p‖∇_Uε‖², both sides by central differences of the closed-form
    risk: along the ODEs' (dQ, dR) on the left, in each weight on the right (∇_U = √N ∇_W)."""
    rng = np.random.default_rng(3)
    p, p_star, N, h = 3, 2, 6, 1e-5
    W, W_star = rng.standard_normal((p, N)), rng.standard_normal((p_star, N))
    Q, R, T = q.overlaps(W, W_star)
    dQ, dR = q.ode_rhs(Q, R, T)
    rate = (q.population_risk(Q + h * dQ, R + h * dR, T) - q.population_risk(Q - h * dQ, R - h * dR, T)) / (2 * h)
    risk = lambda V: q.population_risk(*q.overlaps(V, W_star))  # noqa: E731
    grad_W = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        E = np.zeros_like(W)
        E[idx] = h
        grad_W[idx] = (risk(W + E) - risk(W - E)) / (2 * h)
    assert rate < 0 and rate == pytest.approx(-p * N * np.sum(grad_W**2), rel=1e-7)


def test_gradient_flow_part_is_population_gradient_flow():
    """dU/dt' = -p grad_U eps  implies  dR/dt' = -p grad.U*^T and dQ/dt' = -p (grad U^T + U grad^T)."""
    rng = np.random.default_rng(1)
    p, p_star, N = 3, 2, 11
    W, W_star = rng.standard_normal((p, N)), rng.standard_normal((p_star, N))
    Q, R, T = q.overlaps(W, W_star)
    G = population_gradient(W, W_star)
    U, U_star = W / np.sqrt(N), W_star / np.sqrt(N)
    dQ, dR = q.ode_rhs(Q, R, T)
    np.testing.assert_allclose(dR, -p * G @ U_star.T, atol=1e-12)
    np.testing.assert_allclose(dQ, -p * (G @ U.T + U @ G.T), atol=1e-12)


@pytest.mark.parametrize("p,p_star", [(1, 1), (2, 1), (4, 2), (8, 4)])
@pytest.mark.parametrize("q0", [1.0, 0.3])
def test_gradient_flow_plateau(p, p_star, q0):
    traj = q.integrate_odes(q0 * np.eye(p), np.zeros((p, p_star)), t_max=10.0)   # gradient flow
    assert traj.t[-1] == pytest.approx(10.0) and traj.lr is None
    np.testing.assert_allclose(traj.Q[-1], p / (p + 2) * np.eye(p), atol=1e-8)
    assert traj.risk[-1] == pytest.approx(1 / (p + 2) + 1 / p_star, abs=1e-8)
    assert traj.risk[-1] == pytest.approx(q.plateau_risk(p, p_star), abs=1e-12)


@pytest.mark.parametrize("p,p_star,g", [(4, 2, 0.02), (2, 1, 0.05), (8, 4, 0.1), (3, 2, 0.05)])
def test_second_order_plateau_is_the_root(p, p_star, g):
    lr = g * p
    traj = q.integrate_odes(np.eye(p), np.zeros((p, p_star)), lr=lr, t_max=15.0)
    qbar = q.plateau_overlap(p, p_star, lr=lr)
    np.testing.assert_allclose(traj.Q[-1], qbar * np.eye(p), atol=1e-8)
    assert traj.risk[-1] == pytest.approx(q.plateau_risk(p, p_star, lr=lr), abs=1e-8)
    assert qbar > p / (p + 2) + g / 2       # visibly shifted from gradient flow


def test_plateau_check_value_and_table():
    assert q.plateau_overlap(4, 2, lr=0.08) == pytest.approx(0.684698, abs=5e-7)
    # the notes' table (gamma/p = 0.05 column)
    for (p, p_star), value in {(1, 1): 0.3816, (2, 1): 0.5665, (4, 2): 0.7129, (8, 4): 0.8286}.items():
        assert q.plateau_overlap(p, p_star, lr=0.05 * p) == pytest.approx(value, abs=5e-5)
    with pytest.raises(ValueError, match="lr"):
        q.plateau_overlap(2, 1, lr=10.0)
    # close to the largest lr with a plateau ((p, p*) = (2, 1): g < 0.205), the ODEs still reach it
    traj = q.integrate_odes(np.eye(2), np.zeros((2, 1)), lr=0.38, t_max=15.0)
    np.testing.assert_allclose(traj.Q[-1], q.plateau_overlap(2, 1, lr=0.38) * np.eye(2), atol=1e-8)


@pytest.mark.parametrize("p,p_star,g,noise", [(4, 2, 0.05, 0.5), (3, 1, 0.1, 1.0)])
def test_label_noise_lifts_the_plateau(p, p_star, g, noise):
    """Delta enters only through the lr^2 term: the lifted plateau, its risk (with the Delta/2 floor) and
    the growth rate of R on it, against the full ODEs and the population risk of order_parameters."""
    lr = g * p
    traj = q.integrate_odes(np.eye(p), np.zeros((p, p_star)), lr=lr, noise=noise, t_max=15.0)
    qbar = q.plateau_overlap(p, p_star, lr=lr, noise=noise)
    np.testing.assert_allclose(traj.Q[-1], qbar * np.eye(p), atol=1e-8)
    assert qbar > q.plateau_overlap(p, p_star, lr=lr) + g * noise / 4     # noise lifts it visibly
    assert q.plateau_risk(p, p_star, lr=lr, noise=noise) == pytest.approx(traj.risk[-1], abs=1e-8)
    R0 = 1e-7 * np.random.default_rng(1).standard_normal((p, p_star))
    lifted = q.integrate_reduced(qbar * np.eye(p), R0, lr=lr, noise=noise, t_max=3.0, grid="linear",
                                 n_points=31)
    measured = np.polyfit(lifted.t, np.log(np.linalg.norm(lifted.R, axis=(1, 2))), 1)[0]
    assert q.plateau_growth_rate(p, p_star, lr=lr, noise=noise) == pytest.approx(measured, rel=1e-6)


def test_norm_learning_closed_form():
    p, p_star, q0 = 4, 2, 0.2
    traj = q.integrate_odes(q0 * np.eye(p), np.zeros((p, p_star)), t_max=5.0, grid="linear",
                            n_points=101)
    expected = q.norm_learning_overlap(traj.t, p, q0=q0)
    assert np.max(np.abs(traj.Q[:, 0, 0] - expected)) < 1e-8
    # along R = 0 the risk is that of the ODE run (population_risk of order_parameters)
    np.testing.assert_allclose(q.norm_learning_risk(traj.t, p, p_star, q0=q0), traj.risk, rtol=1e-8)
    scalar = q.norm_learning_risk(1.0, p, p_star, q0=q0)
    assert isinstance(scalar, float) and scalar == pytest.approx(traj.risk[20], rel=1e-8)  # t[20] = 1


def test_linear_escape_from_a_small_start():
    """R(t') = R0 sqrt(q/q0) e^{4t'/p*} from Q(0) = q0 I with q0 != 1, against the full ODEs."""
    p, p_star, q0 = 3, 2, 0.3
    R0 = 1e-6 * np.random.default_rng(3).standard_normal((p, p_star))
    traj = q.integrate_odes(q0 * np.eye(p), R0, t_max=3.0, grid="linear", n_points=31, rtol=1e-11,
                            atol=1e-16)
    R_lin = q.linear_escape_overlap(traj.t, R0, p, q0=q0)
    rel = np.linalg.norm(traj.R - R_lin, axis=(1, 2)) / np.linalg.norm(R_lin, axis=(1, 2))
    assert rel.max() < 1e-4


def test_linear_escape_and_loss_departure():
    """R(t') = R0 sqrt(q/q0) e^{4t'/p*} while R is small; the loss leaves the plateau as e^{8t'/p*}."""
    p, p_star, N = 3, 2, 10**9
    Q0, R0, T = q.initial_overlaps(p, p_star, N, rng=2)
    traj = q.integrate_odes(Q0, R0, T, t_max=3.0, grid="linear", n_points=61, rtol=1e-11, atol=1e-16)
    R_lin = q.linear_escape_overlap(traj.t, R0, p)
    rel = np.linalg.norm(traj.R - R_lin, axis=(1, 2)) / np.linalg.norm(R_lin, axis=(1, 2))
    assert rel.max() < 1e-3
    qt = q.norm_learning_overlap(traj.t, p)
    eps_R0 = 0.5 * (qt - 1) ** 2 + qt**2 / p + 1 / p_star
    np.testing.assert_allclose(q.norm_learning_risk(traj.t, p, p_star), eps_R0, rtol=1e-13)
    assert q.norm_learning_risk(50.0, p, p_star) == pytest.approx(q.plateau_risk(p, p_star), rel=1e-12)
    departure = eps_R0 - traj.risk
    predicted = 2 / (p * p_star) * np.sum(R0**2) * qt * np.exp(8 * traj.t / p_star)
    window = (traj.t > 1) & (departure < 0.03)
    assert window.sum() > 10
    np.testing.assert_allclose(departure[window], predicted[window], rtol=0.05)


@pytest.mark.parametrize("p,p_star", [(5, 2), (3, 3), (8, 1)])
@pytest.mark.parametrize("second_order", [True, False])
def test_reduced_system_equals_full_system(p, p_star, second_order):
    Q0, R0, T = q.initial_overlaps(p, p_star, 1000, rng=3)
    kw = dict(lr=0.05 * p if second_order else None, t_max=20.0, rtol=1e-12, atol=1e-15)
    full = q.integrate_odes(Q0, R0, T, **kw)
    red = q.integrate_reduced(Q0, R0, T, **kw)
    assert red.r.shape == (len(red.t), p_star)
    np.testing.assert_allclose(red.t, full.t)
    assert np.max(np.abs(red.risk - full.risk)) < 1e-9
    assert np.max(np.abs(red.Q - full.Q)) < 1e-7
    assert np.max(np.abs(red.R - full.R)) < 1e-7
    assert full.risk[-1] < 0.01               # the run went through escape and convergence


def test_reduction_rejects_non_isotropic_start():
    Q0, R0, T = q.initial_overlaps(4, 2, 100, rng=0)
    Q0[0, 1] = Q0[1, 0] = 0.3
    with pytest.raises(ValueError, match="Q0"):
        q.integrate_reduced(Q0, R0, T, lr=0.1, t_max=1.0)
    with pytest.raises(ValueError, match="T"):
        q.integrate_reduced(np.eye(4), R0, 2 * np.eye(2), lr=0.1, t_max=1.0)
    state = q.reduced._reduce_overlaps(*q.initial_overlaps(4, 2, 100, rng=0))
    assert isinstance(state, q.reduced._ReducedState) and state.r.shape == (2,) and state.a == pytest.approx(1.0)


def test_ode_blow_up_is_reported():
    p = 2
    with pytest.raises(DivergenceError) as info:
        q.integrate_odes(np.eye(p), np.full((p, 1), 0.1), lr=2.0 * p, t_max=100.0)
    err = info.value
    assert err.step is None and 0 < err.time < 100.0 and "t′" in str(err)


def test_late_time_exponential_when_p_equals_p_star():
    p = p_star = 2
    Q0, R0, T = q.initial_overlaps(p, p_star, 10**4, rng=4)
    traj = q.integrate_odes(Q0, R0, T, t_max=20.0, grid="linear", n_points=401, rtol=1e-11, atol=1e-15)
    window = (traj.risk < 1e-4) & (traj.risk > 1e-9)
    fit = q.fit_decay(traj.t, traj.risk, kind="exponential",
                      t_min=traj.t[window][0], t_max=traj.t[window][-1])
    law = q.late_time_law(p, p_star)
    assert law.kind == "exponential" and np.isnan(law.prefactor)
    assert fit.value == pytest.approx(law.rate, rel=0.01)


def test_late_time_power_law_when_p_exceeds_p_star():
    p, p_star = 4, 2
    Q0, R0, T = q.initial_overlaps(p, p_star, 10**4, rng=5)
    traj = q.integrate_reduced(Q0, R0, T, t_max=200.0)
    law = q.late_time_law(p, p_star)
    assert law.kind == "power" and law.exponent == 2.0 and np.isnan(law.rate)
    assert traj.risk[-1] * traj.t[-1] ** 2 == pytest.approx(law.prefactor, rel=0.1)
    fit = q.fit_decay(traj.t, traj.risk, kind="power", t_min=100, t_max=200)
    assert fit.value == pytest.approx(law.exponent, rel=0.05)
    # and it is not exponential: the local log-slope in t' keeps shrinking
    early = q.fit_decay(traj.t, traj.risk, kind="exponential", t_min=20, t_max=40).value
    late = q.fit_decay(traj.t, traj.risk, kind="exponential", t_min=100, t_max=200).value
    assert late < early / 3


def test_escape_time_slope_and_weak_p_dependence():
    """t'_esc ~ (p*/8) ln N + c(p, p*): slope p*/8, and more student units escape a little earlier."""
    table = sweep(E.ode_escape_time_trial, {"p": [2, 8], "N": [10**3, 10**7]}, fixed={"p_star": 2},
                  trials=20, seed=1, n_jobs=1, cache=False, progress=False)
    summary = summarise(table, ("p", "N"), "t_esc", stat="mean")
    mean = {(int(row["p"]), int(row["N"])): row["mean"] for _, row in summary.iterrows()}
    slope = (mean[8, 10**7] - mean[8, 10**3]) / np.log(10**4)
    assert slope == pytest.approx(2 / 8, rel=0.1)
    assert mean[8, 10**7] < mean[2, 10**7]
    assert np.all(np.isfinite(table["t_esc"]))
    assert q.escape_time_law(2, 10**7) == pytest.approx(0.25 * np.log(10**7 / 2))
    assert q.escape_time_law(4, 10**4, q0=0.25) == pytest.approx(0.5 * np.log(10**4))  # N/(p* q0) = N


def test_escape_time_from_trajectory_and_interpolation():
    t = np.array([0.0, 1.0, 2.0, 3.0])
    risk = np.array([1.0, 0.8, 0.2, 0.1])
    assert q.escape_time(t, risk, 1.0) == pytest.approx(1.5)
    assert np.isnan(q.escape_time(t, risk, 0.1))
    # hand-computed edges: a crossing in the first interval, 0 + (1 - 0.5)/(1 - 0.2) = 0.625;
    # a risk already below the level (t[0]); a risk that only touches it (never *below*: nan);
    # fraction = 1 allowed, (1.2 - 1)/(1.2 - 0.8) = 0.5
    assert q.escape_time([0.0, 1.0, 2.0], [1.0, 0.2, 0.1], 1.0) == pytest.approx(0.625)
    assert q.escape_time([2.0, 3.0], [0.3, 0.2], 1.0) == 2.0
    assert np.isnan(q.escape_time([0.0, 1.0], [1.0, 0.5], 1.0))
    assert q.escape_time([0.0, 1.0, 2.0], [1.2, 0.8, 0.2], 1.0, fraction=1.0) == pytest.approx(0.5)
    Q0, R0, T = q.initial_overlaps(3, 2, 10**4, rng=6)
    traj = q.integrate_odes(Q0, R0, T, t_max=10.0, n_points=400)
    t_grid = traj.escape_time()
    t_event = q.reduced_escape_time(Q0, R0, T)
    assert t_grid == pytest.approx(t_event, abs=0.02)
    # with the lr^2 term the plateau (and so the escape level) is the lifted one
    lifted = q.integrate_odes(Q0, R0, T, t_max=10.0, n_points=400, lr=0.3)
    assert lifted.plateau_risk() == pytest.approx(q.plateau_risk(3, 2, lr=0.3))
    assert lifted.escape_time() == pytest.approx(q.reduced_escape_time(Q0, R0, T, lr=0.3), abs=0.02)


def test_escape_trial_goes_through_the_shared_sweep_cache(tmp_path):
    kw = dict(trials=2, seed=3, n_jobs=1, cache=tmp_path, progress=False)
    grid, fixed = {"N": [1000]}, {"p": 3, "p_star": 2}
    first = sweep(E.ode_escape_time_trial, grid, fixed=fixed, **kw)
    assert any(tmp_path.rglob("*.json"))
    again = sweep(E.ode_escape_time_trial, grid, fixed=fixed, **kw)
    np.testing.assert_array_equal(first["t_esc"], again["t_esc"])
    assert set(first.columns) == {"N", "p", "p_star", "trial", "t_esc", "s_min", "s_max"}
    # each row is the trial run on its own seed: (seed, its parameters, its index)
    for k in range(2):
        ss = trial_seed(3, {"N": 1000, "p": 3, "p_star": 2}, k)
        expected = E.ode_escape_time_trial(N=1000, p=3, p_star=2, rng=np.random.default_rng(ss))
        assert [np.asarray(first[c])[k] for c in ("t_esc", "s_min", "s_max")] == [
            expected[c] for c in ("t_esc", "s_min", "s_max")]


@pytest.mark.parametrize("p,p_star,g", [(4, 2, 0.1), (16, 2, 0.1), (3, 1, 0.05), (8, 4, 0.02)])
def test_plateau_growth_rate_is_the_ode_rate(p, p_star, g):
    """dR/dt' = r R on the lifted plateau: fit of log|R| along the lr^2 ODE from a tiny R(0)."""
    assert q.plateau_growth_rate(p, p_star) == 4 / p_star                 # gradient flow
    lr = g * p
    r = q.plateau_growth_rate(p, p_star, lr=lr)
    Q0 = q.plateau_overlap(p, p_star, lr=lr) * np.eye(p)                  # start on the lifted plateau
    R0 = 1e-7 * np.random.default_rng(0).standard_normal((p, p_star))
    traj = q.integrate_reduced(Q0, R0, lr=lr, t_max=3.0, grid="linear", n_points=61)
    measured = np.polyfit(traj.t, np.log(np.linalg.norm(traj.R, axis=(1, 2))), 1)[0]
    assert measured == pytest.approx(r, rel=1e-6)
    assert r < 4 / p_star
    first_order = 4 / p_star * (1 - g * (1 + p_star / (p + 2)))
    assert abs(first_order - r) < 3 * g**2 * 4 / p_star                   # O(g^2) remainder


def _rk4(rhs, y0, t_eval, h):
    """Classical fourth-order Runge-Kutta with fixed step h (dividing every gap of t_eval)."""
    y, t, out = np.array(y0, dtype=float), 0.0, []
    for t_next in t_eval:
        n = int(round((t_next - t) / h))
        for _ in range(n):
            k1 = rhs(y)
            k2 = rhs(y + h / 2 * k1)
            k3 = rhs(y + h / 2 * k2)
            k4 = rhs(y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t_next
        out.append(y.copy())
    return np.array(out)


@pytest.mark.parametrize("lr,noise", [(None, 0.0), (0.4, 0.3)])
def test_integrator_is_fixed_step_runge_kutta_on_ode_rhs(lr, noise):
    """integrate_odes (adaptive DOP853, dense output) against classical
    RK4 with h = 1/400 on the same right-hand side ode_rhs (h = 1/800 changes it by < 1e-12;
    integrate_odes at rtol 1e-9 is 4e-11 off): Q, R and the risk at the output times within
    1e-8. Generic T, p != p*."""
    p, p_star = 3, 2
    Q0, R0, T = _random_overlaps(p, p_star, np.random.default_rng(7))
    Q0, R0 = 0.5 * Q0, 0.5 * R0

    def rhs(y):
        Q, R = y[: p * p].reshape(p, p), y[p * p:].reshape(p, p_star)
        d = q.ode_rhs(Q, R, T, lr=lr, noise=noise)
        return np.concatenate([d.dQ.ravel(), d.dR.ravel()])

    t_eval = np.array([0.0, 0.25, 0.5, 1.0, 1.5])
    ys = _rk4(rhs, np.concatenate([Q0.ravel(), R0.ravel()]), t_eval, h=1 / 400)
    traj = q.integrate_odes(Q0, R0, T, t_eval=t_eval, lr=lr, noise=noise)
    np.testing.assert_array_equal(traj.t, t_eval)
    np.testing.assert_allclose(traj.Q, ys[:, : p * p].reshape(-1, p, p), rtol=0, atol=1e-8)
    np.testing.assert_allclose(traj.R, ys[:, p * p:].reshape(-1, p, p_star), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(traj.Q, np.swapaxes(traj.Q, 1, 2))
    np.testing.assert_allclose(traj.risk, [q.population_risk(y[: p * p].reshape(p, p),
                                                             y[p * p:].reshape(p, p_star), T, noise=noise)
                                           for y in ys], rtol=0, atol=1e-8)
    assert np.max(np.abs(ys[-1] - ys[0])) > 0.1   # the overlaps moved
    assert traj.lr == lr and traj.noise == noise and traj.kind == "ode"
    assert isinstance(traj.nfev, int) and traj.nfev > 0 and "success" in traj.message
    np.testing.assert_array_equal(traj.T, T)
    # the tolerances reach the integrator: loose ones leave an error RK4 sees
    for loose in (dict(atol=1e-4, rtol=1e-13), dict(rtol=1e-4)):
        coarse = q.integrate_odes(Q0, R0, T, t_eval=t_eval, lr=lr, noise=noise, **loose)
        assert 1e-8 < np.max(np.abs(coarse.Q - ys[:, : p * p].reshape(-1, p, p))) < 1e-4


def test_blow_up_is_reported_at_the_time_the_overlaps_cross_the_level(monkeypatch):
    """With the blow-up level lowered to 5, the reported time is where the largest overlap of
    the (unstopped) solution crosses 5: below it just before, above just after."""
    p, level = 2, 5.0
    Q0, R0 = np.eye(p), np.full((p, 1), 0.1)
    monkeypatch.setattr(q.odes, "_BLOWUP", level)
    with pytest.raises(DivergenceError, match="overlaps beyond 5 ") as info:
        q.integrate_odes(Q0, R0, lr=2.0 * p, t_max=100.0)
    t_bad = info.value.time
    monkeypatch.setattr(q.odes, "_BLOWUP", 1e8)
    traj = q.integrate_odes(Q0, R0, lr=2.0 * p, t_eval=[0.0, 0.999 * t_bad, 1.001 * t_bad])
    largest = np.maximum(np.abs(traj.Q).max(axis=(1, 2)), np.abs(traj.R).max(axis=(1, 2)))
    assert 0.95 * level < largest[1] < level < largest[2] < 1.05 * level


def test_singularity_is_reported_at_the_time_reached_not_at_the_last_output_time():
    """y' = 1/sqrt(1 - t) stays bounded (y(1) = 2) but is singular at t = 1, where an
    explicit method runs out of step size: the time reported is 1, though the last output
    time reached is 0.5 (the blow-up level is never crossed)."""
    def rhs(t, y):
        with np.errstate(divide="ignore"):
            return 1.0 / np.sqrt(1.0 - t) + 0.0 * y

    with pytest.raises(DivergenceError, match="singularity") as info:
        q.odes._solve_overlap_odes(rhs, np.zeros(1), np.array([0.0, 0.5, 3.0]))
    assert info.value.time == pytest.approx(1.0, abs=1e-3)

    def early(t, y):  # singular at t = 0.25, before the first output time
        with np.errstate(divide="ignore"):
            return 1.0 / np.sqrt(0.25 - t) + 0.0 * y

    with pytest.raises(DivergenceError, match="singularity") as info:
        q.odes._solve_overlap_odes(early, np.zeros(1), np.array([0.0, 0.5, 3.0]))
    assert info.value.time == pytest.approx(0.25, abs=1e-3)


def test_ode_output_grid_and_symmetric_q():
    """``t_min`` sets the log grid's first non-zero time, and Q comes back exactly symmetric."""
    Q0, R0, T = q.initial_overlaps(3, 2, 10**3, rng=2)
    traj = q.integrate_odes(Q0, R0, T, lr=0.3, t_max=10.0, t_min=0.5, n_points=5)
    np.testing.assert_allclose(traj.t, [0.0, 0.5, 0.5 * 20 ** (1 / 3), 0.5 * 20 ** (2 / 3), 10.0], rtol=1e-12)
    assert traj.kind == "ode" and np.array_equal(traj.Q, np.swapaxes(traj.Q, 1, 2))


@pytest.mark.parametrize("lr, noise, grid", [(None, 0.0, "linear"), (0.4, 0.0, "linear"), (0.4, 0.3, "log")])
def test_stop_below_gives_the_escape_time_of_the_full_run(lr, noise, grid):
    """Stopped where the risk falls below half the plateau's, the run is the full run up to the
    first output time below that level: the samples before it are the full run's, bit for bit
    (the solver's steps are the same), the last agrees to the tolerances, and so does the
    escape time; the run stops at the first sample below, not later, at a fraction of the cost."""
    p, p_star, N, t_max = 4, 2, 10**4, 30.0
    Q0, R0, T = q.initial_overlaps(p, p_star, N, rng=3)
    level = 0.5 * q.plateau_risk(p, p_star, lr=lr, noise=noise)
    kw = dict(lr=lr, noise=noise, t_max=t_max, grid=grid, n_points=601)
    full = q.integrate_odes(Q0, R0, T, **kw)
    early = q.integrate_odes(Q0, R0, T, **kw, stop_below=level)
    n = early.t.size
    first_below = int(np.flatnonzero(full.risk < level)[0])
    assert early.success and n == first_below + 1 < full.t.size
    np.testing.assert_array_equal(early.t, full.t[:n])
    np.testing.assert_array_equal(early.Q[:-1], full.Q[: n - 1])
    np.testing.assert_allclose(early.Q[-1], full.Q[n - 1], rtol=0, atol=1e-9)
    np.testing.assert_allclose(early.R[-1], full.R[n - 1], rtol=0, atol=1e-9)
    assert early.risk[-1] < level <= early.risk[-2]
    assert np.isfinite(full.escape_time()) and early.escape_time() == pytest.approx(full.escape_time(), abs=1e-9)
    assert early.nfev < 0.6 * full.nfev
    # it counts the evaluations before the crossing too: more than a run to half its end needs
    assert early.nfev > q.integrate_odes(Q0, R0, T, **{**kw, "t_max": early.t[-1] / 2}).nfev
    assert "fell below stop_below" in early.message


def test_stop_below_not_reached_or_reached_at_the_start():
    """A level never reached leaves the run whole (and says so); a start already below it ends
    the run at its first output time."""
    Q0, R0, T = q.initial_overlaps(4, 2, 10**4, rng=3)
    kw = dict(lr=0.4, t_max=1.0, grid="linear", n_points=21)
    full = q.integrate_odes(Q0, R0, T, **kw)
    never = q.integrate_odes(Q0, R0, T, **kw, stop_below=1e-3)
    assert not never.success and "stayed above stop_below" in never.message
    np.testing.assert_array_equal(never.t, full.t)
    np.testing.assert_allclose(never.Q, full.Q, rtol=0, atol=1e-12)
    at_once = q.integrate_odes(Q0, R0, T, **kw, stop_below=2 * full.risk[0])
    assert at_once.success and at_once.t.tolist() == [0.0]
    assert at_once.Q.shape == (1, 4, 4) and at_once.R.shape == (1, 4, 2)
    np.testing.assert_array_equal(at_once.Q[0], Q0)
    # output times after 0: the run goes to the first of them, where the full run is
    times = np.array([0.25, 0.5, 1.0])
    late = q.integrate_odes(Q0, R0, T, lr=0.4, t_eval=times)
    late_once = q.integrate_odes(Q0, R0, T, lr=0.4, t_eval=times, stop_below=2 * full.risk[0])
    assert late_once.success and late_once.t.tolist() == [0.25]
    assert late_once.Q.shape == (1, 4, 4) and late_once.R.shape == (1, 4, 2)
    np.testing.assert_allclose(late_once.Q[0], late.Q[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(late_once.R[0], late.R[0], rtol=0, atol=1e-9)


@pytest.mark.parametrize("bad", [0.0, -0.1, float("nan"), "0.1", True])
def test_stop_below_is_checked(bad):
    Q0, R0, T = q.initial_overlaps(4, 2, 10**4, rng=3)
    with pytest.raises(ValueError, match=r"^stop_below must be a positive finite number, got "):
        q.integrate_odes(Q0, R0, T, t_max=1.0, stop_below=bad)


def test_the_reduced_trajectory_is_the_full_one_with_its_coordinates():
    """Every field of a reduced run against the full system's run from the same start (label
    noise, lr, t_min): Q and R rebuilt from r, d, a in the frame U, V; the metadata of the call."""
    p, p_star, lr, noise = 5, 2, 0.3, 0.2
    Q0, R0, T = q.initial_overlaps(p, p_star, 1000, rng=4)
    kw = dict(lr=lr, noise=noise, t_max=8.0, t_min=0.5, n_points=9, rtol=1e-12, atol=1e-15)
    full = q.integrate_odes(Q0, R0, T, **kw)
    red = q.integrate_reduced(Q0, R0, T, **kw)
    assert red.t[1] == pytest.approx(0.5) and np.array_equal(red.t, full.t)
    assert red.kind == "reduced" and red.lr == lr and red.noise == noise
    np.testing.assert_array_equal(red.T, np.eye(p_star))
    assert isinstance(red.nfev, int) and red.nfev > 0 and isinstance(red.message, str) and red.success
    np.testing.assert_allclose(red.risk, full.risk, rtol=0, atol=1e-9)  # noise included
    np.testing.assert_allclose(red.risk[0], q.population_risk(Q0, R0, T, noise=noise), rtol=1e-12)
    # the frame: U orthonormal columns, V orthogonal; R = U diag(r) Vᵀ, Q = U diag(r² + d) Uᵀ + a P⊥
    np.testing.assert_allclose(red.U.T @ red.U, np.eye(p_star), atol=1e-12)
    np.testing.assert_allclose(red.V.T @ red.V, np.eye(p_star), atol=1e-12)
    P_perp = np.eye(p) - red.U @ red.U.T
    for k in range(red.t.size):
        np.testing.assert_allclose(red.R[k], red.U @ np.diag(red.r[k]) @ red.V.T, atol=1e-12)
        np.testing.assert_allclose(red.Q[k], red.U @ np.diag(red.r[k] ** 2 + red.d[k]) @ red.U.T
                                   + red.a[k] * P_perp, atol=1e-12)
    np.testing.assert_allclose(red.Q, full.Q, rtol=0, atol=1e-7)
    assert q.integrate_reduced(Q0, R0, T, t_max=1.0).lr is None   # gradient flow


def test_a_square_student_has_no_orthogonal_part():
    """p = p*: the complement of the teacher's span is empty, so a = 0 along the run."""
    Q0, R0, T = q.initial_overlaps(3, 3, 1000, rng=1)
    red = q.integrate_reduced(Q0, R0, T, t_max=2.0, n_points=5)
    np.testing.assert_array_equal(red.a, 0.0)


def test_the_reduction_refuses_what_it_cannot_reduce():
    """An asymmetric Q0, a time axis, a teacher off the identity by more than rounding."""
    Q0, R0, T = q.initial_overlaps(4, 2, 100, rng=0)
    asym = Q0.copy()
    asym[0, 1] += 1e-3
    with pytest.raises(ValueError, match=r"^Q0\b"):
        q.integrate_reduced(asym, R0, T, t_max=1.0)
    with pytest.raises(ValueError, match=r"^Q0\b"):
        q.integrate_reduced(Q0[None], R0[None], T, t_max=1.0)
    with pytest.raises(ValueError, match=r"^T\b"):
        q.integrate_reduced(Q0, R0, (1 + 1e-9) * np.eye(2), t_max=1.0)


def test_reduced_escape_time_at_its_edges():
    """Below the level from the start: 0; no escape by t_max: nan; the level follows fraction
    (as the escape time read from a run does); each argument refused by its name."""
    Q0, R0, T = q.initial_overlaps(3, 2, 10**4, rng=6)
    traj = q.integrate_reduced(Q0, R0, T, t_max=10.0, n_points=2001, grid="linear")
    for fraction in (0.5, 0.2):
        assert q.reduced_escape_time(Q0, R0, T, fraction=fraction) == pytest.approx(
            traj.escape_time(fraction), abs=0.01)
    assert np.isnan(q.reduced_escape_time(Q0, R0, T, t_max=0.5))
    at_teacher = np.diag([1.0, 1.0, 0.0]), np.eye(3, 2)  # W = [W*; 0]: zero risk from the start
    assert q.reduced_escape_time(*at_teacher, T) == 0.0
    for name, bad in (("noise", dict(noise=-1.0)), ("t_max", dict(t_max=0.0)), ("lr", dict(lr=-0.1))):
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            q.reduced_escape_time(Q0, R0, T, **bad)
