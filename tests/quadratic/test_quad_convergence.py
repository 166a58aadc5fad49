"""The late-time laws against the ODEs themselves, and fit_decay on data whose law is known exactly."""
import numpy as np
import pytest

import ibcore.quadratic as q


@pytest.mark.parametrize("p, p_star", [(4, 2), (6, 2), (3, 1)])
def test_power_law_prefactor_is_the_limit_of_the_reduced_odes(p, p_star):
    """t'^2 ε(t') → C along the exact reduced ODEs, with a 1/t' correction: extrapolated from
    t' = 3000 and 10⁴ (Richardson), C agrees with (p - p*)(p* + 2)/(64 (p + 2)) to 1e-4."""
    Q0, R0, T = q.initial_overlaps(p, p_star, 10**4, rng=5)
    traj = q.integrate_reduced(Q0, R0, T, t_eval=np.array([0.0, 3000.0, 10_000.0]), rtol=1e-12, atol=1e-20)
    c = traj.risk * traj.t ** 2
    limit = (traj.t[2] * c[2] - traj.t[1] * c[1]) / (traj.t[2] - traj.t[1])
    law = q.late_time_law(p, p_star)
    assert law.kind == "power" and law.exponent == 2.0 and np.isnan(law.rate)
    assert law.prefactor == pytest.approx(limit, rel=1e-4)
    assert law.prefactor == pytest.approx((p - p_star) * (p_star + 2) / (64 * (p + 2)), rel=1e-15)


@pytest.mark.parametrize("p", [1, 2, 5])
def test_exponential_law_for_p_equal_to_p_star(p):
    law = q.late_time_law(p, p)
    assert law.kind == "exponential" and law.rate == 8.0 / p
    assert np.isnan(law.exponent) and np.isnan(law.prefactor)


def _exponential(t, A=0.3, k=2.0, floor=0.0):
    return A * np.exp(-k * t) + floor


@pytest.mark.parametrize("n", [40, 41])
def test_fit_decay_recovers_a_law_exactly_on_the_last_half_by_default(n):
    """By default the window is the last half of the samples in index: a different law on the
    first half does not enter, and the fit returns rate and prefactor of the second."""
    t = np.linspace(1.0, 10.0, n)
    half = n // 2
    risk = np.where(np.arange(n) < half, _exponential(t, A=5.0, k=0.5), _exponential(t, A=0.3, k=2.0))
    fit = q.fit_decay(t, risk, kind="exponential")
    assert fit.kind == "exponential" and fit.n_points == n - half
    assert fit.value == pytest.approx(2.0, rel=1e-10) and fit.prefactor == pytest.approx(0.3, rel=1e-10)


def test_fit_decay_power_law_with_a_floor():
    t = np.linspace(1.0, 50.0, 99)
    risk = 0.7 * t ** -1.5 + 0.05
    fit = q.fit_decay(t, risk, kind="power", floor=0.05, t_min=1.0)
    assert fit.kind == "power" and fit.n_points == 99
    assert fit.value == pytest.approx(1.5, rel=1e-10) and fit.prefactor == pytest.approx(0.7, rel=1e-10)
    assert q.fit_decay(t, risk, kind="power", t_min=1.0).value < 1.4   # the floor matters


def test_fit_decay_window_is_closed_and_skips_points_at_or_below_the_floor():
    t = np.arange(11.0)
    risk = _exponential(t, floor=0.1)
    fit = q.fit_decay(t, risk, kind="exponential", t_min=2.0, t_max=6.0, floor=0.1)
    assert fit.n_points == 5 and fit.value == pytest.approx(2.0, rel=1e-9)
    risk[4] = 0.1                                   # at the floor: left out, not log(0)
    risk[5] = 0.05                                  # below it
    fit = q.fit_decay(t, risk, kind="exponential", t_min=2.0, t_max=6.0, floor=0.1)
    assert fit.n_points == 3 and fit.value == pytest.approx(2.0, rel=1e-9)
    assert fit.prefactor == pytest.approx(0.3, rel=1e-9)


def test_power_fit_leaves_t_zero_out():
    t = np.arange(0.0, 11.0)
    risk = np.r_[1.0, 2.0 * t[1:] ** -2.0]
    fit = q.fit_decay(t, risk, kind="power", t_min=0.0)
    assert fit.n_points == 10 and fit.value == pytest.approx(2.0, rel=1e-12)
    assert fit.prefactor == pytest.approx(2.0, rel=1e-12)
    exponential = q.fit_decay(t, _exponential(t), kind="exponential", t_min=0.0)
    assert exponential.n_points == 11                 # t = 0 is a point of an exponential fit


def test_fit_decay_needs_two_points():
    t = np.arange(5.0)
    two = q.fit_decay(t, _exponential(t), kind="exponential", t_min=3.0)
    assert two.n_points == 2 and two.value == pytest.approx(2.0, rel=1e-12)
    with pytest.raises(ValueError, match="fewer than 2"):
        q.fit_decay(t, _exponential(t), kind="exponential", t_min=4.0)
