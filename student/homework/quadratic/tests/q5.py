from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 3

@test_case(points=2, hidden=False)
def test_q5_root_of_the_stationarity_equation(lifted_plateau):

    def check():
        import types
        import numpy as np
        assert callable(lifted_plateau), f'q5: define the function lifted_plateau(g, p, p_star); it is {lifted_plateau!r:.60}'
        codes, names = ([lifted_plateau.__code__], set())
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        found = lifted_plateau.__globals__
        used = sorted((name for name in names if name == 'ibcore' or any((str(getattr(found.get(name), a, '')).startswith('ibcore') for a in ('__name__', '__module__')))))
        assert not used, f"q5: lifted_plateau must use NumPy only, but it calls ibcore ({', '.join(used)})"
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
    check()

