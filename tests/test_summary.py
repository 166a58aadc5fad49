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
