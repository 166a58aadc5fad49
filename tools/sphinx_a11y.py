"""Sphinx extension: accessibility fixes for markup that myst-nb writes.

Registered in ``_config.yml`` (``sphinx.local_extensions``); the site's accessibility
audit (``tests/site/test_accessibility.py``) checks the result.

* A ``hide-input`` cell is a ``<details>`` whose ``<summary>`` myst-nb labels
  "Toggle hidden content" while it shows "Show code cell source": a screen reader
  user and a speech-input user would not agree on the name of the control
  (axe: label-content-name-mismatch). We write the same summary without the
  label, so that its name is the text it shows.
* The bibliography's entries (docutils) carry the DPUB role ``doc-biblioentry``,
  deprecated in DPUB-ARIA 1.1, inside a ``role="list"``: axe then finds the
  entries' links as children the list may not own (aria-required-children). The
  entries become ``role="listitem"``, which is what they are.
* The theme's sidebar gives a section with sub-pages (the Library reference) a
  ``<summary>`` that holds only a decorative chevron: it has no name (axe:
  summary-name). It is named after the page it opens, "Pages of <title>".
"""
from __future__ import annotations

import re
from html import escape

from docutils import nodes
from docutils.writers._html_base import HTMLTranslator
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput


def visit_hide_cell_input(self, node):
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def visit_citation(self, node):
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


_UNNAMED_TOGGLE = re.compile(r'(<a class="[^"]*reference[^"]*"[^>]*>((?:(?!</a>).)*)</a>\s*<details[^>]*>\s*)<summary>', re.S)
_TAG = re.compile(r"<[^>]+>")


def name_sidebar_toggles(app, pagename, templatename, context, doctree):
    """Wrap the theme's ``generate_toctree_html`` so each chevron toggle has a name."""
    generate = context.get("generate_toctree_html")
    if generate is None:
        return

    def generate_named(*args, **kwargs):
        html = generate(*args, **kwargs)
        return _UNNAMED_TOGGLE.sub(
            lambda m: f'{m.group(1)}<summary aria-label="Pages of {_TAG.sub("", m.group(2))}">',
            str(html),
        )

    context["generate_toctree_html"] = generate_named


def setup(app):
    # after pydata-sphinx-theme (priority 500) has put generate_toctree_html in the context
    app.connect("html-page-context", name_sidebar_toggles, priority=900)
    app.setup_extension("myst_nb")
    app.add_node(HideCodeCellNode, override=True, html=(visit_hide_cell_input, depart_HideCellInput))
    app.add_node(nodes.citation, override=True, html=(visit_citation, HTMLTranslator.depart_citation))
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
