"""The notebooks as Colab runs them: Colab's versions, ibcore installed by the set-up cell.

Runs in the venv that ``colab_env.build`` makes from ``colab-versions.txt`` (``.venv-colab``,
made or checked by the ``colab`` fixture). Each chapter starts as a new Colab runtime does:
no ibcore, Colab's numpy, scipy, matplotlib, ipywidgets 7 and ipykernel, an empty sweep
cache, live (not static) explorers. Its launch notebook then runs top to bottom, and its
first code cell installs ibcore with the exact command committed in the notebook: git's
``url.<base>.insteadOf`` sends that command's repository URL to a snapshot of this
checkout in which the cell's tag names the checkout's current state.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

import ibcore
from tests.launch import colab_env
from tools import notebooks as nbtools

pytestmark = pytest.mark.slow  # a venv of Colab's versions, and three chapters executed there

ROOT = nbtools.ROOT
VENV = ROOT / ".venv-colab"
# the prologue and the cheapest chapter of each part (timed one after another, fresh sweep cache,
# on the 2-core machine under load: Part I from 18 s (05) to 69 s (03), Part II from 15 s (02)
# to 88 s (04)); each runs ibcore's solvers and a live explorer, and 05 a sweep on both cores
CHAPTERS = ["book/prologue/linear_min_norm.md", "book/relu/06_many_neurons.md", "book/quadratic/02_plateau.md"]
# the packages that the set-up cell must leave as Colab ships them
COLAB_OWN = ("numpy", "scipy", "matplotlib", "ipywidgets")
_INSTALL = re.compile(r'"(?P<name>[\w.-]+) @ git\+(?P<url>[^"@]+)@(?P<ref>[^"@]+)"')
# ipywidgets 7 speaks version 1.5.0 of @jupyter-widgets/controls (8 speaks 2.0.0)
CONTROLS_OF_IPYWIDGETS_7 = "1.5.0"


def setup_cell(nb) -> str:
    cell = next(c for c in nb.cells if c.cell_type == "code")
    assert "setup" in cell.metadata.get("tags", []), "the first code cell must be the set-up cell"
    return cell.source


def snapshot_repository(dest: Path, ref: str) -> Path:
    """A git repository holding this checkout's files (committed or not, less the ignored)
    in one commit on the branch main, tagged ``ref`` if that is another ref: what pip clones in
    place of the cell's URL."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.fail(f"the Colab-like tests need a git checkout: {listed.stderr.strip()}")
    for rel in filter(None, listed.stdout.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    git = ["git", "-c", "user.name=launch-test", "-c", "user.email=launch-test@localhost",
           "-c", "init.defaultBranch=main"]
    # the commit is on the branch main; a release ref other than the branch is tagged on it
    tag = [["tag", ref]] if ref != "main" else []
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"], *tag):
        subprocess.run(git + args, cwd=dest, check=True, capture_output=True)
    return dest


class Colab:
    """The Colab-like venv, a kernel spec for it, and the environment of its kernels."""

    def __init__(self, tmp: Path):
        self.python = colab_env.build(VENV)
        self.minor, _, self.pins = colab_env.read_versions()
        self.tmp = tmp
        kernels = tmp / "kernels"
        (kernels / "colab").mkdir(parents=True)
        (kernels / "colab" / "kernel.json").write_text(json.dumps({
            "argv": [str(self.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Colab-like", "language": "python"}))
        self.kernel_specs = KernelSpecManager(kernel_dirs=[str(kernels)])
        launch = nbformat.read(nbtools.launch_notebook_path(ROOT / CHAPTERS[0], "instructor"), as_version=4)
        m = _INSTALL.search(setup_cell(launch))
        assert m, "the set-up cell must install ibcore from `git+URL@REF`"
        origin = snapshot_repository(tmp / "origin", m["ref"])
        ours = Path(sys.executable).parent  # the project's venv, first on the Makefile's PATH
        path = [str(VENV / "bin")] + [p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != ours]
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("IBCORE_", "PYTHON", "VIRTUAL_ENV", "JUPYTER", "MPLBACKEND", "GIT_"))}
        self.env.update({
            "PATH": os.pathsep.join(path),
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"url.{origin.as_uri()}.insteadOf",
            "GIT_CONFIG_VALUE_0": m["url"],
        })

    def fresh(self) -> dict[str, str]:
        """Remove ibcore, as on a new Colab runtime; return the versions, checked against the pins."""
        subprocess.run([str(self.python), "-m", "pip", "uninstall", "--quiet", "--yes", colab_env.OURS],
                       check=True, capture_output=True)
        have = colab_env.installed(self.python)
        assert not colab_env.differences(have, self.pins), "the Colab-like venv has drifted: rebuild it"
        return have

    def run(self, nb, name: str, timeout: int = 900):
        """Execute ``nb`` in a Colab-like kernel, in an empty folder, with an empty sweep cache."""
        work = self.tmp / name
        (work / "content").mkdir(parents=True)
        env = {**self.env, "IBCORE_CACHE": str(work / "sweep-cache")}
        km = KernelManager(kernel_name="colab", kernel_spec_manager=self.kernel_specs)
        try:
            NotebookClient(nb, km=km, timeout=timeout, allow_errors=False,
                           resources={"metadata": {"path": str(work / "content")}}).execute(env=env)
        finally:
            if km.has_kernel:
                km.shutdown_kernel(now=True)  # a kernel manager we pass in is ours to stop
        return nb


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    return Colab(tmp_path_factory.mktemp("colab"))


def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def widget_models(nb) -> list[dict]:
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return list(state.get("state", {}).values())


def test_colab_python(colab):
    """The venv runs Colab's Python minor version; on a machine without it, say so in the summary."""
    version = subprocess.run([str(colab.python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    if version != colab.minor:
        pytest.skip(f"Colab runs Python {colab.minor}, which this machine lacks: the Colab-like tests "
                    f"ran on Python {version} (set IB_COLAB_PYTHON to a CPython {colab.minor})")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_in_colab(colab, chapter):
    md = ROOT / chapter
    nb = nbformat.read(nbtools.launch_notebook_path(md, "instructor"), as_version=4)
    before = colab.fresh()
    colab.run(nb, md.stem)

    # the set-up cell installed ibcore, and replaced nothing that Colab ships
    after = colab_env.installed(colab.python)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    assert stream_text(setup).strip().endswith(f"ibcore {ibcore.__version__}"), stream_text(setup)
    assert after.pop(colab_env.OURS, None) == ibcore.__version__
    own = {p: (before[p], after.get(p)) for p in COLAB_OWN}
    assert all(was == now for was, now in own.values()), f"the set-up cell replaced Colab's packages: {own}"
    assert not colab_env.differences(after, before), "the set-up cell changed Colab's packages"

    # its explorer is live under ipywidgets 7: sliders driving the kernel's picture (an HTML
    # widget holding the PNG the kernel drew), no precomputed frames
    models = widget_models(nb)
    sliders = [m for m in models if m["model_name"] == "SelectionSliderModel"]
    assert sliders, "no explorer sliders in the widget state"
    assert {m["model_module_version"] for m in sliders} == {CONTROLS_OF_IPYWIDGETS_7}
    assert not [m for m in models if m["model_name"] in ("ImageModel", "StackModel")], "static frames"
    drawn = [m for m in models if m["model_name"] == "HTMLModel"
             and "data:image/png;base64," in m["state"].get("value", "")]
    assert drawn, "the explorer holds no figure drawn by the kernel"


def test_explorer_sliders_redraw_live(colab):
    """Moving a slider calls the draw function again through ipywidgets 7; asking for static
    frames, which need ipywidgets 8, gives the live explorer and a warning."""
    launch = nbformat.read(nbtools.launch_notebook_path(ROOT / CHAPTERS[0], "instructor"), as_version=4)
    probe = nbformat.v4.new_code_cell(
        "import ipywidgets, matplotlib.pyplot as plt\n"
        "from ibcore.book import explorer\n"
        "calls = []\n"
        "def draw(a):\n"
        "    calls.append(a)\n"
        "    fig, ax = plt.subplots()\n"
        "    ax.plot([0, a])\n"
        "    return fig\n"
        "box = explorer(draw, {'a': [1, 2, 3]}, caption='probe')\n"
        "slider = next(w for w in box.children if isinstance(w, ipywidgets.SelectionSlider))\n"
        "slider.value = 3\n"
        "print(ipywidgets.__version__, calls)\n"
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    frozen = explorer(draw, {'a': [1, 2]}, static=True)\n"
        "print(type(frozen.children[-1]).__name__, [str(w.message) for w in caught if 'explorer' in str(w.message)])")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup_cell(launch)), probe])
    colab.fresh()
    colab.run(nb, "probe", timeout=300)
    live, static = stream_text(nb.cells[1]).strip().splitlines()
    assert live == f"{colab.pins['ipywidgets']} [2, 3]"
    assert static == "HTML ['precomputed explorer frames need ipywidgets 8; showing the live explorer']"
