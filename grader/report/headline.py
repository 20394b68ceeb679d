"""What every report says first: the points, visible and hidden (graded now, withheld, or still
to be graded), and, when the submission does not import at all, why, once."""

from __future__ import annotations

from dataclasses import dataclass

from grader.inert import inert_text
from grader.judge.grade import GradeReport
from grader.judge.verdicts import TestResult, Verdict

# What a test stopped by the submission's one import failure says in place of its own text.
SEE_ABOVE = "CE (see above)"


def points(amount: float) -> str:
    """
    >>> points(1), points(2.5), points(0)
    ('1 point', '2.5 points', '0 points')
    """
    return f"{amount:g} point" + ("" if amount == 1 else "s")


@dataclass(frozen=True)
class PointsSplit:
    """A grading's points split by the tests' visibility."""

    visible: float
    visible_max: float
    hidden: float = 0.0
    hidden_max: float = 0.0
    hidden_not_run: float = 0.0  # the points of hidden tests still to be graded

    def statement(self, hidden_texts_withheld: bool = False) -> str:
        """The points in words, hidden ones stated (and said to be withheld or still to come).

        >>> PointsSplit(17, 19).statement()
        '17 of 19 points'
        >>> PointsSplit(17, 19, hidden_not_run=2).statement()
        '17 of the 19 visible points; 2 points in hidden tests, graded later'
        >>> PointsSplit(5, 6, 1, 3).statement(hidden_texts_withheld=True)
        '6 of 9 points: 5 of the 6 visible points; 1 of the 3 points in hidden tests (their \
failure texts are withheld)'
        """
        if not self.hidden_max and not self.hidden_not_run:
            return f"{self.visible:g} of {points(self.visible_max)}"
        parts = [f"{self.visible:g} of the {points(self.visible_max).replace('point', 'visible point')}"]
        if self.hidden_max:
            withheld = " (their failure texts are withheld)" if hidden_texts_withheld else ""
            parts.append(f"{self.hidden:g} of the {points(self.hidden_max)} in hidden tests" + withheld)
        if self.hidden_not_run:
            parts.append(f"{points(self.hidden_not_run)} in hidden tests, graded later")
        text = "; ".join(parts)
        if self.hidden_max:
            got, most = self.visible + self.hidden, self.visible_max + self.hidden_max
            text = f"{got:g} of {points(most)}: {text}"
        return text


def points_split(report: GradeReport) -> PointsSplit:
    visible = [result for result in report.results if result.visibility == "visible"]
    hidden = [result for result in report.results if result.visibility != "visible"]
    return PointsSplit(
        visible=sum(r.points for r in visible),
        visible_max=sum(r.max_points for r in visible),
        hidden=sum(r.points for r in hidden),
        hidden_max=sum(r.max_points for r in hidden),
        hidden_not_run=report.hidden_points_not_run,
    )


# How the report (and results.json's top-level output) starts when the submission did not import.
NOTHING_RAN = "No test could run"


def import_failure_text(failure: TestResult) -> str:
    """The one reason no test could run, with the compiler's (or the import's) own message."""
    text = f"{NOTHING_RAN}: {failure.cause}"
    if failure.details:
        text += "\n" + failure.details
    return inert_text(text)


def notes_beside(report: GradeReport) -> list[str]:
    """The report's notes but one that only repeats the import failure stated above them."""
    failure = report.import_failure
    return [note for note in report.notes if failure is None or note != failure.cause]


def failed_tests(names: list[str], verdicts: dict[str, str]) -> str:
    """
    >>> failed_tests(["a", "b"], {"a": "WA", "b": "CE"})
    'a (WA), b (CE)'
    """
    return ", ".join(f"{name} ({verdicts[name]})" if name in verdicts else name for name in names)


def verdicts_of(report: GradeReport) -> dict[str, str]:
    return {
        result.name: result.verdict.value for result in report.results if result.verdict is not Verdict.AC
    }
