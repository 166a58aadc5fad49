from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 3

@test_case(points=1, hidden=False)
def test_q1_is_a_global_minimiser(w_star, X, y):

    def check():
        import numpy as np
        assert isinstance(w_star, np.ndarray) and w_star.shape == (X.shape[1],), f'q1: w_star must be a NumPy array of shape (d,) = ({X.shape[1]},); it is {w_star!r:.60}'
        beta = X @ w_star
        scale = np.abs(y).max()
        fit = np.abs(beta[y > 0] - y[y > 0]).max() / scale
        assert fit < 1e-09, f'q1: w_star does not fit the positive labels: max |x_i.w - y_i| / max|y| = {fit:.1e} on y_i > 0. A global minimiser fits every positive label exactly'
        above = beta[y < 0].max() / scale
        assert above < 1e-09, f'q1: w_star gives a negative-label example the positive pre-activation {above:.1e} (relative): a global minimiser keeps x_i.w <= 0 on every y_i < 0, so that the neuron outputs 0 there'
    check()

@test_case(points=1, hidden=False)
def test_q1_slack_constraints(slack, w_star, X, y):

    def check():
        import numpy as np
        assert isinstance(slack, np.ndarray) and slack.ndim == 1 and (slack.dtype.kind in 'iu'), f'q1: slack must be an integer array of indices; it is {slack!r:.60}'
        assert isinstance(w_star, np.ndarray) and w_star.shape == (X.shape[1],), 'q1: set w_star first'
        expected = np.flatnonzero((y < 0) & (X @ w_star < -1e-09))
        assert np.array_equal(slack, expected), f'q1: slack holds {slack.size} indices, but X @ w_star is below -1e-9 on {expected.size} negative-label examples, not all of them those of slack. Take the negative labels (y_i < 0) whose pre-activation beta = X @ w_star is below -1e-9, as indices in increasing order (np.flatnonzero)'
    check()

