"""`grader gradebook OUT`: what a batch's gradebook holds; `--changes`: whose score moved."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UsageError
from grader.inert import inert_text
from grader.report.gradebook import GRADEBOOK_NAME, Gradebook, GradebookError, change_lines
from grader.report.gradebook import changes as score_changes
from grader.report.grades import LmsGrade, lms_csv


def main(
    *,
    out: Path,
    changes: bool = False,
    lms: str | None = None,
    assignment: str | None = None,
    console: Console | None = None,
) -> int:
    """The latest attempt of every student in `out`'s gradebook (a batch's --out folder); with
    `changes`, whose score changed between their last two gradings and which tests caused it;
    with `lms` (canvas, moodle), those scores as a CSV that system imports as it is, under the
    assignment column `assignment` (default: the exercise)."""
    console = stdout_console(console)
    if changes and lms is not None:
        raise UsageError("--changes and --format do not go together")
    if assignment is not None and lms is None:
        raise UsageError("--assignment goes with --format")
    if assignment is not None and not assignment.strip():
        raise UsageError("--assignment: an empty name")
    path = out / GRADEBOOK_NAME
    if not path.is_file():
        raise GradebookError(
            f"{path}: no gradebook here; `grader batch EXERCISE CLASS --out {out}` writes one"
        )
    with Gradebook(path) as book:
        exercise = inert_text(book.exercise() or "?")
        if lms is not None:
            latest = book.latest()
            max_score = max((attempt.max_score for attempt in latest.values()), default=0.0)
            grades = [
                LmsGrade(login=student, name="", email="", score=attempt.score)
                for student, attempt in latest.items()
            ]
            console.file.write(lms_csv(lms, assignment or exercise, max_score, grades))
            console.file.flush()
            return EXIT_OK
        if changes:
            lines = change_lines(score_changes(book))
            for line in lines:
                console.print(Text(inert_text(line)))
            if not lines:
                console.print(f"{exercise}: no score changed between any student's last two gradings")
            return EXIT_OK
        table = Table(
            "student",
            "status",
            "score",
            "attempts",
            "graded at",
            title=f"{exercise}: {path}",
            title_justify="left",
        )
        for student, attempt in book.latest().items():
            table.add_row(
                Text(inert_text(student)),
                attempt.status,
                f"{attempt.score:g}/{attempt.max_score:g}",
                str(book.attempt_count(student)),
                attempt.graded_at,
            )
        console.print(table)
    return EXIT_OK
