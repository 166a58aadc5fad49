"""ibcore's shape, as CONTRIBUTING sets it: small modules, public SciPy only, and no test reference
shipped with the library (the references the tests compare against live under tests/)."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "ibcore").rglob("*.py"))
MAX_LINES = 450
# the independent references of tests/relu and tests/quadratic, by name
REFERENCES = {"gradient_descent_weight_space", "plain_gd", "plain_gd_network", "min_norm_qp",
              "population_gradient", "sgd_one_pass_reference", "error_first_moments"}


def _ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


@pytest.mark.parametrize("path", MODULES, ids=_ids(MODULES))
def test_no_module_is_over_450_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines: split it by concept"


def _private_scipy_names(tree: ast.AST) -> list[str]:
    """The private SciPy names a module imports: a module path or a name with a leading underscore."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "scipy":
            parts = node.module.split(".")
            found += [node.module] if any(p.startswith("_") for p in parts) else []
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.split(".")[0] == "scipy" and any(p.startswith("_") for p in a.name.split("."))]
    return found


def test_the_private_name_finder_finds_them():
    tree = ast.parse("from scipy.integrate._ivp.rk import RungeKutta\nimport scipy._lib\n"
                     "from scipy.linalg import _flapack\nfrom scipy.integrate import solve_ivp\n")
    assert _private_scipy_names(tree) == ["scipy.integrate._ivp.rk", "scipy._lib", "scipy.linalg._flapack"]


@pytest.mark.parametrize("path", MODULES, ids=_ids(MODULES))
def test_no_private_scipy_name_is_used(path):
    text = path.read_text(encoding="utf-8")
    assert _private_scipy_names(ast.parse(text)) == []
    # attribute access such as scipy.integrate._ivp.rk is private too
    assert not re.search(r"\bscipy(\.\w+)*\._\w", text)


def test_no_test_reference_ships_with_the_library():
    defined = {node.name for p in MODULES for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert not defined & REFERENCES
    # the references are where the tests import them from
    tests = {node.name for p in (ROOT / "tests").rglob("*.py") if p.name in ("independent.py", "weight_space.py")
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))) if isinstance(node, ast.FunctionDef)}
    assert REFERENCES <= tests
