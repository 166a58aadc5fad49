from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 3

@test_case(points=2, hidden=False)
def test_q9_excess_is_the_stuck_cost(frozen_bad, loss_excess_bad, stuck_cost_bad, run_bad, w0_bad, X, y):
    import numpy as np
    import ibcore.relu as R
    expected = np.flatnonzero((y > 0) & (X @ w0_bad <= 0))
    frozen = np.asarray(frozen_bad)
    assert frozen.dtype.kind in 'iu' and np.array_equal(np.sort(frozen), expected), f'q9: frozen_bad must hold the indices of the positive labels with x_i.w0 <= 0 ({expected.size} here); it is {frozen_bad!r:.60}'
    assert hasattr(run_bad, 'loss') and np.asarray(run_bad.w).shape == w0_bad.shape and run_bad.success, 'q9: run_bad must be the converged GD run of one neuron from w0_bad'
    excess = run_bad.loss - R.min_norm_solution(X, y).loss
    assert abs(loss_excess_bad - excess) < 1e-14, 'q9: loss_excess_bad must be run_bad.loss - L_min'
    assert abs(stuck_cost_bad - np.sum(y[expected] ** 2) / (2 * len(y))) < 1e-14, 'q9: stuck_cost_bad must be sum y_i^2 / (2n) over the frozen examples'
    assert abs(loss_excess_bad - stuck_cost_bad) < 1e-12, f'q9: L - L_min = {loss_excess_bad:.6f} but the frozen examples cost {stuck_cost_bad:.6f}: run GD to convergence from w0_bad with the step lr'

