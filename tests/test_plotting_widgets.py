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

from ibcore import progress  # noqa: E402
from ibcore.book import figure_report as _figure_report  # noqa: E402
from ibcore.book import frames as frames_module  # noqa: E402
from ibcore.book import style as plotting  # noqa: E402
from ibcore.book.explorer import explorer, _static_mode  # noqa: E402


def test_house_style_is_white_colourblind_safe_and_undotted():
    plotting._use_house_style()
    rc = matplotlib.rcParams
    assert rc["figure.facecolor"] == "white" and rc["savefig.facecolor"] == "white"
    cycle = rc["axes.prop_cycle"].by_key()
    assert cycle["color"][:3] == [plotting.PALETTE["blue"], plotting.PALETTE["vermillion"], plotting.PALETTE["green"]]
    assert ":" not in cycle["linestyle"], "dotted lines are reserved for predictions"


def _draw(a, b):
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [a, b])
    return fig


def _draw_into(a, b=1.0, fig=None):
    """The same picture, drawn into the figure it is given (the explorer's fast path)."""
    fig = fig or plt.figure(figsize=(2, 1.5))
    ax = fig.subplots()
    ax.plot([0, 1], [a, b])
    ax.set_title(f"a = {a}")
    return fig


def _all_children(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_children(child)


def _frames(box):
    return [w for w in _all_children(box) if "ib-explorer-frame" in w._dom_classes]


def _png_of(frame):
    found = re.fullmatch(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)" width="(\d+)" height="(\d+)" '
                         r'style="max-width:100%;height:auto">', frame.value)
    assert found, frame.value[:200]
    return base64.b64decode(found.group(1)), found.group(2), int(found.group(3)), int(found.group(4))


def _pixels(png):
    from PIL import Image
    import io

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_static_explorer_holds_one_frame_per_grid_point_linked_to_its_sliders():
    box = explorer(_draw, {"a": [1, 2, 3], "b": ([0.5, 1.5], 1.5)}, caption="A test.", labels={"b": "β"},
                   static=True)
    nodes = list(_all_children(box))
    frames = _frames(box)
    assert len(frames) == 6
    png, alt, width, height = _png_of(frames[0])
    assert png[:4] == b"\x89PNG"
    assert alt == "A test (a = 1, β = 0.5).", "alt text: the caption and the frame's values"
    assert (width, height) == (200, 150), "shown at the figure's size at 100 dpi"
    assert _pixels(png).shape[:2] == (300, 400), "rendered at twice that (retina)"
    stacks = [w for w in nodes if isinstance(w, widgets.Stack)]
    assert len(stacks) == 1 + 3, "one stack for a, one per value of a for b"
    assert stacks[0].selected_index == 1 and stacks[1].selected_index == 1, "defaults: middle a, b = 1.5"
    assert len(box._ib_links) == 4
    sliders = [w for w in nodes if isinstance(w, widgets.SelectionSlider)]
    assert [s.description for s in sliders] == ["a", "β"]
    assert "ib-explorer" in box._dom_classes


@pytest.mark.parametrize("draw", [_draw_into, lambda a, b: _draw_into(a, b)], ids=["reused", "new figures"])
def test_static_frames_are_what_draw_draws_for_their_values(draw):
    from ibcore.book.frames import SCALE

    from ibcore.book.frames import _apply_layout, _encode, _layout_of, _render

    grid = {"a": [1, 2, 3], "b": [0.5, 1.5]}
    frames = _frames(explorer(draw, grid, static=True))
    layout = None  # the first frame is laid out, the others placed as it (their text fits)
    for frame, (a, b) in zip(frames, [(a, b) for a in grid["a"] for b in grid["b"]]):
        fig = _draw_into(a, b)
        placed = layout is not None and _apply_layout(fig, layout)
        expected = _encode(_render(fig, SCALE * 100, layout=not placed))
        layout = layout or _layout_of(fig)
        plt.close(fig)
        np.testing.assert_array_equal(_pixels(_png_of(frame)[0]), _pixels(expected))
    light = _encode(_render(_draw_into(1), 200))
    assert _pixels(light).shape == (300, 400, 3) and len(light) < 12_000, "a palette PNG"
    plt.close("all")


def test_the_plain_text_of_a_static_explorer_names_a_digest_of_its_frames():
    """nbval compares a cell's text/plain with the build's: the digest makes it compare the frames."""
    import hashlib

    from IPython.core.formatters import DisplayFormatter

    grid = {"a": [1, 2, 3], "b": [0.5, 1.5]}
    caption = "A test whose caption is as long as the book's longest, and longer: " + "words " * 20
    box = explorer(_draw_into, grid, caption=caption, static=True)
    pngs = [_png_of(f)[0] for f in _frames(box)]  # in grid order, as the digest takes them
    digest = f"Explorer of 6 frames, sha256 {hashlib.sha256(b''.join(pngs)).hexdigest()[:16]}"
    assert repr(box) == f"{digest}: {caption}"
    data, _ = DisplayFormatter().format(box)
    assert data["text/plain"].startswith(digest), "the cell's text output, as the kernel sends it (cut short)"
    assert "application/vnd.jupyter.widget-view+json" in data, "still displayed as a widget"
    assert repr(explorer(_draw_into, grid, caption=caption, static=True)) == repr(box), "the same frames again"
    shifted = explorer(lambda a, b, fig=None: _draw_into(a, b + 0.1 * (a == 3), fig=fig), grid,
                       caption=caption, static=True)
    assert not repr(shifted).startswith(digest), "one frame drawn differently changes the digest"
    assert repr(explorer(_draw_into, grid, caption="A test.", static=False)) == "Live explorer: A test."
    plt.close("all")


def test_explorer_reuses_the_figure_of_a_draw_that_takes_it():
    seen = []

    def draw(a, fig=None):
        seen.append(fig)
        return _draw_into(a, fig=fig)

    box = explorer(draw, {"a": [1, 2, 3]}, static=False)
    slider = next(w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider))
    slider.value = 3
    slider.value = 1
    assert seen[0] is None and seen[1] is not None and seen[2] is seen[1], "built once, then reused"
    assert len(seen[2].axes) == 1, "cleared before each frame"
    assert plt.get_fignums() == [], "the explorer's figure is not left to the inline backend"


def test_a_draw_that_leaks_state_between_frames_fails_the_static_build():
    def leaky(a, fig=None):
        if fig is None:
            fig = plt.figure(figsize=(2, 1.5))
            fig.suptitle("drawn only on the first frame")
        fig.subplots().plot([0, 1], [a, a])
        return fig

    with pytest.raises(ValueError, match="keeps state from an earlier frame"):
        explorer(leaky, {"a": [1, 2]}, static=True)
    with pytest.raises(ValueError, match="must draw into the figure"):
        explorer(lambda a, fig=None: _draw_into(a), {"a": [1, 2]}, static=True)
    plt.close("all")


def test_live_explorer_redraws_when_a_slider_moves():
    calls = []

    def draw(a):
        calls.append(a)
        return _draw(a, a)

    box = explorer(draw, {"a": [1, 2, 3]}, static=False)
    slider = next(w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider))
    (frame,) = _frames(box)
    before = frame.value
    assert calls == [2] and "a = 2" in _png_of(frame)[1]
    slider.value = 3  # what a browser's move does: the observer of the slider's index redraws
    assert calls == [2, 3]
    assert frame.value != before and "a = 3" in _png_of(frame)[1]
    assert plt.get_fignums() == []


def test_live_explorer_draws_the_neighbouring_frames_while_the_kernel_is_idle():
    import asyncio

    calls = []

    def draw(a, b):
        calls.append((a, b))
        return _draw(a, b)

    async def reader():
        box = explorer(draw, {"a": [1, 2, 3], "b": [10, 20, 30]}, static=False)
        a, b = [w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider)]
        (frame,) = _frames(box)
        assert calls == [(2, 20)], "nothing drawn ahead before the kernel is idle"
        for _ in range(10):  # the event loop's turns while the reader looks at the frame
            await asyncio.sleep(0)
        assert sorted(calls[1:]) == [(1, 20), (2, 10), (2, 30), (3, 20)], "one notch away"
        a.value = 3  # drawn ahead: shown at once, without drawing
        assert len(calls) == 5 and "a = 3, b = 20" in _png_of(frame)[1]
        b.value = 30  # a move before the look ends: drawn at once (nothing is ahead yet)
        assert calls[-1] == (3, 30) and "a = 3, b = 30" in _png_of(frame)[1]
        for _ in range(10):
            await asyncio.sleep(0)
        # (3, 10), one notch from the earlier position, is dropped; (2, 30) was drawn before
        assert calls[6:] == [], calls[6:]
        b.value = 10  # two notches: not drawn ahead
        assert calls[-1] == (3, 10)

    asyncio.run(reader())
    assert plt.get_fignums() == []


def test_frames_keep_the_first_frames_layout_live_and_static():
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    plotting._use_house_style()  # constrained layout
    executed = []
    execute = ConstrainedLayoutEngine.execute

    def counting(self, fig):
        executed.append(fig)
        return execute(self, fig)

    def draw(a, fig=None):  # the y tick labels get much wider for a large a
        fig = fig or plt.figure(figsize=(3, 2))
        ax = fig.subplots()
        ax.plot([0, 1], [0, a])
        ax.set_yticks([0, a], ["0", f"a = {a:,}" if a > 2 else str(a)])
        ax.set_ylabel("y")
        return fig

    try:
        ConstrainedLayoutEngine.execute = counting
        box = explorer(draw, {"a": ([1, 2, 10_000], 1)}, static=False)
        slider = next(w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider))
        fig = executed[0]
        first = fig.axes[0].get_position().bounds
        slider.value = 2
        assert len(executed) == 1, "one layout, for the first frame"
        assert fig.axes[0].get_position().bounds == first, "later frames: the axes where they were"
        assert fig.get_layout_engine() is not None, "the engine stays for the frames that need it"
        slider.value = 10_000  # tick labels too wide for the first frame's margin: laid out
        assert len(executed) == 2 and frames_module._fits(fig)
        executed.clear()
        explorer(draw, {"a": ([1, 2, 10_000], 1)}, static=True)
        # static: the first frame laid out, the second placed as it, the third too wide for
        # it: laid out, and the fresh frame that checks reuse laid out as that third one was
        assert len(executed) == 3, executed
        executed.clear()
        box = explorer(draw, {"a": ([1, 2], 1)}, static=True)
        assert len(executed) == 1, "static: one layout; the fresh frame placed as the last"
        first, second = (_png_of(f)[0] for f in _frames(box))
        assert first != second
    finally:
        ConstrainedLayoutEngine.execute = execute
        plotting.mpl.rcdefaults()
        plt.close("all")


def test_drawing_ahead_starts_in_the_direction_of_the_move_and_gives_way_between_stages():
    import asyncio

    calls = []

    def draw(a, b):
        calls.append((a, b))
        return _draw(a, b)

    async def reader():
        box = explorer(draw, {"a": [1, 2, 3, 4], "b": [10, 20, 30]}, static=False)  # at (3, 20)
        a, b = [w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider)]
        for _ in range(20):
            await asyncio.sleep(0)
        a.value = 2  # down one notch, drawn ahead
        await asyncio.sleep(0)
        assert calls[-1] == (1, 20), "the frame one notch further in the direction of the move first"
        calls.clear()
        b.value = 30  # a move while (1, 20) is drawn, not yet rendered: its own frame at once
        assert calls == [(2, 30)] and "a = 2, b = 30" in _png_of(_frames(box)[0])[1]
        for _ in range(20):
            await asyncio.sleep(0)
        calls.clear()
        b.value = 20  # back down, drawn before
        assert calls == []
        await asyncio.sleep(0)
        assert calls == [(2, 10)], "one notch further down: its first stage"
        b.value = 10  # the frame under way is taken over, not drawn twice
        assert calls == [(2, 10)] and "a = 2, b = 10" in _png_of(_frames(box)[0])[1]

    asyncio.run(reader())
    assert plt.get_fignums() == []


def test_readouts_are_human_labels_of_equal_width_sliders():
    box = explorer(_draw, {"a": ({"one": 1, "two": 2}, 2), "b": [0.5, 10_000]}, labels={"a": "first a"},
                   static=False)
    sliders = [w for w in _all_children(box) if isinstance(w, widgets.SelectionSlider)]
    assert sliders[0]._options_labels == ("one", "two") and sliders[0].value == 2
    assert sliders[1]._options_labels == ("0.5", "10,000")
    assert len({s.style.description_width for s in sliders}) == 1, "labels as wide as each other"
    assert all(s.layout.width == "100%" for s in sliders), "fluid: the sliders fill the column"
    readout = next(c for c in box._dom_classes if c.startswith("ib-explorer-r"))
    assert f".{readout} .widget-readout" in box.children[0].value, "readouts as wide as each other"
    with pytest.raises(ValueError, match="human"):
        explorer(_draw, {"a": ["power_law", "spiked"], "b": [1]}, static=True)
    with pytest.raises(ValueError, match="cut off"):
        explorer(_draw, {"a": {"a readout much too long to show": 1}, "b": [1]}, static=True)
    plt.close("all")


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
    assert _static_mode()
    monkeypatch.setenv("IBCORE_STATIC_WIDGETS", "0")
    assert not _static_mode()
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
    plotting._use_house_style()
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

    plotting._use_house_style()
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
    plotting._use_house_style()
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


def test_lettering_finds_the_smallest_text_of_each_kind():
    plotting._use_house_style()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.imshow([[0.1, 0.9], [0.5, 0.3]])
    ax.text(0, 0, "0.1", fontsize=6)  # a heatmap's number
    ax.set_xticks([0, 1], ["a", "b"], fontsize=8)
    ax.set(xlabel="x", title="t")
    ax.plot([], [], label="entry")
    ax.legend(fontsize=9)
    fig.draw_without_rendering()
    found = _figure_report.lettering(fig)
    assert found["annotation"] == {"pt": 6.0, "text": "0.1"}
    assert found["tick"]["pt"] == 8.0 and found["legend"]["pt"] == 9.0
    assert found["label"]["pt"] == matplotlib.rcParams["axes.labelsize"]
    record = _figure_report.figure_record(fig, css_width=400, css_dpi=100)
    assert _figure_report.effective_px(record) == (pytest.approx(6 / 72 * 100), "annotation", "0.1")
    assert _figure_report.effective_px(record, 200)[0] == pytest.approx(6 / 72 * 100 / 2), "shown at half width"
    plt.close("all")


def test_illegible_names_the_screens_where_the_smallest_letter_is_too_small():
    plotting._use_house_style()
    lettering = lambda pt: {"tick": {"pt": pt, "text": "10"}}  # noqa: E731
    # 11 pt in an 11-inch figure: 15.3 px at its natural width, shown 700 px wide on a laptop
    # (9.6 px) and 322 px wide on a phone (4.4 px); 10 pt, as issue 37 measured, fails on both
    wide = {"css_width": 1111, "css_dpi": 100, "lettering": lettering(11)}
    assert [p.split(" at ")[1].split(" ")[0] for p in _figure_report.illegible(wide)] == ["390"]
    assert len(_figure_report.illegible({**wide, "lettering": lettering(10)})) == 2
    # the house style: 11 pt in a figure of two panels (6.8 in, 691 px with IPython's margins)
    assert _figure_report.illegible({"css_width": 691, "css_dpi": 100, "lettering": lettering(11)}) == []
    assert _figure_report.illegible({**wide, "lettering": {}}) == [], "a figure without text has none too small"
    # measured widths replace the column's, for the screens they name
    assert _figure_report.illegible(wide, widths={390: 342})
    assert not _figure_report.illegible(wide, widths={390: 1111, 1280: 1111})
    assert not _figure_report.illegible({**wide, "lettering": lettering(10)}, widths={1280: 800})


@pytest.mark.parametrize("shape, extra, expected", [((1, 3), None, 3), ((3, 1), None, 1), ((2, 2), None, 2),
                                                    ((1, 1), "colorbar", 1), ((1, 2), "twin", 2)])
def test_panels_in_a_row_counts_axes_side_by_side(shape, extra, expected):
    plotting._use_house_style()
    fig, axes = plt.subplots(*shape, figsize=(6, 4), squeeze=False)
    if extra == "colorbar":
        fig.colorbar(axes[0, 0].imshow([[0, 1]]), ax=axes[0, 0])
    if extra == "twin":
        axes[0, 0].twinx()
    fig.draw_without_rendering()
    assert _figure_report.panels_in_a_row(fig) == expected
    plt.close("all")


def test_a_displayed_figure_is_recorded_at_its_css_width_with_its_digest(tmp_path, monkeypatch):
    """The extension records a figure as IPython shows it: retina PNG, half its pixels wide."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats

    report = tmp_path / "figures.jsonl"
    monkeypatch.setenv("IBCORE_FIGURE_REPORT", str(report))
    shell = InteractiveShell.instance()
    select_figure_formats(shell, {"retina"}, bbox_inches="tight")
    _figure_report.watch_displayed_figures(shell)
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    data, meta = shell.display_formatter.format(fig)
    png = base64.b64decode(data["image/png"])
    (record,) = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["css_width"] == meta["image/png"]["width"] == int.from_bytes(png[16:20], "big") // 2
    assert record["css_dpi"] == 100 and record["kind"] == "figure" and record["width_in"] == 4
    assert record["digest"] == _figure_report.png_digest(png)
    plt.close("all")
