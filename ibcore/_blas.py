"""BLAS on one thread for loops of small products (internal).

The solvers' inner loops multiply small matrices (GD's K G with n ≤ a few hundred,
an SGD block's b × N by N × (p + p*)): split over threads they gain nothing, and on a busy
machine (two notebooks on two cores, a shared Binder) OpenBLAS's threads wait for a core.
Measured on the 2-core machine: SGD at N = 10⁴, p = 8 under load, 8.4x the cost of drawing
its inputs on two threads and 1.47x on one; 8 GD runs at n = 160 beside another busy
process, 7.1 s on two threads and 0.34 s on one (``CHANGELOG.md``, "BLAS threads").
"""
from __future__ import annotations

import contextlib

try:  # pinned in requirements.txt; without it (e.g. a bare Colab install) BLAS threads as configured
    from threadpoolctl import ThreadpoolController
except ImportError:
    ThreadpoolController = None

_controller = []


def one_blas_thread():
    """Context in which BLAS runs on one thread (a no-op without threadpoolctl); restored after."""
    if ThreadpoolController is None:
        return contextlib.nullcontext()
    if not _controller:
        _controller.append(ThreadpoolController())  # scanning the loaded libraries costs ~1 ms: once
    return _controller[0].limit(limits=1, user_api="blas")
