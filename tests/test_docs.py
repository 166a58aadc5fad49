"""The tables of tests/README.md say what the code does: the fixtures of the built artefacts
with their options (tests/built.py), and one mutation score per mutated module."""
from __future__ import annotations

import re

from tests import built, mutation_scores

README = mutation_scores.README.read_text(encoding="utf-8")


def test_every_built_artefact_is_listed_with_its_option():
    listed = dict(re.findall(r"^\| `(\w+)` \| `(--[\w-]+)` \|", README, re.M))
    assert listed == {name: option for name, (option, *_) in built.ARTEFACTS.items()}


def test_the_mutation_table_has_a_row_per_mutated_module():
    rows = mutation_scores.table(README)
    assert sorted(rows) == sorted(mutation_scores.mutated_modules()), (
        "run `python -m tests.mutation_scores --write`")
