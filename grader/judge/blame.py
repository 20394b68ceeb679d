"""Blame by evidence: which question a failing test is charged to.

Every test runs first with the student's code exactly as submitted; a pass is a pass, and it runs
once. Only a failure is run again, with the reference's versions of the test's helpers whose own
questions failed (or were not graded in this run): when the test then passes, the failure came from
those helpers, which their own questions' tests already charge, and the test keeps its points;
when it fails again (or no helper is suspect), the failure is the test's own question's. So the
student's code as written decides every verdict, and the reference can only forgive: an honest
submission whose later code reaches into its own classes' private attributes never runs against
the reference's classes unless those classes already failed.

A test's helpers are its `reference_helpers`; a test of an integration question (a whole program
run with everything the student wrote) has as helpers every function or class a question of the
suite grades (`graded_functions`), so that a bug charged by its own question is not charged again.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from grader.judge.helpers import swappable
from grader.judge.verdicts import Verdict
from grader.suite import expectations
from grader.suite.load import LoadedSuite
from grader.suite.schema import TestSpec

Verdicts = Mapping[str, Verdict]
Helpers = Mapping[str, str]  # module.name -> the question (or test) grading it


def top_level(target: str) -> str:
    """The module-level name a call or attribute target starts from.

    >>> top_level("board.Board.score"), top_level("grid.winner"), top_level("engine")
    ('board.Board', 'grid.winner', '')
    """
    parts = target.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else ""


def _graded_targets(test: TestSpec, loaded: LoadedSuite) -> list[str]:
    """The module-level names whose results `test` compares: its call, or its compared steps'
    targets, a method of a `let` object standing for what made that object."""
    if test.call is not None:
        return [top_level(test.call)]
    made: dict[str, str] = {}  # let name -> the module-level name that made it
    targets: list[str] = []
    for step in expectations.steps_of(test, loaded):
        first = step.target.split(".")[0]
        name = made.get(first, "") if first in made else top_level(step.target)
        if step.let is not None and name:
            made[step.let] = name
        if step.compared and name:
            targets.append(name)
    return targets


@functools.cache  # once per loaded suite (steps may come from a case generator)
def graded_functions(loaded: LoadedSuite) -> dict[str, tuple[str, ...]]:
    """Each submitted function or class that a non-integration question grades (the target of a
    test's call or of a compared step), with every question grading it (a class may hold the
    methods of several questions), in the suite's order."""
    suite = loaded.suite
    integration = {question.id for question in suite.questions if question.integration}
    submitted = {name.removesuffix(".py") for name in suite.submit}
    graded: dict[str, tuple[str, ...]] = {}
    for test in suite.tests:
        if test.question is None or test.question in integration or test.transcript is not None:
            continue
        for target in _graded_targets(test, loaded):
            known = graded.get(target, ())
            if test.question not in known and target.split(".")[0] in submitted and swappable(loaded, target):
                graded[target] = (*known, test.question)
    return graded


def graders_of(test: TestSpec, loaded: LoadedSuite) -> dict[str, tuple[str, ...]]:
    """The functions and classes a failure of `test` may be blamed on, with the questions (or
    tests) grading each: its `reference_helpers`, or for a whole program every graded one."""
    if test.reference_helpers:
        return {helper: (grading,) for helper, grading in test.reference_helpers.items()}
    integration = {question.id for question in loaded.suite.questions if question.integration}
    if test.question in integration:
        return graded_functions(loaded)
    return {}


def helpers_of(test: TestSpec, loaded: LoadedSuite, verdicts: Verdicts) -> dict[str, str]:
    """Each of the test's helpers with the question to blame it on: the first of its questions
    that failed (or was not graded in this run), else the first."""
    return {
        helper: next((q for q in questions if verdicts.get(q, Verdict.JE) is not Verdict.AC), questions[0])
        for helper, questions in graders_of(test, loaded).items()
    }


def suspects(helpers: Helpers, verdicts: Verdicts) -> dict[str, str]:
    """Those of `helpers` whose question (or test) failed in this run or was not graded in it.

    >>> suspects({"m.mask": "mask", "m.east": "directions"},
    ...          {"mask": Verdict.WA, "directions": Verdict.AC})
    {'m.mask': 'mask'}
    """
    return {
        helper: grading
        for helper, grading in helpers.items()
        if verdicts.get(grading, Verdict.JE) is not Verdict.AC
    }


def swapped_for(test: TestSpec, loaded: LoadedSuite, verdicts: Verdicts) -> dict[str, str]:
    """The helpers a failure of `test` runs again with the reference's versions of (none: its
    failure stands).

    A whole program (no `reference_helpers` of its own) forgives the bug of one question: run
    with the reference's versions of two questions' code or more, too little of what the student
    wrote would be judged together (a stub with one function done would earn it), so its failure
    stands, as it does when every graded function failed.
    """
    helpers = helpers_of(test, loaded, verdicts)
    chosen = suspects(helpers, verdicts)
    whole_program = not test.reference_helpers
    if whole_program and (len(chosen) == len(helpers) or len(set(chosen.values())) > 1):
        return {}
    return chosen


def failing(helpers: Helpers, verdicts: Verdicts) -> list[str]:
    """The questions grading `helpers` that were graded in this run and failed, each once."""
    return [q for q in dict.fromkeys(helpers.values()) if q in verdicts and verdicts[q] is not Verdict.AC]


def seeded(loaded: LoadedSuite, prior: Mapping[str, str], graded: set[str]) -> dict[str, Verdict]:
    """The verdicts of a regrade's evidence before it runs: each test not regraded now (not in
    `graded`) with the verdict `prior` gives it (its last grading's), and each question those
    tests belong to, failed when one of them failed; so a regrade of some tests blames as the
    full grading did.

    >>> from pathlib import Path
    >>> from grader.suite.load import LoadedSuite
    >>> from grader.suite.schema import Suite
    >>> suite = Suite.model_validate({"exercise": "toy", "submit": ["toy.py"],
    ...     "questions": [{"id": "q1"}, {"id": "q2"}],
    ...     "tests": [{"name": "a", "question": "q1", "call": "toy.f", "cases": [[1]]},
    ...               {"name": "b", "question": "q2", "call": "toy.g", "cases": [[1]]}]})
    >>> seeded(LoadedSuite(suite, Path("suite.yaml")), {"a": "WA", "b": "AC"}, {"b"})
    {'a': <Verdict.WA: 'WA'>, 'q1': <Verdict.WA: 'WA'>}
    """
    verdicts: dict[str, Verdict] = {}
    for test in loaded.suite.tests:
        if test.name in graded or test.name not in prior:
            continue
        try:
            verdict = Verdict(prior[test.name])
        except ValueError:
            continue
        verdicts[test.name] = verdict
        if test.question is not None and verdicts.get(test.question, Verdict.AC) is Verdict.AC:
            verdicts[test.question] = verdict
    return verdicts


def execution_order(tests: Sequence[TestSpec], loaded: LoadedSuite) -> list[TestSpec]:
    """`tests` in the suite's order, except that a test runs after every selected test of the
    questions its helpers belong to (so its verdict can name them); a cycle keeps the suite's order.

    A whole-program (integration) test depends on every question, so it runs last.
    """
    dependencies = {
        test.name: {q for questions in graders_of(test, loaded).values() for q in questions} for test in tests
    }
    waiting = list(tests)
    done: list[TestSpec] = []

    def ready(test: TestSpec) -> bool:
        return not any(
            other.name != test.name
            and (other.name in dependencies[test.name] or other.question in dependencies[test.name])
            for other in waiting
        )

    while waiting:
        runnable = next((test for test in waiting if ready(test)), waiting[0])
        waiting.remove(runnable)
        done.append(runnable)
    return done
