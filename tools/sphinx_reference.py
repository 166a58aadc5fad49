"""Sphinx extension: the Library reference generated from ``__all__`` (directive ``ibcore-api``).

A reference page names a namespace, never its functions::

    ```{eval-rst}
    .. ibcore-api:: ibcore.relu
    ```

and the directive writes what autodoc and autosummary read: the namespace's docstring
(``automodule``), then, for each module that defines public names, in the order of the
namespace's ``__all__``, the module's docstring, a summary table and one entry per name
(``autofunction``, ``autoclass`` with its members, ``autoexception``, ``autodata``). Every
entry is documented under the namespace, where users import it (``ibcore.relu.GDResult``).
A name that ibcore re-exports from another library is named, not documented again.
:func:`api_rst` is the whole generator; ``tests/test_reference.py`` checks what it writes.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


def _groups(namespace) -> list[tuple[str | None, list[str]]]:
    """``[(module, names)]``: the public names of ``namespace`` grouped by the submodule whose
    ``__all__`` lists them (``None``: the namespace's own), in the order of ``__all__``."""
    owners = {}
    if hasattr(namespace, "__path__"):
        for info in pkgutil.iter_modules(namespace.__path__, namespace.__name__ + "."):
            module = importlib.import_module(info.name)
            for name in getattr(module, "__all__", ()):
                owners.setdefault(name, info.name)
    groups: dict[str | None, list[str]] = {}
    for name in namespace.__all__:
        if not name.startswith("__"):
            groups.setdefault(owners.get(name), []).append(name)
    return list(groups.items())


def _entry(namespace, name, owner) -> list[str]:
    obj = getattr(namespace, name)
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return [f".. autoexception:: {name}"]
    if inspect.isclass(obj):
        # a named tuple's fields are documented by its docstring, not as "Alias for field 0"
        return [f".. autoclass:: {name}"] + ([] if issubclass(obj, tuple) else ["   :members:"])
    if callable(obj):
        return [f".. autofunction:: {name}"]
    # data: its ``#:`` comment where it is defined (autodoc would look in the namespace, and
    # fall back to the docstring of the value's type)
    comment = ModuleAnalyzer.for_module(owner or namespace.__name__).find_attr_docs().get(("", name), [])
    value = [f"   :value: {obj!r}"] if isinstance(obj, (int, float, str)) else []
    return [f".. py:data:: {name}"] + value + [""] + [f"   {line}" if line else "" for line in comment]


def _external(namespace, name) -> bool:
    module = getattr(getattr(namespace, name), "__module__", None) or ""
    return (inspect.isfunction(getattr(namespace, name)) or inspect.isclass(getattr(namespace, name))) \
        and not module.startswith("ibcore")


def api_rst(name: str) -> list[str]:
    """The reStructuredText of the reference of the namespace ``name`` (a dotted module name)."""
    namespace = importlib.import_module(name)
    lines = [f".. automodule:: {name}", "   :no-members:", ""]
    for module, names in _groups(namespace):
        external = [n for n in names if _external(namespace, n)]
        names = [n for n in names if n not in external]
        # the module's docstring, unless one of the names it defines is the module's own name
        # (ibcore.book.explorer, the function, hides the module)
        if module is not None and module.rsplit(".", 1)[1] not in names:
            lines += [f".. automodule:: {module}", "   :no-members:", ""]
        lines += [f".. currentmodule:: {name}", ""]
        # the table of what is called (a constant's summary would be its type's docstring)
        table = [n for n in names if callable(getattr(namespace, n))]
        if table:
            lines += [".. autosummary::", "   :nosignatures:", ""] + [f"   {n}" for n in table] + [""]
        for n in names:
            lines += _entry(namespace, n, module) + [""]
        for n in external:
            source = getattr(namespace, n)
            lines += [f"``{name}`` also re-exports ``{n}``, :py:func:`{source.__module__}.{source.__qualname__}`.",
                      ""]
    return lines


class IbcoreApi(SphinxDirective):
    """``.. ibcore-api:: dotted.name``: the reference of one namespace (see :func:`api_rst`)."""

    required_arguments = 1

    def run(self):
        text = StringList(api_rst(self.arguments[0]), source=f"<ibcore-api {self.arguments[0]}>")
        node = nodes.container()
        nested_parse_with_titles(self.state, text, node)
        return node.children


def setup(app):
    app.add_directive("ibcore-api", IbcoreApi)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
