"""Whether a known-wrong submission loses only its own question (`grader verify`).

A mutant whose header names its question (`question: ID`) breaks one question's function and
nothing else: graded, it must lose tests of that question and of no other, the integration
question included (a whole program charges only what no question saw: docs/suites.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.judge.grade import GradeReport
from grader.judge.mutants import Mutant


@dataclass(frozen=True)
class QuestionLoss:
    """What one graded mutant lost, question by question."""

    mutant: str
    own: str | None  # its `question:` line
    lost: dict[str, list[str]]  # question (or "" for tests of none) -> the tests it lost

    @property
    def others(self) -> list[str]:
        """The questions it lost besides its own."""
        return [q for q in self.lost if q != self.own]

    def describe(self) -> str:
        """One line for verify's report.

        >>> QuestionLoss("WA/a", "board", {"board": ["wins"]}).describe()
        'WA/a (only its own)'
        >>> QuestionLoss("WA/b", "board", {"board": ["w"], "game": ["s1", "s2"]}).describe()
        'WA/b (ALSO LOSES game: s1, s2)'
        """

        def tests(question: str) -> str:
            return f"{question or '(no question)'}: {', '.join(self.lost[question])}"

        if self.own is None:
            return f"{self.mutant} (loses {'; '.join(tests(q) for q in self.lost)})"
        if self.own not in self.lost:
            return f"{self.mutant} (DOES NOT LOSE its own question {self.own})"
        said = "only its own" if not self.others else f"ALSO LOSES {'; '.join(tests(q) for q in self.others)}"
        return f"{self.mutant} ({said})"


def question_loss(mutant: Mutant, report: GradeReport) -> QuestionLoss:
    """The tests a graded mutant lost, by the question each belongs to."""
    lost: dict[str, list[str]] = {}
    for result in report.results:
        if not result.passed:
            lost.setdefault(result.question, []).append(result.name)
    return QuestionLoss(mutant.name, mutant.question, lost)


def isolation_problems(loss: QuestionLoss) -> list[str]:
    """A mutant aimed at a question that loses another one, or none of its own."""
    if loss.own is None:
        return []
    if loss.own not in loss.lost:
        return [f"mutant {loss.mutant} is aimed at question {loss.own} but loses none of its tests"]
    return [
        f"mutant {loss.mutant} (question {loss.own}) also loses question {q}: {', '.join(loss.lost[q])}"
        for q in loss.others
    ]


def by_question(losses: list[QuestionLoss]) -> list[str]:
    """For each question, the mutants aimed at it and what each lost."""
    rows: dict[str, list[str]] = {}
    for loss in losses:
        rows.setdefault(loss.own or "(no question: line)", []).append(loss.describe())
    return [f"{question}: {', '.join(mutants)}" for question, mutants in rows.items()]
