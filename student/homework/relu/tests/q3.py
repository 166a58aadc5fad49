from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 5

@test_case(points=1, hidden=False)
def test_q3_settling_step(T0, run_gd):
    import numpy as np
    assert hasattr(run_gd, 'last_change') and hasattr(run_gd, 'history'), f'q3: run_gd must be the result of R.gradient_descent; it is {run_gd!r:.60}'
    assert isinstance(T0, (int, np.integer)) and (not isinstance(T0, bool)), f'q3: T0 must be an integer; it is {T0!r:.60}'
    last = int(np.max(run_gd.last_change))
    assert T0 == last, f'q3: T0 = {T0}, but the pattern of run_gd last changes at step {last}: T0 is the largest entry of run_gd.last_change (R.stabilisation_step)'
    assert 0 < T0 < run_gd.n_steps, 'q3: the pattern must settle before the run ends'

@test_case(points=2, hidden=False)
def test_q3_gd_lands_on_the_least_squares_limit(w_gd, w_limit, X):
    import numpy as np
    for name, w in (('w_gd', w_gd), ('w_limit', w_limit)):
        assert isinstance(w, np.ndarray) and w.shape == (X.shape[1],), f'q3: {name} must be a weight vector of shape (d,) = ({X.shape[1]},); it is {w!r:.60}'
    gap = np.linalg.norm(w_gd - w_limit) / np.linalg.norm(w_gd)
    assert gap < 1e-08, f'q3: |w_gd - w_limit| / |w_gd| = {gap:.2e}, it should be below 1e-8. Check that w_T0 is the iterate at step T0 (w0 + alpha_T0 X, with alpha_T0 = run_gd.history.alpha[T0]) and that w_limit keeps the part of w_T0 orthogonal to the positive rows: w_PLS + w_T0 - P+ w_T0'

