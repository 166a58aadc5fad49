from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 2

@test_case(points=1, hidden=False)
def test_q1_interpolates(min_norm):

    def check():
        import numpy as np
        assert callable(min_norm), f'q1: define the function min_norm(X, y); min_norm is {min_norm!r:.60}'
        g = np.random.default_rng(101)
        Xt, yt = (g.standard_normal((12, 60)), g.uniform(-1, 1, 12))
        try:
            w = min_norm(Xt, yt)
        except Exception as err:
            raise AssertionError(f'q1: min_norm(X, y) raised {type(err).__name__}: {err}') from None
        assert isinstance(w, np.ndarray) and w.shape == (60,), f'q1: on a 12 x 60 problem min_norm must return a NumPy array of shape (60,); it returned {w!r:.60}'
        residual = np.linalg.norm(Xt @ w - yt) / np.linalg.norm(yt)
        assert residual < 1e-09, f'q1: min_norm(X, y) does not interpolate a random 12 x 60 problem: |X w - y| / |y| = {residual:.1e}. Solve K alpha = y exactly with np.linalg.solve (K = X X^T, no approximation), then w = X^T alpha'
    check()

