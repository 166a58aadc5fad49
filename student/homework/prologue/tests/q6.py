from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 2

@test_case(points=1, hidden=False)
def test_q6_spectrum(gd_spectrum):

    def check():
        import numpy as np
        assert callable(gd_spectrum), f'q6: define the function gd_spectrum(X, lr); it is {gd_spectrum!r:.60}'
        g = np.random.default_rng(606)
        Xt = g.standard_normal((8, 40))
        try:
            mu, lr_max, rho = gd_spectrum(Xt, 0.1)
        except Exception as err:
            raise AssertionError(f'q6: gd_spectrum(X, lr) must return (mu, lr_max, rho); it raised {type(err).__name__}: {err}') from None
        assert isinstance(mu, np.ndarray) and mu.shape == (8,), f'q6: on an 8 x 40 problem mu must be an array of the 8 eigenvalues of K; it is {mu!r:.60}'
        K = Xt @ Xt.T
        assert np.all(np.diff(mu) >= 0) and abs(mu.sum() - np.trace(K)) < 1e-10 * np.trace(K) and (abs(np.sum(mu ** 2) - np.sum(K ** 2)) < 1e-10 * np.sum(K ** 2)), 'q6: mu must hold the eigenvalues of K = X X^T in increasing order (np.linalg.eigvalsh)'
        for name, value in (('lr_max', lr_max), ('rho', rho)):
            assert isinstance(value, (float, np.floating)) and np.isfinite(value), f'q6: {name} must be a number; it is {value!r:.60}'
        assert 0 < rho < 1 and lr_max > 0.1, 'q6: the step 0.1 is stable on this problem: expect 0 < rho < 1'
    check()

