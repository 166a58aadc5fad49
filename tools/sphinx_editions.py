"""Sphinx extension: the instructor and student editions of the book, and launchable downloads.

Registered in ``_config.yml`` (``sphinx.local_extensions``). It adds

* the config value ``ib_edition`` (``"instructor"`` by default). In the
  ``"student"`` edition every exercise solution is removed from the pages.
  sphinx-exercise's own ``hide_solutions`` crashes on gated solutions
  (sphinx-exercise#89), so we drop the solution nodes after sphinx-exercise has
  merged each gated solution into one node;
* ``ib_pdf`` in the page context: where the edition's PDF lies in the site
  (``pdf/<name>.pdf``, written by ``make pdf``, see
  ``tools/pdf.py``), for the sidebar's download link;
* at the end of the build, the chapter downloads in ``_sources/``: the
  ``.ipynb`` becomes the launchable notebook of the edition (plain Markdown,
  set-up cell) *with the outputs of this build*, and in the student edition
  the ``.md`` source loses its solutions too.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from sphinx.transforms import SphinxTransform
from sphinx.util import logging

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import notebooks as nbtools  # noqa: E402

logger = logging.getLogger(__name__)
EDITIONS = ("instructor", "student")


class RemoveSolutions(SphinxTransform):
    """Drop every solution node in the student edition (after the gated ones are merged)."""

    default_priority = 500  # sphinx-exercise merges gated solutions at priority 10

    def apply(self):
        if self.config.ib_edition != "student":
            return
        from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

        for cls in (solution_node, solution_start_node, solution_end_node):
            for node in list(self.document.findall(cls)):
                node.parent.remove(node)


def _check_edition(app, config):
    if config.ib_edition not in EDITIONS:
        raise ValueError(f"ib_edition must be one of {EDITIONS}, got {config.ib_edition!r}")


def write_downloads(app, exception):
    """Replace the chapter downloads in ``_sources`` by the edition's launchable files."""
    if exception is not None or app.builder.format != "html":
        return
    edition = app.config.ib_edition
    sources = Path(app.outdir) / "_sources"
    root = Path(app.srcdir)
    cache = Path(app.env.mystnb_config.execution_cache_path)
    for md in nbtools.chapters(root):
        rel = md.relative_to(root)
        download = sources / rel.with_suffix(".ipynb")
        try:
            executed = nbtools.executed_from_cache(md, cache)
        except KeyError:
            logger.warning(f"{rel}: no executed copy in {cache} to offer for download", type="ib_editions")
            continue
        download.parent.mkdir(parents=True, exist_ok=True)
        download.write_text(nbtools.executed_notebook_text(md, executed, edition=edition, root=root),
                            encoding="utf-8")
        copied = sources / rel
        if edition == "student" and copied.exists():
            copied.write_text(nbtools.strip_solutions(md.read_text(encoding="utf-8")), encoding="utf-8")


def pdf_name(edition: str) -> str:
    """The file name of an edition's PDF (also its path in the site, under ``pdf/``)."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    return "implicit-bias-executable.pdf" if edition == "instructor" else "implicit-bias-executable-student.pdf"


# What the student edition's build changes on a page that has no solution: the title, the
# logo's text and the PDF link. Sphinx's cache-busting ``?v=<hash>`` after a stylesheet's
# name is left out of the comparison: a rebuild of one page can drop it.
_CACHE_BUSTER = re.compile(r"\?v=[0-9a-f]{8}\b")


def same_as_instructor(site: Path, student_site: Path, name: str) -> bool:
    """Whether the student edition's page ``name`` is, byte for byte, the instructor
    edition's page once the edition's name and PDF link are put back: a page without
    exercises (12 of 26). The site's checks audit it once, since the browser would load the
    same document twice."""
    student = (Path(student_site) / name).read_text(encoding="utf-8")
    for mark, instructor_mark in ((nbtools.STUDENT_TITLE_SUFFIX, ""), (pdf_name("student"), pdf_name("instructor"))):
        student = student.replace(mark, instructor_mark)
    instructor = (Path(site) / name).read_text(encoding="utf-8")
    return _CACHE_BUSTER.sub("", student) == _CACHE_BUSTER.sub("", instructor)


def _page_context(app, pagename, templatename, context, doctree):
    context["ib_pdf"] = f"pdf/{pdf_name(app.config.ib_edition)}"


def setup(app):
    app.add_config_value("ib_edition", "instructor", "env", types=[str])
    app.connect("config-inited", _check_edition)
    app.add_transform(RemoveSolutions)
    app.connect("build-finished", write_downloads)
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
