"""Every bundled suite declares its questions, and every question but the integration one has a
student-like mutant aimed at it (`question:`); `grader verify` then proves each loses only its own
(tests/grader/commands/test_verify.py::test_suite_verifies)."""

from __future__ import annotations

import pytest

from grader.judge.mutants import mutants_of
from grader.suite.load import load_suite
from tests.support import SUITE_NAMES


@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_every_question_has_a_mutant_aimed_at_it(exercise: str) -> None:
    loaded = load_suite(exercise)
    questions = {q.id for q in loaded.suite.questions if not q.integration}
    assert questions, f"{exercise} declares no questions"
    assert all(test.question for test in loaded.suite.tests)
    aimed = {
        m.question for m in mutants_of(loaded.exercise, question_ids={q.id for q in loaded.suite.questions})
    }
    assert questions <= aimed, f"no mutant aimed at {sorted(questions - aimed)}"


@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_integration_is_a_small_share(exercise: str) -> None:
    suite = load_suite(exercise).suite
    integration = {q.id for q in suite.questions if q.integration}
    share = sum(t.points for t in suite.tests if t.question in integration) / suite.total_points
    assert share <= (0.25 if exercise == "bitgrid" else 0.10), share
