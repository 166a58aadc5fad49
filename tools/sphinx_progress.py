"""Sphinx extension: a progress line per executed chapter when the build is quiet.

``tools/build_book.py`` builds with Sphinx's status output off (no configuration dumps,
no "reading sources" lines); warnings and errors still print. This extension then
prints a line for each page that took a second or more to read, which for a chapter is
the time its notebook took to execute, and one closing line that counts the others: pages
without code, and chapters read from the execution cache (a few tenths of a second each).
A build whose cache is warm (the student edition, a rebuild) thus prints two lines. With
status output on (``jupyter-book build``) it prints nothing.
"""
from __future__ import annotations

import sys
import time

# a page read faster than this executed nothing: it has no code or came from the cache
EXECUTED_AFTER = 1.0


def _reading(app, env, docnames):
    app._ib_progress = {"total": len(docnames), "done": 0, "shown": 0, "start": {}, "began": time.perf_counter()}
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
    if took >= EXECUTED_AFTER:
        state["shown"] += 1
        width = len(str(state["total"]))
        print(f"  [{state['done']:>{width}}/{state['total']}] {docname}  {took:.1f} s", file=sys.stdout, flush=True)


def _read_all(app, env):
    state = getattr(app, "_ib_progress", None)
    if state is None or not app.quiet or not state["total"]:
        return
    rest = state["done"] - state["shown"]
    print(f"  read {state['done']} pages in {time.perf_counter() - state['began']:.0f} s: "
          f"{state['shown']} executed, {rest} without code or from the execution cache", flush=True)


def setup(app):
    app.connect("env-before-read-docs", _reading)
    app.connect("source-read", _source_read)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-updated", _read_all)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
