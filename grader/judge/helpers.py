"""Reference helpers: the reference's own definition of a function a test swaps in for the student's.

A test that names `reference_helpers` ({module.name: test}) runs with those functions or classes
taken from the reference, so that a wrong helper costs only the question that grades it. What enters
the test's process is each named definition (decorators included), the reference module's
top-level import statements and the reference's own definitions they need that the student's stub
does not declare (private helpers, tables), nothing else of the reference: a test could print
them, which is the price of grading one question at a time (docs/suites.md).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from grader.run.box.protocol import HelperCode
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError
from grader.suite.schema import TestSpec

DEFINITION = re.compile(r"\s*(@|def |async def |class )")


@dataclass(frozen=True)
class Definitions:
    """A module's top level: its import statements, and each definition's source and the names
    it mentions (functions, classes and assignments to plain names)."""

    imports: str
    sources: dict[str, str]  # name -> its definition, decorators included (in file order)
    mentions: dict[str, frozenset[str]]  # name -> every name its definition mentions


def _assigned(node: ast.stmt) -> list[str]:
    """The plain names a top-level assignment binds (`A = 1`, `A, B = 1, 2`, `A: int = 1`)."""
    if isinstance(node, ast.Assign):
        return [name.id for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


@cache
def _definitions(path: Path, mtime_ns: int) -> Definitions:
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise SuiteError(f"{path}: cannot read the reference's helpers: {error}") from error
    lines = text.splitlines(keepends=True)
    imports: list[str] = []
    sources: dict[str, str] = {}
    mentions: dict[str, frozenset[str]] = {}
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        source = "".join(lines[start - 1 : node.end_lineno])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(source)
            continue
        names = (
            [node.name]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            else _assigned(node)
        )
        mentioned = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
        for name in names:
            sources[name] = source
            mentions[name] = mentioned - {name}
    return Definitions("".join(imports), sources, mentions)


def definitions(path: Path) -> Definitions:
    """`path`'s top-level imports and definitions (read once per version of the file).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     module = Path(folder) / "m.py"
    ...     _ = module.write_text("import math\\n\\n@cache\\ndef f(x):\\n    return x\\nY = 1\\n")
    ...     found = definitions(module)
    >>> found.imports, found.sources["f"], found.sources["Y"]
    ('import math\\n', '@cache\\ndef f(x):\\n    return x\\n', 'Y = 1\\n')
    """
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError as error:
        raise SuiteError(f"{path}: cannot read the reference's helpers: {error}") from error
    return _definitions(path, mtime_ns)


def support(reference: Definitions, declared: set[str], wanted: list[str]) -> str:
    """The reference's own definitions that `wanted` needs, directly or not, and that the stub
    does not declare (`declared`): private helpers and tables, in the file's order.

    >>> found = Definitions("", {"f": "def f(): return g()\\n", "g": "def g(): return T\\n",
    ...                          "T": "T = 1\\n", "api": "def api(): pass\\n"},
    ...                     {"f": frozenset({"g", "api"}), "g": frozenset({"T"}),
    ...                      "T": frozenset(), "api": frozenset()})
    >>> support(found, {"f", "api"}, ["f"])
    'def g(): return T\\nT = 1\\n'
    """
    needed: set[str] = set()
    todo = [mention for name in wanted for mention in reference.mentions.get(name, ())]
    while todo:
        name = todo.pop()
        if name in needed or name in declared or name in wanted or name not in reference.sources:
            continue
        needed.add(name)
        todo.extend(reference.mentions[name])
    return "".join(dict.fromkeys(source for name, source in reference.sources.items() if name in needed))


def reference_available(loaded: LoadedSuite) -> bool:
    """Whether the reference is here to take helpers from (a student's handout has none)."""
    reference = loaded.exercise.reference
    return all((reference / name).is_file() for name in loaded.suite.submit)


def declared_names(loaded: LoadedSuite, module: str) -> set[str]:
    """The top-level names the student's stub of `module` declares (its API), if it is here."""
    stub = loaded.exercise.stubs / f"{module}.py"
    if not stub.is_file():
        return set()
    return set(definitions(stub).sources)


def swappable(loaded: LoadedSuite, helper: str) -> bool:
    """Whether the reference defines `helper` (module.name) as a top-level function or class."""
    module, name = helper.split(".")
    path = loaded.exercise.reference / f"{module}.py"
    if not path.is_file():
        return False
    sources = definitions(path).sources
    return name in sources and DEFINITION.match(sources[name]) is not None


def helper_code(loaded: LoadedSuite, test: TestSpec, chosen: Iterable[str] | None = None) -> list[HelperCode]:
    """The reference definitions of `chosen` (by default the test's `reference_helpers`), in that
    order; the first helper of each module carries the support all of that module's helpers need."""
    wanted = list(test.reference_helpers if chosen is None else chosen)
    found: list[HelperCode] = []
    names: dict[str, list[str]] = {}
    for helper in wanted:
        module, name = helper.split(".")
        names.setdefault(module, []).append(name)
    for helper in wanted:
        module, name = helper.split(".")
        path = loaded.exercise.reference / f"{module}.py"
        reference = definitions(path)
        if name not in reference.sources or not DEFINITION.match(reference.sources[name]):
            raise SuiteError(
                f"{loaded.path}: tests.{test.name}.reference_helpers: {path} defines "
                f"no top-level function '{name}' (nor class)"
            )
        code = HelperCode(module=module, name=name, imports=reference.imports, source=reference.sources[name])
        if names[module][0] == name:
            code["support"] = support(reference, declared_names(loaded, module), names[module])
        found.append(code)
    return found
