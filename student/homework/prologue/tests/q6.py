from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 2

@test_case(points=1, hidden=False)
def test_q6_bound(lr_max, X):
    import numpy as np
    from ibcore import linear
    assert isinstance(lr_max, (float, np.floating)), f'q6: lr_max must be a number; it is {lr_max!r:.60}'
    bound = linear.least_squares_stability_bound(X)
    assert abs(lr_max - bound) < 1e-10 * bound, f"q6: lr_max = {lr_max:.6g} is not 2 n / mu_max (ibcore's stability_bound gives {bound:.6g}). Use the largest eigenvalue of K = X X^T, and n = number of examples."

