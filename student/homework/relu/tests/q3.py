from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 5

@test_case(points=1, hidden=False)
def test_q3_the_run(run_gd, w_gd, w0_one, X, lr):

    def check():
        import numpy as np
        assert hasattr(run_gd, 'last_change') and hasattr(run_gd, 'history'), f'q3: run_gd must be the result of R.gradient_descent; it is {run_gd!r:.60}'
        h = run_gd.history
        start = np.abs(h.beta[0] - X @ w0_one).max() / np.abs(X @ w0_one).max()
        assert start < 1e-12 and run_gd.lr == lr, 'q3: run GD from w0_one with the step lr'
        assert np.array_equal(h.step, np.arange(h.step.size)), 'q3: run GD with record_every=1'
        assert run_gd.success, 'q3: run GD to convergence (keep the default tol)'
        assert isinstance(w_gd, np.ndarray) and np.array_equal(w_gd, run_gd.w), f'q3: w_gd must be run_gd.w; it is {w_gd!r:.60}'
    check()

@test_case(points=1, hidden=False)
def test_q3_settling_step(T0, run_gd, w0_one, X):

    def check():
        import numpy as np
        assert isinstance(T0, (int, np.integer)) and (not isinstance(T0, bool)), f'q3: T0 must be an integer; it is {T0!r:.60}'
        assert hasattr(run_gd, 'last_change') and hasattr(run_gd, 'history'), 'q3: set run_gd first'
        start = np.asarray(run_gd.history.beta)[0]
        assert np.abs(start - X @ w0_one).max() < 1e-12 * np.abs(X @ w0_one).max(), "q3: run_gd must be a run on the set's data, from w0_one"
        last = int(np.max(run_gd.last_change))
        assert T0 == last, f'q3: T0 = {T0}, but the pattern of run_gd last changes at step {last}: T0 is the largest entry of run_gd.last_change (R.stabilisation_step)'
        assert 0 < T0 < run_gd.n_steps, 'q3: the pattern must settle before the run ends'
    check()

@test_case(points=1, hidden=False)
def test_q3_iterate_at_T0(w_T0, T0, run_gd, w0_one, X):

    def check():
        import numpy as np
        assert hasattr(run_gd, 'history') and isinstance(T0, (int, np.integer)), 'q3: set run_gd and T0 first'
        assert isinstance(w_T0, np.ndarray) and w_T0.shape == (X.shape[1],), f'q3: w_T0 must be a weight vector of shape (d,) = ({X.shape[1]},); it is {w_T0!r:.60}'
        h = run_gd.history
        assert 0 <= T0 < h.step.size and h.step[T0] == T0, 'q3: run_gd must record every step (record_every=1) up to T0'
        recorded = h.beta[T0]
        off = np.abs(X @ w_T0 - recorded).max() / np.abs(recorded).max()
        assert off < 1e-10, f'q3: X @ w_T0 differs from the pre-activations that GD recorded at step T0 by {off:.1e} (relative): w_T0 is the iterate at the settling step T0 (w0_one + X^T alpha_T0, with alpha_T0 = run_gd.history.alpha[T0])'
        shift = w_T0 - w0_one
        outside = shift - X.T @ np.linalg.lstsq(X.T, shift, rcond=None)[0]
        assert np.linalg.norm(outside) < 1e-10 * np.linalg.norm(w_T0), 'q3: w_T0 - w0_one must be a combination X^T alpha of the rows of X'
    check()

@test_case(points=1, hidden=False)
def test_q3_limit_formula(w_limit, w_T0, X, y):

    def check():
        import numpy as np
        for name, w in (('w_T0', w_T0), ('w_limit', w_limit)):
            assert isinstance(w, np.ndarray) and w.shape == (X.shape[1],), f'q3: {name} must be a weight vector of shape (d,) = ({X.shape[1]},); it is {w!r:.60}'
        pos = y > 0
        fit = np.abs(X[pos] @ w_limit - y[pos]).max() / np.abs(y).max()
        assert fit < 1e-12, f'q3: X+ w_limit misses y+ by {fit:.1e} (relative): compute w_limit exactly from w_T0 with the formula, not from the GD run'
        shift = w_limit - w_T0
        outside = shift - X[pos].T @ np.linalg.lstsq(X[pos].T, shift, rcond=None)[0]
        assert np.linalg.norm(outside) < 1e-12 * np.linalg.norm(w_limit), 'q3: w_limit keeps the wrong part of w_T0: w_limit - w_T0 must lie in the span of the positive rows, so that w_limit keeps (I - P+) w_T0'
    check()

