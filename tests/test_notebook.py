"""ibcore.book.glue: tables and glued texts and figures."""
from __future__ import annotations

import pandas as pd

from ibcore.book.glue import table
from ibcore.summary import with_intervals
from ibcore.summary import interval_text, summarise


def test_table_renders_rounded_without_index_and_with_a_stable_id():
    frame = pd.DataFrame({"d": [400, 1600], "gap": [0.123456, 0.0654321]})
    html = table(frame, digits=2, caption="Gap by d")._repr_html_()
    assert "0.12" in html and "0.123" not in html and "Gap by d" in html
    assert "row_heading" not in html, "the index is hidden"
    assert 'class="dataframe"' in html, "the theme styles it as a table in the dark theme too"
    assert html == table(frame, digits=2, caption="Gap by d")._repr_html_(), "same page twice"
    assert repr(table(frame, digits=2)).splitlines()[1].split() == ["400", "0.12"]


def test_show_displays_where_it_is_called_not_only_as_a_cells_last_expression():
    """A table shown mid-cell reaches the page (a returned table rendered only as the last
    expression, and evidence cells that went on after it lost their tables)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell.display_pub.publish = lambda data, **kw: shown.append(data)
    try:
        result = shell.run_cell(
            "import pandas as pd\n"
            "from ibcore.book import show\n"
            "show(pd.DataFrame({'d': [400]}), caption='first')\n"
            "x = 1\n"
        )
    finally:
        InteractiveShell.clear_instance()
    assert result.success, result.error_in_exec
    assert len(shown) == 1 and "first" in shown[0]["text/html"] and "first" in shown[0]["text/plain"]


def test_a_meaningful_index_becomes_the_first_column():
    frame = pd.DataFrame({"weights": [1.5, 0.25], "chain": [1.25, 0.5]}, index=["norm", "risk"])
    lines = repr(table(frame, digits=2)).splitlines()
    assert lines[1].split() == ["norm", "1.50", "1.25"] and lines[2].split()[0] == "risk"
    named = pd.DataFrame({"gap": [0.1]}, index=pd.Index([400], name="d"))
    assert repr(table(named)).splitlines()[0].split() == ["d", "gap"]
    assert repr(table(pd.DataFrame({"gap": [0.1]}))).splitlines()[0].split() == ["gap"]


def test_intervals_read_as_the_book_quotes_them():
    assert interval_text(0.5213, 0.47, 0.5712, count=40) == "0.52 [0.47, 0.57], 40 draws"
    table = pd.DataFrame({"b0": [1.0] * 4 + [0.1] * 4, "gap": [0.5, 0.6, 0.4, 0.55, 0.1, 0.2, 0.15, 0.12]})
    merged = with_intervals(summarise(table, "b0", "gap"), digits=2)
    assert list(merged.columns) == ["b0", "median [95% CI]", "count"]
    assert merged["median [95% CI]"][1].startswith("0.53 [")


def test_glued_text_is_the_same_string_as_markdown_and_plain_text():
    from IPython.core.formatters import format_display_data

    from ibcore.book.glue import GluedText

    data, _ = format_display_data(GluedText("A(1) = 0.52 [0.47, 0.57], 40 draws"))
    assert data["text/markdown"] == data["text/plain"] == "A(1) = 0.52 [0.47, 0.57], 40 draws"


def test_a_glued_figure_keeps_its_alt_text_and_caption():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pytest

    from ibcore.book.glue import figure_html

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    ax.plot([0, 1], [0, 1])
    html = figure_html(fig, alt='a line "rising"', caption="Slope 1 [0.9, 1.1], 40 draws", dpi=50)
    assert html.startswith('<figure class="ib-glued-figure"><img src="data:image/png;base64,')
    assert 'alt="a line &quot;rising&quot;"' in html and 'width="640"' in html
    assert "height: auto" in html, "the image keeps its aspect ratio when the column is narrower"
    assert "<figcaption><p>Slope 1 [0.9, 1.1], 40 draws</p></figcaption>" in html
    assert not plt.get_fignums(), "the figure is closed, not shown where it is drawn"
    with pytest.raises(ValueError, match="alt"):
        figure_html(plt.figure(), alt=" ")


def test_glued_figure_is_reported_when_the_figure_report_is_on(monkeypatch, tmp_path):
    """The build's figure report (IBCORE_FIGURE_REPORT) also sees figures glued for another page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ibcore.book.glue import figure_html

    report = tmp_path / "figures.jsonl"
    monkeypatch.setenv("IBCORE_FIGURE_REPORT", str(report))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="a line")
    html = figure_html(fig, alt="a line", caption="A line.")
    assert 'alt="a line"' in html and "A line." in html
    assert report.read_text().strip(), "the figure was reported"
