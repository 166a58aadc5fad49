from otter.test_files import test_case

OK_FORMAT = False

name = "q3"
points = 4

@test_case(points=1, hidden=False)
def test_q3_the_sweep(table_sgd, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_sgd, 'columns', ()))
        assert {'N', 'p', 'p_star', 'lr', 't_max', 'informative', 'trial', 'gap', 'gap_gradient_flow'} <= names, f'q3: table_sgd must be the table that sweep(experiments.sgd_ode_gap_trial, ...) returns; it is {table_sgd!r:.60}'
        sizes = np.unique(table_sgd['N'])
        counts = np.array([np.sum(table_sgd['N'] == N) for N in sizes])
        assert sizes.size >= 4 and sizes[-1] >= 8 * sizes[0] and (counts.min() >= 6), 'q3: table_sgd needs at least 4 sizes N spanning a factor 8 or more, with at least 6 trials each'
        assert np.all(table_sgd['informative'] > 0), 'q3: use an informative start (informative=0.3): from a random start the SGD noise decides the escape and single trajectories do not converge to the ODE'
        row = {name: np.asarray(table_sgd[name]).tolist()[0] for name in names}
        params = [n for n in names if n in ('N', 'p', 'p_star', 'lr', 't_max', 'informative')]
        point = {name: row[name] for name in params}
        rerun = experiments.sgd_ode_gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], 'q3: table_sgd is not the sweep that the question asks for: sweep experiments.sgd_ode_gap_trial over N with fixed=fixed_sgd, seed=seed, and nothing else'
    check()

@test_case(points=1, hidden=False)
def test_q3_the_fit(table_sgd, slope_sgd, seed):

    def check():
        import numpy as np
        names = set(getattr(table_sgd, 'columns', ()))
        assert {'N', 'trial', 'gap'} <= names, 'q3: set table_sgd first'
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        row = {name: np.asarray(table_sgd[name]).tolist()[0] for name in names}
        params = [n for n in names if n in ('N', 'p', 'p_star', 'lr', 't_max', 'informative')]
        point = {name: row[name] for name in params}
        rerun = experiments.sgd_ode_gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], "q3: table_sgd must be a sweep of experiments.sgd_ode_gap_trial with the set's seed (seed=seed)"
        sizes = np.unique(table_sgd['N'])
        assert sizes.size >= 2 and np.all(np.asarray(table_sgd['gap']) > 0), 'q3: table_sgd needs positive gaps at two sizes at least'
        means = [np.mean(np.log(table_sgd['gap'][table_sgd['N'] == N])) for N in sizes]
        fitted = np.polyfit(np.log(sizes), means, 1)[0]
        assert isinstance(slope_sgd, (float, np.floating)) and abs(slope_sgd - fitted) < 1e-06, f"q3: slope_sgd = {slope_sgd!s:.20} is not the least-squares slope of the mean of log(gap) against log(N) over table_sgd: average the logarithms of the column 'gap' (the gap to the ODE with the lr^2 term) at each N, then fit"
    check()

@test_case(points=1, hidden=False)
def test_q3_gap_shrinks_like_one_over_root_N(table_sgd, slope_sgd, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_sgd, 'columns', ()))
        assert {'N', 'trial', 'gap'} <= names and isinstance(slope_sgd, (float, np.floating)), 'q3: set table_sgd and slope_sgd first'
        row = {name: np.asarray(table_sgd[name]).tolist()[-1] for name in names}
        params = [n for n in names if n in ('N', 'p', 'p_star', 'lr', 't_max', 'informative')]
        point = {name: row[name] for name in params}
        rerun = experiments.sgd_ode_gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], 'q3: the band needs the measured table_sgd (the sweep of the question)'
        sizes = np.unique(table_sgd['N'])
        counts = np.array([np.sum(table_sgd['N'] == N) for N in sizes])
        x = np.log(sizes)
        logs = [np.log(table_sgd['gap'][table_sgd['N'] == N]) for N in sizes]
        w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
        se = np.sqrt(np.sum(w ** 2 * np.array([np.var(v, ddof=1) for v in logs]) / counts))
        assert 4 * se < 0.45, f'q3: the statistical band +/- {4 * se:.2f} is too wide to tell -1/2 from 0 or -1: use more trials'
        assert abs(slope_sgd + 0.5) < 4 * se, f"q3: slope_sgd = {slope_sgd:.3f} is outside the band -1/2 +/- {4 * se:.3f} (4 standard errors). A slope near 0 means the gap does not shrink: compare with the ODE that keeps the lr^2 term (column 'gap')"
    check()

