"""Reference helpers swapped into a test process: the reference's definitions of named functions
or classes put in place of the student's (`reference_helpers`, docs/suites.md).

Standard library only, part of the box (`grader.run.box`): the test process imports it as a sibling.
"""

from __future__ import annotations
import __future__

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.run.box.protocol import HelperCode

_installed: dict[tuple[str, str], Any] = {}  # (module, name) -> the reference object in place
_scopes: list[dict[str, Any]] = []  # the namespaces the reference definitions run in
_original_reload = importlib.reload


def install_helpers(helpers: list[HelperCode], code_dir: str) -> None:
    """Put each reference function or class in place of the student's, wherever it is bound.

    The reference definitions of one module run in one namespace: a copy of the student's module
    (so they call the student's other functions unless those are helpers too), where the
    reference's imports fill only missing names and its `support` (the reference's own private
    definitions, which the stub does not declare) is defined first. A module reloaded later (a
    given `configure` re-imports the exercise's modules for another board size) gets them again,
    its support run anew.
    """
    swapped: list[tuple[Any, Any]] = []
    for module_name in dict.fromkeys(helper["module"] for helper in helpers):
        module = importlib.import_module(module_name)
        mine = [helper for helper in helpers if helper["module"] == module_name]
        swapped += _install_module(module, mine)
    _rebind(swapped, code_dir)

    def reload_keeping_helpers(module: Any) -> Any:
        reloaded = _original_reload(module)
        mine = [helper for helper in helpers if helper["module"] == getattr(reloaded, "__name__", None)]
        if mine:
            _rebind(_install_module(reloaded, mine), code_dir)
        return reloaded

    importlib.reload = reload_keeping_helpers


def _install_module(module: Any, helpers: list[HelperCode]) -> list[tuple[Any, Any]]:
    """Define `helpers` (all of one module) in a copy of it; (old, new) objects to rebind."""
    flags = __future__.annotations.compiler_flag
    scope = dict(vars(module))
    _scopes.append(scope)
    imported: dict[str, Any] = {}
    exec(compile(helpers[0]["imports"], "<reference imports>", "exec", dont_inherit=True), imported)
    for name, value in imported.items():
        if name != "__builtins__" and name not in scope:
            scope[name] = value
    swapped: list[tuple[Any, Any]] = []
    for helper in helpers:
        if helper.get("support"):
            exec(
                compile(
                    helper.get("support", ""),
                    f"<reference {helper['module']} support>",
                    "exec",
                    flags=flags,
                    dont_inherit=True,
                ),
                scope,
            )
        before = vars(module).get(helper["name"])
        exec(
            compile(
                helper["source"],
                f"<reference {helper['module']}.{helper['name']}>",
                "exec",
                flags=flags,
                dont_inherit=True,
            ),
            scope,
        )
        after = scope[helper["name"]]
        setattr(module, helper["name"], after)
        earlier = _installed.get((helper["module"], helper["name"]))
        _installed[(helper["module"], helper["name"])] = after
        swapped += [(old, after) for old in (before, earlier) if old is not None]
    return swapped


def _rebind(swapped: list[tuple[Any, Any]], code_dir: str) -> None:
    """Every name bound to a replaced object, in the submitted and given modules and in the
    reference's namespaces, bound to its replacement."""
    if not swapped:
        return
    namespaces = [
        vars(other)
        for other in list(sys.modules.values())
        if (getattr(other, "__file__", None) or "").startswith(code_dir)
    ]
    for namespace in [*namespaces, *_scopes]:
        for name, value in list(namespace.items()):
            for before, after in swapped:
                if value is before:
                    namespace[name] = after
