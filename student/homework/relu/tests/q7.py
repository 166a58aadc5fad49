from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 4

@test_case(points=1, hidden=False)
def test_q7_one_step(two_neuron_step, W0_two, X_orth, y, lr_orth):
    import numpy as np
    import ibcore.relu as R
    assert callable(two_neuron_step), 'q7: define a function two_neuron_step(W, X, y, lr)'
    W1 = np.asarray(two_neuron_step(W0_two.copy(), X_orth, y, lr_orth), dtype=float)
    ref = R.gradient_descent(X_orth, y, W0_two, lr=lr_orth, max_steps=1, tol=0, record_every=None).w
    assert W1.shape == ref.shape, f'q7: two_neuron_step must return weights of shape {ref.shape}'
    error = np.abs(W1 - ref).max() / np.abs(ref).max()
    assert error < 1e-12, f"q7: one step of two_neuron_step differs from ibcore's GD step by {error:.1e} (relative). The gradient of the loss in w+ is (1/n) X^T D+ r and in w- it is -(1/n) X^T D- r, with r = relu(beta+) - relu(beta-) - y and D the activation patterns"

@test_case(points=1, hidden=False)
def test_q7_gap_is_the_gradient_flow_floor(gap_two, gap_perp, y, b0_two, c):
    import numpy as np
    import ibcore.relu as R
    for name, value in (('gap_two', gap_two), ('gap_perp', gap_perp)):
        assert isinstance(value, (float, np.floating)) and value > 0, f'q7: {name} must be a positive number'
    expected = R.two_neuron_orthogonal_gap(y, b0_two)
    assert abs(gap_perp - expected) < 1e-12, f'q7: gap_perp = {gap_perp:.6f} does not follow the formula: sum (b0 - |y_i|/2)^2 over the examples with |y_i| < 2 b0 only, times 2, square root, divided by |y|'
    assert abs(gap_two - gap_perp) < c, f'q7: gap_two = {gap_two:.5f} is more than c = {c} away from the gradient-flow floor {gap_perp:.5f}. Compare the final weights with R.min_norm_pair(X_orth, y), the pair (w*(y), w*(-y))'

