"""Points per question: a suite's tests grouped by the question (or task) each belongs to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from grader.judge.verdicts import TestResult


@dataclass(frozen=True)
class QuestionScore:
    """What a submission scored on one question, and which of its tests it lost."""

    id: str
    title: str
    points: float
    max_points: float
    lost: tuple[str, ...]  # the question's tests not passed, in the suite's order

    @property
    def passed(self) -> bool:
        return not self.lost


def question_scores(results: Iterable[TestResult], titles: Mapping[str, str]) -> list[QuestionScore]:
    """The points of each question, in the suite's order of the questions (none: no question).

    >>> from grader.judge.verdicts import Verdict
    >>> results = [TestResult("a", Verdict.AC, 2, 2, "visible", question="q1"),
    ...            TestResult("b", Verdict.WA, 0, 3, "visible", question="q1"),
    ...            TestResult("c", Verdict.AC, 1, 1, "visible", question="q2")]
    >>> for score in question_scores(results, {"q1": "Board", "q2": "Search"}):
    ...     print(score.id, score.title, f"{score.points:g}/{score.max_points:g}", score.lost)
    q1 Board 2/5 ('b',)
    q2 Search 1/1 ()
    """
    points: dict[str, float] = dict.fromkeys(titles, 0.0)
    most: dict[str, float] = dict.fromkeys(titles, 0.0)
    lost: dict[str, list[str]] = {question: [] for question in titles}
    for result in results:
        if result.question not in titles:
            continue
        points[result.question] += result.points
        most[result.question] += result.max_points
        if not result.passed:
            lost[result.question].append(result.name)
    return [
        QuestionScore(question, title, points[question], most[question], tuple(lost[question]))
        for question, title in titles.items()
        if most[question] or lost[question]
    ]
