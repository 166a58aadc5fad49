"""Sphinx extension: every page's scripts load once and run without an error.

Registered in ``_config.yml`` (``sphinx.local_extensions``); the site's browser checks
(``tests/site/test_browser.py``) fail on any error a page's scripts raise or log.

* Sphinx 7.4 writes an inline script twice when an extension adds it once the builder
  exists (sphinx-doc/sphinx#13402, fixed in Sphinx 8.2, out of reach of Jupyter Book 1):
  sphinx-thebe's ``const THEBE_JS_URL`` then throws "has already been declared" on every
  page. Each page keeps the first of identical scripts.
* pydata-sphinx-theme logs "Got invalid theme mode" on every page when no default colour
  mode is set (Jupyter Book sets none), and then picks "auto", light or dark as the
  reader's system prefers. The default mode is set to that "auto".

(A third, ipywidgets calling MathJax 2's ``MathJax.Hub`` under MathJax 3, is mended in
the browser: ``_static/ib-widget-maths.js``.)
"""
from __future__ import annotations


def _key(script) -> tuple:
    # Sphinx's own assets (_JavaScript) name their file None or "" for the same inline script
    filename = getattr(script, "filename", script) or ""
    return str(filename), tuple(sorted(getattr(script, "attributes", {}).items()))


def unique_scripts(scripts: list) -> list:
    """``scripts`` without the repeats of an earlier one (same file, or same inline body, and attributes)."""
    seen, kept = set(), []
    for script in scripts:
        if (key := _key(script)) not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def drop_repeated_scripts(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:
        context["script_files"][:] = unique_scripts(context["script_files"])


def default_to_auto_mode(app, config) -> None:
    # the theme reads it from the template's context (its docs: html_context["default_mode"])
    config.html_context.setdefault("default_mode", "auto")


def setup(app):
    app.connect("config-inited", default_to_auto_mode)
    app.connect("html-page-context", drop_repeated_scripts, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
