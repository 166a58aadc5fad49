"""Static checks that a chapter's asserts can fail.

An assert that only combines literals and parameters the chapter chose (``n = 20``,
``DIMS = [400, 1600]``) checks a fact about the set-up, not a result: it passes whatever the
solvers do. So does one that compares an expression with itself, or a maximum with one of its
own elements. The checks follow the chapter's cells in order (the binding of a name at the
assert is the one that counts) and treat anything that calls a non-pure function, or that is
mutated in place, as computed.
"""
from __future__ import annotations

import ast

PURE_MODULES = {"np", "numpy", "math"}
PURE_BUILTINS = {"abs", "min", "max", "round", "int", "float", "len", "range", "sum", "sorted", "tuple",
                 "list", "dict", "set", "zip", "enumerate", "reversed", "str", "bool", "all", "any"}
MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "pop", "remove", "clear",
            "sort", "fill", "put", "resize", "discard", "__setitem__"}


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in _names(t)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


class _Scope:
    """Whether each name is bound to a constant, statement by statement."""

    def __init__(self, constant=None):
        self.constant: dict[str, bool] = dict(constant or {})
        self.found: list[tuple[str, str]] = []

    # -- expressions
    def is_constant(self, expr, local=None) -> bool:
        local = dict(local or {})
        for comp in (n for n in ast.walk(expr)
                     if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))):
            for gen in comp.generators:
                for name in _names(gen.target):
                    local[name] = self.is_constant(gen.iter, local)
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in local:
                    if not local[node.id]:
                        return False
                elif node.id in self.constant:
                    if not self.constant[node.id]:
                        return False
                elif node.id not in PURE_MODULES and node.id not in PURE_BUILTINS:
                    return False  # unknown: imported, or defined somewhere we do not follow
            elif isinstance(node, ast.Call):
                func = node.func
                pure = (_root_name(func) in PURE_MODULES and isinstance(func, ast.Attribute)) or \
                       (isinstance(func, ast.Name) and func.id in PURE_BUILTINS and func.id not in self.constant)
                if not pure:
                    return False
            elif isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.NamedExpr)):
                return False
        return True

    def _bind(self, target, value_is_constant):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, value_is_constant)
            return
        if isinstance(target, ast.Starred):
            target = target.value
        for name in _names(target):
            self.constant[name] = value_is_constant
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            root = _root_name(target)
            if root:
                self.constant[root] = False

    # -- statements
    def run(self, statements):
        for stmt in statements:
            self.statement(stmt)

    def statement(self, s):
        for node in ast.walk(s):  # in-place mutation anywhere in the statement makes a name computed
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                root = _root_name(node.func.value)
                if root:
                    self.constant[root] = False
        if isinstance(s, ast.Assert):
            why = vacuous_reason(s.test, self)
            if why:
                self.found.append((ast.unparse(s.test), why))
        elif isinstance(s, ast.Assign):
            value = self.is_constant(s.value)
            for t in s.targets:
                self._bind(t, value)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)) and s.value is not None:
            old = True if isinstance(s, ast.AnnAssign) else self.is_constant(s.target)
            self._bind(s.target, old and self.is_constant(s.value))
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self._bind(s.target, self.is_constant(s.iter))
            self.run(s.body), self.run(s.orelse)
        elif isinstance(s, (ast.If, ast.While)):
            self.run(s.body), self.run(s.orelse)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, False)
            self.run(s.body)
        elif isinstance(s, ast.Try):
            self.run(s.body)
            for h in s.handlers:
                if h.name:
                    self.constant[h.name] = False
                self.run(h.body)
            self.run(s.orelse), self.run(s.finalbody)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.constant[s.name] = False
            inner = _Scope(self.constant)
            for a in [*s.args.posonlyargs, *s.args.args, *s.args.kwonlyargs, s.args.vararg, s.args.kwarg]:
                if a is not None:
                    inner.constant[a.arg] = False
            inner.run(s.body)
            self.found.extend(inner.found)
        elif isinstance(s, ast.ClassDef):
            self.constant[s.name] = False
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                name = (a.asname or a.name).split(".")[0]
                if name not in PURE_MODULES:
                    self.constant[name] = False


def _same(a, b) -> bool:
    return ast.dump(a) == ast.dump(b)


def _is_extreme_of(call, other) -> bool:
    """``max(E)``, ``np.max(E)`` or ``E.max()`` compared with ``E[...]`` or ``E``."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in {"max", "min", "amax", "amin", "nanmax", "nanmin"}:
        return False
    if isinstance(func, ast.Attribute) and not call.args:
        inner = func.value
    elif call.args:
        inner = call.args[0]
    else:
        return False
    target = other.value if isinstance(other, ast.Subscript) else other
    return _same(inner, target)


def vacuous_reason(test, scope: _Scope) -> str | None:
    """Why an assert's test cannot fail, or ``None`` when it can."""
    if scope.is_constant(test):
        return "depends only on literals and parameters the chapter chose, not on a computed result"
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = node.left, node.comparators[0]
            if _same(left, right) and not any(isinstance(n, ast.Call) for n in ast.walk(left)):
                return "compares an expression with itself"
            if _is_extreme_of(left, right) or _is_extreme_of(right, left):
                return "compares a maximum or minimum with one of its own elements"
    return None


def vacuous_asserts(sources) -> list[tuple[str, str]]:
    """(assert source, reason) for every assert in the cells ``sources`` (in order) that cannot fail."""
    scope = _Scope()
    for src in sources:
        try:
            scope.run(ast.parse(src).body)
        except SyntaxError:
            continue  # IPython magics: the build reports real syntax errors
    return scope.found
