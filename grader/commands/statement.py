"""`grader statement EXERCISE [--html]`: the exercise's statement, exercises/EXERCISE/README.md."""

from __future__ import annotations

from rich.console import Console

from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UserError
from grader.exercise import Exercise
from grader.report.statement import (
    StatementMissing,
    print_statement,
    read_statement,
    statement_page,
)


def main(*, exercise: str, html: bool = False, console: Console | None = None) -> int:
    """Print the statement of EXERCISE on the terminal (rendered Markdown), or with `html` as a
    sanitised HTML page on stdout; no statement is exit 3."""
    console = stdout_console(console)
    known = {each.name: each for each in Exercise.all()}
    if exercise not in known:
        raise UserError(f"no exercise named {exercise!r} (exercises: {', '.join(sorted(known))})")
    try:
        markdown = read_statement(known[exercise])
    except StatementMissing as error:
        raise UserError(str(error)) from error
    if html:
        console.file.write(statement_page(exercise, markdown))
    else:
        print_statement(markdown, console)
    return EXIT_OK
