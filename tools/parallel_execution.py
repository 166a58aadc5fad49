"""Sphinx extension: the chapters missing from the execution cache run on every CPU before Sphinx reads them.

In execution mode ``cache`` myst-nb executes a notebook when Sphinx reads it: one at a
time, on one core. Before Sphinx reads, this hands the notebooks it is about to read to
jupyter-cache's own parallel executor (``local-parallel``: a process per CPU, each
notebook run in its own folder with myst-nb's timeout), which stores them in the cache that
myst-nb then reads, keyed on their code cells. A notebook that fails is not stored:
myst-nb executes it again and reports its error as usual (warnings are errors in
``make book``).

jupyter-cache keys an executed notebook on its code cells only, and Sphinx rewrites a page only
when its source changed: before either is read, a cache made with other ibcore sources is
forgotten, and so are Sphinx's saved pages when ibcore, the book's extensions or templates
changed (:func:`forget_if_changed`, on a digest of their contents).
"""
from __future__ import annotations

import hashlib
import logging
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def digest(paths) -> str:
    """One sha256 of the files under ``paths`` (folders walked; caches left out): names and contents."""
    files = sorted(f for p in map(Path, paths) for f in ([p] if p.is_file() else p.rglob("*"))
                   if f.is_file() and "__pycache__" not in f.parts)
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def forget_if_changed(folder: Path, sources: str) -> bool:
    """Remove ``folder`` unless it was made from ``sources`` (a digest, kept in a file beside
    it); say whether a folder was removed."""
    folder = Path(folder)
    stamp = folder.with_name(folder.name + ".sources")
    if stamp.exists() and stamp.read_text() == sources:
        return False
    existed = folder.exists()
    shutil.rmtree(folder, ignore_errors=True)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(sources)
    return existed


def forget_stale(app, config) -> None:
    ibcore = digest([ROOT / "ibcore"])
    cache = config.nb_execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"
    if forget_if_changed(Path(cache), ibcore):
        print("  ibcore's sources changed: every chapter executes again", flush=True)
    pages = digest([ROOT / "ibcore", ROOT / "_templates", *ROOT.glob("tools/sphinx_*.py"), __file__])
    forget_if_changed(Path(app.doctreedir), pages)


def setup(app):
    app.connect("config-inited", forget_stale)
    app.connect("env-before-read-docs", execute_missing)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
