"""Executing each chapter as a cold book build does, against starting a kernel and importing ibcore.

* ``make bench``: pytest-benchmark, group ``chapter-execution``: the wall time of each chapter
  of this checkout.
* ``python benchmarks/bench_chapters.py --baseline REV [--repeat K] [--chapters S,...]``: the
  kernel's CPU time per chapter, this working tree against a ``git archive`` of ``REV``, each
  tree's chapters (its ``tools.notebooks.chapters()``) run with that tree's own ibcore, inside
  that tree. Executions alternate chapter by chapter (baseline, candidate; candidate first in
  every second repeat; a matched pair side by side), so both trees see the same load. Each runs in a fresh kernel with an
  empty sweep cache, as a cold build: ``COLD_BUILD`` (the variables' names are the same at
  64c06a3). The kernel's CPU (itself and its waited-for children, ``getrusage``) is read by a
  cell put before the chapter's first and one after its last. Chapters are matched by path,
  then by name without its number (``04_two_neurons`` and ``05_two_neurons``); the others are
  listed apart. Prints one Markdown table; ``--json`` also writes every execution; ``--cells``
  also times each code cell (the kernel's CPU by psutil) and lists the costly ones.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

import jupytext  # noqa: E402
from _baseline import git_archive  # noqa: E402
import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

#: a cold book build's environment (Makefile): static explorer frames, no progress bars, sweeps
#: in the kernel, BLAS on one thread; IBCORE_CACHE is an empty folder per execution
COLD_BUILD = {"IBCORE_STATIC_WIDGETS": "1", "IBCORE_PROGRESS": "0", "IBCORE_SWEEP_JOBS": "1",
              "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
_CPU = ("import resource as _ib_r, time as _ib_t\n"
        "_ib_s, _ib_c = _ib_r.getrusage(_ib_r.RUSAGE_SELF), _ib_r.getrusage(_ib_r.RUSAGE_CHILDREN)\n"
        "print('IB-CPU', _ib_s.ru_utime + _ib_s.ru_stime, _ib_c.ru_utime + _ib_c.ru_stime, _ib_t.time())")
_WHERE = "import sys as _ib_sys; print('IB-IBCORE', getattr(_ib_sys.modules.get('ibcore'), '__file__', None))"


def execute(nb, cwd):
    NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()


# ------------------------------------------------------------------ pytest-benchmark (make bench)

try:
    import pytest
except ImportError:  # the command line needs no pytest
    pytest = None

if pytest is not None:
    from tools.notebooks import chapters

    CHAPTERS = chapters()

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


# ------------------------------------------------------------------ command line


def archive(rev: str) -> Path:
    """A ``git archive`` of ``rev`` in a new temporary folder, its Python files compiled
    (so that the first execution does not pay for the byte code)."""
    folder = git_archive(rev, prefix=f"ib-chapters-{rev[:10]}-")
    subprocess.run([sys.executable, "-m", "compileall", "-q", "ibcore", "tools"], cwd=folder, check=True)
    return folder


def tree_chapters(root: Path, python: str) -> list[str]:
    """The chapters of the tree at ``root``, as its own ``tools.notebooks.chapters()`` lists them."""
    code = "from tools.notebooks import ROOT, chapters; print('\\n'.join(str(p.relative_to(ROOT)) for p in chapters()))"
    out = subprocess.run([python, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(root)}).stdout
    return out.split()


def run_chapter(root: Path, chapter: str, python: str, cells: bool = False) -> dict:
    """Execute one chapter of the tree at ``root`` in a fresh kernel: kernel CPU seconds of its cells
    (``cpu``), of the whole kernel process from its start (``kernel_cpu``), wall seconds, or ``error``;
    with ``cells``, also ``cells``: ``(kernel CPU-s, first line)`` of each code cell (psutil)."""
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    md = root / chapter
    nb = jupytext.read(md, fmt="md:myst")
    nb.cells = [nbformat.v4.new_code_cell(_CPU), *nb.cells,
                nbformat.v4.new_code_cell(_CPU), nbformat.v4.new_code_cell(_WHERE)]
    with tempfile.TemporaryDirectory(prefix="ib-cache-") as cache, tempfile.TemporaryDirectory() as specs:
        env = {**COLD_BUILD, "IBCORE_CACHE": cache, "PYTHONPATH": str(root)}
        (Path(specs) / "ib").mkdir()
        (Path(specs) / "ib" / "kernel.json").write_text(json.dumps(
            {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
             "display_name": "ib", "language": "python", "env": env}))
        saved = {k: os.environ.pop(k) for k in ("IBCORE_FIGURE_REPORT", "IBCORE_NOTEBOOK") if k in os.environ}
        km = AsyncKernelManager(kernel_name="ib", kernel_spec_manager=KernelSpecManager(kernel_dirs=[specs]))
        per_cell = []

        def kernel_cpu(cell, **_):
            import psutil

            if cell.cell_type != "code" or not cell.source.strip():  # not executed: no end hook
                return
            p = psutil.Process(km.provisioner.process.pid)
            t = p.cpu_times()
            per_cell.append(t.user + t.system + t.children_user + t.children_system)

        hooks = dict(on_cell_start=kernel_cpu, on_cell_executed=kernel_cpu) if cells else {}
        t0 = time.perf_counter()
        try:
            NotebookClient(nb, km=km, timeout=1800, resources={"metadata": {"path": str(md.parent)}},
                           **hooks).execute(cleanup_kc=True)  # the client shuts down a kernel manager not its own only when told
        except Exception as e:  # a chapter that fails is reported, the others still run
            return {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:200] if str(e).strip() else ''}"}
        finally:
            wall = time.perf_counter() - t0
            os.environ.update(saved)

    def text(cell):
        return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")

    (_, s0, c0, _), (_, s1, c1, _) = (text(nb.cells[i]).split() for i in (0, -2))
    where = text(nb.cells[-1]).split(maxsplit=1)[1].strip()
    if where != "None" and root.resolve() not in Path(where).resolve().parents:
        raise RuntimeError(f"{chapter}: the kernel imported ibcore from {where}, not from {root}")
    found = {"cpu": float(s1) + float(c1) - float(s0) - float(c0), "kernel_cpu": float(s1) + float(c1),
             "children_cpu": float(c1) - float(c0), "wall": wall}
    if cells:  # the executed cells; ours are the first and the last two
        code = [c.source for c in nb.cells if c.cell_type == "code" and c.source.strip()][1:-2]
        spent = [b - a for a, b in zip(per_cell[0::2], per_cell[1::2])][1:-2]
        found["cells"] = [(t, src.strip().splitlines()[0] if src.strip() else "") for t, src in zip(spent, code)]
    return found


def _stem(chapter: str) -> str:
    """A chapter's path without the number of its file name (``book/relu/two_neurons.md``)."""
    path = Path(chapter)
    return str(path.with_name(re.sub(r"^\d+_", "", path.name)))


def pairs(old: list[str], new: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str], list[str]]:
    """Chapters matched by path, then by name without number; the baseline's and the candidate's others."""
    by_path = [(c, c) for c in new if c in old]
    rest_old = [c for c in old if c not in new]
    rest_new = [c for c in new if c not in old]
    by_name = [(o, n) for n in rest_new for o in rest_old if _stem(o) == _stem(n)]
    return (by_path, by_name, [c for c in rest_old if c not in {o for o, _ in by_name}],
            [c for c in rest_new if c not in {n for _, n in by_name}])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="git revision whose chapters and ibcore to run beside this working tree")
    parser.add_argument("--repeat", type=int, default=1, help="executions per chapter and tree (medians over them)")
    parser.add_argument("--chapters", default="", help="comma-separated substrings of chapter paths")
    parser.add_argument("--python", default=sys.executable, help="the kernels' interpreter (default: this one)")
    parser.add_argument("--json", type=Path, help="also write every execution's figures to this file")
    parser.add_argument("--cells", action="store_true",
                        help="also time each code cell (kernel CPU, psutil) and print the costliest")
    args = parser.parse_args(argv)
    python = str(Path(args.python).absolute()) if os.sep in args.python else args.python
    roots = {"candidate": ROOT}
    if args.baseline:
        roots = {"baseline": archive(args.baseline), **roots}
    try:
        lists = {role: tree_chapters(root, python) for role, root in roots.items()}
        if args.chapters:
            lists = {role: [c for c in cs if any(s in c for s in args.chapters.split(","))]
                     for role, cs in lists.items()}
        # a matched pair side by side, in the candidate's order; the chapters of one tree after
        by_path, by_name, only_old, _ = pairs(lists.get("baseline", []), lists["candidate"])
        partner = dict((n, o) for o, n in by_path + by_name)
        slots = [[("baseline", partner[c]), ("candidate", c)] if c in partner else [("candidate", c)]
                 for c in lists["candidate"]] + [[("baseline", c)] for c in only_old]
        runs: dict[tuple[str, str], list[dict]] = {}
        load = []
        for k in range(args.repeat):
            for slot in slots:
                for role, chapter in (slot if k % 2 == 0 else slot[::-1]):
                    load.append(os.getloadavg()[0])
                    r = run_chapter(roots[role], chapter, python, args.cells) | {"load": load[-1], "repeat": k}
                    runs.setdefault((role, chapter), []).append(r)
                    print(f"  {k + 1}/{args.repeat} {role}: {chapter}: "
                          + (r["error"] if "error" in r else f"{r['cpu']:.1f} CPU-s, {r['wall']:.1f} s wall")
                          + f", load {load[-1]:.1f}", file=sys.stderr, flush=True)
    finally:
        if args.baseline:
            shutil.rmtree(roots["baseline"], ignore_errors=True)
    report(runs, lists, args, python, load)
    if args.json:
        rows = [dict(role=role, chapter=chapter, **r) for (role, chapter), rs in runs.items() for r in rs]
        args.json.write_text(json.dumps(rows, indent=1))


def report(runs, lists, args, python, load):
    med = statistics.median

    def cpu(role, chapter):
        rs = runs.get((role, chapter), [])
        return None if not rs or any("error" in r for r in rs) else [r["cpu"] for r in rs]

    def cell(xs):
        return "failed" if xs is None else f"{med(xs):.1f} ({', '.join(f'{x:.1f}' for x in xs)})"

    def totals(role, chapters):
        """Per repeat, the sum over ``chapters`` (None if one failed)."""
        per = [cpu(role, c) for c in chapters]
        return None if any(p is None for p in per) else [sum(p[k] for p in per) for k in range(args.repeat)]

    def ratio(b, c):
        return "–" if b is None or c is None else f"{med(c) / med(b):.2f}"

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    print(f"\nKernel CPU-s per chapter (cells only; median (every repeat)), {args.repeat} repeat(s); "
          f"baseline {args.baseline or '–'}, candidate this working tree ({commit}{' + changes' if dirty else ''}); "
          f"kernel {python}; load average {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores\n")
    if "baseline" not in lists:
        print("| chapter | CPU-s |\n|---|---|")
        for c in lists["candidate"]:
            print(f"| {c} | {cell(cpu('candidate', c))} |")
        print(f"| **total** | {cell(totals('candidate', lists['candidate']))} |")
        return
    by_path, by_name, only_old, only_new = pairs(lists["baseline"], lists["candidate"])
    print("| chapter | baseline CPU-s | candidate CPU-s | ratio |\n|---|---|---|---|")
    for o, n in by_path + by_name:
        b, c = cpu("baseline", o), cpu("candidate", n)
        print(f"| {n if o == n else f'{o} → {n}'} | {cell(b)} | {cell(c)} | {ratio(b, c)} |")
    for label, matched in (("matched by path", by_path), ("matched by path or name", by_path + by_name)):
        if matched:
            b, c = totals("baseline", [o for o, _ in matched]), totals("candidate", [n for _, n in matched])
            print(f"| **sum, {len(matched)} {label}** | {cell(b)} | {cell(c)} | {ratio(b, c)} |")
    b, c = totals("baseline", lists["baseline"]), totals("candidate", lists["candidate"])
    print(f"| **total, every chapter ({len(lists['baseline'])} and {len(lists['candidate'])})** "
          f"| {cell(b)} | {cell(c)} | {ratio(b, c)} |")
    if only_old or only_new:
        print("\nUnmatched:\n")
        print("| chapter | tree | CPU-s |\n|---|---|---|")
        for role, cs in (("baseline", only_old), ("candidate", only_new)):
            for c in cs:
                print(f"| {c} | {role} | {cell(cpu(role, c))} |")
    failed = [(role, c, r["error"]) for (role, c), rs in runs.items() for r in rs if "error" in r]
    for role, c, error in failed:
        print(f"\n{role} {c} failed: {error}")
    if args.cells:
        print("\nCode cells of at least 0.5 CPU-s (median over repeats; cell number, first line):")
        for (role, c), rs in runs.items():
            timed = [r["cells"] for r in rs if "cells" in r]
            if not timed:
                continue
            print(f"\n{role} {c}:")
            for i, (_, first) in enumerate(timed[0]):
                t = med([cs[i][0] for cs in timed])
                if t >= 0.5:
                    print(f"  {i + 1:3d} {t:6.1f}  {first[:90]}")


if __name__ == "__main__":
    main()
