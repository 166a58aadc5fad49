"""Progress bars for computations that take more than a couple of seconds.

``progress(iterable, total=..., desc=...)`` is ``tqdm.auto.tqdm`` (a widget
in Jupyter, text in a terminal), switched off when ``IBCORE_PROGRESS=0``.
Book builds set that variable: a frozen progress bar on a static page helps
nobody, and its timing text would change from one execution to the next.
"""
from __future__ import annotations

import os

__all__ = ["progress"]


def _progress_enabled() -> bool:
    """False when ``IBCORE_PROGRESS`` is ``0``/``false`` (as in book builds)."""
    return os.environ.get("IBCORE_PROGRESS", "1").strip().lower() not in ("0", "false", "no")


def progress(iterable=None, *, total=None, desc=None, enabled=True, **kwargs):
    """A ``tqdm.auto`` progress bar, unless disabled here or by ``IBCORE_PROGRESS=0``.

    Examples
    --------
    >>> from ibcore.progress import progress
    >>> sum(progress(range(4), desc="runs", enabled=False))
    6
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, leave=False,
                disable=not (enabled and _progress_enabled()), **kwargs)
