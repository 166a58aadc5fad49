from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 3

@test_case(points=2, hidden=False)
def test_q1_closed_form_agrees_with_monte_carlo(closed_form_risk):

    def check():
        nonlocal closed_form_risk
        import numpy as np
        assert callable(closed_form_risk), f'q1: define the function closed_form_risk(Q, R, T); it is {closed_form_risk!r:.60}'
        import os
        import sys
        import ibcore
        home, calls = (os.path.dirname(ibcore.__file__), [])

        def watch(frame, event, arg):
            outside = frame.f_back is None or not frame.f_back.f_code.co_filename.startswith(home)
            if event == 'call' and outside and frame.f_code.co_filename.startswith(home):
                calls.append(frame.f_code.co_name)

        def watched(f):

            def run(*args, **kwargs):
                sys.setprofile(watch)
                try:
                    return f(*args, **kwargs)
                finally:
                    sys.setprofile(None)
            return run
        closed_form_risk = watched(closed_form_risk)
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
        used = sorted(set(calls))
        assert not used, f"q1: closed_form_risk must use NumPy only, but it calls ibcore ({', '.join(used)})"
    check()

