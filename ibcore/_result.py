"""The one kind of result in ibcore: a frozen dataclass that unpacks in field order.

Every object that an ibcore function returns with named parts (a GD run, a
trajectory, the overlaps, a fit) is declared with :func:`result`. Its fields
are read by name (``run.n_steps``, ``traj.nfev``) and, as with SciPy's result
objects, it also unpacks in field order (``Q, R, T = overlaps(W, W_star)``).
Results hold arrays, so ``==`` is identity, and they cannot be changed.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


def _unpack(self):
    return (getattr(self, f.name) for f in fields(self))


def result(cls=None, /, **options):
    """Declare a result class: ``dataclass(frozen=True, eq=False, **options)`` that unpacks."""

    def wrap(c):
        c = dataclass(frozen=True, eq=False, **options)(c)
        c.__iter__ = _unpack
        return c

    return wrap if cls is None else wrap(cls)
