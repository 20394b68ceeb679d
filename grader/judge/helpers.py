"""Reference helpers: the reference's own definition of a function a test swaps in for the student's.

A test that names `reference_helpers` ({module.function: test}) runs with those functions taken
from the reference, so that a wrong helper costs only the question that grades it. What enters the
test's process is each named function's definition (decorators included) and the reference module's
top-level import statements, nothing else of the reference: a test could print those functions,
which is the price of grading one question at a time (docs/suites.md).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from grader.run.protocol import HelperCode
from grader.suite.load import LoadedSuite
from grader.suite.schema import SuiteError, TestSpec


@cache
def _definitions(path: Path, mtime_ns: int) -> tuple[str, dict[str, str]]:
    """A module's top-level import statements and its top-level function definitions, as source."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise SuiteError(f"{path}: cannot read the reference's helpers: {error}") from error
    lines = text.splitlines(keepends=True)
    imports: list[str] = []
    functions: dict[str, str] = {}
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        source = "".join(lines[start - 1:node.end_lineno])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(source)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = source
    return "".join(imports), functions


def definitions(path: Path) -> tuple[str, dict[str, str]]:
    """`path`'s top-level imports and function definitions (read once per version of the file).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     module = Path(folder) / "m.py"
    ...     _ = module.write_text("import math\\n\\n@cache\\ndef f(x):\\n    return x\\nY = 1\\n")
    ...     definitions(module)
    ('import math\\n', {'f': '@cache\\ndef f(x):\\n    return x\\n'})
    """
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError as error:
        raise SuiteError(f"{path}: cannot read the reference's helpers: {error}") from error
    return _definitions(path, mtime_ns)


def reference_available(loaded: LoadedSuite) -> bool:
    """Whether the reference is here to take helpers from (a student's handout has none)."""
    reference = loaded.exercise.reference
    return all((reference / name).is_file() for name in loaded.suite.submit)


def helper_code(loaded: LoadedSuite, test: TestSpec) -> list[HelperCode]:
    """The reference definitions of the test's `reference_helpers`, in the suite's order."""
    found: list[HelperCode] = []
    for helper in test.reference_helpers:
        module, name = helper.split(".")
        path = loaded.exercise.reference / f"{module}.py"
        imports, functions = definitions(path)
        if name not in functions:
            raise SuiteError(f"{loaded.path}: tests.{test.name}.reference_helpers: {path} defines "
                             f"no top-level function '{name}'")
        found.append(HelperCode(module=module, name=name, imports=imports, source=functions[name]))
    return found
