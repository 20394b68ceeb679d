"""grades.csv: one row per student, roster columns first, then status, score and every test."""

from __future__ import annotations

import csv
import io

from grader.inert import csv_cell
from grader.report.gradebook import Attempt
from grader.report.roster import Roster

GRADE_COLUMNS = ("student", "status", "score", "max_score")
MISSING = "missing"


def number(value: float) -> str:
    """A score as a spreadsheet reads it.

    >>> number(3.0), number(0.5)
    ('3', '0.5')
    """
    return f"{value:g}"


def grades_csv(tests: list[str], max_score: float, attempts: dict[str, Attempt],
               roster: Roster | None = None) -> str:
    """The class's grades; every cell a student or a roster controls passes csv_cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = roster.columns if roster is not None else []
    writer.writerow([csv_cell(name) for name in [*columns, *GRADE_COLUMNS, *tests]])
    order = list(roster.rows) if roster is not None else []
    order += sorted(student for student in attempts if student not in set(order))
    for student in order:
        front = [csv_cell(cell) for cell in roster.rows.get(student, [""] * len(columns))] \
            if roster is not None else []
        attempt = attempts.get(student)
        if attempt is None:
            writer.writerow([*front, csv_cell(student), MISSING, "0", number(max_score),
                             *([""] * len(tests))])
            continue
        points = {row.test: row.points for row in attempt.tests}
        writer.writerow([*front, csv_cell(student), attempt.status, number(attempt.score),
                         number(attempt.max_score),
                         *(number(points[name]) if name in points else "" for name in tests)])
    return buffer.getvalue()
