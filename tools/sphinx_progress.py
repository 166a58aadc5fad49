"""Sphinx extension: one progress line per page when the build is quiet.

``tools/build_book.py`` builds with Sphinx's status output off (no configuration dumps,
no "reading sources" lines); warnings and errors still print. This extension then
prints one line per page as it is read, with the time taken, which for a chapter is
the time its notebook took to execute (a few milliseconds when the execution cache
already holds it). With status output on (``jupyter-book build``) it prints nothing.
"""
from __future__ import annotations

import sys
import time


def _reading(app, env, docnames):
    app._ib_progress = {"total": len(docnames), "done": 0, "start": {}}
    if app.quiet and docnames:
        print(f"  reading {len(docnames)} pages (chapters execute unless cached)", flush=True)


def _source_read(app, docname, source):
    state = getattr(app, "_ib_progress", None)
    if state is not None:
        state["start"][docname] = time.perf_counter()


def _doctree_read(app, doctree):
    state = getattr(app, "_ib_progress", None)
    if state is None or not app.quiet:
        return
    docname = app.env.docname
    state["done"] += 1
    took = time.perf_counter() - state["start"].get(docname, time.perf_counter())
    width = len(str(state["total"]))
    print(f"  [{state['done']:>{width}}/{state['total']}] {docname}  {took:.1f} s", file=sys.stdout, flush=True)


def setup(app):
    app.connect("env-before-read-docs", _reading)
    app.connect("source-read", _source_read)
    app.connect("doctree-read", _doctree_read)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
