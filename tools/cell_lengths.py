"""How long are the code cells a reader sees? Lines per code cell of the chapters.

    python -m tools.cell_lengths [--limit N] [FILE ...]

A cell tagged ``remove-input`` or ``remove-cell`` is not shown; ``hide-input`` is shown
collapsed and counted apart. Lines are the cell's source lines, blank lines included.

A visible cell may have at most ``LIMIT`` lines. Longer is allowed, up to ``HARD``, only for a
cell that no cut between its statements can bring within ``LIMIT`` (one of its top-level
statements, a function or a loop, is itself longer) and for a cell with ``assert`` checks,
which is kept whole so that the claim and its check read together.
"""
from __future__ import annotations

import argparse
import ast
import collections
import sys
from pathlib import Path

import jupytext

from tools import notebooks as nbtools

LIMIT = 25  # lines of a visible code cell: about one screen of a lecture page
HARD = 38  # for the cells that cannot be split (see above)
REMOVED = {"remove-input", "remove-cell"}


def splittable(source: str, limit: int = LIMIT) -> bool:
    """Could cuts between statements bring the cell within ``limit``? (No ``assert`` in it.)"""
    code = "\n".join("" if s.lstrip().startswith(("%", "!")) else s for s in source.split("\n"))
    tree = ast.parse(code)
    longest = max((s.end_lineno - s.lineno + 1 for s in tree.body), default=0)
    return longest <= limit and not any(isinstance(n, ast.Assert) for n in ast.walk(tree))


def cells(path: Path) -> list[tuple[str, int, str, bool]]:
    """``(kind, lines, first line, splittable)`` per code cell; kind: visible, hidden, removed."""
    nb = jupytext.read(path, fmt="md:myst")
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        kind = "removed" if tags & REMOVED else "hidden" if "hide-input" in tags else "visible"
        source = cell.source.strip("\n")
        first = source.splitlines()[0] if source else ""
        out.append((kind, len(source.splitlines()), first, splittable(source)))
    return out


def too_long(paths, limit: int = LIMIT, hard: int = HARD) -> list[str]:
    """The visible code cells of ``paths`` over ``limit`` lines (``hard`` if unsplittable)."""
    return [
        f"{Path(p).name}: {n} lines (limit {limit if split else hard}): {first}"
        for p in paths
        for kind, n, first, split in cells(p)
        if kind == "visible" and n > (limit if split else hard)
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--hard", type=int, default=HARD)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.files or nbtools.chapters()
    counts = collections.defaultdict(list)
    for p in paths:
        for kind, n, *_ in cells(p):
            counts[kind].append(n)
    for kind in ("visible", "hidden", "removed"):
        ns = sorted(counts[kind])
        if ns:
            bins = [(1, 10), (11, 15), (16, 20), (21, 25), (26, 30), (31, 40), (41, 999)]
            hist = ", ".join(f"{a}-{b if b < 999 else ''}: {sum(a <= n <= b for n in ns)}"
                             for a, b in bins)
            print(f"{kind}: {len(ns)} cells, median {ns[len(ns) // 2]}, max {ns[-1]}; {hist}")
    problems = too_long(paths, args.limit, args.hard)
    print("\n".join(problems) or f"no visible cell over {args.limit} lines ({args.hard})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
