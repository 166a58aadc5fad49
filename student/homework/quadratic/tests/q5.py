from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 3

@test_case(points=2, hidden=False)
def test_q5_root_of_the_stationarity_equation(q_bar_lift, coefficients_lift, g_lift, p, p_star):
    import numpy as np
    assert isinstance(q_bar_lift, (float, np.floating)), f'q5: q_bar_lift must be a number; it is {q_bar_lift!r:.60}'
    coef = np.asarray(coefficients_lift, dtype=float)
    assert coef.shape == (3,), 'q5: coefficients_lift must be [a, b, c0]'
    grid = np.linspace(0.0, 2.0, 5)
    F = lambda x: 1 - x - 2 * x / p + g_lift * (1 + 2 / p_star - 2 * x * (1 + 2 / p) + x ** 2 * (p + 2) * (p + 4) / p ** 2)
    assert np.abs(np.polyval(coef, grid) - F(grid)).max() < 1e-12, 'q5: a q^2 + b q + c0 must equal F(q) for every q: collect the powers of q in F'
    assert abs(F(q_bar_lift)) < 1e-12, f'q5: F(q_bar_lift) = {F(q_bar_lift):.1e}, not a root'
    assert p / (p + 2) < q_bar_lift < 1, f'q5: q_bar_lift = {q_bar_lift:.4f} is not the plateau root: take the smaller root, which lies just above p/(p+2) (the SGD noise inflates the norms)'

