"""Every public name of ibcore's namespaces shows an example in its docstring, and the examples run
(a name re-exported from another library, as ``ibcore.book.glue`` from myst_nb, has that library's).

``python -m pytest --doctest-modules ibcore`` runs the same examples module by module; this test
also fails when a public function has none.
"""
import doctest
import importlib
import inspect
import pkgutil

import pytest

import ibcore.experiments.quadratic
import ibcore.experiments.relu
import ibcore.quadratic
import ibcore.relu

NAMESPACES = ["ibcore", "ibcore.relu", "ibcore.quadratic", "ibcore.linear", "ibcore.experiments.relu",
              "ibcore.experiments.quadratic", "ibcore.summary", "ibcore.sweep", "ibcore.validation",
              "ibcore.progress", "ibcore.book"]


def _modules():
    """The namespaces and every module inside the two parts and their experiments."""
    names = set(NAMESPACES)
    for package in (ibcore.relu, ibcore.quadratic, ibcore.experiments.relu, ibcore.experiments.quadratic):
        names |= {m.name for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")}
    return sorted(names)


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_callable_has_an_example(namespace):
    module = importlib.import_module(namespace)
    bare = [name for name in module.__all__
            if callable(getattr(module, name)) and getattr(getattr(module, name), "__module__", "").startswith("ibcore")
            and ">>>" not in (inspect.getdoc(getattr(module, name)) or "")]
    assert not bare, f"{namespace}: no Examples section in {bare}"


@pytest.mark.parametrize("name", _modules())
def test_the_examples_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (output above)"
