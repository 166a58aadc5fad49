"""The solvers' loops run BLAS on one thread (ibcore._blas), and restore the setting after."""
import contextlib

import numpy as np
import pytest

import ibcore.quadratic as q
import ibcore.relu as R
from ibcore import _blas
from ibcore.relu import _iteration
from ibcore.relu.gd import _gradient_descent_runs

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_threads():
    found = threadpoolctl.ThreadpoolController().select(user_api="blas")
    return [lib.num_threads for lib in found.lib_controllers]


def test_one_blas_thread_inside_and_the_setting_restored_after():
    before = blas_threads()
    if not before:
        pytest.skip("no BLAS library found by threadpoolctl")
    with _blas.one_blas_thread():
        inside = blas_threads()
    assert inside == [1] * len(before) and blas_threads() == before


def test_the_controller_is_made_once(monkeypatch):
    monkeypatch.setattr(_blas, "_controller", [])
    with _blas.one_blas_thread():
        pass
    with _blas.one_blas_thread():
        pass
    assert len(_blas._controller) == 1 and type(_blas._controller[0]).__name__ == "ThreadpoolController"


@pytest.fixture
def entered(monkeypatch):
    """Count the loops that enter ``one_blas_thread`` (patched where each solver looks it up)."""
    count = []

    @contextlib.contextmanager
    def counting():
        count.append(1)
        with _blas.one_blas_thread():
            yield

    for module in (_iteration, q.sgd):
        monkeypatch.setattr(module, "one_blas_thread", counting)
    return count


def test_gd_loops_and_sgd_run_on_one_blas_thread(entered):
    X = R.sample_features(6, 40, rng=1)
    y = np.random.default_rng(2).uniform(-1, 1, 6)
    call = dict(X=X, y=y, w0=R.all_active_init(X, trace=40), lr=R.lr_from_contraction(0.1, X), max_steps=20)
    R.gradient_descent(**call)
    assert len(entered) == 1
    _gradient_descent_runs([call, call])
    assert len(entered) == 2
    W0, W_star = q.random_init(2, 1, 32, rng=3)
    q.sgd_one_pass(W0, W_star, lr=0.1, t_max=0.5, rng=4)
    assert len(entered) == 3
