from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 2

@test_case(points=1, hidden=False)
def test_q1_interpolates(min_norm):

    def check():
        import types
        import numpy as np
        assert callable(min_norm), f'q1: define the function min_norm(X, y); min_norm is {min_norm!r:.60}'
        codes, names = ([min_norm.__code__], set())
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        found = min_norm.__globals__
        used = sorted((name for name in names if name == 'ibcore' or any((str(getattr(found.get(name), a, '')).startswith('ibcore') for a in ('__name__', '__module__')))))
        assert not used, f"q1: min_norm must use NumPy only, but it calls ibcore ({', '.join(used)})"
        g = np.random.default_rng(101)
        Xt, yt = (g.standard_normal((12, 60)), g.uniform(-1, 1, 12))
        try:
            w = min_norm(Xt, yt)
        except Exception as err:
            raise AssertionError(f'q1: min_norm(X, y) raised {type(err).__name__}: {err}') from None
        assert isinstance(w, np.ndarray) and w.shape == (60,), f'q1: on a 12 x 60 problem min_norm must return a NumPy array of shape (60,); it returned {w!r:.60}'
        residual = np.linalg.norm(Xt @ w - yt) / np.linalg.norm(yt)
        assert residual < 1e-09, f'q1: min_norm(X, y) does not interpolate a random 12 x 60 problem: |X w - y| / |y| = {residual:.1e}. Solve K alpha = y exactly with np.linalg.solve (K = X X^T, no approximation), then w = X^T alpha'
    check()

