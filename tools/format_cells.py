"""Format the code cells of the MyST chapters and problem sets with ruff, in place.

    python -m tools.format_cells [--check] [FILE ...]

Default files: every MyST notebook under ``book/`` and ``homework/``. ``--check`` changes
nothing; it lists the cells that ruff would reformat and the lines longer than the limit
(``[tool.ruff] line-length`` in pyproject.toml) and exits with 1 if there are any.

Why not ``jupytext --pipe "ruff format {}"``: jupytext writes the whole notebook back, and its
YAML writer re-serialises every cell's options (a ``caption: |`` block becomes a quoted string,
option order changes): 593 changed lines in one chapter whose code needed far fewer. Here only
the code between a cell's options and its closing fence is replaced.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent

# a code cell: the fence, its options (``:key: value`` lines or a ``---`` YAML block), the code
CELL = re.compile(
    r"^```\{code-cell\}[^\n]*\n"
    r"(?P<options>(?:---\n.*?\n---\n)|(?::[^\n]*\n)*)"
    r"(?:\n)?(?P<code>.*?)^```[ \t]*$",
    re.S | re.M,
)


def myst_notebooks(paths=None) -> list[Path]:
    """The MyST notebooks (front matter with a kernelspec) among ``paths`` (default: all)."""
    if not paths:
        paths = sorted((ROOT / "book").rglob("*.md")) + sorted((ROOT / "homework").glob("*.md"))
    return [Path(p) for p in paths if "kernelspec:" in Path(p).read_text()[:600]]


def _ruff(args: list[str], notebook: nbformat.NotebookNode) -> subprocess.CompletedProcess:
    """Run ruff on ``notebook`` (written to a temporary .ipynb); the notebook is read back."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cells.ipynb"
        nbformat.write(notebook, path)
        done = subprocess.run([sys.executable, "-m", "ruff", *args, "--config",
                               str(ROOT / "pyproject.toml"), str(path)],
                              capture_output=True, text=True)
        done.notebook = nbformat.read(path, as_version=4)
    return done


def format_file(path: Path, check: bool = False) -> list[str]:
    """Format the code cells of one MyST notebook; return what is wrong (``check``) or changed."""
    text = path.read_text()
    cells = list(CELL.finditer(text))
    nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(m["code"].rstrip("\n")) for m in cells]
    done = _ruff(["format", "--quiet"], nb)
    if done.returncode != 0:
        return [f"{path}: ruff could not format it:\n{done.stderr.strip()}"]
    problems, out, last = [], [], 0
    for m, cell in zip(cells, done.notebook.cells):
        new = cell.source.rstrip("\n") + "\n" if cell.source.strip() else ""
        if new != m["code"] and not (new == "" and m["code"].strip() == ""):
            line = text.count("\n", 0, m.start("code")) + 1
            problems.append(f"{path.relative_to(ROOT)}:{line}: cell not formatted (run make format)")
        out += [text[last:m.start("code")], new]
        last = m.end("code")
    out.append(text[last:])
    if not check:
        if problems:
            path.write_text("".join(out))
        return problems
    lint = _ruff(["check", "--quiet", "--select", "E501", "--output-format", "json"], nb)
    for item in json.loads(lint.stdout or "[]"):
        m = cells[item["cell"] - 1]
        line = text.count("\n", 0, m.start("code")) + item["location"]["row"]
        problems.append(f"{path.relative_to(ROOT)}:{line}: {item['message']}")
    return problems


def check(paths=None) -> list[str]:
    """What ``--check`` reports for ``paths`` (default: every chapter and problem set)."""
    return [p for path in myst_notebooks(paths) for p in format_file(Path(path).resolve(), check=True)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report, change nothing")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.files)
        print("\n".join(problems) or "every code cell is formatted")
        return 1 if problems else 0
    changed = [p for path in myst_notebooks(args.files) for p in format_file(path.resolve())]
    print(f"reformatted {len({p.split(':')[0] for p in changed})} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
