"""Sphinx extension: figures keep their shape, and numbers are per part and chapter.

Registered in ``_config.yml`` (``sphinx.local_extensions``); the browser checks of
``tests/site/test_geometry.py`` measure the result at 1280 and 390 px.

* **Figures.** myst-nb gives each output image the size matplotlib asked for (a retina
  PNG at half its pixels) and docutils writes it as an inline style,
  ``width: 1013px; height: 441px``. The theme caps the width at the column while the
  height stays, which squashed every figure wider than the column (17 of 29 at 1280 px,
  all of them at 390 px, and in print). The size becomes the ``<img>``'s ``width`` and
  ``height`` attributes instead: ``ib-site.css`` sets ``height: auto``, and the browser
  reserves the image's true aspect ratio from the attributes before it loads.
* **Numbers.** Sphinx numbers figures, exercises, theorems and equations of pages
  outside a numbered toctree with one counter for the whole book (Exercise 33,
  Fig. 24). They become per part and chapter, as the chapters' titles show them: in
  "Part I · …" the chapter "3 · The gap" holds Figure I.3.1, Exercise I.3.2, Theorem
  I.3.1 and equation (I.3.4); the part's overview holds Figure I.1; the prologue P.1.
  Cross-references read the same numbers (Sphinx formats each as its parts joined by
  dots). Other pages keep one counter among themselves.
"""
from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

PIXELS = re.compile(r"^\d+(\.\d+)?(px)?$")
PART = re.compile(r"^Part ([IVXLC]+)\b")
CHAPTER = re.compile(r"^(\d+)\s*·")


# ---------------------------------------------------------------- figures
def visit_image(self, node):
    """The translator's own visit, with a pixel size as attributes rather than a style."""
    visit = type(self).visit_image
    size = {key: str(node.get(key, "")) for key in ("width", "height")}
    if "scale" in node or not all(PIXELS.match(v) for v in size.values()):
        return visit(self, node)
    for key in size:
        del node[key]
    try:
        visit(self, node)
    finally:
        for key, value in size.items():
            node[key] = value
    width, height = (value.removesuffix("px") for value in size.values())
    tag = self.body[-1]
    if tag.startswith("<img "):
        self.body[-1] = f'<img width="{width}" height="{height}" ' + tag[len("<img "):]


def depart_image(self, node):
    type(self).depart_image(self, node)


# ---------------------------------------------------------------- numbers
def chapter_labels(env) -> dict[str, str]:
    """``docname -> label`` ("I.3", "I", "P") for the pages numbered by part and chapter."""
    labels = {}
    root = env.get_doctree(env.config.root_doc)
    for toctree in root.findall(addnodes.toctree):
        part = PART.match(toctree.get("caption") or "")
        for _, docname in toctree["entries"]:
            title = env.titles[docname].astext() if docname in env.titles else ""
            if title.startswith("Prologue"):
                labels[docname] = "P"
            elif part and PART.match(title):
                labels[docname] = part.group(1)
            elif part and CHAPTER.match(title):
                labels[docname] = f"{part.group(1)}.{CHAPTER.match(title).group(1)}"
    return labels


def renumber(app, env):
    """Rewrite the numbers Sphinx's toctree collector has just assigned (a list of docnames)."""
    if not env.config.numfig:
        return []
    labels = chapter_labels(env)
    shared: dict[str, int] = {}  # the pages without a label: one counter per kind, in reading order
    for docname, kinds in env.toc_fignumbers.items():
        for kind, numbers in kinds.items():
            ordered = sorted(numbers, key=numbers.get)
            if docname in labels:
                kinds[kind] = {id_: (labels[docname], i) for i, id_ in enumerate(ordered, start=1)}
            else:
                for id_ in ordered:
                    shared[kind] = shared.get(kind, 0) + 1
                    numbers[id_] = (shared[kind],)
    return list(env.toc_fignumbers)


def setup(app):
    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
    # after the toctree collector (priority 500) has numbered everything for this build
    app.connect("env-get-updated", renumber, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
