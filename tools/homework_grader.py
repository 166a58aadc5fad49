"""The autograder's entry point, copied into each set's autograder zip as ``run_otter.py``.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once to build the
grading image, then for every submission runs ``run_autograder``, which starts this file
with the Python that ``setup.sh`` installed. It

1. runs otter's autograder (``otter.run.run_autograder.main``) in the folder above its own
   (``/autograder``): otter executes the submitted notebook, runs every test, and writes
   ``results/results.json``;
2. adds to ``results.json`` one entry per written question: the student's answer, with the
   question's points and rubric (``written.json`` beside this file). Gradescope shows these
   entries to the course staff only (visibility ``hidden``): graders read each derivation in
   the same assignment and grade it by hand, with the rubric, in the manually graded
   questions of the assignment's outline.

Only the standard library is needed for step 2, so that the instructor can also print the
written answers of a submission anywhere::

    python run_otter.py --written SUBMISSION.ipynb [WRITTEN.json]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

BEGIN, END = "<!-- BEGIN QUESTION -->", "<!-- END QUESTION -->"
# otter's placeholder in the answer cell of a written question
PLACEHOLDER = "_Type your answer here, replacing this text._"
HERE = Path(__file__).resolve().parent


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def answer_groups(notebook: dict) -> list[str]:
    """The text between each ``BEGIN QUESTION`` marker and the next ``END QUESTION`` marker.

    Otter marks the written questions of the student notebook with these two comments, in
    cells the student cannot edit: the first cell holds the marker and the question, the
    cells that follow (until the next marker) hold the answer. Code cells keep their fences.
    """
    groups: list[list[str]] = []
    current: list[str] | None = None
    for cell in notebook.get("cells", []):
        text = _source(cell)
        if current is not None and text.lstrip().startswith(END):
            groups.append(current)
            current = None
        if BEGIN in text:
            current = []  # this cell is the question; the answer follows
            continue
        if current is not None:
            if cell.get("cell_type") == "code":
                text = f"```python\n{text}\n```" if text.strip() else ""
            current.append(text)
    if current is not None:
        groups.append(current)
    return ["\n\n".join(part.strip() for part in group if part.strip()) for group in groups]


def written_entries(notebook: dict, questions: list[dict]) -> list[dict]:
    """Gradescope test entries with each written question's answer, points and rubric.

    ``questions`` is the set's ``written.json``: ``[{name, title, points, rubric}, ...]`` in
    the order of the notebook, ``rubric`` a list of ``{points, text, partial: [...]}``.
    """
    answers = answer_groups(notebook)
    entries = []
    for i, question in enumerate(questions):
        answer = answers[i] if i < len(answers) else ""
        if not answer.strip() or answer.strip() == PLACEHOLDER:
            answer = "*(no answer: the answer cell was left as handed out)*"
        lines = [f"**{question['title']}**, {question['points']:g} points, graded by hand.", "",
                 "#### The student's answer", "", answer, "", "#### Rubric", ""]
        for item in question["rubric"]:
            lines.append(f"- **{item['points']:g}**: {item['text']}")
            lines += [f"  - **{p['points']:g}** (partial): {p['text']}" for p in item["partial"]]
        entries.append({"name": f"{question['name']} (written, graded by hand)",
                        "output": "\n".join(lines), "output_format": "md", "visibility": "hidden"})
    if len(answers) != len(questions):
        entries.append({"name": "Written answers: structure", "visibility": "hidden", "output":
                        f"The submission has {len(answers)} written-answer sections; the set has "
                        f"{len(questions)} written questions. Read the notebook itself for these answers."})
    return entries


def add_written_answers(autograder_dir: Path) -> None:
    """Append the written answers of the graded submission to ``results/results.json``."""
    questions = json.loads((HERE / "written.json").read_text(encoding="utf-8"))
    submissions = sorted((Path(autograder_dir) / "submission").glob("*.ipynb"))
    results_path = Path(autograder_dir) / "results" / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8"))
    if submissions:
        notebook = json.loads(submissions[0].read_text(encoding="utf-8"))
        results.setdefault("tests", []).extend(written_entries(notebook, questions))
    results_path.write_text(json.dumps(results, indent=4), encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--written"]:
        notebook = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        written = Path(argv[2]) if len(argv) > 2 else HERE / "written.json"
        for entry in written_entries(notebook, json.loads(written.read_text(encoding="utf-8"))):
            print(f"=== {entry['name']}\n{entry['output']}\n")
        return 0
    from otter.run.run_autograder import main as run_autograder

    autograder_dir = HERE.parent  # /autograder on Gradescope
    try:
        run_autograder(str(autograder_dir))
    finally:
        if (autograder_dir / "results" / "results.json").is_file():
            add_written_answers(autograder_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
