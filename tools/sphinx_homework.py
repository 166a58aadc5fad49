"""Sphinx extension: the problem sets on the website, in each edition.

Registered in ``_config.yml`` (``sphinx.local_extensions``). It adds

* the directive ``homework-sets``: one entry per set of ``homework/*.md``, in the order of the
  book, with the chapters it draws on, its questions, points and time, and links to the
  student notebook (Colab, Binder, and a zip of the notebook with its public tests);
* at the end of an HTML build, that zip, under ``homework/<set>/`` of the site, built by
  :mod:`tools.homework` (without otter's grading run, which ``make check`` does).

Neither edition publishes a set's instructor material (the instructor notebook, the model
answers and rubrics, the hidden tests, the autograder zip): ``make homework`` builds it on the
instructor's machine, and the instructor edition (``ib_edition`` of
``tools/sphinx_editions.py``) says so where the student edition says nothing.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import homework as hw  # noqa: E402
from tools import notebooks as nbtools  # noqa: E402

logger = logging.getLogger(__name__)
SITE_DIR = "homework"  # where the sets' files go in the built site


def edition(config) -> str:
    return getattr(config, "ib_edition", "instructor")


def site_files(name: str) -> dict[str, str]:
    """The files of one set in the site (either edition), by role, as paths from the site root."""
    return {"student": f"{SITE_DIR}/{name}/{name}-student.zip"}


def launch_urls(config: dict, name: str) -> dict[str, str]:
    """Colab and Binder links to the committed student notebook of a set."""
    repo = config["repository"]["url"].rstrip("/").removeprefix("https://github.com/")
    branch = config["repository"].get("branch", "main")
    path = f"{hw.STUDENT_COPY.as_posix()}/{name}/{name}.ipynb"
    buttons = config.get("launch_buttons", {})
    interface = "lab/tree" if buttons.get("notebook_interface", "jupyterlab") == "jupyterlab" else "tree"
    return {
        "Open in Colab": f"{buttons.get('colab_url', 'https://colab.research.google.com').rstrip('/')}"
                         f"/github/{repo}/blob/{branch}/{path}",
        "Open in Binder": f"{buttons.get('binderhub_url', 'https://mybinder.org').rstrip('/')}"
                          f"/v2/gh/{repo}/{branch}?urlpath={interface}/{path}",
    }


def _link(text: str, uri: str) -> nodes.reference:
    return nodes.reference("", text, refuri=uri, internal=False)


def _links(label: str, pairs: list[tuple[str, str]]) -> nodes.list_item:
    para = nodes.paragraph()
    para += nodes.strong(text=f"{label}: ")
    for i, (text, uri) in enumerate(pairs):
        if i:
            para += nodes.Text(" · ")
        para += _link(text, uri)
    return nodes.list_item("", para)


class HomeworkSets(SphinxDirective):
    """``{homework-sets}``: the problem sets with the links of this edition."""

    has_content = False

    def run(self):
        root = Path(self.env.srcdir)
        config = nbtools.load_config(root)
        ed = edition(self.config)
        up = "../" * self.env.docname.count("/")
        out = []
        for path in hw.sources(root):
            self.env.note_dependency(str(path))
            pset = hw.read_set(path)
            files = site_files(pset.name)
            section = nodes.container(classes=["homework-set"])
            head = nodes.paragraph()
            head += nodes.strong(text=pset.title)
            auto, manual = len(pset.autograded), len(pset.manual)
            head += nodes.Text(f". {len(pset.questions)} questions: {auto} autograded (public and hidden tests), "
                               f"{manual} written and graded by hand; {pset.points:g} points, about "
                               f"{pset.minutes / 60:.0f} hours. Draws on ")
            for i, chapter in enumerate(pset.chapters):
                if i:
                    head += nodes.Text(", ")
                ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{chapter}",
                                            refexplicit=False, refwarn=True, refdoc=self.env.docname)
                ref += nodes.inline(text=chapter)
                head += ref
            head += nodes.Text(".")
            section += head
            items = nodes.bullet_list()
            student = list(launch_urls(config, pset.name).items())
            student.append(("notebook and public tests (zip)", up + files["student"]))
            items += _links("Students", student)
            if ed == "instructor":
                para = nodes.paragraph()
                para += nodes.strong(text="Instructors: ")
                para += nodes.Text("the instructor notebook, the rubrics and the autograder are not published; "
                                   "build them with ")
                para += nodes.literal(text="make homework")
                para += nodes.Text(f" (into _build/homework/{pset.name}/autograder, below).")
                items += nodes.list_item("", para)
            section += items
            out.append(section)
        return out


def _inputs_digest(root: Path) -> str:
    """A hash of everything a set build reads, to reuse the previous build."""
    digest = hashlib.sha256()
    for path in [*hw.sources(root), root / "_config.yml", root / "_toc.yml", root / "requirements.txt",
                 Path(hw.__file__), Path(nbtools.__file__)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def built_sets(root: Path) -> Path:
    """The sets built without otter's test run, reused while their inputs are unchanged.

    Each build goes to a private folder renamed into place, so that two editions built at
    once (``make -j``) never read a half-written one.
    """
    cache = root / "_build" / ".homework-site"
    digest = _inputs_digest(root)
    target = cache / digest
    if not target.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        for old in cache.iterdir():
            if old.name != digest and ".tmp" not in old.name:
                shutil.rmtree(old, ignore_errors=True)
        partial = cache / f"{digest}.tmp{os.getpid()}"
        hw.build(partial, run_tests=False, package=False, root=root)
        try:
            partial.rename(target)
        except OSError:  # another build got there first
            shutil.rmtree(partial, ignore_errors=True)
    return target


def write_set_files(app, exception):
    """Write each set's student zip into the site."""
    if exception is not None or app.builder.format != "html":
        return
    root = Path(app.srcdir)
    built = built_sets(root)
    for path in hw.sources(root):
        name = path.stem
        files = {role: Path(app.outdir) / rel for role, rel in site_files(name).items()}
        shutil.rmtree(Path(app.outdir) / SITE_DIR / name, ignore_errors=True)
        files["student"].parent.mkdir(parents=True, exist_ok=True)
        student = built / name / "student"
        with zipfile.ZipFile(files["student"], "w", zipfile.ZIP_DEFLATED) as zf:
            for item in sorted(student.rglob("*")):
                if item.is_file():
                    zf.write(item, Path(name) / item.relative_to(student))


def setup(app):
    app.add_directive("homework-sets", HomeworkSets)
    app.connect("build-finished", write_set_files)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
