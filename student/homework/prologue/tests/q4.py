from otter.test_files import test_case

OK_FORMAT = False

name = "q4"
points = 3

@test_case(points=1, hidden=False)
def test_q4_pythagoras(excess, kept, w_inf):
    import numpy as np
    for name, value in (('excess', excess), ('kept', kept)):
        assert isinstance(value, (float, np.floating)) and np.isfinite(value), f'q4: {name} must be a finite number (a squared norm); it is {value!r:.60}'
    assert kept > 0, 'q4: kept = |(I - P_X) w0|^2 must be positive: a random w0 has a part outside row(X)'
    assert abs(excess - kept) < 1e-08 * max(1.0, float(np.sum(w_inf ** 2))), f'q4: excess = {excess:.6f} but kept = {kept:.6f}; question 2 says they are equal. Check that excess uses squared norms and that kept is the squared norm of w0 - P_X w0.'

