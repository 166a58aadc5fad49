"""Two teaching blocks for the chapters: the evidence, one click away, and Think prompts.

**Evidence.** A section's tables, sweeps and checks sit in one collapsed block beside its
story. Code cells cannot sit inside a directive, so the block is gated, as sphinx-exercise
gates an exercise: everything between the two markers, Markdown and code cells alike,
goes into one ``<details class="ib-evidence">`` titled "Evidence: ..."::

    :::{evidence-start} the slope in d
    :::
    (cells: the sweep, its table, the asserts)
    :::{evidence-end}
    :::

Colon fences, not backticks: a title may hold a role (``{prf:ref}`thm-x```), and CommonMark
ends a backtick fence's info string at its first backtick, so the block, and every cell
after it, would be read as Markdown.

Both markers must have the same parent (one section): a block left open, or closed in
another section, is a build warning, which the strict build turns into an error.

**Think.** A prediction to make before reading on, with its answer in a dropdown::

    ::::{think} Will the gap grow or shrink with d?
    Predict the slope of the gap against d on a log-log plot.
    :::{answer}
    It shrinks, with slope -1/2 ...
    :::
    ::::

**Measured.** A review page quotes what a chapter printed: ``{measured}`0.47 [0.45, 0.49]```
renders as text (never as a code chip), and marks the figure for the check that the chapter
really prints it (``tests/site/test_review.py``).

The site shows evidence and answers collapsed; the print edition opens them (``_static/ib-layout.js``),
the evidence in smaller type. The launch notebooks (``tools/notebooks.py``) turn the
evidence into a heading, which JupyterLab and Colab fold, and the answer into a
``<details>`` block.
"""
from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)


class evidence(nodes.General, nodes.Element):
    """The collapsed block: a title, then the cells of the evidence."""


class evidence_title(nodes.TextElement):
    """The block's summary line, "Evidence: ..."."""


class evidence_start(nodes.General, nodes.Element):
    """Marker, replaced by an :class:`evidence` block that takes every node up to its end."""


class evidence_end(nodes.General, nodes.Element):
    """Marker closing the block opened by the last :class:`evidence_start`."""


class answer(nodes.General, nodes.Element):
    """The answer to a Think prompt, collapsed."""


class EvidenceStart(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = False

    def run(self):
        node = evidence_start()
        title = evidence_title()
        title += nodes.strong("Evidence: ", "Evidence: ")
        text_nodes, messages = self.state.inline_text(self.arguments[0], self.lineno)
        title.extend(text_nodes)
        node += title
        self.set_source_info(node)
        return [node, *messages]


class EvidenceEnd(SphinxDirective):
    has_content = False

    def run(self):
        node = evidence_end()
        self.set_source_info(node)
        return [node]


class Think(SphinxDirective):
    """An admonition titled "Think: <question>"; its body may hold an ``answer``."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"class": directives.class_option, "name": directives.unchanged}

    def run(self):
        node = nodes.admonition(classes=["ib-think", *self.options.get("class", [])])
        self.set_source_info(node)
        text_nodes, messages = self.state.inline_text(f"Think: {self.arguments[0]}", self.lineno)
        title = nodes.title(self.arguments[0], "", *text_nodes)
        title.source, title.line = self.state_machine.get_source_and_line(self.lineno)
        node += title
        self.state.nested_parse(self.content, self.content_offset, node)
        self.add_name(node)
        return [node, *messages]


class Answer(SphinxDirective):
    has_content = True

    def run(self):
        node = answer()
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class GatherEvidence(SphinxTransform):
    """Move the nodes between each pair of markers into one :class:`evidence` block."""

    default_priority = 200  # before sphinx-exercise's and the numbering transforms

    def apply(self, **kwargs) -> None:
        for start in list(self.document.findall(evidence_start)):
            parent = start.parent
            index = parent.index(start)
            block = evidence(classes=["ib-evidence"])
            block.source, block.line = start.source, start.line
            block += start.children[0]  # the title
            for node in list(parent.children[index + 1:]):
                if isinstance(node, evidence_start):
                    break
                parent.remove(node)
                if isinstance(node, evidence_end):
                    parent.replace(start, block)
                    break
                block += node
            else:
                node = None
            if not isinstance(node, evidence_end):
                logger.warning("evidence-start without an evidence-end in the same section",
                               location=start)
                parent.replace(start, block)
        for end in list(self.document.findall(evidence_end)):
            logger.warning("evidence-end without an evidence-start in the same section", location=end)
            end.parent.remove(end)


def measured_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{measured}`figure```: a figure quoted from a chapter, set as text."""
    return [nodes.inline(rawtext, text, classes=["ib-measured"])], []


class UnlinkSummaries(SphinxPostTransform):
    """A summary is the control that opens its block: a link inside it would be a control
    inside a control (axe: nested-interactive). A reference in an evidence title is kept as
    its text, once Sphinx has resolved it (its number, "Proposition II.3.1")."""

    default_priority = 900  # after the references are resolved (ReferencesResolver: 10)

    def run(self, **kwargs) -> None:
        for title in self.document.findall(evidence_title):
            for ref in list(title.findall(nodes.reference)):
                ref.replace_self(nodes.inline(ref.rawsource, "", *ref.children))


# ---------------------------------------------------------------------------- HTML

def visit_evidence(self, node):
    self.body.append('<details class="ib-evidence">')


def depart_evidence(self, node):
    self.body.append("</div></details>\n")


def visit_evidence_title(self, node):
    self.body.append("<summary>")


def depart_evidence_title(self, node):
    self.body.append('</summary><div class="ib-evidence-body">')


def visit_answer(self, node):
    self.body.append('<details class="ib-answer"><summary>Answer</summary><div class="ib-answer-body">')


def depart_answer(self, node):
    self.body.append("</div></details>\n")


def _pass(self, node):
    pass


def setup(app: Sphinx):
    plain = (_pass, _pass)  # other builders (linkcheck, text) write the content as is
    app.add_node(evidence, html=(visit_evidence, depart_evidence), text=plain, latex=plain)
    app.add_node(evidence_title, html=(visit_evidence_title, depart_evidence_title), text=plain, latex=plain)
    app.add_node(answer, html=(visit_answer, depart_answer), text=plain, latex=plain)
    app.add_node(evidence_start, html=plain, text=plain, latex=plain)
    app.add_node(evidence_end, html=plain, text=plain, latex=plain)
    app.add_directive("evidence-start", EvidenceStart)
    app.add_directive("evidence-end", EvidenceEnd)
    app.add_directive("think", Think)
    app.add_directive("answer", Answer)
    app.add_transform(GatherEvidence)
    app.add_post_transform(UnlinkSummaries)
    app.add_role("measured", measured_role)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
