from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 4

@test_case(points=1, hidden=False)
def test_q7_distances(gd_distances):

    def check():
        import numpy as np
        from ibcore import linear
        assert callable(gd_distances), f'q7: define the function gd_distances(X, y, lr, T, w_ref); it is {gd_distances!r:.60}'
        g = np.random.default_rng(707)
        Xt, yt = (g.standard_normal((10, 50)), g.uniform(-1, 1, 10))
        target = linear.min_norm_interpolator(Xt, yt)
        lr = 0.5 * linear.least_squares_stability_bound(Xt)
        try:
            dist = gd_distances(Xt, yt, lr, 40, target)
        except Exception as err:
            raise AssertionError(f'q7: gd_distances(X, y, lr, T, w_ref) raised {type(err).__name__}: {err}') from None
        assert isinstance(dist, np.ndarray) and dist.shape == (41,), f'q7: with T = 40, gd_distances must return an array of length T + 1 = 41; it returned {dist!r:.60}'
        assert abs(dist[0] - 1) < 1e-12, f'q7: dist[0] = {dist[0]:.3g}, but from w_0 = 0 the relative distance |0 - w_ref| / |w_ref| is 1: record the distance before each step, starting at t = 0'
        run = linear.least_squares_gd(Xt, yt, np.zeros(50), lr=lr, max_steps=40, tol=0, record_every=1)
        expected = np.linalg.norm(run.history.alpha @ Xt - target, axis=1) / np.linalg.norm(target)
        wrong = np.flatnonzero(~(np.abs(dist - expected) < 1e-10))
        assert wrong.size == 0, f'q7: the distances are not those of GD with the step lr from w_0 = 0; the first wrong one is at t = {(wrong[0] if wrong.size else 0)}. The step is w - (lr / n) X^T (X w - y), with n the number of rows of X'
    check()

@test_case(points=1, hidden=False)
def test_q7_fitted_rate(fitted_rate):

    def check():
        import numpy as np
        assert callable(fitted_rate), f'q7: define the function fitted_rate(dist); it is {fitted_rate!r:.60}'
        g = np.random.default_rng(708)
        for rate, T in ((0.95, 300), (0.9, 200)):
            t = np.arange(T + 1)
            dist = 0.7 * rate ** t + 0.3 * 0.5 ** t + 1e-15 * g.random(T + 1)
            try:
                got = fitted_rate(dist)
            except Exception as err:
                raise AssertionError(f'q7: fitted_rate(dist) raised {type(err).__name__}: {err}') from None
            assert isinstance(got, (float, np.floating)), f'q7: fitted_rate must return a number; it returned {got!r:.60}'
            assert abs(got - rate) < 1e-06, f'q7: on distances that fall exactly like {rate}^t after a transient, fitted_rate returns {got:.6f}. Fit log(dist) (not dist) against t over t > 50 and dist > 1e-11 only, and return exp(slope)'
    check()

