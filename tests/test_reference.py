"""The Library reference (book/reference) is generated from each public namespace's ``__all__``
(``tools/sphinx_reference.py``): every namespace has its page, and the pages document exactly
the public names, each with a docstring in numpy style."""
import dataclasses
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import ibcore
from ibcore._result import _unpack

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "book" / "reference"
sys.path.insert(0, str(ROOT / "tools"))
from sphinx_reference import api_rst  # noqa: E402

DIRECTIVE = re.compile(r"^\.\. ibcore-api:: ([\w.]+)$", re.M)
ENTRY = re.compile(r"^\.\. (?:auto(?:function|class|exception)|py:data):: (\w+)$", re.M)
REEXPORT = re.compile(r"also re-exports ``(\w+)``")


def _public(name):
    return not name.rsplit(".", 1)[-1].startswith("_")


def namespaces():
    """``ibcore``, its public modules with an ``__all__``, and the namespaces of a package without one."""
    found = {"ibcore"}
    for info in pkgutil.iter_modules(ibcore.__path__, "ibcore."):
        if not _public(info.name):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            found.add(info.name)
        elif info.ispkg:
            found |= {i.name for i in pkgutil.iter_modules(module.__path__, info.name + ".") if _public(i.name)}
    return sorted(found)


def test_every_public_namespace_has_its_generated_reference_exactly_once():
    generated = [name for page in sorted(REFERENCE.glob("*.md")) for name in DIRECTIVE.findall(page.read_text())]
    assert sorted(generated) == namespaces(), "each public namespace is generated on exactly one reference page"


@pytest.mark.parametrize("name", namespaces())
def test_the_reference_documents_exactly_the_public_names(name):
    text = "\n".join(api_rst(name))
    documented = ENTRY.findall(text) + REEXPORT.findall(text)
    public = [n for n in importlib.import_module(name).__all__ if not n.startswith("__")]
    assert sorted(documented) == sorted(public)
    assert documented[:len(ENTRY.findall(text))] == [n for n in public if n in ENTRY.findall(text)], \
        "entries follow __all__"


def test_no_module_is_documented_twice():
    modules = [m for name in namespaces() for m in re.findall(r"^\.\. automodule:: ([\w.]+)$", "\n".join(api_rst(name)), re.M)]
    assert len(modules) == len(set(modules)), sorted(m for m in modules if modules.count(m) > 1)


@pytest.mark.parametrize("name", namespaces())
def test_every_public_name_has_a_docstring(name):
    module = importlib.import_module(name)
    bare = [n for n in module.__all__ if callable(getattr(module, n)) and not getattr(module, n).__doc__]
    assert not bare, f"{name}: no docstring for {bare}"


@pytest.mark.parametrize("package", ["ibcore.relu", "ibcore.quadratic", "ibcore.experiments.relu",
                                     "ibcore.experiments.quadratic"])
def test_every_public_function_of_a_part_documents_its_parameters_and_returns(package):
    """numpy style: a Parameters section naming every parameter, and a Returns section."""
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


@pytest.mark.parametrize("package", ["ibcore.relu", "ibcore.quadratic", "ibcore.experiments.relu",
                                     "ibcore.experiments.quadratic"])
def test_every_result_class_is_public(package):
    """A result (a frozen dataclass of ibcore._result) that a module defines is in its package's __all__."""
    pkg = importlib.import_module(package)
    results = set()
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{package}.{info.name}")
        for name, obj in vars(mod).items():
            if (isinstance(obj, type) and obj.__module__ == mod.__name__ and dataclasses.is_dataclass(obj)
                    and getattr(obj, "__iter__", None) is _unpack and not name.startswith("_")):
                results.add(name)
    assert results <= set(pkg.__all__), f"not in {package}.__all__: {sorted(results - set(pkg.__all__))}"
