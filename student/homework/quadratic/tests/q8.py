from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=1, hidden=False)
def test_q8_the_frame_is_conserved(traj_fr, drift_fr, R0_fr, p):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        assert hasattr(traj_fr, 'R') and hasattr(traj_fr, 'Q') and np.array_equal(traj_fr.R[0], R0_fr), f'q8: traj_fr must be the ODE trajectory from R0_fr; it is {traj_fr!r:.60}'
        assert np.array_equal(traj_fr.Q[0], np.eye(p)) and traj_fr.lr is None, 'q8: integrate gradient flow (lr=None) from Q(0) = I'
        assert traj_fr.t[-1] >= 30, "q8: integrate long after the escape (t' = 60)"
        assert isinstance(drift_fr, (float, np.floating)), f'q8: drift_fr must be a number; it is {drift_fr!r:.60}'
        assert abs(drift_fr - q.frame_drift(traj_fr.R).max()) < 1e-15, 'q8: drift_fr must be the largest |S(t) - S(0)| along traj_fr (q.frame_drift)'
        assert drift_fr < 1e-10, f'q8: the frame moved by {drift_fr:.1e}: start from Q(0) = I and T = I'
        U, _, Vt = np.linalg.svd(R0_fr, full_matrices=False)
        target = np.sqrt(R0_fr.shape[0] / R0_fr.shape[1]) * U @ Vt
        dist = np.linalg.norm(np.asarray(traj_fr.R) - target, axis=(1, 2))
        half = np.searchsorted(traj_fr.t, traj_fr.t[-1] / 2)
        assert dist[-1] < 0.01 and dist[-1] < 0.7 * dist[half], "q8: R(t') must approach the Procrustes point: integrate up to t' = 60"
    check()

@test_case(points=1, hidden=False)
def test_q8_procrustes_point(procrustes_point):

    def check():
        import numpy as np
        assert callable(procrustes_point), f'q8: define the function procrustes_point(R0, p, p_star); it is {procrustes_point!r:.60}'
        g = np.random.default_rng(808)
        for p, p_star in ((5, 3), (3, 3)):
            R0 = g.standard_normal((p, p_star))
            try:
                point = procrustes_point(R0, p, p_star)
            except Exception as err:
                raise AssertionError(f'q8: procrustes_point(R0, p, p_star) raised {type(err).__name__}: {err}') from None
            assert isinstance(point, np.ndarray) and point.shape == (p, p_star), f'q8: procrustes_point must return an array of shape (p, p*) = {(p, p_star)}; it returned {point!r:.60}'
            assert np.abs(point.T @ point - p / p_star * np.eye(p_star)).max() < 1e-12, f'q8: with p = {p}, p* = {p_star} the point is off the zero-loss manifold R^T R = (p/p*) I: scale U V^T by sqrt(p/p*) (p and p* are the arguments)'
            overlap = R0.T @ point
            assert np.abs(overlap - overlap.T).max() < 1e-12 and np.linalg.eigvalsh(overlap).min() > 0, 'q8: the point is on the manifold but not the closest to R0: use the singular vectors of R0, U V^T, not its singular values'
    check()

