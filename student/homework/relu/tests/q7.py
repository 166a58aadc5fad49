from otter.test_files import test_case

OK_FORMAT = False

name = "q7"
points = 4

@test_case(points=1, hidden=False)
def test_q7_one_step_follows_the_gradient(two_neuron_step):

    def check():
        import numpy as np
        assert callable(two_neuron_step), f'q7: define the function two_neuron_step(W, X, y, lr); it is {two_neuron_step!r:.60}'
        g = np.random.default_rng(701)
        n, d, lr = (8, 30, 0.05)
        Xt, yt = (g.standard_normal((n, d)), g.uniform(-1, 1, n))
        W = g.standard_normal((2, d)) / np.sqrt(d)
        try:
            W1 = two_neuron_step(W.copy(), Xt, yt, lr)
        except Exception as err:
            raise AssertionError(f'q7: two_neuron_step(W, X, y, lr) raised {type(err).__name__}: {err}') from None
        assert isinstance(W1, np.ndarray) and W1.shape == (2, d), f'q7: on an (8, 30) problem two_neuron_step must return weights of shape (2, 30); it returned {W1!r:.60}'

        def loss(V):
            beta = V @ Xt.T
            return np.sum((np.maximum(beta[0], 0) - np.maximum(beta[1], 0) - yt) ** 2) / (2 * n)
        G = (W - W1) / lr
        for _ in range(3):
            V = g.standard_normal((2, d))
            slope = (loss(W + 1e-06 * V) - loss(W - 1e-06 * V)) / 2e-06
            assert abs(np.sum(G * V) - slope) < 1e-06 * (abs(slope) + np.linalg.norm(G) * np.linalg.norm(V)), 'q7: (W - two_neuron_step(W, X, y, lr)) / lr is not the gradient of (1/2n) sum (f(x_i) - y_i)^2 on a random problem. The gradient in w+ is (1/n) X^T D+ r and in w- it is -(1/n) X^T D- r, with r = relu(beta+) - relu(beta-) - y and D the activation patterns of each neuron'
    check()

@test_case(points=1, hidden=False)
def test_q7_gap_floor(gap_floor):

    def check():
        import numpy as np
        assert callable(gap_floor), f'q7: define the function gap_floor(y, b0); it is {gap_floor!r:.60}'
        g = np.random.default_rng(702)
        far = g.choice([-1.0, 1.0], 12) * g.uniform(0.5, 1.0, 12)
        near = 0.1 * g.choice([-1.0, 1.0], 10)
        try:
            values = [gap_floor(far, 0.2), gap_floor(near, 0.3)]
        except Exception as err:
            raise AssertionError(f'q7: gap_floor(y, b0) raised {type(err).__name__}: {err}') from None
        assert all((isinstance(v, (float, np.floating)) for v in values)), f'q7: gap_floor must return a number; it returned {values[0]!r:.60}'
        assert abs(values[0]) < 1e-15, 'q7: gap_floor must be 0 when every |y_i| is at least 2 b0: nothing freezes'
        assert abs(values[1] - np.sqrt(2 * 10 * 0.0625) / np.sqrt(10 * 0.01)) < 1e-12, 'q7: gap_floor is wrong when every label has size 0.1 < 2 b0 = 0.6: sum (b0 - |y_i|/2)^2 over the examples with |y_i| < 2 b0, times 2, square root, divided by |y|'
        for _ in range(3):
            yt, b0 = (g.uniform(-1, 1, 15), g.uniform(0.05, 0.5))
            expected = np.sqrt(2 * np.sum(np.maximum(b0 - np.abs(yt) / 2, 0.0) ** 2)) / np.linalg.norm(yt)
            got = gap_floor(yt, b0)
            assert isinstance(got, (float, np.floating)) and abs(got - expected) < 1e-12, f'q7: gap_floor is wrong on random labels with b0 = {b0:.3f}'
    check()

