"""Computed numbers, tables and figures into the page: myst-nb's ``glue`` and ``show``.

A number in the prose comes from a computation: the chapter glues it (:func:`~ibcore.book.glue_text`,
or :func:`ibcore.book.glue_estimate` for a measured number with its interval) and the
text pastes it with ``{glue:md}`name```. A table is shown with :func:`~ibcore.book.show`, rounded the
same way in every chapter.
"""
from __future__ import annotations

__all__ = ["glue", "glue_text", "glue_figure", "show", "figure_html"]

try:  # the book build puts glued numbers into the text, captions and alt texts
    from myst_nb import glue
except ImportError:  # Colab and Binder have no myst_nb: the notebook does not render them
    def glue(name, value, display=True):
        """Stand-in for :func:`myst_nb.glue` outside the book build: shows nothing."""
        return None


class _Table:
    """A DataFrame as the book shows it: rounded, without the index, with a caption.

    In a notebook and on the site it renders as a styled HTML table; its plain-text form
    (what nbval compares and what a terminal prints) is the DataFrame's own text, so that
    executing a chapter twice prints the same thing.
    """

    def __init__(self, frame, *, digits: int = 3, caption: str | None = None):
        self.frame, self.digits, self.caption = frame, digits, caption

    def _repr_html_(self) -> str:
        import hashlib

        styler = self.frame.style.format(precision=self.digits).hide(axis="index")
        # the class that the theme styles as a table in both themes (without it, the dark
        # theme puts the output on a light box and leaves the caption's muted colour)
        styler = styler.set_table_attributes('class="dataframe"')
        if self.caption:
            styler = styler.set_caption(self.caption)
        # a stable id: the default is random, which would change the page at every build
        key = hashlib.sha256(self.frame.to_csv().encode()).hexdigest()[:10]
        return styler.set_uuid(f"ib{key}").to_html()

    def __repr__(self) -> str:
        text = self.frame.to_string(index=False, float_format=lambda v: f"{v:.{self.digits}f}")
        return f"{self.caption}\n{text}" if self.caption else text


def show(frame, *, digits: int = 3, caption: str | None = None) -> None:
    """Display a DataFrame (a sweep table or a summary) rounded to ``digits`` decimals, now.

    The table is displayed where the call stands, not returned: a returned table would
    render only as its cell's last expression, and an evidence cell that goes on after it
    would lose it. A meaningful index (not 0, 1, 2, ...) becomes the first column, since the
    book's tables hide the index.

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.book import show
    >>> show(pd.DataFrame({"d": [400, 1600], "gap": [0.2467, 0.1234]}), digits=2)
       d  gap
     400 0.25
    1600 0.12
    >>> show(pd.DataFrame({"run": [0.5, 0.25]}, index=["norm", "risk"]), digits=1)
          run
    norm  0.5
    risk  0.2
    """
    from IPython.display import display

    display(table(frame, digits=digits, caption=caption))


def table(frame, *, digits: int = 3, caption: str | None = None) -> _Table:
    """The object :func:`show` displays: rich HTML in a notebook, the DataFrame's text elsewhere.

    Examples
    --------
    >>> import pandas as pd
    >>> from ibcore.book.glue import table
    >>> print(repr(table(pd.DataFrame({"gap": [0.2467]}), caption="one run")))
    one run
      gap
    0.247
    """
    import pandas as pd

    if not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None:
        frame = frame.reset_index(names=[name or "" for name in frame.index.names])
    return _Table(frame, digits=digits, caption=caption)


class GluedText:
    """A text to glue: the same string as Markdown and as plain text (no quotes, no repr).

    The plain text is what ``{glue:text}`` pastes, also from another page
    (``{glue:text}`chapter.md::name```, the review pages); the Markdown is what ``{glue:md}``
    renders. Maths in it (``$b_0$``) is typeset only when pasted as MyST,
    ``{glue:md}`name:myst```: the role reads plain CommonMark otherwise.
    """

    def __init__(self, text: str):
        self.text = str(text)

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


def glue_text(name: str, text: str) -> None:
    """Glue a text for the prose: ``{glue:md}`name``` renders it inline (no quotes), and
    ``{glue:md}`name:myst``` with its maths typeset.

    Another page pastes it with ``{glue:text}`path/to/chapter.md::name``` (Sphinx resolves
    such cross-page references after every chapter has executed).

    Examples
    --------
    >>> from ibcore.book import glue_text
    >>> glue_text("gap_words", "about $0.25$")   # pasted by {glue:md}`gap_words:myst`
    """
    glue(name, GluedText(text), display=False)


def figure_html(fig, *, alt: str, caption: str = "", dpi: int = 200) -> str:
    """``fig`` as an HTML ``<figure>``: a PNG (inline, ``dpi``), its alt text and its caption.

    The image keeps its aspect ratio at any width (``max-width: 100%; height: auto``). The
    figure is closed. Under ``$IBCORE_FIGURE_REPORT`` it is checked for legends over data,
    as every figure of the book is (``ibcore.book.figure_report.report_figure``).
    """
    import base64
    import io
    import os
    from html import escape

    import matplotlib.pyplot as plt

    if not alt or not alt.strip():
        raise ValueError("alt must describe the figure for readers who cannot see it, got an empty text")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    width = round(fig.get_figwidth() * 100)  # CSS pixels at the book's 100 dpi
    if os.environ.get("IBCORE_FIGURE_REPORT"):
        from .figure_report import report_figure

        report_figure(fig, drawn=True, css_width=width, css_dpi=100, png=buf.getvalue(), kind="glued")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    img = (f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}" width="{width}" '
           f'style="max-width: 100%; height: auto">')
    text = f"<figcaption><p>{escape(caption)}</p></figcaption>" if caption else ""
    return f'<figure class="ib-glued-figure">{img}{text}</figure>'


class GluedFigure:
    """An HTML figure to glue: ``_repr_html_`` is the figure, the plain text its caption."""

    def __init__(self, html: str, caption: str = ""):
        self.html, self.caption = html, caption

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.caption or "figure"


def glue_figure(name: str, fig, *, alt: str, caption: str = "", dpi: int = 200) -> None:
    """Glue ``fig`` for another page: an image with its alt text and caption, as HTML.

    myst-nb pastes an image glued from another document without its alt text; glued as HTML
    (``figure_html``) it keeps both. A page shows it with::

        ```{glue} name
        :doc: chapter.md
        ```

    The figure is closed, not shown in the chapter that draws it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from ibcore.book import glue_figure
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([400, 1600], [0.25, 0.12])
    >>> glue_figure("fig-gap", fig, alt="The gap falls as d grows.", caption="The gap against d.")
    >>> plt.fignum_exists(fig.number)   # closed, not shown here
    False
    """
    glue(name, GluedFigure(figure_html(fig, alt=alt, caption=caption, dpi=dpi), caption),
         display=False)
