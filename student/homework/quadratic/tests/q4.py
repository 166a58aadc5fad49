from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 2

@test_case(points=1, hidden=False)
def test_q4_the_ode(traj_nl, q_ode_nl, q0_nl, p):

    def check():
        import numpy as np
        assert hasattr(traj_nl, 'Q') and hasattr(traj_nl, 't') and hasattr(traj_nl, 'R'), f'q4: traj_nl must be the trajectory of q.integrate_odes; it is {traj_nl!r:.60}'
        assert traj_nl.lr is None, 'q4: integrate gradient flow (lr=None)'
        assert traj_nl.t[-1] >= 3.0 - 1e-12 and np.all(np.asarray(traj_nl.R) == 0), "q4: integrate up to t' = 3 from R(0) = 0"
        assert np.abs(traj_nl.Q[0] - q0_nl * np.eye(p)).max() < 1e-15, 'q4: start from Q(0) = q0_nl I'
        assert isinstance(q_ode_nl, np.ndarray) and q_ode_nl.shape == traj_nl.t.shape, f'q4: q_ode_nl must be an array with one value per time of traj_nl; it is {q_ode_nl!r:.60}'
        assert np.abs(q_ode_nl - np.trace(traj_nl.Q, axis1=1, axis2=2) / p).max() < 1e-14, "q4: q_ode_nl must be Tr Q(t')/p along traj_nl"
        q_bar = p / (p + 2)
        growth = np.exp(4 * traj_nl.t)
        logistic = q_bar * q0_nl * growth / (q_bar + q0_nl * (growth - 1))
        assert np.abs(q_ode_nl - logistic).max() < 1e-07, 'q4: traj_nl must be the gradient-flow ODE of the full matrices from Q(0) = q0_nl I, R(0) = 0 (q.integrate_odes)'
    check()

@test_case(points=0.5, hidden=False)
def test_q4_the_logistic_law(logistic_overlap):

    def check():
        import numpy as np
        assert callable(logistic_overlap), f'q4: define the function logistic_overlap(t, q0, p); it is {logistic_overlap!r:.60}'
        t = np.linspace(0.0, 4.0, 4001)
        for q0, width in ((0.2, 6), (0.9, 2)):
            try:
                curve = logistic_overlap(t, q0, width)
            except Exception as err:
                raise AssertionError(f'q4: logistic_overlap(t, q0, p) raised {type(err).__name__}: {err}') from None
            assert isinstance(curve, np.ndarray) and curve.shape == t.shape, f'q4: logistic_overlap(t, q0, p) must return one value per time of t; it returned {curve!r:.60}'
            q_bar = width / (width + 2)
            assert abs(curve[0] - q0) < 1e-12, f"q4: logistic_overlap must start at q0 = {q0} at t' = 0"
            slope = (curve[2:] - curve[:-2]) / (t[2] - t[0])
            law = 4 * curve[1:-1] * (1 - curve[1:-1] / q_bar)
            assert np.abs(slope - law).max() < 0.0001, f"q4: with q0 = {q0} and p = {width}, logistic_overlap does not solve dq/dt' = 4 q (1 - q / Q_bar) with Q_bar = p / (p + 2): check the rate 4, the limit, and that p is the argument, not the notebook's p"
    check()

