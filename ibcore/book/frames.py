"""How an explorer draws and renders its frames: one figure reused, laid out once, PNGs of 256 colours.

See ``ibcore.book.explorer`` for what an explorer is; this module is its rendering.
"""
from __future__ import annotations

import base64
import hashlib
import html
import inspect
import io
import itertools
import os

#: Frames are rendered at this multiple of their display resolution (retina).
SCALE = 2



def _takes_figure(draw) -> bool:
    try:
        return "fig" in inspect.signature(draw).parameters
    except (TypeError, ValueError):
        return False


def _render(fig, dpi: int, layout: bool = True):
    """The figure's RGB pixels, rendered by Agg at ``dpi`` (``layout=False``: axes where they are)."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg) or fig.dpi != dpi:
        fig.dpi = dpi
        FigureCanvasAgg(fig)  # our own canvas: the same pixels whatever the kernel's backend
    engine = fig.get_layout_engine()
    if not layout and engine is not None:
        fig.set_layout_engine("none")
    try:
        fig.canvas.draw()
    finally:
        if fig.get_layout_engine() is not engine:
            fig.set_layout_engine(engine)
    return np.ascontiguousarray(np.asarray(fig.canvas.buffer_rgba())[..., :3])  # the figures are opaque


def _render_placed(fig, dpi: int, layout) -> tuple:
    """The figure's pixels with its axes placed as ``layout`` (a ``_layout_of``), when that
    applies to it, else laid out; and whether they were placed."""
    placed = layout is not None and _apply_layout(fig, layout)
    return _render(fig, dpi, layout=not placed), placed


def _encode(rgb) -> bytes:
    """RGB pixels as a PNG of at most 256 colours."""
    from PIL import Image

    no_dither = Image.Dither.NONE if hasattr(Image, "Dither") else Image.NONE  # Pillow < 9.1
    image = Image.fromarray(rgb).quantize(256, method=Image.Quantize.FASTOCTREE, dither=no_dither)
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=6)
    return buf.getvalue()


_SUPER_TEXTS = ("_suptitle", "_supxlabel", "_supylabel")


def _layout_of(fig):
    """Where the figure's layout engine put its axes and titles (None: it has no engine)."""
    if fig.get_layout_engine() is None:
        return None
    return (tuple(fig.get_size_inches()), [ax.get_position(original=True).frozen() for ax in fig.axes],
            [t and t.get_position() for t in (getattr(fig, a, None) for a in _SUPER_TEXTS)])


def _blank_edges(rgb, width: int = 2) -> bool:
    """Whether the picture's outermost pixels are all white: nothing cut off at its edges."""
    return all((band >= 250).all() for band in (rgb[:width], rgb[-width:], rgb[:, :width], rgb[:, -width:]))


def _fits(fig) -> bool:
    """Whether every axes, with its tick labels and titles, lies inside the (rendered) figure
    and clear of the others (colorbars aside), as constrained layout places them."""
    renderer, page = fig.canvas.get_renderer(), fig.bbox
    boxes = [(ax.get_tightbbox(renderer, for_layout_only=True), hasattr(ax, "_colorbar")) for ax in fig.axes]
    boxes = [(b, bar) for b, bar in boxes if b is not None]
    if not all(page.x0 - 1 <= b.x0 and b.x1 <= page.x1 + 1 and page.y0 - 1 <= b.y0 and b.y1 <= page.y1 + 1
               for b, _ in boxes):
        return False
    return not any(a.overlaps(b) for (a, bar_a), (b, bar_b) in itertools.combinations(boxes, 2)
                   if not (bar_a or bar_b))


def _apply_layout(fig, layout) -> bool:
    """Put the axes and titles where ``layout`` has them, if the figure has the same ones."""
    size, boxes, texts = layout
    supers = [getattr(fig, a, None) for a in _SUPER_TEXTS]
    if (tuple(fig.get_size_inches()) != size or len(fig.axes) != len(boxes)
            or [t is None for t in supers] != [t is None for t in texts]):
        return False
    for ax, box in zip(fig.axes, boxes):
        ax.set_position(box)
        ax.set_in_layout(True)  # set_position takes it out, and a frame that needs a layout gets one
    for text, xy in zip(supers, texts):
        if text is not None:
            text.set_position(xy)
    return True


class _Frames:
    """Draws and renders the frames of one explorer, reusing one figure when ``draw`` allows it."""

    def __init__(self, draw, controls: list, caption: str, dpi: int):
        self.draw, self.controls, self.caption, self.dpi = draw, controls, caption, dpi
        self.reuse = _takes_figure(draw)
        self.fig = None
        self.layout, self.relaid = None, False  # the layout kept from the first frame (or a later one)
        # how the last frame was rendered: the layout it was placed with (None: laid out at
        # once), and whether it was then laid out all the same
        self.last = (None, False)

    def params(self, indices) -> dict:
        return {c.name: c.values[i] for c, i in zip(self.controls, indices)}

    def figure(self, indices):
        """The figure of one frame (the first one, cleared and drawn again, when ``draw`` takes ``fig``)."""
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure

        params = self.params(indices)
        if self.fig is not None:
            self.fig.clear()
            fig = self.draw(**params, fig=self.fig)
            if fig is not self.fig:
                raise ValueError(f"draw(fig=...) must draw into the figure it is given and return it "
                                 f"({self._name(indices)})")
            return fig
        fig = self.draw(**params)
        if not isinstance(fig, Figure):
            raise ValueError(f"draw must return a matplotlib Figure, got {type(fig).__name__} "
                             f"({self._name(indices)})")
        plt.close(fig)  # shown through the explorer only, never by the inline backend
        if self.reuse:
            self.fig = fig
        return fig

    def stages(self, indices):
        """Draw, render and encode one frame, yielding between the three: frames drawn ahead
        give way to a slider move between stages. The last item is the PNG."""
        fig = self.figure(indices)
        yield
        tried = self.layout
        rgb, frozen = _render_placed(fig, SCALE * self.dpi, tried)
        # text cut off at the edge (or, with a layout kept from a later frame, axes run into
        # each other): lay this frame out, and keep its layout
        relaid = frozen and not (_blank_edges(rgb) and (not self.relaid or _fits(fig)))
        if relaid:
            rgb, self.layout, self.relaid = _render(fig, SCALE * self.dpi), None, True
        self.last = (tried if frozen else None, relaid)
        if self.layout is None:
            self.layout = _layout_of(fig)
        record = None
        if os.environ.get("IBCORE_FIGURE_REPORT"):  # the frames are figures of the book too
            from .figure_report import figure_record

            # laid out by the render (no second layout pass); shown at the PNG's size / SCALE
            record = figure_record(fig, drawn=True, css_width=rgb.shape[1] // SCALE, css_dpi=self.dpi,
                                   kind="frame", explorer=self.caption, frame=self._name(indices))
        yield
        data = _encode(rgb)
        if record is not None:
            from .figure_report import png_digest, write_record

            write_record({**record, "digest": png_digest(data)})
        yield data

    def png(self, indices) -> bytes:
        *_, data = self.stages(indices)
        return data

    def fresh_png(self, indices) -> bytes:
        """The last frame drawn again into a new figure, as without reuse, and rendered by the
        same steps as that frame (placed, and then laid out if it was)."""
        import matplotlib.pyplot as plt

        fig = self.draw(**self.params(indices))
        plt.close(fig)
        tried, relaid = self.last
        rgb, _ = _render_placed(fig, SCALE * self.dpi, tried)
        if relaid:  # a layout's outcome depends on where the axes were: the same start
            rgb = _render(fig, SCALE * self.dpi)
        return _encode(rgb)

    def _name(self, indices) -> str:
        return ", ".join(f"{c.label} = {c.readouts[i]}" for c, i in zip(self.controls, indices))

    def text(self, pictures: dict | None = None) -> str:
        """The explorer's plain-text form, its cell's ``text/plain`` output.

        Static, it names a digest of every frame's PNG: nbval compares a cell's text output
        with the build's (the widget's own output is a model id, never compared), so a frame
        that comes out differently when the chapter runs again fails ``make chapters``.
        """
        what = f": {self.caption}" if self.caption else ""
        if pictures is None:
            return f"Live explorer{what}"
        digest = hashlib.sha256()
        for indices in sorted(pictures):
            digest.update(pictures[indices])
        # first: ipywidgets cuts a widget's text after 110 characters
        return f"Explorer of {len(pictures)} frames, sha256 {digest.hexdigest()[:16]}{what}"

    def html(self, indices, data: bytes) -> str:
        """An ``<img>`` of one frame, with an alt text (the caption and the frame's values)."""
        alt = html.escape(f"{self.caption.rstrip('.') or 'Explorer frame'} ({self._name(indices)}).", quote=True)
        # shown at its display size: the PNG's size (its header) over the rendering scale
        width, height = (int.from_bytes(data[k:k + 4], "big") // SCALE for k in (16, 20))
        src = base64.b64encode(data).decode("ascii")
        return (f'<img src="data:image/png;base64,{src}" alt="{alt}" width="{width}" height="{height}" '
                f'style="max-width:100%;height:auto">')


