"""What a test's feedback says when its helpers' questions fail (`grader.judge.blame` decides).

Graded, a test that fails with the student's own code and passes with the reference's versions of
failing helpers keeps its points, and its feedback names the questions to fix first; one that fails
both ways says so. In a handout (no reference) only the student's own code runs, and a failure names
the failing questions of the test's helpers as the ones to fix first.
"""

from __future__ import annotations

from collections.abc import Mapping

from grader.judge.judgement import Judgement

Helpers = Mapping[str, str]  # module.name -> the question (or test) grading it


def helpers_of(helpers: Helpers, questions: list[str]) -> str:
    """The helpers graded by `questions`, for a message.

    >>> helpers_of({"m.mask": "mask", "m.east": "directions"}, ["mask"])
    'm.mask'
    """
    return ", ".join(h for h, q in helpers.items() if q in questions)


def _questions(questions: list[str]) -> str:
    return " or ".join(f"'{q}'" for q in questions)


def forgiven(swapped: Helpers, own: Judgement, failing: list[str]) -> str:
    """A test that fails with the student's own helpers and passes with the reference's.

    >>> from grader.judge.verdicts import Verdict
    >>> text = forgiven({"m.mask": "mask"}, Judgement(Verdict.WA, "m.read(1) returned 2"), ["mask"])
    >>> for sentence in text.split(". "):
    ...     print(sentence)
    Passed with the reference's m.mask; with your own it gets WA: m.read(1) returned 2
    Fix question 'mask' first: this test then passes with your code too.
    """
    questions = failing or list(dict.fromkeys(swapped.values()))
    verb = "Fix question" if failing else "Check question"
    plural = "s" if len(questions) > 1 else ""
    return (
        f"Passed with the reference's {', '.join(swapped)}; with your own it gets "
        f"{own.verdict.value}: {own.message.rstrip('.')}. {verb}{plural} "
        f"{_questions(questions)} first: this test then passes with your code too."
    )


def unforgiven(own: Judgement, swapped: Helpers, again: Judgement) -> str:
    """A test that fails with the student's own code and with the reference's helpers too: the
    verdict is the own code's, and the message gives the second run's verdict (never its text:
    that run holds reference code, which what it prints or returns could carry out).

    >>> from grader.judge.verdicts import Verdict
    >>> text = unforgiven(Judgement(Verdict.WA, "m.read(1) returned 2"), {"m.mask": "mask"},
    ...                   Judgement(Verdict.WA, "m.read(1) returned 3"))
    >>> for part in text.split(", "):
    ...     print(part)
    m.read(1) returned 2
    With the reference's m.mask it fails as well (WA)
    so this test counts against its own question; fix question 'mask' too.
    """
    questions = list(dict.fromkeys(swapped.values()))
    plural = "s" if len(questions) > 1 else ""
    return (
        f"{own.message.rstrip()}\nWith the reference's {', '.join(swapped)} it fails as well "
        f"({again.verdict.value}), so this test counts against its own question; fix "
        f"question{plural} {_questions(questions)} too."
    ).lstrip()


def local_advice(helpers: Helpers, failing: list[str]) -> str:
    """A failure, run with the student's own helpers, where some of them fail their questions.

    >>> for sentence in local_advice({"m.mask": "mask"}, ["mask"]).split(". "):
    ...     print(sentence)
    This test uses your m.mask, and question 'mask' fails: fix that first
    When graded, a failure that the reference's m.mask would not have is charged to 'mask' only.
    """
    which = " and ".join(f"'{q}'" for q in failing)
    several = len(failing) > 1
    named = helpers_of(helpers, failing)
    return (
        f"This test uses your {named}, and question{'s' if several else ''} {which} "
        f"fail{'' if several else 's'}: fix {'those' if several else 'that'} first. When "
        f"graded, a failure that the reference's {named} would not have is charged to "
        f"{which} only."
    )
