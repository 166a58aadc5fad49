from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 3

@test_case(points=1, hidden=False)
def test_q9_frozen_examples(frozen_bad, run_bad, w0_bad, X, y, lr):

    def check():
        import warnings
        import numpy as np
        import ibcore.relu as R
        import ibcore.experiments.relu as experiments
        assert hasattr(run_bad, 'last_change') and np.asarray(run_bad.w).shape == w0_bad.shape, f'q9: run_bad must be the GD run of one neuron from w0_bad; it is {run_bad!r:.60}'
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', R.InactivePositiveWarning)
            run = R.gradient_descent(X, y, w0_bad, lr=lr, record_every=None)
        assert np.linalg.norm(np.asarray(run_bad.w) - run.w) <= 1e-12 * np.linalg.norm(run.w), 'q9: run_bad must be the GD run from w0_bad with the step lr'
        expected = np.flatnonzero((y > 0) & (X @ w0_bad <= 0) & (run.last_change == 0))
        assert isinstance(frozen_bad, np.ndarray) and frozen_bad.dtype.kind in 'iu', f'q9: frozen_bad must be an integer array of indices; it is {frozen_bad!r:.60}'
        assert np.array_equal(np.sort(frozen_bad), expected), f'q9: frozen_bad must hold the indices of the positive labels with x_i.w0 <= 0 that never become active ({expected.size} here); it holds {frozen_bad.size}'
    check()

@test_case(points=1, hidden=False)
def test_q9_frozen_cost(frozen_cost):

    def check():
        import numpy as np
        assert callable(frozen_cost), f'q9: define the function frozen_cost(y, frozen); it is {frozen_cost!r:.60}'
        g = np.random.default_rng(909)
        yt = g.uniform(-1, 1, 12)
        try:
            values = [frozen_cost(yt, np.array([1, 4, 7])), frozen_cost(yt, np.array([], dtype=int))]
        except Exception as err:
            raise AssertionError(f'q9: frozen_cost(y, frozen) raised {type(err).__name__}: {err}') from None
        assert all((isinstance(v, (float, np.floating)) for v in values)), f'q9: frozen_cost must return a number; it returned {values[0]!r:.60}'
        assert abs(values[0] - (yt[1] ** 2 + yt[4] ** 2 + yt[7] ** 2) / 24) < 1e-15 and values[1] == 0, 'q9: frozen_cost(y, frozen) must be the sum of y_i^2 / (2n) over the indices in frozen, n = len(y) (all the labels, not only the frozen ones)'
        yt = g.uniform(-1, 1, 31)
        idx = np.flatnonzero(g.random(31) < 0.3)
        got = frozen_cost(yt, idx)
        assert isinstance(got, (float, np.floating)) and abs(got - np.sum(yt[idx] ** 2) / 62) < 1e-15, 'q9: frozen_cost is wrong on another draw of 31 labels'
    check()

