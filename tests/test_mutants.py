"""A fixed set of mutants of ibcore's core that the suite must kill (make mutate runs them all).

Each mutant is applied with monkeypatch wherever ibcore looks the function up, then the tests
named for it run and must fail. The 1.3x relative_gap_gram mutant survived every
tolerance-band test before tests/relu/independent.py gave the trials independent references.
"""
import pytest

from ibcore.quadratic import odes
from ibcore.relu import gd, metrics

from .quadratic import test_quad_trials
from .relu import test_relu_gd, test_relu_trials


def _scaled(func, factor):
    return lambda *args, **kwargs: factor * func(*args, **kwargs)


def _gap_times_1_3(mp):
    # relative_gap_gram computes through metrics._relative_gap_gram
    mp.setattr(metrics, "_relative_gap_gram", _scaled(metrics._relative_gap_gram, 1.3))


def _lr_one_percent_high(mp):
    """The GD step is 1% longer than lr/n asks."""
    init = gd._DualIterates.__init__

    def wrong(self, runs):
        init(self, runs)
        self._s_eta = 1.01 * self._s_eta

    mp.setattr(gd._DualIterates, "__init__", wrong)


def _relu_slope_one_at_zero(mp):
    """sigma'(0) = 1: the GD step counts a pre-activation exactly 0 as active."""
    mp.setattr(gd, "RELU_SLOPE_AT_0", 1.0)


def _phi_ten_percent_low(mp):
    """The full ODEs' gamma^2 term (Phi + Delta Q) is 10% too small."""
    coefficients = odes._phi_coefficients
    mp.setattr(odes, "_phi_coefficients", lambda *args: tuple(0.9 * c for c in coefficients(*args)))


MUTANTS = {
    "relative_gap_gram x 1.3": (_gap_times_1_3, [
        lambda: test_relu_trials.test_relative_gap_gram_is_the_weight_space_gap(),
        lambda: test_relu_trials.test_gap_trial_measures_the_gap_of_an_independent_computation("gram", 3000),
    ]),
    "GD step 1% too long": (_lr_one_percent_high, [
        lambda: test_relu_trials.test_gap_trial_measures_the_gap_of_an_independent_computation("gram", 3000),
    ]),
    "ReLU slope 1 at 0 in the GD kernel": (_relu_slope_one_at_zero, [
        lambda: test_relu_gd.test_network_gd_is_plain_weight_space_gd("features", "relu"),
    ]),
    "ODEs with 0.9 x the gamma^2 term": (_phi_ten_percent_low, [
        lambda: test_quad_trials.test_ode_escape_time_trial_against_the_full_odes(0.4),
    ]),
}


@pytest.mark.parametrize("name", MUTANTS)
def test_the_suite_kills_the_mutant(name, monkeypatch):
    apply, tests = MUTANTS[name]
    for test in tests:
        test()  # passes on the real code
    apply(monkeypatch)
    for test in tests:
        with pytest.raises(AssertionError):
            test()
