from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=1, hidden=False)
def test_q8_one_draw(min_norm_ratio):

    def check():
        import numpy as np
        assert callable(min_norm_ratio), f'q8: define the function min_norm_ratio(n, d, rng); it is {min_norm_ratio!r:.60}'
        try:
            first = min_norm_ratio(8, 40, np.random.default_rng(1))
            again = min_norm_ratio(8, 40, np.random.default_rng(1))
            g = np.random.default_rng(800)
            draws = [min_norm_ratio(8, 40, g) for _ in range(400)]
        except Exception as err:
            raise AssertionError(f'q8: min_norm_ratio(n, d, rng) raised {type(err).__name__}: {err}') from None
        assert all((isinstance(r, (float, np.floating)) and r > 0 for r in [first, *draws])), f'q8: min_norm_ratio must return a positive number; it returned {first!r:.60}'
        draws = np.array(draws)
        assert first == again, 'q8: min_norm_ratio must draw X and y from the generator rng it is given'
        k = 40 - 8 + 1
        mean, spread = (np.mean(draws ** 2) * (k - 2), np.std(draws ** 2) / np.mean(draws ** 2))
        assert abs(mean - 1) < 5 * np.sqrt(2 / (k - 4) / draws.size), f'q8: over 400 draws at n = 8, d = 40, the mean of r^2 is {mean:.3f} / (d - n - 1) instead of 1 / (d - n - 1): draw X with standard Gaussian entries, and return |w*| / |y| (not squared)'
        assert spread > 0.5 * np.sqrt(2 / (k - 4)), 'q8: the draws of min_norm_ratio barely vary: each call must draw a new X and y from rng'
    check()

@test_case(points=1, hidden=False)
def test_q8_slope_within_the_theory_band(ds, norms, slope, trials, n):

    def check():
        import numpy as np
        assert isinstance(trials, int) and trials >= 10, f'q8: use trials >= 10; trials is {trials!r:.40}'
        assert isinstance(ds, np.ndarray) and isinstance(norms, np.ndarray), f'q8: ds and norms must be NumPy arrays; they are {ds!r:.40} and {norms!r:.40}'
        ds_, norms_ = (ds.astype(float), norms.astype(float))
        assert ds_.ndim == 1 and len(ds_) >= 5 and np.all(np.diff(ds_) > 0) and (ds_[-1] >= 32 * ds_[0]) and (ds_[0] >= 5 * n), 'q8: ds must be increasing dimensions from 200 to 12800 (at least 5 of them, d >= 5 n)'
        assert norms_.shape == ds_.shape and np.all(norms_ > 0), 'q8: norms must hold one positive value per d'
        assert np.abs(norms_ ** 2 * (ds_ - n - 1) - 1).max() > 1e-06, 'q8: norms must be measured by simulation, not taken from the formula'
        x = np.log(ds_)
        assert isinstance(slope, (float, np.floating)) and abs(slope - np.polyfit(x, np.log(norms_), 1)[0]) < 1e-08, f'q8: slope = {slope!r:.12} is not the least-squares slope of log(norms) against log(ds)'
        predicted = np.polyfit(x, -0.5 * np.log(ds_ - n - 1), 1)[0]
        sigma = 0.5 * np.sqrt(2 / ((ds_ - n - 3) * trials))
        weights = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
        band = 5 * np.sqrt(np.sum(weights ** 2 * sigma ** 2))
        assert abs(slope - predicted) < band, f'q8: slope {slope:.4f} is outside the band of the theory (+/- {band:.4f}, 5 standard errors). Check that norms is the root-mean-square of |w*| / |y| (not squared, not divided by d), one value per d'
    check()

