"""Execute chapters with every seed shifted, and report the checks that fail.

A check must hold for other draws than the book's. This tool rewrites each code cell of
a chapter so that every integer that seeds a random stream is shifted by an offset, runs
the cells in an IPython shell (MPLBACKEND=Agg, IBCORE_PROGRESS=0, a fresh sweep cache),
and prints each failing cell with its error, per chapter and offset::

    python -m tools.other_seeds --offsets 1 2 3                 # every chapter
    python -m tools.other_seeds book/relu/06_many_neurons.md --offsets 1 2 3 4 5

The rewriting is syntactic (``ast``) and changes seeds only, never a cell's logic. The
integers are shifted where they enter a generator (the *sinks*), so that two code paths
the book keeps equal (a run shown by hand and the sweep trial that repeats it) stay equal:

* the first argument of ``default_rng``, ``SeedSequence``, ``RandomState`` and
  ``ibcore.sweep.trial_seed`` (a list such as ``default_rng([seed, p, k])``: its first
  element);
* the keyword arguments ``seed=``, ``rng=`` and ``random_state=`` of calls to functions the
  chapter does not define (a chapter's own function reaches a sink inside);
* ``seeds=``: every element of a range or list;
* ``sweep(...)`` without ``seed=`` gets ``seed=offset`` (its default is 0).

The shift happens when the cell runs (``__ib_shift__``): integers move, a
``numpy.random.Generator``, a ``SeedSequence`` or ``None`` passes unchanged.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SINK_CALLS = {"default_rng", "SeedSequence", "RandomState", "trial_seed"}
SINK_KEYWORDS = {"seed", "rng", "random_state"}
SWEEPS = {"sweep"}

HELPERS = '''
def __ib_shift__(value, _offset={offset}):
    import numpy as _np
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, _np.integer)):
        return int(value) + _offset
    if isinstance(value, list) and value and isinstance(value[0], (int, _np.integer)):
        return [int(value[0]) + _offset, *value[1:]]
    return value

def __ib_shift_all__(value, _offset={offset}):
    if isinstance(value, range):
        return range(value.start + _offset, value.stop + _offset, value.step)
    if isinstance(value, (list, tuple)):
        return type(value)(__ib_shift__(v) for v in value)
    return __ib_shift__(value)
'''


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _wrap(node: ast.expr, helper: str = "__ib_shift__") -> ast.expr:
    return ast.Call(func=ast.Name(helper, ast.Load()), args=[node], keywords=[])


class SeedShifter(ast.NodeTransformer):
    """Wrap every seed sink of a cell in ``__ib_shift__`` (see the module docstring)."""

    def __init__(self, local_functions: set[str]):
        self.local = local_functions
        self.sinks = 0

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        name = _name(node.func)
        if name in SINK_CALLS and node.args:
            node.args[0] = _wrap(node.args[0])
            self.sinks += 1
        if name not in self.local:
            for kw in node.keywords:
                if kw.arg in SINK_KEYWORDS:
                    kw.value = _wrap(kw.value)
                    self.sinks += 1
                elif kw.arg == "seeds":
                    kw.value = _wrap(kw.value, "__ib_shift_all__")
                    self.sinks += 1
        if name in SWEEPS and not any(kw.arg == "seed" for kw in node.keywords):
            node.keywords.append(ast.keyword("seed", _wrap(ast.Constant(0))))
            self.sinks += 1
        return node


def python_source(cell: str) -> str:
    """The cell as plain Python (IPython's magics translated)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell)


def local_functions(cells: list[str]) -> set[str]:
    names = set()
    for cell in cells:
        for node in ast.walk(ast.parse(python_source(cell))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
    return names


def shifted_cells(cells: list[str]) -> list[tuple[str, int]]:
    """Each cell rewritten (``ast.unparse``) with its seed sinks wrapped, and their number."""
    local = local_functions(cells)
    out = []
    for cell in cells:
        shifter = SeedShifter(local)
        tree = ast.fix_missing_locations(shifter.visit(ast.parse(python_source(cell))))
        out.append((ast.unparse(tree) if shifter.sinks else cell, shifter.sinks))
    return out


def code_cells(md_path: Path) -> list[dict]:
    import jupytext

    nb = jupytext.read(md_path, fmt="md:myst")
    return [{"source": c.source, "tags": list(c.metadata.get("tags", []))}
            for c in nb.cells if c.cell_type == "code"]


def _first_line(source: str) -> str:
    lines = [ln for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return lines[0].strip()[:80] if lines else ""


def _failing_line(error: BaseException, source: str) -> str:
    """The line of the (rewritten) cell where ``error`` was raised."""
    import traceback

    cell_frames = [f for f in traceback.extract_tb(error.__traceback__) if not Path(f.filename).is_file()]
    lines = source.splitlines()
    if cell_frames and 0 < (cell_frames[-1].lineno or 0) <= len(lines):
        return lines[cell_frames[-1].lineno - 1].strip()[:200]
    return ""


def run_chapter(md_path: Path, offset: int) -> dict:
    """Execute one chapter with its seeds shifted by ``offset`` (in this process)."""
    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.interactiveshell import InteractiveShell

    cells = code_cells(md_path)
    rewritten = shifted_cells([c["source"] for c in cells])
    shell = InteractiveShell.instance()
    shell.run_cell(HELPERS.format(offset=offset), store_history=False)
    os.chdir(md_path.parent)
    failures = []
    for index, (cell, (source, _)) in enumerate(zip(cells, rewritten)):
        result = shell.run_cell(source, store_history=False, silent=False)
        error = result.error_in_exec or result.error_before_exec
        if error is not None:
            failures.append({
                "cell": index,
                "assert_cell": "assert" in cell["source"],
                "first_line": _first_line(cell["source"]),
                "line": _failing_line(error, source),
                "error": f"{type(error).__name__}: {error}"[:600],
            })
        import matplotlib.pyplot as plt

        plt.close("all")
    if "joblib" in sys.modules:  # reap the sweep's worker processes, so that their CPU is counted
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    return {"chapter": str(md_path.relative_to(ROOT)), "offset": offset, "cells": len(cells),
            "sinks": sum(n for _, n in rewritten), "failures": failures}


def chapters() -> list[Path]:
    from tools.notebooks import chapters as book_chapters

    return [p for p in book_chapters() if p.parent.name in ("prologue", "relu", "quadratic")]


def _subprocess(md_path: Path, offset: int, cache: Path) -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg", "IBCORE_PROGRESS": "0", "IBCORE_STATIC_WIDGETS": "0",
           "IBCORE_CACHE": str(cache), "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)}
    env.pop("IBCORE_FIGURE_REPORT", None)
    cmd = [sys.executable, "-m", "tools.other_seeds", "--one", str(md_path), "--offsets", str(offset)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=err, text=True)
        # the CPU of the chapter and of the sweep's worker processes (reaped with it)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            return {**json.loads(line), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1)}
    return {"chapter": str(md_path.relative_to(ROOT)), "offset": offset, "cells": 0, "sinks": 0,
            "failures": [{"cell": -1, "assert_cell": False, "first_line": "",
                          "error": f"the run crashed: {stderr[-600:]}"}],
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", type=Path, help="chapters (.md); default: all 13")
    parser.add_argument("--offsets", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="append one JSON line per chapter and offset here")
    parser.add_argument("--show", action="store_true", help="print the rewritten cells, run nothing")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.show:
        for path in args.chapters or chapters():
            cells = [c["source"] for c in code_cells(path)]
            for i, (source, sinks) in enumerate(shifted_cells(cells)):
                if sinks:
                    print(f"# {path} cell {i} ({sinks} seeds)\n{source}\n")
        return 0
    if args.one:  # a worker: one chapter, one offset, its result as the last line of output
        result = run_chapter(args.one.resolve(), args.offsets[0])
        sys.stdout.flush()
        print("\n" + json.dumps(result))
        return 0
    paths = [p.resolve() for p in args.chapters] or chapters()
    failed = 0
    for offset in args.offsets:
        # a fresh sweep cache per offset: the book's own cached draws are never reused
        with tempfile.TemporaryDirectory(prefix=f"ib-seeds-{offset}-") as cache, \
                ThreadPoolExecutor(args.jobs) as pool:
            results = pool.map(_subprocess, paths, [offset] * len(paths), [Path(cache)] * len(paths))
            failed += _report(results, args.json)
    return 1 if failed else 0


def _report(results, json_path: Path | None) -> int:
    """Print each result (in the chapters' order, as soon as it is in); the number failing."""
    failed = 0
    for r in results:
        status = "pass" if not r["failures"] else f"{len(r['failures'])} failing cell(s)"
        print(f"offset {r['offset']:+d}  {r['chapter']:36s} {status}  ({r['sinks']} seeds shifted, "
              f"{r['cpu_s']} CPU-s)", flush=True)
        for f in r["failures"]:
            kind = "assert cell" if f["assert_cell"] else "cell"
            print(f"    {kind} {f['cell']} `{f['first_line']}`\n      at: {f.get('line', '')}"
                  f"\n      {f['error']}", flush=True)
        failed += bool(r["failures"])
        if json_path:
            with json_path.open("a") as fh:
                fh.write(json.dumps(r) + "\n")
    return failed


if __name__ == "__main__":
    sys.exit(main())
