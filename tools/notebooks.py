"""Generate the launchable ``.ipynb`` of every chapter from its MyST ``.md`` source.

The ``.md`` chapter is the single source. This module derives from it

* the **paired notebook** committed beside it (``book/.../chapter.ipynb``),
  which the theme's Colab and Binder buttons open: output-free, with MyST
  directives and roles rewritten as plain Jupyter Markdown (Colab does not
  know MyST), the book's MathJax macros defined in a first cell, and a set-up
  cell that installs ibcore from the repository when it is missing;
* the **student notebooks** (``student/book/.../chapter.ipynb``): the same
  with every exercise solution removed, which the student edition of the
  site (``make student``) launches;
* the **downloadable executed notebook** of each chapter, for either edition
  (:func:`executed_notebook_text`, used by ``tools/sphinx_editions.py``).

Usage::

    python -m tools.notebooks sync                   # rewrite stale generated notebooks
    python -m tools.notebooks check                  # exit 1 if any is stale
    python -m tools.notebooks student-config OUT     # the student edition's _config.yml
    python -m tools.notebooks instructor-config OUT  # the instructor's, for make linkcheck
"""
from __future__ import annotations

import argparse
import copy
import difflib
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
FRONT_MATTER_LINES = 40
#: what the student edition adds to the book's title (its pages, its PDF)
STUDENT_TITLE_SUFFIX = " (student edition)"

# ---------------------------------------------------------------- book layout


def load_config(root: Path = ROOT) -> dict:
    """The parsed ``_config.yml``."""
    return yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))


def toc_files(root: Path = ROOT) -> list[Path]:
    """Every document named in ``_toc.yml``, in reading order, as ``.md`` paths."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    found: list[Path] = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    found.append(root / f"{node[key]}.md")
            for value in node.values():
                if isinstance(value, (list, dict)):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def is_myst_notebook(path: Path) -> bool:
    """True when ``path`` is a ``.md`` file whose front matter has a ``kernelspec``."""
    path = Path(path)
    if path.suffix != ".md" or not path.is_file():
        return False
    with path.open(encoding="utf-8") as fh:
        head = [next(fh, "") for _ in range(FRONT_MATTER_LINES)]
    if not head or head[0].strip() != "---":
        return False
    for line in head[1:]:
        if line.strip() == "---":
            return False
        if line.startswith("kernelspec:"):
            return True
    return False


def chapters(root: Path = ROOT) -> list[Path]:
    """The executable chapters (MyST notebooks) of the book, in reading order."""
    return [p for p in toc_files(root) if is_myst_notebook(p)]


# ------------------------------------------------------------ MyST directives

_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:.-]+)\}[ \t]*(?P<arg>.*?)\s*$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")


def _closing(fence: str) -> re.Pattern:
    return re.compile("^" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")


def strip_solutions(text: str) -> str:
    """Remove every exercise solution from MyST source text.

    Both forms are removed: a ``{solution}`` directive, and everything from a
    ``{solution-start}`` directive to its ``{solution-end}`` (code cells included).
    """
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    gated = False
    while i < len(lines):
        m = _FENCE.match(lines[i].rstrip("\n"))
        if m and m["name"] in ("solution", "solution-start", "solution-end"):
            close = _closing(m["fence"])
            j = i + 1
            while j < len(lines) and not close.match(lines[j].rstrip("\n")):
                j += 1
            if m["name"] == "solution-start":
                gated = True
            elif m["name"] == "solution-end":
                gated = False
            i = j + 1
            continue
        if not gated:
            out.append(lines[i])
        i += 1
    if gated:
        raise ValueError("a {solution-start} has no matching {solution-end}")
    return "".join(out)


@dataclass
class _Context:
    """What the Markdown rewriting needs to know about the whole chapter."""

    cite: callable
    exercise_numbers: dict = field(default_factory=dict)
    next_exercise: int = 1

    def exercise(self, label: str | None) -> int:
        if label and label in self.exercise_numbers:
            return self.exercise_numbers[label]
        number = self.next_exercise
        self.next_exercise += 1
        if label:
            self.exercise_numbers[label] = number
        return number


_ADMONITION_TITLES = {
    "note": "Note", "tip": "Tip", "important": "Important", "warning": "Warning",
    "caution": "Caution", "attention": "Attention", "hint": "Hint", "seealso": "See also",
    "danger": "Danger", "error": "Error",
}


def _quote(body: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in body.strip("\n").splitlines())


def _render_directive(name: str, arg: str, options: dict, body: str, ctx: _Context) -> str:
    body = _rewrite(body, ctx).strip("\n")
    kind = name.split(":", 1)[1] if name.startswith("prf:") else name
    if name == "prf:proof":
        return f"*Proof.* {body} $\\square$\n"
    if name.startswith("prf:"):
        title = f"**{kind.capitalize()}{f' ({arg})' if arg else ''}.**"
        return _quote(f"{title}\n\n{body}") + "\n"
    if name in ("exercise", "exercise-start"):
        number = ctx.exercise(options.get("label"))
        head = f"**Exercise {number}{f' ({arg})' if arg else ''}.**"
        return f"---\n\n{head} {body}\n"
    if name == "exercise-end":
        return "\n---\n"
    if name == "solution":
        number = ctx.exercise(arg or None)
        return (f"<details><summary><b>Solution to Exercise {number}</b></summary>\n\n"
                f"{body}\n\n</details>\n")
    if name == "solution-start":
        number = ctx.exercise(arg or None)
        return f"**Solution to Exercise {number}.** {body}\n"
    if name == "solution-end":
        return "\n"
    if name == "math":
        return f"$$\n{body}\n$$\n"
    if name == "admonition":
        return _quote(f"**{arg}.**\n\n{body}" if arg else body) + "\n"
    if name in _ADMONITION_TITLES:
        label = arg or _ADMONITION_TITLES[name]
        return _quote(f"**{label}.**\n\n{body}") + "\n"
    if name in ("code-block", "code", "sourcecode"):
        return f"```{arg}\n{body}\n```\n"
    if name in ("bibliography", "glue", "glue:figure", "tableofcontents", "toctree"):
        return ""
    if name == "dropdown":
        return f"<details><summary>{arg or 'Details'}</summary>\n\n{body}\n\n</details>\n"
    # the teaching blocks (tools/sphinx_teaching.py): the evidence under a heading, which
    # JupyterLab and Colab fold; a Think prompt quoted, its answer collapsed after it
    if name == "evidence-start":
        return f"#### Evidence: {_ROLE.sub(lambda m: _render_role(m, ctx), arg)}\n"
    if name == "evidence-end":
        return ""
    if name == "answer":
        return f"<details><summary><b>Answer</b></summary>\n\n{body}\n\n</details>\n"
    if name == "think":
        question, _, answer = body.partition("<details><summary><b>Answer</b></summary>")
        answer = f"\n<details><summary><b>Answer</b></summary>{answer}" if answer else ""
        arg = _ROLE.sub(lambda m: _render_role(m, ctx), arg)
        return _quote(f"**Think: {arg}**\n\n{question}") + "\n" + answer
    return body + "\n"


_ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<content>[^`]+)`")
_TEXT_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def _render_role(m: re.Match, ctx: _Context) -> str:
    role, content = m["role"], m["content"]
    if role.startswith("cite"):
        return ctx.cite(role, [k.strip() for k in content.split(",")])
    if role == "math":
        return f"${content}$"
    explicit = _TEXT_TARGET.match(content)
    if role == "eq":
        return f"({content})"
    if role.startswith("py:"):  # a link to the Library reference: the name, as code
        return f"`{explicit['text'] if explicit else content.lstrip('~')}`"
    if explicit:
        return explicit["text"]
    if role == "doc":
        return Path(content).name.replace("_", " ")
    return content


def _rewrite(text: str, ctx: _Context) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _FENCE.match(line)
        if m:
            close = _closing(m["fence"])
            j = i + 1
            options: dict = {}
            while j < len(lines) and (om := _OPTION.match(lines[j])):
                options[om["key"]] = om["value"]
                j += 1
            body_start = j
            depth = 0
            while j < len(lines):
                inner = _FENCE.match(lines[j])
                if inner and inner["fence"] == m["fence"]:
                    depth += 1
                elif close.match(lines[j]):
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            body = "\n".join(lines[body_start:j])
            out.append(_render_directive(m["name"], m["arg"], options, body, ctx))
            i = j + 1
            continue
        if re.match(r"^\([\w:.-]+\)=\s*$", line) or re.match(r"^%", line):
            i += 1  # MyST targets and comments
            continue
        line = re.sub(r"(\$\$)\s*\([\w:.-]+\)\s*$", r"\1", line)  # equation labels
        out.append(_ROLE.sub(lambda mm: _render_role(mm, ctx), line))
        i += 1
    return "\n".join(out)


def _citation_formatter(root: Path):
    from pybtex.database import parse_file

    entries = parse_file(str(root / "references.bib")).entries

    def names(key: str) -> tuple[str, str]:
        entry = entries.get(key)
        if entry is None:
            return key, "?"
        people = entry.persons.get("author", [])
        last = [" ".join(p.last_names) for p in people]
        who = last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2 else f"{last[0]} et al."
        return who.replace("{", "").replace("}", ""), entry.fields.get("year", "n.d.")

    def cite(role: str, keys: list[str]) -> str:
        parts = [names(k) for k in keys]
        if role == "cite:t":
            return "; ".join(f"{who} ({year})" for who, year in parts)
        return "(" + "; ".join(f"{who}, {year}" for who, year in parts) + ")"

    return cite


# ------------------------------------------------------------------ notebooks


def install_ref(config: dict) -> str:
    """The git ref that the set-up cell installs ibcore from: the release tag ``ibcore.install_ref``
    when one is set, else the branch that the launch buttons open (``repository.branch``), so that
    a notebook and the ibcore it installs always come from the same commit."""
    tag = (config.get("ibcore") or {}).get("install_ref")
    return str(tag) if tag else config["repository"].get("branch", "main")


def install_ref_problems(config: dict, root: Path = ROOT) -> list[str]:
    """Why the set-up cell's ref would install another ibcore than this checkout's ([] if none).

    A configured tag must exist in the repository (``git tag``) and hold this checkout's
    ``ibcore/`` and ``pyproject.toml``; without a tag, the ref is the launch buttons' branch.
    """
    tag = (config.get("ibcore") or {}).get("install_ref")
    if not tag:
        return []
    git = ["git", "-C", str(root)]
    listed = subprocess.run(git + ["tag", "--list", str(tag)], capture_output=True, text=True)
    if listed.returncode != 0 or listed.stdout.strip() != str(tag):
        return [f"ibcore.install_ref is {tag!r}, but the repository has no such tag (git tag --list {tag}): "
                "push the tag, or remove install_ref to install from the branch the launch buttons open"]
    diff = subprocess.run(git + ["diff", "--quiet", str(tag), "--", "ibcore", "pyproject.toml"],
                          capture_output=True, text=True)
    if diff.returncode != 0:
        return [f"the tag {tag!r} holds another ibcore than this checkout (git diff {tag} -- ibcore "
                "pyproject.toml): the notebooks would install an older library; tag this commit"]
    return []


def setup_cell_source(config: dict) -> str:
    """Source of the install cell that opens every generated notebook."""
    url = config["repository"]["url"].rstrip("/")
    ref = install_ref(config)
    return (
        "# Set-up: install the book's library `ibcore` if this kernel lacks it (Colab, a bare Jupyter).\n"
        "try:\n"
        "    import ibcore\n"
        "except ModuleNotFoundError:\n"
        "    import subprocess, sys\n"
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"--quiet\",\n"
        f"                    \"ibcore @ git+{url}@{ref}\"], check=True)\n"
        "    import ibcore\n"
        "print(\"ibcore\", ibcore.__version__)"
    )


def macros_cell_source(config: dict) -> str:
    """A Markdown cell defining the book's MathJax macros, for Jupyter and Colab."""
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    defs = []
    for name, spec in macros.items():
        if isinstance(spec, list):
            defs.append(f"\\newcommand{{\\{name}}}[{spec[1]}]{{{spec[0]}}}")
        else:
            defs.append(f"\\newcommand{{\\{name}}}{{{spec}}}")
    return "$" + " ".join(defs) + "$"


def build_notebook(md_path: Path, *, edition: str = "instructor", root: Path = ROOT) -> nbformat.NotebookNode:
    """The launchable notebook of one chapter (no outputs, Jupyter Markdown, set-up cell first)."""
    if edition not in ("instructor", "student"):
        raise ValueError(f"edition must be 'instructor' or 'student', got {edition!r}")
    config = load_config(root)
    text = Path(md_path).read_text(encoding="utf-8")
    if edition == "student":
        text = strip_solutions(text)
    nb = jupytext.reads(text, fmt="md:myst")
    ctx = _Context(cite=_citation_formatter(root))
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            source = _rewrite(cell.source, ctx).strip("\n")
            if not source.strip():
                continue
            cells.append(nbformat.v4.new_markdown_cell(source))
        elif cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(cell.source)
            tags = cell.metadata.get("tags")
            if tags:
                new.metadata["tags"] = list(tags)
            cells.append(new)
        else:
            cells.append(copy.deepcopy(cell))
    first_md = next((i for i, c in enumerate(cells) if c.cell_type == "markdown"), -1)
    source_rel = Path(md_path).resolve().relative_to(root).as_posix()
    banner = nbformat.v4.new_markdown_cell(
        f"*{config['title']}* — generated from `{source_rel}`"
        f"{' (student edition: solutions removed)' if edition == 'student' else ''}. "
        "Run the cells from the top; the first code cell installs the book's library when it is missing.\n\n"
        + macros_cell_source(config))
    setup = nbformat.v4.new_code_cell(setup_cell_source(config))
    setup.metadata["tags"] = ["setup"]
    cells[first_md + 1:first_md + 1] = [banner, setup]
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:03d}"  # deterministic ids keep the pair diff-stable
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return out


def notebook_text(md_path: Path, *, edition: str = "instructor", root: Path = ROOT) -> str:
    """The ``.ipynb`` file content of one chapter, exactly as committed."""
    return nbformat.writes(build_notebook(md_path, edition=edition, root=root)) + "\n"


EDITIONS = ("instructor", "student")


def launch_notebook_path(md_path: Path, edition: str, root: Path = ROOT) -> Path:
    """Where the committed notebook of a chapter lives: beside the ``.md``, or under ``student/``."""
    rel = Path(md_path).resolve().relative_to(root).with_suffix(".ipynb")
    return root / rel if edition == "instructor" else root / "student" / rel


def _generated(root: Path):
    for md in chapters(root):
        for edition in EDITIONS:
            yield launch_notebook_path(md, edition, root), notebook_text(md, edition=edition, root=root)


def stale_pairs(root: Path = ROOT) -> list[tuple[Path, str]]:
    """Generated notebooks whose committed file differs from the one generated now, with a diff."""
    stale = []
    for path, want in _generated(root):
        have = path.read_text(encoding="utf-8") if path.exists() else ""
        if have != want:
            diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                                str(path), "generated", n=1))
            stale.append((path, diff[:3000]))
    return stale


def sync(root: Path = ROOT) -> list[Path]:
    """Rewrite every stale generated notebook; return the ones written."""
    written = []
    for path, text in _generated(root):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def executed_from_cache(md_path: Path, cache_path: Path) -> nbformat.NotebookNode:
    """The chapter as executed by the book build, read from its jupyter-cache.

    The cache is keyed by the code cells, so a chapter whose code changed since
    the build has no match and raises ``KeyError``. (The ``jupyter_execute``
    copies are not used: myst-nb writes them without outputs on a cache hit.)
    """
    from jupyter_cache import get_cache

    nb = jupytext.read(md_path, fmt="md:myst")
    _, merged = get_cache(str(cache_path)).merge_match_into_notebook(nb)
    return merged


def executed_notebook_text(md_path: Path, executed: nbformat.NotebookNode, *, edition: str = "instructor",
                           root: Path = ROOT) -> str:
    """The edition's launchable notebook of a chapter, carrying the outputs of an executed copy.

    Code cells are matched by source, in order; cells the edition drops (solutions) are
    skipped. Widget views are dropped (they need the widget state of the page), their
    text fallback is kept.
    """
    nb = build_notebook(md_path, edition=edition, root=root)
    ran = [c for c in executed.cells if c.cell_type == "code"]
    pos = 0
    for cell in nb.cells:
        if cell.cell_type != "code" or "setup" in cell.metadata.get("tags", []):
            continue
        match = next((i for i in range(pos, len(ran)) if ran[i].source == cell.source), None)
        if match is None:
            continue
        pos = match + 1
        cell.execution_count = ran[match].get("execution_count")
        outputs = []
        for out in ran[match].get("outputs", []):
            data = out.get("data")
            if data is not None and "application/vnd.jupyter.widget-view+json" in data:
                out = copy.deepcopy(out)
                del out["data"]["application/vnd.jupyter.widget-view+json"]
                if not out["data"]:
                    continue
            outputs.append(out)
        cell.outputs = outputs
    return nbformat.writes(nb) + "\n"


def edition_config(edition: str, out: Path, root: Path = ROOT) -> Path:
    """Write a ``_config.yml`` for a build outside ``_build/html`` (``--config OUT --path-output
    ...``) that shares the execution cache. The student edition's: no solutions, student
    notebooks. The instructor's serves Sphinx's linkcheck builder (``make linkcheck``), which
    Jupyter Book would otherwise run into the site's folder."""
    config = load_config(root)
    if edition == "student":
        config["title"] = config["title"] + STUDENT_TITLE_SUFFIX
        config["sphinx"]["config"]["ib_edition"] = "student"
        config["repository"]["path_to_book"] = "student"  # launch buttons open student/book/...ipynb
    elif edition != "instructor":
        raise ValueError(f"edition must be 'instructor' or 'student', got {edition!r}")
    config.setdefault("execute", {})["cache"] = str(root / "_build" / ".jupyter_cache")
    # paths in a config file outside the book root are read relative to that file
    config["sphinx"]["local_extensions"] = {name: str(root / path)
                                            for name, path in config["sphinx"]["local_extensions"].items()}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sync", help="rewrite the generated notebooks")
    sub.add_parser("check", help="fail if a generated notebook is out of date")
    for edition in ("student", "instructor"):
        config = sub.add_parser(f"{edition}-config", help=f"write the {edition} edition's _config.yml "
                                "for a build outside _build/html, sharing the execution cache")
        config.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "sync":
        for path in sync():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if args.command == "check":
        stale = stale_pairs()
        for path, diff in stale:
            print(f"{path.relative_to(ROOT)} is out of date with its .md; run `make notebooks`\n{diff}")
        return 1 if stale else 0
    print(edition_config(args.command.removesuffix("-config"), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
