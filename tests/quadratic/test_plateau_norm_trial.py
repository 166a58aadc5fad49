"""plateau_norm_trial: the window means of Tr Q/p it reports are those of its runs."""
import inspect

import numpy as np
import pytest

import ibcore.experiments.quadratic as E
import ibcore.quadratic as q

KW = dict(p=4, p_star=4, N=150, lr=0.4, window=(0.5, 1.0))


def test_odes_match_a_time_average_of_an_independent_solve():
    """The ODE means equal the time average (1/(t1 - t0)) ∫ Tr Q/p dt' of a fresh dense solve from
    the run's own start (trapezoid rule, not the trial's mean over records); averaging over a
    wrong window, [0, t1] say, where Tr Q/p falls from 1, misses by far more than the tolerance."""
    record = E.plateau_norm_trial(**KW, rng=3)
    c = E.sgd_ode_comparison(p=4, p_star=4, N=150, lr=0.4, t_max=1.0, informative=0.0, rng=3)
    start = (c.sgd.Q[0], c.sgd.R[0])
    t = np.linspace(0.5, 1.0, 2001)
    for name, lr in (("ode", 0.4), ("gradient_flow", None)):
        run = q.integrate_odes(*start, lr=lr, t_eval=t)
        norm = np.trace(run.Q, axis1=1, axis2=2) / 4
        average = np.sum((norm[1:] + norm[:-1]) / 2 * np.diff(t)) / 0.5
        assert abs(record[name] - average) < 2e-3, (name, record[name], average)
    inside = (c.sgd.t >= 0.5) & (c.sgd.t <= 1.0)
    assert record["sgd"] == pytest.approx(np.trace(c.sgd.Q[inside], axis1=1, axis2=2).mean() / 4)


def test_batch_is_one_call_each_and_protocol():
    params = inspect.signature(E.plateau_norm_trial).parameters.values()
    assert all(v.kind is v.KEYWORD_ONLY for v in params)
    alone = [E.plateau_norm_trial(**KW, rng=seed) for seed in (0, 1)]
    assert E.plateau_norm_trial.batch(**KW, rngs=[0, 1]) == alone


@pytest.mark.parametrize("bad,name", [
    (dict(window=(1.0, 0.5)), "window"), (dict(window=(-0.1, 1.0)), "window"),
    (dict(window=0.5), "window"), (dict(lr=0.0), "lr"), (dict(N=0), "N"), (dict(q0=-1.0), "q0"),
])
def test_bad_input_names_the_parameter(bad, name):
    with pytest.raises(ValueError, match=name):
        E.plateau_norm_trial(**{**KW, **bad}, rng=0)
