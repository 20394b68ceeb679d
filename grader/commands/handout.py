"""`grader handout`: the folder students receive, holding nothing hidden."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UserError
from grader.exercise import GIVEN_COPIES, Exercise, project_root
from grader.judge import calibration
from grader.judge.preflight import preflight
from grader.report.statement import read_statement, statement_file, statement_page
from grader.run.sandbox import for_reference
from grader.suite import expectations
from grader.suite.cases import visible_cases
from grader.suite.limits import LimitSpec
from grader.suite.load import LoadedSuite, load_suite
from grader.suite.schema import TestSpec

STUDENT_README = """\
# {title}

{statement}Your files: {submit} in `exercises/{name}/`. Replace every `raise NotImplementedError` with your
solution; the docstrings say what each function must do. Do not edit the given files ({given}):
the grader uses its own copies of them.

Set up once (Python 3.11 or newer):

    python3 -m venv .venv && .venv/bin/pip install -r requirements.txt

Then, from this folder:

- `.venv/bin/python -m grader statement {name}`: the statement on your terminal;
- `.venv/bin/python -m grader check {name}`: grade your working copy with the visible tests
  (points per question first; verdicts: AC accepted, WA wrong answer, TLE/MLE/OLE
  time/memory/output limit, RTE run-time error, NI not implemented yet, CE does not import);
- `.venv/bin/python -m pytest exercises/{name}`: the same tests as pytest items;
{drivers}
The final grading also runs hidden tests, under the same limits.
"""

REQUIREMENTS = (
    "psutil>=5.9\npyseccomp>=0.1.2\npyyaml>=6.0\npydantic>=2.5\nrich>=13.0\n"
    "markdown-it-py>=3.0\nnh3>=0.2.14\npytest>=8.0\n"
)
STATEMENT_PAGE = "statement.html"
STATEMENT_NOTE = (
    "The task, question by question: `exercises/{name}/README.md`, also as the page "
    f"`{STATEMENT_PAGE}`.\n\n"
)


CASES_FILE = "visible_cases.json"
CHECKED_HERE = (
    "(Graded by a checker that accepts every right answer; this copy accepts only "
    "the reference's answer, so it may fail a right answer that grading accepts.)"
)


def handed_out(test: TestSpec) -> bool:
    """Whether a handout carries the test: visible ones, but for interactive tests (their referee,
    which may hold the reference's engine, stays with the grader: graded later)."""
    return test.visibility == "visible" and test.interactive is None


def _visible_test(test: TestSpec, visible: set[str]) -> dict[str, Any]:
    """A visible test as the handout's suite writes it: generated cases come from CASES_FILE, and
    reference helpers name only visible questions (the handout has no reference to run them)."""
    data = test.model_dump(exclude_defaults=True, exclude_none=True)
    for key in ("cases_from", "steps_from"):
        if key in data:
            data[key] = f"{CASES_FILE}:{test.name}"
    checked = data.pop("checker", None) is not None
    for step in data.get("steps", []):
        checked = step.pop("checker", None) is not None or checked
    if checked:  # checkers stay with the grader: the handout compares with the recorded answers
        data["description"] = (data.get("description", "") + " " + CHECKED_HERE).strip()
    helpers = {h: q for h, q in test.reference_helpers.items() if q in visible}
    data.pop("reference_helpers", None)
    if helpers:
        data["reference_helpers"] = helpers
    return data


def visible_suite(loaded: LoadedSuite, generated: dict[str, list[Any]]) -> dict[str, Any]:
    """The suite students get: visible tests only; their generated cases go into `generated`."""
    suite = loaded.suite
    data = suite.model_dump(exclude_defaults=True, exclude_none=True, exclude={"tests"})
    data["limits"] = suite.limits.model_dump()
    data["tests"] = []
    visible = {test.name for test in suite.tests if handed_out(test)}
    visible |= {question.id for question in suite.questions}  # helpers may name a question
    for test in suite.tests:
        if not handed_out(test):
            continue
        if test.cases_from is not None or test.steps_from is not None:
            generated[test.name] = visible_cases(loaded, test)
        entry = _visible_test(test, visible)
        if suite.limits.merged(test.limits).relative:
            resolved = calibration.resolve_limits(loaded, [test], for_reference())[test.name]
            if resolved.problem is not None:
                raise calibration.CalibrationError(resolved.problem)
            limits, note = resolved.limits, resolved.note
            entry["limits"] = {"cpu_s": limits.cpu_s, "wall_s": limits.wall_s}
            entry["description"] = (entry.get("description", "") + f" (limits: {note})").strip()
        data["tests"].append(entry)
    withheld = suite.withheld_points + sum(t.points for t in suite.tests if not handed_out(t))
    if withheld:
        data["withheld_points"] = withheld
    if isinstance(suite.limits.cpu_s, str) or isinstance(suite.limits.wall_s, str):
        data["limits"].update(cpu_s=LimitSpec().cpu_s, wall_s=LimitSpec().wall_s)
    return data


def _copy_tree(source: Path, destination: Path) -> None:
    shutil.copytree(
        source, destination, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True
    )


def make_handout(loaded: LoadedSuite, destination: Path) -> list[Path]:
    """Write the handout into `destination` (which must not exist or be empty)."""
    if destination.exists() and any(destination.iterdir()):
        raise UserError(f"{destination}: the handout folder exists and is not empty")
    name = loaded.name
    suite = loaded.suite
    handout = Exercise.named(name, destination)
    _copy_tree(loaded.exercise.stubs, handout.stubs)
    for given in suite.given:  # the grader's own copies: a student's edits never reach a grading
        pristine = handout.fixtures / GIVEN_COPIES / given
        pristine.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(loaded.exercise.given_file(given), pristine)
    _copy_tree(project_root() / "grader", destination / "grader")
    fixtures = handout.fixtures
    handout.expected.mkdir(parents=True)
    generated: dict[str, list[Any]] = {}
    handout.suite.write_text(
        f"# The visible tests of {name}; the final grading adds hidden ones.\n"
        + yaml.safe_dump(visible_suite(loaded, generated), sort_keys=False)
    )
    if generated:
        handout.input_file(CASES_FILE).write_text(
            "{\n"
            + ",\n".join(
                f"{json.dumps(test)}: {json.dumps(cases, separators=(',', ':'))}"
                for test, cases in generated.items()
            )
            + "\n}\n"
        )
    for test in suite.tests:
        if not handed_out(test):
            continue
        for input_name in expectations.input_names(test):
            target = fixtures / input_name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(loaded.fixtures / input_name, target)
        recorded = expectations.call_file(loaded, test)
        if not recorded.is_file():
            raise expectations.MissingExpectation(
                f"{recorded}: not recorded; run `grader record {name}` first"
            )
        shutil.copyfile(recorded, handout.expected_file(test.name))
        if test.transcript is not None:
            shutil.copyfile(loaded.fixtures / test.transcript.expected, fixtures / test.transcript.expected)
    drivers = "".join(
        f"- `.venv/bin/python -m grader run {name} {driver}`: "
        f"run the given program `{driver}.py` with your code;\n"
        for driver in loaded.runnable_drivers
    )
    statement = ""
    if statement_file(loaded.exercise).is_file():
        (destination / STATEMENT_PAGE).write_text(
            statement_page(suite.title or name, read_statement(loaded.exercise)), encoding="utf-8"
        )
        statement = STATEMENT_NOTE.format(name=name)
    (destination / "README.md").write_text(
        STUDENT_README.format(
            title=suite.title or name,
            name=name,
            submit=", ".join(suite.submit),
            given=", ".join(suite.given) or "none",
            drivers=drivers,
            statement=statement,
        )
    )
    (destination / "requirements.txt").write_text(REQUIREMENTS)
    (destination / "conftest.py").write_text(
        '"""Lets `pytest exercises/NAME` run the visible tests of the suite."""\n\n'
        "from grader.pytest_plugin import pytest_collect_directory  # noqa: F401\n"
    )
    (destination / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    manifest = sorted(p for p in destination.rglob("*") if p.is_file())
    (destination / "MANIFEST.json").write_text(
        json.dumps([str(p.relative_to(destination)) for p in manifest], indent=1) + "\n"
    )
    return manifest


def main(*, exercise: str, directory: Path, console: Console | None = None) -> int:
    """Write what students receive into `directory` (absent or empty): stubs, given files, the
    statement (exercises/NAME/README.md, and as statement.html), the visible tests and their
    expectations, the grader, a README; nothing hidden. The suite must
    first pass the checks every grading makes (else exit 3, nothing written)."""
    loaded = load_suite(exercise)
    preflight(loaded, loaded.suite.tests).stop_on_errors("nothing written")
    files = make_handout(loaded, directory)
    stdout_console(console).print(f"wrote {len(files)} file(s) to {directory} (visible tests only)")
    return EXIT_OK
