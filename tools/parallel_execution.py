"""Sphinx extension: the chapters missing from the execution cache run on every CPU before Sphinx reads them.

In execution mode ``cache`` myst-nb executes a notebook when Sphinx reads it: one at a
time, on one core. Before Sphinx reads, this hands the notebooks it is about to read to
jupyter-cache's own parallel executor (``local-parallel``: a process per CPU, each
notebook run in its own folder with myst-nb's timeout), which stores them in the cache that
myst-nb then reads, keyed on their code cells. A notebook that fails is not stored:
myst-nb executes it again and reports its error as usual (warnings are errors in
``make book``).
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

# how myst-nb itself registers a MyST notebook with jupyter-cache (myst_nb.core.read)
MYST_READER = {"type": "plugin", "name": "myst_nb_md"}


def execute_missing(app, env, docnames) -> None:
    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor
    from myst_nb.core.read import is_myst_markdown_notebook

    config = env.mystnb_config
    if config.execution_mode != "cache":
        return
    paths = [Path(env.doc2path(name)) for name in docnames]
    uris = [str(p) for p in paths if p.suffix == ".md" and is_myst_markdown_notebook(p.read_text("utf-8"))]
    cache = get_cache(config.execution_cache_path)
    for uri in uris:
        cache.add_nb_to_project(uri, read_data=MYST_READER)
    missing = [record.uri for record in cache.list_unexecuted(filter_uris=uris)]
    if not missing:
        return
    print(f"  executing {len(missing)} notebooks missing from the execution cache, one per CPU", flush=True)
    logger = logging.getLogger(__name__)
    logger.setLevel(logging.WARNING)  # a notebook that fails, with its traceback; not every start
    start = time.perf_counter()
    result = load_executor("temp-parallel" if config.execution_in_temp else "local-parallel", cache,
                           logger=logger).run_and_cache(filter_uris=missing, timeout=config.execution_timeout,
                                                        allow_errors=config.execution_allow_errors)
    failed = len(result.excepted) + len(result.errored)
    print(f"  executed {len(result.succeeded)} in {time.perf_counter() - start:.0f} s"
          + (f"; {failed} failed, which Sphinx runs again to report the error" if failed else ""), flush=True)


def setup(app):
    app.connect("env-before-read-docs", execute_missing)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
