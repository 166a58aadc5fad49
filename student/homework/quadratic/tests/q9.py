from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 3

@test_case(points=1, hidden=False)
def test_q9_spectrum(values_pl, mults_pl, n_negative_pl, W_pl, W_star_pl):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        p, N = W_pl.shape
        assert isinstance(values_pl, np.ndarray) and isinstance(mults_pl, np.ndarray), f'q9: values_pl and mults_pl must be arrays; they are {values_pl!r:.40} and {mults_pl!r:.40}'
        assert values_pl.ndim == 1 and mults_pl.shape == values_pl.shape and (mults_pl.sum() == p * N), f'q9: values_pl and mults_pl must list the distinct eigenvalues and their multiplicities, p N = {p * N} in total'
        H = q.population_hessian(W_pl, W_star_pl)
        assert abs(np.sum(mults_pl * values_pl) - np.trace(H)) < 1e-05 and abs(np.sum(mults_pl * values_pl ** 2) - np.sum(H ** 2)) < 1e-05, 'q9: the spectrum is not that of q.population_hessian(W_pl, W_star_pl) (with respect to U = W/sqrt(N), the default): take np.linalg.eigvalsh of it, grouped by q.group_spectrum'
        assert isinstance(n_negative_pl, (int, np.integer)) and n_negative_pl == int(np.sum(mults_pl[values_pl < -1e-09])), 'q9: n_negative_pl must count the negative eigenvalues, with their multiplicities'
    check()

@test_case(points=1, hidden=False)
def test_q9_rate_of_the_ode(traj_pl, rate_ode_pl, p, p_star, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        assert hasattr(traj_pl, 'R') and hasattr(traj_pl, 't'), f'q9: traj_pl must be the trajectory of q.integrate_reduced; it is {traj_pl!r:.60}'
        Q0, R0, _ = q.initial_overlaps(p, p_star, 10 ** 12, rng=seed)
        assert np.abs(traj_pl.R[0] - R0).max() < 1e-15 and traj_pl.lr is None, 'q9: integrate gradient flow from q.initial_overlaps(p, p_star, 10**12, rng=seed)'
        assert traj_pl.t.size == 61 and abs(traj_pl.t[-1] - 6) < 1e-12 and np.allclose(np.diff(traj_pl.t), 0.1), "q9: use a linear grid of 61 points up to t' = 6"
        assert isinstance(rate_ode_pl, (float, np.floating)), f'q9: rate_ode_pl must be a number; it is {rate_ode_pl!r:.60}'
        window = traj_pl.t >= 2 - 1e-12
        fitted = np.polyfit(traj_pl.t[window], np.log(np.linalg.norm(traj_pl.R[window], axis=(1, 2))), 1)[0]
        assert abs(rate_ode_pl - fitted) < 1e-08, f"q9: rate_ode_pl = {rate_ode_pl:.6f} is not the slope of ln |R(t')|_F fitted over 2 <= t' <= 6 on traj_pl (the slope of ln |R|, not of the loss; the Frobenius norm of R)"
    check()

