from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 3

@test_case(points=1, hidden=False)
def test_q7_distances(dist, T):
    import numpy as np
    assert isinstance(dist, np.ndarray) and dist.shape == (T + 1,), f'q7: dist must be an array of length T + 1 = {T + 1}; it is {dist!r:.60}'
    assert abs(dist[0] - 1) < 1e-12, f'q7: dist[0] = {dist[0]:.3g}, but from w_0 = 0 the relative distance |0 - w*| / |w*| is 1. Record the distance before each step, starting at t = 0.'
    assert np.all(np.diff(dist) <= 1e-12), 'q7: dist must decrease at every step for a stable step size'
    assert dist[-1] < 1e-10, f'q7: after T steps GD should be within 1e-10 of w*; dist[-1] = {dist[-1]:.2e}'

@test_case(points=2, hidden=False)
def test_q7_rate_matches_the_slowest_mode(rho_measured, lr, X):
    import numpy as np
    assert isinstance(rho_measured, (float, np.floating)), f'q7: rho_measured must be a number; it is {rho_measured!r:.60}'
    n = X.shape[0]
    predicted = np.max(np.abs(1 - lr * np.linalg.eigvalsh(X @ X.T) / n))
    assert abs(rho_measured - predicted) < 0.01 * (1 - predicted), f'q7: measured contraction {rho_measured:.5f} per step, but the slowest mode predicts {predicted:.5f}. Fit log(dist) (not dist) against t over the tail only, and take exp(slope).'

