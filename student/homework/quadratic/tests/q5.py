from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 3

@test_case(points=1, hidden=False)
def test_q5_the_quadratic(lifted_plateau):

    def check():
        import numpy as np
        assert callable(lifted_plateau), f'q5: define the function lifted_plateau(g, p, p_star); it is {lifted_plateau!r:.60}'
        for g, p, p_star in ((0.05, 3, 1),):
            try:
                coefficients, root = lifted_plateau(g, p, p_star)
            except Exception as err:
                raise AssertionError(f'q5: lifted_plateau(g, p, p_star) must return ([a, b, c0], root); it raised {type(err).__name__}: {err}') from None
            assert isinstance(coefficients, (list, tuple, np.ndarray)) and len(coefficients) == 3 and all((isinstance(c, (int, float, np.integer, np.floating)) for c in coefficients)), f'q5: the coefficients must be three numbers [a, b, c0]; they are {coefficients!r:.60}'
            coef = np.asarray(coefficients, dtype=float)

            def F(x):
                return 1 - x - 2 * x / p + g * (1 + 2 / p_star - 2 * x * (1 + 2 / p) + x ** 2 * (p + 2) * (p + 4) / p ** 2)
            grid = np.linspace(0.0, 2.0, 5)
            assert np.abs(np.polyval(coef, grid) - F(grid)).max() < 1e-12, f"q5: with g = {g}, p = {p}, p* = {p_star}, a q^2 + b q + c0 differs from F(q): collect the powers of q in F (use the arguments p and p_star, not the notebook's)"
    check()

@test_case(points=1, hidden=False)
def test_q5_the_plateau_root(lifted_plateau):

    def check():
        import numpy as np
        assert callable(lifted_plateau), 'q5: define the function lifted_plateau(g, p, p_star)'
        for g, p, p_star in ((0.05, 3, 1), (0.01, 8, 4)):
            try:
                coefficients, root = lifted_plateau(g, p, p_star)
            except Exception as err:
                raise AssertionError(f'q5: lifted_plateau raised {type(err).__name__}: {err}') from None
            assert isinstance(root, (float, np.floating)), f'q5: the root must be a number; it is {root!r:.60}'
            assert isinstance(coefficients, (list, tuple, np.ndarray)) and len(coefficients) == 3 and all((isinstance(c, (int, float, np.integer, np.floating)) for c in coefficients)), f'q5: the coefficients must be three numbers [a, b, c0]; they are {coefficients!r:.60}'
            coef = np.asarray(coefficients, dtype=float)
            roots = np.roots(coef)
            assert not np.iscomplexobj(roots), f'q5: with g = {g}, p = {p}, p* = {p_star} your quadratic has no real root, but F(q) has two here: check the coefficients [a, b, c0]'
            roots = np.sort(roots)
            scale = np.abs(coef).max()
            assert abs(np.polyval(coef, root)) < 1e-10 * scale, f'q5: the root {root:.6g} is not a root of your quadratic a q^2 + b q + c0'
            assert abs(root - roots[0]) < 1e-09 * max(1.0, abs(roots[0])), f'q5: with g = {g}, p = {p}, p* = {p_star} the root {root:.4f} is the larger root of your quadratic: the plateau is the smaller one, which tends to p/(p+2) as g -> 0 (the larger one runs off like 1/g)'
        try:
            coefficients, root = lifted_plateau(0.5, 3, 1)
        except Exception as err:
            assert type(err).__name__ == 'ValueError', f'q5: past the critical learning rate lifted_plateau(0.5, 3, 1) must raise a ValueError; it raised {type(err).__name__}: {err}'
        else:
            raise AssertionError(f'q5: lifted_plateau(0.5, 3, 1) returned the root {root!r:.20}, but at g = 0.5 the quadratic has no real root (past the critical learning rate): raise a ValueError')
    check()

