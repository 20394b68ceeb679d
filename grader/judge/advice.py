"""Which question to fix first, for a test that runs with reference helpers (`reference_helpers`).

Graded, such a test scores with the reference's helpers; when it passes so but fails with the
student's own helpers, its feedback says so and names the questions grading those helpers. In a
handout (no reference) it runs with the student's own helpers, and a failure names the failing
questions of those helpers as the ones to fix first.
"""

from __future__ import annotations

from collections.abc import Mapping

from grader.judge.judgement import Judgement
from grader.judge.verdicts import Verdict
from grader.suite.schema import TestSpec

Verdicts = Mapping[str, Verdict]


def helper_questions(test: TestSpec) -> list[str]:
    """The tests grading the test's helpers, each once, in the suite's order of the helpers."""
    return list(dict.fromkeys(test.reference_helpers.values()))


def failing_questions(test: TestSpec, verdicts: Verdicts) -> list[str]:
    """The helpers' questions already graded in this run and not passed."""
    return [q for q in helper_questions(test) if q in verdicts and verdicts[q] is not Verdict.AC]


def worth_checking_own(test: TestSpec, verdicts: Verdicts) -> bool:
    """Whether to run the test again with the student's helpers: one of their questions failed or
    was not graded in this run."""
    return any(verdicts.get(q, Verdict.JE) is not Verdict.AC for q in helper_questions(test))


def helpers_of(test: TestSpec, questions: list[str]) -> str:
    """The helpers graded by `questions`, for a message.

    >>> test = TestSpec(name="read", call="m.read", cases=[[1]],
    ...                 reference_helpers={"m.mask": "mask", "m.east": "directions"})
    >>> helpers_of(test, ["mask"])
    'm.mask'
    """
    return ", ".join(h for h, q in test.reference_helpers.items() if q in questions)


def graded_advice(test: TestSpec, own: Judgement, failing: list[str]) -> str:
    """A pass with the reference's helpers that fails with the student's own.

    >>> test = TestSpec(name="read", call="m.read", cases=[[1]], reference_helpers={"m.mask": "mask"})
    >>> text = graded_advice(test, Judgement(Verdict.WA, "m.read(1) returned 2"), ["mask"])
    >>> for sentence in text.split(". "):
    ...     print(sentence)
    Passed with the reference's m.mask; with your own it gets WA: m.read(1) returned 2
    Fix question 'mask' first: this test then passes with your code too.
    """
    questions = failing or helper_questions(test)
    which = " or ".join(f"'{q}'" for q in questions)
    verb = "Fix question" if failing else "Check question"
    plural = "s" if len(questions) > 1 else ""
    return (f"Passed with the reference's {helpers_of(test, helper_questions(test))}; with your "
            f"own it gets {own.verdict.value}: {own.message.rstrip('.')}. {verb}{plural} {which} "
            "first: this test then passes with your code too.")


def local_advice(test: TestSpec, failing: list[str]) -> str:
    """A failure, run with the student's own helpers, where some of them fail their questions.

    >>> test = TestSpec(name="read", call="m.read", cases=[[1]], reference_helpers={"m.mask": "mask"})
    >>> for sentence in local_advice(test, ["mask"]).split(". "):
    ...     print(sentence)
    This test uses your m.mask, and question 'mask' fails: fix that first
    When graded, it runs with the reference's m.mask: a wrong helper costs only its own question.
    """
    which = " and ".join(f"'{q}'" for q in failing)
    several = len(failing) > 1
    helpers = helpers_of(test, failing)
    return (f"This test uses your {helpers}, and question{'s' if several else ''} {which} "
            f"fail{'' if several else 's'}: fix {'those' if several else 'that'} first. When "
            f"graded, it runs with the reference's {helpers}: a wrong helper costs only its own "
            "question.")
