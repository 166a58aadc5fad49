"""Part II's clock (ibcore.quadratic.clock): the output times of the ODE runs and their checks,
each bad argument refused by a message that starts with its name."""
import numpy as np
import pytest

import ibcore.quadratic as q
from ibcore.quadratic.clock import _evaluation_times, _sgd_time, _time_grid


def test_the_default_grid_is_200_log_spaced_times_from_a_ten_thousandth_of_the_horizon():
    t = _evaluation_times(10.0)
    np.testing.assert_array_equal(_time_grid(10.0), t)
    assert t.size == 200 and t[0] == 0.0 and t[1] == pytest.approx(1e-3) and t[-1] == pytest.approx(10.0)
    np.testing.assert_allclose(np.diff(np.log(t[1:])), np.log(1e4) / 198)
    np.testing.assert_array_equal(_time_grid(4.0, 5, grid="linear"), [0.0, 1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("kw, name", [
    (dict(n_points=0), "n_points"), (dict(n_points=1), "n_points"), (dict(t_min=0.0), "t_min"),
    (dict(t_min=2.0), "t_min"),          # t_min must lie below t_max, equal included
    (dict(grid="cubic"), "grid"),
])
def test_the_grid_refuses_bad_arguments_by_name(kw, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        _time_grid(2.0, **{"n_points": 5, **kw})


def test_given_times_are_checked_and_kept():
    t = np.array([0.0, 1.0, 2.0])
    np.testing.assert_array_equal(_evaluation_times(2.0, t), t)   # ending exactly at t_max
    # a last time above t_max by rounding (1e-12 relative) is accepted, and clipped to t_max
    edge = _evaluation_times(2.0, np.array([0.0, 1.0, 2.0 * (1 + 1e-12)]))
    assert edge[-1] == 2.0
    np.testing.assert_array_equal(_evaluation_times(None, np.array([0.5, 3.0])), [0.5, 3.0])


@pytest.mark.parametrize("t_eval, t_max, name", [
    (np.array([0.0, 1.0, 1.0]), None, "t_eval"),     # not strictly increasing
    (np.array([-1.0, 2.0]), None, "t_eval"),         # negative start
    (np.array([0.0]), None, "t_eval"),               # no positive time
    (np.array([[0.0, 1.0], [2.0, 3.0]]), None, "t_eval"),   # increasing rows, but two of them
    (np.array([0.0, np.nan]), None, "t_eval"),
    (np.array([0.0, 2.1]), 2.0, "t_eval"),           # beyond t_max
    (np.array([0.0, 1.0]), -1.0, "t_max"),
    (None, None, "t_max"),
])
def test_given_times_refuse_bad_arguments_by_name(t_eval, t_max, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        _evaluation_times(t_max, t_eval)


@pytest.mark.parametrize("kw, name", [(dict(p=0), "p"), (dict(N=0), "N"), (dict(lr=0.0), "lr")])
def test_sgd_steps_refuses_bad_arguments_by_name(kw, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        q.sgd_steps(1.0, **{"p": 4, "lr": 0.1, "N": 100, **kw})


def test_sgd_time_is_lr_over_p_times_steps_over_N_and_checks_its_arguments():
    np.testing.assert_allclose(_sgd_time(np.array([0, 500, 2000]), p=4, lr=0.2, N=100), [0.0, 0.25, 1.0])
    for kw, name in ((dict(p=0), "p"), (dict(lr=-1.0), "lr")):
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            _sgd_time(10, **{"p": 4, "lr": 0.2, "N": 100, **kw})
