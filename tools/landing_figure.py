"""The landing page's figure: the book's two stories, each from a small computation with ibcore.

Left (Part I): full-batch GD on a one-neuron ReLU network, run in the dual from the
all-active start, ends at a relative distance from the minimum-norm solution that falls
like √(n/d) (median over seeds; chapter 3 measures the slope and the constant). Right
(Part II): the overlap ODEs of one-pass SGD from a random start learn the norm, rest on
the plateau and escape, at about the same time for a wider student (chapter 3 measures
how little the width moves the escape).

The PNG is committed (``book/figures/two_stories.png``, shown by ``book/intro.md``);
``tests/test_landing_figure.py`` draws it again and fails when it differs. Redraw it with::

    python -m tools.landing_figure
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "figures" / "two_stories.png"

N_EXAMPLES = 20
DIMENSIONS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)
SEEDS = range(5)
WIDTHS = (2, 8)  # student widths p for a teacher of p* = 2
P_STAR, N_INPUT = 2, 10**4
DPI = 200  # the PNG's pixels per inch: twice the house style's 100 (retina)


def relu_gaps() -> np.ndarray:
    """Median relative distance ‖w_GD − w*‖/‖w*‖ over SEEDS, for each d of DIMENSIONS."""
    import ibcore.relu as R

    gaps = np.empty((len(DIMENSIONS), len(SEEDS)))
    for i, d in enumerate(DIMENSIONS):
        for j, seed in enumerate(SEEDS):
            rng = np.random.default_rng(seed)
            y = R.sample_labels(N_EXAMPLES, rng=rng)
            K = R.sample_gram(N_EXAMPLES, d, rng=rng)
            c = R.default_contraction(N_EXAMPLES, d)
            run = R.gradient_descent_gram(K, y, R.all_active_init_gram(K, trace=d), lr=R.lr_from_contraction_gram(c, K), tol=1e-9, record_every=None)
            gaps[i, j] = R.relative_gap_gram(K, run.coef, R.min_norm_solution_gram(K, y).nu)
    return np.median(gaps, axis=1)


def escape_runs() -> dict:
    """Gradient-flow overlap ODEs from a random start, for each student width of WIDTHS."""
    import ibcore.quadratic as q

    runs = {}
    for p in WIDTHS:
        Q0, R0, _ = q.initial_overlaps(p, P_STAR, N_INPUT, rng=1)
        runs[p] = q.integrate_odes(Q0, R0, t_max=7.0, n_points=300, grid="linear")
    return runs


def figure():
    """The figure (matplotlib, house style), drawn from the two computations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ibcore.book.style import PALETTE, WIDE, _use_house_style

    _use_house_style()
    gaps, runs = relu_gaps(), escape_runs()
    # the house style's widest figure: the page shows it 720 px wide on a laptop and 342 px
    # on a phone, where its 11-pt lettering is 7.7 CSS px (tests/test_landing_figure.py)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(WIDE, 3.6))
    d = np.array(DIMENSIONS, dtype=float)
    ax.loglog(d, gaps, "o-", color=PALETTE["blue"], label=f"GD (median of {len(SEEDS)})")
    scale = gaps[-1] / np.sqrt(N_EXAMPLES / d[-1])
    ax.loglog(d, scale * np.sqrt(N_EXAMPLES / d), ":", color="0.3", label=r"$\propto\sqrt{n/d}$")
    ax.set(xlabel="input dimension $d$", ylabel=r"$\|w_{\mathrm{GD}} - w^\star\| / \|w^\star\|$",
           title=f"Part I: GD lands near\nthe minimum norm (n = {N_EXAMPLES})")
    ax.legend(loc="lower left")
    for p, color, style in zip(WIDTHS, (PALETTE["vermillion"], PALETTE["green"]), ("-", "--")):
        run = runs[p]
        bx.plot(run.t, run.risk, color=color, ls=style, label=f"student width {p}")
    bx.set(xlabel="time $t'$", ylabel="population risk", xlim=(0, 7), ylim=(0, None),
           title=f"Part II: SGD learns the norm,\nrests, escapes (p* = {P_STAR})")
    bx.legend(loc="upper right")
    return fig


def draw() -> bytes:
    """The figure as PNG bytes (retina: 2x the house style's resolution)."""
    import matplotlib.pyplot as plt

    fig = figure()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return out.getvalue()


def main() -> int:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(draw())
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
