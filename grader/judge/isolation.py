"""Whether a known-wrong submission loses only its own question (`grader verify`).

A mutant whose header names its question (`question: ID`) breaks one question's function and
nothing else: graded, it must lose tests of that question and of no other, integration questions
aside (whole programs run with everything the student wrote, so any bug may cost them too).
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.judge.grade import GradeReport
from grader.judge.mutants import Mutant
from grader.suite.schema import Suite


@dataclass(frozen=True)
class QuestionLoss:
    """What one graded mutant lost, question by question."""

    mutant: str
    own: str | None  # its `question:` line
    lost: dict[str, list[str]]  # question (or "" for tests of none) -> the tests it lost
    integration: frozenset[str]

    @property
    def others(self) -> list[str]:
        """The questions it lost besides its own and the integration ones."""
        return [q for q in self.lost if q != self.own and q not in self.integration]

    @property
    def only_own(self) -> bool:
        return self.own in self.lost and not self.others

    def describe(self) -> str:
        """One line for verify's report.

        >>> loss = QuestionLoss("WA/a", "board", {"board": ["wins"], "game": ["g1"]},
        ...                     frozenset({"game"}))
        >>> loss.describe()
        'WA/a (only its own; also the integration question game: g1)'
        >>> QuestionLoss("WA/b", "board", {"board": ["w"], "search": ["s1", "s2"]},
        ...              frozenset()).describe()
        'WA/b (ALSO LOSES search: s1, s2)'
        """
        def tests(question: str) -> str:
            return f"{question or '(no question)'}: {', '.join(self.lost[question])}"

        if self.own is None:
            return f"{self.mutant} (loses {'; '.join(tests(q) for q in self.lost)})"
        if self.own not in self.lost:
            return f"{self.mutant} (DOES NOT LOSE its own question {self.own})"
        said = "only its own" if not self.others else \
            f"ALSO LOSES {'; '.join(tests(q) for q in self.others)}"
        extra = [q for q in self.lost if q in self.integration]
        if extra:
            said += f"; also the integration question {'; '.join(tests(q) for q in extra)}"
        return f"{self.mutant} ({said})"


def question_loss(mutant: Mutant, report: GradeReport, suite: Suite) -> QuestionLoss:
    """The tests a graded mutant lost, by the question each belongs to."""
    lost: dict[str, list[str]] = {}
    for result in report.results:
        if not result.passed:
            lost.setdefault(result.question, []).append(result.name)
    integration = frozenset(q.id for q in suite.questions if q.integration)
    return QuestionLoss(mutant.name, mutant.question, lost, integration)


def isolation_problems(loss: QuestionLoss) -> list[str]:
    """A mutant aimed at a question that loses another one, or none of its own."""
    if loss.own is None:
        return []
    if loss.own not in loss.lost:
        return [f"mutant {loss.mutant} is aimed at question {loss.own} but loses none of its tests"]
    return [f"mutant {loss.mutant} (question {loss.own}) also loses question {q}: "
            f"{', '.join(loss.lost[q])}" for q in loss.others]


def per_question(losses: list[QuestionLoss]) -> list[str]:
    """For each question, the mutants aimed at it and what each lost."""
    rows: dict[str, list[str]] = {}
    for loss in losses:
        rows.setdefault(loss.own or "(no question: line)", []).append(loss.describe())
    return [f"{question}: {', '.join(mutants)}" for question, mutants in rows.items()]
