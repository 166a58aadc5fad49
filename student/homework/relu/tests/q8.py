from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=1, hidden=False)
def test_q8_the_pattern_never_changes(run_dis, W0_dis, signs_dis, X, y, lr_dis):

    def check():
        import numpy as np
        import ibcore.relu as R
        import ibcore.experiments.relu as experiments
        assert hasattr(run_dis, 'last_change') and np.asarray(run_dis.w).shape == W0_dis.shape, f'q8: run_dis must be the GD result of the 4 neurons from W0_dis; it is {run_dis!r:.60}'
        assert run_dis.success, 'q8: run GD to convergence'
        assert np.all(run_dis.last_change == 0), 'q8: the activation pattern changed during the run: start from W0_dis with signs=signs_dis'
        run = R.gradient_descent(X, y, W0_dis, lr=lr_dis, signs=signs_dis, record_every=None)
        assert np.linalg.norm(np.asarray(run_dis.w) - run.w) <= 1e-12 * np.linalg.norm(run.w), 'q8: run_dis must be the GD run from W0_dis with the signs signs_dis and the step lr_dis'
    check()

@test_case(points=1, hidden=False)
def test_q8_limit_is_linear_regression_on_each_subset(W_lim, W0_dis, assignment_dis, signs_dis, X, y):

    def check():
        import numpy as np
        assert isinstance(W_lim, np.ndarray) and W_lim.shape == W0_dis.shape, f'q8: W_lim must be an array of shape {W0_dis.shape}; it is {W_lim!r:.60}'
        for j in range(W0_dis.shape[0]):
            S = assignment_dis == j
            fit = np.abs(X[S] @ W_lim[j] - signs_dis[j] * y[S]).max() / np.abs(y).max()
            assert fit < 1e-12, f'q8: row {j} of W_lim misses s_j y on its subset S_j by {fit:.1e} (relative): compute W_lim exactly with the formula, not from the GD run'
            shift = W_lim[j] - W0_dis[j]
            outside = shift - X[S].T @ np.linalg.lstsq(X[S].T, shift, rcond=None)[0]
            assert np.linalg.norm(outside) < 1e-12 * np.linalg.norm(W_lim[j]), f'q8: row {j} of W_lim changes w_j(0) outside the span of the rows of S_j: it must keep (I - P_Sj) w_j(0)'
    check()

