"""The alphabeta mutants are student-like and each loses only its own question (issue 13)."""

from __future__ import annotations

import pytest

from grader.judge.mutants import Mutant
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite
from tests.exercises.student_like import (
    changed_functions,
    grade_mutant,
    question_of,
    verdicts,
    without_helpers,
    wrong_mutants,
)

MUTANTS = wrong_mutants("alphabeta")


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_a_mutant_changes_one_function_and_names_only_its_question(mutant: Mutant) -> None:
    changed = changed_functions("alphabeta", mutant)
    assert len(changed) == 1, f"{mutant.name} changes {changed}"
    question = changed[0].split(":")[1].replace("_", "-")
    assert mutant.failing_tests, f"{mutant.name} has no tests: line"
    assert {question_of(test) for test in mutant.failing_tests} == {question}


def test_every_question_has_a_mutant() -> None:
    questions = {question_of(t.name) for t in load_suite("alphabeta").suite.tests}
    aimed = {question_of(test) for m in MUTANTS for test in m.failing_tests or []}
    assert questions - aimed == set()


@pytest.mark.parametrize("name", ["WA/bval-no-cut", "WA/bval-no-negation"])
def test_a_wrong_bval_costs_question_bval_only(name: str) -> None:
    """The issue's example: assured_win and bmove call the wrong bval, and still pass."""
    loaded = load_suite("alphabeta")
    tests = ["bval", "assured-win", "bmove"]
    report = grade_mutant(loaded, name, tests)
    assert verdicts(report) == {"bval": Verdict.WA, "assured-win": Verdict.AC, "bmove": Verdict.AC}
    assert all("Fix question 'bval' first" in r.message for r in report.results[1:])
    plain = grade_mutant(without_helpers(loaded), name, tests)
    assert verdicts(plain) == dict.fromkeys(tests, Verdict.WA)  # the mutant does use its bval
