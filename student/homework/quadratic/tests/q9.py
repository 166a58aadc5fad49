from otter.test_files import test_case

OK_FORMAT = False

name = "q9"
points = 3

@test_case(points=2, hidden=False)
def test_q9_spectrum_and_escape_rate(values_pl, mults_pl, rate_hessian_pl, rate_ode_pl, W_pl, W_star_pl):
    import numpy as np
    import ibcore.quadratic as q
    p, N = W_pl.shape
    values, mults = (np.asarray(values_pl, dtype=float), np.asarray(mults_pl))
    assert values.ndim == 1 and mults.shape == values.shape and (mults.sum() == p * N), f'q9: values_pl and mults_pl must list the distinct eigenvalues and their multiplicities, p N = {p * N} in total'
    table_values, table_mults = q.hessian_spectrum_table('plateau', p, W_star_pl.shape[0], N)
    assert np.array_equal(mults, table_mults) and np.allclose(values, table_values, atol=1e-09), "q9: the spectrum differs from chapter 5's table: use q.population_hessian(W_pl, W_star_pl) (with respect to U = W/sqrt(N), the default) and q.group_spectrum"
    for name, rate in (('rate_hessian_pl', rate_hessian_pl), ('rate_ode_pl', rate_ode_pl)):
        assert isinstance(rate, (float, np.floating)) and rate > 0, f'q9: {name} must be a positive rate'
    assert abs(rate_ode_pl / rate_hessian_pl - 1) < 0.01, f'q9: the ODE rate {rate_ode_pl:.4f} and the Hessian rate {rate_hessian_pl:.4f} must agree within 1%. The Hessian rate is -p times the lowest eigenvalue; the ODE rate is the slope of ln|R|_F (not of the loss)'

