from otter.test_files import test_case

OK_FORMAT = False

name = "q8"
points = 3

@test_case(points=2, hidden=False)
def test_q8_frame_is_conserved_and_R_converges(traj_fr, drift_fr, R_inf_fr, R0_fr, p, p_star):
    import numpy as np
    import ibcore.quadratic as q
    assert hasattr(traj_fr, 'R') and np.allclose(traj_fr.R[0], R0_fr, atol=0), f'q8: traj_fr must be the ODE trajectory from R0_fr; it is {traj_fr!r:.60}'
    assert traj_fr.t[-1] >= 30, "q8: integrate long after the escape (t' = 60)"
    drift = q.frame_drift(traj_fr.R).max()
    assert isinstance(drift_fr, (float, np.floating)) and abs(drift_fr - drift) < 1e-15, 'q8: drift_fr must be the largest |S(t) - S(0)| along traj_fr (q.frame_drift)'
    assert drift_fr < 1e-10, f'q8: the frame moved by {drift_fr:.1e}: start from Q(0) = I and T = I'
    R_inf = np.asarray(R_inf_fr, dtype=float)
    assert R_inf.shape == (p, p_star), f'q8: R_inf_fr must have shape {(p, p_star)}'
    assert np.abs(R_inf.T @ R_inf - p / p_star * np.eye(p_star)).max() < 1e-12, 'q8: R_inf_fr must lie on the zero-loss manifold R^T R = (p/p*) I: scale U V^T by sqrt(p/p*)'
    dist = np.linalg.norm(traj_fr.R - R_inf, axis=(1, 2))
    half = np.searchsorted(traj_fr.t, traj_fr.t[-1] / 2)
    assert dist[-1] < 0.01 and dist[-1] < 0.7 * dist[half], f"q8: R(t') does not approach R_inf_fr (distance {dist[half]:.2e} at t'/2, {dist[-1]:.2e} at the end). R_inf_fr is built from the singular vectors of R(0), U V^T, not from the singular values"

