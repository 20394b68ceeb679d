"""Generated cases: `cases_from`/`steps_from` expanded into the steps a call test runs; checkers.

A source is `MODULE:FUNCTION`, a generator in fixtures/NAME/MODULE.py (run in the grader, never in
the test process), or `FILE.json:TEST`, cases written out by `grader handout` so that no generator
ships. Checkers (`checker: MODULE:FUNCTION`) are found the same way. Generators return typed
values, checked as they are generated: `cases_from` a list of `Case` (the positional arguments of
one call), `steps_from` a list of `Step` models.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeAlias, cast

from pydantic import ValidationError

from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError
from grader.suite.schema import Step, TestSpec

Case: TypeAlias = list[Any]
JSON_SUFFIX = ".json"

_modules: dict[Path, ModuleType] = {}
_json_files: dict[Path, dict[str, Any]] = {}
_steps_cache: dict[tuple[str, str, str], list[Step]] = {}  # by suite, test, the test as written


def _module(path: Path) -> ModuleType:
    """The generator module at `path`, executed once per process."""
    if path not in _modules:
        spec = importlib.util.spec_from_file_location(f"suite_cases_{len(_modules)}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[path] = module
    return _modules[path]


def _json_file(path: Path) -> dict[str, Any]:
    if path not in _json_files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise SuiteError(f"{path}: cannot read generated cases: {error}") from error
        if not isinstance(data, dict):
            raise SuiteError(f"{path}: expected a mapping from test names to cases")
        _json_files[path] = data
    return _json_files[path]


def generated(loaded: LoadedSuite, source: str) -> list[Any]:
    """What `source` (MODULE:FUNCTION or FILE.json:TEST) yields, unchecked."""
    where, _, name = source.partition(":")
    if where.endswith(JSON_SUFFIX):
        path = loaded.exercise.input_file(where)
        if not path.is_file() or not name:
            raise SuiteError(
                f"{loaded.path}: cases '{source}' should be FILE.json:TEST with "
                f"{path} holding {name or 'them'}"
            )
        found = _json_file(path).get(name)
    else:
        path = loaded.exercise.generator(where)
        if not path.is_file() or not name:
            raise SuiteError(
                f"{loaded.path}: generator '{source}' should be MODULE:FUNCTION "
                f"with {path} defining {name or 'it'}"
            )
        function = getattr(_module(path), name, None)
        if function is None:
            raise SuiteError(f"{loaded.path}: {path} has no function '{name}'")
        found = function()
    if not isinstance(found, list | tuple):
        raise SuiteError(f"{loaded.path}: '{source}' gave {type(found).__name__}, not a list")
    return list(found)


def checker_function(loaded: LoadedSuite, source: str, what: str = "checker") -> Callable[..., Any]:
    """The checker (or referee: `what`) `source` (MODULE:FUNCTION, a function of
    fixtures/NAME/MODULE.py), loaded in the grader (never in the test process); a SuiteError
    saying what is missing."""
    where, _, name = source.partition(":")
    path = loaded.exercise.generator(where)
    if not path.is_file():
        raise SuiteError(f"{what} '{source}': there is no {path}")
    try:
        module = _module(path)
    except Exception as error:  # the author's module, run as it is loaded: any error is theirs
        raise SuiteError(
            f"{what} '{source}': {path} does not load: {type(error).__name__}: {error}"
        ) from error
    function = getattr(module, name, None)
    if not callable(function):
        raise SuiteError(f"{what} '{source}': {path} has no function '{name}'")
    return cast(Callable[..., Any], function)


def checked_cases(found: list[Any], source: str) -> list[Case]:
    """Each case a list of arguments (a tuple is taken as one).

    >>> checked_cases([[1, 2], (3, 4)], "cases:pairs")
    [[1, 2], [3, 4]]
    """
    cases: list[Case] = []
    for index, case in enumerate(found):
        if not isinstance(case, list | tuple):
            raise SuiteError(f"'{source}': case {index} is {type(case).__name__}, not a list of arguments")
        cases.append(list(case))
    return cases


def checked_steps(found: list[Any], source: str) -> list[Step]:
    """Steps built by a generator as `Step` models; read from JSON, validated here."""
    steps: list[Step] = []
    for index, step in enumerate(found):
        if isinstance(step, Step):
            steps.append(step)
        elif source.partition(":")[0].endswith(JSON_SUFFIX) and isinstance(step, dict):
            try:
                steps.append(Step.model_validate(step))
            except ValidationError as error:
                raise SuiteError(
                    f"'{source}': step {index} is invalid: {error.errors()[0]['msg']}"
                ) from error
        else:
            raise SuiteError(
                f"'{source}': step {index} is {type(step).__name__}; build steps "
                "as grader.suite.schema.Step(...), checked as they are made"
            )
    return steps


def steps_of(test: TestSpec, loaded: LoadedSuite) -> list[Step]:
    """The steps a call test runs, with `cases`/`cases_from`/`steps_from` expanded (none for a
    transcript or an interactive test)."""
    if test.transcript is not None or test.interactive is not None:
        return []
    key = (str(loaded.path), test.name, test.model_dump_json())
    if key in _steps_cache:
        return _steps_cache[key]
    try:
        if test.game is not None:  # its steps come from the referee, move by move
            steps = []
        elif test.steps is not None:
            steps = list(test.steps)
        elif test.steps_from is not None:
            steps = checked_steps(generated(loaded, test.steps_from), test.steps_from)
        else:
            cases = (
                test.cases
                if test.cases is not None
                else checked_cases(generated(loaded, test.cases_from or ""), test.cases_from or "")
            )
            compare = {"compare": test.compare} if "compare" in test.model_fields_set else {}
            steps = [
                Step(
                    call=test.call,
                    args=list(case),
                    tolerance=test.tolerance,
                    show=test.show,
                    attrs=test.attrs,
                    checker=test.checker,
                    **compare,
                )
                for case in cases
            ]
    except ValidationError as error:
        raise SuiteError(
            f"{loaded.path}: test '{test.name}': a generated step is invalid: {error.errors()[0]['msg']}"
        ) from error
    except SuiteError as error:
        message = str(error)
        raise SuiteError(
            message
            if message.startswith(str(loaded.path))
            else f"{loaded.path}: test '{test.name}': {message}"
        ) from error
    _steps_cache[key] = steps
    return steps


def visible_cases(loaded: LoadedSuite, test: TestSpec) -> list[Any]:
    """A generated test's cases (or steps) as plain JSON data, for a handout (without their
    checkers: those stay with the grader, and the handout compares with the recorded answers)."""
    if test.steps_from is not None:
        return [
            step.model_dump(exclude_defaults=True, exclude={"checker"}) for step in steps_of(test, loaded)
        ]
    return [step.args for step in steps_of(test, loaded)]
