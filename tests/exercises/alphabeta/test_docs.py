"""The examples in the alphabeta stubs' docstrings hold for the reference solution.

Each docstring example of `exercises/alphabeta/*.py` runs with the stub module's imports and the
reference's definitions, so a student who answers right sees exactly what the examples show.
"""

from __future__ import annotations

import ast
import doctest
from types import ModuleType

import pytest

from tests.support import ROOT, exercise_modules


def docstring_examples(exercise: str, module_name: str) -> list[tuple[str, str]]:
    """(name, docstring) of the module, its classes and functions, where it has examples."""
    source = (ROOT / "exercises" / exercise / f"{module_name}.py").read_text()
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef):
            text = ast.get_docstring(node, clean=True)
            if text and ">>>" in text:
                found.append((getattr(node, "name", module_name), text))
    return found


def stub_globals(exercise: str, module_name: str, reference: ModuleType) -> dict[str, object]:
    """The stub's imports (run in the current import context) overlaid with the reference."""
    source = (ROOT / "exercises" / exercise / f"{module_name}.py").read_text()
    body = ast.parse(source).body
    imports = [node for node in body if isinstance(node, ast.Import | ast.ImportFrom)]
    namespace: dict[str, object] = {}
    exec(compile(ast.Module(body=imports, type_ignores=[]), module_name, "exec"), namespace)
    namespace.update(vars(reference))
    return namespace


def run_examples(exercise: str, module_name: str) -> tuple[int, int]:
    """Run the docstring examples of one stub module; (failed, attempted)."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with exercise_modules(exercise) as modules:
        namespace = stub_globals(exercise, module_name, modules[module_name])
        for name, text in docstring_examples(exercise, module_name):
            runner.run(parser.get_doctest(text, dict(namespace), f"{module_name}.{name}", None, 0))
    failed, attempted = runner.summarize(verbose=False)
    return failed, attempted


@pytest.mark.parametrize("module_name", ["alphabeta", "lazytree", "prelude"])
def test_stub_examples_hold_for_the_reference(module_name: str) -> None:
    failed, attempted = run_examples("alphabeta", module_name)
    assert failed == 0
    if module_name == "alphabeta":
        assert attempted >= 15
