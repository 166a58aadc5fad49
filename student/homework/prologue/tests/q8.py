from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=1, hidden=False)
def test_q8_one_draw(min_norm_ratio):

    def check():
        import numpy as np
        assert callable(min_norm_ratio), f'q8: define the function min_norm_ratio(n, d, rng); it is {min_norm_ratio!r:.60}'
        for n, d, seed in ((8, 40, 1), (20, 300, 800)):
            try:
                got = min_norm_ratio(n, d, np.random.default_rng(seed))
            except Exception as err:
                raise AssertionError(f'q8: min_norm_ratio(n, d, rng) raised {type(err).__name__}: {err}') from None
            assert isinstance(got, (float, np.floating)) and got > 0, f'q8: min_norm_ratio must return a positive number; it returned {got!r:.60}'
            g = np.random.default_rng(seed)
            X_draw, y_draw = (g.standard_normal((n, d)), g.uniform(-1, 1, n))
            w = X_draw.T @ np.linalg.solve(X_draw @ X_draw.T, y_draw)
            r = np.linalg.norm(w) / np.linalg.norm(y_draw)
            assert abs(got - r) < 1e-10 * r, f'q8: with n = {n}, d = {d}, min_norm_ratio returns {got:.6g}: draw X (standard Gaussian, n x d), then y (uniform on [-1, 1]), from rng, and return |w*| / |y| (not squared)'
    check()

@test_case(points=1, hidden=False)
def test_q8_slope_within_the_theory_band(min_norm_ratio, ds, norms, slope, trials, n, seed):

    def check():
        import numpy as np
        assert isinstance(trials, int) and trials >= 10, f'q8: use trials >= 10; trials is {trials!r:.40}'
        assert isinstance(ds, np.ndarray) and isinstance(norms, np.ndarray), f'q8: ds and norms must be NumPy arrays; they are {ds!r:.40} and {norms!r:.40}'
        ds_, norms_ = (ds.astype(float), norms.astype(float))
        assert ds_.ndim == 1 and len(ds_) >= 5 and np.all(np.diff(ds_) > 0) and (ds_[-1] >= 32 * ds_[0]) and (ds_[0] >= 5 * n) and np.all(ds_ == np.round(ds_)), 'q8: ds must be increasing dimensions from 200 to 12800 (at least 5 of them, d >= 5 n)'
        assert norms_.shape == ds_.shape and np.all(norms_ > 0), 'q8: norms must hold one positive value per d'
        assert callable(min_norm_ratio), 'q8: define the function min_norm_ratio'
        g, reference = (np.random.default_rng(seed + 8), np.random.default_rng(seed + 8))
        draws = []
        for dim in ds_[:2]:
            try:
                r = np.array([float(min_norm_ratio(n, int(dim), g)) for _ in range(trials)])
            except Exception as err:
                raise AssertionError(f'q8: min_norm_ratio(n, d, rng) raised {type(err).__name__}: {err}') from None
            for k in range(trials):
                X_k = reference.standard_normal((n, int(dim)))
                y_k = reference.uniform(-1, 1, n)
                w_k = X_k.T @ np.linalg.solve(X_k @ X_k.T, y_k)
                r_k = np.linalg.norm(w_k) / np.linalg.norm(y_k)
                assert abs(r[k] - r_k) < 1e-10 * r_k, 'q8: the slope needs genuine measurements: min_norm_ratio must draw X, then y, from rng and return |w*| / |y| (see its own test)'
            draws.append(r)
        averages = [[np.sqrt(np.mean(r ** 2)), np.mean(r), np.mean(r ** 2)] for r in draws]
        assert any((abs(norms_[0] - a) <= 1e-10 * a and abs(norms_[1] - b) <= 1e-10 * b for a, b in zip(*averages))), "q8: norms must be measured: norms[0] and norms[1] are not averages of min_norm_ratio's draws from rng_q8 (trials draws at ds[0], then at ds[1])"
        x = np.log(ds_)
        assert isinstance(slope, (float, np.floating)) and abs(slope - np.polyfit(x, np.log(norms_), 1)[0]) < 1e-08, f'q8: slope = {slope!s:.20} is not the least-squares slope of log(norms) against log(ds)'
        predicted = np.polyfit(x, -0.5 * np.log(ds_ - n - 1), 1)[0]
        sigma = 0.5 * np.sqrt(2 / ((ds_ - n - 3) * trials))
        weights = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
        band = 5 * np.sqrt(np.sum(weights ** 2 * sigma ** 2))
        assert abs(slope - predicted) < band, f'q8: slope {slope:.4f} is outside the band of the theory (+/- {band:.4f}, 5 standard errors). Check that norms is the root-mean-square of |w*| / |y| (not squared, not divided by d), one value per d'
    check()

