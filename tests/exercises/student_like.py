"""Checks that an exercise's known-wrong submissions behave like students' and cost one question.

A student-like mutant changes one function of the reference and nothing else: the rest of the
reference keeps calling the changed function (no private correct copy, no new function), and no
decorator is dropped on the way. Its `tests:` line names the tests of that function's question
only (the question and its hidden twin). `grader verify` grades every mutant on every test; the
checks here read the diffs, and grade a few tests for the examples of issue 13.
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.judge.grade import GradeReport, grade
from grader.judge.mutants import Mutant, applied, mutants_of
from grader.judge.verdicts import Verdict
from grader.suite.load import LoadedSuite, load_suite

HIDDEN_SUFFIX = "-hidden"


def wrong_mutants(exercise: str) -> list[Mutant]:
    """The exercise's mutants other than the accepted ones."""
    return [m for m in mutants_of(load_suite(exercise).exercise) if m.verdict is not Verdict.AC]


def question_of(test: str) -> str:
    """The question a test grades: `mask-hidden` grades question `mask`, like its visible twin."""
    return test.removesuffix(HIDDEN_SUFFIX)


def top_level(source: str) -> tuple[dict[str, str], list[str], list[str]]:
    """A module's functions (name -> source, decorators included), decorators, other statements."""
    tree = ast.parse(source)
    functions: dict[str, str] = {}
    decorators: list[str] = []
    others: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = ast.unparse(node)
            decorators += [f"{node.name}: {ast.unparse(d)}" for d in node.decorator_list]
        elif not isinstance(node, (ast.Import, ast.ImportFrom)):
            others.append(ast.unparse(node))
    return functions, decorators, others


def changed_functions(exercise: str, mutant: Mutant) -> list[str]:
    """`FILE:function` for each top-level function the mutant changes, after checking it adds,
    removes and undecorates none and leaves every other statement but imports alone."""
    reference = load_suite(exercise).exercise.reference
    changed: list[str] = []
    with applied(mutant, reference) as patched:
        for name in mutant.files:
            before = top_level((reference / name).read_text(encoding="utf-8"))
            after = top_level((Path(patched) / name).read_text(encoding="utf-8"))
            assert sorted(after[0]) == sorted(before[0]), (
                f"{mutant.name} adds or removes functions in {name}: a private copy?"
            )
            assert after[1] == before[1], f"{mutant.name} changes decorators in {name}"
            assert after[2] == before[2], f"{mutant.name} changes more than functions in {name}"
            changed += [f"{name}:{f}" for f in before[0] if after[0][f] != before[0][f]]
    return changed


def without_helpers(loaded: LoadedSuite) -> LoadedSuite:
    """The same suite with no test naming reference helpers (every test runs the student's own)."""
    tests = [test.model_copy(update={"reference_helpers": {}}) for test in loaded.suite.tests]
    return LoadedSuite(loaded.suite.model_copy(update={"tests": tests}), loaded.path)


def grade_mutant(loaded: LoadedSuite, name: str, tests: list[str]) -> GradeReport:
    """Grade the mutant VERDICT/NAME on `tests` only, in the process sandbox (runs anywhere)."""
    mutant = next(m for m in mutants_of(loaded.exercise) if m.name == name)
    with applied(mutant, loaded.exercise.reference) as patched:
        return grade(loaded, patched, names=tests, overlay=loaded.exercise.reference, sandbox="process")


def verdicts(report: GradeReport) -> dict[str, Verdict]:
    """Each graded test's verdict."""
    return {result.name: result.verdict for result in report.results}
