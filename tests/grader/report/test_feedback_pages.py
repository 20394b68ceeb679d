"""A batch's feedback pages: the student's (feedback.html) withholds the hidden tests' failure
texts, which can hold their cases and expected values; the instructor's beside it shows all."""

from __future__ import annotations

from grader.report.gradebook import Attempt
from grader.report.summary import FEEDBACK_INSTRUCTOR_NAME, FEEDBACK_NAME, feedback_html
from tests.grader.report import golden_data as data

SECRET = "the hidden case (4, 2) expected 17"


def attempt_with_a_hidden_failure() -> Attempt:
    attempt = data.attempts()["bo<b>\x1b[31m"]
    for row in attempt.tests:
        if row.test == "game":
            row.output = SECRET
    return attempt


def test_the_student_page_withholds_hidden_texts_and_the_instructor_page_shows_them() -> None:
    attempt = attempt_with_a_hidden_failure()
    student = feedback_html("toy", attempt, frozenset({"game"}))
    instructor = feedback_html("toy", attempt, frozenset({"game"}), instructor=True)
    assert SECRET not in student and "game (hidden)" in student
    assert "0/3" in student  # its verdict and points stay
    assert "position(1)" in student  # a visible test's failure text stays
    assert SECRET in instructor and "summary.html" in instructor
    assert f'href="{FEEDBACK_NAME}"' in instructor and "summary.html" not in student
    assert FEEDBACK_INSTRUCTOR_NAME == "feedback-instructor.html"


def test_without_hidden_tests_the_student_page_shows_every_text() -> None:
    attempt = attempt_with_a_hidden_failure()
    assert SECRET in feedback_html("toy", attempt)
