from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 3

@test_case(points=1, hidden=False)
def test_q1_closed_form_agrees_with_monte_carlo(closed_form_risk):

    def check():
        import numpy as np
        assert callable(closed_form_risk), f'q1: define the function closed_form_risk(Q, R, T); it is {closed_form_risk!r:.60}'
        g = np.random.default_rng(101)
        for p, p_star, N in ((3, 2, 12), (2, 3, 10)):
            W, W_star = (g.standard_normal((p, N)), g.standard_normal((p_star, N)))
            Q, R, T = (W @ W.T / N, W @ W_star.T / N, W_star @ W_star.T / N)
            try:
                formula = closed_form_risk(Q, R, T)
            except Exception as err:
                raise AssertionError(f'q1: closed_form_risk(Q, R, T) raised {type(err).__name__}: {err}') from None
            assert isinstance(formula, (float, np.floating)) and np.isfinite(formula), f'q1: closed_form_risk must return a number; it returned {formula!r:.60}'
            x = g.standard_normal((200000, N))
            errors = np.mean((x @ W.T) ** 2, axis=1) / N - np.mean((x @ W_star.T) ** 2, axis=1) / N
            losses = 0.5 * errors ** 2
            z = (formula - losses.mean()) / (losses.std() / np.sqrt(losses.size))
            assert abs(z) < 5, f"q1: with p = {p}, p* = {p_star}, closed_form_risk is {z:+.1f} standard errors away from a Monte Carlo estimate of the risk. Isserlis' theorem gives E[(x^T M x)^2] = (Tr M)^2 + 2 Tr M^2, and the risk has a factor 1/2: check the factor 2 of Tr M^2, and the 1/p, 1/p* normalisations (p and p* from the shape of R)"
    check()

@test_case(points=1, hidden=False)
def test_q1_monte_carlo_estimate(risk_mc, risk_se, W_a, W_star_a, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        for name, value in (('risk_mc', risk_mc), ('risk_se', risk_se)):
            assert isinstance(value, (float, np.floating)), f'q1: {name} must be a number; it is {value!r:.60}'
        mc = q.monte_carlo_risk(W_a, W_star_a, 100000, rng=seed + 2)
        assert abs(risk_mc - mc.mean) <= 1e-12 * mc.mean and abs(risk_se - mc.stderr) <= 1e-12 * mc.stderr, 'q1: risk_mc and risk_se must be the mean and stderr of q.monte_carlo_risk(W_a, W_star_a, 100_000, rng=seed + 2)'
    check()

