from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 2

@test_case(points=1, hidden=False)
def test_q1_interpolates(w_star, X, y):
    import numpy as np
    assert isinstance(w_star, np.ndarray) and w_star.shape == (X.shape[1],), f'q1: w_star must be a NumPy array of shape (d,) = ({X.shape[1]},); it is {w_star!r:.60}'
    residual = np.linalg.norm(X @ w_star - y) / np.linalg.norm(y)
    assert residual < 1e-08, f'q1: w_star does not interpolate the data: |X w_star - y| / |y| = {residual:.2e}, it should be below 1e-8. Solve K alpha = y exactly with np.linalg.solve (K = X X^T, no approximation), then set w_star = X^T alpha.'

