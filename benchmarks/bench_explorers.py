"""Live explorers in a real kernel: the time of every one-notch slider move.

Each chapter runs in a kernel of its own (live explorers: ``IBCORE_STATIC_WIDGETS=0``), cell
by cell up to each of its explorers. Then every slider is moved one notch at a time, as a
reader's browser moves it: a ``comm_msg`` that sets the slider model's ``index`` goes to the
kernel on the shell channel, the widget's observer redraws, and the move ends when the kernel
reports idle after sending the new picture. The walk first brings each slider down to its
first value, then visits every frame of the grid once (a reflected Gray code, so each move is
one notch of one slider): every move draws a frame not yet drawn. Between moves the reader
looks at the frame for ``READER_PAUSE`` (1 s; ``--pause``), as readers do: a live explorer
draws the neighbouring frames meanwhile.

Per move we record the wall time (client side, from the message to the idle status), the
kernel's CPU time (user + system; a busy machine inflates it far less than wall time), and
the bytes of the image that reached the client; and we check that the picture changed.

* ``make bench``: pytest-benchmark, group ``explorer-moves``: one candidate per explorer, its
  rounds are its moves; the baseline is a comm round trip to a widget with no observer.
* ``python benchmarks/bench_explorers.py [--root DIR ...] [--python PY] [--repeat N]``: a
  Markdown table per root and kernel (``benchmarks/README.md``). Several roots (for example a
  checkout of ``main`` and this one) alternate chapter by chapter, so that a before/after
  comparison shares the machine's load; ``--python`` runs the kernels in another environment
  (``.venv-colab/bin/python``: Colab's ipywidgets 7).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty

ROOT = Path(__file__).resolve().parents[1]
_EXPLORER = re.compile(r"^explorer\(", re.M)
#: Seconds between a move's answer and the next move: a reader looks at the frame (the
#: kernel may draw ahead meanwhile). Back-to-back moves: ``--pause 0``.
READER_PAUSE = 1.0


def chapter_cells(md: Path) -> tuple[list[str], list[int]]:
    """The code cells of a chapter and the indices of those that build an explorer."""
    import jupytext

    nb = jupytext.read(md, fmt="md:myst")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    return code, [i for i, src in enumerate(code) if _EXPLORER.search(src)]


def chapters(root: Path = ROOT) -> list[Path]:
    """Every chapter with an explorer, in the book's order (prologue, Part I, Part II)."""
    parts = ["prologue", "relu", "quadratic"]
    found = [md for md in (root / "book").glob("*/*.md") if md.parent.name in parts]
    found.sort(key=lambda md: (parts.index(md.parent.name), md.name))
    return [md for md in found if _EXPLORER.search(md.read_text(encoding="utf-8"))]


def gray_walk(sizes: list[int], start: list[int]) -> list[tuple[int, int, bool]]:
    """One-notch moves ``(slider, new index, first visit)``: from ``start`` down to every
    slider's first value, then through every point of the grid (reflected mixed-radix Gray
    code); ``first visit`` is true for a move to a grid point not visited before."""
    def gray(radices):
        if not radices:
            return [()]
        rest = gray(radices[1:])
        return [(i, *r) for i in range(radices[0]) for r in (rest if i % 2 == 0 else rest[::-1])]

    moves, state, seen = [], list(start), {tuple(start)}

    def move(k, index):
        state[k] = index
        moves.append((k, index, tuple(state) not in seen))
        seen.add(tuple(state))

    for k in range(len(sizes)):
        while state[k] > 0:
            move(k, state[k] - 1)
    points = gray(sizes)
    for prev, point in zip(points, points[1:]):
        (k,) = [j for j in range(len(sizes)) if prev[j] != point[j]]
        move(k, point[k])
    return moves


_SLIDERS = """
import json as _ib_json
import ipywidgets as _ib_widgets

def _ib_sliders(w):
    found = [w] if isinstance(w, _ib_widgets.SelectionSlider) else []
    for c in getattr(w, "children", ()):
        found += _ib_sliders(c)
    return found

_ib_box = Out[max(Out)]  # the explorer cell's result (chapters may use `_` as a name)
print(_ib_json.dumps([dict(id=s.model_id, n=len(s.options), index=s.index)
                      for s in _ib_sliders(_ib_box)]))
"""
_BASELINE = """
import ipywidgets as _ib_widgets
_ib_idle = _ib_widgets.IntSlider(0, 0, 100)
print(_ib_idle.model_id)
"""


@dataclass
class Moves:
    """The moves of one explorer: wall and kernel CPU seconds, image bytes, one per move."""
    chapter: str
    explorer: int
    cell_seconds: float
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    nbytes: list[int] = field(default_factory=list)


class ChapterKernel:
    """A kernel that runs one chapter's cells and moves its explorers' sliders."""

    def __init__(self, md: Path, root: Path = ROOT, python: str | None = None, static: bool = False):
        import psutil
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        self.md, self.root = md, root
        self._specs = tempfile.TemporaryDirectory()
        spec = Path(self._specs.name) / "ib"
        spec.mkdir()
        argv = [python or sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "ib", "language": "python"}))
        env = {**os.environ, "IBCORE_STATIC_WIDGETS": "1" if static else "0", "IBCORE_PROGRESS": "0",
               "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        env.pop("IBCORE_FIGURE_REPORT", None)
        self.km = KernelManager(kernel_name="ib", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec.parent)]))
        self.km.start_kernel(env=env, cwd=str(md.parent))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)
        pid = getattr(self.km.provisioner, "pid", None) or self.km.provisioner.process.pid
        self.process = psutil.Process(pid)
        where = Path(self.run("import ibcore; print(ibcore.__file__)").strip()).resolve()
        if root.resolve() not in where.parents:
            raise RuntimeError(f"the kernel imports ibcore from {where}, not from {root}")

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self._specs.cleanup()

    def _cpu(self) -> float:
        t = self.process.cpu_times()
        return t.user + t.system

    def _until_idle(self, msg_id: str, timeout: float) -> list[dict]:
        """The iopub messages of one request, up to its idle status."""
        got, deadline = [], time.monotonic() + timeout
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
            except Empty:
                raise TimeoutError(f"{self.md.name}: no idle status after {timeout} s") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            got.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return got

    def run(self, code: str, timeout: float = 1800) -> str:
        """Execute ``code``; its printed text. Raises on an error."""
        msg_id = self.kc.execute(code, store_history=True)
        out = []
        for msg in self._until_idle(msg_id, timeout):
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                raise RuntimeError(f"{self.md.name}: {msg['content']['ename']}: {msg['content']['evalue']}\n"
                                   + "\n".join(msg["content"]["traceback"][-3:]))
        return "".join(out)

    def move(self, comm_id: str, index: int, timeout: float = 120) -> tuple[float, float, int]:
        """Set a slider's index as the browser does: (wall s, kernel CPU s, picture bytes)."""
        content = {"comm_id": comm_id, "data": {"method": "update", "state": {"index": index}, "buffer_paths": []}}
        msg = self.kc.session.msg("comm_msg", content)
        cpu0, t0 = self._cpu(), time.perf_counter()
        self.kc.shell_channel.send(msg)
        replies = self._until_idle(msg["header"]["msg_id"], timeout)
        wall, cpu = time.perf_counter() - t0, self._cpu() - cpu0
        return wall, cpu, sum(_picture_bytes(m) for m in replies)


def _picture_bytes(msg: dict) -> int:
    """Bytes of image data in one iopub message (an Output widget's display, or a widget's state)."""
    if msg["msg_type"] in ("display_data", "execute_result", "update_display_data"):
        data = msg["content"].get("data", {})
        return sum(len(v) for k, v in data.items() if k.startswith("image/"))
    if msg["msg_type"] == "comm_msg":
        state = msg["content"].get("data", {}).get("state", {})
        text = sum(len(v) for v in state.values() if isinstance(v, str) and "base64," in v)
        return text + sum(len(b) for b in msg.get("buffers", []))
    return 0


def explorer_moves(md: Path, root: Path = ROOT, python: str | None = None):
    """Yield ``(kernel, explorer number, cell seconds, sliders, moves)`` for each explorer of a chapter."""
    code, explorers = chapter_cells(md)
    kernel = ChapterKernel(md, root, python)
    try:
        done = 0
        for number, cell in enumerate(explorers, 1):
            for src in code[done:cell]:
                kernel.run(src)
            t0 = time.perf_counter()
            kernel.run(code[cell])
            seconds = time.perf_counter() - t0
            done = cell + 1
            sliders = json.loads(kernel.run(_SLIDERS).strip().splitlines()[-1])
            walk = gray_walk([s["n"] for s in sliders], [s["index"] for s in sliders])
            yield kernel, number, seconds, sliders, walk
    finally:
        kernel.close()


def measure(md: Path, root: Path = ROOT, python: str | None = None,
            pause: float = READER_PAUSE) -> list[Moves]:
    """Every one-notch move of every explorer of a chapter, timed; ``pause`` seconds before
    each move (a reader looking at the frame: the kernel may draw ahead meanwhile)."""
    results = []
    for kernel, number, seconds, sliders, walk in explorer_moves(md, root, python):
        m = Moves(str(md.relative_to(root)), number, seconds)
        for k, index, first in walk:
            time.sleep(pause)
            wall, cpu, nbytes = kernel.move(sliders[k]["id"], index)
            if nbytes == 0:
                raise AssertionError(f"{md.name}: explorer {number} sent no picture after a move")
            if not first:
                continue
            m.wall.append(wall)
            m.cpu.append(cpu)
            m.nbytes.append(nbytes)
        results.append(m)
    return results


# ------------------------------------------------------------------ pytest-benchmark (make bench)

try:
    import pytest
except ImportError:  # the command line needs no pytest
    pytest = None

if pytest is not None:
    _EXPLORERS = [(md, k) for md in chapters() for k in range(1, 1 + len(chapter_cells(md)[1]))]

    @pytest.fixture(scope="module")
    def baseline_kernel():
        kernel = ChapterKernel(ROOT / "book" / "intro.md")
        yield kernel, kernel.run(_BASELINE).strip()
        kernel.close()

    def bench_comm_round_trip(benchmark, baseline_kernel):
        """A slider with no observer: the kernel's share of a move that draws nothing."""
        kernel, comm_id = baseline_kernel
        benchmark.group = "explorer-moves"
        benchmark.extra_info["role"] = "baseline"
        values = iter(range(10**6))

        def setup():
            return (comm_id, next(values) % 100), {}

        benchmark.pedantic(lambda c, v: kernel.move(c, v), setup=setup, rounds=30, iterations=1)

    @pytest.mark.parametrize("md, which", _EXPLORERS,
                             ids=[f"{md.parent.name}/{md.stem}#{k}" for md, k in _EXPLORERS])
    def bench_explorer_moves(benchmark, md, which):
        benchmark.group = "explorer-moves"
        benchmark.extra_info["role"] = "candidate"
        moves = explorer_moves(md)
        for kernel, number, seconds, sliders, walk in moves:
            if number < which:
                continue
            steps = iter(walk)
            cpu, nbytes = [], []

            def setup():  # untimed: the walk's moves back to a frame shown before, the reader's look
                while True:
                    k, index, first = next(steps)
                    time.sleep(READER_PAUSE)
                    if first:
                        return (sliders[k]["id"], index), {}
                    kernel.move(sliders[k]["id"], index)

            def move(comm_id, index):
                _, c, b = kernel.move(comm_id, index)
                assert b > 0, f"{md.name}: no picture after a move"
                cpu.append(c)
                nbytes.append(b)

            cold = sum(first for *_, first in walk)
            benchmark.pedantic(move, setup=setup, rounds=cold, iterations=1)
            benchmark.extra_info.update(moves=cold, explorer=number,
                                        kernel_cpu_median_ms=round(1e3 * statistics.median(cpu), 1),
                                        picture_kb_median=round(statistics.median(nbytes) / 1024, 1))
            benchmark.extra_info["note"] = (f"{cold} moves; kernel CPU median "
                                            f"{1e3 * statistics.median(cpu):.0f} ms; picture "
                                            f"{statistics.median(nbytes) / 1024:.0f} kB")
            moves.close()  # pytest-benchmark times one thing per test; the kernel stops here
            return


# ------------------------------------------------------------------ command line


def _label(chapter: str) -> str:
    part, name = Path(chapter).parent.name, Path(chapter).stem
    if part == "prologue":
        return "prologue"
    return f"Part {'I' if part == 'relu' else 'II'} ch. {int(name.split('_')[0])}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", action="append", type=Path,
                        help="a checkout whose chapters and ibcore to run (repeatable; default: this one)")
    parser.add_argument("--python", help="the kernels' interpreter (default: this one)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per chapter and root (medians over runs)")
    parser.add_argument("--only", default="", help="comma-separated substrings of chapter paths")
    parser.add_argument("--pause", type=float, default=READER_PAUSE,
                        help="seconds between a move's answer and the next move (a reader's look)")
    parser.add_argument("--json", type=Path, help="also write every move's figures to this file")
    args = parser.parse_args(argv)
    roots = [r.resolve() for r in (args.root or [ROOT])]
    # absolute, not resolved: a venv's python is a symlink to the base interpreter
    python = str(Path(args.python).absolute()) if args.python and os.sep in args.python else args.python
    names = [str(md.relative_to(roots[0])) for md in chapters(roots[0])]
    if args.only:
        names = [n for n in names if any(s in n for s in args.only.split(","))]
    runs: dict[tuple[Path, str, int], list[Moves]] = {}
    load, loads = [], {}
    for name in names:
        for _ in range(args.repeat):
            for root in roots:
                load.append(os.getloadavg()[0])
                loads.setdefault(name, []).append(load[-1])
                for m in measure(root / name, root, python, args.pause):
                    runs.setdefault((root, name, m.explorer), []).append(m)
                    print(f"  {root.name}: {name} #{m.explorer}: median {1e3 * statistics.median(m.wall):.0f} ms, "
                          f"max {1e3 * max(m.wall):.0f} ms", file=sys.stderr, flush=True)
    med = statistics.median

    def p95(xs):  # nearest rank
        return sorted(xs)[max(0, -(-95 * len(xs) // 100) - 1)]

    for root in roots:
        print(f"\n{root} (kernel: {python or sys.executable}; {args.repeat} run(s) per chapter, "
              f"{args.pause:g} s between moves, "
              f"load average {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores)\n")
        print("| chapter | explorer | moves | median ms | p95 ms | max ms | kernel CPU median ms "
              "| kernel CPU p95 ms | kernel CPU max ms | picture kB | cell s | load |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (r, name, number), ms in runs.items():
            if r != root:
                continue
            print(f"| {_label(name)} | {number} | {len(ms[0].wall)} "
                  f"| {1e3 * med([med(m.wall) for m in ms]):.0f} | {1e3 * med([p95(m.wall) for m in ms]):.0f} "
                  f"| {1e3 * med([max(m.wall) for m in ms]):.0f} "
                  f"| {1e3 * med([med(m.cpu) for m in ms]):.0f} | {1e3 * med([p95(m.cpu) for m in ms]):.0f} "
                  f"| {1e3 * med([max(m.cpu) for m in ms]):.0f} "
                  f"| {med([med(m.nbytes) for m in ms]) / 1024:.0f} | {med([m.cell_seconds for m in ms]):.1f} "
                  f"| {med(loads[name]):.1f} |")
    if args.json:
        rows = [dict(root=str(r), **vars(m)) for (r, _, _), ms in runs.items() for m in ms]
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
