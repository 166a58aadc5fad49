"""tools.parallel_execution: the chapters the execution cache lacks run before Sphinx reads them,
and are stored where myst-nb (and the nbval plugin) will find them."""
from __future__ import annotations

from pathlib import Path

import pytest

from tools import parallel_execution as pe
from tools.notebooks import executed_from_cache

from .test_nbval_plugin import chapter


def book(tmp_path: Path, chapters: dict[str, str], mode: str = "cache") -> tuple[Path, Path, Path]:
    """A book in ``tmp_path`` with a MyST chapter per (name, code); returns (root, config, out)."""
    toc = ["format: jb-book", "root: intro", "chapters:"]
    (tmp_path / "intro.md").write_text("# Intro\n")
    for name, code in chapters.items():
        (tmp_path / f"{name}.md").write_text(chapter(f"```{{code-cell}} ipython3\n{code}\n```\n"))
        toc.append(f"  - file: {name}")
    (tmp_path / "_toc.yml").write_text("\n".join(toc) + "\n")
    config = tmp_path / "_config.yml"
    config.write_text(f"execute:\n  execute_notebooks: {mode}\n  timeout: 60\n")
    return tmp_path, config, tmp_path / "_build" / "html"


def test_missing_chapters_run_once_and_land_where_the_build_looks(tmp_path):
    root, config, out = book(tmp_path, {"a": "print(6 * 7)", "b": "import os; print(os.path.basename(os.getcwd()))"})
    lines: list[str] = []
    assert pe.execute_missing(config, out, jobs=2, root=root, log=lines.append) == 2
    assert pe.cache_path({}, out) == (tmp_path / "_build" / ".jupyter_cache").resolve()
    outputs = {name: executed_from_cache(root / f"{name}.md", pe.cache_path({}, out)).cells[1].outputs[0]["text"]
               for name in ("a", "b")}
    assert outputs == {"a": "42\n", "b": tmp_path.name + "\n"}  # b ran in its own folder
    assert pe.execute_missing(config, out, jobs=2, root=root) == 0  # now cached: nothing runs
    assert any("2 chapters missing" in line for line in lines)


def test_a_failing_chapter_is_left_for_the_build_to_report(tmp_path):
    root, config, out = book(tmp_path, {"ok": "x = 1", "bad": "raise RuntimeError('no')"})
    lines: list[str] = []
    assert pe.execute_missing(config, out, jobs=1, root=root, log=lines.append) == 1
    assert pe.missing([root / "ok.md", root / "bad.md"], pe.cache_path({}, out)) == [root / "bad.md"]
    assert any("bad" in line and "failed" in line for line in lines)


def test_nothing_runs_unless_the_book_executes_through_the_cache(tmp_path):
    root, config, out = book(tmp_path, {"a": "x = 1"}, mode="force")
    assert pe.execute_missing(config, out, root=root) == 0
    assert not (tmp_path / "_build").exists()


def test_jobs_must_be_positive(tmp_path, monkeypatch):
    root, config, out = book(tmp_path, {"a": "x = 1"})
    for jobs in (-1, 0):
        with pytest.raises(ValueError, match="jobs"):
            pe.execute_missing(config, out, jobs=jobs, root=root)
    monkeypatch.setenv("IB_BUILD_JOBS", "two")
    with pytest.raises(ValueError, match="IB_BUILD_JOBS"):
        pe.execute_missing(config, out, root=root)


def test_a_chapter_whose_execution_raises_is_left_for_the_build(tmp_path, monkeypatch):
    root, config, out = book(tmp_path, {"a": "x = 1"})

    def kernel_died(path, timeout):
        raise RuntimeError("kernel died")

    monkeypatch.setattr(pe, "_execute", kernel_died)
    lines: list[str] = []
    assert pe.execute_missing(config, out, jobs=1, root=root, log=lines.append) == 0
    assert any("failed (RuntimeError)" in line for line in lines)
