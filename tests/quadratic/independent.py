"""References for the Part II tests: plain numpy, written from the formulas, not from ibcore's solvers.

The step-by-step SGD shares only ibcore's argument checks and result type with the blocked
simulator, so that the two runs can be compared field by field.
"""
import numpy as np

from ibcore.quadratic.sgd import _check_sgd_args, _diverged, _make_result, _noise_stream, _record


def error_first_moments(Q, R, T):
    """E[Δ λ ν^T] and E[Δ λ λ^T] with Δ = ŷ - y and τ = Tr Q/p - Tr T/p* (label noise has mean 0):
    τR + 2(QR/p - RT/p*) and τQ + 2(Q²/p - RR^T/p*)."""
    p, p_star = R.shape
    tau = np.trace(Q) / p - np.trace(T) / p_star
    return tau * R + 2.0 * (Q @ R / p - R @ T / p_star), tau * Q + 2.0 * (Q @ Q / p - R @ R.T / p_star)


def population_gradient(W, W_star, *, wrt="U"):
    """∇_U ε_g of the population risk, U = W/√N: (2/p) τ U + (4/p)(QU/p - RU*/p*); ``wrt="W"``
    divides it by √N (the gradient with respect to the raw weights)."""
    W, W_star = np.asarray(W, dtype=float), np.asarray(W_star, dtype=float)
    p, N = W.shape
    p_star = W_star.shape[0]
    U, U_star = W / np.sqrt(N), W_star / np.sqrt(N)
    Q, R = U @ U.T, U @ U_star.T
    tau = np.trace(Q) / p - np.sum(U_star * U_star) / p_star
    grad = (2.0 / p) * tau * U + (4.0 / p) * (Q @ U / p - R @ U_star / p_star)
    return grad if wrt == "U" else grad / np.sqrt(N)


def sgd_one_pass_reference(W0, W_star, *, lr, t_max=None, n_steps=None, rng=None, record_every=None,
                           record_steps=None, noise=0.0, blowup=1e6):
    """Plain step-by-step one-pass SGD, the specification the blocked simulator is held to.

    Same arguments (without ``block`` and ``stop_below``), the same random numbers in the same
    order and the same result as :func:`ibcore.quadratic.sgd_one_pass`: one matrix-vector
    product and one rank-1 update per step.
    """
    W0, W_star, lr, noise, rec, blowup = _check_sgd_args(
        W0, W_star, lr, t_max, n_steps, noise, record_every, record_steps, blowup)
    rng = np.random.default_rng(rng)
    noise_rng = _noise_stream(rng, noise)
    p, N = W0.shape
    p_star = W_star.shape[0]
    sqrtN = np.sqrt(N)
    T = W_star @ W_star.T / N
    W = W0.copy()
    wanted = set(int(s) for s in rec)
    Qs, Rs, done = [], [], []
    if 0 in wanted:
        Q, R = _record(W, W_star, N)
        Qs.append(Q), Rs.append(R), done.append(0)
    with np.errstate(over="ignore", invalid="ignore"):
        for mu in range(1, int(rec[-1]) + 1):
            x = rng.standard_normal(N)
            lam = W @ x / sqrtN
            nu = W_star @ x / sqrtN
            y = nu @ nu / p_star
            if noise_rng is not None:
                y += np.sqrt(noise) * noise_rng.standard_normal()
            err = lam @ lam / p - y
            if not abs(err) <= blowup:
                raise _diverged(err, mu, blowup, p, lr, N)
            W -= (2.0 * lr / p * err / sqrtN) * np.outer(lam, x)
            if mu in wanted:
                Q, R = _record(W, W_star, N)
                Qs.append(Q), Rs.append(R), done.append(mu)
    return _make_result(done, Qs, Rs, T, W, lr, noise, True)
