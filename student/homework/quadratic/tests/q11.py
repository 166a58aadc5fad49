from otter.test_files import test_case

OK_FORMAT = False

name = "q11"
points = 3

@test_case(points=2, hidden=False)
def test_q11_power_law_tail_and_the_cost_of_width(budget_risk, budgets_fix, seed):

    def check():
        import numpy as np
        import ibcore.quadratic as q
        import ibcore.experiments.quadratic as experiments
        assert isinstance(budget_risk, dict) and sorted(budget_risk) == [2, 4, 8], f'q11: budget_risk must be a dict with keys 2, 4, 8; it is {budget_risk!r:.60}'
        for width, risks in budget_risk.items():
            assert isinstance(risks, np.ndarray) and risks.shape == (len(budgets_fix),), f'q11: budget_risk[{width}] must be an array with one risk per budget'
        for width in (2, 4, 8):
            Q0, R0, _ = q.initial_overlaps(width, 2, 1000, rng=seed + 11)
            expected = q.integrate_reduced(Q0, R0, t_eval=[0.0, *budgets_fix]).risk[1:]
            assert np.allclose(budget_risk[width], expected, rtol=1e-06, atol=1e-15), f'q11: p = {width}: budget_risk[{width}] is not the risk of the reduced gradient-flow ODEs (q.integrate_reduced, lr=None) from the first two overlaps of q.initial_overlaps({width}, 2, 1000, rng=seed + 11), at the times t_eval=[0, *budgets_fix] (the first one left out)'
        t_last = budgets_fix[-1]
        for width in (4, 8):
            law = q.late_time_law(width, 2)
            ratio = budget_risk[width][-1] / (law.prefactor * t_last ** (-2))
            assert abs(ratio - 1) < 0.1, f"q11: p = {width}: the risk at t' = {t_last:g} is {ratio:.2f} times the late-time law (p - p*)(p* + 2)/(64 (p + 2)) t'^-2. Integrate gradient flow (lr=None) from the overlaps of q.initial_overlaps(p, 2, 1000, rng=seed + 11)"
        assert budget_risk[2][-1] < 0.01 * min(budget_risk[4][-1], budget_risk[8][-1]), 'q11: at the largest budget the student with p = p* must be far ahead'
    check()

