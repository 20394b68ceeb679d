"""What is wrong with a suite before anything runs: the checks `grade`, `check`, `batch`,
`gradescope` and `handout` make first (an author's mistake is then one line naming the file and
a non-zero exit, never a student's verdict), and that `verify` makes before it grades."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from grader.diagnostics import Diagnostics
from grader.judge.helpers import helper_code, reference_available
from grader.suite import expectations
from grader.suite.cases import checker_function
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError
from grader.suite.schema import Step, TestSpec

UNKNOWABLE = "*"  # a module whose top-level names cannot be listed without running it


def preflight(loaded: LoadedSuite, tests: list[TestSpec]) -> Diagnostics:
    """Every problem that would make grading `tests` blame a student for the suite's mistake."""
    problems = static_problems(loaded, tests)
    problems.extend(expectation_problems(loaded, tests))
    return problems


def static_problems(loaded: LoadedSuite, tests: list[TestSpec] | None = None) -> Diagnostics:
    """Given files, input fixtures, drivers, what the steps call, reference helpers: what the
    suite names must exist (the submitted modules' names as the reference defines them)."""
    suite = loaded.suite
    where = loaded.path
    problems = Diagnostics()
    for name in suite.given:
        if not loaded.exercise.given_file(name).is_file():
            problems.error(
                "the given file named in the suite does not exist", file=loaded.exercise.given_file(name)
            )
    names = _module_names(loaded)
    for test in tests if tests is not None else suite.tests:
        key = f"tests.{test.name}"
        try:
            fixtures = fixture_names(loaded, test)
        except (SuiteError, OSError, ValueError, TypeError, AttributeError) as error:
            problems.error(f"{key}: {error}", file=where)
            continue
        for name in fixtures:
            if not (loaded.fixtures / name).is_file():
                problems.error(
                    f"input fixture of test '{test.name}' does not exist", file=loaded.fixtures / name
                )
        if test.interactive is not None:
            _referee_problems(loaded, test, problems)
            continue
        if test.transcript is not None:
            if f"{test.transcript.driver}.py" not in suite.given:
                problems.error(
                    f"{key}.transcript.driver: '{test.transcript.driver}' is not a given file", file=where
                )
            continue
        index = suite.tests.index(test)
        for step, problem in _step_problems(test, expectations.steps_of(test, loaded), names):
            key_path = ("steps", step) if test.steps else ("call",) if test.call else ()
            line = loaded.line_of("tests", index, *key_path)
            problems.error(f"{key}: {problem}", file=where, line=line)
        _checker_problems(loaded, test, index, problems)
        if test.reference_helpers and reference_available(loaded):  # a handout runs without
            try:
                helper_code(loaded, test)
            except SuiteError as error:
                problems.error(str(error))
    return problems


def _checker_problems(loaded: LoadedSuite, test: TestSpec, index: int, problems: Diagnostics) -> None:
    """Every checker the test names exists: its module in the fixtures, loading, and the
    function in it (one error per checker, at the line that names it)."""
    named: dict[str, tuple[str, int | None]] = {}
    if test.game is not None and test.game.matches is not None:  # a referee's matches, found alike
        named[test.game.matches] = (
            f"tests.{test.name}.game.matches",
            loaded.line_of("tests", index, "game", "matches"),
        )
    if test.checker is not None:
        named[test.checker] = (f"tests.{test.name}.checker", loaded.line_of("tests", index, "checker"))
    for number, step in enumerate(expectations.steps_of(test, loaded)):
        if step.checker is not None and step.checker not in named:
            path = ("steps", number, "checker") if test.steps else ("steps_from",)
            named[step.checker] = (
                f"tests.{test.name}.{'.'.join(map(str, path))}",
                loaded.line_of("tests", index, *path),
            )
    for source, (key, line) in named.items():
        try:
            checker_function(loaded, source)
        except SuiteError as error:
            problems.error(f"{key}: {error}", file=loaded.path, line=line)


def _referee_problems(loaded: LoadedSuite, test: TestSpec, problems: Diagnostics) -> None:
    """An interactive test's driver is a given file and its referee a function of the fixtures."""
    assert test.interactive is not None
    index = loaded.suite.tests.index(test)
    key = f"tests.{test.name}.interactive"
    if f"{test.interactive.driver}.py" not in loaded.suite.given:
        line = loaded.line_of("tests", index, "interactive", "driver")
        problems.error(
            f"{key}.driver: '{test.interactive.driver}' is not a given file", file=loaded.path, line=line
        )
    try:
        checker_function(loaded, test.interactive.referee, what="referee")
    except SuiteError as error:
        line = loaded.line_of("tests", index, "interactive", "referee")
        problems.error(f"{key}.referee: {error}", file=loaded.path, line=line)


def expectation_problems(loaded: LoadedSuite, tests: list[TestSpec]) -> Diagnostics:
    """The recorded expectations of `tests`: present, and (where the reference is) fresh."""
    problems = Diagnostics()
    fresh_check = loaded.exercise.reference.is_dir()
    for test in tests:
        recorded = expectations.call_file(loaded, test)
        transcript = loaded.fixtures / test.transcript.expected if test.transcript is not None else None
        unrecorded = next(
            (path for path in (recorded, transcript) if path is not None and not path.is_file()), None
        )
        if unrecorded is not None:
            problems.error(
                f"the expectation of test '{test.name}' is not recorded; run `grader record {loaded.name}`",
                file=unrecorded,
            )
            continue
        try:
            inputs_there = all((loaded.fixtures / name).is_file() for name in fixture_names(loaded, test))
        except (SuiteError, OSError, ValueError, TypeError, AttributeError):
            continue  # static_problems says why
        if (
            fresh_check
            and inputs_there
            and expectations.recorded_fingerprint(loaded, test) != expectations.fingerprint(loaded, test)
        ):
            problems.error(
                f"the expectation of test '{test.name}' is stale (the reference, the "
                f"test or its inputs changed); run `grader record {loaded.name}`",
                file=recorded,
            )
    return problems


def fixture_names(loaded: LoadedSuite, test: TestSpec) -> list[str]:
    """Every input fixture a test reads: stdin, driver arguments, call arguments (generated too)."""
    names = list(expectations.input_names(test))
    if test.transcript is None:
        for step in expectations.steps_of(test, loaded):
            names += _fixture_args(step.args)
    return sorted(set(names))


def _fixture_args(value: Any) -> list[str]:
    if isinstance(value, dict) and set(value) == {"fixture"}:
        return [str(value["fixture"])]
    if isinstance(value, dict):
        return [name for item in value.values() for name in _fixture_args(item)]
    if isinstance(value, list):
        return [name for item in value for name in _fixture_args(item)]
    return []


def _targets(value: object) -> list[str]:
    """Dotted targets named inside argument forms ($call, $get)."""
    if isinstance(value, dict):
        found = [str(value[key]) for key in ("$call", "$get") if key in value]
        return found + [t for item in value.values() for t in _targets(item)]
    if isinstance(value, list):
        return [t for item in value for t in _targets(item)]
    return []


def _refs(value: object) -> list[str]:
    """The `let` names referred to inside argument forms ({$ref: name})."""
    if isinstance(value, dict):
        found = [str(value["$ref"])] if "$ref" in value else []
        return found + [r for item in value.values() for r in _refs(item)]
    if isinstance(value, list):
        return [r for item in value for r in _refs(item)]
    return []


def _step_problems(
    test: TestSpec, steps: list[Step], names: dict[str, tuple[Path, frozenset[str]]]
) -> list[tuple[int, str]]:
    """(step index, problem) for targets that name no module, or a name (or a class's method)
    their module does not define, `$ref`s to no earlier `let`, and steps that grade a function the
    test replaces with the reference's own (reference_helpers)."""
    problems: list[tuple[int, str]] = []
    bound = {step.let for step in steps if step.let}
    graded = sorted({step.target for step in steps if step.compared} & set(test.reference_helpers))
    if graded:
        problems.append(
            (
                0,
                f"its steps call {', '.join(graded)}, which it also names in "
                "reference_helpers: a test grades the student's own function",
            )
        )
    seen: set[str] = set()
    made: set[str] = set()
    for index, step in enumerate(steps):
        for ref in _refs(step.args) + _refs(step.kwargs):
            if ref not in made:
                problems.append((index, f"{{$ref: {ref}}} names no earlier `let` step"))
        for target in [step.target, *_targets(step.args), *_targets(step.kwargs)]:
            if target in seen:
                continue
            seen.add(target)
            problem = _target_problem(target, bound, names)
            if problem:
                problems.append((index, problem))
        if step.let:
            made.add(step.let)
    return problems


def _target_problem(target: str, bound: set[str], names: dict[str, tuple[Path, frozenset[str]]]) -> str:
    """Why `target` (module.name[.member]) cannot be reached, or "" (a let name is not checked)."""
    head, _, rest = target.partition(".")
    if head in bound:
        return ""
    if head not in names:
        return f"'{target}' names no submitted or given module (modules: {', '.join(sorted(names))})"
    path, defined = names[head]
    attribute, _, member = rest.partition(".")
    if attribute and UNKNOWABLE not in defined and attribute not in defined:
        return f"'{target}': {path} defines no top-level '{attribute}'"
    member = member.split(".")[0]
    if member and attribute:
        members = class_members(path, attribute)
        if UNKNOWABLE not in members and member not in members:
            return f"'{target}': class {attribute} of {path} defines no '{member}'"
    return ""


def class_members(path: Path, name: str) -> frozenset[str]:
    """What instances of the class `name` of module `path` have: methods, class-level names and
    attributes its methods set on `self`; {UNKNOWABLE} where it could have more (a base class, a
    `__getattr__`, not a plain class, no parse).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".py") as module:
    ...     _ = module.write("class B:\\n    SIZE = 3\\n    def __init__(self):\\n"
    ...                      "        self.cells = []\\n    def play(self): pass\\n")
    ...     module.flush()
    ...     sorted(class_members(Path(module.name), "B"))
    ['SIZE', '__init__', 'cells', 'play']
    """
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return frozenset({UNKNOWABLE})
    found = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
    if len(found) != 1 or any(
        not (isinstance(base, ast.Name) and base.id == "object") for base in found[0].bases
    ):
        return frozenset({UNKNOWABLE})
    members: set[str] = set()
    _collect(found[0].body, members)
    for node in ast.walk(found[0]):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            members.add(node.attr)
    if members & {"__getattr__", "__getattribute__"}:
        return frozenset({UNKNOWABLE})
    return frozenset(members)


def _module_names(loaded: LoadedSuite) -> dict[str, tuple[Path, frozenset[str]]]:
    """Each submitted or given module -> its file and its top-level names: a submitted module's
    as the reference defines them (unknowable without the reference, as in a handout)."""
    suite = loaded.suite
    found: dict[str, tuple[Path, frozenset[str]]] = {}
    for name in suite.submit:
        path = loaded.exercise.reference / name
        found[Path(name).stem] = (path, top_level_names(path) if path.is_file() else frozenset({UNKNOWABLE}))
    for name in suite.given:
        path = loaded.exercise.given_file(name)
        found[Path(name).stem] = (path, top_level_names(path) if path.is_file() else frozenset({UNKNOWABLE}))
    return found


def top_level_names(path: Path) -> frozenset[str]:
    """The names a module defines at its top level (in `if` and `try` blocks too), or
    {UNKNOWABLE} where it could define more (star imports, a module `__getattr__`, no parse).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".py") as module:
    ...     _ = module.write("import os.path\\nfrom a import b as c\\nX: int = 1\\n"
    ...                      "try:\\n    def f(): pass\\nexcept ImportError:\\n    class G: pass\\n")
    ...     module.flush()
    ...     sorted(top_level_names(Path(module.name)))
    ['G', 'X', 'c', 'f', 'os']
    """
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return frozenset({UNKNOWABLE})
    names: set[str] = set()
    _collect(tree.body, names)
    return frozenset(names)


def _collect(body: list[ast.stmt], names: set[str]) -> None:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name if node.name != "__getattr__" else UNKNOWABLE)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(
                UNKNOWABLE if alias.name == "*" else alias.asname or alias.name for alias in node.names
            )
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for block in ("body", "orelse", "finalbody"):
                _collect(getattr(node, block, []), names)
            for handler in getattr(node, "handlers", []):
                _collect(handler.body, names)
