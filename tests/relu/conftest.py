"""Shared problem instances for the ibcore.relu tests (small, so the whole suite stays fast)."""
import numpy as np
import pytest

import ibcore.relu as R


@pytest.fixture
def problem():
    """n = 20 isotropic examples in d = 400, labels U[-1, 1], the notes' init w0 = Xᵀ1/d, c = 0.01."""
    n, d = 20, 400
    X = R.sample_features(n, d, rng=11)
    y = np.random.default_rng(12).uniform(-1, 1, n)
    w0 = R.all_active_init(X, trace=d)
    return X, y, w0, R.lr_from_contraction(0.01, X)
