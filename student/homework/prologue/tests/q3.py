from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 2

@test_case(points=1, hidden=False)
def test_q3_interpolates(w_gd, X, y):
    import numpy as np
    assert isinstance(w_gd, np.ndarray) and w_gd.shape == (X.shape[1],), f'q3: w_gd must be the weights of the GD result, shape (d,) = ({X.shape[1]},); it is {w_gd!r:.60}'
    residual = np.linalg.norm(X @ w_gd - y) / np.linalg.norm(y)
    assert residual < 1e-08, f'q3: w_gd does not fit the data: |X w_gd - y| / |y| = {residual:.2e}. Run GD to convergence (keep the default max_steps and tol) from w0 = np.zeros(d), with lr = 0.5 * stability bound.'

