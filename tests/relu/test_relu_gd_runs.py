"""GD runs stepped together (``gd._gradient_descent_runs``) and the trials' batches built on it.

The promise is exact: each run's result is the one ``gradient_descent`` gives for it alone,
bit for bit, whatever runs share its stack, so a sweep's numbers do not depend on how its
trials were grouped (the number of workers, ``ibcore.sweep.BATCH``).
"""
import warnings

import numpy as np
import pytest

import ibcore.experiments.relu as E
import ibcore.relu as R
from ibcore import DivergenceError
from ibcore.relu.gd import _gradient_descent_runs

# random starts leave examples inactive on purpose: the runs must agree there too
pytestmark = pytest.mark.filterwarnings("ignore::ibcore.relu.results.InactivePositiveWarning")

FIELDS = ("w", "beta", "alpha", "alpha0", "predictions", "loss", "n_steps", "success", "message",
          "last_change", "reactivations", "lr")


def assert_identical(a, b):
    for field in FIELDS:
        va, vb = getattr(a, field), getattr(b, field)
        assert (va is None) == (vb is None), field
        if va is not None:
            np.testing.assert_array_equal(va, vb, err_msg=field)
    for field in ("step", "beta", "alpha", "active", "loss"):
        np.testing.assert_array_equal(getattr(a.history, field), getattr(b.history, field), err_msg=field)


def one_run(call):
    """The call alone, through its public entry point."""
    return (R.gradient_descent_gram if "K" in call else R.gradient_descent)(**call)


def calls(form, m, activation, *, n=12, d=300, count=5, max_steps=100_000):
    """``count`` GD calls of one shape with their own data, starts and step sizes."""
    out = []
    for k in range(count):
        rng = np.random.default_rng(100 + k)
        y = R.sample_labels(n, rng=rng)
        X = R.sample_features(n, d, rng=rng)
        w0 = rng.standard_normal((m, d)) / np.sqrt(d) + R.all_active_init(X, b0=0.5, trace=d)
        c = (0.02, 0.05, 0.1)[k % 3]  # different speeds: the runs stop at different steps
        call = dict(y=y, lr=R.lr_from_contraction(c, X), signs=R.default_signs(m), tol=1e-10,
                    max_steps=max_steps, activation=activation)
        if form == "features":
            call.update(X=X, w0=w0[0] if m == 1 else w0)
        else:  # w0 = Xᵀ α0 with the same pre-activations as the features' start, projected
            alpha0 = np.linalg.solve(X @ X.T, X @ w0.T).T
            call.update(K=X @ X.T, alpha0=alpha0[0] if m == 1 else alpha0)
        out.append(call)
    return out


@pytest.mark.parametrize("activation", ["relu", "identity"])
@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("form", ["features", "gram"])
def test_each_run_of_a_stack_is_the_run_alone(form, m, activation):
    cs = calls(form, m, activation)
    alone = [one_run(call) for call in cs]
    stacked = _gradient_descent_runs(cs)
    other = _gradient_descent_runs(cs[3:0:-1])  # other neighbours, another order
    assert len({r.n_steps for r in alone}) > 1, "the runs should stop at different steps"
    for a, b in zip(alone, stacked):
        assert_identical(a, b)
    for a, b in zip(alone[3:0:-1], other):
        assert_identical(a, b)


def test_runs_stopped_by_the_budget_are_the_runs_alone():
    cs = calls("gram", 1, "relu", max_steps=400)  # c = 0.1 runs converge, c = 0.02 ones do not
    alone, stacked = [one_run(call) for call in cs], _gradient_descent_runs(cs)
    assert {r.success for r in alone} == {True, False}
    for a, b in zip(alone, stacked):
        assert_identical(a, b)


def test_runs_of_different_shapes_run_one_by_one():
    cs = calls("gram", 1, "relu", count=2) + calls("gram", 1, "relu", n=9, count=2) + calls("gram", 2, "relu", count=1)
    for a, b in zip([one_run(call) for call in cs], _gradient_descent_runs(cs)):
        assert_identical(a, b)


def test_a_diverging_run_in_a_stack_is_reported_at_its_own_step():
    """As in test_relu_validation's divergence test: identity, K = d·I, c = 3 doubles the residual."""
    n, d = 8, 32
    X = R.orthogonal_features(n, d, rng=4)
    y = np.random.default_rng(5).uniform(-1, 1, n)
    w0 = R.all_active_init(X, trace=d)
    run = dict(X=X, y=y, w0=w0, activation="identity", check_stability=False, tol=0, max_steps=5000)
    bad = dict(run, lr=R.lr_from_contraction(3.0, X))
    good = dict(run, lr=R.lr_from_contraction(0.5, X))
    with pytest.raises(DivergenceError) as alone:
        R.gradient_descent(**bad)
    with pytest.raises(DivergenceError, match=r"lr=0.75, stability bound") as stacked, warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _gradient_descent_runs([good, bad, good])
    assert stacked.value.step == alone.value.step


def test_arguments_are_validated_per_run():
    cs = calls("gram", 1, "relu", count=2)
    cs[1]["lr"] = -1.0
    with pytest.raises(ValueError, match="lr"):
        _gradient_descent_runs(cs)


TRIALS = [
    (E.gap_trial, dict(n=12, d=400, tol=1e-9, method="gram")),
    (E.gap_trial, dict(n=12, d=200, tol=1e-9, method="features", spectrum="spiked")),
    (E.pattern_trial, dict(n=12, d=300, c=0.02)),
    (E.test_error_trial, dict(n=12, d=200, c=0.02)),
    (E.two_neuron_trial, dict(n=12, d=300, c=0.02)),
    (E.disjoint_trial, dict(n=12, d=300, m=3, c=0.02)),
    (E.bad_init_trial, dict(n=12, d=200, init="gaussian", m=2, c=0.02)),
]


@pytest.mark.parametrize("trial, params", TRIALS, ids=lambda v: getattr(v, "__name__", ""))
def test_a_trials_batch_gives_each_trials_own_record(trial, params):
    rngs = [7, 8, np.random.default_rng(9)]
    batch = trial.batch(**params, rngs=rngs)
    assert batch == [trial(**params, rng=7), trial(**params, rng=8), trial(**params, rng=np.random.default_rng(9))]


def test_a_trials_batch_checks_its_parameters_as_the_trial():
    with pytest.raises(TypeError, match="wrong"):
        E.gap_trial.batch(n=12, d=400, wrong=1, rngs=[1])
    with pytest.raises(ValueError, match="b0 must be"):
        E.gap_trial.batch(n=12, d=400, b0=-1.0, rngs=[1])
