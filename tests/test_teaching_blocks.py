"""The reading layer: numbers for the prose and the evidence, the evidence and Think blocks.

The blocks are checked where each edition meets them: the site's HTML (a one-page Sphinx
build with tools/sphinx_teaching.py) and the launch notebooks (tools/notebooks.py).
"""
from __future__ import annotations

import re

import pytest

from ibcore.book import Estimate, glue_estimate, rounded
from ibcore.book import numbers as numbers_module
from tools import notebooks as nbtools


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("value, low, high, text", [
    (0.4853, 0.466, 0.504, "0.49"),      # half-width 0.019: the second decimal
    (0.4853, 0.30, 0.70, "0.5"),         # half-width 0.2: the first
    (222.87, 222.8, 222.9, "223"),       # three significant digits at most
    (-0.512, -0.53, -0.49, "−0.51"),     # typographic minus
    (12345.6, None, None, "12,300"),     # a computed constant: three significant digits
    (0.0, None, None, "0"),
    (0.0, -0.03, 0.03, "0.00"),
])
def test_prose_numbers_are_rounded_to_what_their_interval_resolves(value, low, high, text):
    assert rounded(value, low, high) == text


@pytest.mark.parametrize("kwargs, name", [
    (dict(value=float("nan")), "value"),
    (dict(value=1.0, low=0.5), "low"),
    (dict(value=1.0, low=2.0, high=1.0), "low"),
])
def test_bad_numbers_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        rounded(**kwargs)


@pytest.mark.parametrize("value, low, high", [
    (0.055, 0.043, 0.062), (0.485, 0.466, 0.504), (1.9976, 1.9975, 1.9977), (-0.47, -0.55, -0.38),
])
def test_an_evidence_interval_says_something(value, low, high):
    """Its two ends differ at the precision printed, and the statistic lies between them."""
    text = Estimate(value, low, high, count=32).evidence
    stat, lo, hi = (float(v.replace("−", "-")) for v in re.findall(r"[−\d.]+(?=[ \],])", text)[:3])
    assert lo < hi and lo <= stat <= hi, text
    assert text.endswith(", 32 draws")


def test_glue_estimate_glues_the_prose_and_the_evidence(monkeypatch):
    glued = {}
    monkeypatch.setattr(numbers_module, "glue_text", lambda name, text: glued.__setitem__(name, text))
    est = glue_estimate("slope", -0.512, -0.53, -0.49, count=128, unit="runs")
    assert glued == {"slope": "−0.51", "slope_evidence": "−0.512 [−0.530, −0.490], 128 runs"}
    assert str(est) == glued["slope_evidence"]


# ---------------------------------------------------------------- the launch notebooks

BLOCKS = """\
::::{think} Will $x$ grow?
Predict it.
:::{answer}
It shrinks.
:::
::::

:::{evidence-start} the slope of $x$
:::
"""


def test_blocks_become_plain_markdown_in_the_launch_notebooks():
    out = nbtools._rewrite(BLOCKS, nbtools._Context(cite=lambda role, keys: ""))
    assert "> **Think: Will $x$ grow?**\n>\n> Predict it." in out
    assert "<details><summary><b>Answer</b></summary>\n\nIt shrinks.\n\n</details>" in out
    assert "<details>" not in out.split("\n<details>")[0], "the answer follows the quote, outside it"
    assert "#### Evidence: the slope of $x$" in out
    assert "{" not in out


# ---------------------------------------------------------------- the site

PAGE = """\
# Page

## A

::::{think} Will $x$ grow?
Predict it.
:::{answer}
It shrinks.
:::
::::

:::{evidence-start} the slope of {ref}`b`
:::

A table, and a check.

:::{evidence-end}
:::

After.

(b)=
## B
"""


def build(tmp_path, text: str) -> tuple[str, str]:
    """One page built by Sphinx with MyST and the teaching blocks: (html, warnings)."""
    import io

    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\nsys.path.insert(0, %r)\n"
        "extensions = ['myst_parser', 'sphinx_teaching']\n"
        "myst_enable_extensions = ['colon_fence', 'dollarmath']\n" % str(nbtools.ROOT / "tools"))
    (src / "index.md").write_text(text)
    warnings = io.StringIO()
    app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                 status=None, warning=warnings, freshenv=True)
    app.build()
    return (tmp_path / "out" / "index.html").read_text(), warnings.getvalue()


def test_the_site_collapses_the_evidence_and_the_answers(tmp_path):
    html, warnings = build(tmp_path, PAGE)
    assert not warnings, warnings
    section_a = html[html.index('id="a"'):html.index('id="b"')]
    assert re.search(r'<details class="ib-evidence"><summary><strong>Evidence: </strong>the slope of '
                     r'<span><span class="std std-ref">B</span></span>'
                     r'</summary><div class="ib-evidence-body"><p>A table, and a check.</p>\s*</div></details>',
                     section_a), section_a
    assert section_a.index("</details>\n<p>After.</p>") > 0, "what follows the end stays outside"
    assert 'class="ib-think admonition"' in section_a and "Think: Will" in section_a
    assert '<details class="ib-answer"><summary>Answer</summary>' in section_a


@pytest.mark.parametrize("text, message", [
    ("# P\n\n:::{evidence-start} open\n:::\n\nText.\n", "without an evidence-end"),
    ("# P\n\n## A\n\n:::{evidence-start} across\n:::\n\n## B\n\n:::{evidence-end}\n:::\n",
     "evidence-end without an evidence-start"),
])
def test_an_evidence_block_left_open_or_crossing_a_section_is_a_warning(tmp_path, text, message):
    _, warnings = build(tmp_path, text)
    assert message in warnings
