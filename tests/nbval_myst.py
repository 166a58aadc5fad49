"""pytest plugin: run MyST-markdown notebooks (``.md`` chapters) through nbval.

nbval only collects ``.ipynb``. This plugin hands nbval the chapter's
``.md`` source, converted in memory by jupytext, so that every kernel,
timeout, tag and marker option of nbval applies unchanged and failures point
at the ``.md`` file the author edits. No file is written.

Only ``.md`` files whose YAML front matter declares a ``kernelspec`` are
collected (plain pages such as the landing page are not notebooks). The
output-free ``.ipynb`` paired with a chapter is skipped, so that each
chapter runs once.

With ``--nbval-myst-reference CACHE`` (``make test`` passes the book build's
jupyter-cache, ``_build/.jupyter_cache``), the outputs of the build's own
execution of each chapter become nbval's reference outputs and are compared in
strict mode: the chapter must print the same numbers when executed a second time.
The reference is read when the chapter starts, not when it is collected, and
while the book build is still running (``tools/build_book.py`` marks it with
``.build-in-progress`` beside the cache) nbval waits for the build to execute
the chapter: the two executions then run side by side.

Register it from the root ``conftest.py`` (a conftest below the root would
not see files under ``book/``).
"""
from __future__ import annotations

import contextlib
import os
import time
import types
from pathlib import Path

import jupytext
import nbformat
import nbval.plugin

from tools.build_book import build_in_progress
from tools.notebooks import executed_from_cache, is_myst_notebook

# how long to wait for a build that has not started yet (make -j starts both at once)
BUILD_START_GRACE = 120.0


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
    # nbval reads the file with nbformat.read inside collect(); swap in jupytext for that call only
    original = nbval.plugin.nbformat
    nbval.plugin.nbformat = types.SimpleNamespace(read=lambda path, as_version=4: jupytext.read(path, fmt="md:myst"))
    try:
        yield
    finally:
        nbval.plugin.nbformat = original


class MystNotebookFile(nbval.plugin.IPyNbFile):
    """An nbval notebook collector whose source is a MyST ``.md`` file."""

    def reference(self):
        """The build's executed copy of this chapter (from its jupyter-cache), or None.

        While the build runs, wait until it has executed this chapter.
        """
        option = self.config.getoption("nbval_myst_reference")
        if not option:
            return None
        cache = Path(option).resolve()
        if cache.name != ".jupyter_cache" and not (cache / "global.db").exists():
            # a folder of executed notebooks mirroring the sources
            path = cache / Path(self.path).resolve().relative_to(self.config.rootpath)
            path = path.with_suffix(".ipynb")
            if not path.exists():
                raise FileNotFoundError(f"no executed reference {path} for {self.path}; build the book first")
            return nbformat.read(path, as_version=4)
        start = time.monotonic()
        while True:
            building = build_in_progress(cache.parent)
            try:
                if (cache / "global.db").exists():  # (reading a missing cache would create one)
                    return executed_from_cache(Path(self.path), cache)
            except KeyError:
                pass  # not executed (yet)
            except Exception:  # noqa: BLE001 - the build may be writing this very entry
                if not building:
                    raise
            waited = time.monotonic() - start
            if not building and waited > (BUILD_START_GRACE if self.config.getoption("nbval_myst_wait") else 0):
                raise FileNotFoundError(f"{self.path} has no executed copy in {cache}: its code changed "
                                        "since the book was built; rebuild it first") from None
            if waited > self.config.getoption("nbval_myst_wait"):
                raise TimeoutError(f"the book build did not execute {self.path} within {waited:.0f} s")
            time.sleep(1.0)

    def collect(self):
        if self.config.getoption("nbval_myst_reference"):
            self.compare_outputs = True  # strict: compared with the build's outputs, filled in at setup
        with _nbval_reads_myst():
            yield from super().collect()

    def setup(self):
        reference = self.reference()
        if reference is not None:
            with_reference_outputs(self.nb, reference)  # the collected cells are these very objects
        # the kernel inherits the environment: tell ibcore which chapter it runs (figure reports)
        os.environ["IBCORE_NOTEBOOK"] = Path(self.path).resolve().relative_to(self.config.rootpath).as_posix()
        super().setup()


def pytest_addoption(parser):
    parser.getgroup("nbval").addoption(
        "--nbval-myst-reference", metavar="PATH", default=None,
        help="compare each MyST chapter's outputs with its executed copy: PATH is a jupyter-cache "
             "(the book's _build/.jupyter_cache) or a folder of executed <chapter>.ipynb")
    parser.getgroup("nbval").addoption(
        "--nbval-myst-wait", metavar="SECONDS", type=float, default=0.0,
        help="while the book build runs, wait up to SECONDS for it to execute each chapter")


def pytest_collect_file(file_path: Path, parent):
    opt = parent.config.option
    if (opt.nbval or opt.nbval_lax) and is_myst_notebook(file_path):
        return MystNotebookFile.from_parent(parent, path=file_path)
    return None


def pytest_ignore_collect(collection_path: Path, config):
    # the paired .ipynb of a chapter is generated from the .md, which is the one we run
    if collection_path.suffix == ".ipynb" and collection_path.with_suffix(".md").exists():
        return True
    return None
