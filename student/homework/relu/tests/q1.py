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
def test_q1_counts(n_slack, n_tight, w_star, X, y):

    def check():
        import numpy as np
        for name, value in (('n_slack', n_slack), ('n_tight', n_tight)):
            assert isinstance(value, (int, np.integer)) and (not isinstance(value, bool)), f'q1: {name} must be an integer count; it is {value!r:.60}'
        negatives = int(np.sum(y < 0))
        assert n_slack + n_tight == negatives, f'q1: n_slack + n_tight = {n_slack + n_tight}, but there are {negatives} negative labels: at a global minimiser every negative constraint is either slack (beta_i < -1e-9) or tight (|beta_i| <= 1e-9)'
        assert isinstance(w_star, np.ndarray) and w_star.shape == (X.shape[1],), 'q1: set w_star first'
        slack = int(np.sum((X @ w_star)[y < 0] < -1e-09))
        assert n_slack == slack, f'q1: n_slack = {n_slack}, but X @ w_star is below -1e-9 on {slack} negative-label examples. Count the negative labels (y_i < 0) only, with the pre-activations beta = X @ w_star'
    check()

