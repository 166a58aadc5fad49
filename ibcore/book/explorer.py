"""Explorers: one widget helper that works in a live kernel *and* on the static website.

A chapter describes an explorer once, as a function that draws a figure for
one choice of parameters and a small grid of values per parameter::

    explorer(draw, {"n": [10, 20, 40], "lr": ([0.1, 0.5, 0.9], 0.5)},
             caption="Distance to the min-norm solution")

* **Live** (Binder, Colab, local Jupyter): a slider move calls ``draw`` in the
  kernel and shows the new picture.
* **Static** (the website, when ``IBCORE_STATIC_WIDGETS=1`` is set, as the
  Makefile does for book builds): every frame of the grid is drawn once,
  stored as a PNG, and the sliders switch between frames in the browser with
  ``jslink``; no kernel is needed. Keep grids small (a few dozen frames). The
  explorer's plain text names a digest of its frames, so a chapter executed again
  (``make chapters``) must draw the same pixels.

Speed. A figure of the book costs far more to lay out and render than its
numbers cost to compute, and most of that is text (tick labels, mathtext), which
matplotlib caches per figure. So when ``draw`` has a ``fig`` parameter the explorer
builds the figure once and then hands it back, cleared, for every later frame:
``draw`` draws into it (``fig.subplots(...)``) instead of making a new one::

    def draw(n=20, lr=0.5, fig=None):
        fig = fig or plt.figure(figsize=(6.4, 3.8))
        ax = fig.subplots()
        ...
        return fig

Called without ``fig`` it is an ordinary drawing function. Either way the explorer
renders the figure itself with Agg, at twice its display resolution (as sharp as
the book's static figures) and as a PNG of at most 256 colours (light enough for
dozens of frames per page); in a live kernel a move takes one comm message, and
while the reader looks at a frame the kernel draws the frames one notch away (the
next one in the direction of the last move first), so that the next move usually
finds its frame drawn (a move waits for at most one stage, draw, render or encode,
of a frame being drawn ahead). An explorer, live or static, lays out only its first
frame (constrained layout is more than half of a frame's rendering: 180 of 310 ms for
Part II's manifold explorer) and keeps its axes where they are for the later ones, unless
that would cut text off at the figure's edge or run one axes' labels into another's (then
the frame is laid out, and its layout kept). So the axes do not jump as a
slider moves. In static mode the last frame drawn into
the reused figure is compared with a fresh ``draw`` of the same parameters (placed as that
frame was), so a ``draw`` that leaks state from one frame into the next fails the build
instead of showing a wrong picture.

Sliders and readouts. Each slider shows the value as its readout: give human
labels for values that are not (``{"power law": "power_law"}`` maps a readout to a
value); readouts have at most ``_READOUT_CHARS`` (18) characters, which the widget
libraries show whole. Within an explorer the labels and readouts take the same
width, so the slider tracks have the same length, and the sliders fill the
column (up to 40em): nothing is cut off at phone width.

Accessibility and print: each frame is an ``<img>`` whose alt text is the caption
followed by the frame's parameter values; the sliders get their accessible names
and value texts from the site's script (``_static/ib-a11y.js``, the widget manager
gives them none); in print the default frame appears under its caption.
"""
from __future__ import annotations

import functools
import html
import itertools
import os
import warnings
from dataclasses import dataclass


from .frames import _Frames

__all__ = ["explorer"]

#: Longest readout (in characters) that ipywidgets 7 and 8 show whole: their
#: readouts are at most 148 px wide and cut longer text off.
_READOUT_CHARS = 18


def _static_mode() -> bool:
    """True when explorers should render precomputed frames (set ``IBCORE_STATIC_WIDGETS=1``)."""
    return os.environ.get("IBCORE_STATIC_WIDGETS", "").strip() not in ("", "0", "false", "False")


@dataclass
class _Control:
    name: str
    label: str          # the slider's description
    readouts: list      # what the slider shows, one per value
    values: list        # what draw receives
    default: int        # index of the default value


def _readout(v) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _parse_controls(controls: dict, labels: dict) -> list[_Control]:
    if not isinstance(controls, dict) or not controls:
        raise ValueError(f"controls must be a non-empty dict of name -> values, got {controls!r}")
    parsed = []
    for name, spec in controls.items():
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], (list, tuple, dict)):
            options, default = spec
        else:
            options, default = spec, None
        if isinstance(options, dict):  # readout -> value
            readouts, values = [str(k) for k in options], list(options.values())
        else:
            values = list(options)
            readouts = [_readout(v) for v in values]
        if not values:
            raise ValueError(f"controls[{name!r}] must list at least one value, got {spec!r}")
        if default is None:
            default = values[len(values) // 2]
        if default not in values:
            raise ValueError(f"default of controls[{name!r}] must be one of {values}, got {default!r}")
        for text, v in zip(readouts, values):
            if len(text) > _READOUT_CHARS:
                raise ValueError(f"controls[{name!r}]: readout {text!r} is longer than {_READOUT_CHARS} "
                                 "characters and would be cut off; give a shorter label "
                                 "({'label': value, ...})")
            if isinstance(v, str) and text == v and "_" in v:
                raise ValueError(f"controls[{name!r}]: value {v!r} is an identifier; give it a human "
                                 f"readout ({{'{v.replace('_', ' ')}': {v!r}, ...}})")
        parsed.append(_Control(name, str(labels.get(name, name)), readouts, values, values.index(default)))
    return parsed


# ------------------------------------------------------------------ drawing and rendering
class _Prefetch:
    """Draws, while the kernel is idle, the frames one notch away from the one shown.

    A reader looks at a frame before moving a slider again: the kernel's event loop is
    free then, so the next frame is usually ready when the slider moves. First the frame
    one notch further in the direction of the last move, then the others. One stage of one
    frame (draw, render, encode) per turn of the loop, so a move that arrives meanwhile
    waits for one stage at most (and takes over the frame if it is the one being drawn);
    the frames of an earlier position are dropped when the sliders move on. Outside a
    running event loop (a script, a test) nothing is drawn ahead.
    """

    def __init__(self, frames: _Frames, drawn: dict):
        self.frames, self.drawn, self.pending, self.scheduled = frames, drawn, [], False
        self.job = None  # (indices, stages) of the frame being drawn ahead

    def frame(self, indices: tuple) -> str:
        """The ``<img>`` of a frame not drawn yet, drawn now (finishing it if it is under way)."""
        job, self.job = self.job, None  # a frame drawn now takes the figure of one under way
        stages = job[1] if job and job[0] == indices else self.frames.stages(indices)
        *_, data = stages
        return self.frames.html(indices, data)

    def around(self, indices: tuple, moved: tuple | None = None):
        """Draw ahead around ``indices``; ``moved``: (slider, +1 or -1) of the move that led here."""
        import asyncio

        near = [n for n in self._neighbours(indices) if n not in self.drawn]
        if moved:
            k, step = moved
            ahead = indices[:k] + (indices[k] + step,) + indices[k + 1:]
            near.sort(key=lambda n: n != ahead)  # stable: the others keep their order
        self.pending = near
        if self.job and self.job[0] not in near:
            self.job = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if (self.pending or self.job) and not self.scheduled:
            self.scheduled = True
            loop.call_soon(self._step, loop)

    def _neighbours(self, indices: tuple):
        for k, c in enumerate(self.frames.controls):
            for i in (indices[k] + 1, indices[k] - 1):
                if 0 <= i < len(c.values):
                    yield indices[:k] + (i,) + indices[k + 1:]

    def _step(self, loop):
        self.scheduled = False
        while self.job is None and self.pending:
            indices = self.pending.pop(0)
            if indices not in self.drawn:
                self.job = (indices, self.frames.stages(indices))
        if self.job is not None:
            indices, stages = self.job
            try:
                data = next(stages)
            except Exception:  # noqa: BLE001 - the move to this frame draws it again and shows the error
                data, self.job = None, None
            if data is not None:
                self.drawn[indices], self.job = self.frames.html(indices, data), None
        if self.pending or self.job:
            self.scheduled = True
            loop.call_soon(self._step, loop)


def _style(controls: list[_Control]) -> tuple[str, str]:
    """Equal slider tracks: every readout of the explorer as wide as its widest.

    An inline ``<style>`` (ipywidgets has no trait for it), so that Jupyter and Colab get
    it too; scoped to the explorer's class, and more specific than the widgets' own rule.
    Returns the style element and the class.
    """
    chars = max(len(t) for c in controls for t in c.readouts)
    scope = f"ib-explorer-r{chars}"
    return (f"<style>.ib-explorer.{scope} .widget-readout {{ width: {chars + 2}ch; "
            f"min-width: {chars + 2}ch; max-width: none; flex: none; }}</style>"), scope


@functools.cache
def _explorer_box():
    import ipywidgets as widgets

    class Explorer(widgets.VBox):
        """An explorer's box. Its ``text`` is its plain-text form (``_Frames.text``): ipywidgets
        shows ``repr(widget)`` as a widget's ``text/plain``, a VBox's repr begins with its
        first child's style sheet."""
        text = ""

        def __repr__(self):
            return self.text

    return Explorer


def _box(children: list, style_class: str, text: str):
    box = _explorer_box()(children)
    box.text = text
    box.add_class("ib-explorer")
    box.add_class(style_class)
    return box


def _sliders(controls: list[_Control]):
    """One slider per control, filling the column up to 40em, their labels as wide as the widest."""
    import ipywidgets as widgets

    label = max(len(c.label) for c in controls)
    return [widgets.SelectionSlider(
        options=list(zip(c.readouts, c.values)), value=c.values[c.default], description=c.label,
        continuous_update=False, style={"description_width": f"{label + 1}ch"},
        layout=widgets.Layout(width="100%", max_width="40em")) for c in controls]


def explorer(draw, controls: dict, *, caption: str = "", labels: dict | None = None,
             static: bool | None = None, dpi: int = 100, max_frames: int = 64):
    """Build an explorer widget over a grid of parameter values.

    Parameters
    ----------
    draw : callable
        ``draw(**params) -> matplotlib.figure.Figure``; it must not show the figure.
        If it has a parameter ``fig``, later frames pass the first frame's figure back,
        cleared, and ``draw`` must draw into it and return it (much faster: see the
        module's notes).
    controls : dict
        ``name -> values`` or ``name -> (values, default)``; the default defaults
        to the middle value. Values are what ``draw`` receives; ``values`` may be a
        dict ``readout -> value`` to show a human label for each value.
    caption : str
        Text shown above the figure (also its description for screen readers).
    labels : dict, optional
        Slider labels per parameter name (default: the name).
    static : bool, optional
        Force static frames (True) or a live kernel-driven widget (False);
        ``None`` follows ``_static_mode()``. Static frames need ipywidgets 8:
        under ipywidgets 7 (Colab) the explorer is live, with a warning.
    dpi : int
        Display resolution of the frames (pixels per inch of the figure's size);
        they are rendered at twice this.
    max_frames : int
        Refuse grids with more frames than this in static mode (page weight).

    Returns
    -------
    ipywidgets.VBox
        Display it (it is the cell's last expression). Its plain-text form (the cell's
        ``text/plain``) names, static, the number of frames and a digest of their PNGs,
        which nbval compares when a chapter runs again, then the caption.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from ibcore.book import explorer
    >>> def draw(slope=1.0, fig=None):
    ...     fig = fig or plt.figure(figsize=(3, 2))
    ...     fig.subplots().plot([0, 1], [0, slope])
    ...     return fig
    ...
    >>> widget = explorer(draw, {"slope": [0.5, 1.0, 2.0]}, caption="A line of the chosen slope.", static=True)
    >>> print(repr(widget).split(", sha256")[0])   # the plain-text form names the frames
    Explorer of 3 frames
    """
    import ipywidgets as widgets

    if not callable(draw):
        raise ValueError(f"draw must be callable, got {draw!r}")
    parsed = _parse_controls(controls, labels or {})
    sliders = _sliders(parsed)
    style, style_class = _style(parsed)
    header = widgets.HTML(style + (f"<p><em>{html.escape(caption)}</em></p>" if caption else ""))
    header.add_class("ib-explorer-caption")
    if static is None:
        static = _static_mode()
    if static and not hasattr(widgets, "Stack"):  # ipywidgets 7 (Colab) has no Stack
        warnings.warn("precomputed explorer frames need ipywidgets 8; showing the live explorer",
                      stacklevel=2)
        static = False
    frames = _Frames(draw, parsed, caption, dpi)
    default = tuple(c.default for c in parsed)

    if not static:
        drawn = {default: frames.html(default, frames.png(default))}  # frames drawn so far
        picture = widgets.HTML(drawn[default])
        picture.add_class("ib-explorer-frame")
        ahead = _Prefetch(frames, drawn)
        ahead.around(default)
        shown = [default]

        def update(change=None):
            indices = tuple(s.index for s in sliders)
            if indices not in drawn:  # draw is deterministic: a frame seen before is reused
                drawn[indices] = ahead.frame(indices)
            picture.value = drawn[indices]
            moved = [(k, 1 if i > j else -1) for k, (i, j) in enumerate(zip(indices, shown[0])) if i != j]
            shown[0] = indices
            ahead.around(indices, moved[0] if len(moved) == 1 else None)

        for s in sliders:
            s.observe(update, names="index")
        return _box([header, *sliders, picture], style_class, frames.text())

    n_frames = 1
    for c in parsed:
        n_frames *= len(c.values)
    if n_frames > max_frames:
        raise ValueError(f"controls give {n_frames} frames, more than max_frames={max_frames}; use a coarser grid")
    pictures = {}
    for indices in itertools.product(*(range(len(c.values)) for c in parsed)):
        pictures[indices] = frames.png(indices)
    if frames.reuse and n_frames > 1 and frames.fresh_png(indices) != pictures[indices]:
        raise ValueError(f"draw(fig=...) drew a different picture into the reused figure than into a new "
                         f"one ({frames._name(indices)}): it keeps state from an earlier frame")

    def stack(level: int, fixed: tuple):
        children = []
        for i in range(len(parsed[level].values)):
            if level + 1 < len(parsed):
                children.append(stack(level + 1, fixed + (i,)))
            else:
                img = widgets.HTML(frames.html(fixed + (i,), pictures[fixed + (i,)]))
                img.add_class("ib-explorer-frame")
                children.append(img)
        box = widgets.Stack(children, selected_index=parsed[level].default)
        links.append(widgets.jslink((sliders[level], "index"), (box, "selected_index")))
        return box

    links: list = []
    shown = stack(0, ())
    note = widgets.HTML('<p style="font-size:0.85em">Precomputed frames: move the sliders to switch '
                        "between them. Launch the notebook for the live explorer.</p>")
    note.add_class("ib-explorer-note")
    box = _box([header, *sliders, shown, note], style_class, frames.text(pictures))
    box._ib_links = links  # keep the links alive with the widget
    return box
