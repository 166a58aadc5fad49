"""Independent references for the Part I tests: plain numpy and SciPy, no ibcore solver.

A test that compares a trial with these catches a wrong solver, a wrong gap or a wrong
normalisation in ibcore, which a test re-running ibcore's own functions cannot.
"""
import numpy as np
from scipy.optimize import minimize


def plain_gd(X, y, w0, lr, *, tol, max_steps=1_000_000):
    """GD on (1/2n) Σ (σ(x_i·w) - y_i)², one neuron, in weight space; stops as ibcore documents it:
    after the first step whose length is at most tol times the new weights' norm."""
    n = X.shape[0]
    w = np.array(w0, dtype=float)
    for t in range(1, max_steps + 1):
        beta = X @ w
        step = lr / n * (X.T @ ((np.maximum(beta, 0) - y) * (beta > 0)))
        w = w - step
        if np.linalg.norm(step) <= tol * np.linalg.norm(w):
            return w, t
    raise AssertionError("plain_gd: no convergence")


def plain_gd_network(X, y, W0, signs, lr, steps, *, relu=True):
    """Every iterate W_0, ..., W_steps of GD on (1/2n) Σ_i (Σ_j s_j σ(w_j·x_i) - y_i)², in weight
    space, with σ'(0) = 0 (a pre-activation exactly 0 is inactive); σ = identity if not relu."""
    n = X.shape[0]
    W, s = np.array(W0, dtype=float), np.asarray(signs, dtype=float)
    out = [W.copy()]
    for _ in range(steps):
        B = W @ X.T
        H, D = (np.maximum(B, 0), B > 0) if relu else (B, np.ones(B.shape))
        r = s @ H - y
        W = W - lr / n * (s[:, None] * D * r) @ X
        out.append(W.copy())
    return np.array(out)


def min_norm_qp(X, y):
    """The min-norm global minimiser of the one-neuron loss, min ½‖w‖² subject to x_i·w = y_i
    (y_i > 0) and x_i·w ≤ 0 (y_i ≤ 0), through its dual solved by SciPy's L-BFGS-B (ibcore
    uses BVLS): w = Xᵀν, ν minimises ½νᵀKν - Σ_{y_i>0} y_i ν_i subject to ν_i ≤ 0 where y_i ≤ 0."""
    K, pos = X @ X.T, y > 0
    target = np.where(pos, y, 0.0)
    bounds = [(None, None) if p else (None, 0.0) for p in pos]
    res = minimize(lambda nu: (0.5 * nu @ K @ nu - target @ nu, K @ nu - target), np.zeros(y.size),
                   jac=True, bounds=bounds, method="L-BFGS-B",
                   options={"ftol": 1e-20, "gtol": 1e-13 * np.abs(K).max(), "maxiter": 100_000})
    # at this precision L-BFGS-B may stop on a failed line search: judge the optimality conditions
    nu, grad = res.x, K @ res.x - target
    free = pos | (nu < 0)
    assert np.abs(grad[free]).max(initial=0) <= 1e-9 * np.abs(target).max() * np.abs(K).max(), res.message
    assert grad[~free].max(initial=0) <= 1e-9 * np.abs(target).max() * np.abs(K).max(), res.message  # x_i·w ≤ 0
    return nu @ X


def gram_root(K):
    """Features X (n × n) with X Xᵀ = K: the data of a Gram-only run, made explicit."""
    return np.linalg.cholesky(K)


def loss(X, y, w):
    return float(np.sum((np.maximum(X @ w, 0) - y) ** 2) / (2 * X.shape[0]))


def orthogonal_overshoot_gap(y, c, b0=1.0):
    """The one-neuron gap ‖w_GD - w*‖/‖w*‖ on orthogonal data (K = ‖x‖² I), by recursion.

    Each example moves alone, β ← (1 - c)β + c y from β = b0; a negative label freezes at its
    first β ≤ 0, which w* puts at 0; positive labels are fitted by both. With ‖w‖² ∝ ‖β‖² the
    gap is sqrt(Σ_{y<0} β_T² / Σ_{y>0} y²). Its cost is the number of steps, O(log(1/|y|)/c).
    """
    y = np.asarray(y, dtype=float)
    assert 0 < c < 1 and b0 > 0 and np.any(y > 0)
    neg = y[y < 0]
    beta = np.full(neg.size, float(b0))
    active = beta > 0
    while active.any():
        beta[active] = (1 - c) * beta[active] + c * neg[active]
        active = beta > 0
    return float(np.sqrt(np.sum(beta ** 2) / np.sum(y[y > 0] ** 2)))
