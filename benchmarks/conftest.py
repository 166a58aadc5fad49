"""Benchmark harness: pytest-benchmark timings, summarised as ratios within groups.

Each benchmark sets ``benchmark.group`` and ``benchmark.extra_info["role"]``
(``"baseline"`` or ``"candidate"``). At the end of the run one table lists, for
every candidate, its median time and its ratio to the baseline of its group
measured in the same run. Ratios, not seconds, are what the README records:
they transfer between machines far better than absolute times. ``--write-table FILE``
(``make bench``) writes the same rows into FILE's results table.
"""
from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from pathlib import Path

TABLE = re.compile(r"(<!-- results -->\n).*?(<!-- /results -->)", re.S)


def pytest_addoption(parser):
    parser.addoption("--write-table", metavar="FILE",
                     help="write the ratios into FILE, between <!-- results --> and <!-- /results -->")


def _machine() -> str:
    cpus = os.cpu_count()
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{platform.system()} {platform.machine()}, {cpus} cores, {model}, Python {platform.python_version()}"


def _fmt(seconds: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def _rows(benches) -> list[tuple[str, str, float, float | None, str]]:
    """``(group, candidate, median, baseline median or None, note)``, by group."""
    groups: dict[str, dict] = {}
    for b in benches:
        g = groups.setdefault(b.group or b.name, {"baseline": None, "candidates": []})
        if b.extra_info.get("role", "candidate") == "baseline":
            g["baseline"] = b
        else:
            g["candidates"].append(b)
    return [(name, c.name, c.stats.median, g["baseline"].stats.median if g["baseline"] else None,
             c.extra_info.get("note", ""))
            for name, g in sorted(groups.items()) for c in g["candidates"]]


def _write_table(path: Path, rows) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"Last run: {datetime.date.today()}, commit {commit or '?'}, {_machine()}.", "",
             "| group | candidate | median | baseline | ratio |", "|---|---|---|---|---|"]
    for group, name, median, base, _ in rows:
        ratio = f"{median / base:.3g}" if base else "–"
        lines.append(f"| {group} | `{name}` | {_fmt(median)} | {_fmt(base) if base else '–'} | {ratio} |")
    text = path.read_text(encoding="utf-8")
    if not TABLE.search(text):
        raise ValueError(f"{path} has no <!-- results --> ... <!-- /results --> section")
    path.write_text(TABLE.sub(lambda m: m[1] + "\n".join(lines) + "\n" + m[2], text), encoding="utf-8")


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    benches = [b for b in getattr(session, "benchmarks", []) if getattr(b, "stats", None)]
    if not benches:
        return
    rows = _rows(benches)
    tr = terminalreporter
    tr.write_sep("=", "benchmark ratios (same run)")
    tr.write_line(f"machine: {_machine()}")
    tr.write_line(f"{'group':<24} {'candidate':<44} {'median':>10} {'baseline':>10} {'ratio':>9}")
    for group, name, median, base, note in rows:
        if base is not None:
            ratio = median / base
            faster = f"  ({1 / ratio:.3g}x faster)" if ratio < 1 else ""
            tr.write_line(f"{group:<24} {name[:44]:<44} {_fmt(median):>10} {_fmt(base):>10} "
                          f"{ratio:>8.3g}x{faster}")
        else:
            tr.write_line(f"{group:<24} {name[:44]:<44} {_fmt(median):>10} {'-':>10} {'-':>9}")
        if note:
            tr.write_line(f"{'':<24}   {note}")
    if target := config.getoption("--write-table"):
        _write_table(Path(target), rows)
        tr.write_line(f"the table of {target} is rewritten")
