"""pytest plugin: run MyST-markdown notebooks (``.md`` chapters) through nbval.

nbval only collects ``.ipynb``. This plugin hands nbval the chapter's ``.md`` source,
converted in memory by jupytext, so that every kernel, timeout, tag and marker option of
nbval applies unchanged and failures point at the ``.md`` file the author edits. Only
``.md`` files whose front matter declares a ``kernelspec`` are collected; the output-free
``.ipynb`` generated beside a chapter is skipped, so that each chapter runs once.

With ``--nbval-myst-reference CACHE`` (``make chapters`` passes the book build's
jupyter-cache, ``_build/.jupyter_cache``), the outputs of the build's execution of each
chapter become nbval's reference outputs and every cell is compared with them: the
chapter must print the same numbers when executed a second time.

Register it from the root ``conftest.py`` (a conftest below the root would not see
``book/``). It runs under pytest-xdist (``-n 2 --dist loadfile``: each chapter on one worker).
"""
from __future__ import annotations

import contextlib
import os
import types
from pathlib import Path

import jupytext
import nbval.plugin

from tools.notebooks import executed_from_cache, is_myst_notebook


def with_reference_outputs(nb, reference):
    """Copy the outputs of an executed copy of ``nb`` into ``nb`` (code cells matched in order)."""
    ours = [c for c in nb.cells if c.cell_type == "code"]
    theirs = [c for c in reference.cells if c.cell_type == "code"]
    if [c.source for c in ours] != [c.source for c in theirs]:
        raise ValueError("the reference was executed from different code; rebuild the book first")
    for cell, ref in zip(ours, theirs):
        cell.outputs = ref.outputs
        cell.execution_count = ref.execution_count
    return nb


@contextlib.contextmanager
def _nbval_reads_myst():
    # nbval 0.11 reads the file with nbformat.read inside collect() and has no hook for
    # another reader: swap in jupytext for that call only
    original = nbval.plugin.nbformat
    nbval.plugin.nbformat = types.SimpleNamespace(read=lambda path, as_version=4: jupytext.read(path, fmt="md:myst"))
    try:
        yield
    finally:
        nbval.plugin.nbformat = original


class MystNotebookFile(nbval.plugin.IPyNbFile):
    """An nbval notebook collector whose source is a MyST ``.md`` file."""

    def collect(self):
        if self.config.getoption("nbval_myst_reference"):
            self.compare_outputs = True  # every cell, against the build's outputs filled in at setup
        with _nbval_reads_myst():
            yield from super().collect()

    def setup(self):
        cache = self.config.getoption("nbval_myst_reference")
        if cache:
            try:
                reference = executed_from_cache(Path(self.path), Path(cache))
            except KeyError:
                raise LookupError(f"{self.path} has no executed copy in {cache}: its code changed "
                                  "since the book was built; rebuild it first (make site)") from None
            with_reference_outputs(self.nb, reference)  # the collected cells are these very objects
        # the kernel inherits the environment: tell ibcore which chapter it runs (figure reports)
        os.environ["IBCORE_NOTEBOOK"] = Path(self.path).resolve().relative_to(self.config.rootpath).as_posix()
        super().setup()


def pytest_addoption(parser):
    parser.getgroup("nbval").addoption(
        "--nbval-myst-reference", metavar="CACHE", default=None,
        help="compare each MyST chapter's outputs with its execution stored in the jupyter-cache "
             "CACHE (the book build's _build/.jupyter_cache)")


def pytest_collect_file(file_path: Path, parent):
    opt = parent.config.option
    # (nbval's options are missing under `-p no:nbval`)
    if (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)) and is_myst_notebook(file_path):
        return MystNotebookFile.from_parent(parent, path=file_path)
    return None


def pytest_ignore_collect(collection_path: Path, config):
    # the paired .ipynb of a chapter is generated from the .md, which is the one we run
    if collection_path.suffix == ".ipynb" and collection_path.with_suffix(".md").exists():
        return True
    return None
