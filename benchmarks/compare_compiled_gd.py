"""Part I's GD runs: ibcore's plain numpy (stacked, or one run at a time) against one numba loop.

A measurement kept to be rerun, not a benchmark of ``make bench`` (its name does not match
``bench_*.py``) and not a dependency: ibcore never imports numba. It needs numba in a
scratch venv with the project's numpy, e.g.::

    python3.11 -m venv /tmp/nb
    /tmp/nb/bin/pip install numpy==2.4.6 scipy==1.17.1 pandas==3.1.1 joblib==1.6.0 tqdm==4.70.1 numba
    cd benchmarks && export OPENBLAS_NUM_THREADS=1 PYTHONPATH=..
    nice -n 10 /tmp/nb/bin/python compare_compiled_gd.py [REPEATS [RUNS]]   # per point: 3, 32
    nice -n 10 /tmp/nb/bin/python compare_compiled_gd.py chapter [REPEATS]  # chapter I.3's sweeps
    nice -n 10 /tmp/nb/bin/python compare_compiled_gd.py chain [REPEATS]    # Part II, rough

The
compiled loop is the one-neuron Gram-only primal–dual step of ``ibcore.relu.gd`` (ReLU mask,
``tol`` stopping rule, divergence check, last-change and re-activation counts), behind
ibcore's own validation and result (``gd._prepared_call``, ``_iteration._result``), so it
returns the :class:`~ibcore.relu.GDResult` that ``gradient_descent_gram`` does.

It prints: the import time of numba; the compile time of the loop at its first call in a
fresh process, without a cache and with ``cache=True`` (cache written, then read); the
largest differences of β, α against ``gradient_descent_gram`` and whether n_steps,
success, last_change and reactivations agree, over a point's runs; and, per sweep point of
chapter I.3's gap sweeps (``gap_trial``'s Gram-only calls, tol = 1e-9), the CPU seconds of
the point's GD runs, interleaved repeats, median and all, for (a) ibcore stacked
(``gd._gradient_descent_runs``, as the trials' ``batch``), (b) ibcore one run at a time
(``gradient_descent_gram``), (c) numba one run at a time and (d) numba, all the runs in
one call; then the sums of the points' medians. ``chapter`` times chapter I.3's two sweeps end
to end (``ibcore.sweep.sweep``, n_jobs = 1, no cache) with the trials' batch, one trial at a
time, and the batch with the numba loop in place of the stack, and compares their gaps and step
counts. ``chain`` is a rough timing of Part II's overlap chain (N = 500, p = 8, p* = 2, 20,000
steps, Cholesky factor only): one run and 16 runs stacked in ibcore against one numba loop
per run fed the same random numbers.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
from _baseline import cpu_times

COMPILE_PROBE = """
import os, sys, time
t0 = time.process_time(); w0 = time.perf_counter()
import numba  # noqa: F401
print("import", time.process_time() - t0, time.perf_counter() - w0)
sys.path.insert(0, os.path.dirname({script!r}))
import compare_compiled_gd as C
C.kernels({cache})
run = C.small_run()
t0 = time.process_time(); w0 = time.perf_counter()
C.gd_one(*run)
print("first", time.process_time() - t0, time.perf_counter() - w0)
t0 = time.process_time()
C.gd_one(*run)
print("second", time.process_time() - t0)
"""

gd_one = gd_stack = None


def kernels(cache=False):
    """Compile (lazily) the numba loops into this module's ``gd_one`` and ``gd_stack``."""
    global gd_one, gd_stack
    from numba import njit

    @njit(cache=cache)
    def one(K, y, beta0, s, s_eta, w0_sq, tol, max_steps):
        n = y.size
        beta, alpha = beta0.copy(), np.zeros(n)
        G, KG = np.zeros(n), np.zeros(n)
        active = beta0 > 0.0
        ever = active.copy()
        last_change = np.zeros(n, np.int64)
        reactivations = np.zeros(n, np.int64)
        tol_sq = tol * tol
        t, success, diverged = 0, False, False
        while t < max_steps:
            for i in range(n):  # G = η s D r, r = s σ(β) - y
                G[i] = (s * beta[i] - y[i]) * s_eta if beta[i] > 0.0 else 0.0
            KG[:] = 0.0
            for i in range(n):  # K G over the active rows only (K symmetric)
                if G[i] != 0.0:
                    for j in range(n):
                        KG[j] += G[i] * K[i, j]
            step_sq = 0.0
            for i in range(n):
                step_sq += G[i] * KG[i]
                alpha[i] -= G[i]
                beta[i] -= KG[i]
            t += 1
            w_sq = w0_sq
            for i in range(n):
                w_sq += alpha[i] * (beta[i] + beta0[i])
            if not np.isfinite(step_sq + w_sq):
                if not (np.isfinite(step_sq) and (np.isfinite(w_sq) or (
                        np.isfinite(alpha).all() and np.isfinite(beta).all()))):
                    diverged = True
                    break
            for i in range(n):
                a = beta[i] > 0.0
                if a != active[i]:
                    last_change[i] = t
                    if a and ever[i]:
                        reactivations[i] += 1
                    ever[i] = ever[i] or a
                    active[i] = a
            if tol > 0.0 and step_sq <= tol_sq * max(w_sq, 0.0):
                success = True
                break
        return beta, alpha, t, success, diverged, last_change, reactivations

    @njit(cache=cache)
    def stack(K, y, beta0, s, s_eta, w0_sq, tol, max_steps):
        B, n = y.shape
        beta, alpha = np.empty((B, n)), np.empty((B, n))
        steps = np.empty(B, np.int64)
        flags = np.empty((B, 2), np.bool_)
        last_change = np.empty((B, n), np.int64)
        reactivations = np.empty((B, n), np.int64)
        for b in range(B):
            bb, ab, t, ok, bad, lc, re = one(K[b], y[b], beta0[b], s, s_eta[b], w0_sq[b], tol, max_steps)
            beta[b], alpha[b], last_change[b], reactivations[b] = bb, ab, lc, re
            steps[b], flags[b, 0], flags[b, 1] = t, ok, bad
        return beta, alpha, steps, flags, last_change, reactivations

    gd_one, gd_stack = one, stack


def small_run():
    """The arguments of ``gd_one`` for a small run (n = 20), to time its compilation."""
    import ibcore.relu as R
    K = R.sample_gram(20, 10 ** 4, rng=0)
    y = R.sample_labels(20, rng=1)
    alpha0 = R.all_active_init_gram(K)
    beta0 = alpha0 @ K
    return K, y, beta0, 1.0, R.lr_from_contraction_gram(0.01, K) / 20, float(alpha0 @ beta0), 1e-9, 100_000


def gap_calls(n, d, c, runs, seed=0):
    """The Gram-only GD calls of ``runs`` gap trials at one point (chapter I.3's options)."""
    from ibcore.experiments.relu.one_neuron import _gap_trial
    return [next(_gap_trial(n=n, d=d, b0=1.0, c=c, spectrum="isotropic", spectrum_param=None, method="gram",
                            tol=1e-9, max_steps=None, rng=np.random.default_rng([seed, k])))
            for k in range(runs)]


def _as_result(p, out):
    """The :class:`~ibcore.relu.GDResult` of prepared run ``p`` from the numba loop's output."""
    from ibcore.relu import _iteration
    from ibcore.relu.model import _network_loss
    from ibcore.validation import DivergenceError
    beta, alpha, t, success, diverged, last_change, reactivations = out
    s = p.setup
    if diverged:
        raise DivergenceError("gradient descent diverged", step=t, unit="GD step")
    beta, alpha = beta[None], alpha[None]
    history = _iteration._history(s, [(t, beta, alpha, _network_loss(beta, s.y, s.signs, s.activation))])
    return _iteration._result(s, t, success, beta, alpha, last_change[None], reactivations[None], history,
                              w=None, alpha0=p.alpha0)


def _args(p):
    s = p.setup
    return p.K, s.y, p.beta0[0], float(s.signs[0]), float(s.signs[0]) * (s.lr / len(p.K)), p.w0_sq, s.tol, s.max_steps


def numba_one_at_a_time(calls):
    from ibcore.relu import gd
    results = []
    for call in calls:
        p = gd._prepared_call(call)
        results.append(_as_result(p, gd_one(*_args(p))))
    return results


def numba_stacked(calls):
    from ibcore.relu import gd
    ps = [gd._prepared_call(call) for call in calls]
    args = [_args(p) for p in ps]
    K, y, beta0, s, s_eta, w0_sq, tol, max_steps = zip(*args)
    beta, alpha, steps, flags, last_change, reactivations = gd_stack(
        np.stack(K), np.stack(y), np.stack(beta0), s[0], np.array(s_eta), np.array(w0_sq), tol[0], max_steps[0])
    return [_as_result(p, (beta[b], alpha[b], steps[b], flags[b, 0], flags[b, 1], last_change[b], reactivations[b]))
            for b, p in enumerate(ps)]


def ibcore_stacked(calls):
    from ibcore.relu import gd
    return gd._gradient_descent_runs(calls)


def ibcore_one_at_a_time(calls):
    import ibcore.relu as R
    return [R.gradient_descent_gram(**call) for call in calls]


CANDIDATES = {"(a) ibcore stacked": ibcore_stacked, "(b) ibcore one at a time": ibcore_one_at_a_time,
              "(c) numba one at a time": numba_one_at_a_time, "(d) numba, one call": numba_stacked}
#: chapter I.3's gap sweeps, Part I's largest: over d at n = 20 (d = 10^6 takes the most steps) and
#: over n at d = 10^4 (n = 160: the largest K), c = default_contraction(n, d); (20, 10^4) is in both
POINTS = [(20, 10 ** 3, 0.01), (20, 10 ** 4, 0.009), (20, 10 ** 5, 0.003), (20, 10 ** 6, 0.0009),
          (40, 10 ** 4, 0.01), (80, 10 ** 4, 0.01), (160, 10 ** 4, 0.01)]


def compile_times():
    """Import time of numba and compile time of the loop in fresh processes (cache off, written, read)."""
    import tempfile
    script = os.path.abspath(__file__)
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        for label, cache in (("cache=False", False), ("cache=True, empty", True), ("cache=True, written", True)):
            out = subprocess.run([sys.executable, "-c", COMPILE_PROBE.format(script=script, cache=cache)],
                                 env=env, capture_output=True, text=True, check=True).stdout
            rows = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in out.splitlines()}
            print(f"  {label:20s} import numba {rows['import'][0]:.2f} CPU-s ({rows['import'][1]:.2f} wall); "
                  f"first call {rows['first'][0]:.2f} CPU-s ({rows['first'][1]:.2f} wall); "
                  f"second {rows['second'][0] * 1e3:.1f} CPU-ms")


def check(calls):
    """Largest differences of the numba loop's runs from ``gradient_descent_gram``'s."""
    ref, new = ibcore_one_at_a_time(calls), numba_one_at_a_time(calls)
    stacked = numba_stacked(calls)
    scale = max(np.abs(r.beta).max() for r in ref)
    dbeta = max(np.abs(r.beta - q.beta).max() for r, q in zip(ref, new)) / scale
    dalpha = max(np.abs(r.alpha - q.alpha).max() / np.abs(r.alpha).max() for r, q in zip(ref, new))
    same = all(r.n_steps == q.n_steps and r.success == q.success and np.array_equal(r.last_change, q.last_change)
               and np.array_equal(r.reactivations, q.reactivations) for r, q in zip(ref, new))
    same_stack = all(np.array_equal(q.beta, p.beta) and q.n_steps == p.n_steps for q, p in zip(new, stacked))
    steps = [r.n_steps for r in ref]
    print(f"  max|Δβ|/max|β| {dbeta:.1e}, max|Δα|/max|α| {dalpha:.1e}; n_steps, success, last_change, "
          f"reactivations equal: {same}; (d) equals (c): {same_stack}; n_steps {min(steps)}-{max(steps)}")


def main(repeats=3, runs=32):
    kernels()
    print(f"numba {__import__('numba').__version__}, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, load {os.getloadavg()[0]:.2f}")
    print("compile times (fresh processes):")
    compile_times()
    total = dict.fromkeys(CANDIDATES, 0.0)
    for n, d, c in POINTS:
        calls = gap_calls(n, d, c, runs)
        print(f"n = {n}, d = {d:g}, c = {c:g}, {runs} runs, tol = 1e-9:")
        numba_one_at_a_time(calls[:1]), numba_stacked(calls[:2])   # compiled before timing
        check(calls)
        times, _ = cpu_times({name: lambda run=run: run(calls) for name, run in CANDIDATES.items()}, repeats)
        base = np.median(times["(a) ibcore stacked"])
        for name, ts in times.items():
            total[name] += np.median(ts)
            print(f"  {name:26s} median {np.median(ts):7.3f} CPU-s ({np.median(ts) / base:5.2f}x of (a));"
                  f" all {', '.join(f'{t:.3f}' for t in ts)}")
        print(f"  load {os.getloadavg()[0]:.2f}", flush=True)
    print("sum of the points' medians (chapter I.3's sweeps count (20, 10^4) twice):")
    for name, t in total.items():
        print(f"  {name:26s} {t:7.3f} CPU-s")


def gap_trial_alone(**params):
    """``gap_trial`` without its ``batch``: a sweep then runs its trials one at a time."""
    from ibcore.experiments.relu import gap_trial
    return gap_trial(**params)


def chapter(repeats=3):
    """Chapter I.3's two gap sweeps end to end (``ibcore.sweep.sweep``, n_jobs = 1, no cache), CPU seconds."""
    from ibcore.experiments.relu import _batch, gap_trial
    from ibcore.sweep import sweep
    kernels()
    numba_one_at_a_time(gap_calls(20, 10 ** 4, 0.01, 2))   # compiled before timing
    grid = [{"n": n, "d": d, "c": c} for n, d, c in POINTS] + [{"n": 20, "d": 10 ** 4, "c": 0.009}]
    options = dict(fixed=dict(b0=1.0, tol=1e-9, method="gram"), trials=32, n_jobs=1, cache=False, progress=False)
    stacked = _batch._gradient_descent_runs

    def with_numba():
        _batch._gradient_descent_runs = numba_one_at_a_time
        try:
            return sweep(gap_trial, grid, **options)
        finally:
            _batch._gradient_descent_runs = stacked

    candidates = {"(a) batch, ibcore stacked": lambda: sweep(gap_trial, grid, **options),
                  "(b) one trial at a time": lambda: sweep(gap_trial_alone, grid, **options),
                  "(c) batch, numba per run": with_numba}
    times, tables = cpu_times(candidates, repeats)
    print(f"chapter I.3's sweeps, {len(grid)} points x 32 trials (load {os.getloadavg()[0]:.2f}):")
    for name, ts in times.items():
        print(f"  {name:26s} median {np.median(ts):7.3f} CPU-s; all {', '.join(f'{t:.3f}' for t in ts)}")
    a, c = (tables[k][["gap", "n_steps"]].to_numpy() for k in ("(a) batch, ibcore stacked", "(c) batch, numba per run"))
    print(f"  gap, n_steps of (c) against (a): max rel. diff {np.abs(c[:, 0] / a[:, 0] - 1).max():.1e}, "
          f"n_steps equal {np.array_equal(a[:, 1], c[:, 1])}")


def chain_kernel():
    """The overlap chain's steps (``ibcore.quadratic.overlap_chain``, Cholesky's factor only) as one numba loop."""
    from numba import njit

    @njit
    def steps(S, Z, X2, p, coef, inv_N):
        r = S.shape[0]
        in_Q, in_R = np.zeros((r, r)), np.zeros((r, r))
        in_Q[:p, :p] = 1.0
        in_R[:p, p:] = 1.0
        in_R[p:, :p] = 1.0
        w = np.empty(r)
        w[:p], w[p:] = 1.0 / p, -1.0 / (r - p)
        for j in range(Z.shape[0]):
            u = np.linalg.cholesky(S) @ Z[j]
            a = coef * np.sum(u * u * w)
            d = a * inv_N
            c = d * (a * X2[j] * inv_N - 2.0)
            S += np.outer(u, u) * (c * in_Q - d * in_R)
        return S

    return steps


def chain(repeats=3, N=500, p=8, p_star=2, n_steps=20_000, runs=16):
    """A rough timing of the overlap chain: ibcore alone and stacked against one numba loop per run."""
    from ibcore import quadratic as q
    from ibcore.quadratic import overlap_chain as oc
    t0 = time.process_time()
    steps = chain_kernel()
    starts = [q.overlaps(*q.random_init(p, p_star, N, informative=0.3, rng=k)) for k in range(runs)]
    r, lr = p + p_star, 0.1 * p
    coef, inv_N = 2.0 * lr / p, 1.0 / N

    def numba_run(Q0, R0, T, rng):  # the same random numbers as the chain's blocks
        g = np.random.default_rng(rng)
        S = np.block([[Q0, R0], [R0.T, T]])
        for start in range(0, n_steps, oc._BLOCK):
            Z, X2, _ = oc._draw_block([g], [None], r, N, 0.0, "exact")
            S = steps(S, Z[0, :n_steps - start], X2[0, :n_steps - start], p, coef, inv_N)
        return S

    numba_run(*starts[0], 0)
    print(f"overlap chain, N = {N}, p = {p}, p* = {p_star}, {n_steps} steps (numba compile "
          f"{time.process_time() - t0:.2f} CPU-s):")
    ref = oc._sgd_overlaps_runs(*zip(*starts[:1]), N=N, lr=lr, n_steps=n_steps, rngs=[0])[0]
    S = numba_run(*starts[0], 0)
    print(f"  max|ΔQ| {np.abs(ref.Q[-1] - S[:p, :p]).max():.1e}, max|ΔR| {np.abs(ref.R[-1] - S[:p, p:]).max():.1e}")
    candidates = {
        "ibcore, one run": lambda: oc._sgd_overlaps_runs(*zip(*starts[:1]), N=N, lr=lr, n_steps=n_steps, rngs=[0]),
        f"ibcore, {runs} runs stacked": lambda: oc._sgd_overlaps_runs(*zip(*starts), N=N, lr=lr, n_steps=n_steps,
                                                                     rngs=list(range(runs))),
        "numba, one run": lambda: numba_run(*starts[0], 0),
        f"numba, {runs} runs one by one": lambda: [numba_run(*start, k) for k, start in enumerate(starts)],
    }
    times, _ = cpu_times(candidates, repeats)
    for name, ts in times.items():
        print(f"  {name:26s} median {np.median(ts):7.3f} CPU-s; all {', '.join(f'{t:.3f}' for t in ts)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["chain"]:
        chain(*map(int, sys.argv[2:]))
    elif sys.argv[1:2] == ["chapter"]:
        chapter(*map(int, sys.argv[2:]))
    else:
        main(*map(int, sys.argv[1:]))
