"""Bad input raises ValueError naming the parameter (shared checks of ibcore.validation)."""
import numpy as np
import pytest

import ibcore.quadratic as q

W0, W_STAR = q.random_init(3, 2, 20, rng=0)
Q0, R0, T0 = q.initial_overlaps(3, 2, 20, rng=0)


def _nan(a):
    a = np.array(a, dtype=float)
    a.flat[0] = np.nan
    return a


@pytest.mark.parametrize("call,name", [
    (lambda: q.overlaps(W0[0], W_STAR), "W"),
    (lambda: q.overlaps(W0, W_STAR[:, :5]), "W_star"),
    (lambda: q.overlaps(_nan(W0), W_STAR), "W"),
    (lambda: q.overlaps(W0, W_STAR[0]), "W_star"),
    (lambda: q.population_risk(Q0, R0[:, 0]), "R"),
    (lambda: q.ode_rhs(Q0 + 0.5 * np.triu(np.ones((3, 3)), 1) * np.abs(Q0).max(), R0), "Q"),  # half off
    (lambda: q.population_risk(Q0, R0[:2]), "R"),
    (lambda: q.population_risk(Q0[:, :2], R0), "Q"),
    (lambda: q.population_risk(Q0, R0, np.eye(3)), "T"),
    (lambda: q.population_risk(Q0, R0, noise=-1.0), "noise"),
    (lambda: q.phi_matrix(Q0, _nan(R0)), "R"),
    (lambda: q.phi_matrix(Q0, R0, noise=-1.0), "noise"),
    # one set of overlaps per call: with a time axis, np.trace and @ would mix the times
    (lambda: q.phi_matrix(np.stack([Q0, Q0]), np.stack([R0, R0])), "Q"),
    (lambda: q.gaussian_moment(np.ones(3), [0, 0]), "cov"),
    (lambda: q.gaussian_moment([[np.nan]], [0, 0]), "cov"),
    (lambda: q.wick_pairings(-2), "n"),
    (lambda: q.ode_rhs(Q0, R0, noise=-1.0), "noise"),
    (lambda: q.ode_rhs(Q0 + np.triu(np.ones((3, 3)), 1), R0), "Q"),  # the ODEs keep Q symmetric
    (lambda: q.ode_rhs(np.stack([Q0, Q0]), np.stack([R0, R0])), "Q"),
])
def test_overlap_functions(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


@pytest.mark.parametrize("kwargs,name", [
    (dict(lr=0.0), "lr"),
    (dict(lr=-0.1), "lr"),
    (dict(lr=float("nan")), "lr"),
    (dict(t_max=0.0), "t_max"),
    (dict(t_max=None), "t_max"),
    (dict(noise=-0.5), "noise"),
    (dict(grid="cubic"), "grid"),
    (dict(n_points=1), "n_points"),
    (dict(t_eval=[0.0, 2.0, 1.0]), "t_eval"),
    (dict(t_eval=[0.0, 0.5, 2.0]), "t_eval"),
    (dict(Q0=Q0 + np.triu(np.ones((3, 3)), 1)), "Q0"),
    (dict(Q0=_nan(Q0)), "Q0"),
    (dict(R0=R0[:2]), "R0"),
    (dict(T=np.eye(3)), "T"),
    (dict(rtol=0.0), "rtol"),
    (dict(atol=-1e-12), "atol"),
    (dict(Q0=np.stack([Q0, Q0]), R0=np.stack([R0, R0])), "Q0"),  # one set of initial overlaps
])
@pytest.mark.parametrize("integrate", [q.integrate_odes, q.integrate_reduced])
def test_ode_arguments(integrate, kwargs, name):
    args = dict(Q0=Q0, R0=R0, T=T0, lr=0.1, t_max=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{name} "):
        integrate(args.pop("Q0"), args.pop("R0"), args.pop("T"), **args)


@pytest.mark.parametrize("kwargs,name", [
    (dict(lr=0.0), "lr"),
    (dict(lr=-1.0), "lr"),
    (dict(n_steps=0), "n_steps"),
    (dict(n_steps=10.5), "n_steps"),
    (dict(t_max=1.0), "t_max"),
    (dict(n_steps=None), "t_max"),
    (dict(n_steps=None, t_max=-1.0), "t_max"),
    (dict(W_star=W_STAR[:, :7]), "W_star"),
    (dict(W0=W0[0]), "W0"),
    (dict(W0=_nan(W0)), "W0"),
    (dict(W_star=_nan(W_STAR)), "W_star"),
    (dict(noise=-1.0), "noise"),
    (dict(block=0), "block"),
    (dict(record_every=0), "record_every"),
    (dict(record_steps=[0, 5, 3]), "record_steps"),
    (dict(record_steps=[0, 500]), "record_steps"),
    (dict(record_steps=np.array([], dtype=int)), "record_steps"),
    (dict(record_steps=[[0, 5]]), "record_steps"),
    (dict(record_steps=[0.0, 5.0]), "record_steps"),
    (dict(record_steps=[0, 5, 5]), "record_steps"),
    (dict(record_steps=[-1, 5]), "record_steps"),
    (dict(record_steps=[0, 5, 500]), "record_steps"),
    (dict(blowup=0.0), "blowup"),
    (dict(stop_below=-1.0), "stop_below"),
])
def test_sgd_arguments(kwargs, name):
    args = dict(W0=W0, W_star=W_STAR, lr=0.1, n_steps=100)
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{name} "):
        q.sgd_one_pass(args.pop("W0"), args.pop("W_star"), **args)


@pytest.mark.parametrize("call,name", [
    (lambda: q.random_init(0, 2, 10), "p"),
    (lambda: q.random_init(3, -1, 10), "p_star"),
    (lambda: q.random_init(3, 2, 0), "N"),
    (lambda: q.random_init(3, 2, 10.0), "N"),
    (lambda: q.random_init(3, 2, 10, q0=0.0), "q0"),
    (lambda: q.random_init(3, 2, 10, informative=-0.3), "informative"),
    (lambda: q.initial_overlaps(3, 2, 0), "N"),
    (lambda: q.initial_overlaps(0, 2, 10), "p"),
    (lambda: q.initialisation._orthonormal_teacher(5, 3), "N"),
    (lambda: q.plateau_overlap(0, 2), "p"),
    (lambda: q.plateau_risk(2, 0), "p_star"),
    (lambda: q.plateau_overlap(2, 1, lr=-0.1), "lr"),
    (lambda: q.plateau_overlap(2, 1, lr=0.0), "lr"),
    (lambda: q.plateau_growth_rate(0, 2), "p"),
    (lambda: q.plateau_growth_rate(2, 1, lr=-1.0), "lr"),
    (lambda: q.plateau_overlap(2, 1, lr=0.1, noise=-1.0), "noise"),
    (lambda: q.norm_learning_overlap([0.0, np.nan], 3), "t"),
    (lambda: q.norm_learning_overlap(1.0, 0), "p"),
    (lambda: q.norm_learning_overlap(1.0, 3, q0=0.0), "q0"),
    (lambda: q.norm_learning_risk(1.0, 3, 0), "p_star"),
    (lambda: q.linear_escape_overlap([np.inf], R0, 3), "t"),
    (lambda: q.linear_escape_overlap(1.0, R0[0], 3), "R0"),
    (lambda: q.escape_time([[0.0], [1.0]], [1.0, 0.1], 1.0), "t"),
    (lambda: q.escape_time([0, 1], [1, 0.1], 0.0), "plateau_risk"),
    (lambda: q.escape_time([0, 1], [1, 0.1], 1.0, fraction=-0.5), "fraction"),
    (lambda: q.escape_time_law(0, 100), "p_star"),
    (lambda: q.escape_time_law(2, 0), "N"),
    (lambda: q.escape_time_law(2, 100, q0=-1.0), "q0"),
    (lambda: q.sgd_steps(0.0, p=2, lr=0.1, N=10), "t_max"),
    (lambda: q.sgd_steps(1.0, p=2, lr=0.1, N=0), "N"),
    (lambda: q.clock._time_grid(1.0, 1), "n_points"),
    (lambda: q.clock._time_grid(1.0, 10, t_min=2.0), "t_min"),
    (lambda: q.gaussian_moment(np.ones((2, 3)), [0, 1]), "cov"),
    (lambda: q.gaussian_moment(np.eye(2), [0, 2]), "indices"),
    (lambda: q.wick_pairings(3), "n"),
    (lambda: q.late_time_law(1, 2), "p"),
    (lambda: q.escape_time([0, 1], [1, 0.1], 1.0, fraction=2.0), "fraction"),
    (lambda: q.escape_time([0, 1], [1, 0.1, 0.0], 1.0), "risk"),
    (lambda: q.fit_decay([1, 2, 3], [1, 0.5, 0.2], kind="linear"), "kind"),
    (lambda: q.fit_decay(np.ones((2, 2)), [1, 0.5], kind="power"), "t"),
    (lambda: q.fit_decay([1, 2, np.inf], [1, 0.5, 0.2], kind="power"), "t"),
    (lambda: q.fit_decay([1, 2, 3], [1, 0.5], kind="power"), "risk"),
    (lambda: q.fit_decay([1, 2, 3], [1, np.nan, 0.2], kind="power"), "risk"),
    (lambda: q.fit_decay([1, 2, 3], [1, 0.5, 0.2], kind="power", floor=-0.1), "floor"),
    (lambda: q.critical_point("saddle", 3, 2, 9), "kind"),
    (lambda: q.critical_point("plateau", 3, 2, 4), "N"),
    (lambda: q.critical_point("zero_loss", 1, 2, 9), "p"),
    (lambda: q.hessian_spectrum_table("zero", 3, 0, 9), "p_star"),
    (lambda: q.population_hessian(W0, W_STAR, wrt="V"), "wrt"),
    (lambda: q.closest_zero_loss_solution(np.ones((1, 2))), "R"),
    (lambda: q.closest_zero_loss_solution(np.ones(3)), "R0"),
    (lambda: q.closest_zero_loss_solution([[1.0, np.nan]]), "R0"),
    (lambda: q.conserved_frame(np.ones(3)), "R"),
    (lambda: q.conserved_frame(np.ones((2, 3, 2, 1))), "R"),
    (lambda: q.frame_drift(np.random.default_rng(0).standard_normal((2, 3, 2)), np.ones((2, 2))), "reference"),
    (lambda: q.closest_zero_loss_weights(np.full((3, 10), np.nan), np.ones((2, 10))), "W0"),
    (lambda: q.closest_zero_loss_weights(np.ones(10), np.ones((2, 10))), "W0"),
    (lambda: q.frame_drift(R0), "R"),
])
def test_other_functions(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_late_time_law_says_why_it_needs_p_at_least_p_star():
    with pytest.raises(ValueError, match=r"^p .* \(for convergence to zero loss\)"):
        q.late_time_law(2, 3)


def test_symmetry_is_checked_to_rounding_at_every_scale():
    """An asymmetry of rounding size passes at any scale of Q (the tolerance follows max |Q|); one
    of 1e-6 of the scale does not; population_risk returns a float for one set of overlaps."""
    Q = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
    big = 1e6 * Q
    big[0, 1] *= 1 + 1e-13
    assert np.all(np.isfinite(q.ode_rhs(big, R0).dQ))
    off = Q.copy()
    off[0, 1] += 1e-6   # 1e-6 of an entry of size 1: not rounding
    with pytest.raises(ValueError, match=r"^Q\b"):
        q.ode_rhs(off, R0)
    assert isinstance(q.population_risk(Q0, R0), float)
