"""Mutation score per module, from the state that `mutmut run` leaves in mutants/ (make mutate).

    python -m tests.mutation_scores [--survivors] [--write]

Score = killed / (killed + survived + no tests), timeouts counted as killed; mutants not run
yet are left out and counted apart. ``--write`` puts the score of every module that mutants/
holds into the table of tests/README.md (the rows of the other modules stay as measured
before), with the date and the commit.
"""
from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"
README = ROOT / "tests" / "README.md"
TABLE = re.compile(r"(<!-- mutation-scores -->\n).*?(<!-- /mutation-scores -->)", re.S)
HEADER = ["| module | mutants judged | killed | score | measured |", "|---|---|---|---|---|"]


def scores(root: Path = MUTANTS) -> dict[str, Counter]:
    from mutmut.stats import status_by_exit_code

    out = {}
    for meta in sorted(root.glob("ibcore/**/*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = meta.relative_to(root).as_posix().removesuffix(".py.meta").replace("/", ".")
        out[module] = Counter(status_by_exit_code[code] for code in data.get("exit_code_by_key", {}).values())
    return out


def survivors(root: Path = MUTANTS) -> list[str]:
    from mutmut.stats import status_by_exit_code

    names = []
    for meta in sorted(root.glob("ibcore/**/*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        names += [k for k, code in data.get("exit_code_by_key", {}).items()
                  if status_by_exit_code[code] in ("survived", "no tests")]
    return names


def judged(c: Counter) -> tuple[int, int]:
    """``(killed, judged)``: timeouts count as killed, mutants no test covers as survivors."""
    killed = c["killed"] + c["timeout"]
    return killed, killed + c["survived"] + c["no tests"]


def mutated_modules() -> list[str]:
    """The modules of ``[tool.mutmut] only_mutate`` (pyproject.toml), as dotted names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    return [p.removesuffix(".py").replace("/", ".") for p in config["only_mutate"]]


def table(text: str) -> dict[str, str]:
    """``{module: row}`` of the README's table."""
    m = TABLE.search(text)
    if not m:
        raise ValueError(f"{README} has no <!-- mutation-scores --> ... <!-- /mutation-scores --> section")
    rows = [line for line in m[0].splitlines() if line.startswith("| `")]
    return {line.split("`")[1]: line for line in rows}


def write(measured: dict[str, Counter], path: Path = README) -> None:
    text = path.read_text(encoding="utf-8")
    rows = table(text)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    for module, c in measured.items():
        killed, total = judged(c)
        if total:
            rows[module] = (f"| `{module}` | {total} | {killed} | {killed / total:.0%} "
                            f"| {datetime.date.today()}, {commit} |")
    modules = mutated_modules()  # a module no longer mutated leaves the table
    rows = {m: rows.get(m, f"| `{m}` | – | – | not measured | |") for m in modules}
    body = "\n".join(HEADER + [rows[m] for m in sorted(rows)]) + "\n"
    path.write_text(TABLE.sub(lambda m: m[1] + body + m[2], text), encoding="utf-8")


def main() -> None:
    measured = scores()
    print(f"{'module':34} {'mutants':>7} {'run':>5} {'killed':>6} {'survived':>8} {'no tests':>8} {'score':>6}")
    for module, c in measured.items():
        run = sum(c.values()) - c["not checked"]
        killed, total = judged(c)
        score = f"{killed / total:.0%}" if total else "-"
        print(f"{module:34} {sum(c.values()):7} {run:5} {c['killed']:6} {c['survived']:8} {c['no tests']:8} {score:>6}")
    if "--survivors" in sys.argv:
        print("\n".join(survivors()))
    if "--write" in sys.argv:
        write(measured)
        print(f"{README.relative_to(ROOT)}: the table holds these scores")


if __name__ == "__main__":
    main()
