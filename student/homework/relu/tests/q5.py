from otter.test_files import test_case

OK_FORMAT = False

name = "q5"
points = 5

@test_case(points=1, hidden=False)
def test_q5_the_sweep_in_d(table_d, seed):

    def check():
        import numpy as np
        import ibcore.relu as R
        import ibcore.experiments.relu as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_d, 'columns', ()))
        assert {'d', 'n', 'trial', 'gap', 'c_used', 'success'} <= names, f'q5: table_d must be the table that sweep(experiments.gap_trial, ...) returns; it is {table_d!r:.60}'
        ds = np.unique(table_d['d'])
        counts = np.array([np.sum(table_d['d'] == v) for v in ds])
        assert np.unique(table_d['n']).size == 1, "q5: keep n fixed in table_d (fixed={'n': 20, ...})"
        n = int(np.asarray(table_d['n'])[0])
        assert ds.size >= 3 and ds[-1] >= 100 * ds[0] and (counts.min() >= 6) and (ds[0] >= 20 * n), 'q5: table_d needs at least 3 dimensions spanning a factor 100 (10^3 to 10^5), d >= 20 n, and at least 6 trials per dimension'
        params = [name for name in names if name in ('d', 'n', 'tol', 'method')]
        for i in (0, -1):
            row = {name: np.asarray(table_d[name]).tolist()[i] for name in names}
            point = {name: row[name] for name in params}
            rerun = experiments.gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
            assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], "q5: table_d is not the sweep that the question asks for: sweep experiments.gap_trial with fixed={'n': 20, **options}, seed=seed, and nothing else"
        assert table_d['success'].all(), 'q5: some runs of table_d did not converge; use tol=1e-9 as asked'
        worst = np.max(table_d['c_used'] / np.sqrt(n / table_d['d']))
        assert worst <= 0.3, f"q5: some runs used c = {worst:.2f} sqrt(n/d): the step-size floor c/sqrt(3) then dominates the gap (chapter 4). Leave the step to gap_trial's default (do not pass c), which ties c to sqrt(n/d)"
    check()

@test_case(points=1, hidden=False)
def test_q5_the_fit_in_d(table_d, slope_d, seed):

    def check():
        import numpy as np
        import ibcore.relu as R
        import ibcore.experiments.relu as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_d, 'columns', ()))
        assert {'d', 'n', 'trial', 'gap'} <= names, 'q5: set table_d first'
        row = {name: np.asarray(table_d[name]).tolist()[0] for name in names}
        point = {name: row[name] for name in names if name in ('d', 'n', 'tol', 'method', 'c')}
        rerun = experiments.gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], "q5: table_d must be a sweep of experiments.gap_trial with the set's seed (seed=seed)"
        ds = np.unique(table_d['d'])
        assert ds.size >= 2 and np.all(np.asarray(table_d['gap']) > 0), 'q5: table_d needs positive gaps at two dimensions at least'
        means = [np.mean(np.log(table_d['gap'][table_d['d'] == v])) for v in ds]
        fitted = np.polyfit(np.log(ds), means, 1)[0]
        assert isinstance(slope_d, (float, np.floating)) and abs(slope_d - fitted) < 1e-06, f'q5: slope_d = {slope_d!s:.20} is not the least-squares slope of the mean of log(gap) against log(d) over table_d: average the logarithms of the gaps at each d (not the logarithm of their mean), then fit'
    check()

@test_case(points=1, hidden=False)
def test_q5_gap_falls_like_one_over_root_d(table_d, slope_d, seed):

    def check():
        import numpy as np
        import ibcore.relu as R
        import ibcore.experiments.relu as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_d, 'columns', ()))
        assert {'d', 'n', 'trial', 'gap'} <= names and isinstance(slope_d, (float, np.floating)), 'q5: set table_d and slope_d first'
        params = [name for name in names if name in ('d', 'n', 'tol', 'method')]
        row = {name: np.asarray(table_d[name]).tolist()[-1] for name in names}
        point = {name: row[name] for name in params}
        rerun = experiments.gap_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['gap'] - row['gap']) <= 1e-12 * row['gap'], 'q5: the band needs the measured table_d (the sweep of the question)'
        ds = np.unique(table_d['d'])
        counts = np.array([np.sum(table_d['d'] == v) for v in ds])
        x = np.log(ds)
        logs = [np.log(table_d['gap'][table_d['d'] == v]) for v in ds]
        w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
        se = np.sqrt(np.sum(w ** 2 * np.array([np.var(v, ddof=1) for v in logs]) / counts))
        band = 4 * se + 0.05
        assert band < 0.45, f'q5: the statistical band +/- {band:.2f} is too wide to tell -1/2 from 0 or -1: use more trials per d'
        assert abs(slope_d + 0.5) < band, f'q5: slope_d = {slope_d:.3f} is outside the band -1/2 +/- {band:.3f} (4 standard errors + finite-d allowance). Fit the mean of log(gap) (the relative gap of gap_trial, not an absolute distance) against log(d)'
    check()

