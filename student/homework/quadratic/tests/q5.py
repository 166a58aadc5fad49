from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 3

@test_case(points=2, hidden=False)
def test_q5_root_of_the_stationarity_equation(lifted_plateau):

    def check():
        nonlocal lifted_plateau
        import numpy as np
        assert callable(lifted_plateau), f'q5: define the function lifted_plateau(g, p, p_star); it is {lifted_plateau!r:.60}'
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
        lifted_plateau = watched(lifted_plateau)
        for g, p, p_star in ((0.05, 3, 1), (0.01, 8, 4)):
            try:
                coefficients, root = lifted_plateau(g, p, p_star)
            except Exception as err:
                raise AssertionError(f'q5: lifted_plateau(g, p, p_star) must return ([a, b, c0], root); it raised {type(err).__name__}: {err}') from None
            assert isinstance(root, (float, np.floating)), f'q5: the root must be a number; it is {root!r:.60}'
            coef = np.asarray(coefficients, dtype=float)
            assert coef.shape == (3,), 'q5: the coefficients must be [a, b, c0]'

            def F(x):
                return 1 - x - 2 * x / p + g * (1 + 2 / p_star - 2 * x * (1 + 2 / p) + x ** 2 * (p + 2) * (p + 4) / p ** 2)
            grid = np.linspace(0.0, 2.0, 5)
            assert np.abs(np.polyval(coef, grid) - F(grid)).max() < 1e-12, f"q5: with g = {g}, p = {p}, p* = {p_star}, a q^2 + b q + c0 differs from F(q): collect the powers of q in F (use the arguments p and p_star, not the notebook's)"
            assert abs(F(root)) < 1e-12, f'q5: F(root) = {F(root):.1e}, not a root'
            assert p / (p + 2) < root < 1, f'q5: the root {root:.4f} is not the plateau root for g = {g}, p = {p}: take the smaller root, which lies just above p/(p+2) (the SGD noise inflates the norms)'
        used = sorted(set(calls))
        assert not used, f"q5: lifted_plateau must use NumPy only, but it calls ibcore ({', '.join(used)})"
    check()

