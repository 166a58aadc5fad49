r"""Closed forms on exactly orthogonal data, K = ‖x‖² I: no cross-talk at all.

On orthogonal data every example evolves alone under GD, so the dynamics of
Part I can be solved example by example (the control of Boursier et al.,
2022).  These closed forms are the yardsticks of the chapters:

* one neuron: an active example moves as β ← (1 - c)β + c y_i; a negative
  label crosses 0 once and freezes in (c y_i, 0], which gives the settling
  step :func:`~ibcore.relu.orthogonal_stabilisation_step` and the overshoot floor
  :func:`~ibcore.relu.orthogonal_overshoot_gap`;
* two neurons f = σ(β₊) - σ(β₋) from β₊ = β₋ = b0: β₊ + β₋ is conserved while
  both are active, so an example decouples only if ∣y_i∣ ≥ 2 b0
  (:func:`~ibcore.relu.two_neuron_orthogonal_limit`, :func:`~ibcore.relu.two_neuron_orthogonal_gap`).
"""
from __future__ import annotations

import numpy as np

from ..validation import finite_array, positive_float

__all__ = [
    "orthogonal_stabilisation_step",
    "orthogonal_overshoot_gap",
    "two_neuron_orthogonal_limit",
    "two_neuron_orthogonal_gap",
]


def _one_neuron_inputs(y, c, b0):
    y = finite_array("y", y, ndim=1)
    c = positive_float("c", c)
    if c >= 1:
        raise ValueError(f"c must lie in (0, 1) for the active examples to contract, got {c!r}")
    return y, c, positive_float("b0", b0)


def orthogonal_stabilisation_step(y, c, *, b0=1.0) -> int:
    """Step at which the activation pattern stops changing on exactly orthogonal data.

    With K = d·I and pre-activations starting at β_i(0) = b0, an active
    example moves alone, β_t = y_i + (b0 - y_i)(1 - c)^t.  A positive
    label never crosses 0; a negative one switches off at the first t with
    (1 - c)^t ≤ ∣y_i∣/(b0 + ∣y_i∣) and never comes back, so the pattern
    is final after

        T_orth = max_{y_i < 0} ⌈ log(∣y_i∣/(b0 + ∣y_i∣)) / log(1 - c) ⌉

    steps (0 when no label is negative).  This is the time the slowest
    negative example needs, with no cross-talk at all.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    c : float
        Per-example contraction, 0 < c < 1.
    b0 : float
        Initial pre-activation (1 for w0 = Xᵀ1/d).

    Returns
    -------
    int
    """
    y, c, b0 = _one_neuron_inputs(y, c, b0)
    neg = -y[y < 0]
    if neg.size == 0:
        return 0
    steps = np.log(neg / (b0 + neg)) / np.log1p(-c)
    return int(np.ceil(steps.max()))


def orthogonal_overshoot_gap(y, c, *, b0=1.0) -> float:
    r"""The one-neuron gap ‖w_GD - w*‖/‖w*‖ on orthogonal data, from the scalar recursion.

    Each negative label freezes at the first β_T ≤ 0 of β ← (1 - c)β + c y_i
    from β_0 = b0, and w* puts it at 0; the positive labels are fitted by both.
    With ‖w‖² ∝ ‖β‖² on orthogonal data,

        gap = √(Σ_{y_i<0} β_{T,i}² / Σ_{y_i>0} y_i²)  <  c √(Σ_{y_i<0} y_i² / Σ_{y_i>0} y_i²),

    and ≈ c/√3 for symmetric labels when the crossing falls at a uniform phase
    of its last step (chapter 1).  A step-by-step recursion per label, so its
    cost is the number of steps, O(log(1/∣y∣)/c).

    Parameters
    ----------
    y : array of shape (n,)
        Labels, at least one positive.
    c : float
        Per-example contraction, 0 < c < 1.
    b0 : float
        Initial pre-activation.
    """
    y, c, b0 = _one_neuron_inputs(y, c, b0)
    if not np.any(y > 0):
        raise ValueError("y has no positive label, so w* = 0 and the relative gap is undefined")
    neg = y[y < 0]
    beta = np.full(neg.size, b0)
    active = beta > 0
    while active.any():  # the recursion, all negative labels at once
        beta[active] = (1 - c) * beta[active] + c * neg[active]
        active = beta > 0
    return float(np.sqrt(np.sum(beta ** 2) / np.sum(y[y > 0] ** 2)))


def two_neuron_orthogonal_limit(y, b0) -> np.ndarray:
    r"""Gradient-flow limit (β₊, β₋) of f = σ(β₊) - σ(β₋) on orthogonal data, from β₊ = β₋ = b0.

    With K = ‖x‖² I each example evolves alone.  While both neurons are active,
    GD moves β₊ by -c r and β₋ by +c r (r = β₊ - β₋ - y), so β₊ + β₋ = 2b0
    is conserved and β₊ - β₋ → y.  Hence

    * y_i ≥ 2b0: β₋ hits 0 first and freezes, β₊ → y_i: limit (y_i, 0);
    * y_i ≤ -2b0: limit (0, -y_i);
    * ∣y_i∣ < 2b0: both stay active, limit (b0 + y_i/2, b0 - y_i/2): no decoupling.

    Finite steps add an overshoot O(c∣y_i∣) where a neuron freezes.

    Parameters
    ----------
    y : array of shape (n,)
        Labels.
    b0 : float
        The common initial pre-activation.

    Returns
    -------
    numpy.ndarray, shape (2, n)
    """
    y = finite_array("y", y, ndim=1)
    b = positive_float("b0", b0)
    coupled = np.abs(y) < 2 * b
    plus = np.where(coupled, b + y / 2, np.maximum(y, 0.0))
    minus = np.where(coupled, b - y / 2, np.maximum(-y, 0.0))
    return np.stack([plus, minus])


def two_neuron_orthogonal_gap(y, b0) -> float:
    r"""Relative gap of :func:`~ibcore.relu.two_neuron_orthogonal_limit` to the decoupled target (y₊, y₋).

    On orthogonal data with equal norms ‖w‖ ∝ ‖β‖, and the target
    (w*(y), w*(-y)) has β* = (max(y, 0), max(-y, 0)), so

        gap = √(2 Σ_{∣y_i∣<2b0} (b0 - ∣y_i∣/2)²) / ‖y‖.

    For y ~ U[-1, 1] and b0 ≤ 1/2 its mean square is 4b0³: gap ≈ 2 b0^{3/2},
    whatever d.  This is the part of the two-neuron gap that comes from the
    initialisation scale alone.
    """
    y = finite_array("y", y, ndim=1)
    if not np.any(y != 0):
        raise ValueError("y is all zero, so the relative gap is undefined")
    target = np.stack([np.maximum(y, 0.0), np.maximum(-y, 0.0)])
    return float(np.linalg.norm(two_neuron_orthogonal_limit(y, b0) - target) / np.linalg.norm(y))
