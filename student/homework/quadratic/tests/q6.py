from otter.test_files import test_case

OK_FORMAT = False

name = "q6"
points = 4

@test_case(points=1, hidden=False)
def test_q6_the_sweep(table_esc, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_esc, 'columns', ()))
        assert {'p', 'p_star', 'N', 'trial', 't_esc'} <= names, f'q6: table_esc must be the table that sweep(experiments.ode_escape_time_trial, ...) returns; it is {table_esc!r:.60}'
        assert np.unique(table_esc['p_star']).size == 1 and np.all(np.isfinite(table_esc['t_esc'])), 'q6: one teacher width, and every run must escape (t_esc finite)'
        for p in np.unique(table_esc['p']):
            rows = table_esc[table_esc['p'] == p]
            sizes = np.unique(rows['N'])
            counts = np.array([np.sum(rows['N'] == N) for N in sizes])
            assert sizes.size >= 4 and sizes[-1] >= 1000 * sizes[0] and (counts.min() >= 8), f'q6: p = {p} needs at least 4 values of N spanning a factor 1000 and 8 trials each'
        params = [name for name in names if name in ('p', 'p_star', 'N')]
        for i in (0, -1):
            row = {name: np.asarray(table_esc[name]).tolist()[i] for name in names}
            point = {name: row[name] for name in params}
            rerun = experiments.ode_escape_time_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
            assert abs(rerun['t_esc'] - row['t_esc']) <= 1e-12 * row['t_esc'], "q6: table_esc is not the sweep that the question asks for: sweep experiments.ode_escape_time_trial over grid_esc with fixed={'p_star': 2}, seed=seed, and nothing else"
    check()

@test_case(points=1, hidden=False)
def test_q6_the_fits(table_esc, slopes_esc, seed):

    def check():
        import numpy as np
        names = set(getattr(table_esc, 'columns', ()))
        assert {'p', 'p_star', 'N', 'trial', 't_esc'} <= names, 'q6: set table_esc first'
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        row = {name: np.asarray(table_esc[name]).tolist()[0] for name in names}
        point = {name: row[name] for name in names if name in ('p', 'p_star', 'N')}
        rerun = experiments.ode_escape_time_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['t_esc'] - row['t_esc']) <= 1e-12 * row['t_esc'], "q6: table_esc must be a sweep of experiments.ode_escape_time_trial with the set's seed (seed=seed)"
        assert isinstance(slopes_esc, dict) and sorted(slopes_esc) == sorted(np.unique(table_esc['p']).tolist()), f'q6: slopes_esc must be a dict with one slope per student width p of table_esc; it is {slopes_esc!r:.60}'
        for p, slope in slopes_esc.items():
            rows = table_esc[table_esc['p'] == p]
            sizes = np.unique(rows['N'])
            fitted = np.polyfit(np.log(sizes), [np.mean(rows['t_esc'][rows['N'] == N]) for N in sizes], 1)[0]
            assert isinstance(slope, (float, np.floating)) and abs(slope - fitted) < 1e-06, f'q6: slopes_esc[{p}] = {slope!s:.20} is not the least-squares slope of the mean escape time against ln N (the natural logarithm, np.log, not log10) for that width'
    check()

@test_case(points=1, hidden=False)
def test_q6_escape_slope_is_p_star_over_8(table_esc, slopes_esc, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        from ibcore.sweep import trial_seed
        names = set(getattr(table_esc, 'columns', ()))
        assert {'p', 'p_star', 'N', 'trial', 't_esc'} <= names and isinstance(slopes_esc, dict), 'q6: set table_esc and slopes_esc first'
        params = [name for name in names if name in ('p', 'p_star', 'N')]
        row = {name: np.asarray(table_esc[name]).tolist()[-1] for name in names}
        point = {name: row[name] for name in params}
        rerun = experiments.ode_escape_time_trial(**point, rng=np.random.default_rng(trial_seed(seed, point, int(row['trial']))))
        assert abs(rerun['t_esc'] - row['t_esc']) <= 1e-12 * row['t_esc'], 'q6: the band needs the measured table_esc (the sweep of the question)'
        p_star = int(np.asarray(table_esc['p_star'])[0])
        for p, slope in slopes_esc.items():
            rows = table_esc[table_esc['p'] == p]
            assert len(rows) and isinstance(slope, (float, np.floating)), f'q6: slopes_esc[{p}] must be a number, for a width of table_esc'
            sizes = np.unique(rows['N'])
            counts = np.array([np.sum(rows['N'] == N) for N in sizes])
            x = np.log(sizes)
            times = [rows['t_esc'][rows['N'] == N] for N in sizes]
            w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
            se = np.sqrt(np.sum(w ** 2 * np.array([np.var(v, ddof=1) for v in times]) / counts))
            assert 4 * se < p_star / 16, f'q6: p = {p}: too few trials to separate p*/8 from p*/16'
            assert abs(slope - p_star / 8) < 4 * se, f'q6: p = {p}: slope {slope:.4f}, expected p*/8 = {p_star / 8} within {4 * se:.4f} (4 standard errors). Fit the mean escape time against ln N, not log10 N'
    check()

