"""The gametree mutants are student-like and each loses only its own question (issue 13)."""

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

MUTANTS = wrong_mutants("gametree")

QUESTION_OF_FUNCTION = {
    "gametree.py:east": "directions",
    "gametree.py:northeast": "directions",
    "gametree.py:southeast": "directions",
    "tictactoe.py:bval": "tree-value",
}
"""The question grading a function, where it is not the function's name with dashes."""

SAME_QUESTION = {
    "solve-4x4x4": "solve",
    "solve-work": "solve",
    "best-move": "tree-value",
    "best-move-hidden": "tree-value",
}
"""Tests grading the same question as another one under a name of their own (since issue 20 no
mutant is caught by solve-4x4x4's time: the table is checked by count, in solve-work; best-move
plays with the bval that tree-value grades, issue 33)."""


def question_of_function(changed: str) -> str:
    return QUESTION_OF_FUNCTION.get(changed, changed.split(":")[1].replace("_", "-"))


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_a_mutant_changes_one_function_and_names_only_its_question(mutant: Mutant) -> None:
    changed = changed_functions("gametree", mutant)
    assert len(changed) == 1, f"{mutant.name} changes {changed}"
    assert mutant.failing_tests, f"{mutant.name} has no tests: line"
    own = {SAME_QUESTION.get(test, question_of(test)) for test in mutant.failing_tests}
    assert own == {question_of_function(changed[0])}


def test_every_question_has_a_mutant() -> None:
    questions = {SAME_QUESTION.get(t.name, question_of(t.name)) for t in load_suite("gametree").suite.tests}
    aimed = {SAME_QUESTION.get(test, question_of(test)) for m in MUTANTS for test in m.failing_tests or []}
    assert questions - aimed == set()


def test_a_wrong_mask_costs_question_mask_only() -> None:
    """The issue's example: read and update call the wrong mask, and still pass."""
    loaded = load_suite("gametree")
    tests = ["mask", "read", "update", "square-is-available", "play"]
    report = grade_mutant(loaded, "WA/mask-off-by-one", tests)
    assert verdicts(report) == {
        "mask": Verdict.WA,
        "read": Verdict.AC,
        "update": Verdict.AC,
        "square-is-available": Verdict.AC,
        "play": Verdict.AC,
    }
    read = report.results[1]
    assert read.points == read.max_points
    assert "Fix question 'mask' first" in read.message
    plain = grade_mutant(without_helpers(loaded), "WA/mask-off-by-one", tests)
    assert verdicts(plain) == dict.fromkeys(tests, Verdict.WA)  # the mutant does use its mask


def test_a_wrong_alignments_costs_question_alignments_only() -> None:
    loaded = load_suite("gametree")
    tests = ["alignments", "has-alignment", "opponent-has-won"]
    report = grade_mutant(loaded, "WA/alignments-overlap-off-by-one", tests)
    assert verdicts(report) == {
        "alignments": Verdict.WA,
        "has-alignment": Verdict.AC,
        "opponent-has-won": Verdict.AC,
    }
    plain = grade_mutant(without_helpers(loaded), "WA/alignments-overlap-off-by-one", tests)
    assert verdicts(plain) == dict.fromkeys(tests, Verdict.WA)
