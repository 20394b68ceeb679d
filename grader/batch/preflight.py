"""Checks a batch makes before grading anyone: every problem one line naming its file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from grader.diagnostics import Diagnostics
from grader.suite import expectations
from grader.suite.load import LoadedSuite
from grader.suite.schema import SuiteError, TestSpec


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


def suite_problems(loaded: LoadedSuite, tests: list[TestSpec]) -> Diagnostics:
    """Given files, input fixtures and recorded expectations (present and fresh) of `tests`."""
    suite = loaded.suite
    problems = Diagnostics()
    for name in suite.given:
        if not loaded.exercise.given_file(name).is_file():
            problems.error("the given file named in the suite does not exist",
                           file=loaded.exercise.given_file(name))
    fresh_check = loaded.exercise.reference.is_dir()
    for test in tests:
        try:
            names = fixture_names(loaded, test)
        except SuiteError as error:
            problems.error(str(error))
            continue
        absent = [name for name in names if not (loaded.fixtures / name).is_file()]
        for name in absent:
            problems.error(f"input fixture of test '{test.name}' does not exist",
                           file=loaded.fixtures / name)
        recorded = expectations.call_file(loaded, test)
        transcript = (loaded.fixtures / test.transcript.expected
                      if test.transcript is not None else None)
        unrecorded = next((path for path in (recorded, transcript)
                           if path is not None and not path.is_file()), None)
        if unrecorded is not None:
            problems.error(f"the expectation of test '{test.name}' is not recorded; run "
                           f"`grader record {loaded.name}`", file=unrecorded)
        elif fresh_check and not absent and expectations.recorded_fingerprint(loaded, test) \
                != expectations.fingerprint(loaded, test):
            problems.error(f"the expectation of test '{test.name}' is stale (the reference, the "
                           f"test or its inputs changed); run `grader record {loaded.name}`",
                           file=recorded)
    return problems


def out_problems(out: Path) -> Diagnostics:
    """Why results cannot be written into `out` (nothing once a probe file was written there)."""
    problems = Diagnostics()
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=out, prefix=".probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        problems.error(f"cannot write the results there ({error.strerror or error})", file=out)
    return problems
