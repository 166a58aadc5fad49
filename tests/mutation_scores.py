"""Mutation score per module, from the state that `mutmut run` leaves in mutants/ (make mutate).

    python -m tests.mutation_scores [--survivors]

Score = killed / (killed + survived + timeout): a mutant that no test covers counts as
surviving ("no tests"); mutants not run yet are left out and counted apart.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

MUTANTS = Path(__file__).resolve().parents[1] / "mutants"


def scores(root: Path = MUTANTS) -> dict[str, Counter]:
    out = {}
    for meta in sorted(root.glob("ibcore/**/*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = meta.relative_to(root).as_posix().removesuffix(".py.meta").replace("/", ".")
        out[module] = Counter(status_by_exit_code[code] for code in data.get("exit_code_by_key", {}).values())
    return out


def survivors(root: Path = MUTANTS) -> list[str]:
    names = []
    for meta in sorted(root.glob("ibcore/**/*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        names += [k for k, code in data.get("exit_code_by_key", {}).items()
                  if status_by_exit_code[code] in ("survived", "no tests")]
    return names


def main() -> None:
    print(f"{'module':34} {'mutants':>7} {'run':>5} {'killed':>6} {'survived':>8} {'no tests':>8} {'score':>6}")
    for module, c in scores().items():
        run = sum(c.values()) - c["not checked"]
        judged = c["killed"] + c["survived"] + c["no tests"] + c["timeout"]
        score = f"{(c['killed'] + c['timeout']) / judged:.0%}" if judged else "-"
        print(f"{module:34} {sum(c.values()):7} {run:5} {c['killed']:6} {c['survived']:8} {c['no tests']:8} {score:>6}")
    if "--survivors" in sys.argv:
        print("\n".join(survivors()))


if __name__ == "__main__":
    main()
