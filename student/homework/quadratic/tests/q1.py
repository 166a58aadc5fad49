from otter.test_files import test_case

OK_FORMAT = False

name = "q1"
points = 3

@test_case(points=2, hidden=False)
def test_q1_closed_form_agrees_with_monte_carlo(risk_formula, risk_mc, risk_se):
    import numpy as np
    for name, value in (('risk_formula', risk_formula), ('risk_mc', risk_mc), ('risk_se', risk_se)):
        assert isinstance(value, (float, np.floating)) and np.isfinite(value), f'q1: {name} must be a finite number; it is {value!r:.60}'
    assert 0 < risk_se < 0.05 * risk_mc, f'q1: risk_se = {risk_se!r:.6} is not the standard error of a 10^5-sample estimate: take the fields mean and stderr of q.monte_carlo_risk(...)'
    z = (risk_mc - risk_formula) / risk_se
    assert abs(z) < 5, f"q1: the closed form {risk_formula:.4f} is {z:+.1f} standard errors from Monte Carlo ({risk_mc:.4f}). Isserlis' theorem gives E[(x^T M x)^2] = (Tr M)^2 + 2 Tr M^2, and the risk has a factor 1/2: check the factor 2 of Tr M^2 and the 1/p, 1/p* normalisations of Q, R and T"

