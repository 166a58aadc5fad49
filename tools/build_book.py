"""Build one edition of the book with Jupyter Book 1's Sphinx build, quietly.

The same build as ``jupyter-book build . -W -n --keep-going`` (warnings are errors,
references are checked), without its banners and Sphinx's status output: first the chapters
that the execution cache lacks, executed one per CPU at once (``tools/parallel_execution.py``), a
line each; then the build, with a line per chapter it still had to execute
(``tools/sphinx_progress.py``), every warning and error, and a closing summary.

Usage::

    python -m tools.build_book                                   # _build/html, as `make site`
    python -m tools.build_book --config _build/student_config.yml --out _build/student_build/html
    python -m tools.build_book --verbose                         # Sphinx's full status output
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


MARKER = ".build-in-progress"


@contextlib.contextmanager
def _marked(folder: Path):
    """Mark ``folder`` (the build's, which holds the execution cache) while the build runs."""
    marker = folder / MARKER
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"{os.getpid()}\n")
    try:
        yield
    finally:
        marker.unlink(missing_ok=True)


def build_in_progress(folder: Path) -> bool:
    """True while a build of this module runs in ``folder`` (its process is alive).

    The chapters' second execution (nbval, ``tests/nbval_myst.py``) waits for it.
    """
    try:
        pid = int((Path(folder) / MARKER).read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def build(config: Path, out: Path, *, quiet: bool = True) -> int:
    """Build the book at the repository root into ``out``; return Sphinx's exit status."""
    from jupyter_book.sphinx import build_sphinx

    from tools.parallel_execution import execute_missing

    start = time.perf_counter()
    with _marked(out.parent):
        execute_missing(config, out)  # the chapters the cache lacks, several at a time
        result = _build(build_sphinx, config, out, quiet)
    if isinstance(result, Exception):
        raise result
    took = time.perf_counter() - start
    verdict = "built" if result == 0 else "FAILED (see the warnings above)"
    print(f"  {verdict}: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} in {took:.0f} s", flush=True)
    return result


def _build(build_sphinx, config: Path, out: Path, quiet: bool):
    return build_sphinx(
        ROOT, out, use_external_toc=True, noconfig=True, path_config=str(config),
        confoverrides={"external_toc_path": (ROOT / "_toc.yml").as_posix(), "nitpicky": True,
                       "latex_individualpages": False},
        builder="html", warningiserror=True, keep_going=True, quiet=quiet)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=ROOT / "_config.yml")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--verbose", action="store_true", help="Sphinx's status output too")
    args = parser.parse_args(argv)
    return build(args.config.resolve(), args.out.resolve(), quiet=not args.verbose)


if __name__ == "__main__":
    sys.exit(main())
