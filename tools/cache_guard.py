"""Discard the book's execution cache when ibcore changed since it was filled.

jupyter-cache keys an executed chapter on its code cells only, so after an edit
of ibcore a build would happily reuse outputs computed with the old solvers.
The Makefile runs this before every build: it records ibcore's source hash next
to the cache and, when the hash differs, empties the cache together with
Sphinx's saved environment (``.doctrees``); without the latter Sphinx would
consider unchanged chapters up to date and never execute them again.

Usage::

    python -m tools.cache_guard [BUILD_DIR]     # default: _build
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ibcore.sweep import source_fingerprint


def guard(build: Path) -> bool:
    """Empty ``build/.jupyter_cache`` (and ``build/.doctrees``) if ibcore's source changed.

    Returns True when it did.
    """
    cache = build / ".jupyter_cache"
    stamp = build / ".ibcore-source"
    current = source_fingerprint()
    stale = cache.exists() and (not stamp.exists() or stamp.read_text().strip() != current)
    if stale:
        shutil.rmtree(cache)
        shutil.rmtree(build / ".doctrees", ignore_errors=True)  # so Sphinx re-reads every chapter
        print(f"ibcore changed since the chapters were executed: cleared {cache} and the doctrees")
    build.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current + "\n")
    return stale


if __name__ == "__main__":
    guard(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("_build"))
