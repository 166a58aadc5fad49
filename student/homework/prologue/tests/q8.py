from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=2, hidden=False)
def test_q8_slope_within_the_theory_band(ds, norms, slope, trials, n):
    import numpy as np
    ds = np.asarray(ds, dtype=float)
    norms = np.asarray(norms, dtype=float)
    assert ds.ndim == 1 and len(ds) >= 5 and np.all(np.diff(ds) > 0) and (ds[-1] >= 32 * ds[0]), 'q8: ds must be increasing dimensions spanning a factor 32 or more (200 to 12800)'
    assert ds[0] >= 5 * n and isinstance(trials, int) and (trials >= 10), 'q8: use d >= 5 n and at least 10 trials, so that the theory band below applies'
    assert norms.shape == ds.shape and np.all(norms > 0), 'q8: norms must hold one positive value per d'
    x = np.log(ds)
    fitted = np.polyfit(x, np.log(norms), 1)[0]
    assert abs(slope - fitted) < 1e-08, f'q8: slope = {slope:.4f} is not the fitted slope {fitted:.4f} of your data'
    predicted = np.polyfit(x, -0.5 * np.log(ds - n - 1), 1)[0]
    sigma = 0.5 * np.sqrt(2 / ((ds - n - 3) * trials))
    weights = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
    band = 5 * np.sqrt(np.sum(weights ** 2 * sigma ** 2))
    assert abs(slope - predicted) < band, f'q8: slope {slope:.4f} is outside the theory band {predicted:.4f} +/- {band:.4f}. Check that norms is the root-mean-square of |w*| / |y| (not squared, not divided by d), one value per d.'

