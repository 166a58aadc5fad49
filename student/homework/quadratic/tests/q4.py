from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 2

@test_case(points=1, hidden=False)
def test_q4_ode_follows_the_logistic_law(traj_nl, q_ode_nl, q_logistic_nl):
    import numpy as np
    assert hasattr(traj_nl, 'Q') and hasattr(traj_nl, 't'), f'q4: traj_nl must be the trajectory of q.integrate_odes; it is {traj_nl!r:.60}'
    assert traj_nl.t[-1] >= 3.0 - 1e-12, "q4: integrate up to t' = 3"
    q_ode, q_log = (np.asarray(q_ode_nl, dtype=float), np.asarray(q_logistic_nl, dtype=float))
    assert q_ode.shape == q_log.shape == traj_nl.t.shape, 'q4: q_ode_nl and q_logistic_nl need one value per time'
    trace = np.trace(traj_nl.Q, axis1=1, axis2=2) / traj_nl.Q.shape[-1]
    assert np.abs(q_ode - trace).max() < 1e-14, "q4: q_ode_nl must be Tr Q(t')/p along traj_nl"
    error = np.abs(q_ode - q_log).max()
    assert error < 1e-07, f"q4: max |q_ODE - q_logistic| = {error:.1e}, it should be below 1e-7. The rate is 4 (in t'), the limit p/(p+2), and both curves must start at q0_nl"

