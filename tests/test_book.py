"""The book's structure: chapters, paired notebooks, exercises and editions."""
from __future__ import annotations

import json
import re
import shutil

import jupytext
import pytest

from tools import cell_lengths, format_cells, parallel_execution
from tools import notebooks as nbtools

from .vacuity import vacuous_asserts

CHAPTERS = nbtools.chapters()
IDS = [p.relative_to(nbtools.ROOT).as_posix() for p in CHAPTERS]
CONFIG = nbtools.load_config()


def test_toc_documents_exist():
    missing = [p for p in nbtools.toc_files() if not p.exists()]
    assert not missing, f"_toc.yml names missing files: {missing}"


def test_book_has_chapters():
    assert CHAPTERS, "no executable chapter found in _toc.yml"


def test_paired_notebooks_in_sync():
    stale = nbtools.stale_pairs()
    assert not stale, "run `make notebooks`:\n" + "\n".join(diff for _, diff in stale)


def test_code_cells_are_formatted():
    """Readers meet code that fits the page: ruff's format, at most 88 columns (the
    chapters, and the problem sets that `make format` formats too)."""
    problems = format_cells.check(CHAPTERS + sorted((nbtools.ROOT / "homework").glob("*.md")))
    assert not problems, (
        "run `make format`, then wrap by hand the comments and strings ruff leaves long:\n"
        + "\n".join(problems)
    )


def test_code_cells_compile_without_warnings():
    """Python 3.12 and newer (Colab's) print a SyntaxWarning above a cell with a stray escape
    such as "$\\sqrt{n}$" in a plain string: the student would see it, the site would not."""
    import warnings

    from IPython.core.inputtransformer2 import TransformerManager

    found = []
    for md in CHAPTERS:
        cells = [c for c in jupytext.read(md, fmt="md:myst").cells if c.cell_type == "code"]
        for i, cell in enumerate(cells):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                compile(TransformerManager().transform_cell(cell.source), f"cell {i}", "exec")
            found += [f"{md.relative_to(nbtools.ROOT)}, code cell {i}: {w.message}" for w in caught]
    assert not found, "\n".join(found)


def test_format_check_reports_long_lines(tmp_path, monkeypatch):
    """The check above can fail: a long comment and an unformatted cell are both reported."""
    shutil.copy(nbtools.ROOT / "pyproject.toml", tmp_path)
    monkeypatch.setattr(format_cells, "ROOT", tmp_path)
    chapter = tmp_path / "chapter.md"
    chapter.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  name: python3\n---\n\n"
        "```{code-cell} ipython3\nx = 1\n# " + " ".join(["why"] * 25) + "\n```\n\n"
        "```{code-cell} ipython3\ny=[1,2]\n```\n"
    )
    assert sorted(format_cells.check([chapter])) == [
        "chapter.md:11: Line too long (101 > 88)",
        "chapter.md:15: cell not formatted (run make format)",
    ]


def test_visible_code_cells_are_short():
    """A chapter reads like a lecture: no shown code cell runs over a screen."""
    problems = cell_lengths.too_long(CHAPTERS)
    assert not problems, (
        f"split these cells between statements (limit {cell_lengths.LIMIT} lines; "
        f"{cell_lengths.HARD} for a cell that cannot be split or holds asserts):\n"
        + "\n".join(problems)
    )


def test_cell_length_check_can_fail(tmp_path):
    """The check above reports a long cell, and skips removed and collapsed ones."""
    long = "".join(f"x{i} = {i}\n" for i in range(26))
    loop = "for i in range(2):\n" + "".join(f"    y{i} = {i}\n" for i in range(30))
    chapter = tmp_path / "chapter.md"
    chapter.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n"
        "---\n\n"
        f"```{{code-cell}} ipython3\n{long}```\n\n"
        f"```{{code-cell}} ipython3\n:tags: [hide-input]\n\n{long}```\n\n"
        f"```{{code-cell}} ipython3\n:tags: [remove-cell]\n\n{long}```\n\n"
        f"```{{code-cell}} ipython3\n{loop}```\n\n"
        f"```{{code-cell}} ipython3\n{loop}{loop}```\n"
    )
    assert cell_lengths.too_long([chapter]) == [
        "chapter.md: 26 lines (limit 25): x0 = 0",
        "chapter.md: 62 lines (limit 38): for i in range(2):",
    ]


@pytest.mark.parametrize("edition", nbtools.EDITIONS)
@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_notebook_opens_with_setup_cell(md, edition):
    nb = json.loads(nbtools.launch_notebook_path(md, edition).read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    first = "".join(code[0]["source"])
    assert first == nbtools.setup_cell_source(CONFIG)
    assert CONFIG["repository"]["url"] in first
    assert all(not c.get("outputs") for c in code), "launch notebooks carry no outputs"
    assert "widgets" not in nb["metadata"]


def evidence_cells(nb) -> list[bool]:
    """For each cell of a chapter, whether it lies inside an evidence block."""
    inside, flags = False, []
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "{evidence-start}" in cell.source:
            inside = True
        flags.append(inside)
        if cell.cell_type == "markdown" and "{evidence-end}" in cell.source:
            inside = False
    return flags


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_chapter_checks_its_claims_in_its_evidence(md):
    """Asserts exist, a reader can open every one (none in a removed cell, each in an
    evidence block), and none of them could pass whatever the solvers returned."""
    nb = jupytext.read(md, fmt="md:myst")
    in_evidence = evidence_cells(nb)
    checks = [(c, inside) for c, inside in zip(nb.cells, in_evidence)
              if c.cell_type == "code" and re.search(r"^\s*assert\b", c.source, re.M)]
    assert checks, f"{md.name} has no assert cell checking its claims"
    hidden = [c.source.splitlines()[0] for c, _ in checks if "remove-cell" in c.metadata.get("tags", [])]
    assert not hidden, f"{md.name}: checks in removed cells, which no reader can open: {hidden}"
    # outside the evidence: a solution's code, and a reproducibility guard (tagged so, and
    # saying so), which checks that a run by hand is a trial of the sweep, not a claim
    loose = [c.source.splitlines()[0] for c, inside in checks if not inside
             and not any(t.startswith("solution") or t == "reproducibility"
                         for t in c.metadata.get("tags", []))]
    assert not loose, f"{md.name}: checks outside an evidence block: {loose}"
    code = [c for c in nb.cells if c.cell_type == "code"]
    vacuous = vacuous_asserts([c.source for c in code])
    assert not vacuous, f"{md.name} has asserts that cannot fail:\n" + "\n".join(
        f"  assert {src}  <- {why}" for src, why in vacuous)


VACUOUS = [
    ("n = 20\nassert n > 10", "literals"),
    ("DIMS = [400, 1600]\nfor m in (4, 6):\n    assert 0.3 >= 3 * np.sqrt(40 / (m * DIMS[0]))", "literals"),
    ("x = solve()\nassert x == x", "itself"),
    ("r = run()\nassert r['a'].max() >= r['a'][0]", "maximum"),
    ("r = run()\nassert np.max(r) >= r[2]", "maximum"),
    ("import numpy as np\nassert np.sqrt(4) == 2", "literals"),
]
MEANINGFUL = [
    "x = solve()\nassert x < 1",
    "xs = []\nfor i in range(3):\n    xs.append(run(i))\nassert np.all(np.array(xs) > 0)",
    "table = {}\ntable['a'], table['b'] = fit()\nassert table['a'] > 0",
    "n = 20\nn = run(n)\nassert n > 10",
    "def f(a):\n    assert a > 0\n",
    "assert run(rng=1) == run(rng=1)",
    "n = 20\nassert all(run(d) > 0 for d in range(n))",
]


@pytest.mark.parametrize("source, reason", VACUOUS)
def test_vacuity_check_flags_asserts_that_cannot_fail(source, reason):
    found = vacuous_asserts([source])
    assert len(found) == 1 and reason in found[0][1], found


@pytest.mark.parametrize("source", MEANINGFUL)
def test_vacuity_check_accepts_asserts_on_computed_results(source):
    assert vacuous_asserts([source]) == []


def _exercise_labels(text: str) -> tuple[list[str], list[str]]:
    exercises = re.findall(r"^(?:`{3,}|:{3,})\{exercise(?:-start)?\}[^\n]*\n:label:\s*(\S+)", text, re.M)
    solutions = re.findall(r"^(?:`{3,}|:{3,})\{solution(?:-start)?\}\s*(\S+)", text, re.M)
    return exercises, solutions


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_every_exercise_has_a_solution(md):
    exercises, solutions = _exercise_labels(md.read_text())
    assert 2 <= len(exercises) <= 4, f"{md.name}: {len(exercises)} exercises, the template asks for 2-4"
    assert sorted(exercises) == sorted(solutions), f"{md.name}: exercises {exercises} vs solutions {solutions}"


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_student_edition_has_no_solution(md):
    text = nbtools.strip_solutions(md.read_text())
    exercises, solutions = _exercise_labels(text)
    assert exercises and not solutions
    student = json.loads(nbtools.launch_notebook_path(md, "student").read_text())
    assert not any("Solution to Exercise" in "".join(c["source"]) for c in student["cells"])
    instructor = json.loads(nbtools.launch_notebook_path(md, "instructor").read_text())
    assert sum("".join(c["source"]).count("Solution to Exercise") for c in instructor["cells"]) == len(exercises)


def test_strip_solutions_removes_both_forms():
    text = (
        "before\n```{exercise}\n:label: a\nQ\n```\n"
        "```{solution} a\n:class: dropdown\nsecret one\n```\n"
        "```{solution-start} b\n```\nsecret two\n```{code-cell} ipython3\nsecret_code()\n```\n"
        "```{solution-end}\n```\nafter\n"
    )
    out = nbtools.strip_solutions(text)
    assert "secret" not in out and "before" in out and "after" in out and "{exercise}" in out
    with pytest.raises(ValueError, match="solution-end"):
        nbtools.strip_solutions("```{solution-start} b\n```\nno end\n")


def test_myst_becomes_plain_markdown():
    ctx = nbtools._Context(cite=lambda role, keys: f"<{role}:{','.join(keys)}>")
    text = (
        "(lab)=\n```{prf:theorem} Gap\n:label: thm-x\n\nBody $x$.\n```\n"
        "See {prf:ref}`Theorem 1 <thm-x>`, {cite:t}`a,b` and {eq}`eq-1`.\n"
        "$$ x $$ (eq-1)\n:::{note}\nA note.\n:::\n"
    )
    out = nbtools._rewrite(text, ctx)
    assert "> **Theorem (Gap).**\n>\n> Body $x$." in out
    assert "See Theorem 1, <cite:t:a,b> and (eq-1)." in out
    assert "> **Note.**\n>\n> A note." in out
    assert "(lab)=" not in out and "$$ x $$\n" in out and "{" not in out


def test_citations_resolve_from_the_bibliography():
    cite = nbtools._citation_formatter(nbtools.ROOT)
    assert cite("cite:t", ["lai2026relu"]) == "Lai et al. (2026)"
    assert cite("cite:p", ["vardi2021implicit"]) == "(Vardi and Shamir, 2021)"


def test_an_ibcore_edit_forgets_the_executed_chapters(tmp_path, monkeypatch):
    # jupyter-cache keys a chapter on its code only: the build forgets the executions (and
    # Sphinx's saved pages) made from other ibcore sources (tools/parallel_execution.py)
    monkeypatch.setattr(parallel_execution, "ROOT", tmp_path)
    module = tmp_path / "ibcore" / "relu" / "gd.py"
    module.parent.mkdir(parents=True)
    module.write_text("x = 1\n")
    cache = tmp_path / "_build" / ".jupyter_cache"

    def build() -> bool:  # one build's check; then the build fills the cache again
        forgot = parallel_execution.forget_if_changed(cache, parallel_execution.digest([tmp_path / "ibcore"]))
        cache.mkdir(parents=True, exist_ok=True)
        return forgot

    assert not build()  # the first build: nothing to forget
    assert not build()  # nothing changed
    module.write_text("x = 2\n")
    assert build() and not build()  # an edit
    (module.parent / "new.py").write_text("")
    assert build()  # a module added
    (module.parent / "new.py").unlink()
    assert build()  # ...or removed


@pytest.mark.parametrize("edition", ["instructor", "student"])
def test_an_edition_config_outside_the_root_shares_the_execution_cache(edition, tmp_path):
    """The configs of builds outside _build/html (the student edition, make linkcheck) read
    the build's executions and the book's extensions from wherever they are written."""
    import yaml

    config = yaml.safe_load(nbtools.edition_config(edition, tmp_path / "c.yml").read_text(encoding="utf-8"))
    assert config["execute"]["cache"] == str(nbtools.ROOT / "_build" / ".jupyter_cache")
    assert all(path.startswith(str(nbtools.ROOT) + "/") for path in config["sphinx"]["local_extensions"].values())
    student = edition == "student"
    assert (config["sphinx"]["config"].get("ib_edition") == "student") == student
    assert config["title"].endswith(nbtools.STUDENT_TITLE_SUFFIX) == student
    with pytest.raises(ValueError, match="edition"):
        nbtools.edition_config("teacher", tmp_path / "c.yml")


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_text_pasted_with_glue_md_is_glued_as_text(path):
    """``{glue:md}`key``` renders only text/markdown: a key glued by a bare ``glue(key, "...")``
    (a plain str has no Markdown form) stops the strict build; glue_text/glue_estimate give it."""
    source = path.read_text(encoding="utf-8")
    pasted = set(re.findall(r"\{glue:md\}`([\w-]+)(?::myst)?`", source))
    bare = set(re.findall(r"(?<![\w.])glue\(\s*[\"']([\w-]+)[\"']", source))
    as_text = set(re.findall(r"glue_(?:text|estimate)\(\s*[\"']([\w-]+)[\"']", source))
    wrong = sorted(pasted & bare - as_text)
    assert not wrong, f"{path.name}: pasted with {{glue:md}} but glued with bare glue(): {wrong}"
