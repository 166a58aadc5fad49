"""Summaries of sweep tables: a statistic per group of trials, with its confidence interval.

:func:`summarise` is the one group-by of the book. Every statistic it returns comes with
its interval (``<stat>_lo``, ``<stat>_hi``), so that a quoted constant carries its
uncertainty: a bootstrap interval for a median, mean, quantile or spread, and the exact
binomial interval for a rate (how often something happened in ``count`` trials)::

    table = sweep(gap_trial, {"d": [400, 1600]}, trials=40, fixed={"n": 20})
    summarise(table, "d", "gap_scaled")              # median, median_lo, median_hi, count
    summarise(table, "d", "success", stat="rate")    # rate, rate_lo, rate_hi, count

A scaling exponent gets its interval the same way, from the individual trials rather than
from the group medians (:func:`fit_slope`)::

    fit_slope(table["d"], table["gap"], log=True)    # slope, lo, hi, count
    fit_slope(d, curve, log=True, ci=None).slope     # the slope of a curve, no interval
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

__all__ = ["summarise", "summarise_columns", "interval_text", "with_intervals", "scientific_medians",
           "fit_slope", "SlopeFit"]


# statistics that get an interval: bootstrap for location and spread, binomial for a rate
_STATS = {"median": np.median, "mean": np.mean, "std": np.std, "min": np.min, "max": np.max,
          "sum": np.sum, "all": np.all, "any": np.any, "rate": np.mean}
_NO_INTERVAL = {"min", "max", "sum", "all", "any"}


def _stat_name(stat) -> str:
    if isinstance(stat, str):
        if stat not in _STATS:
            raise ValueError(f"stat must be one of {sorted(_STATS)}, a quantile in [0, 1] or a callable, "
                             f"got {stat!r}")
        return stat
    if isinstance(stat, (float, np.floating)) and not isinstance(stat, bool):
        if not 0.0 <= stat <= 1.0:
            raise ValueError(f"a quantile stat must lie in [0, 1], got {stat!r}")
        return f"q{100 * stat:g}"
    if callable(stat):
        return getattr(stat, "__name__", "stat")
    raise ValueError(f"stat must be a name, a quantile in [0, 1] or a callable, got {stat!r}")


def _vectorised(stat):
    """``stat`` as a function of ``(x, axis)``, the form scipy.stats.bootstrap vectorises."""
    if isinstance(stat, str):
        return lambda x, axis=-1: _STATS[stat](x, axis=axis)
    if isinstance(stat, (float, np.floating)):
        return lambda x, axis=-1: np.quantile(x, stat, axis=axis)
    return lambda x, axis=-1: np.apply_along_axis(stat, axis, x)


def _interval(stat, values, ci: float, seed: int) -> tuple[float, float]:
    """The ``ci`` confidence interval of ``stat`` over ``values``.

    A rate (the fraction of true values) gets the exact Clopper-Pearson interval of
    ``scipy.stats.binomtest``; any other statistic a BCa bootstrap interval (9999
    resamples, seeded, so that a chapter prints the same interval twice), or the
    percentile interval where BCa is undefined (all resampled values equal).
    """
    from scipy import stats as st

    if stat == "rate":
        k = int(np.count_nonzero(values))
        res = st.binomtest(k, values.size).proportion_ci(confidence_level=ci)
        return float(res.low), float(res.high)
    if values.size < 2 or np.all(values == values[0]):
        v = float(_vectorised(stat)(values))
        return v, v
    f = _vectorised(stat)
    for method in ("BCa", "percentile"):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = st.bootstrap((values,), f, confidence_level=ci, method=method, vectorized=True,
                               n_resamples=9999, rng=np.random.default_rng(seed))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            return low, high
    return float("nan"), float("nan")


def summarise(table, by, column, stat="median", *, ci: float | None = 0.95, seed: int = 0):
    """Reduce one column of a sweep table over groups of rows, with confidence intervals.

    Parameters
    ----------
    table : pandas.DataFrame
        A table returned by :func:`~ibcore.sweep.sweep` (or any DataFrame).
    by : str or sequence of str
        The columns that define the groups; ``()`` makes one group of all rows.
    column : str or array_like
        The column to reduce, or values of the same length as ``table`` (for
        a derived quantity such as ``table["a"] / table["b"]``).
    stat : str, float, callable, or a tuple of these
        ``"median"`` (default), ``"mean"``, ``"std"``, ``"rate"`` (the fraction of
        true, or non-zero, values: how often something happened), ``"min"``,
        ``"max"``, ``"sum"``, ``"all"``, ``"any"``; a float q in [0, 1] for the
        q-quantile (column ``"q10"`` for 0.1); or a function of a 1-d array.
    ci : float or None
        Confidence level of the interval added for each statistic as the columns
        ``<stat>_lo`` and ``<stat>_hi`` (default 0.95): for ``"rate"`` the exact
        binomial (Clopper-Pearson) interval of ``scipy.stats.binomtest``, for the
        others a BCa bootstrap interval from ``scipy.stats.bootstrap``. ``min``,
        ``max``, ``sum``, ``all`` and ``any`` get none. ``None`` adds no interval.
    seed : int
        Seed of the bootstrap resampling, so that the intervals are reproducible.

    Returns
    -------
    pandas.DataFrame
        One row per group, sorted by the ``by`` columns: the ``by`` columns, one
        column per statistic (named ``"median"``, ``"q10"``, ... or the function's
        name) followed by its interval, and ``count``, the number of rows in the group.

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.summary import summarise
    >>> table = pd.DataFrame({"d": [10] * 4 + [20] * 4, "gap": [1.0, 2.0, 3.0, 4.0, 2.0, 2.5, 3.0, 3.5]})
    >>> print(summarise(table, "d", "gap", stat=("median", "max")).round(3).to_string(index=False))
     d  median  median_lo  median_hi  max  count
    10    2.50        1.0        4.0  4.0      4
    20    2.75        2.0        3.5  3.5      4
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValueError(f"table must be a non-empty pandas.DataFrame, got {type(table).__name__}")
    by = [by] if isinstance(by, str) else list(by)
    missing = [name for name in by if name not in table.columns]
    if missing:
        raise ValueError(f"by names unknown column(s) {missing}; the table has {list(table.columns)}")
    if isinstance(column, str):
        if column not in table.columns:
            raise ValueError(f"column {column!r} is not in the table; it has {list(table.columns)}")
        values = table[column].to_numpy()
    else:
        values = np.asarray(column)
        if values.shape != (len(table),):
            raise ValueError(f"column must be a name or hold one value per row ({len(table)}), "
                             f"got shape {values.shape}")
    if ci is not None and not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie in (0, 1) or be None, got {ci!r}")
    stats = stat if isinstance(stat, tuple) else (stat,)
    names = [_stat_name(s) for s in stats]
    if len(set(names)) != len(names) or set(names) & {*by, "count"}:
        raise ValueError(f"statistic names must be distinct and differ from the by columns, got {names}")
    if "rate" in names and values.dtype.kind not in "bi":
        raise ValueError(f"stat 'rate' needs a boolean (or 0/1) column, got dtype {values.dtype}")

    groups = (table[by].assign(_row=np.arange(len(table))).groupby(by, sort=True)["_row"]
              if by else [((), np.arange(len(table)))])
    rows = []
    for key, index in groups:
        group = values[np.asarray(index)]
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        for s, name in zip(stats, names):
            row[name] = _STATS[s](group) if isinstance(s, str) else _vectorised(s)(group[None])[0]
            if ci is not None and name not in _NO_INTERVAL:
                row[f"{name}_lo"], row[f"{name}_hi"] = _interval(s, group, ci, seed)
        row["count"] = group.size
        rows.append(row)
    result = pd.DataFrame(rows)
    result.attrs["ci"] = ci  # the level, for with_intervals
    return result


def summarise_columns(table, by, columns, stat="median", *, ci: float | None = 0.95, seed: int = 0):
    """One statistic of several columns, side by side: :func:`summarise` once per column.

    Returns one row per group with, for each name in ``columns``, the columns ``<name>``
    (the statistic), ``<name>_lo`` and ``<name>_hi`` (its interval), then ``count``; so
    :func:`with_intervals` turns it into a table of ``<name> [95% CI]`` texts. ``stat`` is
    one statistic (a name, a quantile or a callable, as for :func:`summarise`).

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.summary import summarise_columns
    >>> table = pd.DataFrame({"d": [10] * 4 + [20] * 4, "gap": [1.0, 2.0, 3.0, 4.0, 2.0, 2.5, 3.0, 3.5]})
    >>> table["gap2"] = 2 * table["gap"]
    >>> print(summarise_columns(table, "d", ["gap", "gap2"], stat="mean", ci=None).to_string(index=False))
     d  gap  gap2  count
    10 2.50   5.0      4
    20 2.75   5.5      4
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    if not columns or isinstance(stat, tuple):
        raise ValueError(f"columns must name at least one column and stat must be a single "
                         f"statistic, got columns={columns!r}, stat={stat!r}")
    out = None
    for column in columns:
        one = summarise(table, by, column, stat=stat, ci=ci, seed=seed)
        name = _stat_name(stat)
        one = one.rename(columns={name: column, f"{name}_lo": f"{column}_lo",
                                  f"{name}_hi": f"{column}_hi"})
        count = one.pop("count")
        out = one if out is None else out.join(one.drop(columns=[c for c in one.columns
                                                                 if c in out.columns]))
    out["count"] = count
    out.attrs["ci"] = ci
    return out


def interval_text(value, low, high, *, digits: int = 2, count: int | None = None,
                  unit: str = "draws") -> str:
    """A statistic with its interval, the way the book quotes it: ``0.52 [0.47, 0.57], 40 draws``.

    Parameters
    ----------
    value, low, high : float
        The statistic and the ends of its confidence interval (columns ``<stat>``,
        ``<stat>_lo``, ``<stat>_hi`` of :func:`summarise`).
    digits : int
        Decimals shown.
    count : int, optional
        The sample size, appended as ``", <count> <unit>"``.
    unit : str
        What ``count`` counts (``"draws"``, ``"runs"``, ...).

    Examples
    --------
    >>> from ibcore.summary import interval_text
    >>> interval_text(0.5213, 0.47, 0.5702, count=40)
    '0.52 [0.47, 0.57], 40 draws'
    """
    text = f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
    return text if count is None else f"{text}, {count} {unit}"


def with_intervals(summary, *, digits: int = 2):
    """``summary`` with each statistic and its interval merged into one text column.

    The columns ``<stat>``, ``<stat>_lo`` and ``<stat>_hi`` of :func:`summarise` become one
    column ``<stat> [95% CI]`` (the level :func:`summarise` used) of texts such as
    ``0.52 [0.47, 0.57]``; other columns stay.

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.summary import summarise, summarise_columns, with_intervals
    >>> table = pd.DataFrame({"d": [10] * 4 + [20] * 4, "gap": [1.0, 2.0, 3.0, 4.0, 2.0, 2.5, 3.0, 3.5]})
    >>> s = summarise(table, "d", "gap", stat="mean", ci=0.9)
    >>> list(with_intervals(s).columns)
    ['d', 'mean [90% CI]', 'count']
    """
    out = summary.copy()
    level = f"{100 * summary.attrs.get('ci', 0.95):g}% CI"
    for name in [c for c in summary.columns if f"{c}_lo" in summary.columns]:
        text = [interval_text(v, lo, hi, digits=digits) for v, lo, hi in
                zip(summary[name], summary[f"{name}_lo"], summary[f"{name}_hi"])]
        out = out.drop(columns=[f"{name}_lo", f"{name}_hi"])
        out[name] = text
        out = out.rename(columns={name: f"{name} [{level}]"})
    return out


def scientific_medians(summary, by, columns, *, names=None, floor: float = 1e-12):
    """Statistics that span many decades: each in scientific notation, and how wide their intervals are.

    One number of decimals fits no column of values from 1 to :math:`10^{-12}`, and an interval
    per entry would fill the table. This gives the statistics alone, as texts such as
    ``2.51e-04``, with the values at or below ``floor`` (rounding noise of a closed form) as
    ``< 1e-12``; and, to quote with the table, the largest relative half-width
    :math:`(\\mathrm{hi} - \\mathrm{lo}) / (2\\,\\mathrm{value})` of their intervals over the entries
    above ``floor``.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summarise_columns`: columns ``by``, and ``<col>``, ``<col>_lo``,
        ``<col>_hi`` for each of ``columns``.
    by : str
        The column that labels the rows, kept as it is.
    columns : list of str
        The statistics to show.
    names : list of str, optional
        Their headers in the table (default: ``columns``).
    floor : float
        Values at or below it print as ``< floor``; positive.

    Returns
    -------
    table : pandas.DataFrame
        ``by`` and one text column per statistic.
    half_width : float
        The largest relative half-width of an interval among the entries above ``floor``
        (``nan`` if there is none).

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.summary import scientific_medians
    >>> s = pd.DataFrame({"p": [1, 2], "r": [0.25, 1e-15], "r_lo": [0.2, 0.0], "r_hi": [0.3, 1e-14]})
    >>> table, half = scientific_medians(s, "p", ["r"], names=["risk"])
    >>> table["risk"].tolist(), round(half, 3)
    (['2.50e-01', '< 1e-12'], 0.2)
    """
    names = list(columns) if names is None else list(names)
    if len(names) != len(columns):
        raise ValueError(f"names must name each of the {len(columns)} columns, got {names!r}")
    if not floor > 0:
        raise ValueError(f"floor must be positive, got {floor!r}")
    missing = [c for col in columns for c in (col, f"{col}_lo", f"{col}_hi") if c not in summary.columns]
    if by not in summary.columns or missing:
        raise ValueError(f"summary lacks the columns {[by] if by not in summary.columns else missing!r}")
    table = summary[[by]].copy()
    halves = []
    for col, name in zip(columns, names):
        value = summary[col].to_numpy(dtype=float)
        table[name] = [f"{v:.2e}" if v > floor else f"< {floor:.0e}" for v in value]
        resolved = value > floor
        halves.extend(((summary[f"{col}_hi"] - summary[f"{col}_lo"]).to_numpy()[resolved]
                       / (2 * value[resolved])).tolist())
    return table, (float(np.max(halves)) if halves else float("nan"))


class SlopeFit(NamedTuple):
    """A least-squares slope with its confidence interval (:func:`fit_slope`; ``nan`` bounds with ``ci=None``).

    Examples
    --------
    >>> from ibcore.summary import SlopeFit
    >>> fit = SlopeFit(slope=-0.5, lo=-0.6, hi=-0.4, count=40)
    >>> fit.slope, fit.count
    (-0.5, 40)
    """

    slope: float
    lo: float
    hi: float
    count: int


def _ls_slope(x, y, axis=-1):
    """Least-squares slope of y on x along ``axis`` (vectorised for the bootstrap)."""
    dx = x - x.mean(axis=axis, keepdims=True)
    dy = y - y.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dx * dy).sum(axis=axis) / (dx * dx).sum(axis=axis)


def fit_slope(x, y, *, log: bool = False, ci: float | None = 0.95, seed: int = 0) -> SlopeFit:
    r"""Least-squares slope of ``y`` against ``x`` over individual trials, with its interval.

    The interval is a BCa bootstrap over the (x, y) pairs (9999 resamples,
    seeded), so a scaling exponent fitted over a sweep carries the scatter of its
    trials, not only that of the group medians. With ``log=True`` the fit is of
    :math:`\log y` against :math:`\log x`, i.e. the exponent of :math:`y \propto x^{slope}`.

    Parameters
    ----------
    x, y : array_like
        One value per trial (e.g. two columns of a sweep table), finite and, with
        ``log=True``, positive; ``x`` must take at least two distinct values.
    log : bool
        Fit in log-log coordinates.
    ci : float or None
        Confidence level of the interval, in (0, 1); ``None`` fits the slope alone (of a
        curve, or of group medians), without a bootstrap: ``lo`` and ``hi`` are then ``nan``.
    seed : int
        Seed of the bootstrap resampling.

    Returns
    -------
    SlopeFit
        ``slope``, ``lo``, ``hi`` (the interval) and ``count`` (number of pairs);
        unpacks in this order, and ``interval_text(*fit[:3], count=fit.count)``
        prints it the way the book quotes numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from ibcore.summary import fit_slope
    >>> x = np.array([1.0, 2.0, 4.0, 8.0] * 2)
    >>> fit = fit_slope(x, 3.0 * x ** 0.5, log=True)
    >>> print(round(fit.slope, 6), fit.count)
    0.5 8
    >>> print(f"{fit_slope([1.0, 4.0, 16.0], [3.0, 1.5, 0.75], log=True, ci=None).slope:.2f}")   # no interval
    -0.50
    """
    from scipy import stats as st

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    least = 2 if ci is None else 3  # a bootstrap needs resamples with two distinct x
    if x.ndim != 1 or x.shape != y.shape or x.size < least:
        raise ValueError(f"x and y must be 1-d of equal length >= {least}, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite (drop the trials that did not finish first)")
    if log:
        if np.any(x <= 0) or np.any(y <= 0):
            raise ValueError("x and y must be positive for a log-log slope")
        x, y = np.log(x), np.log(y)
    if np.unique(x).size < 2:
        raise ValueError("x must take at least two distinct values to fit a slope")
    if ci is not None and not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie in (0, 1) or be None, got {ci!r}")
    slope = float(_ls_slope(x, y))
    low = high = float("nan")
    for method in () if ci is None else ("BCa", "percentile"):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = st.bootstrap((x, y), _ls_slope, paired=True, vectorized=True, method=method,
                               confidence_level=ci, n_resamples=9999, rng=np.random.default_rng(seed))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            break
    return SlopeFit(slope, low, high, int(x.size))
