"""The Library reference (book/reference) documents exactly each part's public names."""
import importlib
import re
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[1] / "book" / "reference"
ENTRY = re.compile(r"^\.\. auto(?:function|class|data|exception):: (\w+)", re.M)


@pytest.mark.parametrize("page, package", [("relu", "ibcore.relu"), ("quadratic", "ibcore.quadratic"),
                                           ("linear", "ibcore.linear")])
def test_reference_page_documents_exactly_the_public_names(page, package):
    documented = ENTRY.findall((REFERENCE / f"{page}.md").read_text(encoding="utf-8"))
    public = importlib.import_module(package).__all__
    assert len(documented) == len(set(documented)), "a name is documented twice"
    assert sorted(documented) == sorted(public), (
        f"{page}.md and {package}.__all__ differ: missing {sorted(set(public) - set(documented))}, "
        f"extra {sorted(set(documented) - set(public))}")


def test_every_public_name_has_a_docstring():
    for package in ("ibcore.relu", "ibcore.quadratic", "ibcore.linear"):
        module = importlib.import_module(package)
        bare = [n for n in module.__all__ if callable(getattr(module, n)) and not getattr(module, n).__doc__]
        assert not bare, f"{package}: no docstring for {bare}"
