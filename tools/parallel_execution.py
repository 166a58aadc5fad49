"""Execute the chapters that the execution cache lacks, several at a time, before Sphinx reads them.

In execution mode ``cache`` myst-nb executes a chapter when Sphinx reads it: one chapter
at a time, on one core. ``tools/build_book.py`` first runs the chapters missing from the
jupyter-cache here, ``jobs`` at a time, and stores each in that cache as myst-nb would:
keyed on its code cells, and looked up with ``tools.notebooks.executed_from_cache``, as the
nbval plugin finds the build's outputs; executed in its own folder, with the book's timeout. Sphinx then finds
every chapter in the cache. A chapter that fails is not stored: Sphinx executes it again
and reports its error as usual (warnings are errors), so a failure costs one more
execution and nothing is hidden.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import jupytext
import yaml

from tools import notebooks as nbtools


def cache_path(config: dict, out: Path) -> Path:
    """The jupyter-cache a build of ``config`` into ``out`` uses (myst-nb's default beside ``out``)."""
    return Path(config.get("execute", {}).get("cache") or Path(out).parent / ".jupyter_cache").resolve()


def missing(chapters: list[Path], cache: Path) -> list[Path]:
    """The chapters with no executed copy in the jupyter-cache at ``cache``, looked up as nbval looks."""
    lacking = []
    for path in chapters:
        try:
            nbtools.executed_from_cache(path, cache)
        except KeyError:
            lacking.append(path)
    return lacking


def _execute(path: Path, timeout: int):
    # the kernel does the work: threads suffice to run several chapters at once
    from jupyter_cache.executors.utils import single_nb_execution

    nb = jupytext.read(path, fmt="md:myst")
    result = single_nb_execution(nb, cwd=str(path.parent), allow_errors=False, timeout=timeout,
                                 meta_override=True)
    return nb, result


def execute_missing(config_file: Path, out: Path, *, jobs: int | None = None, root: Path = nbtools.ROOT,
                    log=print) -> int:
    """Execute, ``jobs`` at a time, the book's chapters missing from the execution cache.

    Parameters
    ----------
    config_file : Path
        The book's ``_config.yml`` (or the student edition's); nothing runs unless its
        ``execute.execute_notebooks`` is ``cache``.
    out : Path
        The build's HTML folder (the cache defaults to ``out/../.jupyter_cache``).
    jobs : int, optional
        Chapters at once; default ``$IB_BUILD_JOBS`` or the number of CPUs.

    Returns
    -------
    int
        How many chapters were executed and stored.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    config = yaml.safe_load(Path(config_file).read_text(encoding="utf-8")) or {}
    execute = config.get("execute", {})
    if execute.get("execute_notebooks") != "cache":
        return 0
    if jobs is None:
        jobs = os.environ.get("IB_BUILD_JOBS") or os.cpu_count() or 1
    try:
        jobs = int(jobs)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise ValueError(f"jobs (IB_BUILD_JOBS) must be a positive integer, got {jobs!r}")
    folder = cache_path(config, out)
    cache = get_cache(str(folder))
    # in the order of the paths, which is Sphinx's and nbval's (nbval waits for each in turn)
    todo = missing(sorted(nbtools.chapters(root)), folder)
    if not todo:
        return 0
    log(f"  executing {len(todo)} chapters missing from the execution cache, {jobs} at a time")
    stored, start = 0, time.perf_counter()
    width = len(str(len(todo)))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running = {pool.submit(_execute, path, int(execute.get("timeout", 600))): path for path in todo}
        for done, future in enumerate(as_completed(running), 1):
            path = running[future]
            name = path.relative_to(root).with_suffix("").as_posix()
            try:
                nb, result = future.result()
                error = result.err
            except Exception as err:  # noqa: BLE001 - e.g. a kernel that died: the build reports it
                error = err
            if error is not None:
                log(f"  [{done:>{width}}/{len(todo)}] {name}  failed ({type(error).__name__}): "
                    "the build runs it again and reports the error")
                continue
            cache.cache_notebook_bundle(CacheBundleIn(nb, str(path), data={"execution_seconds": result.time}),
                                        check_validity=False, overwrite=True)
            stored += 1
            log(f"  [{done:>{width}}/{len(todo)}] {name}  {result.time:.1f} s")
    log(f"  executed {stored} chapters in {time.perf_counter() - start:.0f} s")
    return stored
