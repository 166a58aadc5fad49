from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=2, hidden=False)
def test_q8_gd_is_the_linear_limit(run_dis, W_lim, W0_dis, b_min, b_dis, X):
    import numpy as np
    assert isinstance(b_min, (float, np.floating)) and 0 < b_min < b_dis, f'q8: b_min must be 3 sqrt(n/(3 m d)), a positive number below b_dis = {b_dis}; it is {b_min!r:.40}'
    assert abs(b_min - 3 * np.sqrt(X.shape[0] / (3 * W0_dis.shape[0] * X.shape[1]))) < 1e-12, 'q8: b_min must be 3 sqrt(n / (3 m d))'
    assert hasattr(run_dis, 'last_change') and np.asarray(run_dis.w).shape == W0_dis.shape, 'q8: run_dis must be the GD result of the 4 neurons from W0_dis'
    assert np.all(run_dis.last_change == 0), 'q8: the activation pattern changed during the run: start from W0_dis with signs=signs_dis'
    W_lim = np.asarray(W_lim, dtype=float)
    assert W_lim.shape == W0_dis.shape, f'q8: W_lim must have shape {W0_dis.shape}'
    error = np.linalg.norm(run_dis.w - W_lim) / np.linalg.norm(W_lim)
    assert error < 1e-08, f'q8: |W_GD - W_lim| / |W_lim| = {error:.1e}, it should be below 1e-8. Each row of W_lim keeps the part of w_j(0) orthogonal to the rows of S_j and adds the min-norm interpolator of s_j y on S_j'

