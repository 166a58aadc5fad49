"""The house plot style, the explorer widget helper and the progress bars."""
from __future__ import annotations

import base64
import json
import re

import matplotlib

matplotlib.use("Agg")
import ipywidgets as widgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ibcore import _figure_report, plotting, progress  # noqa: E402
from ibcore.widgets import explorer, static_mode  # noqa: E402


def test_house_style_is_white_colourblind_safe_and_undotted():
    plotting.use_house_style()
    rc = matplotlib.rcParams
    assert rc["figure.facecolor"] == "white" and rc["savefig.facecolor"] == "white"
    cycle = rc["axes.prop_cycle"].by_key()
    assert cycle["color"][:3] == [plotting.PALETTE["blue"], plotting.PALETTE["vermillion"], plotting.PALETTE["green"]]
    assert ":" not in cycle["linestyle"], "dotted lines are reserved for predictions"


def test_fit_loglog_slope_recovers_a_power_law():
    x = np.logspace(1, 4, 12)
    slope, const = plotting.fit_loglog_slope(x, 3.0 * x**-0.5)
    assert slope == pytest.approx(-0.5) and const == pytest.approx(3.0)
    with pytest.raises(ValueError, match="positive"):
        plotting.fit_loglog_slope([1, 2], [1, -1])
    with pytest.raises(ValueError, match="equal length"):
        plotting.fit_loglog_slope([1, 2, 3], [1, 2])


def _draw(a, b):
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [a, b])
    return fig


def _all_children(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_children(child)


def test_static_explorer_holds_one_frame_per_grid_point_linked_to_its_sliders():
    box = explorer(_draw, {"a": [1, 2, 3], "b": ([0.5, 1.5], 1.5)}, caption="A test.", labels={"b": "β"},
                   static=True)
    nodes = list(_all_children(box))
    frames = [w for w in nodes if "ib-explorer-frame" in w._dom_classes]
    assert len(frames) == 6
    first = re.fullmatch(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)" style="[^"]*">', frames[0].value)
    assert first, frames[0].value[:200]
    assert base64.b64decode(first.group(1))[:4] == b"\x89PNG"
    assert first.group(2) == "A test (a = 1, β = 0.5).", "alt text: the caption and the frame's values"
    stacks = [w for w in nodes if isinstance(w, widgets.Stack)]
    assert len(stacks) == 1 + 3, "one stack for a, one per value of a for b"
    assert stacks[0].selected_index == 1 and stacks[1].selected_index == 1, "defaults: middle a, b = 1.5"
    assert len(box._ib_links) == 4
    sliders = [w for w in nodes if isinstance(w, widgets.SelectionSlider)]
    assert [s.description for s in sliders] == ["a", "β"]
    assert "ib-explorer" in box._dom_classes


def test_live_explorer_redraws_when_a_slider_moves():
    calls = []

    def draw(a):
        calls.append(a)
        return _draw(a, a)

    box = explorer(draw, {"a": [1, 2, 3]}, static=False)
    slider = next(w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider))
    assert calls == [2]
    slider.value = 3
    assert calls == [2, 3]


@pytest.mark.parametrize("controls, match", [
    ({}, "non-empty"),
    ({"a": []}, "at least one"),
    ({"a": ([1, 2], 5)}, "default"),
])
def test_explorer_rejects_bad_controls(controls, match):
    with pytest.raises(ValueError, match=match):
        explorer(_draw, controls, static=True)


def test_explorer_caps_the_number_of_static_frames():
    with pytest.raises(ValueError, match="max_frames"):
        explorer(_draw, {"a": list(range(10)), "b": list(range(10))}, static=True, max_frames=64)


def test_static_mode_and_progress_follow_the_environment(monkeypatch):
    monkeypatch.setenv("IBCORE_STATIC_WIDGETS", "1")
    assert static_mode()
    monkeypatch.setenv("IBCORE_STATIC_WIDGETS", "0")
    assert not static_mode()
    monkeypatch.setenv("IBCORE_PROGRESS", "0")
    assert progress.progress(range(3)).disable
    monkeypatch.setenv("IBCORE_PROGRESS", "1")
    assert not progress.progress(range(3)).disable
    assert progress.progress(range(3), enabled=False).disable


def _legend_figure(loc):
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 1, 50)
    ax.plot(x, x, label="rising")               # crosses the upper-left to lower-right diagonal
    ax.plot(x, 0.5 + 0 * x, ls=":", label="flat")
    ax.scatter([0.9], [0.1], label="point")
    ax.legend(loc=loc)
    return fig


def test_legend_overlaps_finds_a_legend_over_a_curve_and_passes_a_clear_corner():
    plotting.use_house_style()
    over = _figure_report.legend_overlaps(_legend_figure("center"))
    assert len(over) == 1 and {"rising", "flat"} <= set(over[0]["covers"])
    assert _figure_report.legend_overlaps(_legend_figure("upper left")) == []
    bottom_right = _figure_report.legend_overlaps(_legend_figure("lower right"))
    assert bottom_right and "point" in bottom_right[0]["covers"], "scatter points count as data"
    plt.close("all")


@pytest.mark.parametrize("loc", ["center", "upper left", "lower right", "best"])
@pytest.mark.parametrize("inline", [False, True])
def test_legend_overlaps_of_a_figure_just_saved_needs_no_second_layout(loc, inline):
    import io

    from IPython.core.pylabtools import print_figure

    plotting.use_house_style()
    fresh = _figure_report.legend_overlaps(_legend_figure(loc))
    fig = _legend_figure(loc)
    if inline:  # what IPython does to display a figure (retina PNG, tight bounding box)
        print_figure(fig, "png", bbox_inches="tight", base64=False, dpi=200)
    else:  # what an explorer frame does
        fig.savefig(io.BytesIO(), format="png", dpi=80)
    assert _figure_report.legend_overlaps(fig, drawn=True) == fresh
    plt.close("all")


@pytest.mark.parametrize("where", ["right", "below"])
def test_legend_outside_clears_the_data_and_the_axis_labels(where):
    plotting.use_house_style()
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 1, 50)
    ax.plot(x, x, label="rising")
    ax.plot(x, 1 - x, label="falling")          # together, no corner of the axes is clear
    ax.set_xlabel("x")
    legend = plotting.legend_outside(ax, where, fontsize=8)
    assert _figure_report.legend_overlaps(fig) == []
    renderer = fig.canvas.get_renderer()
    box, axes_box = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    if where == "right":
        assert box.x0 >= axes_box.x1 and legend in ax.get_children()
    else:
        assert box.y1 <= ax.xaxis.label.get_window_extent(renderer).y0 and legend in fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["rising", "falling"]
    with pytest.raises(ValueError, match="where"):
        plotting.legend_outside(ax, "inside")
    plt.close("all")


def test_report_figure_appends_one_json_line_per_figure(tmp_path, monkeypatch):
    report = tmp_path / "figures.jsonl"
    monkeypatch.setenv("IBCORE_FIGURE_REPORT", str(report))
    monkeypatch.setenv("IBCORE_NOTEBOOK", "book/x.md")
    _figure_report.report_figure(_legend_figure("center"))
    _figure_report.report_figure(_legend_figure("upper left"))
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert [r["notebook"] for r in lines] == ["book/x.md"] * 2
    assert len(lines[0]["overlaps"]) == 1 and lines[1]["overlaps"] == []
    plt.close("all")
