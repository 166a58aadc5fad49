"""Wall time to execute each chapter, against the time to start a kernel and import ibcore."""
from __future__ import annotations

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from tools.notebooks import ROOT, chapters

CHAPTERS = chapters()


def execute(nb, cwd):
    NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()


def bench_kernel_start_and_import(benchmark):
    benchmark.group = "chapter-execution"
    benchmark.extra_info["role"] = "baseline"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import ibcore, numpy, matplotlib.pyplot")])
    benchmark.pedantic(execute, args=(nb, ROOT), rounds=3, iterations=1)


@pytest.mark.parametrize("md", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def bench_chapter(benchmark, md, tmp_path, monkeypatch):
    benchmark.group = "chapter-execution"
    benchmark.extra_info["role"] = "candidate"
    # as in a cold book build: static explorer frames, no progress bars, an empty sweep cache
    monkeypatch.setenv("IBCORE_STATIC_WIDGETS", "1")
    monkeypatch.setenv("IBCORE_PROGRESS", "0")
    monkeypatch.setenv("IBCORE_CACHE", str(tmp_path))
    benchmark.pedantic(lambda: execute(jupytext.read(md, fmt="md:myst"), md.parent), rounds=1, iterations=1)
