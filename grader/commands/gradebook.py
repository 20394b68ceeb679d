"""`grader gradebook OUT`: what a batch's gradebook holds; `--changes`: whose score moved."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.inert import inert_text
from grader.report.gradebook import GRADEBOOK_NAME, Change, Gradebook, GradebookError, TestRow
from grader.report.gradebook import changes as score_changes


def _points(row: TestRow | None) -> str:
    return "absent" if row is None else f"{row.verdict} {row.points:g}/{row.max_points:g}"


def change_lines(found: list[Change]) -> list[str]:
    """One line per student whose score changed, then one indented line per test that moved."""
    lines = []
    for change in found:
        lines.append(f"{change.student}: {change.before.score:g}/{change.before.max_score:g} -> "
                     f"{change.after.score:g}/{change.after.max_score:g} (graded "
                     f"{change.before.graded_at} -> {change.after.graded_at})")
        lines += [f"  {name}: {_points(before)} -> {_points(after)}"
                  for name, before, after in change.tests]
    return lines


def main(*, out: Path, changes: bool = False, console: Console | None = None) -> int:
    """The latest attempt of every student in `out`'s gradebook (a batch's --out folder); with
    `changes`, whose score changed between their last two gradings and which tests caused it."""
    console = stdout_console(console)
    path = out / GRADEBOOK_NAME
    if not path.is_file():
        raise GradebookError(f"{path}: no gradebook here; `grader batch EXERCISE CLASS --out "
                             f"{out}` writes one")
    with Gradebook(path) as book:
        exercise = inert_text(book.exercise() or "?")
        if changes:
            lines = change_lines(score_changes(book))
            for line in lines:
                console.print(Text(inert_text(line)))
            if not lines:
                console.print(f"{exercise}: no score changed between any student's last two "
                              f"gradings")
            return EXIT_OK
        table = Table("student", "status", "score", "attempts", "graded at",
                      title=f"{exercise}: {path}", title_justify="left")
        for student, attempt in book.latest().items():
            table.add_row(Text(inert_text(student)), attempt.status,
                          f"{attempt.score:g}/{attempt.max_score:g}",
                          str(book.attempt_count(student)), attempt.graded_at)
        console.print(table)
    return EXIT_OK
