"""ibcore.summary.summarise: groups, statistics, and intervals that cover the truth."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ibcore.summary import summarise


@pytest.fixture
def table():
    return pd.DataFrame({"d": [2, 1, 2, 1, 2], "s": ["x", "x", "y", "x", "x"],
                         "v": [1.0, 5.0, 3.0, 7.0, 2.0]})


def test_groups_sort_and_count(table):
    by_d = summarise(table, "d", "v", ci=None)
    assert list(by_d.columns) == ["d", "median", "count"]
    assert list(by_d["d"]) == [1, 2] and list(by_d["median"]) == [6.0, 2.0]
    assert list(by_d["count"]) == [2, 3]
    both = summarise(table, ("d", "s"), "v", stat=("mean", "max", 0.5), ci=None)
    assert list(both.columns) == ["d", "s", "mean", "max", "q50", "count"]
    assert [tuple(r) for r in both.itertuples(index=False)] == [
        (1, "x", 6.0, 7.0, 6.0, 2), (2, "x", 1.5, 2.0, 1.5, 2), (2, "y", 3.0, 3.0, 3.0, 1)]
    derived = summarise(table, (), table["v"] * 2, stat=np.max, ci=None)
    assert derived["max"][0] == 14.0 and derived["count"][0] == 5
    flags = summarise(table, "s", table["v"] > 1.5, stat="all")
    assert list(flags["all"]) == [False, True] and "all_lo" not in flags


def test_every_interval_brackets_its_statistic(table):
    out = summarise(table, "d", "v", stat=("median", "mean", 0.9))
    for name in ("median", "mean", "q90"):
        assert (out[f"{name}_lo"] <= out[name]).all() and (out[name] <= out[f"{name}_hi"]).all()
    assert (out["median_hi"] > out["median_lo"]).any(), "a spread sample gets a proper interval"


def test_rate_gets_the_exact_binomial_interval():
    table = pd.DataFrame({"g": [0] * 40, "kept": [True] * 35 + [False] * 5})
    out = summarise(table, "g", "kept", stat="rate")
    ref = stats.binomtest(35, 40).proportion_ci(confidence_level=0.95)
    assert out["rate"][0] == 35 / 40
    assert (out["rate_lo"][0], out["rate_hi"][0]) == (ref.low, ref.high)
    with pytest.raises(ValueError, match="rate"):
        summarise(pd.DataFrame({"g": [0, 0], "v": [0.5, 1.5]}), "g", "v", stat="rate")


def test_intervals_are_reproducible(table):
    assert summarise(table, "d", "v").equals(summarise(table, "d", "v"))


@pytest.mark.parametrize("stat, truth, draw", [
    # the median of an exponential(1) is log 2; of a normal, its mean
    ("median", np.log(2.0), lambda rng, n: rng.exponential(size=n)),
    ("mean", 0.3, lambda rng, n: rng.normal(0.3, 1.0, size=n)),
    ("rate", 0.8, lambda rng, n: rng.uniform(size=n) < 0.8),
])
def test_95_percent_intervals_cover_the_truth_about_95_percent_of_the_time(stat, truth, draw):
    # 200 synthetic sweeps of 40 trials each, where the truth is known; the coverage of
    # a 95% interval is then a binomial(200, 0.95) count: 190 +- 3 (sd). Bootstrap
    # intervals of 40 draws run a little short, the exact binomial one a little long,
    # so accept 0.88..0.995 (a 1.3x too narrow or wide interval falls outside).
    rng = np.random.default_rng(12)
    groups, n = 200, 40
    table = pd.DataFrame({"g": np.repeat(np.arange(groups), n),
                          "v": np.concatenate([draw(rng, n) for _ in range(groups)])})
    out = summarise(table, "g", "v", stat=stat)
    covered = ((out[f"{stat}_lo"] <= truth) & (truth <= out[f"{stat}_hi"])).mean()
    assert 0.88 <= covered <= 0.995, f"{stat}: coverage {covered:.3f}"


@pytest.mark.parametrize("kwargs, match", [
    ({"by": "nope"}, "unknown column"),
    ({"column": "nope"}, "column 'nope'"),
    ({"column": [1.0]}, "one value per row"),
    ({"stat": "mode"}, "stat must be one of"),
    ({"stat": 1.5}, "quantile"),
    ({"stat": ("median", "median")}, "distinct"),
    ({"ci": 1.5}, "ci must lie"),
])
def test_bad_arguments_are_named(kwargs, match):
    table = pd.DataFrame({"d": [1, 2], "v": [2.0, 3.0]})
    with pytest.raises(ValueError, match=match):
        summarise(table, **{"by": "d", "column": "v", **kwargs})
    with pytest.raises(ValueError, match="DataFrame"):
        summarise(np.zeros(2), "d", "v")


def test_fit_slope_covers_a_known_exponent_about_95_percent_of_the_time():
    # 150 synthetic sweeps of y = x^-1/2 with lognormal scatter (sd 0.5 in log y), 4 sizes
    # x 10 trials; the coverage of a 95% interval is binomial(150, 0.95): 142.5 +- 2.7 (sd).
    # A paired bootstrap of 40 pairs runs a little short: accept 0.87..0.995.
    from ibcore.summary import fit_slope

    rng = np.random.default_rng(3)
    x = np.repeat([100.0, 200.0, 400.0, 800.0], 10)
    fits = [fit_slope(x, x**-0.5 * np.exp(0.5 * rng.standard_normal(x.size)), log=True)
            for _ in range(150)]
    covered = np.mean([f.lo <= -0.5 <= f.hi for f in fits])
    assert 0.87 <= covered <= 0.995, covered
    assert all(f.lo <= f.slope <= f.hi and f.count == 40 for f in fits)
    # the same data twice: the same interval (seeded resampling)
    y = x**-0.5 * np.exp(0.5 * rng.standard_normal(x.size))
    assert fit_slope(x, y, log=True) == fit_slope(x, y, log=True)
    # a linear fit of exact data: the slope itself, with a zero-width interval
    xs = np.tile([1.0, 2.0, 3.0, 4.0], 3)
    exact = fit_slope(xs, 2 * xs - 1)
    assert exact.slope == pytest.approx(2.0) and exact.hi - exact.lo < 1e-9


def test_fit_slope_without_an_interval_is_the_least_squares_slope_of_a_curve():
    from ibcore.summary import fit_slope

    x = np.logspace(1, 4, 12)
    y = 3.0 * x**-0.5 * np.exp(0.1 * np.sin(np.arange(12)))  # not on the line: the fit has work to do
    fit = fit_slope(x, y, log=True, ci=None)
    assert fit.slope == pytest.approx(np.polyfit(np.log(x), np.log(y), 1)[0], rel=1e-12)
    assert np.isnan(fit.lo) and np.isnan(fit.hi) and fit.count == 12
    assert fit_slope([1.0, 2.0], [3.0, 5.0], ci=None).slope == pytest.approx(2.0)  # two points suffice
    assert fit.slope == fit_slope(x, y, log=True).slope  # the same slope as with the bootstrap


@pytest.mark.parametrize("x, y, kwargs, match", [
    ([1.0, 2.0], [1.0, 2.0], {}, "length >= 3"),
    ([1.0], [1.0], {"ci": None}, "length >= 2"),
    ([1.0, 2.0, 3.0], [1.0, 2.0], {"ci": None}, "equal length"),
    ([1.0, 2.0, 3.0], [1.0, np.nan, 2.0], {}, "finite"),
    ([1.0, 2.0, 3.0], [1.0, -1.0, 2.0], {"log": True}, "positive"),
    ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0], {}, "two distinct"),
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], {"ci": 1.5}, "ci must"),
])
def test_fit_slope_names_bad_arguments(x, y, kwargs, match):
    from ibcore.summary import fit_slope

    with pytest.raises(ValueError, match=match):
        fit_slope(x, y, **kwargs)


def test_summarise_columns_puts_each_column_with_its_interval_side_by_side(table):
    from ibcore.summary import with_intervals
    from ibcore.summary import summarise_columns

    table = table.assign(w=table["v"] * 10)
    both = summarise_columns(table, "d", ["v", "w"])
    assert list(both.columns) == ["d", "v", "v_lo", "v_hi", "w", "w_lo", "w_hi", "count"]
    one = summarise(table, "d", "w")
    assert list(both["w"]) == list(one["median"]) and list(both["w_hi"]) == list(one["median_hi"])
    assert list(both["count"]) == [2, 3]
    assert list(with_intervals(both).columns) == ["d", "v [95% CI]", "w [95% CI]", "count"]
    with pytest.raises(ValueError, match="single"):
        summarise_columns(table, "d", ["v"], stat=("median", "mean"))


def test_scientific_medians_against_the_entries_by_hand():
    """Texts in scientific notation, '< floor' at and below the floor, and the largest
    relative half-width over the resolved entries only (the floor's would be huge)."""
    import pandas as pd
    from ibcore.summary import scientific_medians
    s = pd.DataFrame({"p": [1, 2, 3], "a": [1.0, 2e-13, 3e-6], "a_lo": [0.9, 0.0, 2e-6],
                      "a_hi": [1.3, 1e-12, 3.6e-6], "b": [0.5, 0.4, 1e-12],
                      "b_lo": [0.45, 0.1, 0.0], "b_hi": [0.55, 0.7, 1.0]})
    table, half = scientific_medians(s, "p", ["a", "b"], names=["t = 1", "t = 2"])
    assert list(table.columns) == ["p", "t = 1", "t = 2"]
    assert table["t = 1"].tolist() == ["1.00e+00", "< 1e-12", "3.00e-06"]
    assert table["t = 2"].tolist() == ["5.00e-01", "4.00e-01", "< 1e-12"]
    # by hand: a: 0.2, (1.6e-6)/(6e-6) = 0.2667; b: 0.1, 0.75
    assert half == pytest.approx(0.75)
    with pytest.raises(ValueError, match="names"):
        scientific_medians(s, "p", ["a"], names=["x", "y"])
    with pytest.raises(ValueError, match="floor"):
        scientific_medians(s, "p", ["a"], floor=0.0)
    with pytest.raises(ValueError, match="columns"):
        scientific_medians(s, "p", ["c"])
