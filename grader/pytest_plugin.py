"""pytest plugin: `pytest exercises/NAME` runs the visible tests of fixtures/NAME/suite.yaml.

Each visible test of the suite becomes one pytest item; it is graded exactly as `grader check`
grades it (in a child process under the suite's limits) and fails with the grader's verdict,
message and diff.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.exercise import Exercise, project_root
from grader.judge.grade import GradeReport, grade
from grader.report.reports import failure_text
from grader.suite.load import LoadedSuite, load_suite
from grader.suite.model import SuiteError
from grader.suite.schema import TestSpec


class SuiteFailure(Exception):
    """A visible test of an exercise that did not get AC."""


def _exercise_of(path: Path) -> str | None:
    exercises = project_root() / "exercises"
    if path.parent.resolve() == exercises.resolve() and Exercise.named(path.name).suite.is_file():
        return path.name
    return None


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = _exercise_of(path)
    if name is None:
        return None
    collector: pytest.Collector = ExerciseDirectory.from_parent(parent, path=path)
    return collector


class ExerciseDirectory(pytest.Directory):
    """The folder exercises/NAME, collected as the visible tests of its suite."""

    def collect(self) -> Iterator[pytest.Item]:
        try:
            loaded = load_suite(self.path.name)
        except SuiteError as error:
            raise self.CollectError(str(error)) from error
        for test in loaded.suite.tests:
            if test.visibility == "visible":
                yield SuiteItem.from_parent(self, name=test.name, loaded=loaded, spec=test)


class SuiteItem(pytest.Item):
    def __init__(self, *, loaded: LoadedSuite, spec: TestSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = loaded
        self.spec = spec

    def runtest(self) -> None:
        report: GradeReport = grade(
            self.loaded, self.path, public_only=True, names=[self.spec.name], default_sandbox="process"
        )
        (result,) = report.results
        self.user_properties.append(("verdict", result.verdict.value))
        if not result.passed:
            raise SuiteFailure(failure_text(result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, SuiteFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.loaded.path, None, f"{self.loaded.name}::{self.spec.name}"
