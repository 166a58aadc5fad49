from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 2

@test_case(points=1, hidden=False)
def test_q3_gd_interpolates(run_zero, w_gd, X, y, lr):

    def check():
        import numpy as np
        assert hasattr(run_zero, 'history') and hasattr(run_zero, 'n_steps'), f'q3: run_zero must be the result of linear.least_squares_gd; it is {run_zero!r:.60}'
        assert run_zero.lr == lr and run_zero.success, 'q3: run GD with the step lr to convergence (keep the default max_steps and tol)'
        assert isinstance(w_gd, np.ndarray) and np.array_equal(w_gd, run_zero.w), f'q3: w_gd must be the final weights run_zero.w of your GD run; it is {w_gd!r:.60}'
        residual = np.linalg.norm(X @ w_gd - y) / np.linalg.norm(y)
        assert residual < 1e-08, f'q3: w_gd does not fit the data: |X w_gd - y| / |y| = {residual:.1e}'
    check()

