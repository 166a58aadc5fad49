from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 3

@test_case(points=1, hidden=False)
def test_q4_gd_reaches_the_limit(w_inf, run_random, X, y, w0, lr):

    def check():
        import numpy as np
        from ibcore import linear
        limit = linear.gd_limit(X, y, w0)
        assert isinstance(w_inf, np.ndarray) and w_inf.shape == w0.shape, f'q4: w_inf must be a vector of shape (d,); it is {w_inf!r:.60}'
        assert np.linalg.norm(w_inf - limit) < 1e-12 * np.linalg.norm(limit), 'q4: w_inf is not the exact limit: take it from linear.gd_limit(X, y, w0), not from a GD run'
        assert hasattr(run_random, 'history') and hasattr(run_random, 'w'), f'q4: run_random must be the result of linear.least_squares_gd; it is {run_random!r:.60}'
        assert run_random.lr == lr, 'q4: run GD with the step lr'
        gap = np.linalg.norm(run_random.w - limit) / np.linalg.norm(limit)
        assert run_random.success and gap < 1e-08, f'q4: GD ends at a relative distance {gap:.1e} from the limit from w0: run it from w0 (the random start) to convergence'
    check()

@test_case(points=1, hidden=False)
def test_q4_kept_norm(kept_norm):

    def check():
        import numpy as np
        assert callable(kept_norm), f'q4: define the function kept_norm(X, v); kept_norm is {kept_norm!r:.60}'
        g = np.random.default_rng(404)
        Xt = g.standard_normal((6, 30))
        inside = Xt.T @ g.standard_normal(6)
        outside = np.linalg.svd(Xt)[2][6:].T @ g.standard_normal(24)
        try:
            values = [kept_norm(Xt, v) for v in (inside, outside, inside + outside)]
        except Exception as err:
            raise AssertionError(f'q4: kept_norm(X, v) raised {type(err).__name__}: {err}') from None
        assert all((isinstance(v, (float, np.floating)) for v in values)), f'q4: kept_norm(X, v) must return a number (a squared norm); it returned {values[0]!r:.60}'
        scale = np.sum(outside ** 2)
        assert abs(values[0]) < 1e-10 * np.sum(inside ** 2), 'q4: kept_norm(X, v) must be 0 for a vector v of the row space of X'
        assert abs(values[1] - scale) < 1e-10 * scale and abs(values[2] - scale) < 1e-10 * scale, 'q4: kept_norm(X, v) must be the squared norm of the part of v orthogonal to the rows of X (a squared norm: no square root)'
    check()

