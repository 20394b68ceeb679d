"""Every JE says why (issue 20): a grader error with an empty message still names its cause."""

from __future__ import annotations

from typing import Any

import pytest

from grader.judge.grade import result_of
from grader.judge.judgement import Judgement
from grader.judge.testrun import Grader
from grader.judge.verdicts import Verdict
from grader.suite.schema import TestSpec as Spec  # pytest would collect a class named Test*
from tests.conftest import Build

SUITE = """
exercise: toy
submit: [toy.py]
tests:
  - {name: double, call: toy.answer, cases: [[1]]}
"""
REFERENCE = "def answer(n):\n    return 2 * n\n"


def test_an_exception_without_a_message_is_a_je_that_names_it(
    grade_toy: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    grade_toy(SUITE, REFERENCE, REFERENCE)  # recorded, and it passes

    def broken(self: Grader, test: Spec, swapped: object = ()) -> Any:
        raise RuntimeError()

    monkeypatch.setattr(Grader, "grade_test", broken)
    report = grade_toy(SUITE, REFERENCE, REFERENCE)
    assert [(r.verdict, r.message) for r in report.results] == [
        (Verdict.JE, "the grader failed: RuntimeError")
    ]


def test_a_je_never_goes_out_without_a_reason() -> None:
    test = Spec.model_validate({"name": "t", "call": "toy.answer", "cases": [[1]]})
    result = result_of(test, Judgement(Verdict.JE), None)
    assert result.message.startswith("the grader failed without saying why")
