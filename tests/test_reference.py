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
    pages = [REFERENCE / f"{page}.md", REFERENCE / f"{page}_results.md"]
    documented = [name for path in pages if path.exists() for name in ENTRY.findall(path.read_text(encoding="utf-8"))]
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


@pytest.mark.parametrize("package", ["ibcore.relu", "ibcore.quadratic"])
def test_every_public_function_of_a_part_documents_its_parameters_and_returns(package):
    """numpy style: a Parameters section naming every parameter, and a Returns section."""
    import inspect

    module = importlib.import_module(package)
    section = re.compile(r"^(\w[\w ]*)\n-+\n(.*?)(?=^\w[\w ]*\n-+$|\Z)", re.M | re.S)
    faults = []
    for name in module.__all__:
        func = getattr(module, name)
        if not inspect.isfunction(func):
            continue
        sections = dict(section.findall(inspect.getdoc(func)))
        documented = set()
        for line in sections.get("Parameters", "").splitlines():
            if line and not line.startswith(" "):   # "p, p_star : int", "rng : ...", "n_points, grid, t_min"
                documented |= {part.strip() for part in line.split(" : ")[0].split(",")}
        missing = [p for p in inspect.signature(func).parameters if p not in documented]
        if "Parameters" not in sections or "Returns" not in sections or missing:
            faults.append(f"{name}: sections {sorted(sections)}, parameters not documented {missing}")
    assert not faults, "\n".join(faults)


@pytest.mark.parametrize("page, package", [("relu_results", "ibcore.relu"), ("quadratic_results", "ibcore.quadratic")])
def test_result_types_page_documents_every_result_class_of_the_part(page, package):
    """Result classes leave __all__ (users read them, never build them) but keep a reference page."""
    import dataclasses
    import pkgutil

    from ibcore._result import _unpack

    text = (REFERENCE / f"{page}.md").read_text(encoding="utf-8")
    documented, module = set(), None
    for line in text.splitlines():
        if line.startswith(".. currentmodule:: "):
            module = line.split()[-1]
        elif line.startswith(".. autoclass:: "):
            documented.add(f"{module}.{line.split()[-1]}")
    pkg = importlib.import_module(package)
    results = set()
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{package}.{info.name}")
        for name, obj in vars(mod).items():
            if (isinstance(obj, type) and obj.__module__ == mod.__name__ and dataclasses.is_dataclass(obj)
                    and getattr(obj, "__iter__", None) is _unpack and not name.startswith("_")):
                results.add(f"{mod.__name__}.{name}")
    assert documented == results, f"undocumented {sorted(results - documented)}, extra {sorted(documented - results)}"
    assert {r.rsplit(".", 1)[1] for r in results} <= set(pkg.__all__), "a result class is not in __all__"
