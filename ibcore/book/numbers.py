"""Numbers as the book quotes them: rounded in the prose, with their interval in the evidence.

A measured number appears twice. The prose says "about 0.49", rounded to what its
interval resolves (and to three significant digits at most, so that it reads as a
number, not a measurement); the section's evidence gives the statistic, its 95%
interval and the sample size, "0.485 [0.466, 0.504], 128 draws", with one decimal more
than the interval's half-width needs, so that the two ends differ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .glue import glue_text

__all__ = ["Estimate", "rounded", "glue_estimate"]

MINUS = "\u2212"  # typographic minus: "−0.5" in prose, as maths would set it


def _place(value: float, low: float | None, high: float | None, significant: int) -> int:
    """The decimal exponent to round ``value`` to: the leading digit of the interval's
    half-width, and no finer than ``significant`` digits of the value."""
    if low is None or high is None or not high > low:
        return math.floor(math.log10(abs(value))) - significant + 1 if value else 0
    if not value:
        return math.floor(math.log10((high - low) / 2))
    finest = math.floor(math.log10(abs(value))) - significant + 1
    return max(finest, math.floor(math.log10((high - low) / 2)))


def _fmt(x: float, place: int) -> str:
    decimals = max(0, -place)
    x = round(x, -place) if place > 0 else x
    text = f"{x:,.{decimals}f}"
    return text.replace("-", MINUS)


def rounded(value, low=None, high=None, *, significant: int = 3) -> str:
    """``value`` rounded for the prose: to the digit its interval resolves.

    Parameters
    ----------
    value : float
        The statistic.
    low, high : float, optional
        Its confidence interval. Without one, ``value`` is a computed constant and keeps
        ``significant`` digits.
    significant : int
        Most significant digits shown, whatever the interval.

    Returns
    -------
    str
        For example ``rounded(0.4853, 0.466, 0.504)`` is ``"0.49"`` (the half-width 0.019
        resolves the second decimal) and ``rounded(222.87, 222.8, 222.9)`` is ``"223"``.

    Examples
    --------
    >>> rounded(0.4853, 0.466, 0.504)
    '0.49'
    >>> rounded(-0.4853, -0.75, -0.25)
    '−0.5'
    >>> rounded(12345.6)
    '12,300'
    """
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite, got {value!r}")
    if (low is None) != (high is None):
        raise ValueError(f"give both ends of the interval or neither, got low={low!r}, high={high!r}")
    if low is not None and not low <= high:
        raise ValueError(f"the interval must have low <= high, got low={low!r}, high={high!r}")
    return _fmt(value, _place(value, low, high, significant))


@dataclass(frozen=True)
class Estimate:
    """A measured number with its interval and sample size.

    ``prose`` is the rounded number for the text (:func:`rounded`); ``evidence`` (and
    ``str()``) the statistic, its interval and its sample size for the evidence.

    Examples
    --------
    >>> from ibcore.book import Estimate
    >>> est = Estimate(-0.512, -0.53, -0.49, count=128)
    >>> est.prose, str(est)
    ('−0.51', '−0.512 [−0.530, −0.490], 128 draws')
    """

    value: float
    low: float | None = None
    high: float | None = None
    count: int | None = None
    unit: str = "draws"
    significant: int = 3

    @property
    def prose(self) -> str:
        return rounded(self.value, self.low, self.high, significant=self.significant)

    @property
    def evidence(self) -> str:
        if self.low is None:
            text = rounded(self.value, significant=4)
        else:
            place = _place(self.value, self.low, self.high, significant=6) - 1
            text = f"{_fmt(self.value, place)} [{_fmt(self.low, place)}, {_fmt(self.high, place)}]"
        return text if self.count is None else f"{text}, {self.count:,} {self.unit}"

    def __str__(self) -> str:
        return self.evidence


def glue_estimate(name: str, value, low=None, high=None, *, count: int | None = None,
                  unit: str = "draws", significant: int = 3) -> Estimate:
    """Glue a measured number for the prose and for the evidence.

    ``{glue:md}`name``` pastes the rounded number (``Estimate.prose``), and
    ``{glue:md}`name_evidence``` the statistic with its interval and sample size
    (``Estimate.evidence``). Both paste as text, never as code.

    Parameters
    ----------
    name : str
        The glue key.
    value, low, high : float
        The statistic and its confidence interval (``low`` and ``high`` may be left out
        for a computed constant).
    count : int, optional
        The sample size, named by ``unit`` ("draws", "runs", ...).
    significant : int
        Most significant digits of the prose number (:func:`rounded`).

    Returns
    -------
    Estimate
        What was glued, to print in the evidence or to assert on.

    Examples
    --------
    >>> est = glue_estimate("slope", -0.512, -0.53, -0.49, count=128)
    >>> est.prose, est.evidence
    ('−0.51', '−0.512 [−0.530, −0.490], 128 draws')
    """
    est = Estimate(float(value), None if low is None else float(low),
                   None if high is None else float(high), count, unit, significant)
    glue_text(name, est.prose)
    glue_text(f"{name}_evidence", est.evidence)
    return est
