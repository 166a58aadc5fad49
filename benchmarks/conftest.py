"""Benchmark harness: pytest-benchmark timings, summarised as ratios within groups.

Each benchmark sets ``benchmark.group`` and ``benchmark.extra_info["role"]``
(``"baseline"`` or ``"candidate"``). At the end of the run one table lists, for
every candidate, its median time and its ratio to the baseline of its group
measured in the same run. Ratios, not seconds, are what the README records:
they transfer between machines far better than absolute times.
"""
from __future__ import annotations

import os
import platform


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


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    benches = [b for b in getattr(session, "benchmarks", []) if getattr(b, "stats", None)]
    if not benches:
        return
    groups: dict[str, dict] = {}
    for b in benches:
        role = b.extra_info.get("role", "candidate")
        groups.setdefault(b.group or b.name, {"baseline": None, "candidates": []})
        if role == "baseline":
            groups[b.group or b.name]["baseline"] = b
        else:
            groups[b.group or b.name]["candidates"].append(b)
    tr = terminalreporter
    tr.write_sep("=", "benchmark ratios (same run)")
    tr.write_line(f"machine: {_machine()}")
    tr.write_line(f"{'group':<24} {'candidate':<44} {'median':>10} {'baseline':>10} {'ratio':>9}")
    for name, g in sorted(groups.items()):
        base = g["baseline"]
        for c in g["candidates"]:
            median = c.stats.median
            if base is not None:
                ratio = median / base.stats.median
                faster = f"  ({1 / ratio:.3g}x faster)" if ratio < 1 else ""
                tr.write_line(f"{name:<24} {c.name[:44]:<44} {_fmt(median):>10} {_fmt(base.stats.median):>10} "
                              f"{ratio:>8.3g}x{faster}")
            else:
                tr.write_line(f"{name:<24} {c.name[:44]:<44} {_fmt(median):>10} {'-':>10} {'-':>9}")
            note = c.extra_info.get("note")
            if note:
                tr.write_line(f"{'':<24}   {note}")
