"""A suite's questions: the original assignment's questions (or tasks) its tests belong to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
Location = tuple[int | str, ...]


class Question(BaseModel):
    """A question (or task) of the original assignment: the unit a student's score is told in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=NAME_PATTERN)]
    title: str = ""
    integration: bool = Field(
        False,
        description="whole programs run with everything the "
        "student wrote: any bug may cost this question besides its own",
    )


def question_problem(
    questions: Sequence[Question], tests: Sequence[tuple[str, str | None]]
) -> tuple[Location, str] | None:
    """Where and why the questions or the tests' `question:` keys are wrong (None: they are not).

    Declared questions are unique and never a test's name; once a suite declares questions,
    every test ((name, question) pairs) names one of them.

    >>> question_problem([Question(id="q1")], [("a", "q1"), ("b", "q2")])
    (('tests', 1, 'question'), "no question 'q2' is declared (questions: q1)")
    """
    ids: set[str] = set()
    names = {name for name, _ in tests}
    for index, question in enumerate(questions):
        if question.id in ids:
            return ("questions", index, "id"), f"two questions are named '{question.id}'"
        if question.id in names:
            return (
                ("questions", index, "id"),
                f"'{question.id}' is also a test's name: a question and a test never share a name",
            )
        ids.add(question.id)
    known = ", ".join(sorted(ids))
    for index, (name, question_id) in enumerate(tests):
        if not ids and question_id is not None:
            return (
                ("tests", index, "question"),
                "the suite declares no `questions:` for this test to belong to",
            )
        if ids and question_id is None:
            return ("tests", index), f"test '{name}' names no question (one of {known})"
        if ids and question_id not in ids:
            return (
                ("tests", index, "question"),
                f"no question '{question_id}' is declared (questions: {known})",
            )
    return None
