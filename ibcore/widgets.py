"""Explorers: one widget helper that works in a live kernel *and* on the static website.

A chapter describes an explorer once, as a function that draws a figure for
one choice of parameters and a small grid of values per parameter::

    explorer(draw, {"n": [10, 20, 40], "lr": ([0.1, 0.5, 0.9], 0.5)},
             caption="Distance to the min-norm solution")

* **Live** (Binder, Colab, local Jupyter): sliders drive ``draw`` through the
  kernel, as with ``ipywidgets.interact``.
* **Static** (the website, when ``IBCORE_STATIC_WIDGETS=1`` is set, as the
  Makefile does for book builds): every frame of the grid is drawn once,
  stored as a PNG, and the sliders switch between frames in the browser with
  ``jslink``; no kernel is needed. Keep grids small (a few dozen frames).

Accessibility and print: each static frame is an ``<img>`` whose alt text is the
caption followed by the frame's parameter values; the sliders get their accessible
names and value texts from the site's script (``_static/ib-a11y.js``, the widget
manager gives them none); in print the default frame appears under its caption.
"""
from __future__ import annotations

import base64
import html
import io
import os
import warnings

__all__ = ["explorer", "static_mode"]


def static_mode() -> bool:
    """True when explorers should render precomputed frames (set ``IBCORE_STATIC_WIDGETS=1``)."""
    return os.environ.get("IBCORE_STATIC_WIDGETS", "").strip() not in ("", "0", "false", "False")


def _parse_controls(controls: dict) -> list[tuple[str, list, object]]:
    if not isinstance(controls, dict) or not controls:
        raise ValueError(f"controls must be a non-empty dict of name -> values, got {controls!r}")
    parsed = []
    for name, spec in controls.items():
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], (list, tuple)):
            values, default = list(spec[0]), spec[1]
        else:
            values = list(spec)
            default = values[len(values) // 2] if values else None
        if not values:
            raise ValueError(f"controls[{name!r}] must list at least one value, got {spec!r}")
        if default not in values:
            raise ValueError(f"default of controls[{name!r}] must be one of {values}, got {default!r}")
        parsed.append((name, values, default))
    return parsed


def _value_text(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _figure_png(fig, dpi: int) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    if os.environ.get("IBCORE_FIGURE_REPORT"):  # the frames are figures of the book too
        from ibcore._figure_report import report_figure

        report_figure(fig, drawn=True)  # laid out by savefig: no second layout pass
    plt.close(fig)
    return buf.getvalue()


def _slider(name, values, default, description=None):
    import ipywidgets as widgets

    return widgets.SelectionSlider(
        options=[(_value_text(v), v) for v in values],
        value=default, description=description or name, continuous_update=False,
        style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))


def explorer(draw, controls: dict, *, caption: str = "", labels: dict | None = None,
             static: bool | None = None, dpi: int = 80, max_frames: int = 64):
    """Build an explorer widget over a grid of parameter values.

    Parameters
    ----------
    draw : callable
        ``draw(**params) -> matplotlib.figure.Figure``; it must not show the figure.
    controls : dict
        ``name -> values`` or ``name -> (values, default)``; the default defaults
        to the middle value. Values are what ``draw`` receives.
    caption : str
        Text shown above the figure (also its description for screen readers).
    labels : dict, optional
        Slider labels per parameter name (default: the name).
    static : bool, optional
        Force static frames (True) or a live kernel-driven widget (False);
        ``None`` follows :func:`static_mode`. Static frames need ipywidgets 8:
        under ipywidgets 7 (Colab) the explorer is live, with a warning.
    dpi : int
        Resolution of the static frames.
    max_frames : int
        Refuse grids with more frames than this in static mode (page weight).

    Returns
    -------
    ipywidgets.Widget
        Display it (it is the cell's last expression).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    if not callable(draw):
        raise ValueError(f"draw must be callable, got {draw!r}")
    parsed = _parse_controls(controls)
    labels = labels or {}
    sliders = [_slider(name, values, default, labels.get(name)) for name, values, default in parsed]
    header = widgets.HTML(f"<p><em>{html.escape(caption)}</em></p>") if caption else None
    if header is not None:
        header.add_class("ib-explorer-caption")
    if static is None:
        static = static_mode()
    if static and not hasattr(widgets, "Stack"):  # ipywidgets 7 (Colab) has no Stack
        warnings.warn("precomputed explorer frames need ipywidgets 8; showing the live explorer",
                      stacklevel=2)
        static = False

    if not static:
        out = widgets.Output()

        def update(change=None):
            params = {name: s.value for (name, _, _), s in zip(parsed, sliders)}
            with out:
                out.clear_output(wait=True)
                fig = draw(**params)
                display(fig)
                plt.close(fig)  # shown once, through the Output widget only

        for s in sliders:
            s.observe(update, names="value")
        update()
        return widgets.VBox([w for w in (header, *sliders, out) if w is not None])

    n_frames = 1
    for _, values, _ in parsed:
        n_frames *= len(values)
    if n_frames > max_frames:
        raise ValueError(f"controls give {n_frames} frames, more than max_frames={max_frames}; use a coarser grid")
    def frame(params: dict):
        # an <img> with an alt text (ipywidgets' Image has none): the caption and this frame's values
        shown = ", ".join(f"{labels.get(k, k)} = {_value_text(v)}" for k, v in params.items())
        alt = html.escape(f"{caption.rstrip('.') or 'Explorer frame'} ({shown}).", quote=True)
        data = base64.b64encode(_figure_png(draw(**params), dpi)).decode("ascii")
        img = widgets.HTML(f'<img src="data:image/png;base64,{data}" alt="{alt}" style="max-width:100%">')
        img.add_class("ib-explorer-frame")
        return img

    def stack(level: int, fixed: dict):
        name, values, default = parsed[level]
        children = []
        for v in values:
            params = {**fixed, name: v}
            if level + 1 < len(parsed):
                children.append(stack(level + 1, params))
            else:
                children.append(frame(params))
        box = widgets.Stack(children, selected_index=values.index(default))
        links.append(widgets.jslink((sliders[level], "index"), (box, "selected_index")))
        return box

    links: list = []
    frames = stack(0, {})
    note = widgets.HTML('<p style="font-size:0.85em">Precomputed frames: move the sliders to switch '
                        "between them. Launch the notebook for the live explorer.</p>")
    note.add_class("ib-explorer-note")
    box = widgets.VBox([w for w in (header, *sliders, frames, note) if w is not None])
    box.add_class("ib-explorer")
    box._ib_links = links  # keep the links alive with the widget
    return box
